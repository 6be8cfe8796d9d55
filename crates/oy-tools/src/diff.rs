//! Unified diffs of file changes, via the `similar` crate: whole for an
//! approval preview (what a person sees before a file changes), capped for
//! the `tool_call_finished` event that shows an applied change
//! (docs/events.md). A [`DiffWriter`] stops formatting once its cap is
//! reached and only counts the lines it leaves out, so the diff of a huge
//! file costs the line diff and 64 KiB of text, never megabytes.

mod regions;

use std::cell::RefCell;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use similar::TextDiff;

pub(crate) use self::regions::Region;
use crate::approval::Preview;

/// Diffs of huge files stop refining after this long; the result is still
/// a correct (if coarser) diff.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// The same for a diff only an event shows: two wholly different 1 MB
/// files take the full deadline to diff, which an automatically applied
/// write (nobody asked, nobody waiting to read it) should not pay.
const EVENT_DIFF_DEADLINE: Duration = Duration::from_millis(100);

/// The most diff text a `tool_call_finished` event carries.
pub(crate) const EVENT_DIFF_BYTES: usize = 64 * 1024;

/// A git-style unified diff of `old` → `new` for `path` (`None` = no file).
pub fn unified_diff(path: &str, old: Option<&str>, new: Option<&str>) -> String {
    let mut writer = DiffWriter::new(usize::MAX);
    writer.file(path, old, new);
    writer.finish()
}

/// Lines of context around each change, as `diff -u` and git give.
const CONTEXT_LINES: usize = 3;

/// Two texts without the equal lines at their start and end that no hunk
/// can reach (all but `context` of them on each side).
struct Margins<'o, 'n> {
    old: &'o str,
    new: &'n str,
    /// Lines cut from the start of both.
    skipped: usize,
}

impl<'o, 'n> Margins<'o, 'n> {
    fn of(old: &'o str, new: &'n str, context: usize) -> Self {
        let lines = old
            .split_inclusive('\n')
            .zip(new.split_inclusive('\n'))
            .take_while(|(a, b)| a == b)
            .count();
        // All but `context` of the equal lines at the start are cut.
        let skipped = lines.saturating_sub(context);
        let head: usize = old.split_inclusive('\n').take(skipped).map(str::len).sum();
        let (old, new) = (&old[head..], &new[head..]);
        // The equal end, never reaching into the equal start kept above.
        let kept_start = lines - skipped;
        let shorter = old
            .split_inclusive('\n')
            .count()
            .min(new.split_inclusive('\n').count());
        let tail_lines = old
            .split_inclusive('\n')
            .rev()
            .zip(new.split_inclusive('\n').rev())
            .take(shorter.saturating_sub(kept_start))
            .take_while(|(a, b)| a == b)
            .count();
        let tail: usize = old
            .split_inclusive('\n')
            .rev()
            .take(tail_lines.saturating_sub(context))
            .map(str::len)
            .sum();
        Self {
            old: &old[..old.len() - tail],
            new: &new[..new.len() - tail],
            skipped,
        }
    }

    /// A hunk's `@@ -a,b +c,d @@` line in the whole files' numbering
    /// (`similar`'s own format, shifted by the lines cut).
    fn header(&self, ops: &[similar::DiffOp]) -> String {
        hunk_header(self.skipped, ops)
    }
}

/// A hunk's `@@ -a,b +c,d @@` line, its line numbers shifted by `skipped`.
fn hunk_header(skipped: usize, ops: &[similar::DiffOp]) -> String {
    let (Some(first), Some(last)) = (ops.first(), ops.last()) else {
        return "@@ -0,0 +0,0 @@".to_owned();
    };
    let old = range(
        skipped + first.old_range().start,
        skipped + last.old_range().end,
    );
    let new = range(
        skipped + first.new_range().start,
        skipped + last.new_range().end,
    );
    format!("@@ -{old} +{new} @@")
}

/// One side of a hunk header: `start,len`, or `start` alone for one line,
/// and an empty range named by the line before it.
fn range(start: usize, end: usize) -> String {
    let len = end.saturating_sub(start);
    match len {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        _ => format!("{},{len}", start + 1),
    }
}

/// Room kept under the cap for the `… N more diff lines` line.
const MARKER_ROOM: usize = 64;

