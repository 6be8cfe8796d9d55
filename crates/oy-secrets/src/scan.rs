//! The questions asked of the whole table: does this value have a
//! secret's shape ([`is_secret_value`], the child-process environment
//! filter), which shapes does this text hold ([`shapes_in`], the audit's
//! redactor) and where ([`find_secrets`]).
//!
//! Values are short and many: one automaton of every shape that holds in
//! values decides. Texts are long and mostly clean: one literal search for
//! the shapes' keywords decides, and only shapes whose keyword turned up
//! run their own pattern. Both are built on first use (a run that never
//! asks never pays); a hit is always confirmed by the shape's own pattern
//! and check.

use std::sync::LazyLock;

use regex::{Regex, RegexBuilder, bytes};

use crate::shape::{SecretSpan, Shape};
use crate::shapes::shapes;

/// The shapes that hold in values, compiled together.
struct Compiled {
    set: bytes::RegexSet,
    shapes: Vec<&'static Shape>,
}

/// The shapes that judge a single value, in ASCII mode: every shape is
/// ASCII, and byte classes keep the automaton small (a few milliseconds
/// to build in a release build, once).
static VALUE: LazyLock<Compiled> = LazyLock::new(|| {
    let shapes: Vec<&Shape> = shapes().iter().filter(|s| s.scope().in_values()).collect();
    let set = bytes::RegexSetBuilder::new(shapes.iter().map(|s| s.pattern()))
        .unicode(false)
        .build();
    Compiled {
        set: built(set),
        shapes,
    }
});

/// The shapes that judge text, found by their keywords: one regular
/// expression of every keyword (a literal search, far faster than an
/// automaton of every pattern), then each shape whose keyword turned up
/// runs its own pattern.
struct Keywords {
    /// Any keyword, case ignored.
    any: Regex,
    /// Each keyword (lower-cased) and the shape it belongs to.
    owners: Vec<(String, &'static Shape)>,
}

static TEXT: LazyLock<Keywords> = LazyLock::new(|| {
    let owners: Vec<(String, &Shape)> = shapes()
        .iter()
        .filter(|shape| shape.scope().in_text())
        .flat_map(|shape| {
            shape
                .keywords()
                .iter()
                .map(move |keyword| (keyword.to_ascii_lowercase(), shape))
        })
        .collect();
    let alternatives: Vec<String> = owners
        .iter()
        .map(|(keyword, _)| regex::escape(keyword))
        .collect();
    // Unicode case folding, as the shapes' own `(?i)` patterns use it:
    // `baſic` (a long s) is the `basic` scheme to them.
    let any = RegexBuilder::new(&alternatives.join("|"))
        .case_insensitive(true)
        .build();
    Keywords {
        any: built(any),
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

/// True when `value` (one environment variable's value, one config value)
/// holds a secret whatever it is called: a published token format, a
/// private key, a URL or connection string with a password, an auth header
/// or scheme, a JSON secret field.
pub fn is_secret_value(value: &str) -> bool {
    // Most values match nothing, which one pass without match bookkeeping
    // decides.
    if !VALUE.set.is_match(value.as_bytes()) {
        return false;
    }
    let matched = VALUE.set.matches(value.as_bytes());
    matched.iter().any(|index| {
        VALUE.shapes.get(index).is_some_and(|shape| {
            shape.marker().is_none_or(|marker| value.contains(marker))
                && (shape.check.is_none() || shape.find(value).is_some())
        })
    })
}

/// The shapes that hold in text and match somewhere in `text`, in
/// priority order (markers looked for in `text`). A caller judging a
/// document line by line asks this once per document, then
/// [`Shape::find`] of these few shapes on each line.
pub fn shapes_in(text: &str) -> Vec<&'static Shape> {
    // Which keywords occur, overlapping ones included.
    let mut hit = vec![false; shapes().len()];
    let mut at = 0;
    while let Some(found) = TEXT.any.find_at(text, at) {
        let rest = text.as_bytes().get(found.start()..).unwrap_or_default();
        let mut known = false;
        for (keyword, shape) in &TEXT.owners {
            let head = rest.get(..keyword.len());
            if head.is_some_and(|head| head.eq_ignore_ascii_case(keyword.as_bytes()))
                && let Some(flag) = hit.get_mut(shape.index)
            {
                *flag = true;
                known = true;
            }
        }
        if !known {
            // A keyword spelt with a character Unicode folds into an ASCII
            // letter (`ſ`, `K`): rare enough to try every shape.
            hit.fill(true);
        }
        // On from the next character: hits may overlap.
        let width = text
            .get(found.start()..)
            .and_then(|rest| rest.chars().next())
            .map_or(1, char::len_utf8);
        at = found.start() + width;
    }
    shapes()
        .iter()
        .filter(|shape| hit.get(shape.index).copied().unwrap_or(false))
        .filter(|shape| shape.marker().is_none_or(|marker| text.contains(marker)))
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
