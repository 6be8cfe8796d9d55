//! Integration tests for oy-provider: one binary, a module per topic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub,
    reason = "tests fail loudly"
)]

#[path = "../../../oy-boundary/tests/support/fuzz.rs"]
mod fuzz;
#[path = "../support/openai_spec.rs"]
mod openai_spec;

mod fuzz_streams;
mod provider_autodetect;
#[cfg(feature = "bedrock")]
mod provider_bedrock;
#[cfg(feature = "bedrock")]
mod provider_bedrock_endpoints;
#[cfg(feature = "bedrock")]
mod provider_bedrock_errors;
mod provider_chat;
mod provider_chat_errors;
mod provider_connect;
mod provider_recorded;
mod provider_responses;
mod provider_retry;
mod provider_secret;
mod provider_spec;
mod provider_window;
