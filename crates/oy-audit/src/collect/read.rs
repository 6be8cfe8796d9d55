//! Reading one walked file: its size from the open handle first, so a
//! file over the person's cap is never read and one larger than any chunk
//! only for its head.

use std::io::Read;

use oy_boundary::{WalkEntry, Workspace};

use super::SkipReason;
use super::large::HEAD_BYTES;

/// What [`read`] got of a file.
pub(super) enum Content {
    /// All of it, as text.
    Whole(String, u64),
    /// Its first [`HEAD_BYTES`] as text (lossy at the cut) and its size:
    /// it is larger than a chunk could hold.
    Head(String, u64),
}

/// Reads one walked regular file: the size from the open handle first
/// (so a file over the person's cap is never read, and one over the
/// chunk's `cap` only for its head), then the bytes, capped in case it
/// grew, then the text checks.
pub(super) fn read(
    workspace: &Workspace,
    entry: &WalkEntry,
    max: Option<u64>,
    cap: u64,
) -> Result<Content, SkipReason> {
    let mut file = workspace
        .open_walked(entry)
        .map_err(|_| SkipReason::NotRegular)?;
    let size = file.metadata().map_err(|_| SkipReason::NotRegular)?.len();
    let max = max.unwrap_or(u64::MAX);
    if size > max {
        return Err(SkipReason::TooLarge);
    }
    if size > cap {
        let mut head = Vec::with_capacity(HEAD_BYTES);
        (&mut file)
            .take(HEAD_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(|_| SkipReason::NotRegular)?;
        if head.contains(&0) {
            return Err(SkipReason::Binary);
        }
        // Invalid UTF-8 before the cut (not just a character the cut split).
        if std::str::from_utf8(&head).is_err_and(|error| error.error_len().is_some()) {
            return Err(SkipReason::NotUtf8);
        }
        return Ok(Content::Head(
            String::from_utf8_lossy(&head).into_owned(),
            size,
        ));
    }
    let limit = max.min(cap);
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|_| SkipReason::NotRegular)?;
    if bytes.len() as u64 > max {
        return Err(SkipReason::TooLarge);
    }
    if bytes.contains(&0) {
        return Err(SkipReason::Binary);
    }
    let bytes_read = bytes.len() as u64;
    if bytes_read > cap {
        // It grew past the chunk while being read.
        let head = bytes.get(..HEAD_BYTES).unwrap_or(&bytes);
        return Ok(Content::Head(
            String::from_utf8_lossy(head).into_owned(),
            bytes_read,
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)?;
    Ok(Content::Whole(text, bytes_read))
}
