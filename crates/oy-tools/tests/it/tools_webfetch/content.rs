//! What the model sees of a fetched response: Markdown, text and raw
//! rendering, links, size caps, binary and non-2xx bodies, timeouts, and
//! pages too costly to parse.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use oy_tools::Mode;
use serde_json::json;

use super::server::{MapResolver, Reply, Server, html, response};
use super::{content, fetch, free_port, hooked, production, scrape, with_tool};
use crate::support::{Env, assert_tool_error};

pub(super) const PAGE: &str = r#"<!doctype html>
<html><head><title>Guide</title><style>body { color: red }</style>
<script>var secret = "SCRIPT-TEXT";</script></head>
<body><h1>Getting started</h1>
<p>Install the <a href="/docs/install">tool</a>, then read <a href="https://example.org/more#top">more</a>.</p>
<script>document.write("INLINE-SCRIPT")</script>
<ul><li>first</li><li>second</li></ul>
<noscript>NOSCRIPT-TEXT</noscript>
<p>Mail <a href="mailto:a@example.org">us</a>. Again <a href="/docs/install#x">install</a>.</p>
</body></html>"#;

#[test]
fn renders_markdown_without_scripts_or_styles_and_collects_links() {
    let server = Server::always(|| html(PAGE));
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(MapResolver::new(&[]), &[server.addr]),
    );
    let output = fetch(&env, json!({"url": server.url("/guide")}));
    let result = scrape(&output);
    let text = content(&output);
    assert!(text.contains("# Getting started"), "{text}");
    assert!(text.contains("[tool]("), "{text}");
    for hidden in [
        "SCRIPT-TEXT",
        "INLINE-SCRIPT",
        "color: red",
        "NOSCRIPT-TEXT",
        "<script",
    ] {
        assert!(!text.contains(hidden), "{hidden} leaked: {text}");
    }
    assert_eq!(
        result["links"],
        json!([server.url("/docs/install"), "https://example.org/more"])
    );
}

#[test]
fn renders_text_and_raw_formats() {
    let server = Server::always(|| html(PAGE));
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(MapResolver::new(&[]), &[server.addr]),
    );
    let text = content(&fetch(
        &env,
        json!({"url": server.url("/"), "return_format": "text"}),
    ));
    assert!(text.starts_with("Getting started\n"), "{text}");
    assert!(text.contains("Install the tool, then read more."), "{text}");
    assert!(text.contains("- first\n- second"), "{text}");
    assert!(
        !text.contains('<') && !text.contains("SCRIPT-TEXT") && !text.contains('#'),
        "{text}"
    );
    let raw = fetch(
        &env,
        json!({"url": server.url("/"), "return_format": "raw"}),
    );
    assert_eq!(content(&raw), PAGE);
    assert_eq!(scrape(&raw)["links"].as_array().unwrap().len(), 2);
    let bad = fetch(
        &env,
        json!({"url": server.url("/"), "return_format": "pdf"}),
    );
    assert_tool_error(&bad, "return_format");
}

#[test]
fn passes_plain_text_through_and_names_binary_bodies() {
    let server = Server::start(|head| {
        if head.starts_with("GET /br ") {
            response(
                "200 OK",
                &[("Content-Type", "text/html"), ("Content-Encoding", "br")],
                b"\x1b\x03\x00",
            )
        } else if head.starts_with("GET /bin ") {
            response(
                "200 OK",
                &[("Content-Type", "image/png")],
                b"\x89PNG\r\n\x1a\n\0\0",
            )
        } else {
            response(
                "200 OK",
                &[("Content-Type", "text/plain")],
                b"# not markdown <b>kept</b>",
            )
        }
    });
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(MapResolver::new(&[]), &[server.addr]),
    );
    assert_eq!(
        content(&fetch(&env, json!({"url": server.url("/txt")}))),
        "# not markdown <b>kept</b>"
    );
    let binary = content(&fetch(&env, json!({"url": server.url("/bin")})));
    assert_eq!(binary, "[binary content (image/png), 10 bytes: not shown]");
    let brotli = content(&fetch(&env, json!({"url": server.url("/br")})));
    assert_eq!(brotli, "[content in `br` encoding, 3 bytes: not decoded]");
}

#[test]
fn cuts_long_content_to_max_length_with_a_marker() {
    let body = "é".repeat(20_000);
    let server = Server::always(move || {
        response("200 OK", &[("Content-Type", "text/plain")], body.as_bytes())
    });
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(MapResolver::new(&[]), &[server.addr]),
    );
    let text = content(&fetch(&env, json!({"url": server.url("/")})));
    let (kept, marker) = text.split_once('\n').unwrap();
    assert_eq!(kept.chars().count(), 8000);
    assert_eq!(
        marker,
        "[truncated: 12000 characters omitted; call again with a larger max_length (at most 65536) to see more]"
    );
    let short = content(&fetch(
        &env,
        json!({"url": server.url("/"), "max_length": 10}),
    ));
    assert!(short.starts_with(&format!("{}\n[truncated: 19990 characters", "é".repeat(10))));
    let zero = fetch(&env, json!({"url": server.url("/"), "max_length": 0}));
    assert_tool_error(&zero, "max_length");
}

