//! Line slices: one streaming pass that skips to an offset and keeps a
//! bounded window, so a slice of a huge file never loads the whole file and
//! a single enormous line never loads more than the per-line cap. The same
//! pass can hand every byte of a file under a size cap to the caller (a
//! digest of exactly what the window came from, with no second open).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

use crate::error::{BoundaryError, Result};
use crate::path::WorkspacePath;
use crate::read::SNIFF_BYTES;
use crate::resolve::Follow;
use crate::workspace::Workspace;

/// Which lines to read, and how much of them to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineWindow {
    /// First line to return, 1-based.
    pub offset: usize,
    /// Most lines to return.
    pub limit: usize,
    /// Bytes kept of one line; the rest is counted in [`Line::omitted_bytes`].
    pub max_line_bytes: usize,
    /// Stop once the kept text reaches this many bytes.
    pub max_total_bytes: usize,
}

impl Default for LineWindow {
    fn default() -> Self {
        Self {
            offset: 1,
            limit: 2000,
            max_line_bytes: 4096,
            max_total_bytes: 64 * 1024,
        }
    }
}

/// One line, without its `\n` or `\r\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number.
    pub number: usize,
    /// The kept text (cut on a character boundary).
    pub text: String,
    /// Bytes of this line beyond `max_line_bytes` that were not kept.
    pub omitted_bytes: u64,
}

/// The result of [`Workspace::read_lines`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineSlice {
    /// The lines read, in order.
    pub lines: Vec<Line>,
    /// True when the file continues after the last returned line.
    pub more: bool,
    /// True when reading stopped at `max_total_bytes` rather than `limit`.
    pub hit_byte_cap: bool,
    /// The 1-based line the window started at (the requested offset).
    pub offset: usize,
}

impl LineSlice {
    /// The 1-based line to ask for next, when there is more: after the last
    /// returned line, or the requested offset itself when the window held
    /// no line (`limit` or `max_total_bytes` of 0).
    pub fn next_offset(&self) -> Option<usize> {
        if !self.more {
            return None;
        }
        Some(
            self.lines
                .last()
                .map_or(self.offset, |line| line.number + 1),
        )
    }
}

impl Workspace {
    /// Reads a window of lines from a UTF-8 text file in one pass.
    ///
    /// Binary files (a NUL in the first 8 KiB) and lines that are not UTF-8
    /// are errors; an `offset` past the last line is
    /// [`BoundaryError::OffsetPastEnd`] with the real line count.
    pub fn read_lines(&self, path: &WorkspacePath, window: LineWindow) -> Result<LineSlice> {
        self.read_lines_fed(path, window, None)
            .map(|(slice, _)| slice)
    }

    /// [`Self::read_lines`], also handing every byte of the file to
    /// `whole`, in order, when the file holds at most `max_whole` bytes:
    /// the file is then read on to its end after the window, through the
    /// same handle, so what `whole` sees is the file the window came from.
    ///
    /// The `bool` is true when `whole` saw the entire file. It is false
    /// when the file is larger than `max_whole` (then only the window is
    /// read, as by [`Self::read_lines`], and `whole` sees nothing), when it
    /// grew past `max_whole` while being read, or when reading on after the
    /// window failed: what `whole` saw is then not the file and must be
    /// dropped. Errors are [`Self::read_lines`]'s.
    pub fn read_lines_whole(
        &self,
        path: &WorkspacePath,
        window: LineWindow,
        max_whole: u64,
        whole: &mut dyn FnMut(&[u8]),
    ) -> Result<(LineSlice, bool)> {
        let fed = Fed {
            sink: whole,
            max: max_whole,
            seen: 0,
        };
        self.read_lines_fed(path, window, Some(fed))
    }

    fn read_lines_fed(
        &self,
        path: &WorkspacePath,
        window: LineWindow,
        fed: Option<Fed<'_>>,
    ) -> Result<(LineSlice, bool)> {
        let target = self.target(path, Follow::Final)?;
        let (file, len) = self.open_regular(&target)?;
        let shown = target.shown;
        // A file over the cap is streamed for its window alone.
        let fed = fed.filter(|fed| len <= fed.max);
        let mut reader = BufReader::with_capacity(64 * 1024, Teed { file, fed });
        let io_err = |e| BoundaryError::from_io("read", &shown, e);

        let head = reader.fill_buf().map_err(io_err)?;
        if memchr::memchr(0, &head[..head.len().min(SNIFF_BYTES)]).is_some() {
            return Err(BoundaryError::Binary { path: shown });
        }

        let offset = window.offset.max(1);
        let mut number = 0usize;
        let mut byte_pos = 0u64;
        let mut buf = Vec::new();
        let mut slice = LineSlice {
            lines: Vec::new(),
            more: false,
            hit_byte_cap: false,
            offset,
        };
        let mut kept_total = 0usize;
        loop {
            let in_window = number + 1 >= offset;
            if in_window
                && (slice.lines.len() >= window.limit || kept_total >= window.max_total_bytes)
            {
                // Any byte left starts another line: no need to scan it (it
                // may be one enormous line).
                slice.more = !reader.fill_buf().map_err(io_err)?.is_empty();
                slice.hit_byte_cap = slice.more && slice.lines.len() < window.limit;
                break;
            }
            let keep = if in_window { window.max_line_bytes } else { 0 };
            let Some(scan) = next_line(&mut reader, keep, &mut buf).map_err(io_err)? else {
                break;
            };
            number += 1;
            if number < offset {
                byte_pos += scan.total_bytes;
                continue;
            }
            let mut omitted = scan.omitted;
            let text =
                line_text(&buf, &mut omitted).map_err(|valid_up_to| BoundaryError::NotUtf8 {
                    path: shown.clone(),
                    byte_offset: byte_pos + valid_up_to as u64,
                })?;
            byte_pos += scan.total_bytes;
            kept_total += text.len();
            slice.lines.push(Line {
                number,
                text,
                omitted_bytes: omitted,
            });
        }
        // The line at `offset` exists when it was read, or when the probe
        // found it right after the skipped lines (a window of 0 lines). An
        // empty file still has a (empty) first line to start at.
        let offset_exists = number >= offset || slice.more || (number == 0 && offset == 1);
        if !offset_exists {
            return Err(BoundaryError::OffsetPastEnd {
                path: shown,
                offset,
                total_lines: number,
            });
        }
        let whole_seen = reader.get_ref().fed.is_some() && read_to_end(&mut reader);
        Ok((slice, whole_seen))
    }
}

