//! Inline content of one block (a paragraph, heading, list item text or
//! table cell): styled words and the spaces and breaks between them, and
//! the soft wrap that lays them out in a number of columns.

use crate::safe::terminal_line;
use crate::style::Style;
use crate::text::width;

/// One unit of inline content.
#[derive(Clone, Debug)]
pub(super) enum Atom {
    /// A piece of a word (a word may be several pieces in different
    /// styles: `**a**b`). Terminal-safe, without spaces.
    Text(String, Style),
    /// Text that must not be split at its spaces (an inline code span).
    Glued(String, Style),
    /// A breakable space, in the style of the text around it.
    Space(Style),
    /// A hard line break.
    Break,
}

/// Inline content being collected.
#[derive(Debug, Default)]
pub(super) struct Inline {
    pub(super) atoms: Vec<Atom>,
}

impl Inline {
    pub(super) fn is_empty(&self) -> bool {
        self.atoms.is_empty()
    }

    /// Adds text, split into words at whitespace.
    pub(super) fn text(&mut self, text: &str, style: Style) {
        let mut word = String::new();
        for c in text.chars() {
            if c == ' ' || c == '\n' || c == '\t' {
                self.word(&mut word, style);
                if !matches!(self.atoms.last(), Some(Atom::Space(_))) {
                    self.atoms.push(Atom::Space(style));
                }
            } else {
                word.push(c);
            }
        }
        self.word(&mut word, style);
    }

    fn word(&mut self, word: &mut String, style: Style) {
        if !word.is_empty() {
            self.atoms
                .push(Atom::Text(terminal_line(&std::mem::take(word)), style));
        }
    }

    /// Adds text that stays on one line (an inline code span).
    pub(super) fn glued(&mut self, text: &str, style: Style) {
        let safe = terminal_line(&text.replace(['\n', '\t'], " "));
        if !safe.is_empty() {
            self.atoms.push(Atom::Glued(safe, style));
        }
    }

    pub(super) fn space(&mut self, style: Style) {
        if !matches!(self.atoms.last(), Some(Atom::Space(_)) | None) {
            self.atoms.push(Atom::Space(style));
        }
    }

    pub(super) fn hard_break(&mut self) {
        self.atoms.push(Atom::Break);
    }

    /// The unstyled text of the atoms from `from` on, spaces as one space.
    pub(super) fn plain_text(&self, from: usize) -> String {
        let mut out = String::new();
        for atom in self.atoms.iter().skip(from) {
            match atom {
                Atom::Text(t, _) | Atom::Glued(t, _) => out.push_str(t),
                Atom::Space(_) | Atom::Break => out.push(' '),
            }
        }
        out
    }

    /// Lays the content out in lines of at most `max` columns (0: no
    /// limit), breaking only at spaces; a word longer than a line is kept
    /// whole (a URL stays one piece to copy or click). Each line is a list
    /// of styled pieces, adjacent pieces of one style merged.
    pub(super) fn wrap(&self, max: usize) -> Vec<Vec<(String, Style)>> {
        let mut lines: Vec<Vec<(String, Style)>> = Vec::new();
        let mut line: Vec<(String, Style)> = Vec::new();
        let mut used = 0;
        let mut i = 0;
        let mut pending_space: Option<Style> = None;
        while i < self.atoms.len() {
            match &self.atoms[i] {
                Atom::Break => {
                    lines.push(std::mem::take(&mut line));
                    used = 0;
                    pending_space = None;
                    i += 1;
                }
                Atom::Space(style) => {
                    if used > 0 {
                        pending_space = Some(*style);
                    }
                    i += 1;
                }
                Atom::Text(..) | Atom::Glued(..) => {
                    let end = self.atoms[i..]
                        .iter()
                        .position(|a| matches!(a, Atom::Space(_) | Atom::Break))
                        .map_or(self.atoms.len(), |n| i + n);
                    let word_width: usize = self.atoms[i..end]
                        .iter()
                        .map(|a| match a {
                            Atom::Text(t, _) | Atom::Glued(t, _) => width(t),
                            Atom::Space(_) | Atom::Break => 0,
                        })
                        .sum();
                    if let Some(style) = pending_space.take() {
                        if max > 0 && used + 1 + word_width > max {
                            lines.push(std::mem::take(&mut line));
                            used = 0;
                        } else {
                            push_piece(&mut line, " ", style);
                            used += 1;
                        }
                    }
                    for atom in &self.atoms[i..end] {
                        if let Atom::Text(t, s) | Atom::Glued(t, s) = atom {
                            push_piece(&mut line, t, *s);
                        }
                    }
                    used += word_width;
                    i = end;
                }
            }
        }
        if !line.is_empty() || lines.is_empty() {
            lines.push(line);
        }
        lines
    }
}

fn push_piece(line: &mut Vec<(String, Style)>, text: &str, style: Style) {
    match line.last_mut() {
        Some((last, s)) if *s == style => last.push_str(text),
        _ => line.push((text.to_owned(), style)),
    }
}

/// A wrapped line's pieces painted into one string.
pub(super) fn paint(pieces: &[(String, Style)], color: bool) -> String {
    let mut out = String::new();
    for (text, style) in pieces {
        style.paint_into(&mut out, text, color);
    }
    out
}

/// The width of a wrapped line.
pub(super) fn line_width(pieces: &[(String, Style)]) -> usize {
    pieces.iter().map(|(t, _)| width(t)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Vec<(String, Style)>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.iter().map(|(t, _)| t.as_str()).collect())
            .collect()
    }

    #[test]
    fn wraps_at_spaces_within_the_width() {
        let mut inline = Inline::default();
        inline.text("the quick brown fox jumps over the lazy dog", Style::PLAIN);
        assert_eq!(
            texts(&inline.wrap(15)),
            ["the quick brown", "fox jumps over", "the lazy dog"]
        );
        assert_eq!(texts(&inline.wrap(0)).len(), 1);
    }

    #[test]
    fn long_words_stay_whole_and_glued_code_does_not_split() {
        let mut inline = Inline::default();
        inline.text("see https://example.com/a/very/long/path now", Style::PLAIN);
        inline.space(Style::PLAIN);
        inline.glued("a b c", Style::bold());
        assert_eq!(
            texts(&inline.wrap(10)),
            ["see", "https://example.com/a/very/long/path", "now a b c"]
        );
    }

    #[test]
    fn wide_characters_count_twice_and_styles_merge() {
        let mut inline = Inline::default();
        inline.text("世界 世界 世界", Style::PLAIN);
        assert_eq!(texts(&inline.wrap(9)), ["世界 世界", "世界"]);
        let mut inline = Inline::default();
        inline.text("a", Style::bold());
        inline.text("b c", Style::bold());
        assert_eq!(inline.wrap(80)[0], [("ab c".to_owned(), Style::bold())]);
    }

    #[test]
    fn hard_breaks_start_a_new_line_and_text_is_made_safe() {
        let mut inline = Inline::default();
        inline.text("a\u{1b}[2J", Style::PLAIN);
        inline.hard_break();
        inline.text("b", Style::PLAIN);
        assert_eq!(texts(&inline.wrap(80)), ["a\u{fffd}[2J", "b"]);
    }
}
