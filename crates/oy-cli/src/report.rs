//! Diagnostics for people, on stderr (data goes to stdout).

/// Prints `oy: note: …` and a `hint:` line on stderr.
#[expect(clippy::print_stderr, reason = "the binary's own diagnostics")]
pub(crate) fn hint(message: &str) {
    eprintln!("oy: note: {message}");
}
