//! What names a line: the first of the document's candidate shapes from
//! `oy-secrets`' table, then of the audit's own heuristics, that the line
//! matches.
//!
//! The shapes are looked for once per document (`oy_secrets::shapes_in`,
//! one automaton of them all), the heuristics through a `RegexSet` of
//! their own: each scan decides in one pass that a text holds nothing, and
//! a line is only tried against the few shapes its document holds.

use std::sync::LazyLock;

use oy_secrets::Shape;
use regex::RegexSet;

use super::assignment::{HEURISTICS, KIND};

static HEURISTIC_SET: LazyLock<RegexSet> =
    LazyLock::new(|| compile(HEURISTICS.iter().map(|heuristic| heuristic.pattern)));

/// Compiles the heuristics' set. The patterns are constants that every
/// test run compiles, so a failure is a programming error, not bad input.
#[expect(
    clippy::expect_used,
    reason = "constant patterns, compiled by every test run"
)]
fn compile<'p>(patterns: impl IntoIterator<Item = &'p str>) -> RegexSet {
    RegexSet::new(patterns).expect("redaction patterns are valid")
}

/// What one document may hold, found once.
pub(super) struct Candidates {
    /// The shared shapes that match somewhere in the document.
    shapes: Vec<&'static Shape>,
    /// Whether some heuristic matches somewhere in it.
    heuristics: bool,
}

impl Candidates {
    /// Scans `text` once per rule family.
    pub(super) fn of(text: &str) -> Self {
        Self {
            shapes: oy_secrets::shapes_in(text),
            heuristics: HEURISTIC_SET.is_match(text),
        }
    }

    /// True when no line of the document can match anything: most files.
    pub(super) fn is_empty(&self) -> bool {
        self.shapes.is_empty() && !self.heuristics
    }

    /// The kind of the first rule `content` (one line of the document)
    /// matches, if any: shapes first, in their priority order.
    pub(super) fn line_kind(&self, content: &str) -> Option<&'static str> {
        if let Some(shape) = self
            .shapes
            .iter()
            .find(|shape| shape.find(content).is_some())
        {
            return Some(shape.kind());
        }
        if !self.heuristics {
            return None;
        }
        let matched = HEURISTIC_SET.matches(content);
        matched
            .iter()
            .filter_map(|index| HEURISTICS.get(index))
            .any(|heuristic| (heuristic.check)(content))
            .then_some(KIND)
    }
}
