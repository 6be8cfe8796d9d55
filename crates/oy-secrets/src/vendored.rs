//! The vendored gitleaks rule set (`rules/gitleaks.toml`, MIT; see
//! `rules/THIRD_PARTY.md`): read on first use into rows of the shape table
//! after oy's own, each judging its matches the way gitleaks does — the
//! secret is the rule's secret group (else its first non-empty group), it
//! must carry more entropy than the rule asks, and neither gitleaks' global
//! allowlist nor the rule's own may allow it.
//!
//! The file is kept as published; what oy does differently is here:
//! - the catch-all `generic-api-key` is left out: oy's own name heuristics
//!   (in the audit's redactor) do that job with placeholders and code in
//!   mind;
//! - so are rules that hold for some paths only (`hashicorp-tf-password`
//!   in `.tf` files, `kubernetes-secret-yaml` in YAML, a NuGet config's
//!   password, a PHP plugin's key) and rules that judge a file by its path
//!   alone: the shapes judge text, not files, and applied everywhere the
//!   first would take `password: "changeme"` for a secret. oy covers what
//!   they are for itself (Secret manifests in the audit's redactor, a
//!   NuGet config's `ClearTextPassword` in its own table);
//! - an allowlist that needs a path never allows;
//! - the lazy `[\w.-]{0,50}?` that starts the name-anchored rules is
//!   dropped: it only widens the reported match to the name before the
//!   value, and with it three rules made a scan of ordinary code twenty
//!   times slower (Unicode `\w` before a common keyword);
//! - a keyword that most text holds is narrowed where every match holds
//!   a longer one (`NARROWED_KEYWORDS`);
//! - gitleaks' keywords prefilter a whole file; a few rules use a context
//!   word their matches need not hold (`airtable`, `facebook`, and
//!   `sourcegraph` for a bare 40-digit hex string), and the audit's line
//!   engine asks a line about a rule only when the line holds one of its
//!   keywords: those rules count on a line that names their service (for
//!   the bare hex, far fewer false alarms than every commit hash of a file
//!   that mentions Sourcegraph);
//! - patterns are compiled in ASCII mode, where `\w`, `\s` and `\b` are
//!   what a token's surroundings hold anyway: in Unicode mode a word
//!   boundary in a text with one non-ASCII character takes `regex`'s slow
//!   path, and `[\w-]{50,1000}` exceeds its size limit. The dozen patterns
//!   that could match invalid UTF-8 in ASCII mode (`[^…]` classes) stay in
//!   Unicode mode.
//!
//! A rule's id is its shape's kind (`twilio-api-key`, `heroku-api-key-v2`):
//! already lower-case words joined by `-`.

use std::ops::Range;
use std::sync::{LazyLock, OnceLock};

use regex::{Captures, Regex, RegexBuilder};
use serde::Deserialize;

use crate::entropy::shannon_entropy;
use crate::shape::{Scope, Shape};

/// The rule file, as published.
const DATA: &str = include_str!("../rules/gitleaks.toml");

/// Rules oy leaves out (see the module documentation).
const LEFT_OUT: &[&str] = &["generic-api-key"];

/// Keywords oy narrows: a rule's keyword is its prefilter, and a keyword
/// that most ordinary text holds (`ey`, in `key` and `they`) sends most
/// lines to the rule's pattern. Each replacement is a longer literal that
/// every match of the rule holds (a JWT's second part starts `.ey`), as
/// the tests check on generated matches.
const NARROWED_KEYWORDS: &[(&str, &[&str])] = &[("jwt", &[".ey"])];

/// What gitleaks writes before the value of a name-anchored rule; dropped.
const NAME_PREFIX: &str = r"[\w.-]{0,50}?";

/// The file's shape (fields oy does not use, such as descriptions, are
/// ignored).
#[derive(Deserialize)]
struct File {
    #[serde(default)]
    allowlist: Option<AllowlistData>,
    #[serde(default)]
    allowlists: Vec<AllowlistData>,
    #[serde(default)]
    rules: Vec<RuleData>,
}

