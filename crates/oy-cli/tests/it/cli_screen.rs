//! What a person sees while `oy run` works, on a real pseudo-terminal: the
//! spinner while the model thinks (and gone after), a command's live output
//! and its last lines, the diff of an edit applied without asking, the
//! answer rendered as Markdown (plain under `NO_COLOR`, coloured without
//! it), a cancelled command shown as cancelled. Timings are masked so the
//! snapshots hold on any machine.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::mock_model::{self, Wire, call, text};
use crate::pty::{Pty, clean};
use crate::support::Oy;

const ANSWER: &str = "## Done\n\nThe test **passes** now; `cargo test` is green.\n\n- fixed `add`\n- kept the API\n\n```rust\nfn add(a: i32, b: i32) -> i32 { a + b }\n```\n";

/// The screen with durations (`12 ms`, `1.2 s`) and the session id masked.
fn masked(screen: &str) -> String {
    let durations = regex::Regex::new(r"\d+(\.\d+)? (ms|s)\b").unwrap();
    let session = regex::Regex::new(r"session \d{8}-\d{6}-[0-9a-f]+").unwrap();
    let screen = durations.replace_all(screen, "[t]");
    session.replace_all(&screen, "session [id]").into_owned()
}

fn edit_and_answer() -> Vec<mock_model::Step> {
    vec![
        call(
            "bash",
            json!({"command": "for i in 1 2 3 4 5 6 7; do echo line $i; done; echo oops >&2; exit 3"}),
        ),
        call(
            "write",
            json!({"path": "src/lib.rs", "content": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"}),
        ),
        text(ANSWER),
    ]
}

#[test]
fn a_run_shows_commands_diffs_and_a_rendered_answer() {
    let oy = Oy::new();
    oy.file(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    );
    oy.file("src/main.rs", "fn main() {}\n");
    let mock = mock_model::start(Wire::Chat, edit_and_answer());
    let mut pty = Pty::start(&oy, &mock, &["run", "--mode", "auto", "fix the test"], &[]);
    assert_eq!(pty.wait(), 0, "{}", pty.screen());
    let screen = pty.shown();
    // The command's last lines and its exit code; the applied diff; the
    // answer's Markdown rendered as plain text under NO_COLOR.
    assert!(screen.contains("→ bash for i in"), "{screen}");
    assert!(screen.contains("  │ line 7\n  │ oops"), "{screen}");
    assert!(
        !screen.contains("  │ line 2\n"),
        "only the last lines stay: {screen}"
    );
    assert!(screen.contains("✗ exit 3"), "{screen}");
    assert!(screen.contains("-    a - b\n    +    a + b"), "{screen}");
    assert!(!screen.contains("**passes**") && screen.contains("The test passes now"));
    assert!(!screen.contains("```"), "{screen}");
    assert!(!pty.raw().contains("\x1b[1m"), "NO_COLOR: no styling");
    insta::assert_snapshot!("run_no_color", masked(&screen));
}

#[test]
fn with_colour_the_answer_and_the_diff_are_styled() {
    let oy = Oy::new();
    oy.file(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    );
    let mock = mock_model::start(Wire::Chat, edit_and_answer());
    let mut pty = Pty::start(
        &oy,
        &mock,
        &["run", "--mode", "auto", "fix the test"],
        &[("NO_COLOR", "")],
    );
    assert_eq!(pty.wait(), 0, "{}", pty.screen());
    let raw = pty.raw();
    assert!(raw.contains("\x1b["), "colour on a terminal");
    let screen = clean(&raw);
    assert!(screen.contains("The test passes now"), "{screen}");
    assert!(!screen.contains("**passes**"), "{screen}");
}

#[test]
fn the_spinner_shows_while_the_model_thinks_and_is_gone_after() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("Short answer.")])
        .with_delay(Duration::from_millis(1500));
    let mut pty = Pty::start(&oy, &mock, &["run", "hello"], &[]);
    pty.expect("thinking");
    pty.expect("Short answer.");
    assert_eq!(pty.wait(), 0);
    // The last thing on screen is the usage line, not a spinner frame.
    let screen = pty.shown();
    assert!(!screen.contains("thinking"), "{screen}");
    let last = screen.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with("· 1 request"), "{screen}");
}

#[test]
fn a_commands_output_shows_live_and_a_cancelled_command_says_so() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call(
                "bash",
                json!({"command": "echo first-live-line; echo $$ > sleeper.pid; exec sleep 30"}),
            ),
            text("unused"),
        ],
    );
    let mut pty = Pty::start(&oy, &mock, &["run", "--mode", "auto", "go"], &[]);
    pty.expect("running bash");
    // Shown while the command still runs.
    pty.expect("│ first-live-line");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(oy.root.join("sleeper.pid")).is_ok_and(|p| p.ends_with('\n')) {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    pty.send("\x03");
    pty.expect("⊘ cancelled after");
    assert_eq!(pty.wait(), 130, "{}", pty.screen());
    assert!(!pty.screen().contains("✓ exit"), "{}", pty.screen());
}

#[test]
fn verbose_shows_a_commands_whole_output() {
    let oy = Oy::new();
    oy.file(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    );
    let mock = mock_model::start(Wire::Chat, edit_and_answer());
    let mut pty = Pty::start(
        &oy,
        &mock,
        &["run", "--verbose", "--mode", "auto", "fix the test"],
        &[],
    );
    assert_eq!(pty.wait(), 0, "{}", pty.screen());
    let screen = pty.shown();
    for n in 1..=7 {
        assert!(screen.contains(&format!("  │ line {n}\n")), "{screen}");
    }
}

#[test]
fn oy_model_on_a_terminal_saves_the_model_picked_by_number() {
    let oy = Oy::new();
    let mock = mock_model::start_listing(
        Wire::Chat,
        Vec::new(),
        Some(&["alpha-7b", "beta-13b", "gamma-70b"]),
    );
    let mut pty = Pty::start(&oy, &mock, &["model"], &[("OY_MODEL", "")]);
    pty.expect("2   beta-13b");
    pty.expect("default model: number or id");
    pty.answer("2\r");
    pty.expect("saved model = \"beta-13b\"");
    assert_eq!(pty.wait(), 0, "{}", pty.screen());
    let config = oy.data.with_file_name("config").join("oy/config.toml");
    let saved = std::fs::read_to_string(config).unwrap();
    assert!(saved.contains("model = \"beta-13b\""), "{saved}");
}
