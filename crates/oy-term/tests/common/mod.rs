//! Sample documents and hostile inputs shared by the integration tests.

#![allow(dead_code, reason = "each test crate uses part of the samples")]

/// A rich model answer: headings, emphasis, nested lists, code, a quote,
/// a table, a rule.
pub(crate) const ANSWER: &str = include_str!("../samples/answer.md");

/// Block structure at its edges: loose and tight lists, setext headings,
/// quotes with lists and code, HTML blocks, reference links.
pub(crate) const STRUCTURE: &str = include_str!("../samples/structure.md");

/// Fenced code: after a paragraph, tilde fences, indented fences with
/// tabs, fences in list items, an unclosed fence.
pub(crate) const FENCES: &str = include_str!("../samples/fences.md");

/// Tables that fit and that do not, headings and rules without blank
/// lines around them.
pub(crate) const TABLES: &str = include_str!("../samples/tables.md");

/// Escape sequences, OSC 8 hyperlinks, C1 controls, bidi overrides and
/// invisible characters in every place Markdown can put text.
pub(crate) const HOSTILE: &str = "\
# Title \u{1b}[2J with bidi \u{202e}override\u{202c} \u{9b}31m

Text with an OSC 8 link: \u{1b}]8;;https://evil.example\u{1b}\\click\u{1b}]8;;\u{1b}\\ and a \
bell \u{7} and C1 \u{9b}31m and \u{9d}0;title\u{9c}.
Zero\u{200b}width, BOM\u{feff}, isolate\u{2066}x\u{2069}, backspace\u{8}, CR\u{0}NUL.

- item with [link \u{1b}[1m](https://x.example/\u{1b}]0;pwned\u{7}) and `code \u{1b}[31m`
- <b onclick=\"x\">html \u{1b}[4m</b> and <!-- comment \u{1b}]2;title\u{7} -->
- ![alt \u{1b}[5m](img\u{1b}[6n.png \"title \u{1b}[0m\")

```sh\u{1b}[31m \u{202e}
echo \"\u{1b}[2J\" \u{1b}]0;title\u{7} \u{85} \u{2028}
```

~~~\u{1b}]8;;x\u{7}
code\u{1b}P+q\u{1b}\\
~~~

| head \u{1b}[1m | cell |
|---|---|
| \u{1b}]8;;u\u{1b}\\x | \u{202e}y \u{1b}[?1049h |

> quote \u{1b}[5m blink

<div>\u{1b}[31mhtml block\u{1b}[0m</div>

    indented \u{1b}c reset

[r]: https://ref.example/\u{1b}[0m
[ref \u{1b}[1m][r] <https://auto.example/\u{1b}[1m> <mail\u{1b}@x.example>
";

/// Every sample.
pub(crate) const SAMPLES: &[&str] = &[ANSWER, STRUCTURE, FENCES, TABLES, HOSTILE];

/// Whether every escape sequence in `out` is one oy-term writes: `ESC [`,
/// parameters from [`oy_term::ALLOWED_SGR_PARAMS`], `m`. Returns the first
/// offending position otherwise.
pub(crate) fn only_own_sgr(out: &str) -> Result<(), String> {
    let mut rest = out;
    let mut offset = 0;
    while let Some(at) = rest.find('\u{1b}') {
        let seq = &rest[at + 1..];
        let bad = || {
            let end = (at + 20).min(rest.len());
            let mut end = end;
            while !rest.is_char_boundary(end) {
                end += 1;
            }
            format!(
                "foreign escape at byte {}: {:?}",
                offset + at,
                &rest[at..end]
            )
        };
        let params = seq.strip_prefix('[').ok_or_else(bad)?;
        let m = params.find('m').ok_or_else(bad)?;
        for param in params[..m].split(';') {
            let n: u8 = param.parse().map_err(|_| bad())?;
            if !oy_term::ALLOWED_SGR_PARAMS.contains(&n) {
                return Err(bad());
            }
        }
        let consumed = at + 1 + 1 + m + 1;
        offset += consumed;
        rest = &rest[consumed..];
    }
    if let Some(c) = out
        .chars()
        .find(|&c| c != '\u{1b}' && oy_term::is_unsafe_char(c) && c != '\n')
    {
        return Err(format!("unsafe character {c:?} in output"));
    }
    Ok(())
}
