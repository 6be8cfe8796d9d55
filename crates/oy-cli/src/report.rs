//! Diagnostics for people, on stderr (data goes to stdout).

/// Prints `oy: note: …` and a `hint:` line on stderr. Notes name files
/// and quote errors that name files, so they pass through the
/// terminal-safe renderer.
#[expect(clippy::print_stderr, reason = "the binary's own diagnostics")]
pub(crate) fn hint(message: &str) {
    eprintln!("oy: note: {}", crate::render::terminal_safe(message));
}
