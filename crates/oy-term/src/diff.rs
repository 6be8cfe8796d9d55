//! Unified diffs for a terminal: coloured, cut to the width, and capped to
//! a number of lines with a note of what was left out; and the one-line
//! count of added and removed lines.
//!
//! Lines are classified with the hunk headers' line counts, so a removed
//! line that itself starts with `--` is not taken for a file header.

use crate::safe::display_line;
use crate::style::{Color, Style};
use crate::text::truncate;

/// How to render a diff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiffOptions {
    /// Whether to colour (SGR sequences).
    pub color: bool,
    /// Lines wider than this many columns are cut with `…`; 0 for no cut.
    pub width: u16,
    /// Show at most this many lines, then a note of how many more there
    /// are; `None` for all.
    pub max_lines: Option<usize>,
}

/// What a diff line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `diff --git`, `--- a/x`, `+++ b/x`, `rename from`, …
    FileHeader,
    /// `index …`, `new file mode …`: the less useful header lines.
    Meta,
    Hunk,
    Added,
    Removed,
    Context,
    /// `\ No newline at end of file`.
    NoNewline,
    Other,
}

impl Kind {
    fn style(self) -> Style {
        match self {
            Kind::FileHeader => Style::bold(),
            Kind::Meta | Kind::Context | Kind::NoNewline => Style::dim(),
            Kind::Hunk => Style::fg(Color::Cyan),
            Kind::Added => Style::fg(Color::Green),
            Kind::Removed => Style::fg(Color::Red),
            Kind::Other => Style::PLAIN,
        }
    }
}

/// Classifies lines one after another, counting down each hunk's lines.
#[derive(Debug, Default)]
struct Classifier {
    old_left: usize,
    new_left: usize,
    /// A hunk header without readable counts: `+`, `-` and ` ` lines are
    /// content until the next header.
    uncounted: bool,
}

impl Classifier {
    fn classify(&mut self, line: &str) -> Kind {
        if self.old_left > 0 || self.new_left > 0 {
            match line.as_bytes().first() {
                Some(b'+') => {
                    self.new_left = self.new_left.saturating_sub(1);
                    return Kind::Added;
                }
                Some(b'-') => {
                    self.old_left = self.old_left.saturating_sub(1);
                    return Kind::Removed;
                }
                Some(b' ') | None => {
                    self.old_left = self.old_left.saturating_sub(1);
                    self.new_left = self.new_left.saturating_sub(1);
                    return Kind::Context;
                }
                Some(b'\\') => return Kind::NoNewline,
                Some(_) => {
                    self.old_left = 0;
                    self.new_left = 0;
                }
            }
        }
        if line.starts_with("@@") {
            match hunk_counts(line) {
                Some((old, new)) => {
                    self.old_left = old;
                    self.new_left = new;
                    self.uncounted = false;
                }
                None => self.uncounted = true,
            }
            return Kind::Hunk;
        }
        const HEADERS: &[&str] = &[
            "diff ",
            "--- ",
            "+++ ",
            "rename from ",
            "rename to ",
            "copy from ",
            "copy to ",
            "Binary files ",
        ];
        const META: &[&str] = &[
            "index ",
            "new file mode ",
            "deleted file mode ",
            "old mode ",
            "new mode ",
            "similarity index ",
            "dissimilarity index ",
        ];
        if HEADERS.iter().any(|h| line.starts_with(h)) {
            self.uncounted = false;
            return Kind::FileHeader;
        }
        if META.iter().any(|h| line.starts_with(h)) {
            return Kind::Meta;
        }
        match line.as_bytes().first() {
            Some(b'\\') => Kind::NoNewline,
            Some(b'+') if self.uncounted => Kind::Added,
            Some(b'-') if self.uncounted => Kind::Removed,
            Some(b' ') if self.uncounted => Kind::Context,
            _ => Kind::Other,
        }
    }
}

