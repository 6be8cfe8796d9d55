//! The matcher's cost is counted, not timed: pathological inputs stay within
//! a bound linear in file and hunk size; and on small random inputs the
//! indexed matcher agrees with the naive one it replaced.

use proptest::prelude::*;

use super::index::{Index, Tier, WORK_BUDGET, Work};
use super::{Doc, Miss, Problem, apply_within, locate, old_side};
use crate::tools::patch::parse::{Hunk, HunkLine};

fn hunk(lines: Vec<HunkLine>, hint: Option<usize>) -> Hunk {
    Hunk {
        ordinal: 1,
        label: "@@".to_owned(),
        hint,
        lines,
        ..Hunk::default()
    }
}

fn blank_context(count: usize) -> Vec<HunkLine> {
    vec![HunkLine::Context(String::new()); count]
}

/// Lines of the blank files below: one byte each, about 200 KB.
const FILE_LINES: usize = 200_000;
/// Blank context lines of a hunk: two bytes each in a patch, about 4 KB.
const HUNK_LINES: usize = 2_000;

/// Work linear in what was given: a few passes over the file's candidate
/// starts and the hunk's lines. The naive matcher needed file × hunk.
fn linear_bound(file: usize, hunk: usize) -> u64 {
    (4 * (file + hunk)) as u64
}

/// Applies one hunk with the real budget and returns the outcome and the
/// work it took.
fn apply_counted(doc: &Doc, hunk: Hunk) -> (Result<String, String>, u64) {
    let mut work = Work::new(WORK_BUDGET);
    let result = apply_within(doc, &[hunk], "f.txt", &mut work)
        .map(|applied| applied.doc.render())
        .map_err(|e| e.to_string());
    (result, work.spent())
}

#[test]
fn blank_context_is_placed_at_its_hint_with_linear_work() {
    let text = "\n".repeat(FILE_LINES);
    let doc = Doc::parse(&text);
    let mut lines = blank_context(HUNK_LINES);
    lines.push(HunkLine::Remove(String::new()));
    lines.push(HunkLine::Add("x".to_owned()));
    let (result, spent) = apply_counted(&doc, hunk(lines, Some(FILE_LINES / 2)));
    let text = result.unwrap();
    assert_eq!(text.find('x'), Some(FILE_LINES / 2 + HUNK_LINES));
    assert!(spent <= linear_bound(0, HUNK_LINES), "spent {spent}");
}

#[test]
fn blank_context_with_a_missing_line_misses_with_linear_work() {
    let text = "\n".repeat(FILE_LINES);
    let doc = Doc::parse(&text);
    let mut lines = blank_context(HUNK_LINES);
    lines.push(HunkLine::Remove("gone".to_owned()));
    let (result, spent) = apply_counted(&doc, hunk(lines, None));
    let message = result.unwrap_err();
    assert!(message.contains("nearest lines in f.txt"), "{message}");
    assert!(
        message.contains("first difference: line 2001 is ``, the hunk expects `gone`"),
        "{message}"
    );
    assert!(
        spent <= linear_bound(FILE_LINES, HUNK_LINES),
        "spent {spent}"
    );
}

#[test]
fn common_lines_in_no_matching_window_miss_with_linear_work() {
    // Every hunk line is blank and blank lines are everywhere, but a marker
    // every 1,000 lines leaves no window of 2,001 blank lines: each start is
    // a candidate and must be rejected in O(1).
    let text: String = (0..FILE_LINES)
        .map(|no| if no % 1_000 == 0 { "x\n" } else { "\n" })
        .collect();
    let doc = Doc::parse(&text);
    let mut lines = blank_context(HUNK_LINES);
    lines.push(HunkLine::Remove(String::new()));
    let (result, spent) = apply_counted(&doc, hunk(lines, Some(FILE_LINES / 2)));
    let message = result.unwrap_err();
    assert!(message.contains("nearest lines in f.txt"), "{message}");
    assert!(
        spent <= linear_bound(FILE_LINES, HUNK_LINES),
        "spent {spent}"
    );
}