/// `text` cut to the event cap at a line boundary, with a last line
/// `… N more diff lines` when anything was cut. A text within the cap
/// (one capped before, too) is returned as it is.
pub(crate) fn cap_diff(text: &str) -> String {
    let mut writer = DiffWriter::new(EVENT_DIFF_BYTES);
    writer.text(text);
    writer.finish()
}

/// The diff of one file's change as an event carries it (capped as it is
/// written).
pub(crate) fn event_file_diff(path: &str, old: Option<&str>, new: Option<&str>) -> String {
    let mut writer = DiffWriter::new(EVENT_DIFF_BYTES);
    writer.file(path, old, new);
    writer.finish()
}

/// Builds diff text of at most `max` bytes, whole lines only; past the
/// cap it counts lines instead of formatting them.
pub(crate) struct DiffWriter {
    out: String,
    max: usize,
    /// The end of the last line that leaves room for the marker: where
    /// the text is cut when it does not fit whole.
    cut_at: usize,
    /// How long one file's line diff may refine.
    deadline: Duration,
    /// Lines left out; once one is, every later one is too (the cut is
    /// one place, never a gap).
    more: u64,
}

impl DiffWriter {
    /// An empty writer that keeps at most `max` bytes, the last line
    /// `… N more diff lines` included. A capped writer (an event's diff)
    /// refines a huge file's diff for a shorter time.
    pub(crate) fn new(max: usize) -> Self {
        Self {
            out: String::new(),
            max,
            cut_at: 0,
            deadline: if max == usize::MAX {
                DIFF_DEADLINE
            } else {
                EVENT_DIFF_DEADLINE
            },
            more: 0,
        }
    }

    /// Adds one line (`line` ends with `\n`, or one is added).
    fn line(&mut self, line: &str) {
        let newline = usize::from(!line.ends_with('\n'));
        if self.more == 0 && self.out.len() + line.len() + newline <= self.max {
            self.out.push_str(line);
            if newline == 1 {
                self.out.push('\n');
            }
            if self.out.len() <= self.max.saturating_sub(MARKER_ROOM) {
                self.cut_at = self.out.len();
            }
        } else {
            self.more += 1;
        }
    }

    fn full(&self) -> bool {
        self.more > 0
    }

    /// Adds literal lines (a `rename from`/`rename to` header, or a diff
    /// made before).
    pub(crate) fn text(&mut self, text: &str) {
        if self.full() {
            self.more += text.split_inclusive('\n').count() as u64;
            return;
        }
        for line in text.split_inclusive('\n') {
            self.line(line);
        }
    }

    /// The `---`/`+++` lines of a file's diff.
    fn file_header(&mut self, path: &str, old: Option<&str>, new: Option<&str>) {
        let from = if old.is_some() {
            format!("a/{path}")
        } else {
            "/dev/null".to_owned()
        };
        let to = if new.is_some() {
            format!("b/{path}")
        } else {
            "/dev/null".to_owned()
        };
        self.line(&format!("--- {from}\n"));
        self.line(&format!("+++ {to}\n"));
    }

    /// [`Self::file`] when every difference lies in `regions` (see
    /// [`Region`]): only they are diffed, so a few hunks in a long file
    /// cost those hunks. The text is the same as [`Self::file`]'s, which
    /// is used instead when the regions do not hold.
    pub(crate) fn file_in_regions(
        &mut self,
        path: &str,
        old: Option<&str>,
        new: Option<&str>,
        regions: &[Region],
    ) {
        let (Some(old_text), Some(new_text)) = (old, new) else {
            return self.file(path, old, new);
        };
        let deadline = Instant::now() + self.deadline;
        let Some(ops) = regions::ops(old_text, new_text, regions, deadline) else {
            return self.file(path, old, new);
        };
        let groups: Vec<_> = similar::group_diff_ops(ops, CONTEXT_LINES)
            .into_iter()
            .filter(|group| group.iter().any(|op| op.tag() != similar::DiffTag::Equal))
            .collect();
        self.file_header(path, old, new);
        if groups.is_empty() {
            self.line("(no change)\n");
            return;
        }
        let (mut old_lines, mut new_lines) =
            (regions::Lines::new(old_text), regions::Lines::new(new_text));
        let mut buffer = String::new();
        for group in groups {
            if !self.full() {
                self.line(&format!("{}\n", hunk_header(0, &group)));
            } else {
                self.more += 1;
            }
            for op in &group {
                for (tag, text) in regions::changes(op, &mut old_lines, &mut new_lines) {
                    let missing_newline = !text.ends_with('\n');
                    if self.full() {
                        self.more += 1 + u64::from(missing_newline);
                        continue;
                    }
                    buffer.clear();
                    buffer.push(tag);
                    buffer.push_str(text);
                    self.line(&buffer);
                    if missing_newline {
                        self.line("\\ No newline at end of file\n");
                    }
                }
            }
        }
    }

