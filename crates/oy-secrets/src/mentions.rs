//! [`Mentions`]: where in a text each shape's keywords occur, for a caller
//! that judges the text line by line (the audit's redactor).
//!
//! Every match of a shape holds one of its keywords, so a line can only
//! hold a shape whose keyword occurs on it: asking a line only about those
//! shapes costs a few short searches, where confirming each shape against
//! the whole document first (as [`shapes_in`](crate::shapes_in) does)
//! costs a scan of the document per shape — and a handful of keyword-rich
//! shapes (command-line flags, wallet names) made that the larger part of
//! redacting ordinary code. Two exceptions: a shape whose keyword is its
//! document's marker (a JWK's `"kty"`) is asked about every line of a
//! document that holds the marker, and a line holding a character that
//! case folding turns into an ASCII letter (`ſ`, the Kelvin sign: a
//! keyword spelt with one escapes the ASCII search) is asked about every
//! shape.

use std::ops::Range;

use crate::shape::Shape;
use crate::shapes::shapes;

/// The keyword hits of one text (see [`mentions`](crate::mentions)).
#[derive(Debug, Clone, Default)]
pub struct Mentions {
    /// `(byte offset, shape index)` of every keyword hit, by offset.
    hits: Vec<(usize, usize)>,
    /// Shapes asked about every line: a marker shape whose marker the text
    /// holds.
    everywhere: Vec<usize>,
    /// Where the text holds a character that case folding turns into an
    /// ASCII letter: a line holding one is asked about every shape (whose
    /// marker, if it has one, the text holds): `all`.
    folds: Vec<usize>,
    all: Vec<usize>,
}

impl Mentions {
    /// Built by the scan: hits in text order, shapes by index.
    pub(crate) fn new(
        mut hits: Vec<(usize, usize)>,
        mut everywhere: Vec<usize>,
        folds: Vec<usize>,
        all: Vec<usize>,
    ) -> Self {
        hits.sort_unstable();
        hits.dedup();
        everywhere.sort_unstable();
        everywhere.dedup();
        Self {
            hits,
            everywhere,
            folds,
            all,
        }
    }

    /// True when no shape can match anywhere in the text: most files.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty() && self.everywhere.is_empty() && self.folds.is_empty()
    }

    /// The byte offsets of the keyword hits (and of characters that fold
    /// to ASCII letters), in text order; several shapes may share one.
    pub fn offsets(&self) -> impl Iterator<Item = usize> + '_ {
        let mut offsets: Vec<usize> = self
            .hits
            .iter()
            .map(|&(at, _)| at)
            .chain(self.folds.iter().copied())
            .collect();
        offsets.sort_unstable();
        offsets.dedup();
        offsets.into_iter()
    }

    /// True when some shape is asked about every line (see
    /// [`Mentions::in_range`]).
    pub fn on_every_line(&self) -> bool {
        !self.everywhere.is_empty()
    }

    /// Every shape mentioned anywhere in the text, in priority order.
    pub fn shapes(&self) -> Vec<&'static Shape> {
        if !self.folds.is_empty() {
            return by_priority(self.all.clone());
        }
        let indices = self.hits.iter().map(|&(_, index)| index);
        by_priority(indices.chain(self.everywhere.iter().copied()).collect())
    }

    /// The shapes that can match within `range` of the text (one line's
    /// bytes), in priority order: those with a keyword hit inside it, and
    /// those asked about every line.
    pub fn in_range(&self, range: Range<usize>) -> Vec<&'static Shape> {
        if self.folds.iter().any(|at| range.contains(at)) {
            return by_priority(self.all.clone());
        }
        let first = self.hits.partition_point(|&(at, _)| at < range.start);
        if self.everywhere.is_empty() && self.hits.get(first).is_none_or(|&(at, _)| at >= range.end)
        {
            return Vec::new();
        }
        let inside = self
            .hits
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&(at, _)| at < range.end)
            .map(|&(_, index)| index);
        by_priority(inside.chain(self.everywhere.iter().copied()).collect())
    }
}

/// The shapes of these indices, once each, in priority order.
fn by_priority(mut indices: Vec<usize>) -> Vec<&'static Shape> {
    indices.sort_unstable();
    indices.dedup();
    indices
        .into_iter()
        .filter_map(|index| shapes().get(index))
        .collect()
}
