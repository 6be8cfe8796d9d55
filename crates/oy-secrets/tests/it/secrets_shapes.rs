//! The value-shape table: every pattern of oy's own compiles in both
//! modes, every example is found by its own shape and judged a secret
//! value, no shape shadows a later one's example, near misses pass, and
//! (proptest) cutting out the spans found never leaves a planted secret
//! behind. The vendored rules have their own file (`secrets_vendored`).

use oy_secrets::{Scope, Shape, find_secrets, is_secret_value, shapes, shapes_in};
use proptest::prelude::*;

/// True when `shape` counts in `text` taken as a whole document.
fn found_in(shape: &Shape, text: &str) -> bool {
    shape.marker().is_none_or(|marker| text.contains(marker)) && shape.find(text).is_some()
}

/// oy's own rows: each has an example.
fn own() -> impl Iterator<Item = &'static Shape> {
    shapes().iter().filter(|shape| !shape.is_vendored())
}

/// An own row's example.
fn example(shape: &Shape) -> &'static str {
    shape.example().unwrap()
}

#[test]
fn every_pattern_compiles_in_unicode_and_ascii_mode() {
    for shape in own() {
        regex::Regex::new(shape.pattern()).unwrap();
        regex::bytes::RegexBuilder::new(shape.pattern())
            .unicode(false)
            .build()
            .unwrap();
    }
}

#[test]
fn kinds_are_lower_case_words_joined_by_dashes() {
    for shape in shapes() {
        let kind = shape.kind();
        assert!(
            !kind.is_empty()
                && !kind.starts_with('-')
                && kind
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{kind}"
        );
    }
}

#[test]
fn every_example_is_found_by_its_own_shape() {
    let missed: Vec<&str> = own()
        .filter(|shape| !found_in(shape, example(shape)))
        .map(Shape::kind)
        .collect();
    assert!(missed.is_empty(), "{missed:?}");
}

#[test]
fn every_example_is_a_secret_value() {
    let missed: Vec<&str> = own()
        .filter(|shape| !is_secret_value(example(shape)))
        .map(Shape::kind)
        .collect();
    assert!(missed.is_empty(), "{missed:?}");
}

#[test]
fn no_text_shape_shadows_a_later_ones_example() {
    // The audit names a line after the first text shape it matches.
    for shape in own().filter(|s| s.scope().in_text()) {
        let first = shapes()
            .iter()
            .filter(|s| s.scope().in_text())
            .find(|s| found_in(s, example(shape)))
            .map(Shape::kind);
        assert_eq!(first, Some(shape.kind()), "{}", example(shape));
    }
}

/// True when `text` holds `keyword`, case ignored as Unicode folds it
/// (as the scan compares them: `ſ` is an `s`, `K` a `k`).
fn holds_keyword(text: &str, keyword: &str) -> bool {
    regex::RegexBuilder::new(&regex::escape(keyword))
        .case_insensitive(true)
        .build()
        .unwrap()
        .is_match(text)
}

#[test]
fn every_text_shape_has_keywords_and_its_example_holds_one() {
    for shape in own().filter(|s| s.scope().in_text()) {
        assert!(
            shape
                .keywords()
                .iter()
                .any(|keyword| holds_keyword(example(shape), keyword)),
            "{}",
            shape.kind()
        );
    }
}

#[test]
fn shapes_in_lists_what_a_document_holds_in_priority_order() {
    let by_kind = |kind: &str| shapes().iter().find(|s| s.kind() == kind).unwrap();
    let jwt = example(by_kind("jwt"));
    let key = example(by_kind("aws-access-key-id"));
    let text = format!("fn main() {{}}\nlet t = \"{jwt}\";\nlet id = \"{key}\";\n");
    let found = shapes_in(&text);
    let kinds: Vec<&str> = found
        .iter()
        .filter(|s| !s.is_vendored())
        .map(|s| s.kind())
        .collect();
    assert_eq!(kinds, ["aws-access-key-id", "jwt"]);
    // The vendored rules that also know a JWT come after oy's own.
    assert!(found.is_sorted_by_key(|s| s.is_vendored()));
    assert!(shapes_in("fn main() { println!(\"https://example.org\"); }").is_empty());
    // A JWK member counts only in a document that holds a JWK.
    let member = "\"d\": \"Zk9xQ2mT7rWv8LpN3sYb6HcJ\"";
    assert!(shapes_in(member).is_empty());
    let kinds: Vec<&str> = shapes_in(&format!("{{\"kty\": \"EC\",\n{member}}}"))
        .iter()
        .map(|s| s.kind())
        .collect();
    assert_eq!(kinds, ["jwk-private-key"]);
}

#[test]
fn every_text_example_is_found_in_text() {
    for shape in own().filter(|s| s.scope().in_text()) {
        let text = format!("before\n{}\nafter", example(shape));
        let spans = find_secrets(&text);
        assert!(
            spans.iter().any(|span| span.kind == shape.kind()),
            "{}: {spans:?}",
            shape.kind()
        );
    }
}

