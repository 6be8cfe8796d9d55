//! Integration tests for oy-tools: one binary, a module per topic.
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
mod fuzz_tools;
mod support;

mod child_env_table;
mod fuzz_args;
mod fuzz_patch;
mod policy_ceiling;
mod tools_bash;
mod tools_child_env;
mod tools_events;
mod tools_exec;
mod tools_files;
mod tools_limit;
mod tools_patch;
mod tools_patch_cost;
mod tools_policy;
mod tools_protected;
mod tools_pty;
mod tools_schema_portability;
mod tools_search;
mod tools_session_allow;
mod tools_sloc;
mod tools_smoke;
mod tools_snapshots;
mod tools_user;
#[cfg(feature = "webfetch")]
mod tools_webfetch;
mod trust_workspace_tools;