#[test]
fn a_hunk_with_a_unique_line_costs_about_its_length() {
    let text: String = (0..FILE_LINES).map(|no| format!("line {no}\n")).collect();
    let doc = Doc::parse(&text);
    let lines = vec![
        HunkLine::Context("line 150000".to_owned()),
        HunkLine::Remove("line 150001".to_owned()),
        HunkLine::Add("changed".to_owned()),
        HunkLine::Context("line 150002".to_owned()),
    ];
    let (result, spent) = apply_counted(&doc, hunk(lines, Some(3)));
    assert!(
        result
            .unwrap()
            .contains("line 150000\nchanged\nline 150002\n")
    );
    // Three units per hunk line, and one for the look at the header's line.
    assert!(spent <= 4 * 3 + 1, "spent {spent}");
}

#[test]
fn running_out_of_budget_is_a_tool_error_with_a_recovery() {
    let text = "\n".repeat(1_000);
    let doc = Doc::parse(&text);
    let mut lines = blank_context(100);
    lines.push(HunkLine::Remove("gone".to_owned()));
    let mut work = Work::new(50);
    let error = apply_within(&doc, &[hunk(lines, None)], "f.txt", &mut work).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("hunk 1 (`@@`) of f.txt is too ambiguous to place cheaply"),
        "{error}"
    );
    assert!(
        error.recovery().contains("an `@@ line` anchor"),
        "{}",
        error.recovery()
    );
}

// ---- the naive matcher, as the reference ---------------------------------------

/// What a lookup found, comparable between the two matchers.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Placed(usize, Tier),
    Anchor(String, usize),
    BeforePrevious {
        at: usize,
        start: usize,
    },
    NotAtEnd {
        at: usize,
    },
    /// The nearest window's start and score.
    Differs(Option<(usize, usize)>),
}

impl From<Result<(usize, Tier), Miss>> for Outcome {
    fn from(result: Result<(usize, Tier), Miss>) -> Self {
        match result {
            Ok((at, tier)) => Self::Placed(at, tier),
            Err(miss) => match miss.problem {
                Problem::Anchor(anchor, start) => Self::Anchor(anchor, start),
                Problem::BeforePrevious { at, start } => Self::BeforePrevious { at, start },
                Problem::NotAtEnd { at } => Self::NotAtEnd { at },
                Problem::Differs(window) => Self::Differs(window.map(|w| (w.at, w.score))),
                Problem::OverBudget => panic!("a small case ran out of budget"),
            },
        }
    }
}

fn naive_matches(lines: &[&str], at: usize, old: &[&str], tier: Tier) -> bool {
    lines
        .get(at..at + old.len())
        .is_some_and(|window| window.iter().zip(old).all(|(l, h)| tier.same(l, h)))
}

/// Every start compared in full, every window scored: the matcher as it
/// was before the index.
fn naive_locate(lines: &[&str], hunk: &Hunk, old: &[&str], from: usize) -> Outcome {
    let n = lines.len();
    let mut start = from;
    for anchor in &hunk.anchors {
        let find = |same: &dyn Fn(&str) -> bool| (start..n).find(|&i| same(lines[i]));
        let found = find(&|line| line == anchor).or_else(|| find(&|line| line.trim() == anchor));
        match found {
            Some(at) => start = at + 1,
            None => return Outcome::Anchor(anchor.clone(), start),
        }
    }
    let m = old.len();
    if m == 0 {
        let at = if hunk.at_eof {
            n
        } else if let Some(hint) = hunk.hint {
            hint.clamp(start.min(n), n)
        } else if hunk.anchors.is_empty() {
            n
        } else {
            start.min(n)
        };
        return Outcome::Placed(at, Tier::Exact);
    }
    let last_start = n.checked_sub(m);
    for tier in [Tier::Exact, Tier::IgnoringTrailingWhitespace] {
        let found: Vec<usize> = match last_start {
            None => Vec::new(),
            Some(last) => {
                let range = if hunk.at_eof {
                    last..=last
                } else {
                    start..=last
                };
                range
                    .filter(|&at| at >= start && naive_matches(lines, at, old, tier))
                    .collect()
            }
        };
        let best = match hunk.hint {
            Some(hint) => found.iter().copied().min_by_key(|&at| at.abs_diff(hint)),
            None => found.first().copied(),
        };
        if let Some(at) = best {
            return Outcome::Placed(at, tier);
        }
    }
    let anywhere = |tier| {
        last_start.and_then(|last| (0..=last).find(|&at| naive_matches(lines, at, old, tier)))
    };
    let elsewhere = anywhere(Tier::Exact).or_else(|| anywhere(Tier::IgnoringTrailingWhitespace));
    match elsewhere {
        Some(at) if at < start => Outcome::BeforePrevious { at, start },
        Some(at) if hunk.at_eof => Outcome::NotAtEnd { at },
        _ => Outcome::Differs(naive_nearest(lines, old, hunk.hint.unwrap_or(start))),
    }
}

