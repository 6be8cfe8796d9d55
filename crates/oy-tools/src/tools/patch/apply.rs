//! Matching hunks against a file's lines and applying them, as pure
//! functions: exact context first, then ignoring trailing whitespace; the
//! file's line endings, BOM and missing final newline are kept. Finding
//! where a hunk goes has a bounded cost (see `index.rs`).

mod index;

pub(crate) use self::index::Work;
use self::index::{Index, OverBudget, Prefer, Tier, WORK_BUDGET};
use super::parse::{Hunk, HunkLine, clip};
use crate::diff::Region;
use crate::error::ToolError;

/// Lines of a failed hunk's nearest window shown to the model.
const MAX_SHOWN_LINES: usize = 12;
/// Characters of one shown line.
const MAX_SHOWN_CHARS: usize = 160;

/// How one line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Lf,
    CrLf,
    /// The last line of a file without a final newline.
    Missing,
}

impl Ending {
    fn as_str(self) -> &'static str {
        match self {
            Self::Lf => "\n",
            Self::CrLf => "\r\n",
            Self::Missing => "",
        }
    }
}

/// One line, borrowed from the file's text or from the patch: nothing is
/// copied until the result is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Line<'t> {
    text: &'t str,
    ending: Ending,
}

/// A text file as lines with their own endings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Doc<'t> {
    bom: bool,
    lines: Vec<Line<'t>>,
    /// What inserted lines end with: the file's most common ending.
    newline: Ending,
}

impl<'t> Doc<'t> {
    /// An empty file (for added files): `\n` endings.
    pub(crate) fn empty() -> Self {
        Self {
            bom: false,
            lines: Vec::new(),
            newline: Ending::Lf,
        }
    }

    /// Splits `text`, remembering a BOM and each line's ending.
    pub(crate) fn parse(text: &'t str) -> Self {
        let (bom, rest) = match text.strip_prefix('\u{feff}') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let mut lines = Vec::new();
        // The vectorised search over the whole text finds every line end;
        // a search started per line costs more than the lines are long.
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', rest.as_bytes()) {
            let line = &rest[start..end];
            lines.push(match line.strip_suffix('\r') {
                Some(text) => Line {
                    text,
                    ending: Ending::CrLf,
                },
                None => Line {
                    text: line,
                    ending: Ending::Lf,
                },
            });
            start = end + 1;
        }
        if start < rest.len() {
            lines.push(Line {
                text: &rest[start..],
                ending: Ending::Missing,
            });
        }
        let crlf = lines.iter().filter(|l| l.ending == Ending::CrLf).count();
        let lf = lines.iter().filter(|l| l.ending == Ending::Lf).count();
        let newline = if crlf > lf { Ending::CrLf } else { Ending::Lf };
        Self {
            bom,
            lines,
            newline,
        }
    }

    /// The file's text again.
    pub(crate) fn render(&self) -> String {
        let size: usize = self.lines.iter().map(|l| l.text.len() + 2).sum();
        let mut out = String::with_capacity(size + 3);
        if self.bom {
            out.push('\u{feff}');
        }
        for line in &self.lines {
            out.push_str(line.text);
            out.push_str(line.ending.as_str());
        }
        out
    }

    /// Number of lines.
    pub(crate) fn line_count(&self) -> usize {
        self.lines.len()
    }
}

/// A successful application.
#[derive(Debug)]
pub(crate) struct Applied<'t> {
    /// The new text.
    pub(crate) doc: Doc<'t>,
    /// `+` lines.
    pub(crate) added: usize,
    /// `-` lines.
    pub(crate) removed: usize,
    /// Ordinals of hunks that matched only ignoring trailing whitespace.
    pub(crate) lenient: Vec<usize>,
    /// Where each hunk landed, old lines and new: the file's diff needs
    /// to look nowhere else.
    pub(crate) regions: Vec<Region>,
}

/// The matching budget of one whole patch: every file of it draws on the
/// same one, so many sections cannot multiply the bound.
pub(crate) fn patch_budget() -> Work {
    Work::new(WORK_BUDGET)
}

