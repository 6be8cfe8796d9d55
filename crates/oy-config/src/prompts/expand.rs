//! `$ARGUMENTS` substitution: what the words typed after `/NAME` become in
//! the prompt file's text (the rules are in `docs/configuration.md`,
//! "Prompt files").

/// The prompt `template` makes with `arguments` (the text after the
/// command's name).
///
/// In one left-to-right pass, never rescanning what was substituted (an
/// argument holding `$ARGUMENTS` stays as typed):
/// - `$ARGUMENTS` is the whole argument text, trimmed;
/// - `$1` … `$9` is that whitespace-separated word, or nothing (one digit
///   only: `$10` is `$1` followed by `0`; quotes group nothing);
/// - `$$` is one `$`;
/// - any other `$` stays as it is.
///
/// A template with no `$ARGUMENTS` and no `$1`…`$9` gets non-empty
/// arguments appended after a blank line, so `/review src/lib.rs` works
/// with a file that never mentions its arguments.
pub fn expand(template: &str, arguments: &str) -> String {
    let arguments = arguments.trim();
    let words: Vec<&str> = arguments.split_whitespace().collect();
    let mut out = String::with_capacity(template.len() + arguments.len());
    let mut used = false;
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(arguments);
            used = true;
            rest = tail;
        } else if let Some(digit) = after
            .bytes()
            .next()
            .filter(|byte| (b'1'..=b'9').contains(byte))
        {
            let index = usize::from(digit - b'1');
            out.push_str(words.get(index).copied().unwrap_or_default());
            used = true;
            rest = &after[1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    if !used && !arguments.is_empty() {
        let kept = out.trim_end().len();
        out.truncate(kept);
        out.push_str("\n\n");
        out.push_str(arguments);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_replace_every_placeholder() {
        assert_eq!(
            expand("Review $ARGUMENTS, then test $ARGUMENTS.", " src/lib.rs "),
            "Review src/lib.rs, then test src/lib.rs."
        );
    }

    #[test]
    fn positional_words_are_single_digits_and_missing_ones_are_empty() {
        assert_eq!(
            expand("PR $1 by $2 ($3) [$4] $10", "456 alice\thigh"),
            "PR 456 by alice (high) [] 4560"
        );
    }

    #[test]
    fn a_double_dollar_is_one_dollar_and_other_dollars_stay() {
        assert_eq!(
            expand("cost $$5, $HOME, $0, $$ARGUMENTS, end $", "x"),
            "cost $5, $HOME, $0, $ARGUMENTS, end $\n\nx"
        );
    }

    #[test]
    fn substituted_text_is_never_expanded_again() {
        assert_eq!(
            expand("A: $ARGUMENTS / $1", "$ARGUMENTS $1 $$"),
            "A: $ARGUMENTS $1 $$ / $ARGUMENTS"
        );
    }

    #[test]
    fn a_template_without_placeholders_gets_the_arguments_after_a_blank_line() {
        assert_eq!(
            expand("Explain this code.\n\n", "src/main.rs"),
            "Explain this code.\n\nsrc/main.rs"
        );
        assert_eq!(expand("Explain this code.\n", "  "), "Explain this code.\n");
    }

    #[test]
    fn a_placeholder_with_no_arguments_becomes_empty() {
        assert_eq!(expand("Fix [$ARGUMENTS] and [$1]", ""), "Fix [] and []");
    }

    #[test]
    fn multi_byte_text_around_dollars_survives() {
        assert_eq!(expand("é$1ü$€", "ß"), "éßü$€");
    }
}
