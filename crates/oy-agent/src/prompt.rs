//! `Prompt`: what a person sends in one turn — their words, and the files
//! and directories their `@path` mentions attached — and the one user
//! message it becomes, with the context notes queued since the last turn
//! (a `!command` the person ran, an undo) in front of it.
//!
//! The message is one user message, never several: some providers (Bedrock)
//! refuse two user messages in a row. Attachments follow the words, each
//! in a `<file path="…">` or `<directory path="…">` element; a file's lines
//! are numbered by the read tool, so no line of it can pass for the
//! closing tag.

use serde::Serialize;

use crate::notes::ContextNote;

/// What an attachment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AttachmentKind {
    /// A file's numbered lines, as the `read` tool shows them.
    File,
    /// A directory's listing, as the `list` tool shows it.
    Directory,
}

/// One file or directory a mention attached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Attachment {
    /// The path relative to the workspace root (a directory ends in `/`).
    pub path: String,
    /// File or directory.
    pub kind: AttachmentKind,
    /// Lines of the file, or entries of the directory, attached.
    pub lines: usize,
    /// True when the tool's limit cut it (the model is told how to read
    /// on, as after its own call).
    pub truncated: bool,
    /// What the model sees: the tool's output.
    #[serde(skip)]
    pub content: String,
}

impl Attachment {
    fn element(&self) -> String {
        let tag = match self.kind {
            AttachmentKind::File => "file",
            AttachmentKind::Directory => "directory",
        };
        let mut content = self.content.clone();
        if !content.ends_with('\n') {
            content.push('\n');
        }
        format!(
            "<{tag} path=\"{}\">\n{content}</{tag}>",
            attribute(&self.path)
        )
    }
}

/// A prompt for [`crate::Agent::turn`]: the person's words, as typed, and
/// what their mentions attached. Make one from text (nothing attached, no
/// mention looked at) or with [`crate::Agent::prepare`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prompt {
    text: String,
    /// The words as the model reads them (`@@` written as `@`).
    said: String,
    attachments: Vec<Attachment>,
}

impl Prompt {
    /// A prompt of `text` alone: sent as it is, `@` and all.
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        Self {
            said: text.clone(),
            text,
            attachments: Vec::new(),
        }
    }

    pub(crate) fn with_attachments(
        text: String,
        said: String,
        attachments: Vec<Attachment>,
    ) -> Self {
        Self {
            text,
            said,
            attachments,
        }
    }

    /// The person's words, as typed (the session's title, `turn_started`).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// What the mentions attached, in the order first mentioned.
    pub fn attachments(&self) -> &[Attachment] {
        &self.attachments
    }

    /// The user message: the notes, the words, the attachments.
    pub(crate) fn message(&self, notes: &[ContextNote]) -> String {
        let mut parts: Vec<String> = notes.iter().map(ContextNote::element).collect();
        parts.push(self.said.clone());
        parts.extend(self.attachments.iter().map(Attachment::element));
        parts.join("\n\n")
    }
}

impl From<&str> for Prompt {
    fn from(text: &str) -> Self {
        Self::new(text)
    }
}

impl From<String> for Prompt {
    fn from(text: String) -> Self {
        Self::new(text)
    }
}

impl From<&String> for Prompt {
    fn from(text: &String) -> Self {
        Self::new(text.as_str())
    }
}

/// `text` as an XML attribute value between double quotes.
pub(crate) fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, content: &str) -> Attachment {
        Attachment {
            path: path.to_owned(),
            kind: AttachmentKind::File,
            lines: content.lines().count(),
            truncated: false,
            content: content.to_owned(),
        }
    }

    #[test]
    fn a_plain_prompt_is_its_text() {
        assert_eq!(Prompt::from("fix @it").message(&[]), "fix @it");
    }

    #[test]
    fn notes_come_first_and_attachments_last() {
        let prompt = Prompt::with_attachments(
            "see @@x and @a.rs".to_owned(),
            "see @x and @a.rs".to_owned(),
            vec![file("a.rs", "1\tfn main() {}\n")],
        );
        let note = ContextNote::new("undo", "The person undid turn 2.");
        assert_eq!(
            prompt.message(&[note]),
            "<note kind=\"undo\">\nThe person undid turn 2.\n</note>\n\nsee @x and @a.rs\n\n<file path=\"a.rs\">\n1\tfn main() {}\n</file>"
        );
    }

    #[test]
    fn a_path_cannot_close_its_attribute() {
        let element = file("a\"><b>&.txt", "1\tx").element();
        assert!(
            element.starts_with("<file path=\"a&quot;&gt;&lt;b&gt;&amp;.txt\">\n1\tx\n</file>"),
            "{element}"
        );
    }
}
