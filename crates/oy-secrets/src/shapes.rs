//! The value-shape table: every secret shape oy knows, in priority order
//! (the first shape a line matches names it, so specific prefixes such as
//! `sk-ant-` come before general ones such as `sk-`).
//!
//! It is the union of what the child-process environment filter and the
//! audit's redactor used to know apart; [`Scope`](crate::Scope) says where
//! each shape holds. oy's own rows live in five files — published token
//! formats (`formats.rs`), more services' tokens (`services.rs`), key
//! material (`keys.rs`), credentials inside structures (`structures.rs`)
//! and command lines (`commands.rs`) — and the vendored gitleaks rules
//! (`vendored.rs`) come after them all, so a line both know is named by
//! oy's kind.

use std::sync::LazyLock;

use crate::shape::Shape;
use crate::vendored::vendored_shapes;

/// A token that starts at the start of the text or after a character that
/// is not a letter or digit, so a word that merely contains a prefix
/// (`task-…`, `bashf_…`) does not count. Group 1 is the token.
macro_rules! bounded {
    ($pattern:literal) => {
        concat!("(?:^|[^A-Za-z0-9])(", $pattern, ")")
    };
}

/// A token of exact length: bounded on both sides (`AKIA` + 16, not 17).
macro_rules! delimited {
    ($pattern:literal) => {
        concat!("(?:^|[^A-Za-z0-9])(", $pattern, ")(?:[^A-Za-z0-9]|$)")
    };
}

mod commands;
mod formats;
mod keys;
mod services;
mod structures;

/// Every shape, in priority order: oy's own, then the vendored rules.
pub fn shapes() -> &'static [Shape] {
    static TABLE: LazyLock<Vec<Shape>> = LazyLock::new(|| {
        formats::FORMATS
            .iter()
            .chain(services::SERVICES)
            .chain(keys::KEYS)
            .chain(structures::STRUCTURES)
            .chain(commands::COMMANDS)
            .copied()
            .chain(vendored_shapes())
            .enumerate()
            .map(|(index, shape)| Shape { index, ..shape })
            .collect()
    });
    &TABLE
}
