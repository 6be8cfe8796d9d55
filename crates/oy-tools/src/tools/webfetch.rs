//! `webfetch`: one public web page, as Markdown, text or raw, in the
//! scrape shape of Spider's MCP server (`url`, `status`, `content`,
//! `links`: the fields this HTTP-only build fills).
//!
//! The network boundary lives here and in `webfetch/`: only http(s) URLs
//! without userinfo; a host must be public when written as an address
//! (parsed as a browser would, so `0x7f.1` is 127.0.0.1) and every address
//! its name resolves to must be public ([`address`]); the connection goes
//! to exactly the checked addresses ([`fetch`] pins them: no second lookup);
//! redirects are followed by hand, each target checked the same way; no
//! proxy from the environment; one deadline and a cap on the decompressed
//! body. A response of any status is a result (with its `status`); no
//! response (refused, unresolvable, timed out, failed) is a `TOOL_ERROR`
//! with a `RECOVERY`.

mod address;
mod fetch;
mod render;
mod resolve;
mod strip;
mod target;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approval::Preview;
use crate::args::parse_args;
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::registry::Tool;
use crate::spec::{Effect, LazySpec, ToolSpec};

use fetch::{Client, FetchError, Fetched, Headers, MAX_REDIRECTS};
use render::Rendered;
use target::{Guard, Refused, Target};

pub use resolve::{Resolve, SystemResolver};

/// The whole fetch (redirects and body included) must finish in this time.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
/// Most body bytes read, after decompression.
pub const DEFAULT_MAX_BODY_BYTES: usize = 5 * 1024 * 1024;
/// Most characters of content `max_length` may ask for.
const MAX_LENGTH_CAP: usize = 64 * 1024;
/// Converting a page may take at least this long, whatever is left of the deadline.
const MIN_RENDER_TIME: Duration = Duration::from_secs(1);
/// Longest `user_agent` or `cookie` accepted.
const MAX_HEADER_BYTES: usize = 8 * 1024;

/// markdown and text convert HTML; raw is the body as received.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ReturnFormat {
    #[default]
    Markdown,
    Text,
    Raw,
}

/// Arguments of `webfetch`. Only `cookie` has a schema description: the
/// other names, defaults and bounds say enough, and every byte of the
/// schema is re-sent each turn.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WebFetchArgs {
    url: String,
    #[serde(default)]
    return_format: ReturnFormat,
    #[serde(default)]
    user_agent: Option<String>,
    /// Sent to the URL's origin only.
    #[serde(default)]
    cookie: Option<String>,
    // Characters of content returned.
    #[serde(default = "default_max_length")]
    #[schemars(range(max = 65536))]
    max_length: usize,
}

fn default_max_length() -> usize {
    8000
}

/// The model-visible result: Spider's scrape shape.
#[derive(Debug, Serialize)]
struct Scrape<'a> {
    url: &'a str,
    status: u16,
    content: &'a str,
    links: &'a [String],
}

/// The `webfetch` tool.
pub struct WebFetchTool {
    spec: LazySpec,
    resolver: Arc<dyn Resolve>,
    guard: Guard,
    timeout: Duration,
    max_body_bytes: usize,
}

impl WebFetchTool {
    /// Builds the tool with the system resolver.
    pub fn new() -> Self {
        Self::with_resolver(Arc::new(SystemResolver))
    }

    /// Builds the tool with `resolver` for host names. Every address it
    /// returns is still checked; it cannot make a private address public.
    pub fn with_resolver(resolver: Arc<dyn Resolve>) -> Self {
        Self {
            spec: LazySpec::new::<WebFetchArgs>(
                "webfetch",
                "Fetch a public http(s) page as JSON {url,status,content,links}; local and private addresses are refused.",
                Effect::Network,
            ),
            resolver,
            guard: Guard::public_only(),
            timeout: DEFAULT_TIMEOUT,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        }
    }

