//! A server-sent-events reader over a `reqwest::Response` body, bounded by
//! [`crate::limits`] and cut after an idle timeout. Private to the
//! Responses backend (kept self-contained so it can merge with the shared
//! OpenAI module later).

use std::time::Duration;

use crate::error::{ErrorKind, ProviderError};
use crate::limits::{MAX_RESPONSE_BYTES, MAX_SSE_EVENT_BYTES};

/// One dispatched event: its `event:` name (empty when absent) and its
/// `data:` lines joined with `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SseEvent {
    pub(super) name: String,
    pub(super) data: String,
}

/// The parsing half, fed bytes; separate from the I/O so it is easy to
/// reason about. Lines may end in `\n` or `\r\n`.
#[derive(Debug, Default)]
pub(super) struct SseParser {
    /// Bytes of the current, unfinished line.
    line: Vec<u8>,
    /// Unconsumed input after the last complete line.
    pending: Vec<u8>,
    name: String,
    data: String,
    has_data: bool,
    total: usize,
}

impl SseParser {
    /// Adds bytes from the wire, checking the whole-response limit.
    pub(super) fn feed(&mut self, bytes: &[u8]) -> Result<(), ProviderError> {
        self.total = self.total.saturating_add(bytes.len());
        if self.total > MAX_RESPONSE_BYTES {
            return Err(limit(format!(
                "the response stream exceeded {MAX_RESPONSE_BYTES} bytes"
            )));
        }
        self.pending.extend_from_slice(bytes);
        Ok(())
    }

    /// The next complete event in what was fed so far, if any.
    pub(super) fn next_event(&mut self) -> Result<Option<SseEvent>, ProviderError> {
        loop {
            let Some(newline) = self.pending.iter().position(|&byte| byte == b'\n') else {
                if self.line.len() + self.pending.len() > MAX_SSE_EVENT_BYTES {
                    return Err(event_too_big());
                }
                self.line.append(&mut self.pending);
                return Ok(None);
            };
            self.line.extend(self.pending.drain(..=newline));
            let mut line = std::mem::take(&mut self.line);
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if let Some(event) = self.take_line(&line)? {
                return Ok(Some(event));
            }
        }
    }

    /// Applies one line; a blank line dispatches the event gathered so far.
    fn take_line(&mut self, line: &[u8]) -> Result<Option<SseEvent>, ProviderError> {
        if line.is_empty() {
            if !self.has_data {
                self.name.clear();
                return Ok(None);
            }
            self.has_data = false;
            return Ok(Some(SseEvent {
                name: std::mem::take(&mut self.name),
                data: std::mem::take(&mut self.data),
            }));
        }
        if line.first() == Some(&b':') {
            return Ok(None);
        }
        let text = std::str::from_utf8(line).map_err(|_| {
            ProviderError::new(
                ErrorKind::Protocol,
                "the provider sent a server-sent event that is not UTF-8",
            )
        })?;
        let (field, value) = match text.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (text, ""),
        };
        match field {
            "event" => value.clone_into(&mut self.name),
            "data" => {
                if self.data.len() + value.len() + 1 > MAX_SSE_EVENT_BYTES {
                    return Err(event_too_big());
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
        Ok(None)
    }
}

/// Reads events from a live response body.
#[derive(Debug)]
pub(super) struct SseReader {
    response: reqwest::Response,
    parser: SseParser,
    idle_timeout: Duration,
    ended: bool,
}

impl SseReader {
    pub(super) fn new(response: reqwest::Response, idle_timeout: Duration) -> Self {
        Self {
            response,
            parser: SseParser::default(),
            idle_timeout,
            ended: false,
        }
    }

    /// The next event; `Ok(None)` when the body ended (an unfinished event
    /// at the end is dropped, as the SSE rules say).
    pub(super) async fn next(&mut self) -> Result<Option<SseEvent>, ProviderError> {
        loop {
            if let Some(event) = self.parser.next_event()? {
                return Ok(Some(event));
            }
            if self.ended {
                return Ok(None);
            }
            let chunk = tokio::time::timeout(self.idle_timeout, self.response.chunk())
                .await
                .map_err(|_| {
                    ProviderError::new(
                        ErrorKind::IdleTimeout,
                        format!(
                            "the provider sent nothing for {:?}; the stream was cut",
                            self.idle_timeout
                        ),
                    )
                })?
                .map_err(|error| {
                    ProviderError::new(
                        ErrorKind::StreamCut,
                        format!("the response stream broke: {}", error.without_url()),
                    )
                })?;
            match chunk {
                Some(bytes) => self.parser.feed(&bytes)?,
                None => self.ended = true,
            }
        }
    }
}

fn event_too_big() -> ProviderError {
    limit(format!(
        "a server-sent event exceeded {MAX_SSE_EVENT_BYTES} bytes"
    ))
}

fn limit(message: String) -> ProviderError {
    ProviderError::new(ErrorKind::LimitExceeded, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(input: &[&str]) -> Vec<SseEvent> {
        let mut parser = SseParser::default();
        let mut out = Vec::new();
        for piece in input {
            parser.feed(piece.as_bytes()).unwrap();
            while let Some(event) = parser.next_event().unwrap() {
                out.push(event);
            }
        }
        out
    }

    #[test]
    fn joins_data_lines_and_handles_crlf_and_split_chunks() {
        let got = events(&[
            "event: a\r\ndata: {\"x\":",
            "1}\r\n\r\n: ping\n\ndata: b\ndata: c\n\n",
        ]);
        assert_eq!(
            got,
            vec![
                SseEvent {
                    name: "a".into(),
                    data: "{\"x\":1}".into()
                },
                SseEvent {
                    name: String::new(),
                    data: "b\nc".into()
                },
            ]
        );
    }

    #[test]
    fn unterminated_event_is_not_dispatched() {
        assert!(events(&["data: {\"a\":1}\n"]).is_empty());
    }

    #[test]
    fn long_line_without_newline_hits_the_event_limit() {
        let mut parser = SseParser::default();
        let big = vec![b'x'; MAX_SSE_EVENT_BYTES + 1];
        parser.feed(&big).unwrap();
        let error = parser.next_event().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    }
}
