//! `oy-secrets`: what a secret looks like — the one place oy decides it.
//!
//! It owns three things, each a pure function of the text it is handed:
//! - secret names ([`secret_name`], [`is_credential_name`]): whether a
//!   variable's or field's name marks what it holds as a credential or a
//!   password (`AWS_SECRET_ACCESS_KEY`, `dbPassword`, `KUBECONFIG`);
//! - secret value shapes ([`shapes`]): one table of published token
//!   formats, private keys, and credentials inside URLs, headers,
//!   connection strings and command lines, key material and seed phrases,
//!   each [`Shape`] with its kind, an optional check, the [`Scope`] where
//!   it holds and an example, followed by the vendored gitleaks rule set
//!   (`rules/gitleaks.toml`, MIT); asked as [`is_secret_value`] (one
//!   value), [`find_secrets`] (spans in a text), [`shapes_in`] (the shapes
//!   to look for in a document), [`mentions`] (where each shape's keywords
//!   occur, for judging a text line by line) or [`shapes_mentioned_in`]
//!   (the shapes a text might hold once read differently), with
//!   [`is_placeholder`] for what only stands in for a secret;
//! - credentials in URLs ([`redact_userinfo`], [`has_userinfo`],
//!   [`has_password`]).
//!
//! The child-process environment filter (`oy-tools`), the audit's
//! redactor (`oy-audit`) and the provider's diagnostics (`oy-provider`)
//! all ask here, so a rule added once holds for all of them. Automata are
//! built on first use: a program that never asks never pays.
//!
//! It must never: read the environment or any file, do other I/O, print,
//! or depend on another oy crate. It judges strings it is handed; its rule
//! data is compiled in (`rules/`, licences in `rules/THIRD_PARTY.md`).

mod bip39;
mod checks;
mod entropy;
mod mentions;
mod names;
mod placeholder;
mod scan;
mod shape;
mod shapes;
mod userinfo;
mod vendored;

pub use entropy::shannon_entropy;
pub use mentions::Mentions;
pub use names::{SecretName, is_credential_name, secret_name};
pub use placeholder::is_placeholder;
pub use scan::{find_secrets, is_secret_value, mentions, shapes_in, shapes_mentioned_in};
pub use shape::{Scope, SecretSpan, Shape};
pub use shapes::shapes;
pub use userinfo::{has_password, has_userinfo, redact_userinfo};
