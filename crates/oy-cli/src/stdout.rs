//! Standard output for commands that print results (`oy tools | head`).
//! Rust ignores SIGPIPE, so a write to a pipe whose reader has gone fails
//! with `BrokenPipe`; through [`lock`] that failure is marked
//! [`ClosedStdout`] and `main` ends quietly with status 0, as a
//! well-behaved filter does — never a panic or an "error: Broken pipe".
//! Only writes to stdout are marked: a broken pipe elsewhere (a child's
//! stdin) stays an error.

use std::io::{self, StdoutLock, Write};

/// The reader of stdout went away.
#[derive(Debug, thiserror::Error)]
#[error("stdout was closed")]
pub(crate) struct ClosedStdout;

/// Locked stdout whose broken-pipe errors are [`ClosedStdout`].
pub(crate) struct Stdout(StdoutLock<'static>);

/// Stdout, locked for this command's output.
pub(crate) fn lock() -> Stdout {
    Stdout(io::stdout().lock())
}

/// Writes `bytes` to stdout and flushes.
pub(crate) fn write_all(bytes: &[u8]) -> io::Result<()> {
    let mut out = lock();
    out.write_all(bytes)?;
    out.flush()
}

fn mark(error: io::Error) -> io::Error {
    if error.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, ClosedStdout)
    } else {
        error
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(mark)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(mark)
    }
}

/// True when `error` is (or was caused by) a write to a closed stdout.
pub(crate) fn is_closed(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.is::<ClosedStdout>()
            || cause
                .downcast_ref::<io::Error>()
                .and_then(io::Error::get_ref)
                .is_some_and(|inner| inner.is::<ClosedStdout>())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_marked_broken_pipes_count_as_closed() {
        let marked = anyhow::Error::new(mark(io::Error::from(io::ErrorKind::BrokenPipe)));
        assert!(is_closed(&marked));
        assert!(is_closed(&marked.context("writing the list")));
        let other = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(!is_closed(&other), "a child's pipe is not stdout");
        let denied = anyhow::Error::new(mark(io::Error::from(io::ErrorKind::PermissionDenied)));
        assert!(!is_closed(&denied));
    }
}