/// The old and new line counts of `@@ -a[,b] +c[,d] @@` (a missing count
/// is 1).
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let mut parts = line.strip_prefix("@@ ")?.split(' ');
    let count = |range: &str| -> Option<usize> {
        match range.split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => range.parse::<usize>().ok().map(|_| 1),
        }
    };
    let old = count(parts.next()?.strip_prefix('-')?)?;
    let new = count(parts.next()?.strip_prefix('+')?)?;
    Some((old, new))
}

/// Renders a unified diff; see the module doc. Every line ends with `\n`.
pub fn render_diff(diff: &str, options: DiffOptions) -> String {
    let mut classifier = Classifier::default();
    let lines: Vec<&str> = diff.lines().collect();
    let shown = options.max_lines.unwrap_or(usize::MAX).min(lines.len());
    let mut out = String::with_capacity(diff.len().min(1 << 16) + 64);
    for line in &lines[..shown] {
        let kind = classifier.classify(line);
        let mut text = display_line(line);
        if options.width > 0 {
            text = truncate(&text, usize::from(options.width));
        }
        kind.style().paint_into(&mut out, &text, options.color);
        out.push('\n');
    }
    let more = lines.len() - shown;
    if more > 0 {
        let noun = if more == 1 { "line" } else { "lines" };
        let note = format!("… {more} more {noun} (--verbose shows all)");
        Style::dim().paint_into(&mut out, &note, options.color);
        out.push('\n');
    }
    out
}

/// The number of added and removed lines in a unified diff.
pub fn diff_stat(diff: &str) -> (usize, usize) {
    let mut classifier = Classifier::default();
    let mut added = 0;
    let mut removed = 0;
    for line in diff.lines() {
        match classifier.classify(line) {
            Kind::Added => added += 1,
            Kind::Removed => removed += 1,
            _ => {}
        }
    }
    (added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/x.rs b/x.rs\nindex 1..2 100644\n--- a/x.rs\n+++ b/x.rs\n@@ -1,4 +1,4 @@\n fn a() {}\n--- old\n+++ new\n-x\n+y\n same\n\\ No newline at end of file\n";

    fn plain(max_lines: Option<usize>, width: u16) -> String {
        render_diff(
            DIFF,
            DiffOptions {
                color: false,
                width,
                max_lines,
            },
        )
    }

    #[test]
    fn stat_counts_content_lines_not_headers() {
        assert_eq!(diff_stat(DIFF), (2, 2));
        assert_eq!(diff_stat(""), (0, 0));
        assert_eq!(diff_stat("@@ @@\n+a\n+b\n-c\n"), (2, 1));
    }

    #[test]
    fn lines_inside_hunks_are_content_even_when_they_look_like_headers() {
        let out = render_diff(
            DIFF,
            DiffOptions {
                color: true,
                width: 0,
                max_lines: None,
            },
        );
        assert!(out.contains("\u{1b}[1m--- a/x.rs\u{1b}[0m\n"), "{out}");
        assert!(out.contains("\u{1b}[31m--- old\u{1b}[0m\n"));
        assert!(out.contains("\u{1b}[32m+++ new\u{1b}[0m\n"));
        assert!(out.contains("\u{1b}[36m@@ -1,4 +1,4 @@\u{1b}[0m\n"));
        assert!(out.contains("\u{1b}[2m same\u{1b}[0m\n"));
    }

    #[test]
    fn long_lines_are_cut_and_extra_lines_counted() {
        let out = plain(Some(3), 12);
        assert_eq!(
            out,
            "diff --git …\nindex 1..2 …\n--- a/x.rs\n… 9 more lines (--verbose shows all)\n"
        );
        assert_eq!(plain(None, 0), DIFF);
        assert!(plain(Some(11), 0).ends_with("… 1 more line (--verbose shows all)\n"));
        assert_eq!(plain(Some(12), 0), DIFF);
    }

    #[test]
    fn hostile_lines_are_made_safe() {
        let out = render_diff(
            "+\u{1b}]8;;x\u{7}a\u{202e}\tb\n",
            DiffOptions {
                color: false,
                width: 0,
                max_lines: None,
            },
        );
        assert_eq!(out, "+\u{fffd}]8;;x\u{fffd}a\u{fffd}  b\n");
    }
}