#[test]
fn scopes_split_the_table_as_documented() {
    let count = |scope| own().filter(|s| s.scope() == scope).count();
    assert!(count(Scope::Anywhere) >= 50);
    assert!(count(Scope::Value) >= 5);
    // `url-credentials`, `http-header` and the `password` line of a netrc
    // document: each with a stricter reading for single values.
    assert_eq!(count(Scope::Text), 3);
    assert!(
        shapes()
            .iter()
            .filter(|s| s.is_vendored())
            .all(|s| s.scope() == Scope::Anywhere)
    );
}

#[test]
fn near_misses_are_no_secret_values() {
    for value in [
        "sk-learn",
        "sk-prod-cluster-eu-west-1",
        "ghp_",
        "Bearer",
        "AKIASHORT",
        "eyJhbGciOiJIUzI1NiJ9",
        "SG.example.com",
        "hooks.example.com",
        "task-runner-0123456789abcdefghijklmnopqrstuv",
        "0123456789abcdef0123456789abcdef",
        "-----BEGIN CERTIFICATE-----\nMIIFAKE\n-----END CERTIFICATE-----",
        "https://cdn.example.com:443/npm/lodash@4.17.21",
        "http://status.example:8080?owner=ops@example.com",
        "-DUSE_TOKEN=ON -DBUILD_TESTING=OFF",
        "ssh -o PasswordAuthentication=no -o BatchMode=yes",
    ] {
        assert!(!is_secret_value(value), "{value}");
    }
}

#[test]
fn code_and_placeholders_hold_no_secrets_in_text() {
    for line in [
        "token = next_token();",
        "authorization: Option<String>,",
        "password = os.getenv(\"DB_PASSWORD\")",
        "DATABASE_URL=postgres://user:${DB_PASSWORD}@localhost/app",
        "(`scheme://user:pw@host`, the password may contain `/`)",
        "pip install scikit-learn sk-learn-is-not-a-key-at-all",
        "Basic authentication is enabled by default",
        "\"d\": \"abcdefghijklmnopqrstuvwxyz\"",
    ] {
        assert_eq!(find_secrets(line), [], "{line}");
    }
}

#[test]
fn spans_cover_the_secret_without_its_boundary() {
    let key = example(
        shapes()
            .iter()
            .find(|s| s.kind() == "aws-access-key-id")
            .unwrap(),
    );
    let text = format!("id=\"{key}\";");
    let spans = find_secrets(&text);
    assert_eq!(spans.len(), 1, "{spans:?}");
    assert_eq!(&text[spans[0].range.clone()], key);
}

/// `text` with every span found replaced by a marker.
fn cut(text: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    for span in find_secrets(text) {
        if span.range.start >= at {
            out.push_str(&text[at..span.range.start]);
            out.push_str("[secret]");
            at = span.range.end;
        } else if span.range.end > at {
            at = span.range.end;
        }
    }
    out.push_str(&text[at..]);
    out
}

/// A text shape's pattern without its boundary assertions, which
/// proptest cannot generate: it matches a superset of the shape's matches.
fn unbounded(shape: &Shape) -> String {
    shape
        .pattern()
        .replace("(?:^|[^A-Za-z0-9])", "")
        .replace("(?:[^A-Za-z0-9]|$)", "")
        .replace("(?-u:\\b)", "")
}

type Generator = (
    &'static Shape,
    String,
    proptest::string::RegexGeneratorStrategy<String>,
);

/// The text shapes whose pattern proptest can generate matches for (a
/// shape with a marker has the marker as its keyword, held by the
/// document rather than by the match).
fn generators() -> Vec<Generator> {
    own()
        .filter(|s| s.scope().in_text() && s.marker().is_none())
        .filter_map(|s| {
            let pattern = unbounded(s);
            let strategy = proptest::string::string_regex(&pattern).ok()?;
            Some((s, pattern, strategy))
        })
        .collect()
}

#[test]
fn most_text_patterns_can_be_generated() {
    // Keeps the keyword proptest below from passing by generating nothing.
    assert!(generators().len() >= 30, "{}", generators().len());
}

proptest! {
    #[test]
    fn every_match_of_a_text_shape_holds_one_of_its_keywords(
        index in 0..64_usize,
        seed in any::<u64>(),
    ) {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
        let generators = generators();
        let (shape, pattern, strategy) = &generators[index % generators.len()];
        let mut bytes = [0_u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let mut runner = TestRunner::new_with_rng(
            Config::default(),
            TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
        );
        let text = strategy.new_tree(&mut runner).unwrap().current();
        prop_assume!(regex::Regex::new(pattern).unwrap().is_match(&text));
        prop_assert!(
            shape.keywords().iter().any(|keyword| holds_keyword(&text, keyword)),
            "{}: {text:?}",
            shape.kind()
        );
    }

    #[test]
    fn cutting_out_the_spans_never_leaves_a_planted_secret(
        index in 0..256_usize,
        before in "\\PC{0,24}",
        after in "\\PC{0,24}",
    ) {
        let text_shapes: Vec<&Shape> = own().filter(|s| s.scope().in_text()).collect();
        let shape = text_shapes[index % text_shapes.len()];
        let text = format!("{before}\n{}\n{after}", example(shape));
        prop_assert!(!cut(&text).contains(example(shape)), "{text:?}");
        prop_assert!(is_secret_value(&text) || !shape.scope().in_values());
    }
}
