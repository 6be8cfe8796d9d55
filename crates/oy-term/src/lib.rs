//! `oy-term`: how oy presents text on a terminal, as pure functions.
//!
//! It owns the look of what oy shows: a streamed Markdown answer
//! ([`MarkdownStream`], [`render_markdown`]), highlighted code
//! ([`highlight_line`]), unified diffs ([`render_diff`], [`diff_stat`]),
//! the last lines of a command's output ([`Tail`]), and the one rule for
//! terminal-safe text ([`terminal_safe`], [`terminal_line`],
//! [`strip_ansi`]). Text goes in, styled text comes out; the caller says
//! whether colour is on and how wide the screen is.
//!
//! It must never: print or do any other I/O, read the environment, detect
//! the terminal, or depend on another oy crate. And it never trusts its
//! input: every character it outputs from its input is terminal-safe
//! (control characters other than `\n` and `\t`, invisible and bidi
//! characters become U+FFFD), and the only escape sequences it writes are
//! its own SGR colours, with the parameters in [`ALLOWED_SGR_PARAMS`].

#![forbid(unsafe_code)]

mod diff;
mod highlight;
mod markdown;
mod safe;
mod style;
mod tail;
mod text;

pub use diff::{DiffOptions, diff_stat, render_diff};
pub use highlight::{HighlightState, Lang, highlight_line};
pub use markdown::{MarkdownOptions, MarkdownStream, render_markdown};
pub use safe::{is_unsafe_char, strip_ansi, terminal_line, terminal_safe};
pub use style::ALLOWED_SGR_PARAMS;
pub use tail::Tail;
