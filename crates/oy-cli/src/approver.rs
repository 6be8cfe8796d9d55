//! Terminal approvals and questions: the preview on stderr, the answer from stdin.

use std::io::{BufRead, Write};

use oy_tools::{Answer, ApprovalRequest, Approver, Asker, Preview};

/// Asks the person at the terminal. Only built when stdin and stderr are terminals.
#[derive(Debug, Default)]
pub(crate) struct TerminalPrompt;

impl TerminalPrompt {
    fn prompt(&self, text: &str) -> Option<String> {
        {
            // Released before blocking on stdin: the signal thread prints
            // to stderr too, and must not wait for an answer to do so.
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "{text}");
            let _ = stderr.flush();
        }
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
        }
    }
}

impl TerminalPrompt {
    /// Asks a yes/no question; anything but yes is no.
    pub(crate) fn confirm(&self, question: &str) -> bool {
        matches!(
            self.prompt(&format!("\n{}\n[y/N] ", visible(question)))
                .as_deref()
                .map(str::trim),
            Some("y" | "Y" | "yes" | "Yes")
        )
    }
}

/// Most preview lines shown; longer previews keep head and tail, so a
/// harmful line cannot be scrolled out of sight by padding.
const PREVIEW_LINES: usize = 60;

/// Makes text safe to show in the prompt: control, format (bidi overrides,
/// zero-width) and separator characters are shown escaped, runs of blank
/// lines are collapsed, and long texts keep their head and tail with a
/// count of what was left out.
fn visible(text: &str) -> String {
    let escaped: String = text
        .chars()
        .map(|c| match c {
            '\n' | '\t' => c.to_string(),
            c if c.is_control() || is_invisible(c) => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect();
    let mut lines: Vec<&str> = Vec::new();
    let mut blanks = 0;
    for line in escaped.lines() {
        blanks = if line.trim().is_empty() {
            blanks + 1
        } else {
            0
        };
        if blanks <= 1 {
            lines.push(line);
        }
    }
    if lines.len() <= PREVIEW_LINES {
        return lines.join("\n");
    }
    let half = PREVIEW_LINES / 2;
    format!(
        "{}\n[… {} lines not shown …]\n{}",
        lines[..half].join("\n"),
        lines.len() - 2 * half,
        lines[lines.len() - half..].join("\n")
    )
}

/// Characters that change how text is laid out without being seen.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{061c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

/// Colours a unified diff (already made visible) for a terminal, unless
/// `NO_COLOR` is set: additions green, removals red, hunk headers cyan.
fn color_diff(text: &str) -> String {
    let style = crate::render::Style::detect(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    text.lines()
        .map(|line| {
            if line.starts_with("+++") || line.starts_with("---") {
                style.paint("1", line)
            } else if line.starts_with('+') {
                style.green(line)
            } else if line.starts_with('-') {
                style.red(line)
            } else if line.starts_with("@@") {
                style.paint("36", line)
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Approver for TerminalPrompt {
    fn approve(&self, request: &ApprovalRequest) -> Answer {
        let detail = match &request.preview {
            Preview::Diff(text) => color_diff(&visible(text.trim_end())),
            Preview::Command(text) | Preview::Summary(text) => visible(text.trim_end()),
        };
        let text = format!(
            "\noy: `{}` wants to {}\n{}\nAllow? [y/N] ",
            request.tool,
            visible(&request.summary),
            detail
        );
        match self.prompt(&text) {
            Some(answer) if matches!(answer.trim(), "y" | "Y" | "yes" | "Yes") => Answer::Approve,
            _ => Answer::Deny,
        }
    }
}

impl Asker for TerminalPrompt {
    fn ask(&self, question: &str) -> Option<String> {
        self.prompt(&format!("\noy asks: {}\n> ", visible(question)))
    }
}
