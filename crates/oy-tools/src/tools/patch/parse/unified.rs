//! Unified diffs: `diff --git` blocks and plain `---`/`+++` sections,
//! `@@ -l,s +l,s @@` hunks, `\ No newline at end of file` markers.

use super::{Action, FilePatch, Hunk, HunkLine, clip, syntax};
use crate::error::ToolError;

/// One `diff --git` or `---`/`+++` section while it is being read.
#[derive(Default)]
struct Section {
    header: String,
    line: usize,
    /// `diff --git` paths (with their prefixes), when that line was present.
    git: Option<(String, String)>,
    /// From `---`/`+++` (`None` = `/dev/null`).
    headers: Option<(Option<String>, Option<String>)>,
    new_file: bool,
    deleted_file: bool,
    rename: (Option<String>, Option<String>),
    hunks: Vec<Hunk>,
}

pub(super) fn parse_unified(lines: &[&str]) -> Result<Vec<FilePatch>, ToolError> {
    let mut files = Vec::new();
    let mut current: Option<Section> = None;
    let mut i = 0;
    while let Some(&line) = lines.get(i) {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            finish_section(current.take(), &mut files)?;
            current = Some(Section {
                header: clip(line, 200),
                line: i + 1,
                git: Some(split_git_paths(rest)),
                ..Section::default()
            });
        } else if let (Some(old), Some(new)) = (
            line.strip_prefix("--- "),
            lines.get(i + 1).and_then(|next| next.strip_prefix("+++ ")),
        ) {
            let continues = current
                .as_ref()
                .is_some_and(|s| s.git.is_some() && s.headers.is_none() && s.hunks.is_empty());
            if !continues {
                finish_section(current.take(), &mut files)?;
                current = Some(Section {
                    header: clip(line, 200),
                    line: i + 1,
                    ..Section::default()
                });
            }
            if let Some(section) = current.as_mut() {
                section.headers = Some((header_path(old), header_path(new)));
            }
            i += 1;
        } else if line.starts_with("@@") {
            let Some(section) = current.as_mut() else {
                return Err(syntax(
                    i + 1,
                    "a hunk (`@@`) before any file header (`--- a/path` and `+++ b/path`)",
                ));
            };
            let (hunk, next) = unified_hunk(lines, i, section.hunks.len() + 1)?;
            section.hunks.push(hunk);
            i = next;
            continue;
        } else if let Some(section) = current.as_mut() {
            extended_header(section, line, i + 1)?;
        }
        i += 1;
    }
    finish_section(current.take(), &mut files)?;
    Ok(files)
}

/// Git's extended header lines and the lines between sections.
fn extended_header(section: &mut Section, line: &str, no: usize) -> Result<(), ToolError> {
    let in_git_header = section.git.is_some() && section.headers.is_none();
    if in_git_header && line.starts_with("new file mode") {
        section.new_file = true;
    } else if in_git_header && line.starts_with("deleted file mode") {
        section.deleted_file = true;
    } else if let Some(from) = line.strip_prefix("rename from ").filter(|_| in_git_header) {
        section.rename.0 = Some(unquote(from));
    } else if let Some(to) = line.strip_prefix("rename to ").filter(|_| in_git_header) {
        section.rename.1 = Some(unquote(to));
    } else if line.starts_with("GIT binary patch")
        || (line.starts_with("Binary files ") && line.ends_with(" differ"))
        || line.starts_with("copy from ")
    {
        return Err(ToolError::failed(
            format!("patch line {no}: binary patches and copies are not supported"),
            "change text files only, and create copies with `*** Add File:`",
        ));
    } else if line != "-- " && matches!(line.as_bytes().first(), Some(b' ' | b'-' | b'+')) {
        return Err(syntax(
            no,
            format!(
                "`{}` is a diff line outside any hunk (hunks start with `@@`)",
                clip(line, 80)
            ),
        ));
    }
    Ok(())
}

