//! The model's answer as it streams: rendered as terminal Markdown by
//! oy-term when stdout is a terminal (plain, without escapes, under
//! `NO_COLOR`), passed through terminal-safe otherwise so a pipe or a file
//! gets the Markdown source. Also the compact diff of a file change.

use oy_term::{DiffOptions, MarkdownOptions, MarkdownStream};

use super::{Style, terminal_safe};

/// Where the answer text goes and how it is shown.
pub(crate) enum Answer {
    /// Markdown rendered block by block.
    Markdown {
        options: MarkdownOptions,
        stream: Option<Box<MarkdownStream>>,
    },
    /// The text as it came; `open` while the last line has no newline.
    Raw { open: bool },
}

impl Answer {
    /// Markdown on a terminal, raw otherwise.
    pub(crate) fn new(stdout_terminal: bool, width: usize) -> Self {
        if stdout_terminal {
            let color = Style::detect(true).enabled;
            Self::Markdown {
                options: MarkdownOptions {
                    color,
                    width: u16::try_from(width).unwrap_or(u16::MAX),
                },
                stream: None,
            }
        } else {
            Self::Raw { open: false }
        }
    }

    /// True when the answer goes to a terminal (and is rendered).
    pub(crate) fn on_terminal(&self) -> bool {
        matches!(self, Self::Markdown { .. })
    }

    /// Takes more answer text; returns what can be shown now.
    pub(crate) fn push(&mut self, delta: &str) -> String {
        match self {
            Self::Markdown { options, stream } => stream
                .get_or_insert_with(|| Box::new(MarkdownStream::new(*options)))
                .push(delta),
            Self::Raw { open } => {
                // Model text is untrusted: no escape sequence reaches a terminal.
                let text = terminal_safe(delta);
                if !text.is_empty() {
                    *open = !text.ends_with('\n');
                }
                text
            }
        }
    }

    /// Ends the answer so far: the rest of the Markdown, or the newline a
    /// raw answer lacks, so what follows starts on its own line.
    pub(crate) fn finish(&mut self) -> String {
        match self {
            Self::Markdown { stream, .. } => stream
                .take()
                .map(|mut stream| stream.finish())
                .unwrap_or_default(),
            Self::Raw { open } => {
                if std::mem::take(open) {
                    "\n".to_owned()
                } else {
                    String::new()
                }
            }
        }
    }
}

/// A unified diff for the terminal, indented under its call: coloured
/// when `style` is, at most `max_lines` lines.
pub(crate) fn diff(diff: &str, style: Style, width: usize, max_lines: Option<usize>) -> String {
    let rendered = oy_term::render_diff(
        diff,
        DiffOptions {
            color: style.enabled,
            width: u16::try_from(width.saturating_sub(4)).unwrap_or(u16::MAX),
            max_lines,
        },
    );
    rendered
        .lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}
