//! `OutputBuffer`: a session's unread terminal output, bounded in memory —
//! the first bytes and the last bytes are kept, the middle is counted and
//! dropped — and rendered for the model with the shared truncation marker.

use std::collections::VecDeque;

use crate::limit::{Gap, Limit, limit, limit_around_gap};

/// Unread output: `head` fills first, then `tail` keeps the newest bytes;
/// whatever falls out between them is only counted.
#[derive(Debug)]
pub(crate) struct OutputBuffer {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_cap: usize,
    tail_cap: usize,
    dropped_bytes: usize,
    dropped_newlines: usize,
    last_dropped: u8,
}

/// Output ready for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rendered {
    /// The text (valid UTF-8, terminal sequences untouched).
    pub(crate) text: String,
    /// True when the marker replaced part of it.
    pub(crate) truncated: bool,
}

impl OutputBuffer {
    /// A buffer that keeps at most `head_cap + tail_cap` bytes.
    pub(crate) fn new(head_cap: usize, tail_cap: usize) -> Self {
        Self {
            head: Vec::new(),
            tail: VecDeque::new(),
            head_cap,
            tail_cap,
            dropped_bytes: 0,
            dropped_newlines: 0,
            last_dropped: 0,
        }
    }

    /// True when nothing is waiting.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.head.is_empty() && self.tail.is_empty() && self.dropped_bytes == 0
    }

    /// Adds bytes read from the terminal.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        if self.tail.is_empty() && self.dropped_bytes == 0 {
            let take = self
                .head_cap
                .saturating_sub(self.head.len())
                .min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.is_empty() {
            return;
        }
        if bytes.len() >= self.tail_cap {
            let cut = bytes.len() - self.tail_cap;
            let old: Vec<u8> = self.tail.drain(..).collect();
            self.drop_bytes(&old);
            self.drop_bytes(&bytes[..cut]);
            self.tail.extend(&bytes[cut..]);
        } else {
            let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
            let old: Vec<u8> = self.tail.drain(..overflow).collect();
            self.drop_bytes(&old);
            self.tail.extend(bytes);
        }
    }

    fn drop_bytes(&mut self, bytes: &[u8]) {
        if let Some(&last) = bytes.last() {
            self.dropped_bytes += bytes.len();
            self.dropped_newlines += memchr::memchr_iter(b'\n', bytes).count();
            self.last_dropped = last;
        }
    }

    /// Takes everything waiting, rendered within `max_bytes` (head + tail
    /// around a `[truncated: …]` marker that counts dropped bytes too).
    /// With `keep_partial`, an incomplete UTF-8 sequence at the very end
    /// stays for the next call instead of becoming a replacement character.
    pub(crate) fn take(&mut self, max_bytes: usize, keep_partial: bool) -> Rendered {
        let mut tail: Vec<u8> = self.tail.drain(..).collect();
        let mut head = std::mem::take(&mut self.head);
        let carry = if keep_partial {
            let end = if tail.is_empty() {
                &mut head
            } else {
                &mut tail
            };
            let keep = incomplete_suffix(end);
            end.split_off(end.len() - keep)
        } else {
            Vec::new()
        };
        let dropped_bytes = std::mem::take(&mut self.dropped_bytes);
        let dropped_newlines = std::mem::take(&mut self.dropped_newlines);
        let last_dropped = self.last_dropped;
        self.push(&carry);
        if dropped_bytes == 0 {
            head.extend_from_slice(&tail);
            let text = String::from_utf8_lossy(&head);
            let limited = limit(&text, Limit::bytes(max_bytes));
            return Rendered {
                truncated: limited.truncated(),
                text: limited.text.into_owned(),
            };
        }
        // Bytes were dropped, so both ends are full. A character split by
        // the drop counts as dropped, so the marker's numbers stay exact.
        let head_end = head.len() - incomplete_suffix(&head);
        let tail_start = tail
            .iter()
            .take_while(|&&byte| is_continuation(byte))
            .count();
        let gap = Gap {
            bytes: (head.len() - head_end) + dropped_bytes + tail_start,
            newlines: dropped_newlines,
            ends_with_newline: if tail_start == 0 {
                last_dropped == b'\n'
            } else {
                false
            },
        };
        let head = String::from_utf8_lossy(&head[..head_end]);
        let tail = String::from_utf8_lossy(&tail[tail_start..]);
        Rendered {
            text: limit_around_gap(&head, gap, &tail, Limit::bytes(max_bytes)),
            truncated: true,
        }
    }
}

/// Length of an incomplete UTF-8 sequence at the end of `bytes` (0 to 3).
fn incomplete_suffix(bytes: &[u8]) -> usize {
    let start = bytes.len().saturating_sub(3);
    for (index, &byte) in bytes.iter().enumerate().skip(start).rev() {
        if is_continuation(byte) {
            continue;
        }
        let need = match byte {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        let have = bytes.len() - index;
        return if have < need { have } else { 0 };
    }
    0
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown_and_omitted(rendered: &Rendered) -> (usize, usize) {
        let (head, rest) = rendered.text.split_once("[truncated: ").unwrap();
        let (counts, tail) = rest.split_once("]\n").unwrap();
        let bytes: usize = counts
            .split(" / ")
            .nth(1)
            .unwrap()
            .trim_end_matches(" bytes omitted")
            .parse()
            .unwrap();
        (head.len() + tail.len(), bytes)
    }

    #[test]
    fn small_output_passes_through_unchanged() {
        let mut buffer = OutputBuffer::new(16, 16);
        buffer.push(b"hello\r\n");
        let rendered = buffer.take(100, true);
        assert_eq!(rendered.text, "hello\r\n");
        assert!(!rendered.truncated);
        assert!(buffer.is_empty());
    }

    #[test]
    fn dropped_bytes_are_counted_in_the_marker_and_memory_stays_bounded() {
        let mut buffer = OutputBuffer::new(64, 64);
        let mut total = 0;
        for line in 0..10_000 {
            let text = format!("line {line}\n");
            total += text.len();
            buffer.push(text.as_bytes());
            assert!(buffer.head.len() + buffer.tail.len() <= 128);
        }
        let rendered = buffer.take(40, true);
        assert!(rendered.truncated);
        assert!(rendered.text.starts_with("line 0\n"), "{}", rendered.text);
        assert!(rendered.text.ends_with("line 9999\n"), "{}", rendered.text);
        let (shown, omitted) = shown_and_omitted(&rendered);
        assert_eq!(shown + omitted, total);
    }

    #[test]
    fn a_split_character_waits_for_its_remaining_bytes() {
        let mut buffer = OutputBuffer::new(16, 16);
        let snowman = "☃".as_bytes();
        buffer.push(&snowman[..1]);
        assert_eq!(buffer.take(100, true).text, "");
        buffer.push(&snowman[1..]);
        assert_eq!(buffer.take(100, true).text, "☃");
        buffer.push(&snowman[..2]);
        assert_eq!(buffer.take(100, false).text, "\u{FFFD}");
    }
}
