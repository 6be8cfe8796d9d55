//! Checkpoints and undo against real directories (and real git).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::print_stderr,
    missing_docs,
    unreachable_pub,
    dead_code,
    reason = "tests build fixtures with std::fs, fail loudly, say why they skip, and share helpers"
)]

mod attacks;
mod git;
mod support;
mod undo;