#[derive(Deserialize)]
struct RuleData {
    id: String,
    regex: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    keywords: Vec<String>,
    entropy: Option<f64>,
    #[serde(default, rename = "secretGroup")]
    secret_group: usize,
    #[serde(default)]
    allowlists: Vec<AllowlistData>,
}

#[derive(Deserialize, Default)]
struct AllowlistData {
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default, rename = "regexTarget")]
    regex_target: Option<String>,
    #[serde(default)]
    condition: Option<String>,
}

/// What an allowlist's regexes are matched against.
#[derive(Debug, Clone, Copy)]
enum Target {
    Secret,
    Match,
    Line,
}

/// One allowlist: a match it allows is no secret.
#[derive(Debug)]
struct Allowlist {
    regexes: Vec<String>,
    /// The regexes, compiled on first use (one that does not compile
    /// allows nothing, which only redacts more).
    compiled: OnceLock<Vec<Regex>>,
    /// Lower-cased: a secret holding one is allowed.
    stopwords: Vec<String>,
    target: Target,
    /// `condition = "AND"`: every criterion it has must hold.
    every: bool,
    /// It names paths, which text does not have.
    paths: bool,
}

impl Allowlist {
    fn new(data: AllowlistData) -> Self {
        let target = match data.regex_target.as_deref() {
            Some("match") => Target::Match,
            Some("line") => Target::Line,
            _ => Target::Secret,
        };
        Self {
            regexes: data.regexes,
            compiled: OnceLock::new(),
            stopwords: data
                .stopwords
                .iter()
                .map(|word| word.to_lowercase())
                .collect(),
            target,
            every: data
                .condition
                .is_some_and(|condition| condition.eq_ignore_ascii_case("and")),
            paths: !data.paths.is_empty(),
        }
    }

    /// True when the allowlist allows `secret`, found as `found` on `line`.
    fn allows(&self, secret: &str, found: &str, line: &str) -> bool {
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => found,
            Target::Line => line,
        };
        let compiled = self.compiled.get_or_init(|| {
            self.regexes
                .iter()
                .filter_map(|pattern| Regex::new(pattern).ok())
                .collect()
        });
        let regex_hit =
            (!compiled.is_empty()).then(|| compiled.iter().any(|regex| regex.is_match(target)));
        let lower = secret.to_lowercase();
        let stopword_hit = (!self.stopwords.is_empty()).then(|| {
            self.stopwords
                .iter()
                .any(|word| lower.contains(word.as_str()))
        });
        let criteria = [regex_hit, stopword_hit];
        if self.every {
            // A path criterion cannot hold for text.
            !self.paths
                && criteria.iter().flatten().all(|hit| *hit)
                && criteria.iter().any(Option::is_some)
        } else {
            criteria.iter().flatten().any(|hit| *hit)
        }
    }
}

/// One vendored rule, as oy reads it.
#[derive(Debug)]
pub(crate) struct Rule {
    id: String,
    /// The pattern, without the name prefix (see the module documentation).
    pattern: String,
    keywords: Vec<String>,
    entropy: Option<f64>,
    secret_group: usize,
    allowlists: Vec<Allowlist>,
}

impl Rule {
    /// The secret's range in `haystack` for one match, or `None` when the
    /// rule does not count it (too little entropy, allowed).
    pub(crate) fn secret(&self, haystack: &str, captures: &Captures<'_>) -> Option<Range<usize>> {
        let whole = captures.get(0)?;
        let secret = if self.secret_group > 0 {
            captures.get(self.secret_group)?
        } else {
            captures
                .iter()
                .skip(1)
                .flatten()
                .find(|group| !group.is_empty())
                .unwrap_or(whole)
        };
        if self
            .entropy
            .is_some_and(|least| shannon_entropy(secret.as_str()) <= least)
        {
            return None;
        }
        let line = line_around(haystack, whole.range());
        let allowed = rule_set()
            .global
            .iter()
            .chain(&self.allowlists)
            .any(|list| list.allows(secret.as_str(), whole.as_str(), line));
        (!allowed).then(|| secret.range())
    }
}