    /// Sets the deadline for a whole fetch (default 15 s).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the most body bytes read after decompression (default 5 MiB).
    pub fn with_max_body_bytes(mut self, max_body_bytes: usize) -> Self {
        self.max_body_bytes = max_body_bytes;
        self
    }

    /// Test hook: lets these exact socket addresses (a test server on
    /// `127.0.0.1:PORT`) count as public; every other address keeps the
    /// public-only rule. Production code never calls this.
    #[doc(hidden)]
    pub fn allow_socket_addrs_for_tests(mut self, addrs: Vec<SocketAddr>) -> Self {
        self.guard = Guard::allowing_for_tests(addrs);
        self
    }
}

impl Default for WebFetchTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for WebFetchTool {
    fn spec(&self) -> &ToolSpec {
        self.spec.get()
    }

    fn name(&self) -> &str {
        self.spec.name()
    }

    fn effect(&self) -> Effect {
        self.spec.effect()
    }

    fn example(&self) -> &'static str {
        r#"{"url":"https://docs.rs/serde","return_format":"markdown","max_length":8000}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: WebFetchArgs = parse_args("webfetch", args, self.example())?;
        if args.max_length == 0 {
            return Err(ToolError::failed(
                "`max_length` must be at least 1",
                "set `max_length` to the characters you need, e.g. 8000",
            ));
        }
        let headers = Headers {
            user_agent: header_value("user_agent", args.user_agent)?,
            cookie: header_value("cookie", args.cookie)?,
        };
        // Everything that needs no network is refused before anyone is asked.
        let target = Target::parse(&args.url).map_err(|refused| refusal(&refused, false))?;
        self.guard
            .check_literal(&target)
            .map_err(|refused| refusal(&refused, false))?;
        let summary = format!("fetch {}", target.url);
        call.authorize(Effect::Network, summary.clone(), || {
            Preview::Summary(summary)
        })?;
        let client = Client {
            resolver: &self.resolver,
            guard: &self.guard,
            timeout: self.timeout,
            max_body_bytes: self.max_body_bytes,
        };
        let started = Instant::now();
        let fetched = client.fetch(target, &headers).map_err(fetch_error)?;
        // Rendering shares the fetch's deadline, with a floor so a page that
        // arrived just in time is still shown.
        let render_budget = self
            .timeout
            .saturating_sub(started.elapsed())
            .max(MIN_RENDER_TIME);
        let text = present(
            fetched,
            args.return_format,
            args.max_length.min(MAX_LENGTH_CAP),
            render_budget,
            self.max_body_bytes,
            call.ctx().output_limit().max_bytes,
        )?;
        Ok(ToolOutput::ok(text))
    }
}

/// The model-visible JSON for a response: content cut to `max_chars`
/// characters, the whole within `output_bytes`.
fn present(
    fetched: Fetched,
    format: ReturnFormat,
    max_chars: usize,
    render_budget: Duration,
    max_body_bytes: usize,
    output_bytes: usize,
) -> Result<String, ToolError> {
    let rendered = match &fetched.undecoded_encoding {
        // Only gzip is asked for; a body in another encoding is not shown.
        Some(encoding) => Rendered {
            content: format!(
                "[content in `{encoding}` encoding, {} bytes: not decoded]",
                fetched.body.len()
            ),
            links: Vec::new(),
        },
        None => render::render(
            fetched.body,
            fetched.content_type.as_deref(),
            &fetched.url,
            format,
            render_budget,
        ),
    };
    let body_note = match fetched.body_cut {
        true => format!("\n[body cut: only the first {max_body_bytes} bytes were read]"),
        false => String::new(),
    };
    let encode = |content: &str| {
        let scrape = Scrape {
            url: fetched.url.as_str(),
            status: fetched.status,
            content,
            links: &rendered.links,
        };
        serde_json::to_string_pretty(&scrape).map_err(|error| {
            ToolError::failed(
                format!("could not encode the result: {error}"),
                "try again with return_format \"text\"",
            )
        })
    };
    fit(
        &rendered.content,
        max_chars,
        output_bytes,
        &body_note,
        encode,
    )
}

