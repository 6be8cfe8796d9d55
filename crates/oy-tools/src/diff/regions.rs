//! A file's diff when the caller knows where the change is: the line
//! ranges (regions) outside which the old and new text are equal, as a
//! patch knows from where its hunks landed. Only the regions go through
//! the line diff; the equal stretches between them are checked byte for
//! byte, never diffed. A hint that does not hold (a stretch that differs,
//! a range past the end) gives `None`, and the caller diffs the files whole.

use std::ops::Range;
use std::time::Instant;

use similar::{Algorithm, DiffOp, DiffTag};

/// Lines `old` of the old text became lines `new` of the new text; every
/// line outside the regions is unchanged (and the regions are in order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Region {
    pub(crate) old: Range<usize>,
    pub(crate) new: Range<usize>,
}

/// The diff's operations over the whole texts (as `similar` would give for
/// a line diff of both), or `None` when `regions` does not hold.
pub(super) fn ops(
    old: &str,
    new: &str,
    regions: &[Region],
    deadline: Instant,
) -> Option<Vec<DiffOp>> {
    // `similar` also ends a line at a lone `\r`; such texts take the
    // whole-file route rather than a second definition of a line here.
    if has_lone_cr(old) || has_lone_cr(new) {
        return None;
    }
    let (mut old_at, mut new_at) = (Cursor::default(), Cursor::default());
    let mut ops = Vec::new();
    for region in &touching_joined(regions) {
        let gap = region.old.start.checked_sub(old_at.line)?;
        if region.new.start.checked_sub(new_at.line)? != gap
            || region.old.end < region.old.start
            || region.new.end < region.new.start
        {
            return None;
        }
        let (old_gap, new_gap) = (old_at.take(old, gap)?, new_at.take(new, gap)?);
        if old_gap != new_gap {
            return None;
        }
        push_equal(
            &mut ops,
            region.old.start - gap,
            region.new.start - gap,
            gap,
        );
        let old_lines: Vec<&str> = old_at
            .take(old, region.old.len())?
            .split_inclusive('\n')
            .collect();
        let new_lines: Vec<&str> = new_at
            .take(new, region.new.len())?
            .split_inclusive('\n')
            .collect();
        let found = similar::capture_diff_slices_deadline(
            Algorithm::Myers,
            &old_lines,
            &new_lines,
            Some(deadline),
        );
        for op in found {
            push(&mut ops, shifted(op, region.old.start, region.new.start));
        }
    }
    // After the last region, the rest is one equal stretch.
    let (old_rest, new_rest) = (&old[old_at.byte..], &new[new_at.byte..]);
    if old_rest != new_rest {
        return None;
    }
    let rest = count_line_ends(old_rest.as_bytes())
        + usize::from(!old_rest.is_empty() && !old_rest.ends_with('\n'));
    push_equal(&mut ops, old_at.line, new_at.line, rest);
    Some(ops)
}

/// `regions` with each run of regions that touch (no equal line between
/// them) made one: a change that spans them is one change, as a diff of
/// the whole files sees it.
fn touching_joined(regions: &[Region]) -> Vec<Region> {
    let mut joined: Vec<Region> = Vec::with_capacity(regions.len());
    for region in regions {
        match joined.last_mut() {
            Some(last) if last.old.end == region.old.start && last.new.end == region.new.start => {
                last.old.end = region.old.end;
                last.new.end = region.new.end;
            }
            _ => joined.push(region.clone()),
        }
    }
    joined
}

/// Where a walk through one text is: its line and that line's first byte.
#[derive(Default)]
struct Cursor {
    line: usize,
    byte: usize,
}

impl Cursor {
    /// The next `lines` lines of `text` (the last may lack its `\n`), or
    /// `None` when it has fewer.
    fn take<'t>(&mut self, text: &'t str, lines: usize) -> Option<&'t str> {
        let start = self.byte;
        if lines > 0 {
            let rest = text.as_bytes().get(start..).filter(|r| !r.is_empty())?;
            self.byte += past_lines(rest, lines)?;
        }
        self.line += lines;
        text.get(start..self.byte)
    }
}

