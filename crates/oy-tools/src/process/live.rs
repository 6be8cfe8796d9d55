//! Live output of a running command (`tool_output` events, docs/events.md),
//! bounded at the source: [`LiveTail`] keeps only the newest bytes read
//! since the last delta and counts the older ones, and [`Ticker`] lets a
//! watcher take them at most every [`LIVE_EVERY`]. The model-visible
//! captures are separate and never changed by this.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::events::OutputStream;

/// Most text one delta carries: the newest bytes since the last one.
pub(crate) const LIVE_BYTES: usize = 4 * 1024;

/// Shortest time between two deltas of one stream.
pub(crate) const LIVE_EVERY: Duration = Duration::from_millis(100);

/// Where a running command's output deltas go (the tool call's events).
/// Called on the tool's thread.
pub(crate) trait LiveSink {
    /// `text` is the newest output of `stream`; `skipped_bytes` were
    /// printed before it since the last delta and are left out.
    fn output(&self, stream: OutputStream, text: String, skipped_bytes: u64);
}

/// The bytes read since the last delta: at most [`LIVE_BYTES`] of the
/// newest, and how many older ones were dropped.
#[derive(Debug, Default)]
pub(crate) struct LiveTail {
    ring: VecDeque<u8>,
    skipped: u64,
}

impl LiveTail {
    /// Adds bytes just read, dropping (and counting) the oldest past the bound.
    pub(crate) fn push(&mut self, data: &[u8]) {
        if data.len() >= LIVE_BYTES {
            self.skipped += (self.ring.len() + data.len() - LIVE_BYTES) as u64;
            self.ring.clear();
            self.ring.extend(&data[data.len() - LIVE_BYTES..]);
            return;
        }
        let overflow = (self.ring.len() + data.len()).saturating_sub(LIVE_BYTES);
        self.ring.drain(..overflow);
        self.skipped += overflow as u64;
        self.ring.extend(data);
    }

    /// What to send now: the text (invalid UTF-8 replaced) and the bytes
    /// left out before it; `None` when nothing new was read. A character
    /// whose first bytes were dropped is counted as skipped; one whose
    /// last bytes have not arrived waits for the next take, unless this
    /// is the `last` one.
    pub(crate) fn take(&mut self, last: bool) -> Option<(String, u64)> {
        let mut bytes: Vec<u8> = self.ring.drain(..).collect();
        let lead = if self.skipped > 0 {
            bytes
                .iter()
                .take(3)
                .take_while(|byte| is_continuation(**byte))
                .count()
        } else {
            0
        };
        let end = if last {
            bytes.len()
        } else {
            lead + complete_utf8_prefix(&bytes[lead..])
        };
        self.ring.extend(&bytes[end..]);
        bytes.truncate(end);
        let skipped = self.skipped + lead as u64;
        if bytes.len() == lead && skipped == 0 {
            return None;
        }
        self.skipped = 0;
        Some((
            String::from_utf8_lossy(&bytes[lead..]).into_owned(),
            skipped,
        ))
    }
}

pub(crate) fn is_continuation(byte: u8) -> bool {
    byte & 0b1100_0000 == 0b1000_0000
}

/// The length of `bytes` without a multi-byte character cut off at its end.
pub(crate) fn complete_utf8_prefix(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(4) {
        let at = bytes.len() - back;
        let byte = bytes[at];
        if is_continuation(byte) {
            continue;
        }
        let needed = match byte {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if back < needed { at } else { bytes.len() };
    }
    bytes.len()
}

/// Paces the deltas: due at most every [`LIVE_EVERY`].
#[derive(Debug)]
pub(crate) struct Ticker {
    last: Instant,
}

impl Ticker {
    /// A ticker whose first tick is one period from now.
    pub(crate) fn new() -> Self {
        Self {
            last: Instant::now(),
        }
    }

    /// True (and restarts the period) when a period has passed.
    pub(crate) fn due(&mut self) -> bool {
        if self.last.elapsed() < LIVE_EVERY {
            return false;
        }
        self.last = Instant::now();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_new_sends_nothing() {
        let mut tail = LiveTail::default();
        assert_eq!(tail.take(false), None);
        assert_eq!(tail.take(true), None);
        tail.push(b"hi\n");
        assert_eq!(tail.take(false), Some(("hi\n".to_owned(), 0)));
        assert_eq!(tail.take(false), None);
    }

    #[test]
    fn only_the_newest_bytes_are_kept_and_the_rest_counted() {
        let mut tail = LiveTail::default();
        for _ in 0..1000 {
            tail.push(b"0123456789\n");
        }
        let (text, skipped) = tail.take(false).unwrap();
        assert_eq!(text.len(), LIVE_BYTES);
        assert_eq!(text.len() as u64 + skipped, 11_000);
        tail.push(&[b'x'; 3 * LIVE_BYTES]);
        let (text, skipped) = tail.take(false).unwrap();
        assert_eq!((text.len(), skipped), (LIVE_BYTES, 2 * LIVE_BYTES as u64));
    }

    #[test]
    fn characters_are_never_split() {
        let mut tail = LiveTail::default();
        let euro = "€".as_bytes();
        tail.push(b"a");
        tail.push(&euro[..2]);
        assert_eq!(tail.take(false), Some(("a".to_owned(), 0)));
        // The rest arrives: the whole character goes out.
        tail.push(&euro[2..]);
        assert_eq!(tail.take(false), Some(("€".to_owned(), 0)));
        // Only a character's start: nothing yet, unless it is the last take.
        tail.push(&euro[..1]);
        assert_eq!(tail.take(false), None);
        assert_eq!(tail.take(true), Some(("\u{fffd}".to_owned(), 0)));
        // The front of a character dropped by the bound: counted, not shown.
        let mut tail = LiveTail::default();
        let mut data = vec![b'x'; LIVE_BYTES - 1];
        data.splice(0..0, euro.iter().copied());
        tail.push(&data);
        let (text, skipped) = tail.take(false).unwrap();
        assert!(text.chars().all(|c| c == 'x'), "{text:?}");
        assert_eq!(text.len() as u64 + skipped, data.len() as u64);
    }
}