/// The file under a line reader, handing what each `read` returns to the
/// caller's sink (every byte once, in file order) until more than `max`
/// bytes went by.
struct Teed<'a> {
    file: File,
    fed: Option<Fed<'a>>,
}

struct Fed<'a> {
    sink: &'a mut dyn FnMut(&[u8]),
    max: u64,
    seen: u64,
}

impl Read for Teed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.file.read(buf)?;
        if let Some(fed) = &mut self.fed {
            fed.seen += read as u64;
            if fed.seen > fed.max {
                // Grown past the cap: what was fed is not the file.
                self.fed = None;
            } else {
                (fed.sink)(&buf[..read]);
            }
        }
        Ok(read)
    }
}

/// Reads on to the end of the file, so the sink sees all of it; true when
/// it did (no read error, not grown past its cap).
fn read_to_end(reader: &mut BufReader<Teed<'_>>) -> bool {
    loop {
        let available = match reader.fill_buf() {
            Ok([]) => return reader.get_ref().fed.is_some(),
            Ok(available) => available.len(),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        };
        reader.consume(available);
        if reader.get_ref().fed.is_none() {
            return false;
        }
    }
}

struct LineScan {
    /// Bytes of the line not kept in the buffer.
    omitted: u64,
    /// Bytes the line occupies in the file, terminator included.
    total_bytes: u64,
}

/// Reads one line, keeping at most `keep` bytes of it in `buf` (the `\n`
/// or `\r\n` terminator excluded, and not counted as omitted). `None` at
/// end of file.
fn next_line(
    reader: &mut impl BufRead,
    keep: usize,
    buf: &mut Vec<u8>,
) -> io::Result<Option<LineScan>> {
    buf.clear();
    let mut scan = LineScan {
        omitted: 0,
        total_bytes: 0,
    };
    let mut seen_any = false;
    let mut last_byte = None;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            break;
        }
        seen_any = true;
        let (chunk, consumed, done) = match memchr::memchr(b'\n', available) {
            Some(end) => (&available[..end], end + 1, true),
            None => (available, available.len(), false),
        };
        if let Some(&byte) = chunk.last() {
            last_byte = Some(byte);
        }
        let room = keep.saturating_sub(buf.len());
        let kept = room.min(chunk.len());
        buf.extend_from_slice(&chunk[..kept]);
        scan.omitted += (chunk.len() - kept) as u64;
        scan.total_bytes += consumed as u64;
        reader.consume(consumed);
        if done {
            break;
        }
    }
    if !seen_any {
        return Ok(None);
    }
    if last_byte == Some(b'\r') {
        // The `\r` of a CRLF terminator is not line content.
        if scan.omitted > 0 {
            scan.omitted -= 1;
        } else {
            buf.pop();
        }
    }
    Ok(Some(scan))
}

/// Turns a kept line into text. When the line was cut, a character split by
/// the cut is dropped and its bytes are added to `omitted`. `Err` gives the
/// offset of an invalid byte within the line.
fn line_text(buf: &[u8], omitted: &mut u64) -> Result<String, usize> {
    match std::str::from_utf8(buf) {
        Ok(text) => Ok(text.to_owned()),
        Err(e) if *omitted > 0 && e.error_len().is_none() => {
            let valid = e.valid_up_to();
            *omitted += (buf.len() - valid) as u64;
            Ok(String::from_utf8_lossy(&buf[..valid]).into_owned())
        }
        Err(e) => Err(e.valid_up_to()),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn teed_reader<'a>(
        bytes: &[u8],
        max: u64,
        sink: &'a mut dyn FnMut(&[u8]),
    ) -> BufReader<Teed<'a>> {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        rustix::fs::seek(&file, rustix::fs::SeekFrom::Start(0)).unwrap();
        let fed = Some(Fed { sink, max, seen: 0 });
        BufReader::with_capacity(8, Teed { file, fed })
    }

    #[test]
    fn the_sink_sees_every_byte_once_in_order_up_to_the_cap() {
        let text: Vec<u8> = (0..100u8).collect();
        let mut seen = Vec::new();
        let mut sink = |piece: &[u8]| seen.extend_from_slice(piece);
        let mut reader = teed_reader(&text, 100, &mut sink);
        let mut head = Vec::new();
        next_line(&mut reader, 5, &mut head).unwrap();
        assert!(read_to_end(&mut reader));
        drop(reader);
        assert_eq!(seen, text);
    }

    #[test]
    fn more_than_the_cap_stops_feeding_and_is_not_whole() {
        // The size seen at open was under the cap; the file then grew.
        let text = vec![b'a'; 100];
        let mut fed = 0;
        let mut sink = |piece: &[u8]| fed += piece.len();
        let mut reader = teed_reader(&text, 40, &mut sink);
        assert!(!read_to_end(&mut reader));
        assert!(reader.get_ref().fed.is_none());
        drop(reader);
        assert!(fed <= 40, "{fed} bytes fed past the cap");
    }
}
