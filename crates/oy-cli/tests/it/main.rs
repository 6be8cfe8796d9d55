//! End-to-end tests of the real `oy` binary: one binary, a module per command.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    missing_docs,
    unreachable_pub,
    dead_code,
    reason = "tests build fixtures with std::fs and fail loudly"
)]

mod mock_model;
#[path = "../../../oy-provider/tests/support/openai_spec.rs"]
mod openai_spec;
mod pty;
mod support;

mod cli_allow;
mod cli_approval;
mod cli_audit;
mod cli_audit_secrets;
mod cli_chat;
mod cli_chat_start;
mod cli_completions;
mod cli_concurrency;
mod cli_config;
mod cli_crash;
mod cli_did_you_mean;
mod cli_doctor;
mod cli_errors;
mod cli_help;
mod cli_mcp;
mod cli_mentions;
mod cli_model;
mod cli_pipes;
mod cli_prompts;
mod cli_run;
mod cli_sandbox;
mod cli_sandbox_git;
mod cli_screen;
mod cli_sessions;
mod cli_tool;
mod cli_tools;
mod cli_undo;