/// Bytes in the first `lines` lines of `text` (the last may lack its
/// `\n`), or `None` when it has fewer. A patch's equal stretches are
/// most of every file it touches, so line ends are counted a block at a
/// time (a loop the compiler vectorises) and searched for only in the
/// block where the count is reached.
fn past_lines(text: &[u8], lines: usize) -> Option<usize> {
    const BLOCK: usize = 4096;
    let mut left = lines;
    let mut at = 0;
    for block in text.chunks(BLOCK) {
        let ends = count_line_ends(block);
        if ends < left {
            left -= ends;
            at += block.len();
            continue;
        }
        let end = memchr::memchr_iter(b'\n', block).nth(left - 1)?;
        return Some(at + end + 1);
    }
    // Fewer line ends: a last line without one may make up the count.
    (left == 1 && !text.is_empty() && !text.ends_with(b"\n")).then_some(text.len())
}

/// The `\n`s in `bytes`, counted in byte-wide lanes (255 at most per
/// run, so a lane never overflows): a loop the compiler turns into
/// vector compares and adds.
fn count_line_ends(bytes: &[u8]) -> usize {
    let mut runs = bytes.chunks_exact(255);
    let mut count = 0;
    for run in &mut runs {
        let ends = run.iter().fold(0u8, |ends, &byte| {
            ends.wrapping_add(u8::from(byte == b'\n'))
        });
        count += usize::from(ends);
    }
    count
        + runs
            .remainder()
            .iter()
            .filter(|&&byte| byte == b'\n')
            .count()
}

fn has_lone_cr(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'\r', bytes).any(|at| bytes.get(at + 1) != Some(&b'\n'))
}

fn shifted(op: DiffOp, old_by: usize, new_by: usize) -> DiffOp {
    match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index: old_index + old_by,
            new_index: new_index + new_by,
            len,
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index: old_index + old_by,
            old_len,
            new_index: new_index + new_by,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index: old_index + old_by,
            new_index: new_index + new_by,
            new_len,
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => DiffOp::Replace {
            old_index: old_index + old_by,
            old_len,
            new_index: new_index + new_by,
            new_len,
        },
    }
}

fn push_equal(ops: &mut Vec<DiffOp>, old_index: usize, new_index: usize, len: usize) {
    push(
        ops,
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        },
    );
}

/// Appends `op`, joining it to an equal run before it (one run of equal
/// lines must be one operation, or grouping keeps too much context).
fn push(ops: &mut Vec<DiffOp>, op: DiffOp) {
    if let DiffOp::Equal { len: 0, .. } = op {
        return;
    }
    if let (Some(DiffOp::Equal { len: before, .. }), DiffOp::Equal { len, .. }) =
        (ops.last_mut(), &op)
    {
        *before += len;
        return;
    }
    ops.push(op);
}

/// Yields the lines of one text in order, from a line number on.
pub(super) struct Lines<'t> {
    text: &'t str,
    at: Cursor,
}

impl<'t> Lines<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        Self {
            text,
            at: Cursor::default(),
        }
    }

    /// Lines `range` (never before a line already passed).
    pub(super) fn get(&mut self, range: Range<usize>) -> impl Iterator<Item = &'t str> {
        let skip = range.start.saturating_sub(self.at.line);
        let _ = self.at.take(self.text, skip);
        self.at
            .take(self.text, range.len())
            .unwrap_or_default()
            .split_inclusive('\n')
    }
}

