//! Bounds on what a server may send, so a broken or malicious one cannot
//! make oy allocate without limit. Backends check them while reading and
//! fail with [`crate::ErrorKind::LimitExceeded`].

/// Largest single server-sent event (one `data:` payload).
pub const MAX_SSE_EVENT_BYTES: usize = 1024 * 1024;

/// Largest argument string of one tool call.
pub const MAX_TOOL_ARGUMENT_BYTES: usize = 1024 * 1024;

/// Largest whole response (all events of one answer, or a JSON body).
pub const MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// Most tool calls in one answer.
pub const MAX_TOOL_CALLS: usize = 128;