/// The encoded result with `content` cut to at most `max_chars`
/// characters, and further if the whole result would not fit in `budget`
/// bytes (the output cap): the JSON stays whole, the cut is marked.
fn fit(
    content: &str,
    max_chars: usize,
    budget: usize,
    note: &str,
    encode: impl Fn(&str) -> Result<String, ToolError>,
) -> Result<String, ToolError> {
    let mut keep = max_chars;
    loop {
        let mut shown = cut(content, keep, keep < max_chars);
        shown.push_str(note);
        let text = encode(&shown)?;
        if text.len() <= budget || keep == 0 {
            return Ok(text);
        }
        // Every character dropped shortens the encoding by at least a byte.
        keep = keep.saturating_sub(text.len() - budget);
    }
}

/// `content` cut to `max` characters, with a marker saying how much went
/// and whether a larger `max_length` would show more.
fn cut(content: &str, max: usize, for_output_cap: bool) -> String {
    let Some((end, _)) = content.char_indices().nth(max) else {
        return content.to_owned();
    };
    let omitted = content[end..].chars().count();
    let why = if for_output_cap {
        " to fit the output cap".to_owned()
    } else if max < MAX_LENGTH_CAP {
        format!("; call again with a larger max_length (at most {MAX_LENGTH_CAP}) to see more")
    } else {
        String::new()
    };
    format!(
        "{}\n[truncated: {omitted} characters omitted{why}]",
        &content[..end]
    )
}

/// A header value the model sent: one line, printable, not huge.
fn header_value(field: &str, value: Option<String>) -> Result<Option<String>, ToolError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let bad = value.len() > MAX_HEADER_BYTES
        || value
            .chars()
            .any(|c| (c.is_control() && c != '\t') || !c.is_ascii());
    if bad {
        return Err(ToolError::failed(
            format!(
                "`{field}` must be one line of printable ASCII, at most {MAX_HEADER_BYTES} bytes"
            ),
            format!(
                "send `{field}` without line breaks, control or non-ASCII characters, or leave it out"
            ),
        ));
    }
    Ok(Some(value))
}

fn refusal(refused: &Refused, redirect: bool) -> ToolError {
    let recovery = match refused {
        Refused::Unparsable { .. } => "send a full URL such as https://example.com/page",
        Refused::Scheme { .. } => "use an http:// or https:// URL; read local files with `read`",
        Refused::Userinfo => {
            "remove `user:password@` from the URL; pass a session with `cookie` if the site needs one"
        }
        Refused::LocalhostName { .. } | Refused::Address { .. } => {
            "webfetch reaches public internet hosts only; local, private and metadata addresses are refused by design — do not retry another spelling of this address"
        }
        Refused::NoAddress { .. } => "check the host name for typos",
    };
    let message = if redirect {
        format!("redirect refused: {refused}")
    } else {
        format!("refused: {refused}")
    };
    ToolError::failed(message, recovery)
}

fn fetch_error(error: FetchError) -> ToolError {
    match error {
        FetchError::Refused(refused) => refusal(&refused, false),
        FetchError::RedirectRefused(refused) => refusal(&refused, true),
        FetchError::Lookup { host, error } => ToolError::failed(
            format!("could not resolve `{host}`: {error}"),
            "check the host name for typos; if it is right, the network may be unavailable",
        ),
        FetchError::TimedOut { after } => ToolError::failed(
            format!("no complete answer within {} s", after.as_secs_f32()),
            "try again later, or fetch a different or smaller page",
        ),
        FetchError::TooManyRedirects { last } => ToolError::failed(
            format!("more than {MAX_REDIRECTS} redirects (the last one to {last})"),
            "fetch the final URL directly if you know it",
        ),
        FetchError::Transport { url, message } => ToolError::failed(
            format!("fetching {url} failed: {message}"),
            "check the URL; the site may be down or refusing connections — try again later or use another source",
        ),
    }
}
