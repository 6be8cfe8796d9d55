//! Integration tests for oy-provider: one binary, a module per topic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub,
    reason = "tests fail loudly"
)]

mod provider_retry;
mod provider_secret;
