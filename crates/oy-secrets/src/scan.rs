//! The questions asked of the whole table: does this value have a
//! secret's shape ([`is_secret_value`], the child-process environment
//! filter), which shapes does this text hold ([`shapes_in`]) and where
//! ([`find_secrets`]), and where are the keywords of the shapes it might
//! hold ([`mentions`], for a caller judging it line by line, and
//! [`shapes_mentioned_in`]).
//!
//! Values are short and many: one automaton of oy's own shapes that hold
//! in values decides, and the vendored rules (too many and too large for
//! one automaton) are looked up by keyword as in text. Texts are long and
//! mostly clean: one pass of an Aho-Corasick automaton of every shape's
//! keywords (case ignored, overlapping hits included) says which shapes
//! can match at all, and only those run their own pattern. Everything is
//! built on first use (a run that never asks never pays); a hit is always
//! confirmed by the shape's own pattern and check.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::bytes;

use crate::mentions::Mentions;
use crate::shape::{SecretSpan, Shape};
use crate::shapes::shapes;

/// oy's own shapes that hold in values, compiled together.
struct Compiled {
    set: bytes::RegexSet,
    shapes: Vec<&'static Shape>,
}

/// oy's own shapes that judge a single value, in ASCII mode: every shape
/// is ASCII, and byte classes keep the automaton small (a few
/// milliseconds to build in a release build, once).
static VALUE: LazyLock<Compiled> = LazyLock::new(|| {
    let shapes: Vec<&Shape> = shapes()
        .iter()
        .filter(|s| s.scope().in_values() && !s.is_vendored())
        .collect();
    let set = bytes::RegexSetBuilder::new(shapes.iter().map(|s| s.pattern()))
        .unicode(false)
        .build();
    Compiled {
        set: built(set),
        shapes,
    }
});

/// Characters that Unicode case folding turns into ASCII letters (`ſ` is
/// an `s`, the Kelvin sign a `k`): the shapes' `(?i)` patterns match them
/// where an ASCII keyword search does not, so a text holding one is tried
/// against every shape (rare enough to cost nothing).
const FOLDS_TO_ASCII: [&str; 2] = ["\u{17f}", "\u{212a}"];

/// The keywords of every shape that holds in text, in one automaton.
struct Keywords {
    automaton: AhoCorasick,
    /// For each pattern of the automaton, the indices of the shapes it
    /// belongs to; empty for the [`FOLDS_TO_ASCII`] patterns (every shape).
    owners: Vec<Vec<usize>>,
}

static TEXT: LazyLock<Keywords> = LazyLock::new(|| {
    let mut by_keyword: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for shape in shapes().iter().filter(|shape| shape.scope().in_text()) {
        for keyword in shape.keywords() {
            by_keyword
                .entry(keyword.to_ascii_lowercase())
                .or_default()
                .push(shape.index);
        }
    }
    let mut patterns: Vec<String> = Vec::with_capacity(by_keyword.len() + 2);
    let mut owners = Vec::with_capacity(by_keyword.len() + 2);
    for (keyword, shapes) in by_keyword {
        patterns.push(keyword);
        owners.push(shapes);
    }
    for fold in FOLDS_TO_ASCII {
        patterns.push(fold.to_owned());
        owners.push(Vec::new());
    }
    // A DFA: a few hundred kilobytes built once, and a text scanned
    // several times faster than by the default NFA.
    let automaton = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::DFA))
        .build(&patterns);
    Keywords {
        automaton: built_automaton(automaton),
        owners,
    }
});

#[expect(
    clippy::expect_used,
    reason = "constant patterns, each compiled by the table tests"
)]
fn built<T>(compiled: Result<T, regex::Error>) -> T {
    compiled.expect("secret shapes are valid regular expressions")
}

#[expect(
    clippy::expect_used,
    reason = "constant keywords, built by every test run"
)]
fn built_automaton(built: Result<AhoCorasick, aho_corasick::BuildError>) -> AhoCorasick {
    built.expect("the keywords of the secret shapes build an automaton")
}

