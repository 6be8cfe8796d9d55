//! The last lines of a growing output (a running command's), ready for a
//! small live box: escape sequences removed, a carriage-return progress
//! line shown as it last read, each line terminal-safe and cut to a width.

use std::collections::VecDeque;

use crate::safe::{display_line, strip_ansi};
use crate::text::truncate;

/// Bytes kept of one line; the rest of a longer line is not shown anyway.
const LINE_CAP: usize = 4096;

/// The last lines of an output fed in chunks of bytes (a chunk may end
/// inside a line or inside a UTF-8 character).
#[derive(Clone, Debug)]
pub struct Tail {
    keep: usize,
    lines: VecDeque<Vec<u8>>,
    partial: Vec<u8>,
    complete: usize,
}

impl Tail {
    /// Keeps the last `keep` lines.
    pub fn new(keep: usize) -> Tail {
        Tail {
            keep,
            lines: VecDeque::with_capacity(keep + 1),
            partial: Vec::new(),
            complete: 0,
        }
    }

    /// Adds output.
    pub fn push(&mut self, bytes: &[u8]) {
        for chunk in bytes.split_inclusive(|&b| b == b'\n') {
            let (body, ends) = match chunk.strip_suffix(b"\n") {
                Some(body) => (body, true),
                None => (chunk, false),
            };
            let room = LINE_CAP.saturating_sub(self.partial.len());
            self.partial
                .extend_from_slice(&body[..body.len().min(room)]);
            if ends {
                self.complete += 1;
                self.lines.push_back(std::mem::take(&mut self.partial));
                while self.lines.len() > self.keep {
                    self.lines.pop_front();
                }
            }
        }
    }

    /// Lines seen so far, a last unfinished one included.
    pub fn total_lines(&self) -> usize {
        self.complete + usize::from(!self.partial.is_empty())
    }

    /// The last lines (at most `keep`, an unfinished one included), each
    /// cut to `width` columns with `…` (0: not cut), without escape
    /// sequences, terminal-safe, tabs expanded; no newlines.
    pub fn lines(&self, width: u16) -> Vec<String> {
        let partial = (!self.partial.is_empty()).then_some(&self.partial);
        let all: Vec<&Vec<u8>> = self.lines.iter().chain(partial).collect();
        let skip = all.len().saturating_sub(self.keep);
        all[skip..]
            .iter()
            .map(|line| {
                let text = String::from_utf8_lossy(line);
                let text = text.strip_suffix('\r').unwrap_or(&text);
                // A progress line redrawn with `\r` reads as its last state.
                let text = text.rsplit('\r').next().unwrap_or(text);
                let shown = display_line(&strip_ansi(text));
                if width == 0 {
                    shown
                } else {
                    truncate(&shown, usize::from(width))
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_across_chunks() {
        let mut tail = Tail::new(2);
        tail.push(b"one\ntw");
        assert_eq!(tail.lines(80), ["one", "tw"]);
        tail.push(b"o\nthree\n");
        assert_eq!(tail.lines(80), ["two", "three"]);
        assert_eq!(tail.total_lines(), 3);
        tail.push(b"fo");
        assert_eq!(tail.lines(80), ["three", "fo"]);
        assert_eq!(tail.total_lines(), 4);
    }

    #[test]
    fn utf8_split_across_chunks_is_whole() {
        let mut tail = Tail::new(3);
        let bytes = "héllo\n".as_bytes();
        tail.push(&bytes[..2]);
        tail.push(&bytes[2..]);
        assert_eq!(tail.lines(80), ["héllo"]);
    }

    #[test]
    fn escapes_are_removed_progress_lines_collapse_and_width_cuts() {
        let mut tail = Tail::new(3);
        tail.push(b"\x1b[32mok\x1b[0m\r\n10%\r50%\r90%\n\x1b]0;t\x07a\tb\x07 0123456789\n");
        assert_eq!(tail.lines(10), ["ok", "90%", "a   b\u{fffd} 01…"]);
        assert_eq!(tail.lines(0)[2], "a   b\u{fffd} 0123456789");
    }

    #[test]
    fn a_huge_line_is_capped() {
        let mut tail = Tail::new(1);
        tail.push(&vec![b'x'; 10 * LINE_CAP]);
        tail.push(b"\n");
        assert_eq!(tail.lines(0)[0].len(), LINE_CAP);
    }
}
