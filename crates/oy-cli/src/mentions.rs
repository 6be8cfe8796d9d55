//! `@path` mentions in `oy run` and `oy chat` prompts, for people: the
//! library decides what a mention attaches (`oy_agent::Agent::prepare`);
//! this says what was attached, and turns a mention that cannot be
//! attached into a message with `hint:` lines. Paths come from the
//! person's prompt and the file system: all of it passes the terminal-safe
//! rule before it is shown.

use std::io::Write;

use oy_agent::{Attachment, AttachmentKind, MentionError, Prompt};

use crate::render::{Style, terminal_line, terminal_safe};

/// `attached src/lib.rs (120 lines)`.
pub(crate) fn attached(attachment: &Attachment) -> String {
    describe(
        &attachment.path,
        attachment.kind,
        attachment.lines,
        attachment.truncated,
    )
}

fn describe(path: &str, kind: AttachmentKind, count: usize, truncated: bool) -> String {
    let unit = match (kind, count) {
        (AttachmentKind::Directory, 1) => "entry",
        (AttachmentKind::Directory, _) => "entries",
        (_, 1) => "line",
        _ => "lines",
    };
    let cut = if truncated {
        ", cut at the read limit; the model can read on"
    } else {
        ""
    };
    format!("attached {} ({count} {unit}{cut})", terminal_line(path))
}

/// Prints what `prompt` attached, one dim line each, on stderr.
pub(crate) fn say_attached(prompt: &Prompt, style: Style) {
    let mut stderr = std::io::stderr().lock();
    for attachment in prompt.attachments() {
        let _ = writeln!(stderr, "{}", style.dim(&attached(attachment)));
    }
}

/// The error, then what to do about it.
pub(crate) fn refusal(error: &MentionError) -> String {
    let mut text = terminal_safe(&error.to_string());
    match error {
        MentionError::NotFound { close, .. } => {
            if !close.is_empty() {
                let names: Vec<String> = close
                    .iter()
                    .map(|name| format!("@{}", terminal_line(name)))
                    .collect();
                text.push_str(&format!("\nhint: did you mean {}?", names.join(", ")));
            }
            text.push_str("\nhint: write @@ for an @ that names no file (@@param sends @param)");
        }
        MentionError::Malformed { .. } => {
            text.push_str("\nhint: quote a path with spaces as @\"my file.txt\"");
        }
        _ => {}
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attachment_line_counts_what_went_and_is_terminal_safe() {
        let path = "src/\u{1b}[2Jx.rs";
        assert_eq!(
            describe(path, AttachmentKind::File, 120, false),
            "attached src/\u{fffd}[2Jx.rs (120 lines)"
        );
        assert!(
            describe("a", AttachmentKind::File, 1, true)
                .ends_with("(1 line, cut at the read limit; the model can read on)")
        );
        assert!(describe("d/", AttachmentKind::Directory, 3, false).ends_with("(3 entries)"));
        assert!(describe("d/", AttachmentKind::Directory, 1, false).ends_with("(1 entry)"));
    }

    #[test]
    fn a_missing_mention_hints_at_close_names_and_the_escape() {
        let error = MentionError::NotFound {
            mention: "src/lib.r".to_owned(),
            close: vec!["src/lib.rs".to_owned()],
        };
        assert_eq!(
            refusal(&error),
            "@src/lib.r: no such file or directory in the workspace\n\
             hint: did you mean @src/lib.rs?\n\
             hint: write @@ for an @ that names no file (@@param sends @param)"
        );
    }
}