fn finish_section(section: Option<Section>, files: &mut Vec<FilePatch>) -> Result<(), ToolError> {
    let Some(section) = section else {
        return Ok(());
    };
    let (old, new) = match (&section.headers, &section.rename, &section.git) {
        (Some((old, new)), _, _) => strip_prefixes(old.clone(), new.clone()),
        (None, (Some(from), Some(to)), _) => (Some(from.clone()), Some(to.clone())),
        (None, _, Some((a, b))) => {
            let (a, b) = strip_prefixes(Some(a.clone()), Some(b.clone()));
            match (section.new_file, section.deleted_file) {
                (true, _) => (None, b),
                (_, true) => (a, None),
                _ => (a, b),
            }
        }
        (None, _, None) => (None, None),
    };
    let (action, path, move_to) = match (old, new) {
        (None, Some(new)) => (Action::Add, new, None),
        (Some(old), None) => (Action::Delete, old, None),
        (Some(old), Some(new)) => {
            let move_to = (old != new).then_some(new);
            (Action::Update, old, move_to)
        }
        (None, None) => {
            return Err(syntax(
                section.line,
                "both sides of the file header are /dev/null",
            ));
        }
    };
    if action == Action::Update && section.hunks.is_empty() && move_to.is_none() {
        return Err(syntax(
            section.line,
            format!(
                "`{}` changes nothing in {path} (no hunks; mode changes are not supported)",
                section.header
            ),
        ));
    }
    files.push(FilePatch {
        action,
        path,
        move_to,
        hunks: section.hunks,
        header: section.header,
    });
    Ok(())
}

/// Git's `a/` and `b/` prefixes are dropped only when both sides use them
/// (or one side is /dev/null), so a plain `--- a/x` / `+++ a/x` keeps its `a/`.
fn strip_prefixes(old: Option<String>, new: Option<String>) -> (Option<String>, Option<String>) {
    let old_git = old.as_deref().is_none_or(|p| p.starts_with("a/"));
    let new_git = new.as_deref().is_none_or(|p| p.starts_with("b/"));
    if !(old_git && new_git) {
        return (old, new);
    }
    let strip = |path: Option<String>, prefix: &str| {
        path.map(|p| p.strip_prefix(prefix).map(str::to_owned).unwrap_or(p))
    };
    (strip(old, "a/"), strip(new, "b/"))
}

/// `a/x b/y` from a `diff --git` line; with spaces in names, the split
/// that gives equal names wins.
fn split_git_paths(rest: &str) -> (String, String) {
    if rest.starts_with('"') {
        let (first, second) = split_quoted(rest);
        return (first, unquote(second.trim()));
    }
    let splits: Vec<usize> = rest.match_indices(" b/").map(|(at, _)| at).collect();
    let pick = splits
        .iter()
        .copied()
        .find(|&at| rest.get(2..at) == rest.get(at + 3..))
        .or_else(|| splits.first().copied());
    match pick {
        Some(at) => (
            rest.get(..at).unwrap_or(rest).to_owned(),
            rest.get(at + 1..).unwrap_or(rest).to_owned(),
        ),
        None => match rest.split_once(' ') {
            Some((a, b)) => (a.to_owned(), b.to_owned()),
            None => (rest.to_owned(), rest.to_owned()),
        },
    }
}

/// The path of a `---`/`+++` line: quoted, or up to a tab (timestamps follow one).
fn header_path(raw: &str) -> Option<String> {
    let path = if raw.starts_with('"') {
        split_quoted(raw).0
    } else {
        raw.split('\t').next().unwrap_or(raw).trim_end().to_owned()
    };
    (path != "/dev/null").then_some(path)
}

fn unquote(raw: &str) -> String {
    if raw.starts_with('"') {
        split_quoted(raw).0
    } else {
        raw.to_owned()
    }
}