/// The rules and gitleaks' global allowlists.
struct RuleSet {
    rules: Vec<Rule>,
    global: Vec<Allowlist>,
}

#[expect(
    clippy::expect_used,
    reason = "constant data compiled into the crate, parsed by every test run"
)]
fn rule_set() -> &'static RuleSet {
    static SET: LazyLock<RuleSet> = LazyLock::new(|| {
        let file: File = toml::from_str(DATA).expect("the vendored gitleaks rules parse");
        let global = file
            .allowlist
            .into_iter()
            .chain(file.allowlists)
            .map(Allowlist::new)
            .collect();
        let rules = file
            .rules
            .into_iter()
            .filter(|rule| !LEFT_OUT.contains(&rule.id.as_str()) && rule.path.is_none())
            .filter_map(|rule| {
                let pattern = rule.regex?.replace(NAME_PREFIX, "");
                let keywords = NARROWED_KEYWORDS
                    .iter()
                    .find(|(id, _)| *id == rule.id)
                    .map_or(rule.keywords, |(_, narrow)| {
                        narrow.iter().map(|keyword| (*keyword).to_owned()).collect()
                    });
                Some(Rule {
                    id: rule.id,
                    pattern,
                    keywords,
                    entropy: rule.entropy.filter(|least| *least > 0.0),
                    secret_group: rule.secret_group,
                    allowlists: rule.allowlists.into_iter().map(Allowlist::new).collect(),
                })
            })
            .collect();
        RuleSet { rules, global }
    });
    &SET
}

/// The rows of the vendored rules, in the file's order (their index is set
/// when the table is put together).
pub(crate) fn vendored_shapes() -> impl Iterator<Item = Shape> {
    // Each rule's keywords as `&'static str`, borrowed from the rule set.
    static KEYWORDS: LazyLock<Vec<Vec<&'static str>>> = LazyLock::new(|| {
        rule_set()
            .rules
            .iter()
            .map(|rule| rule.keywords.iter().map(String::as_str).collect())
            .collect()
    });
    rule_set()
        .rules
        .iter()
        .zip(KEYWORDS.iter())
        .map(|(rule, keywords)| Shape {
            index: 0,
            kind: &rule.id,
            scope: Scope::Anywhere,
            pattern: &rule.pattern,
            keywords,
            check: None,
            marker: None,
            example: None,
            rule: Some(rule),
        })
}

/// Compiles a vendored pattern: in ASCII mode, else (it could match
/// invalid UTF-8 there) in Unicode mode. The data is constant and every
/// test run compiles each pattern, so a failure is a programming error,
/// not bad input.
#[expect(
    clippy::expect_used,
    reason = "constant patterns, each compiled by the vendored-rule tests"
)]
pub(crate) fn compile_vendored(pattern: &str) -> Regex {
    RegexBuilder::new(pattern)
        .unicode(false)
        .build()
        .or_else(|_| RegexBuilder::new(pattern).build())
        .expect("vendored patterns compile in ASCII or Unicode mode")
}

/// The line of `haystack` that holds `range` (its first line when the
/// match spans several).
fn line_around(haystack: &str, range: Range<usize>) -> &str {
    let start = haystack
        .get(..range.start)
        .and_then(|before| before.rfind('\n'))
        .map_or(0, |at| at + 1);
    let end = haystack
        .get(range.start..)
        .and_then(|after| after.find('\n'))
        .map_or(haystack.len(), |at| range.start + at);
    haystack.get(start..end).unwrap_or_default()
}
