//! Integration tests for oy-boundary: one binary, a module per topic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    missing_docs,
    unreachable_pub,
    reason = "tests build fixtures (inside and outside the root) with std::fs and fail loudly"
)]

#[path = "../support/fuzz.rs"]
mod fuzz;
mod support;

mod boundary_crash;
mod boundary_lines_whole;
mod boundary_paths;
mod boundary_plain_paths;
mod boundary_proptest;
mod boundary_protect;
mod boundary_special_files;
mod boundary_staged;
mod boundary_symlinks;
mod boundary_walk;
mod boundary_writes;
mod fuzz_paths;