#[test]
fn caps_the_raw_body() {
    let server = Server::always(|| {
        response(
            "200 OK",
            &[("Content-Type", "text/plain")],
            &vec![b'x'; 300_000],
        )
    });
    let tool = hooked(MapResolver::new(&[]), &[server.addr]).with_max_body_bytes(100_000);
    let env = with_tool(Env::new(Mode::AutoApprove), tool);
    let output = fetch(&env, json!({"url": server.url("/"), "max_length": 65536}));
    // The result stays whole JSON within the 64 KiB output cap.
    assert!(!output.truncated && output.text.len() <= 64 * 1024);
    let text = content(&output);
    assert!(text.contains("characters omitted to fit the output cap]"));
    assert!(
        text.ends_with("\n[body cut: only the first 100000 bytes were read]"),
        "{}",
        &text[text.len() - 200..]
    );
}

#[test]
fn bounds_a_gzip_bomb_by_its_decompressed_size() {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..32 {
        encoder.write_all(&chunk).unwrap();
    }
    let bomb = encoder.finish().unwrap();
    assert!(bomb.len() < 1 << 20, "the bomb is {} bytes", bomb.len());
    let server = Server::always(move || {
        response(
            "200 OK",
            &[("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
            &bomb,
        )
    });
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(MapResolver::new(&[]), &[server.addr]),
    );
    let started = Instant::now();
    let output = fetch(&env, json!({"url": server.url("/")}));
    let text = content(&output);
    assert!(text.starts_with("aaaa"), "{}", &text[..100]);
    assert!(
        text.ends_with("[body cut: only the first 5242880 bytes were read]"),
        "{}",
        &text[text.len() - 200..]
    );
    assert!(output.text.len() < 10_000);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        server.requests()[0]
            .to_ascii_lowercase()
            .contains("accept-encoding: gzip")
    );
}

#[test]
fn reports_non_2xx_answers_as_results_with_their_status() {
    let server = Server::always(|| {
        response(
            "404 Not Found",
            &[("Content-Type", "text/html")],
            b"<html><body><h1>No such page</h1></body></html>",
        )
    });
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(MapResolver::new(&[]), &[server.addr]),
    );
    let output = fetch(&env, json!({"url": server.url("/missing")}));
    assert_eq!(scrape(&output)["status"], 404);
    assert_eq!(content(&output), "# No such page");
}

#[test]
fn times_out_when_the_server_never_answers() {
    let server = Server::always(|| Reply::Hang);
    let tool = hooked(MapResolver::new(&[]), &[server.addr]).with_timeout(Duration::from_secs(1));
    let env = with_tool(Env::new(Mode::AutoApprove), tool);
    let started = Instant::now();
    let output = fetch(&env, json!({"url": server.url("/")}));
    assert_tool_error(&output, "no complete answer within 1 s");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.connections(), 1);
}

#[test]
fn reports_unresolvable_names_and_refused_connections() {
    let resolver = MapResolver::new(&[]);
    let env = with_tool(Env::new(Mode::AutoApprove), production(resolver));
    assert_tool_error(
        &fetch(&env, json!({"url": "https://nowhere.test/"})),
        "could not resolve `nowhere.test`",
    );
    // A port nobody listens on (allowed by the hook): connection refused.
    let closed = free_port();
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(MapResolver::new(&[]), &[closed]),
    );
    assert_tool_error(
        &fetch(&env, json!({"url": format!("http://{closed}/")})),
        "failed",
    );
}

#[test]
fn shows_pages_too_costly_to_parse_as_text_quickly() {
    let nested = format!(
        "{}deep text{}",
        "<div>".repeat(20_000),
        "</div>".repeat(20_000)
    );
    // Distinct unclosed formatting elements are re-created in every paragraph.
    let formatting = format!(
        "{}{}",
        (0..200).map(|i| format!("<b id={i}>")).collect::<String>(),
        "<p>x".repeat(100_000)
    );
    let blocks = format!("{}y{}", "<div>".repeat(200), "</div>".repeat(200)).repeat(300);
    let pages = Arc::new([nested, formatting, blocks]);
    let server = {
        let pages = pages.clone();
        Server::start(move |head| {
            let index = usize::from(head.as_bytes()[5] - b'0');
            html(&pages[index])
        })
    };
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(MapResolver::new(&[]), &[server.addr]),
    );
    for (index, ends) in [(0, "deep text"), (1, "\nx\nx\n"), (2, "\ny\ny\n")] {
        let started = Instant::now();
        let text = content(&fetch(
            &env,
            json!({"url": server.url(&format!("/{index}"))}),
        ));
        assert!(
            text.starts_with("[the page nests too deeply to convert; shown as text]\n"),
            "{index}: {}",
            &text[..100]
        );
        assert!(text.contains(ends), "{index}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{index}: {:?}",
            started.elapsed()
        );
    }
}