/// Applies `hunks` (in file order, not overlapping) to `doc`, spending at
/// most `work`'s budget on locating them. Every hunk is located in the
/// original text before anything is assembled.
pub(crate) fn apply_within<'t>(
    doc: &Doc<'t>,
    hunks: &'t [Hunk],
    path: &str,
    work: &mut Work,
) -> Result<Applied<'t>, ToolError> {
    let index = Index::new(doc.lines.iter().map(|l| l.text).collect());
    let mut placed = Vec::with_capacity(hunks.len());
    let mut lenient = Vec::new();
    let mut from = 0;
    for hunk in hunks {
        let old = old_side(doc, hunk);
        let (at, tier) = locate(&index, hunk, &old, from, work).map_err(|miss| miss.error(path))?;
        if tier == Tier::IgnoringTrailingWhitespace {
            lenient.push(hunk.ordinal);
        }
        from = at + old.len();
        placed.push((at, hunk));
    }
    let mut lines: Vec<Line<'t>> = Vec::with_capacity(doc.lines.len());
    let (mut added, mut removed, mut cursor) = (0, 0, 0);
    let mut regions = Vec::with_capacity(placed.len());
    for (at, hunk) in placed {
        lines.extend_from_slice(doc.lines.get(cursor..at).unwrap_or_default());
        cursor = at;
        let new_at = lines.len();
        for line in &hunk.lines {
            match line {
                HunkLine::Context(_) => {
                    // The file's own line: keeps its ending and whitespace.
                    lines.extend(doc.lines.get(cursor).copied());
                    cursor += 1;
                }
                HunkLine::Remove(_) => {
                    removed += 1;
                    cursor += 1;
                }
                HunkLine::Add(text) => {
                    added += 1;
                    lines.push(Line {
                        text: without_bom(doc, text),
                        ending: doc.newline,
                    });
                }
            }
        }
        regions.push(Region {
            old: at..cursor,
            new: new_at..lines.len(),
        });
    }
    lines.extend_from_slice(doc.lines.get(cursor..).unwrap_or_default());
    let mut final_newline = doc.lines.last().is_none_or(|l| l.ending != Ending::Missing);
    for hunk in hunks {
        if hunk.new_missing_newline {
            final_newline = false;
        } else if hunk.old_missing_newline {
            final_newline = true;
        }
    }
    for line in &mut lines {
        if line.ending == Ending::Missing {
            line.ending = doc.newline;
        }
    }
    if !final_newline && let Some(last) = lines.last_mut() {
        last.ending = Ending::Missing;
    }
    Ok(Applied {
        doc: Doc {
            bom: doc.bom,
            lines,
            newline: doc.newline,
        },
        added,
        removed,
        lenient,
        regions,
    })
}

/// The ' ' and '-' lines: what must be in the file.
fn old_side<'h>(doc: &Doc, hunk: &'h Hunk) -> Vec<&'h str> {
    hunk.lines
        .iter()
        .filter_map(|line| match line {
            HunkLine::Context(text) | HunkLine::Remove(text) => Some(without_bom(doc, text)),
            HunkLine::Add(_) => None,
        })
        .collect()
}

/// A diff made from a file with a BOM carries it on its first line.
fn without_bom<'t>(doc: &Doc, text: &'t str) -> &'t str {
    if doc.bom {
        text.strip_prefix('\u{feff}').unwrap_or(text)
    } else {
        text
    }
}