    /// Adds the unified diff of `old` → `new` for `path` (`None` = no file).
    pub(crate) fn file(&mut self, path: &str, old: Option<&str>, new: Option<&str>) {
        // Only the part that differs (and its context) is diffed: lines
        // before and after it are equal and can be no hunk's change, so a
        // 3-line edit of a 5,000-line file costs that edit, not the file.
        let margins = Margins::of(old.unwrap_or(""), new.unwrap_or(""), CONTEXT_LINES);
        let mut config = TextDiff::configure();
        config.timeout(self.deadline);
        let diff = config.diff_lines(margins.old, margins.new);
        let mut unified = diff.unified_diff();
        unified.context_radius(CONTEXT_LINES);
        let mut hunks = unified.iter_hunks().peekable();
        self.file_header(path, old, new);
        if hunks.peek().is_none() {
            self.line("(no change)\n");
            return;
        }
        // The same text `similar`'s own unified format gives (a line diff
        // keeps each line's newline; a last line without one gets the
        // `\ No newline at end of file` marker).
        let mut buffer = String::new();
        for hunk in hunks {
            if self.full() {
                for change in hunk.iter_changes() {
                    self.more += 1 + u64::from(change.missing_newline());
                }
                self.more += 1;
                continue;
            }
            self.line(&format!("{}\n", margins.header(hunk.ops())));
            for change in hunk.iter_changes() {
                if self.full() {
                    self.more += 1 + u64::from(change.missing_newline());
                    continue;
                }
                buffer.clear();
                let _ = write!(buffer, "{}{}", change.tag(), change.to_string_lossy());
                self.line(&buffer);
                if change.missing_newline() {
                    self.line("\\ No newline at end of file\n");
                }
            }
        }
    }

    /// The text, ending with `… N more diff lines` when lines were left out.
    pub(crate) fn finish(mut self) -> String {
        if self.more > 0 {
            let dropped = memchr::memchr_iter(b'\n', &self.out.as_bytes()[self.cut_at..]).count();
            self.out.truncate(self.cut_at);
            let more = self.more + dropped as u64;
            let _ = writeln!(self.out, "… {more} more diff lines");
        }
        self.out
    }
}

/// A change's diff, made at most once: whole when a person is asked about
/// the change (the approval preview), else only as much as the event
/// carries. `make` writes the diff into the writer it is given.
pub(crate) struct LazyDiff<F: Fn(&mut DiffWriter)> {
    make: F,
    whole: RefCell<Option<String>>,
}

impl<F: Fn(&mut DiffWriter)> LazyDiff<F> {
    /// A diff `make` will write when it is needed.
    pub(crate) fn new(make: F) -> Self {
        Self {
            make,
            whole: RefCell::new(None),
        }
    }

    /// The whole diff as an approval preview (kept for [`Self::for_event`]).
    pub(crate) fn preview(&self) -> Preview {
        let mut writer = DiffWriter::new(usize::MAX);
        (self.make)(&mut writer);
        let whole = writer.finish();
        *self.whole.borrow_mut() = Some(whole.clone());
        Preview::Diff(whole)
    }