fn naive_nearest(lines: &[&str], old: &[&str], target: usize) -> Option<(usize, usize)> {
    let n = lines.len();
    let span = old.len().min(n);
    if span == 0 {
        return None;
    }
    let score = |at: usize| -> usize {
        lines[at..at + span]
            .iter()
            .zip(old)
            .filter(|(l, h)| l.trim() == h.trim())
            .count()
    };
    let at = (0..=n - span).max_by(|&a, &b| {
        score(a)
            .cmp(&score(b))
            .then_with(|| b.abs_diff(target).cmp(&a.abs_diff(target)))
    })?;
    Some((at, score(at)))
}

/// Few distinct lines, some differing only in whitespace, so that repeats,
/// both tiers and trimmed anchors all occur.
const ALPHABET: &[&str] = &["a", "b", "", "a ", " a", "b\t", "c", "  "];

/// Mostly `a` and `b`, so that a hunk often matches in several places.
fn a_line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(&ALPHABET[..2]),
        1 => prop::sample::select(ALPHABET),
    ]
    .prop_map(str::to_owned)
}

/// A hunk cut from the document (so it usually matches somewhere), with
/// some lines changed, in whitespace or outright, and some added lines.
fn a_case() -> impl Strategy<Value = (Vec<String>, Hunk, usize)> {
    (
        prop::collection::vec(a_line(), 0..24),
        0usize..24,
        1usize..8,
        prop::collection::vec((0usize..8, 0usize..3, a_line()), 0..3),
        prop::option::of(0usize..26),
        prop::bool::weighted(0.2),
        prop::option::weighted(0.2, a_line()),
        prop::option::of(0usize..24),
    )
        .prop_map(|(doc, at, len, edits, hint, at_eof, anchor, from)| {
            let at = at % (doc.len() + 1);
            let end = (at + len).min(doc.len());
            let mut lines: Vec<HunkLine> = doc
                .get(at..end)
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, text)| {
                    if i % 2 == 0 {
                        HunkLine::Context(text.clone())
                    } else {
                        HunkLine::Remove(text.clone())
                    }
                })
                .collect();
            for (pick, kind, text) in edits {
                let Some(line) = lines.get_mut(pick) else {
                    continue;
                };
                match (kind, line) {
                    (0, HunkLine::Context(old) | HunkLine::Remove(old)) => old.push(' '),
                    (1, line) => *line = HunkLine::Context(text),
                    (_, line) => *line = HunkLine::Add(text),
                }
            }
            let from = from.map_or(0, |from| from % (doc.len() + 1));
            let hunk = Hunk {
                ordinal: 1,
                label: "@@".to_owned(),
                hint,
                anchors: anchor.into_iter().map(|a| a.trim().to_owned()).collect(),
                lines,
                at_eof,
                ..Hunk::default()
            };
            (doc, hunk, from)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn the_indexed_matcher_agrees_with_the_naive_one((lines, hunk, from) in a_case()) {
        let texts: Vec<&str> = lines.iter().map(String::as_str).collect();
        let old = old_side(&Doc::empty(), &hunk);
        let index = Index::new(texts.clone());
        let mut work = Work::new(WORK_BUDGET);
        let found = Outcome::from(locate(&index, &hunk, &old, from, &mut work));
        prop_assert_eq!(found, naive_locate(&texts, &hunk, &old, from));
    }
}