/// Where the old side of `hunk` starts, at or after line `from`.
fn locate(
    index: &Index<'_>,
    hunk: &Hunk,
    old: &[&str],
    from: usize,
    work: &mut Work,
) -> Result<(usize, Tier), Miss> {
    let over = |_: OverBudget| Miss::new(hunk, Problem::OverBudget);
    let n = index.len();
    let mut start = from;
    for anchor in &hunk.anchors {
        match index.anchor(anchor, start, work).map_err(over)? {
            Some(at) => start = at + 1,
            None => return Err(Miss::new(hunk, Problem::Anchor(anchor.clone(), start))),
        }
    }
    if old.is_empty() {
        let at = if hunk.at_eof {
            n
        } else if let Some(hint) = hunk.hint {
            hint.clamp(start.min(n), n)
        } else if hunk.anchors.is_empty() {
            n
        } else {
            start.min(n)
        };
        return Ok((at, Tier::Exact));
    }
    let prefer = match hunk.hint {
        _ if hunk.at_eof => Prefer::AtEnd,
        Some(hint) => Prefer::Closest(hint),
        None => Prefer::First,
    };
    // Where the header says, as `git apply` looks first: an exact match
    // there is the closest one, found without building any table.
    if let Prefer::Closest(hint) = prefer
        && hint >= start
        && index.matches_at(old, hint, work).map_err(over)?
    {
        return Ok((hint, Tier::Exact));
    }
    for tier in [Tier::Exact, Tier::IgnoringTrailingWhitespace] {
        if let Some(at) = index
            .find(tier, old, start..usize::MAX, prefer, work)
            .map_err(over)?
        {
            return Ok((at, tier));
        }
    }
    // Why not: out of order, not at the end, or simply different. Without
    // `at_eof` every start from `start` on was just tried in both tiers.
    let before = if hunk.at_eof { usize::MAX } else { start };
    let mut elsewhere = None;
    for tier in [Tier::Exact, Tier::IgnoringTrailingWhitespace] {
        elsewhere = index
            .find(tier, old, 0..before, Prefer::First, work)
            .map_err(over)?;
        if elsewhere.is_some() {
            break;
        }
    }
    let problem = match elsewhere {
        Some(at) if at < start => Problem::BeforePrevious { at, start },
        Some(at) if hunk.at_eof => Problem::NotAtEnd { at },
        _ => {
            let target = hunk.hint.unwrap_or(start);
            let window = nearest(index, old, target, work).map_err(over)?;
            Problem::Differs(window.map(Box::new))
        }
    };
    Err(Miss::new(hunk, problem))
}

/// The window of the file most like the hunk's old side.
#[derive(Debug)]
struct Window {
    at: usize,
    score: usize,
    /// `(line number, marker, text)` for the shown lines.
    shown: Vec<(usize, char, String)>,
    /// The first line that differs: number, file text, hunk text.
    first_difference: Option<(usize, String, String)>,
    old_len: usize,
    file_len: usize,
}

fn nearest(
    index: &Index<'_>,
    old: &[&str],
    target: usize,
    work: &mut Work,
) -> Result<Option<Window>, OverBudget> {
    let n = index.len();
    let span = old.len().min(n);
    if span == 0 {
        return Ok(None);
    }
    let Some((at, score)) = index.nearest(old, span, target, work)? else {
        return Ok(None);
    };
    let window = index.window(at, span);
    let marks: Vec<(usize, char, String, &str)> = window
        .iter()
        .zip(old)
        .enumerate()
        .map(|(i, (line, hunk))| {
            let mark = if line == hunk {
                ' '
            } else if line.trim() == hunk.trim() {
                '~'
            } else {
                '!'
            };
            (at + i + 1, mark, (*line).to_owned(), *hunk)
        })
        .collect();
    let first = marks.iter().position(|(_, mark, _, _)| *mark != ' ');
    let first_difference = first
        .and_then(|i| marks.get(i))
        .map(|(no, _, file, hunk)| (*no, file.clone(), (*hunk).to_owned()));
    let skip = first
        .map_or(0, |i| i.saturating_sub(3))
        .min(marks.len().saturating_sub(MAX_SHOWN_LINES));
    let shown = marks
        .into_iter()
        .skip(skip)
        .take(MAX_SHOWN_LINES)
        .map(|(no, mark, text, _)| (no, mark, text))
        .collect();
    Ok(Some(Window {
        at,
        score,
        shown,
        first_difference,
        old_len: old.len(),
        file_len: n,
    }))
}

#[derive(Debug)]
enum Problem {
    Anchor(String, usize),
    BeforePrevious {
        at: usize,
        start: usize,
    },
    NotAtEnd {
        at: usize,
    },
    Differs(Option<Box<Window>>),
    /// Locating it would cost more than [`WORK_BUDGET`].
    OverBudget,
}

