//! The vendored rule data: every gitleaks rule with a pattern (the
//! catch-all left out) is a row after oy's own, every pattern compiles,
//! every row has keywords, a match generated from each pattern is found,
//! gitleaks' allowlists and entropy hold, and the BIP-39 wordlist is
//! intact.

use oy_secrets::{Shape, find_secrets, is_secret_value, shapes};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

const GITLEAKS: &str = include_str!("../../rules/gitleaks.toml");
const WORDLIST: &str = include_str!("../../rules/bip39-english.txt");

fn vendored() -> Vec<&'static Shape> {
    shapes().iter().filter(|s| s.is_vendored()).collect()
}

#[test]
fn every_rule_with_a_pattern_but_the_catch_all_is_a_row_after_oys_own() {
    // Rules with a pattern and no path condition.
    let rules = GITLEAKS
        .split("[[rules]]")
        .skip(1)
        .filter(|rule| rule.contains("\nregex = ") && !rule.contains("\npath = "))
        .count();
    let rows = vendored();
    assert_eq!(rows.len(), rules - 1, "generic-api-key is left out");
    assert!(rows.len() >= 200, "{}", rows.len());
    for left_out in [
        "generic-api-key",
        "hashicorp-tf-password",
        "kubernetes-secret-yaml",
    ] {
        assert!(rows.iter().all(|row| row.kind() != left_out), "{left_out}");
    }
    for kind in [
        "twilio-api-key",
        "heroku-api-key-v2",
        "pulumi-api-token",
        "jwt",
    ] {
        assert!(rows.iter().any(|row| row.kind() == kind), "{kind}");
    }
    assert!(shapes().is_sorted_by_key(|s| s.is_vendored()));
    // Kinds name the redaction marker: lower-case words, digits, dashes.
    for row in &rows {
        assert!(
            row.kind()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{}",
            row.kind()
        );
        assert!(row.example().is_none());
        assert!(!row.keywords().is_empty(), "{} has no keywords", row.kind());
    }
}

#[test]
fn every_vendored_pattern_compiles_without_its_name_prefix() {
    for row in vendored() {
        assert!(!row.pattern().contains(r"[\w.-]{0,50}?"), "{}", row.kind());
        // Compiling happens on first use; this forces it.
        let _ = row.find("compile me");
    }
}

/// `pattern` without look-arounds, which a generator cannot produce: a
/// superset of the pattern's matches.
fn generable(pattern: &str) -> String {
    pattern
        .replace(r"(?-u:\b)", "")
        .replace(r"\b", "")
        .replace(r"\z", "")
        .replace(r"\A", "")
        .replace("|$)", "|)")
        .replace("(?:^|", "(?:")
}

/// Rules whose keyword is a context word their matches need not hold
/// (see `vendored.rs`).
const CONTEXTUAL: &[&str] = &[
    "airtable-personnal-access-token",
    "facebook-access-token",
    "sourcegraph-access-token",
];

#[test]
fn a_match_generated_from_each_vendored_rule_is_found() {
    let mut missed = Vec::new();
    let mut not_generated = Vec::new();
    for (index, row) in vendored().into_iter().enumerate() {
        // ASCII classes first: a pattern compiled in ASCII mode (too big
        // in Unicode mode) matches no other.
        let pattern = generable(row.pattern());
        let strategy = proptest::string::string_regex(&format!("(?-u){pattern}"))
            .ok()
            .or_else(|| proptest::string::string_regex(&pattern).ok());
        let Some(strategy) = strategy else {
            not_generated.push(row.kind());
            continue;
        };
        let mut seed = [0_u8; 32];
        seed[..8].copy_from_slice(&(index as u64 + 1).to_le_bytes());
        let mut runner = TestRunner::new_with_rng(
            Config::default(),
            TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
        );
        let found = (0..48).any(|_| {
            let sample = strategy.new_tree(&mut runner).unwrap().current();
            let text = format!("x = {sample}\n");
            let hit = row.find(&text).is_some();
            // The prefilter is sound: a match holds one of the keywords.
            // (Case folded as the scan folds it: `ſ` is an `s`; a `.` any
            // character, as the rule's own unescaped `gems.contribsys.com`
            // reads it.)
            if hit && !CONTEXTUAL.contains(&row.kind()) {
                let holds = |keyword: &&str| {
                    regex::RegexBuilder::new(&regex::escape(keyword).replace(r"\.", "."))
                        .case_insensitive(true)
                        .build()
                        .unwrap()
                        .is_match(&text)
                };
                assert!(
                    row.keywords().iter().any(holds),
                    "{}: {text:?} holds none of {:?}",
                    row.kind(),
                    row.keywords()
                );
            }
            hit || find_secrets(&text)
                .iter()
                .any(|span| span.kind == row.kind())
        });
        if !found {
            missed.push(row.kind());
        }
    }
    assert!(missed.is_empty(), "no generated match found: {missed:?}");
    assert!(not_generated.len() <= 3, "{not_generated:?}");
}

#[test]
fn gitleaks_judgement_holds_entropy_and_allowlists() {
    // `twilio-api-key` asks for entropy above 3: sixteen `a`s and `b`s
    // carry one bit a character.
    let twilio = |tail: &str| format!("TWILIO = \"SK{tail}\"");
    assert!(is_secret_value(&twilio("f3a91c0b7d2e4f6a8b1c3d5e7f9a0b2c")));
    assert!(!is_secret_value(&twilio(
        "abababababababababababababababab"
    )));
    // A rule's allowlist: gitleaks' `aws-access-token` allows AWS's
    // documentation keys (`…EXAMPLE`); oy's own shape still redacts them.
    let kinds = |text: &str| -> Vec<&str> { find_secrets(text).iter().map(|s| s.kind).collect() };
    let documented = format!("key = {}", concat!("AKIA", "IOSFODNN7", "EXAMPLE"));
    assert_eq!(kinds(&documented), ["aws-access-key-id"]);
    let planted = format!("key = {}", concat!("AKIA", "QZ3X7RT2MW6PLK4J"));
    assert_eq!(kinds(&planted), ["aws-access-key-id", "aws-access-token"]);
}

#[test]
fn the_bip39_wordlist_is_intact_and_judges_seed_phrases() {
    let words: Vec<&str> = WORDLIST.lines().collect();
    assert_eq!(words.len(), 2048);
    assert!(words.is_sorted());
    assert!(
        words
            .iter()
            .all(|w| w.bytes().all(|b| b.is_ascii_lowercase()))
    );
    let phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow";
    assert!(is_secret_value(phrase));
    assert!(is_secret_value(&format!("MNEMONIC=\"{phrase}\"")));
    assert!(!find_secrets(&format!("const mnemonic = \"{phrase}\";")).is_empty());
    // Twelve words, not all from the list; eleven words from it.
    let prose = "legal winner thank year wave sausage worth useful legal winner thank yourself";
    assert!(!is_secret_value(prose));
    assert!(find_secrets(&format!("mnemonic: \"{prose}\"")).is_empty());
    let short = "legal winner thank year wave sausage worth useful legal winner thank";
    assert!(find_secrets(&format!("seed = \"{short}\"")).is_empty());
}
