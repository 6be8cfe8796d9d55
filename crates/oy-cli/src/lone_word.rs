//! The lone-word rule: `oy WORD` with one bare word is almost never a
//! task. A word near a command's name (`oy dcotor`, `oy sesions`, `oy
//! Chat`) asks "did you mean …?"; any other bare word is refused with the
//! way to send it anyway (`oy run WORD`), except a few one-word tasks
//! people do type (`oy test`, `oy explain`). Either way no model request is
//! spent on a typo. A prompt of several words, or one with anything but
//! letters, digits, `-` and `_` in it (`oy "why?"`), is a prompt.
//!
//! The rule is pure (the command names are passed in) so it is tested
//! here; `commands.rs` applies it and words the errors.

/// One-word prompts sent as they are: verbs people type as a whole task.
const PROMPT_WORDS: &[&str] = &[
    "analyse",
    "analyze",
    "build",
    "continue",
    "debug",
    "describe",
    "document",
    "explain",
    "fix",
    "format",
    "lint",
    "optimise",
    "optimize",
    "refactor",
    "review",
    "simplify",
    "summarise",
    "summarize",
    "test",
    "tests",
];

/// What a lone prompt word is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LoneWord<'a> {
    /// Not a lone bare word, or a one-word task: send it.
    Prompt,
    /// Exactly a command's name (so flags came before it).
    Command(&'a str),
    /// Close to these commands' names (the closest, best first).
    Near(Vec<&'a str>),
    /// A bare word far from every command.
    NotACommand,
}

/// Classifies the words of a prompt given to `oy` without a command.
pub(crate) fn classify<'a>(words: &[String], commands: &[&'a str]) -> LoneWord<'a> {
    let [word] = words else {
        return LoneWord::Prompt;
    };
    if !is_bare(word) {
        return LoneWord::Prompt;
    }
    if let Some(exact) = commands.iter().find(|name| **name == word.as_str()) {
        return LoneWord::Command(exact);
    }
    let lower = word.to_ascii_lowercase();
    if PROMPT_WORDS.contains(&lower.as_str()) {
        return LoneWord::Prompt;
    }
    let near = nearest(&lower, commands);
    if near.is_empty() {
        LoneWord::NotACommand
    } else {
        LoneWord::Near(near)
    }
}

/// Letters, digits, `-` and `_` only, not starting with `-`.
pub(crate) fn is_bare(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The commands `word` (lower case) may have meant: within the edit
/// distance its length allows (1 up to five letters, else 2), or whose
/// name it begins with three letters or more; the closest first.
pub(crate) fn nearest<'a>(word: &str, commands: &[&'a str]) -> Vec<&'a str> {
    let allowed = if word.chars().count() <= 5 { 1 } else { 2 };
    let mut scored: Vec<(usize, &'a str)> = commands
        .iter()
        .filter_map(|name| {
            let distance = edit_distance(word, &name.to_ascii_lowercase());
            if distance <= allowed {
                Some((distance, *name))
            } else if word.len() >= 3 && name.starts_with(word) {
                Some((allowed + 1, *name))
            } else {
                None
            }
        })
        .collect();
    scored.sort_by_key(|(distance, _)| *distance);
    let best = scored.first().map(|(distance, _)| *distance);
    scored
        .into_iter()
        .filter(|(distance, _)| Some(*distance) == best)
        .map(|(_, name)| name)
        .collect()
}

/// Up to five of `names` closest to `typed` (a model id, say), ignoring
/// case: those containing it or contained in it first, then those within
/// a few edits (3, or a quarter of its length when longer).
pub(crate) fn closest<'a>(typed: &str, names: &[&'a str]) -> Vec<&'a str> {
    let wanted = typed.to_lowercase();
    let allowed = 3.max(wanted.chars().count() / 4);
    if wanted.chars().count() > 1024 {
        return Vec::new();
    }
    let mut scored: Vec<(usize, &'a str)> = names
        .iter()
        .filter_map(|name| {
            // A length difference alone over the allowance rules a name
            // out, before any table is built (a server may list ids of
            // megabytes).
            let length = name.chars().count();
            let typed_length = wanted.chars().count();
            if length > 1024 {
                return None;
            }
            let lower = name.to_lowercase();
            if lower.contains(&wanted) || wanted.contains(&lower) {
                return Some((0, *name));
            }
            if length.abs_diff(typed_length) > allowed {
                return None;
            }
            let distance = edit_distance(&wanted, &lower);
            (distance <= allowed).then_some((distance, *name))
        })
        .collect();
    scored.sort_by_key(|(distance, _)| *distance);
    scored.into_iter().take(5).map(|(_, name)| name).collect()
}

