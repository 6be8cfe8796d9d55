//! A bounded server-sent-events reader over a streaming HTTP body, with an
//! idle timeout: no event, line or whole answer may grow past
//! [`crate::limits`], and a body that goes silent fails as
//! [`ErrorKind::IdleTimeout`].

use std::time::Duration;

use crate::error::{ErrorKind, ProviderError};
use crate::limits::{MAX_RESPONSE_BYTES, MAX_SSE_EVENT_BYTES};

/// One dispatched event: its `event:` name (when the server sent one) and
/// its `data:` lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, if any.
    pub(crate) event: Option<String>,
    /// The joined `data:` payload.
    pub(crate) data: String,
}

/// The parsing half, fed bytes; kept apart from the I/O so it can be tested
/// without a server. Lines may end in `\n` or `\r\n`.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    /// Bytes received but not yet split into lines.
    buffer: Vec<u8>,
    /// The event being assembled.
    data: String,
    has_data: bool,
    event: Option<String>,
    total: usize,
}

impl SseParser {
    /// Adds bytes from the wire, checking the whole-answer limit.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<(), ProviderError> {
        self.total = self.total.saturating_add(bytes.len());
        if self.total > MAX_RESPONSE_BYTES {
            return Err(ProviderError::new(
                ErrorKind::LimitExceeded,
                format!("the provider's answer exceeded {MAX_RESPONSE_BYTES} bytes; it was cut"),
            ));
        }
        self.buffer.extend_from_slice(bytes);
        Ok(())
    }

    /// The next complete event in what was fed so far, if any. A line still
    /// unfinished may not grow past the event limit.
    pub(crate) fn next_event(&mut self) -> Result<Option<SseEvent>, ProviderError> {
        while let Some(newline) = self.buffer.iter().position(|&byte| byte == b'\n') {
            let mut line: Vec<u8> = self.buffer.drain(..=newline).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if let Some(event) = self.take_line(&line)? {
                return Ok(Some(event));
            }
        }
        if self.buffer.len() > MAX_SSE_EVENT_BYTES {
            return Err(event_too_large());
        }
        Ok(None)
    }

    /// Applies one line; returns an event when the line was the blank line
    /// that dispatches it.
    fn take_line(&mut self, line: &[u8]) -> Result<Option<SseEvent>, ProviderError> {
        if line.is_empty() {
            if !self.has_data {
                self.event = None;
                return Ok(None);
            }
            self.has_data = false;
            return Ok(Some(SseEvent {
                event: self.event.take(),
                data: std::mem::take(&mut self.data),
            }));
        }
        if line.first() == Some(&b':') {
            return Ok(None);
        }
        let text = std::str::from_utf8(line).map_err(|_| {
            ProviderError::new(
                ErrorKind::Protocol,
                "the provider sent an event that is not UTF-8",
            )
        })?;
        let (field, value) = match text.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (text, ""),
        };
        match field {
            "data" => {
                if self.data.len() + value.len() + 1 > MAX_SSE_EVENT_BYTES {
                    return Err(event_too_large());
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            // `id:`, `retry:` and unknown fields carry nothing oy uses.
            _ => {}
        }
        Ok(None)
    }
}

/// Reads events from a response body chunk by chunk.
pub(crate) struct SseReader {
    response: reqwest::Response,
    idle_timeout: Duration,
    parser: SseParser,
    eof: bool,
}

impl SseReader {
    pub(crate) fn new(response: reqwest::Response, idle_timeout: Duration) -> Self {
        Self {
            response,
            idle_timeout,
            parser: SseParser::default(),
            eof: false,
        }
    }

    /// The next event; `Ok(None)` when the body ended. An event left
    /// unfinished at the end of the body (no blank line) is dropped, as the
    /// SSE spec says, so a stream cut mid-event looks like a stream that
    /// ended early and the caller reports it as cut.
    pub(crate) async fn next_event(&mut self) -> Result<Option<SseEvent>, ProviderError> {
        loop {
            if let Some(event) = self.parser.next_event()? {
                return Ok(Some(event));
            }
            if self.eof {
                return Ok(None);
            }
            let chunk = tokio::time::timeout(self.idle_timeout, self.response.chunk())
                .await
                .map_err(|_| {
                    ProviderError::new(
                        ErrorKind::IdleTimeout,
                        format!(
                            "the provider sent nothing for {} s; the stream was cut \
                             (a local model reading a long prompt can take longer: \
                             raise idle_timeout_secs in the config)",
                            self.idle_timeout.as_secs_f32()
                        ),
                    )
                })?
                .map_err(|error| {
                    ProviderError::new(
                        ErrorKind::StreamCut,
                        format!("the stream broke: {}", super::error_without_url(&error)),
                    )
                })?;
            match chunk {
                Some(bytes) => self.parser.feed(&bytes)?,
                None => self.eof = true,
            }
        }
    }
}

fn event_too_large() -> ProviderError {
    ProviderError::new(
        ErrorKind::LimitExceeded,
        format!("the provider sent an event larger than {MAX_SSE_EVENT_BYTES} bytes; it was cut"),
    )
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
                    event: Some("a".into()),
                    data: "{\"x\":1}".into()
                },
                SseEvent {
                    event: None,
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

    /// Where the network splits a body never changes what it decodes to:
    /// fed in any chunks, a body gives the same events, or the same error,
    /// as fed whole.
    mod chunking {
        use proptest::prelude::*;

        use super::*;

        fn decode(chunks: &[&[u8]]) -> Result<Vec<SseEvent>, ErrorKind> {
            let mut parser = SseParser::default();
            let mut out = Vec::new();
            for chunk in chunks {
                parser.feed(chunk).map_err(|e| e.kind())?;
                while let Some(event) = parser.next_event().map_err(|e| e.kind())? {
                    out.push(event);
                }
            }
            Ok(out)
        }

        fn body() -> impl Strategy<Value = Vec<u8>> {
            let piece = prop_oneof![
                Just(b"data: ".to_vec()),
                Just(b"event: x\n".to_vec()),
                Just(b"\n".to_vec()),
                Just(b"\r\n".to_vec()),
                Just(b"\r".to_vec()),
                Just(b": ping\n".to_vec()),
                Just(b"data:{\"a\":1}\n".to_vec()),
                Just("\u{e9}".as_bytes().to_vec()),
                Just(vec![0xc3]),
                prop::collection::vec(any::<u8>(), 0..8),
            ];
            prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]
            #[test]
            fn chunk_boundaries_change_nothing(body in body(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8)) {
                let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(body.len() + 1)).collect();
                cuts.sort_unstable();
                let mut chunks = Vec::new();
                let mut from = 0;
                for cut in cuts {
                    chunks.push(&body[from..cut]);
                    from = cut;
                }
                chunks.push(&body[from..]);
                prop_assert_eq!(decode(&chunks), decode(&[&body]));
            }
        }
    }
}
