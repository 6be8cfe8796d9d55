//! What names a line: the first shape of `oy-secrets`' table whose keyword
//! occurs on the line and whose pattern matches it, then the first of the
//! audit's own heuristics; failing both, the same questions of the line
//! read another way (escaped quotes undone, string literals joined, see
//! `reading`).
//!
//! Keywords are found once per document (`oy_secrets::mentions`, one
//! automaton of them all), the heuristics' triggers by one regular
//! expression of them all: each scan decides in one pass that a text holds
//! nothing, says which lines can hold something (the engine looks at no
//! other line unless a value opened above goes on), and a line is only
//! tried against the few shapes whose keywords it holds.

use std::ops::Range;
use std::sync::LazyLock;

use oy_secrets::Mentions;
use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

use super::assignment::{HEURISTICS, KIND};
use super::reading;

/// The heuristics' triggers, in ASCII mode: names and operators are
/// ASCII, and Unicode case folding (`k` is also the Kelvin sign) would only
/// make the automata larger and slower.
static HEURISTIC_SET: LazyLock<RegexSet> = LazyLock::new(|| {
    built(
        RegexSetBuilder::new(HEURISTICS.iter().map(|heuristic| heuristic.pattern))
            .unicode(false)
            .build(),
    )
});

/// Any heuristic's trigger, to find where in a document they match.
static ANY_HEURISTIC: LazyLock<Regex> = LazyLock::new(|| {
    let alternatives: Vec<String> = HEURISTICS
        .iter()
        .map(|heuristic| format!("(?:{})", heuristic.pattern))
        .collect();
    built(
        RegexBuilder::new(&alternatives.join("|"))
            .unicode(false)
            .build(),
    )
});

/// The heuristics' automata. The patterns are constants that every test
/// run compiles, so a failure is a programming error, not bad input.
#[expect(
    clippy::expect_used,
    reason = "constant patterns, compiled by every test run"
)]
fn built<T>(compiled: Result<T, regex::Error>) -> T {
    compiled.expect("redaction patterns are valid")
}

/// The lines of a document worth a look, in order.
pub(super) struct Lines {
    /// Every line that can hold or open something.
    pub(super) wanted: Vec<usize>,
    /// The lines where a heuristic's trigger matches.
    pub(super) heuristic: Vec<usize>,
}

/// What one document may hold, found once.
pub(super) struct Candidates {
    /// Where the shared shapes' keywords occur.
    mentions: Mentions,
    /// Where some heuristic's trigger matches (byte offsets).
    heuristics: Vec<usize>,
    /// Where a heredoc may open (`<<`, byte offsets).
    heredocs: Vec<usize>,
}

impl Candidates {
    /// Scans `text` once per rule family.
    pub(super) fn of(text: &str) -> Self {
        Self {
            mentions: oy_secrets::mentions(text),
            heuristics: heuristic_starts(text),
            heredocs: text.match_indices("<<").map(|(at, _)| at).collect(),
        }
    }

    /// True when no line of the document can match anything: most files.
    pub(super) fn is_empty(&self) -> bool {
        self.mentions.is_empty() && self.heuristics.is_empty()
    }

    /// The lines that can hold or open something, given where each line
    /// starts (every line when a shape is asked about every line).
    pub(super) fn lines(&self, starts: &[usize]) -> Lines {
        let line_of = |at: &usize| {
            starts
                .partition_point(|&start| start <= *at)
                .saturating_sub(1)
        };
        let sorted = |mut lines: Vec<usize>| {
            lines.sort_unstable();
            lines.dedup();
            lines
        };
        let heuristic = sorted(self.heuristics.iter().map(line_of).collect());
        let wanted = if self.mentions.on_every_line() {
            (0..starts.len()).collect()
        } else {
            sorted(
                self.mentions
                    .offsets()
                    .chain(self.heredocs.iter().copied())
                    .map(|at| line_of(&at))
                    .chain(heuristic.iter().copied())
                    .collect(),
            )
        };
        Lines { wanted, heuristic }
    }

    /// The kind of the first rule that `content` (the line of the document
    /// at bytes `range`) matches, if any: shapes first, in their priority
    /// order, then heuristics (when `heuristic`: a trigger matched on the
    /// line), then the line read another way.
    pub(super) fn line_kind(
        &self,
        range: Range<usize>,
        content: &str,
        heuristic: bool,
    ) -> Option<&'static str> {
        let shape = self
            .mentions
            .in_range(range)
            .into_iter()
            .find(|shape| shape.find(content).is_some());
        if let Some(shape) = shape {
            return Some(shape.kind());
        }
        if heuristic && heuristic_matches(content) {
            return Some(KIND);
        }
        reading::of_line(content).and_then(|read| text_kind(&read))
    }
}

/// The kind of the first rule a piece of text read on its own (a line
/// read another way, lines joined into one statement) matches: its own
/// keywords decide which shapes are tried.
pub(super) fn text_kind(text: &str) -> Option<&'static str> {
    if let Some(shape) = oy_secrets::shapes_mentioned_in(text)
        .into_iter()
        .find(|shape| shape.find(text).is_some())
    {
        return Some(shape.kind());
    }
    heuristic_matches(text).then_some(KIND)
}

/// Where a heuristic's trigger matches, at most once a line: the search
/// goes on from the next line, so a match that runs over several lines
/// (`<secret>` … `</secret>`) hides none that starts on them.
fn heuristic_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut at = 0;
    while let Some(found) = ANY_HEURISTIC.find_at(text.as_bytes(), at) {
        starts.push(found.start());
        at = text
            .get(found.start()..)
            .and_then(|rest| rest.find('\n'))
            .map_or(text.len(), |newline| found.start() + newline + 1);
        if at >= text.len() {
            break;
        }
    }
    starts
}

/// True when a heuristic whose pattern matches `content` accepts it.
fn heuristic_matches(content: &str) -> bool {
    HEURISTIC_SET
        .matches(content.as_bytes())
        .iter()
        .filter_map(|index| HEURISTICS.get(index))
        .any(|heuristic| (heuristic.check)(content))
}
