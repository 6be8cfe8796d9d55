//! What turns a file's new text back into its old one, kept small: the
//! old bytes of only the regions a patch changed, at their place in the
//! new text. A record must be written (and `fsync`ed) before a patch
//! lands, so writing every old file whole would double what a large patch
//! makes durable.
//!
//! The splices are checked when made: the stretches between them must be
//! byte-for-byte equal in both texts, so putting them back gives exactly
//! the old text. When that does not hold (a region hint that does not
//! fit, a file whose lines do not end in `\n`), the undo is the whole old
//! text.

use serde::{Deserialize, Serialize};

use crate::diff::Region;

/// Bytes `at..at + len` of the new text were `old` before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Splice {
    pub(crate) at: usize,
    pub(crate) len: usize,
    pub(crate) old: String,
}

/// The splices that turn `new` back into `old`, where `regions` (line
/// ranges, in order) say where they differ; the whole old text when the
/// regions do not account for every difference.
pub(crate) fn undo_splices(old: &str, new: &str, regions: &[Region]) -> Vec<Splice> {
    if old == new {
        return Vec::new();
    }
    exact(old, new, regions).unwrap_or_else(|| {
        vec![Splice {
            at: 0,
            len: new.len(),
            old: old.to_owned(),
        }]
    })
}

/// `new` with every splice put back, or `None` when the splices do not
/// fit it (out of order, past its end).
pub(crate) fn apply_undo(new: &[u8], splices: &[Splice]) -> Option<Vec<u8>> {
    let mut old = Vec::with_capacity(new.len());
    let mut cursor = 0;
    for splice in splices {
        let end = splice.at.checked_add(splice.len)?;
        old.extend_from_slice(new.get(cursor..splice.at)?);
        old.extend_from_slice(splice.old.as_bytes());
        cursor = end;
    }
    old.extend_from_slice(new.get(cursor..)?);
    Some(old)
}

fn exact(old: &str, new: &str, regions: &[Region]) -> Option<Vec<Splice>> {
    if regions.is_empty() {
        return None;
    }
    let old_at = line_offsets(old, regions.iter().flat_map(|r| [r.old.start, r.old.end]))?;
    let new_at = line_offsets(new, regions.iter().flat_map(|r| [r.new.start, r.new.end]))?;
    let (mut old_cursor, mut new_cursor) = (0, 0);
    let mut splices = Vec::with_capacity(regions.len());
    for (old_range, new_range) in old_at.chunks_exact(2).zip(new_at.chunks_exact(2)) {
        let (&[old_start, old_end], &[new_start, new_end]) = (old_range, new_range) else {
            return None;
        };
        if old.get(old_cursor..old_start)? != new.get(new_cursor..new_start)? {
            return None;
        }
        splices.push(Splice {
            at: new_start,
            len: new_end.checked_sub(new_start)?,
            old: old.get(old_start..old_end)?.to_owned(),
        });
        (old_cursor, new_cursor) = (old_end, new_end);
    }
    (old.get(old_cursor..)? == new.get(new_cursor..)?).then_some(splices)
}

/// The byte offset where each of `lines` (0-based, in order) starts; the
/// text's length for the line just past its end. `None` for a line
/// further on, or lines out of order.
fn line_offsets(text: &str, lines: impl Iterator<Item = usize>) -> Option<Vec<usize>> {
    let mut ends = memchr::memchr_iter(b'\n', text.as_bytes());
    let (mut line, mut start) = (0, 0);
    let mut offsets = Vec::new();
    for wanted in lines {
        while line < wanted {
            start = match ends.next() {
                Some(end) => end + 1,
                // The line past a last line with no `\n`.
                None if line + 1 == wanted && start < text.len() => text.len(),
                None => return None,
            };
            line += 1;
        }
        if wanted < line {
            return None;
        }
        offsets.push(start);
    }
    Some(offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(old: std::ops::Range<usize>, new: std::ops::Range<usize>) -> Region {
        Region { old, new }
    }

    fn round_trip(old: &str, new: &str, regions: &[Region]) -> Vec<Splice> {
        let splices = undo_splices(old, new, regions);
        assert_eq!(
            apply_undo(new.as_bytes(), &splices).as_deref(),
            Some(old.as_bytes()),
            "{splices:?}"
        );
        splices
    }

    #[test]
    fn only_the_changed_regions_are_kept() {
        let old = "a\nb\nc\nd\ne\n";
        let new = "a\nB\nc\nd\nE\nF\n";
        let splices = round_trip(old, new, &[region(1..2, 1..2), region(4..5, 4..6)]);
        assert_eq!(
            splices,
            vec![
                Splice {
                    at: 2,
                    len: 2,
                    old: "b\n".to_owned()
                },
                Splice {
                    at: 8,
                    len: 4,
                    old: "e\n".to_owned()
                },
            ]
        );
    }

    #[test]
    fn a_region_at_the_end_without_a_final_newline_is_exact() {
        let splices = round_trip("a\nb", "a\nc", &[region(1..2, 1..2)]);
        assert_eq!(splices.len(), 1);
        assert_eq!(splices.first().map(|s| s.old.as_str()), Some("b"));
    }

    #[test]
    fn a_hint_that_does_not_hold_keeps_the_whole_old_text() {
        // The region claims only line 1 changed, but line 3 did too.
        let old = "a\nb\nc\nd\n";
        let new = "a\nB\nc\nD\n";
        let splices = round_trip(old, new, &[region(1..2, 1..2)]);
        assert_eq!(splices.len(), 1);
        assert_eq!(splices.first().map(|s| s.old.as_str()), Some(old));
        // A region past the end, and lone `\r` line ends, the same.
        assert_eq!(round_trip(old, new, &[region(9..10, 9..10)]).len(), 1);
        assert_eq!(
            round_trip("a\rb\r", "a\rc\r", &[region(1..2, 1..2)])
                .first()
                .map(|s| s.old.as_str()),
            Some("a\rb\r")
        );
    }

    #[test]
    fn equal_texts_need_no_undo_and_no_regions_mean_the_whole_text() {
        assert!(round_trip("same\n", "same\n", &[]).is_empty());
        assert_eq!(round_trip("x\n", "y\n", &[]).len(), 1);
    }

    #[test]
    fn splices_that_do_not_fit_the_text_are_refused() {
        let splice = |at, len| Splice {
            at,
            len,
            old: String::new(),
        };
        assert_eq!(apply_undo(b"abc", &[splice(2, 5)]), None);
        assert_eq!(apply_undo(b"abc", &[splice(2, 1), splice(1, 1)]), None);
        assert_eq!(apply_undo(b"abc", &[splice(usize::MAX, 2)]), None);
        assert_eq!(apply_undo(b"abc", &[splice(1, 1)]), Some(b"ac".to_vec()));
    }
}
