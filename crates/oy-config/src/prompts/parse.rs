//! A prompt file's text: optional YAML-ish front matter (`description:`,
//! `argument-hint:`) between `---` lines, then the prompt itself. Only the
//! simple `key: value` lines are read; a real YAML parser would be more
//! than two keys need.

/// The longest description or argument hint kept, in characters: `/help`
/// shows one line per command.
const MAX_SUMMARY_CHARS: usize = 160;

/// A parsed prompt file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedPrompt {
    pub(crate) description: Option<String>,
    pub(crate) argument_hint: Option<String>,
    pub(crate) body: String,
}

/// Splits `text` into front matter and body. Other keys (another tool's
/// `allowed-tools`, `model`) are ignored; indented and list lines belong to
/// the key above them and are ignored with it.
///
/// Errors (as a sentence): front matter that is never closed, and a file
/// with no prompt text.
pub(crate) fn parse_prompt(text: &str) -> Result<ParsedPrompt, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut description = None;
    let mut argument_hint = None;
    let mut body = text;
    let mut lines = text.split_inclusive('\n');
    if lines.next().is_some_and(is_fence) {
        let mut consumed = text.split_inclusive('\n').next().map_or(0, str::len);
        let mut closed = false;
        for line in lines {
            consumed += line.len();
            if is_fence(line) {
                closed = true;
                break;
            }
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            if key.starts_with(char::is_whitespace) || key.starts_with('-') {
                continue;
            }
            let value = summary(unquote(value.trim()));
            match key.trim() {
                "description" => description = value,
                "argument-hint" | "argument_hint" => argument_hint = value,
                _ => {}
            }
        }
        if !closed {
            return Err("its front matter has no closing `---` line".to_owned());
        }
        body = &text[consumed..];
    }
    let body = body.trim_start_matches(['\n', '\r']).trim_end();
    if body.trim().is_empty() {
        return Err("it has no prompt text".to_owned());
    }
    Ok(ParsedPrompt {
        description,
        argument_hint,
        body: body.to_owned(),
    })
}

fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

/// `value` without one pair of matching surrounding quotes.
fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

/// A one-line summary, cut to [`MAX_SUMMARY_CHARS`]; `None` when empty.
pub(crate) fn summary(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
    if line.chars().count() <= MAX_SUMMARY_CHARS {
        return Some(line.to_owned());
    }
    let mut cut: String = line.chars().take(MAX_SUMMARY_CHARS - 1).collect();
    cut.push('…');
    Some(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_gives_the_description_and_the_argument_hint() {
        let parsed = parse_prompt(
            "---\r\ndescription: \"Review a file\"\nargument-hint: '[path]'\nallowed-tools:\n  - Bash(git:*)\nmodel: x\n---\r\n\nReview $ARGUMENTS.\n\n",
        )
        .unwrap();
        assert_eq!(parsed.description.as_deref(), Some("Review a file"));
        assert_eq!(parsed.argument_hint.as_deref(), Some("[path]"));
        assert_eq!(parsed.body, "Review $ARGUMENTS.");
    }

    #[test]
    fn a_file_without_front_matter_is_all_prompt() {
        let parsed = parse_prompt("\u{feff}Explain: this\n---\nmore\n").unwrap();
        assert_eq!(parsed.description, None);
        assert_eq!(parsed.body, "Explain: this\n---\nmore");
    }

    #[test]
    fn unclosed_front_matter_and_an_empty_prompt_are_refused() {
        assert!(
            parse_prompt("---\ndescription: x\nPrompt text\n")
                .unwrap_err()
                .contains("closing `---`")
        );
        assert!(
            parse_prompt("---\ndescription: x\n---\n \n")
                .unwrap_err()
                .contains("no prompt text")
        );
        assert!(parse_prompt("").is_err());
    }

    #[test]
    fn a_long_description_is_cut_to_one_short_line() {
        let long = "d".repeat(500);
        let parsed = parse_prompt(&format!("---\ndescription: {long}\n---\nGo.")).unwrap();
        let description = parsed.description.unwrap();
        assert_eq!(description.chars().count(), MAX_SUMMARY_CHARS);
        assert!(description.ends_with('…'));
        assert_eq!(summary("\n  first  \nsecond").as_deref(), Some("first"));
        assert_eq!(summary(" \n "), None);
    }
}
