//! `Shape`: one row of the value-shape table — a kind, a pattern, where
//! it holds, an optional check and an example (or, for a vendored gitleaks
//! rule, that rule's own judgement) — and how one row finds itself in a
//! text.

use std::ops::Range;
use std::sync::{LazyLock, OnceLock};

use regex::Regex;

use crate::shapes::shapes;
use crate::vendored::Rule;

/// Where a shape holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scope {
    /// Anywhere: in a single value and in text read line by line (source
    /// code, logs). Published token formats and private keys.
    Anywhere,
    /// In a single value only (an environment variable, a config value):
    /// in source code the same shape is an ordinary assignment, field or
    /// call (`token = next_token()`, `authorization: String`).
    Value,
    /// In text read line by line only: a looser reading with a check
    /// against placeholders, where a single value has a stricter one of its
    /// own (`url-credentials` next to `url-password`).
    Text,
}

impl Scope {
    /// True when the shape judges a single value ([`is_secret_value`](crate::is_secret_value)).
    pub fn in_values(self) -> bool {
        matches!(self, Self::Anywhere | Self::Value)
    }

    /// True when the shape judges text ([`find_secrets`](crate::find_secrets)).
    pub fn in_text(self) -> bool {
        matches!(self, Self::Anywhere | Self::Text)
    }
}

/// One secret shape.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Its position in the table, which is also its priority.
    pub(crate) index: usize,
    pub(crate) kind: &'static str,
    pub(crate) scope: Scope,
    pub(crate) pattern: &'static str,
    pub(crate) keywords: &'static [&'static str],
    pub(crate) check: Option<fn(&str) -> bool>,
    pub(crate) marker: Option<&'static str>,
    pub(crate) example: Option<&'static str>,
    /// The vendored rule this row stands for: it picks the secret out of a
    /// match and judges it (entropy, allowlists) instead of `check`.
    pub(crate) rule: Option<&'static Rule>,
}

impl Shape {
    /// A row of the table (its index is set when the table is put together).
    pub(crate) const fn new(
        kind: &'static str,
        scope: Scope,
        pattern: &'static str,
        keywords: &'static [&'static str],
        example: &'static str,
    ) -> Self {
        Self {
            index: 0,
            kind,
            scope,
            pattern,
            keywords,
            check: None,
            marker: None,
            example: Some(example),
            rule: None,
        }
    }

    /// The same row with a check every match must pass.
    pub(crate) const fn with_check(self, check: fn(&str) -> bool) -> Self {
        Self {
            check: Some(check),
            ..self
        }
    }

    /// The same row, counting only in a document that holds `marker`.
    pub(crate) const fn with_marker(self, marker: &'static str) -> Self {
        Self {
            marker: Some(marker),
            ..self
        }
    }

    /// What it is (`aws-access-key-id`, `private-key`, …): lower-case
    /// words joined by `-`. The audit writes it into `[redacted: KIND]`.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// Where it holds.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The regular expression of a match, written to mean the same in
    /// `regex`'s Unicode mode and in ASCII mode; a hit still needs the
    /// shape's check ([`Shape::find`] applies both). Capture group 1, when
    /// there is one, is the secret itself without the boundary around it.
    pub fn pattern(&self) -> &'static str {
        self.pattern
    }

    /// Literals, compared without regard to case, one of which every text
    /// the shape counts in holds: most are in every match (`sk-`,
    /// `://`, `bearer`), a JWK member's is its document's marker. A text
    /// holding none of them holds no such secret, which one fast literal
    /// search decides. Empty only for shapes that hold in single values
    /// alone.
    pub fn keywords(&self) -> &'static [&'static str] {
        self.keywords
    }

    /// A made-up value of this shape, which [`Shape::find`] finds; `None`
    /// for a vendored gitleaks rule (its tests generate matches from its
    /// pattern instead).
    pub fn example(&self) -> Option<&'static str> {
        self.example
    }

    /// True for a row of the vendored gitleaks rule set (its kind is the
    /// rule's id), false for oy's own.
    pub fn is_vendored(&self) -> bool {
        self.rule.is_some()
    }

    /// A string the whole document must contain for this shape to count
    /// (a JWK's `"kty"` for its private members). [`Shape::find`] judges
    /// a line alone and leaves this to the caller, which looks once per
    /// document; [`shapes_in`](crate::shapes_in),
    /// [`find_secrets`](crate::find_secrets) and
    /// [`is_secret_value`](crate::is_secret_value) look in the text they
    /// are given.
    pub fn marker(&self) -> Option<&'static str> {
        self.marker
    }

    /// The first match in `text` that passes the shape's check, if any
    /// (the marker aside, see [`Shape::marker`]).
    pub fn find(&self, text: &str) -> Option<SecretSpan> {
        // Most texts a shape is asked about do not match: a plain search
        // decides that without the cost of capture groups.
        if !self.regex().is_match(text) {
            return None;
        }
        self.spans(text).next()
    }

    /// Every match in `text` that passes the shape's check.
    pub(crate) fn spans<'t>(&self, text: &'t str) -> impl Iterator<Item = SecretSpan> + 't {
        let kind = self.kind;
        let check = self.check;
        let rule = self.rule;
        self.regex()
            .captures_iter(text)
            .filter_map(move |captures| {
                let range = match rule {
                    Some(rule) => rule.secret(text, &captures)?,
                    None => {
                        let found = captures.get(1).or_else(|| captures.get(0))?;
                        check
                            .is_none_or(|check| check(found.as_str()))
                            .then(|| found.range())?
                    }
                };
                Some(SecretSpan { kind, range })
            })
    }

    /// The pattern compiled alone, on first use: Unicode mode, or for a
    /// vendored rule ASCII mode where it can (see
    /// [`compile_vendored`](crate::vendored::compile_vendored)).
    pub(crate) fn regex(&self) -> &'static Regex {
        static COMPILED: LazyLock<Vec<OnceLock<Regex>>> =
            LazyLock::new(|| shapes().iter().map(|_| OnceLock::new()).collect());
        // Rows are made only by the table, which sets every index.
        COMPILED[self.index].get_or_init(|| match self.rule {
            Some(_) => crate::vendored::compile_vendored(self.pattern),
            None => compile(self.pattern),
        })
    }
}

/// Compiles a pattern of the table. They are constants that every test run
/// compiles, so a failure is a programming error, not bad input; a pattern
/// silently matching nothing would fail open instead.
#[expect(
    clippy::expect_used,
    reason = "constant patterns, each compiled by the table tests"
)]
pub(crate) fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).expect("secret shapes are valid regular expressions")
}

/// Where a secret sits in a text, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SecretSpan {
    /// The shape's kind (see [`Shape::kind`]).
    pub kind: &'static str,
    /// Byte range of the secret in the text.
    pub range: Range<usize>,
}