    /// The diff an event carries: the preview's, capped, when a person
    /// saw one; else made now, capped as it is written.
    pub(crate) fn for_event(self) -> String {
        match self.whole.into_inner() {
            Some(whole) => cap_diff(&whole),
            None => {
                let mut writer = DiffWriter::new(EVENT_DIFF_BYTES);
                (self.make)(&mut writer);
                writer.finish()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn similar_text(path: &str, old: Option<&str>, new: Option<&str>) -> String {
        let diff = TextDiff::configure().diff_lines(old.unwrap_or(""), new.unwrap_or(""));
        let from = old.map_or("/dev/null".to_owned(), |_| format!("a/{path}"));
        let to = new.map_or("/dev/null".to_owned(), |_| format!("b/{path}"));
        diff.unified_diff()
            .context_radius(3)
            .header(&from, &to)
            .to_string()
    }

    #[test]
    fn the_text_is_similars_unified_format() {
        let cases: [(Option<&str>, Option<&str>); 5] = [
            (Some("a\nb\nc\n"), Some("a\nB\nc\n")),
            (None, Some("new\nfile")),
            (Some("gone\n"), None),
            (Some("x\ny"), Some("x\nz")),
            (
                Some(&"l\n".repeat(40)),
                Some(&format!("{}m\n{}", "l\n".repeat(5), "l\n".repeat(34))),
            ),
        ];
        for (old, new) in cases {
            assert_eq!(
                unified_diff("f.txt", old, new),
                similar_text("f.txt", old, new)
            );
        }
        assert_eq!(
            unified_diff("f", Some("same\n"), Some("same\n")),
            "--- a/f\n+++ b/f\n(no change)\n"
        );
    }

    /// Edits of distinct lines anywhere in a file (first, last, near each
    /// other, a missing final newline): diffing only the differing middle
    /// gives exactly the whole files' diff.
    #[test]
    fn diffing_only_the_differing_middle_gives_the_whole_diff() {
        let mut seed = 0x5eed_u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as usize % n
        };
        for round in 0..300 {
            let len = 1 + next(60);
            let old: Vec<String> = (0..len).map(|i| format!("line {i}\n")).collect();
            let mut new = old.clone();
            for _ in 0..1 + next(4) {
                let at = next(new.len() + 1);
                match next(3) {
                    0 if at < new.len() => {
                        new.remove(at);
                    }
                    1 if at < new.len() => new[at] = format!("changed {round} {at}\n"),
                    _ => new.insert(at, format!("added {round} {at}\n")),
                }
            }
            let mut old_text = old.concat();
            let mut new_text = new.concat();
            if next(4) == 0 {
                old_text.pop();
            }
            if next(4) == 0 {
                new_text.pop();
            }
            if old_text == new_text {
                continue;
            }
            assert_eq!(
                unified_diff("f", Some(&old_text), Some(&new_text)),
                similar_text("f", Some(&old_text), Some(&new_text)),
                "{old_text:?} -> {new_text:?}"
            );
        }
    }

    #[test]
    fn a_capped_diff_is_cut_at_a_line_and_counts_the_rest() {
        let old: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..10_000).map(|i| format!("LINE {i}\n")).collect();
        let whole = unified_diff("f", Some(&old), Some(&new));
        let whole_lines = whole.lines().count();
        let mut writer = DiffWriter::new(EVENT_DIFF_BYTES);
        writer.file("f", Some(&old), Some(&new));
        let capped = writer.finish();
        assert!(capped.len() <= EVENT_DIFF_BYTES, "{}", capped.len());
        assert!(
            capped.len() > EVENT_DIFF_BYTES - 2 * MARKER_ROOM,
            "{}",
            capped.len()
        );
        let (kept, last) = capped.trim_end().rsplit_once('\n').unwrap();
        let more: usize = last
            .strip_prefix("… ")
            .and_then(|rest| rest.strip_suffix(" more diff lines"))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(kept.lines().count() + more, whole_lines);
        assert!(
            whole.starts_with(kept),
            "the kept part is the whole diff's start"
        );
        // Capping the whole text after the fact gives the same, and a
        // capped text stays as it is.
        assert_eq!(cap_diff(&whole), capped);
        assert_eq!(cap_diff(&capped), capped);
        // Small diffs are not touched.
        let small = unified_diff("f", Some("a\n"), Some("b\n"));
        assert_eq!(cap_diff(&small), small);
    }

    #[test]
    fn a_lazy_diff_is_made_once_and_reused() {
        let made = std::cell::Cell::new(0);
        let lazy = LazyDiff::new(|writer: &mut DiffWriter| {
            made.set(made.get() + 1);
            writer.file("f", Some("a\n"), Some("b\n"));
        });
        let Preview::Diff(shown) = lazy.preview() else {
            panic!("not a diff preview");
        };
        assert_eq!(lazy.for_event(), shown);
        assert_eq!(made.get(), 1);
    }
}