/// The optimal-string-alignment (restricted Damerau–Levenshtein)
/// distance: insertions, deletions, substitutions and swaps of two
/// neighbours each cost 1.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // rows[i][j]: distance between a[..i] and b[..j].
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMANDS: &[&str] = &[
        "run",
        "chat",
        "model",
        "doctor",
        "sessions",
        "audit",
        "completions",
        "tools",
        "tool",
        "sandbox",
        "help",
    ];

    fn class(words: &[&str]) -> LoneWord<'static> {
        let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        classify(&words, COMMANDS)
    }

    #[test]
    fn edit_distance_counts_swaps_as_one() {
        assert_eq!(edit_distance("dcotor", "doctor"), 1);
        assert_eq!(edit_distance("chta", "chat"), 1);
        assert_eq!(edit_distance("modle", "model"), 1);
        assert_eq!(edit_distance("sesions", "sessions"), 1);
        assert_eq!(edit_distance("", "run"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn typos_of_commands_are_near_them() {
        for (typed, meant) in [
            ("dcotor", "doctor"),
            ("sesions", "sessions"),
            ("chta", "chat"),
            ("modle", "model"),
            ("Doctor", "doctor"),
            ("CHAT", "chat"),
            ("audti", "audit"),
            ("comletions", "completions"),
            ("snadbox", "sandbox"),
            ("complet", "completions"),
            ("rn", "run"),
        ] {
            assert_eq!(class(&[typed]), LoneWord::Near(vec![meant]), "{typed}");
        }
        // Equally close to two: both are offered.
        assert_eq!(class(&["tooll"]), LoneWord::Near(vec!["tools", "tool"]));
    }

    #[test]
    fn a_command_after_flags_is_named_as_one() {
        assert_eq!(class(&["doctor"]), LoneWord::Command("doctor"));
    }

    #[test]
    fn far_bare_words_are_not_commands() {
        for word in ["frobnicate", "hello", "x", "thing_2", "go-on", "sessionize"] {
            assert_eq!(class(&[word]), LoneWord::NotACommand, "{word}");
        }
    }

    #[test]
    fn real_prompts_and_one_word_tasks_are_prompts() {
        for words in [
            &["explain"][..],
            &["Test"],
            &["refactor"],
            &["fix the bug"],
            &["why?"],
            &["src/main.rs"],
            &["doctor", "the", "tests"],
            &["dcotor", "now"],
            &["-"],
        ] {
            assert_eq!(class(words), LoneWord::Prompt, "{words:?}");
        }
    }

    #[test]
    fn closest_names_contain_the_text_or_are_a_few_edits_away() {
        let ids = [
            "gpt-4o",
            "gpt-4o-mini",
            "o3",
            "llama3.1:8b",
            "qwen2.5-coder",
        ];
        assert_eq!(closest("gpt-4", &ids), ["gpt-4o", "gpt-4o-mini"]);
        assert_eq!(closest("gtp-4o", &ids)[0], "gpt-4o");
        assert_eq!(closest("LLAMA3.1", &ids), ["llama3.1:8b"]);
        assert!(closest("mistral-large", &ids).is_empty());
    }

    #[test]
    fn no_one_word_task_is_near_a_command() {
        for word in PROMPT_WORDS {
            assert!(nearest(word, COMMANDS).is_empty(), "{word}");
        }
    }

    #[test]
    fn a_huge_listed_id_is_skipped_without_a_table() {
        let huge = "x".repeat(1_000_000);
        assert!(closest("gpt-4o-mini", &[huge.as_str()]).is_empty());
        assert!(closest(&huge, &["gpt-4o"]).is_empty());
        assert_eq!(closest("gpt-4o-mini", &["gpt-4o-mina"]), ["gpt-4o-mina"]);
    }
}
