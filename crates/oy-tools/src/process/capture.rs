//! `Capture`: one output stream of a child kept in bounded memory — the
//! first bytes, the last bytes, and a count of what fell out between them —
//! and rendered head + tail with the limiter's marker; with a [`LiveTail`]
//! of what was read since the last live delta when the call shows its
//! output as it runs.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Mutex, PoisonError};

use super::live::{LiveTail, complete_utf8_prefix, is_continuation};
use crate::limit::{Gap, Limit, limit, limit_around_gap};

/// How much of each stream is kept: enough that the rendered head and
/// tail (half of [`STREAM_LIMIT`] each) always come from kept bytes.
const KEPT_HEAD: usize = 8 * 1024;
const KEPT_TAIL: usize = 8 * 1024;

/// What the model sees of each stream (docs/tools.md: 8 KB or 200 lines).
pub(crate) const STREAM_LIMIT: Limit = Limit {
    max_bytes: 8 * 1024,
    max_lines: 200,
};

/// One stream's bytes, bounded: `head`, then `dropped` bytes never kept,
/// then `tail` (a ring holding the most recent bytes).
#[derive(Debug)]
pub(crate) struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
    dropped_newlines: u64,
    last_dropped: Option<u8>,
    /// What was read since the last live delta, when there are any.
    live: Option<LiveTail>,
}

impl Default for Capture {
    fn default() -> Self {
        Self {
            head: Vec::with_capacity(KEPT_HEAD),
            tail: VecDeque::with_capacity(KEPT_TAIL),
            dropped: 0,
            dropped_newlines: 0,
            last_dropped: None,
            live: None,
        }
    }
}

impl Capture {
    /// A capture that also keeps what was read since the last
    /// [`Self::take_live`].
    pub(crate) fn with_live() -> Self {
        Self {
            live: Some(LiveTail::default()),
            ..Self::default()
        }
    }

    /// The live delta due now (see [`LiveTail::take`]); the `last` one
    /// ends live output for this capture.
    pub(crate) fn take_live(&mut self, last: bool) -> Option<(String, u64)> {
        let taken = self.live.as_mut()?.take(last);
        if last {
            self.live = None;
        }
        taken
    }

    /// Appends `data`, dropping the oldest middle bytes past the bounds.
    pub(crate) fn push(&mut self, mut data: &[u8]) {
        if let Some(live) = &mut self.live {
            live.push(data);
        }
        let room = KEPT_HEAD - self.head.len();
        let into_head = room.min(data.len());
        self.head.extend_from_slice(&data[..into_head]);
        data = &data[into_head..];
        if data.is_empty() {
            return;
        }
        if data.len() >= KEPT_TAIL {
            let evicted = self.tail.len();
            self.evict(evicted);
            let (skipped, kept) = data.split_at(data.len() - KEPT_TAIL);
            self.note_dropped(skipped);
            self.tail.extend(kept);
            return;
        }
        let overflow = (self.tail.len() + data.len()).saturating_sub(KEPT_TAIL);
        self.evict(overflow);
        self.tail.extend(data);
    }

    /// Drops the first `count` bytes of the tail ring, counting them.
    fn evict(&mut self, count: usize) {
        if count == 0 {
            return;
        }
        let (front, back) = self.tail.as_slices();
        let from_front = count.min(front.len());
        let (first, second) = (&front[..from_front], &back[..count - from_front]);
        self.dropped_newlines += (memchr::memchr_iter(b'\n', first).count()
            + memchr::memchr_iter(b'\n', second).count()) as u64;
        self.dropped += count as u64;
        self.last_dropped = second.last().or(first.last()).copied();
        self.tail.drain(..count);
    }

    fn note_dropped(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.dropped_newlines += memchr::memchr_iter(b'\n', bytes).count() as u64;
        self.dropped += bytes.len() as u64;
        self.last_dropped = bytes.last().copied();
    }

    /// The text to show: whole when small, else head + marker + tail (the
    /// marker counts the dropped middle too). Invalid UTF-8 is replaced.
    /// The flag is true when anything was cut.
    pub(crate) fn render(&self, cap: Limit) -> (String, bool) {
        let (front, back) = self.tail.as_slices();
        if self.dropped == 0 {
            let mut bytes = Vec::with_capacity(self.head.len() + self.tail.len());
            bytes.extend_from_slice(&self.head);
            bytes.extend_from_slice(front);
            bytes.extend_from_slice(back);
            let text = String::from_utf8_lossy(&bytes);
            let limited = limit(&text, cap);
            let cut = limited.truncated();
            return (limited.text.into_owned(), cut);
        }
        // A character split by the cuts is counted as dropped rather than
        // shown as replacement characters.
        let head_keep = complete_utf8_prefix(&self.head);
        let mut tail: Vec<u8> = Vec::with_capacity(self.tail.len());
        tail.extend_from_slice(front);
        tail.extend_from_slice(back);
        let tail_skip = tail
            .iter()
            .take(3)
            .take_while(|byte| is_continuation(**byte))
            .count();
        let gap = Gap {
            bytes: usize::try_from(self.dropped)
                .unwrap_or(usize::MAX)
                .saturating_add(self.head.len() - head_keep + tail_skip),
            newlines: usize::try_from(self.dropped_newlines).unwrap_or(usize::MAX),
            ends_with_newline: tail_skip == 0 && self.last_dropped == Some(b'\n'),
        };
        let head = String::from_utf8_lossy(&self.head[..head_keep]);
        let tail = String::from_utf8_lossy(&tail[tail_skip..]);
        (limit_around_gap(&head, gap, &tail, cap), true)
    }
}

/// A capture shared between the thread that fills it and the caller, who
/// may take a snapshot before the thread finishes (a pipe a stray process
/// keeps open).
pub(crate) type SharedCapture = Arc<Mutex<Capture>>;

/// Reads `source` to its end (or an error) into `capture`.
pub(crate) fn drain(mut source: impl Read, capture: &SharedCapture) {
    let mut buffer = [0_u8; 8 * 1024];
    loop {
        match source.read(&mut buffer) {
            Ok(0) => return,
            Ok(read) => capture
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(&buffer[..read]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_input_stays_bounded_and_counts_the_middle() {
        let mut capture = Capture::default();
        let line = b"y\n";
        for _ in 0..100_000 {
            capture.push(line);
        }
        assert_eq!(capture.head.len(), KEPT_HEAD);
        assert_eq!(capture.tail.len(), KEPT_TAIL);
        assert_eq!(capture.dropped, 200_000 - (KEPT_HEAD + KEPT_TAIL) as u64);
        let (text, cut) = capture.render(STREAM_LIMIT);
        assert!(cut);
        assert!(text.starts_with("y\ny\n"));
        assert!(text.ends_with("y\ny\n"));
        assert!(
            text.contains("[truncated: 99800 lines / 199600 bytes omitted]"),
            "{text}"
        );
    }

    #[test]
    fn small_output_is_whole() {
        let mut capture = Capture::default();
        capture.push(b"hello\n");
        assert_eq!(capture.render(STREAM_LIMIT), ("hello\n".to_owned(), false));
    }

    #[test]
    fn split_characters_are_not_shown_as_garbage() {
        assert_eq!(complete_utf8_prefix("aé".as_bytes()), 3);
        assert_eq!(complete_utf8_prefix(&"aé".as_bytes()[..2]), 1);
        assert_eq!(complete_utf8_prefix(&"a€".as_bytes()[..3]), 1);
    }
}
