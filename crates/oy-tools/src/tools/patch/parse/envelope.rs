//! The Codex `*** Begin Patch` envelope: Add File (`+` lines), Update File
//! (optional Move to, `@@`-separated hunks, `*** End of File`), Delete File.

use super::{Action, BEGIN, END, FilePatch, Hunk, HunkLine, clip, syntax};
use crate::error::ToolError;

pub(super) fn parse_envelope(lines: &[&str], begin: usize) -> Result<Vec<FilePatch>, ToolError> {
    let mut files = Vec::new();
    let mut i = begin + 1;
    loop {
        let Some(&line) = lines.get(i) else {
            return Err(ToolError::failed(
                format!("the patch has `{BEGIN}` but no `{END}` (it may be cut off)"),
                format!("end the envelope with a `{END}` line and resend the whole patch"),
            ));
        };
        let marker = line.trim();
        let header = clip(marker, 200);
        if marker == END {
            return Ok(files);
        }
        if let Some(path) = marker.strip_prefix("*** Add File:") {
            let (hunk, next) = add_body(lines, i + 1, path.trim())?;
            files.push(FilePatch {
                action: Action::Add,
                path: path.trim().to_owned(),
                move_to: None,
                hunks: hunk.into_iter().collect(),
                header,
            });
            i = next;
        } else if let Some(path) = marker.strip_prefix("*** Delete File:") {
            files.push(FilePatch {
                action: Action::Delete,
                path: path.trim().to_owned(),
                move_to: None,
                hunks: Vec::new(),
                header,
            });
            i += 1;
        } else if let Some(path) = marker.strip_prefix("*** Update File:") {
            i += 1;
            let move_to = lines
                .get(i)
                .and_then(|next| next.trim().strip_prefix("*** Move to:"))
                .map(|to| to.trim().to_owned());
            if move_to.is_some() {
                i += 1;
            }
            let (hunks, next) = update_body(lines, i, path.trim())?;
            if hunks.is_empty() && move_to.is_none() {
                return Err(syntax(
                    i + 1,
                    format!("`{header}` has no hunks (an `@@` line followed by ' '/'-'/'+' lines)"),
                ));
            }
            files.push(FilePatch {
                action: Action::Update,
                path: path.trim().to_owned(),
                move_to,
                hunks,
                header,
            });
            i = next;
        } else if marker.is_empty() {
            i += 1;
        } else {
            return Err(syntax(
                i + 1,
                format!(
                    "expected `*** Add File:`, `*** Update File:`, `*** Delete File:` or `{END}`, found `{}`",
                    clip(line, 80)
                ),
            ));
        }
    }
}

/// The `+` lines of an Add File section, as one hunk of additions.
fn add_body(lines: &[&str], mut i: usize, path: &str) -> Result<(Option<Hunk>, usize), ToolError> {
    let mut body = Vec::new();
    let mut blanks = 0;
    while let Some(&line) = lines.get(i) {
        if line.starts_with("***") {
            break;
        }
        if line.is_empty() {
            blanks += 1;
        } else if let Some(text) = line.strip_prefix('+') {
            body.extend(std::iter::repeat_n(HunkLine::Add(String::new()), blanks));
            blanks = 0;
            body.push(HunkLine::Add(text.to_owned()));
        } else {
            return Err(syntax(
                i + 1,
                format!(
                    "every line of `*** Add File: {path}` starts with `+`, found `{}`",
                    clip(line, 80)
                ),
            ));
        }
        i += 1;
    }
    let hunk = (!body.is_empty()).then(|| Hunk {
        ordinal: 1,
        label: "added lines".to_owned(),
        lines: body,
        ..Hunk::default()
    });
    Ok((hunk, i))
}

/// The hunks of an Update File section, up to the next `***` line.
fn update_body(lines: &[&str], mut i: usize, path: &str) -> Result<(Vec<Hunk>, usize), ToolError> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut current: Option<Hunk> = None;
    let mut blanks = 0;
    while let Some(&line) = lines.get(i) {
        if line.trim_end() == "*** End of File" {
            let Some(mut hunk) = current.take().filter(|hunk| !hunk.lines.is_empty()) else {
                return Err(syntax(
                    i + 1,
                    "`*** End of File` must follow a hunk's lines",
                ));
            };
            hunk.at_eof = true;
            finish_hunk(&mut hunks, hunk, i)?;
            blanks = 0;
        } else if line.starts_with("***") {
            break;
        } else if let Some(anchor) = line.strip_prefix("@@") {
            let anchor = anchor.trim();
            blanks = 0;
            match current.as_mut() {
                Some(hunk) if hunk.lines.is_empty() => {
                    hunk.label = format!("{} {}", hunk.label, clip(line.trim_end(), 80));
                    if !anchor.is_empty() {
                        hunk.anchors.push(anchor.to_owned());
                    }
                }
                _ => {
                    if let Some(done) = current.take() {
                        finish_hunk(&mut hunks, done, i)?;
                    }
                    current = Some(Hunk {
                        label: clip(line.trim_end(), 80),
                        anchors: (!anchor.is_empty())
                            .then(|| anchor.to_owned())
                            .into_iter()
                            .collect(),
                        ..Hunk::default()
                    });
                }
            }
        } else if line.is_empty() {
            blanks += 1;
        } else {
            let text = line.get(1..).unwrap_or_default().to_owned();
            let parsed = match line.as_bytes().first() {
                Some(b' ') => HunkLine::Context(text),
                Some(b'-') => HunkLine::Remove(text),
                Some(b'+') => HunkLine::Add(text),
                _ => {
                    return Err(syntax(
                        i + 1,
                        format!(
                            "in `*** Update File: {path}`, hunk lines start with ' ', '-' or '+' (a context line keeps its leading space), found `{}`",
                            clip(line, 80)
                        ),
                    ));
                }
            };
            let hunk = current.get_or_insert_with(|| Hunk {
                label: "hunk without @@".to_owned(),
                ..Hunk::default()
            });
            hunk.lines.extend(std::iter::repeat_n(
                HunkLine::Context(String::new()),
                blanks,
            ));
            blanks = 0;
            hunk.lines.push(parsed);
        }
        i += 1;
    }
    if let Some(done) = current.take() {
        finish_hunk(&mut hunks, done, i)?;
    }
    Ok((hunks, i))
}

fn finish_hunk(hunks: &mut Vec<Hunk>, mut hunk: Hunk, line: usize) -> Result<(), ToolError> {
    hunk.ordinal = hunks.len() + 1;
    if hunk.lines.is_empty() {
        return Err(syntax(
            line,
            format!(
                "hunk {} (`{}`) has no ' '/'-'/'+' lines",
                hunk.ordinal, hunk.label
            ),
        ));
    }
    hunks.push(hunk);
    Ok(())
}