/// A hunk that could not be placed, and why.
#[derive(Debug)]
struct Miss {
    ordinal: usize,
    label: String,
    problem: Problem,
}

impl Miss {
    fn new(hunk: &Hunk, problem: Problem) -> Self {
        Self {
            ordinal: hunk.ordinal,
            label: hunk.label.clone(),
            problem,
        }
    }

    fn error(self, path: &str) -> ToolError {
        let head = format!(
            "hunk {} (`{}`) of {path} does not match the file; nothing was changed",
            self.ordinal, self.label
        );
        let reread = format!(
            "read {path} again and resend the whole patch with every ' ' and '-' line copied exactly from it"
        );
        match self.problem {
            Problem::Anchor(anchor, start) => ToolError::failed(
                format!(
                    "{head}: its `@@ {}` line was not found in {path}{}",
                    clip(&anchor, 80),
                    if start == 0 {
                        String::new()
                    } else {
                        format!(" after line {start}")
                    }
                ),
                format!(
                    "put a line that exists in {path} after `@@` (or use a bare `@@`); {reread}"
                ),
            ),
            Problem::BeforePrevious { at, start } => ToolError::failed(
                format!(
                    "{head}: it matches only at line {}, before the end of the previous hunk (line {start})",
                    at + 1
                ),
                "put hunks in file order without overlaps, or merge overlapping hunks into one",
            ),
            Problem::NotAtEnd { at } => ToolError::failed(
                format!(
                    "{head}: it must end at the end of the file (`*** End of File` or a `\\ No newline` marker) but matches at line {}",
                    at + 1
                ),
                format!(
                    "drop the end-of-file marker or extend the hunk to the last line; {reread}"
                ),
            ),
            Problem::Differs(None) => ToolError::failed(
                format!("{head}: {path} is empty"),
                format!("{path} is empty: send only '+' lines for it, with no context"),
            ),
            Problem::Differs(Some(window)) => {
                ToolError::failed(format!("{head}\n{}", describe(&window, path)), reread)
            }
            Problem::OverBudget => ToolError::failed(
                format!(
                    "hunk {} (`{}`) of {path} is too ambiguous to place cheaply: its lines are so common in {path} that finding where it goes would take more than {WORK_BUDGET} line comparisons; nothing was changed",
                    self.ordinal, self.label
                ),
                format!(
                    "give the hunk a place of its own: add ' ' context lines that occur once in {path}, or an `@@ line` anchor naming a unique line above it (such as the enclosing function's signature); or use `replace` for a small edit or `write` to rewrite {path} whole"
                ),
            ),
        }
    }
}

fn describe(window: &Window, path: &str) -> String {
    let span = window.old_len.min(window.file_len);
    let mut out = format!(
        "nearest lines in {path} ({} of {} hunk lines match ignoring whitespace; `!` differs, `~` differs in whitespace):\n",
        window.score, window.old_len
    );
    if window.old_len > window.file_len {
        out.push_str(&format!(
            "(the hunk needs {} old lines; the file has only {})\n",
            window.old_len, window.file_len
        ));
    }
    let width = (window.at + span).to_string().len();
    for (no, mark, text) in &window.shown {
        out.push_str(&format!(
            "{mark} {no:>width$} | {}\n",
            clip(text, MAX_SHOWN_CHARS)
        ));
    }
    match &window.first_difference {
        Some((no, file, hunk)) if file.trim() == hunk.trim() => out.push_str(&format!(
            "first difference: line {no} differs only in whitespace (file `{}`, hunk `{}`)",
            clip(file, MAX_SHOWN_CHARS),
            clip(hunk, MAX_SHOWN_CHARS)
        )),
        Some((no, file, hunk)) => out.push_str(&format!(
            "first difference: line {no} is `{}`, the hunk expects `{}`",
            clip(file, MAX_SHOWN_CHARS),
            clip(hunk, MAX_SHOWN_CHARS)
        )),
        None => out.push_str(
            "the lines shown match; the hunk's remaining lines are past the end of the file",
        ),
    }
    out
}

#[cfg(test)]
mod tests;
