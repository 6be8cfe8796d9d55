//! Integration tests for oy-config: one binary, a module per topic. The
//! embedding example runs against a local wiremock server with a config
//! file in a temp home.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    missing_docs,
    unreachable_pub,
    reason = "tests build fixtures with std::fs and fail loudly"
)]

#[path = "../../../oy-boundary/tests/support/fuzz.rs"]
mod fuzz;
mod fuzz_config;
mod like_oy_example;