/// Reads one C-quoted string (as git writes unusual names) and returns it
/// with whatever follows.
fn split_quoted(raw: &str) -> (String, &str) {
    let mut bytes = Vec::new();
    let mut chars = raw.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => {
                let rest = raw.get(at + 1..).unwrap_or("");
                return (String::from_utf8_lossy(&bytes).into_owned(), rest);
            }
            '\\' => {
                let Some((_, escaped)) = chars.next() else {
                    break;
                };
                match escaped {
                    'n' => bytes.push(b'\n'),
                    't' => bytes.push(b'\t'),
                    '0'..='7' => {
                        let mut value = escaped.to_digit(8).unwrap_or(0);
                        for _ in 0..2 {
                            match chars.clone().next().and_then(|(_, d)| d.to_digit(8)) {
                                Some(digit) => {
                                    value = value * 8 + digit;
                                    chars.next();
                                }
                                None => break,
                            }
                        }
                        bytes.push(u8::try_from(value).unwrap_or(b'?'));
                    }
                    other => {
                        let mut buf = [0; 4];
                        bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                    }
                }
            }
            other => {
                let mut buf = [0; 4];
                bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    (raw.to_owned(), "")
}

/// `@@ -l[,s] +l[,s] @@` → (old start, old count, new count).
fn hunk_range(header: &str) -> Option<(usize, usize, usize)> {
    let inner = header.strip_prefix("@@")?.trim_start();
    let mut parts = inner.split_whitespace();
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let range = |text: &str| -> Option<(usize, usize)> {
        match text.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((text.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old)?;
    let (_, new_count) = range(new)?;
    Some((old_start, old_count, new_count))
}

/// True when line `i` starts a new `---`/`+++`/`@@` file section.
fn starts_section(lines: &[&str], i: usize) -> bool {
    let at = |k: usize, prefix: &str| lines.get(k).is_some_and(|l| l.starts_with(prefix));
    at(i, "--- ") && at(i + 1, "+++ ") && at(i + 2, "@@")
}

/// Reads the hunk whose header is line `start`; returns it and the index
/// of the first line after it. Header counts are trusted while they last;
/// past them, more ' '/'-'/'+' lines are still taken (models miscount).
fn unified_hunk(lines: &[&str], start: usize, ordinal: usize) -> Result<(Hunk, usize), ToolError> {
    let header = lines.get(start).copied().unwrap_or_default();
    let range = hunk_range(header);
    let label = match header.get(2..).and_then(|rest| rest.find("@@")) {
        Some(at) => header.get(..at + 4).unwrap_or(header),
        None => header.trim_end(),
    };
    let mut hunk = Hunk {
        ordinal,
        label: clip(label, 80),
        hint: range.map(|(l, count, _)| if count == 0 { l } else { l.saturating_sub(1) }),
        ..Hunk::default()
    };
    let mut left = range.map(|(_, old, new)| (old, new));
    let mut blanks = 0;
    let mut i = start + 1;
    while let Some(&line) = lines.get(i) {
        let remaining = left.is_some_and(|(old, new)| old > 0 || new > 0);
        if line.starts_with("@@")
            || line.starts_with("diff --git ")
            || starts_section(lines, i) && left != Some((1, 1))
        {
            break;
        }
        let text = || line.get(1..).unwrap_or_default().to_owned();
        let parsed = match line.as_bytes().first() {
            None if remaining => Some(HunkLine::Context(String::new())),
            None => {
                blanks += 1;
                None
            }
            Some(b'\\') => {
                match hunk.lines.last() {
                    Some(HunkLine::Context(_)) => {
                        hunk.old_missing_newline = true;
                        hunk.new_missing_newline = true;
                    }
                    Some(HunkLine::Remove(_)) => hunk.old_missing_newline = true,
                    Some(HunkLine::Add(_)) => hunk.new_missing_newline = true,
                    None => {}
                }
                hunk.at_eof = true;
                None
            }
            Some(_) if !remaining && line == "-- " => break,
            Some(b' ') => Some(HunkLine::Context(text())),
            Some(b'-') => Some(HunkLine::Remove(text())),
            Some(b'+') => Some(HunkLine::Add(text())),
            Some(_) if remaining => {
                let (old, new) = left.unwrap_or_default();
                return Err(syntax(
                    i + 1,
                    format!(
                        "inside hunk {ordinal} (`{label}`), expected a line starting with ' ', '-', '+' or '\\' (the header promises {old} more old and {new} more new lines), found `{}`",
                        clip(line, 80)
                    ),
                ));
            }
            Some(_) => break,
        };
        if let Some(parsed) = parsed {
            let take = |(old, new): (usize, usize), line: &HunkLine| match line {
                HunkLine::Context(_) => (old.saturating_sub(1), new.saturating_sub(1)),
                HunkLine::Remove(_) => (old.saturating_sub(1), new),
                HunkLine::Add(_) => (old, new.saturating_sub(1)),
            };
            for _ in 0..std::mem::take(&mut blanks) {
                let blank = HunkLine::Context(String::new());
                left = left.map(|counts| take(counts, &blank));
                hunk.lines.push(blank);
            }
            left = left.map(|counts| take(counts, &parsed));
            hunk.lines.push(parsed);
        }
        i += 1;
    }
    if hunk.lines.is_empty() {
        return Err(syntax(
            start + 1,
            format!("hunk {ordinal} (`{label}`) has no ' '/'-'/'+' lines"),
        ));
    }
    Ok((hunk, i))
}
