//! The crate's own styles and the SGR sequences that show them.
//!
//! These are the only escape sequences oy-term ever writes: Select Graphic
//! Rendition with the parameters in [`ALLOWED_SGR_PARAMS`], each styled run
//! closed with a reset so no style leaks into the next line or into a
//! prefix. With colour off, nothing but the text is written.

/// Every SGR parameter the crate emits: reset, bold, dim, italic,
/// underline, strikethrough, and six foreground colours.
pub const ALLOWED_SGR_PARAMS: &[u8] = &[0, 1, 2, 3, 4, 9, 31, 32, 33, 34, 35, 36];

/// A foreground colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Color {
    Red = 31,
    Green = 32,
    Yellow = 33,
    Blue = 34,
    Magenta = 35,
    Cyan = 36,
}

/// How a run of text looks; the default is plain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Style {
    pub(crate) bold: bool,
    pub(crate) dim: bool,
    pub(crate) italic: bool,
    pub(crate) underline: bool,
    pub(crate) strike: bool,
    pub(crate) fg: Option<Color>,
}

impl Style {
    pub(crate) const PLAIN: Style = Style {
        bold: false,
        dim: false,
        italic: false,
        underline: false,
        strike: false,
        fg: None,
    };

    pub(crate) const fn fg(color: Color) -> Style {
        Style {
            fg: Some(color),
            ..Style::PLAIN
        }
    }

    pub(crate) const fn bold() -> Style {
        Style {
            bold: true,
            ..Style::PLAIN
        }
    }

    pub(crate) const fn dim() -> Style {
        Style {
            dim: true,
            ..Style::PLAIN
        }
    }

    pub(crate) const fn with_bold(self) -> Style {
        Style { bold: true, ..self }
    }

    /// This style with `other`'s attributes added; `other`'s colour wins.
    pub(crate) fn merge(self, other: Style) -> Style {
        Style {
            bold: self.bold || other.bold,
            dim: self.dim || other.dim,
            italic: self.italic || other.italic,
            underline: self.underline || other.underline,
            strike: self.strike || other.strike,
            fg: other.fg.or(self.fg),
        }
    }

    fn is_plain(self) -> bool {
        self == Style::PLAIN
    }

    /// Appends `text` in this style: with colour on, wrapped in this
    /// style's SGR sequence and a reset; otherwise as it is. `text` must
    /// already be terminal-safe.
    pub(crate) fn paint_into(self, out: &mut String, text: &str, color: bool) {
        if !color || self.is_plain() || text.is_empty() {
            out.push_str(text);
            return;
        }
        out.push_str("\u{1b}[");
        let mut first = true;
        let mut param = |out: &mut String, p: u8| {
            if !first {
                out.push(';');
            }
            first = false;
            out.push_str(&p.to_string());
        };
        for (on, p) in [
            (self.bold, 1),
            (self.dim, 2),
            (self.italic, 3),
            (self.underline, 4),
            (self.strike, 9),
        ] {
            if on {
                param(out, p);
            }
        }
        if let Some(fg) = self.fg {
            param(out, fg as u8);
        }
        out.push('m');
        out.push_str(text);
        out.push_str("\u{1b}[0m");
    }

    /// [`Style::paint_into`] into a new string.
    pub(crate) fn paint(self, text: &str, color: bool) -> String {
        let mut out = String::with_capacity(text.len() + 12);
        self.paint_into(&mut out, text, color);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paints_with_reset_and_only_when_colour_is_on() {
        let s = Style::fg(Color::Cyan).with_bold();
        assert_eq!(s.paint("x", true), "\u{1b}[1;36mx\u{1b}[0m");
        assert_eq!(s.paint("x", false), "x");
        assert_eq!(Style::PLAIN.paint("x", true), "x");
        assert_eq!(s.paint("", true), "");
    }

    #[test]
    fn merge_adds_attributes() {
        let s = Style::bold()
            .merge(Style::fg(Color::Red))
            .merge(Style::dim());
        assert_eq!(s.paint("x", true), "\u{1b}[1;2;31mx\u{1b}[0m");
    }
}