/// True when `value` (one environment variable's value, one config value)
/// holds a secret whatever it is called: a published token format, a
/// private key, a URL or connection string with a password, an auth header
/// or scheme, a JSON secret field.
pub fn is_secret_value(value: &str) -> bool {
    // Most values match nothing, which one pass without match bookkeeping
    // decides.
    let own = VALUE.set.is_match(value.as_bytes())
        && VALUE.set.matches(value.as_bytes()).iter().any(|index| {
            VALUE.shapes.get(index).is_some_and(|shape| {
                shape.marker().is_none_or(|marker| value.contains(marker))
                    && (shape.check.is_none() || shape.find(value).is_some())
            })
        });
    own || shapes_mentioned_in(value)
        .into_iter()
        .filter(|shape| shape.is_vendored())
        .any(|shape| shape.find(value).is_some())
}

/// Where the keywords of the shapes that hold in text occur in `text`
/// (one pass of one automaton); a shape with a marker counts only when
/// `text` holds the marker.
pub fn mentions(text: &str) -> Mentions {
    let table = shapes();
    let mut hits = Vec::new();
    let mut folds = Vec::new();
    for found in TEXT.automaton.find_overlapping_iter(text) {
        match TEXT.owners.get(found.pattern().as_usize()) {
            Some(owners) if !owners.is_empty() => {
                hits.extend(owners.iter().map(|&index| (found.start(), index)));
            }
            _ => folds.push(found.start()),
        }
    }
    // Markers are few: each looked for once.
    let markers: BTreeMap<&str, bool> = table
        .iter()
        .filter_map(Shape::marker)
        .map(|marker| (marker, text.contains(marker)))
        .collect();
    let counts = |shape: &Shape| {
        shape
            .marker()
            .is_none_or(|marker| markers.get(marker).copied().unwrap_or(false))
    };
    hits.retain(|&(_, index)| table.get(index).is_some_and(counts));
    // A shape whose keyword is its marker matches away from the keyword.
    let everywhere = table
        .iter()
        .filter(|shape| shape.scope().in_text() && counts(shape))
        .filter(|shape| {
            shape
                .marker()
                .is_some_and(|marker| shape.keywords().contains(&marker))
                && hits.iter().any(|&(_, index)| index == shape.index)
        })
        .map(|shape| shape.index)
        .collect();
    let all = if folds.is_empty() {
        Vec::new()
    } else {
        table
            .iter()
            .filter(|shape| shape.scope().in_text() && counts(shape))
            .map(|shape| shape.index)
            .collect()
    };
    Mentions::new(hits, everywhere, folds, all)
}

/// The shapes that hold in text and one of whose keywords occurs in
/// `text` (with its marker, when it has one), in priority order — whether
/// or not their pattern matches. A caller that reads a text in more than
/// one way (lines joined at a continuation, escaped quotes undone) asks
/// this of each reading.
pub fn shapes_mentioned_in(text: &str) -> Vec<&'static Shape> {
    mentions(text).shapes()
}

/// The shapes that hold in text and match somewhere in `text`, in
/// priority order (markers looked for in `text`). A caller judging a
/// document line by line asks this once per document, then
/// [`Shape::find`] of these few shapes on each line.
pub fn shapes_in(text: &str) -> Vec<&'static Shape> {
    shapes_mentioned_in(text)
        .into_iter()
        .filter(|shape| shape.regex().is_match(text))
        .collect()
}

/// Every secret in `text` (source code, a log, a message), by the shapes
/// that hold in text, ordered by where they start; one secret may match
/// more than one shape, the first of them by priority comes first.
pub fn find_secrets(text: &str) -> Vec<SecretSpan> {
    let mut spans: Vec<(usize, SecretSpan)> = shapes_in(text)
        .into_iter()
        .flat_map(|shape| shape.spans(text).map(|span| (shape.index, span)))
        .collect();
    spans.sort_by_key(|(priority, span)| (span.range.start, *priority));
    spans.into_iter().map(|(_, span)| span).collect()
}
