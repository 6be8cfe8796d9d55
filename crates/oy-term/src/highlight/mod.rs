//! A light syntax highlighter for code shown in a terminal: comments,
//! strings, numbers, keywords, constants and type names, one line at a
//! time, for Rust, Python, JavaScript/TypeScript, Go, C/C++, Java, shell,
//! JSON, TOML, YAML and diffs. Unknown languages stay uncoloured.
//!
//! Deliberately a small tokenizer rather than a grammar engine: loading
//! full syntax definitions costs start-up time and megabytes, and a reader
//! skimming an answer needs only the broad strokes. What spans lines (block
//! comments, multi-line strings) is carried in [`HighlightState`].

mod formats;
mod langs;
mod scan;

use crate::safe::display_line;
use crate::style::{Color, Style};

/// A language the highlighter knows, or [`Lang::Plain`] for one it does
/// not (shown uncoloured).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// Rust.
    Rust,
    /// Python.
    Python,
    /// JavaScript and TypeScript (and JSX/TSX).
    JavaScript,
    /// Go.
    Go,
    /// C and C++.
    C,
    /// Java.
    Java,
    /// POSIX shell, bash, zsh.
    Shell,
    /// JSON (comments tolerated).
    Json,
    /// TOML.
    Toml,
    /// YAML.
    Yaml,
    /// A unified diff.
    Diff,
    /// Anything else: no colour.
    Plain,
}

impl Lang {
    /// The language a code fence's info string or a file extension names
    /// (case-insensitive; only the first word counts: `rust,ignore`,
    /// `python title="x"`, `{js}`).
    pub fn from_name(name: &str) -> Lang {
        let word = name
            .trim_start_matches(|c: char| c.is_whitespace() || c == '{' || c == '.')
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '{' | '}'))
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        match word.as_str() {
            "rust" | "rs" => Lang::Rust,
            "python" | "py" | "python3" | "py3" | "pyi" => Lang::Python,
            "javascript" | "js" | "jsx" | "mjs" | "cjs" | "typescript" | "ts" | "tsx" | "mts"
            | "cts" | "node" => Lang::JavaScript,
            "go" | "golang" => Lang::Go,
            "c" | "h" | "cpp" | "c++" | "cc" | "cxx" | "hpp" | "hh" | "hxx" | "objc" => Lang::C,
            "java" => Lang::Java,
            "sh" | "bash" | "zsh" | "shell" | "ksh" | "dash" | "shellscript" => Lang::Shell,
            "json" | "jsonc" | "json5" | "jsonl" => Lang::Json,
            "toml" => Lang::Toml,
            "yaml" | "yml" => Lang::Yaml,
            "diff" | "patch" | "udiff" => Lang::Diff,
            _ => Lang::Plain,
        }
    }
}

/// What one line leaves open for the next: a block comment (with its
/// nesting depth) or a multi-line string. Start each code block with
/// `HighlightState::default()`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HighlightState {
    mode: Mode,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Mode {
    #[default]
    Normal,
    Comment {
        depth: u32,
    },
    /// Inside the string kind at this index of the language's table.
    Str {
        delim: u8,
    },
    /// Inside a Rust raw string closed by `"` and this many `#`.
    RawStr {
        hashes: u8,
    },
}

/// What a token is, which decides its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Plain,
    Comment,
    Str,
    Number,
    Keyword,
    Constant,
    Type,
    Key,
    Attr,
    Variable,
    Heading,
    Added,
    Removed,
    Hunk,
}

impl Class {
    fn style(self) -> Style {
        match self {
            Class::Plain => Style::PLAIN,
            Class::Comment => Style::dim(),
            Class::Str | Class::Added => Style::fg(Color::Green),
            Class::Number | Class::Constant => Style::fg(Color::Yellow),
            Class::Keyword => Style::fg(Color::Magenta),
            Class::Type | Class::Key => Style::fg(Color::Blue),
            Class::Attr | Class::Variable | Class::Hunk => Style::fg(Color::Cyan),
            Class::Heading => Style::bold(),
            Class::Removed => Style::fg(Color::Red),
        }
    }
}

/// Collects a highlighted line: plain text as it is, tokens painted.
struct Painter {
    out: String,
    color: bool,
}

impl Painter {
    fn plain(&mut self, text: &str) {
        self.out.push_str(text);
    }

    fn token(&mut self, text: &str, class: Class) {
        class.style().paint_into(&mut self.out, text, self.color);
    }
}

/// One line of code in `lang`, highlighted when `color` is on, continuing
/// from `state` and updating it for the next line.
///
/// The line is made terminal-safe (a newline or control character in it
/// becomes U+FFFD) and its tabs expanded to four-column stops; the result
/// has no trailing newline. With `color` off the text comes back plain
/// (still tracked, so colour can be turned on mid-block).
pub fn highlight_line(lang: Lang, state: &mut HighlightState, line: &str, color: bool) -> String {
    let line = display_line(line);
    let mut out = Painter {
        out: String::with_capacity(line.len() + 32),
        color,
    };
    let spec = match lang {
        Lang::Plain => {
            out.plain(&line);
            return out.out;
        }
        Lang::Diff => {
            formats::diff_line(&line, &mut out);
            return out.out;
        }
        Lang::Rust => &langs::RUST,
        Lang::Python => &langs::PYTHON,
        Lang::JavaScript => &langs::JAVASCRIPT,
        Lang::Go => &langs::GO,
        Lang::C => &langs::C,
        Lang::Java => &langs::JAVA,
        Lang::Shell => &langs::SHELL,
        Lang::Json => &langs::JSON,
        Lang::Toml => &langs::TOML,
        Lang::Yaml => &langs::YAML,
    };
    let from = match (lang, state.mode) {
        (Lang::Yaml, Mode::Normal) => formats::yaml_prefix(&line, &mut out),
        (Lang::Toml, Mode::Normal) => formats::toml_prefix(&line, &mut out),
        _ => 0,
    };
    scan::scan(spec, &mut state.mode, &line, from, &mut out);
    out.out
}

#[cfg(test)]
mod tests;
