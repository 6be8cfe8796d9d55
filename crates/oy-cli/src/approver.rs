//! Terminal approvals and questions: the preview on stderr, the answer from stdin.

use std::io::{BufRead, Write};

use oy_tools::{Answer, ApprovalRequest, Approver, Asker, Preview};

/// Asks the person at the terminal. Only built when stdin and stderr are terminals.
#[derive(Debug, Default)]
pub(crate) struct TerminalPrompt;

impl TerminalPrompt {
    fn prompt(&self, text: &str) -> Option<String> {
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "{text}");
        let _ = stderr.flush();
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

/// Control characters (escape sequences a command or diff may carry) are
/// shown escaped, so a preview cannot rewrite the terminal it is shown on.
fn visible(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c.to_string(),
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}

impl Approver for TerminalPrompt {
    fn approve(&self, request: &ApprovalRequest) -> Answer {
        let detail = match &request.preview {
            Preview::Diff(text) | Preview::Command(text) | Preview::Summary(text) => text,
        };
        let text = format!(
            "\noy: `{}` wants to {}\n{}\nAllow? [y/N] ",
            request.tool,
            visible(&request.summary),
            visible(detail.trim_end())
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
