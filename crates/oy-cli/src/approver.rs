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

impl Approver for TerminalPrompt {
    fn approve(&self, request: &ApprovalRequest) -> Answer {
        let detail = match &request.preview {
            Preview::Diff(text) | Preview::Command(text) | Preview::Summary(text) => text,
        };
        let text = format!(
            "\noy: `{}` wants to {}\n{}\nAllow? [y/N] ",
            request.tool,
            request.summary,
            detail.trim_end()
        );
        match self.prompt(&text) {
            Some(answer) if matches!(answer.trim(), "y" | "Y" | "yes" | "Yes") => Answer::Approve,
            _ => Answer::Deny,
        }
    }
}

impl Asker for TerminalPrompt {
    fn ask(&self, question: &str) -> Option<String> {
        self.prompt(&format!("\noy asks: {question}\n> "))
    }
}