/// The changes of one operation: its tag per line (`' '`, `'-'`, `'+'`)
/// and the lines, old before new for a replacement, as `similar` orders them.
pub(super) fn changes<'t>(
    op: &DiffOp,
    old: &mut Lines<'t>,
    new: &mut Lines<'t>,
) -> Vec<(char, &'t str)> {
    let (tag, old_range, new_range) = op.as_tag_tuple();
    let mut out = Vec::new();
    match tag {
        DiffTag::Equal => out.extend(old.get(old_range).map(|line| (' ', line))),
        DiffTag::Delete => out.extend(old.get(old_range).map(|line| ('-', line))),
        DiffTag::Insert => out.extend(new.get(new_range).map(|line| ('+', line))),
        DiffTag::Replace => {
            out.extend(old.get(old_range).map(|line| ('-', line)));
            out.extend(new.get(new_range).map(|line| ('+', line)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::DiffWriter;

    fn whole(old: &str, new: &str) -> String {
        let mut writer = DiffWriter::new(usize::MAX);
        writer.file("f", Some(old), Some(new));
        writer.finish()
    }

    fn in_regions(old: &str, new: &str, regions: &[Region], max: usize) -> String {
        let mut writer = DiffWriter::new(max);
        writer.file_in_regions("f", Some(old), Some(new), regions);
        writer.finish()
    }

    /// Random edits of a file at known places, some close together, some
    /// at the ends, some without a final newline: diffing only where they
    /// are gives the whole files' diff, whole and capped.
    #[test]
    fn diffing_the_regions_gives_the_whole_files_diff() {
        let mut seed = 0x0019_b00b_u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as usize % n.max(1)
        };
        for round in 0..400 {
            let len = 1 + next(80);
            let old: Vec<String> = (0..len).map(|i| format!("line {i}\n")).collect();
            let mut new: Vec<String> = Vec::new();
            let mut regions = Vec::new();
            let mut at = 0;
            while at < len {
                let skip = next(12);
                new.extend(old[at..(at + skip).min(len)].iter().cloned());
                at = (at + skip).min(len);
                if at >= len && next(2) == 0 {
                    break;
                }
                // A region: some old lines replaced by some new ones, with
                // context inside it, as a hunk has.
                let taken = next(4).min(len - at);
                let new_at = new.len();
                for (k, line) in old[at..at + taken].iter().enumerate() {
                    match next(3) {
                        0 => new.push(line.clone()),
                        1 => new.push(format!("changed {round} {k}\n")),
                        _ => {}
                    }
                }
                for k in 0..next(3) {
                    new.push(format!("added {round} {at} {k}\n"));
                }
                regions.push(Region {
                    old: at..at + taken,
                    new: new_at..new.len(),
                });
                at += taken;
            }
            let mut old_text = old.concat();
            let mut new_text = new.concat();
            // A missing final newline, on either side, inside a region.
            if next(5) == 0
                && regions
                    .last()
                    .is_some_and(|r| r.old.end == len && !r.old.is_empty())
            {
                old_text.pop();
            }
            if next(5) == 0
                && regions
                    .last()
                    .is_some_and(|r| r.new.end == new.len() && !r.new.is_empty())
            {
                new_text.pop();
            }
            let far = Instant::now() + std::time::Duration::from_secs(60);
            assert!(
                ops(&old_text, &new_text, &regions, far).is_some(),
                "regions that hold were not used: {regions:?}"
            );
            assert_eq!(
                in_regions(&old_text, &new_text, &regions, usize::MAX),
                whole(&old_text, &new_text),
                "{old_text:?} -> {new_text:?} in {regions:?}"
            );
            let mut capped = DiffWriter::new(300);
            capped.file("f", Some(&old_text), Some(&new_text));
            assert_eq!(
                in_regions(&old_text, &new_text, &regions, 300),
                capped.finish()
            );
        }
    }

    /// Regions that miss a change, run past the end or overlap are not
    /// trusted: the whole files are diffed instead.
    #[test]
    fn lines_are_counted_across_blocks_and_a_last_line_may_lack_its_end() {
        let text = "ab\n".repeat(5000) + "tail";
        let bytes = text.as_bytes();
        for lines in [1, 1365, 1366, 1367, 4999, 5000] {
            assert_eq!(past_lines(bytes, lines), Some(lines * 3), "{lines}");
        }
        assert_eq!(past_lines(bytes, 5001), Some(bytes.len()));
        assert_eq!(past_lines(bytes, 5002), None);
        assert_eq!(past_lines(b"a\n", 2), None);
        assert_eq!(past_lines(b"", 1), None);
    }

    #[test]
    fn regions_that_do_not_hold_fall_back_to_the_whole_diff() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nB\nc\nd\ne\nf\nG\nh\n";
        let wrong = [
            vec![Region {
                old: 1..2,
                new: 1..2,
            }],
            vec![Region {
                old: 6..9,
                new: 6..9,
            }],
            vec![
                Region {
                    old: 1..5,
                    new: 1..5,
                },
                Region {
                    old: 3..7,
                    new: 3..7,
                },
            ],
            vec![Region {
                old: 1..7,
                new: 1..6,
            }],
        ];
        for regions in wrong {
            assert!(
                ops(old, new, &regions, Instant::now()).is_none(),
                "{regions:?}"
            );
            assert_eq!(in_regions(old, new, &regions, usize::MAX), whole(old, new));
        }
        let lone_cr = "a\rb\nc\n";
        let regions = [Region {
            old: 0..2,
            new: 0..2,
        }];
        assert!(ops(lone_cr, "a\rB\nc\n", &regions, Instant::now()).is_none());
        assert_eq!(
            in_regions(old, old, &[], usize::MAX),
            "--- a/f\n+++ b/f\n(no change)\n"
        );
    }
}
