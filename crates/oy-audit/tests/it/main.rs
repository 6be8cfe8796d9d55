//! oy-audit's integration tests: fixture repositories built by the tests,
//! a scripted model, and assertions on exactly what would be sent.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    missing_docs,
    unreachable_pub,
    dead_code,
    reason = "tests build fixtures with std::fs, share helpers, and fail loudly"
)]

mod audit_driver;
mod collect;
mod collect_secret_files;
mod plan;
mod real_repos;
mod redact;
mod redact_corpus;
mod report;
mod review;
