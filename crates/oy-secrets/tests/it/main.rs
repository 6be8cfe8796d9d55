//! oy-secrets' integration tests: one binary, a module per topic.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub,
    reason = "tests fail loudly"
)]

mod secrets_names;
mod secrets_shapes;
mod secrets_userinfo;
mod secrets_vendored;
