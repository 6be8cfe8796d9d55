//! Integration tests for oy-agent: one binary, a module per topic. The
//! agent runs against scripted providers (and, for the embedding example,
//! a local wiremock server) in temp workspaces.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    missing_docs,
    unreachable_pub,
    dead_code,
    reason = "tests build fixtures with std::fs, fail loudly, and share helpers across modules"
)]

#[path = "../../../oy-boundary/tests/support/fuzz.rs"]
mod fuzz;
mod fuzz_session;
#[path = "../../../oy-provider/tests/support/openai_spec.rs"]
mod openai_spec;
mod support;

mod cancel;
mod compaction;
mod embed_example;
mod frontend_events;
mod loop_basic;
mod loop_guards;
mod prompt_fit;
mod prompt_mentions;
mod retry_gate;
mod sessions;
