//! Unit tests for the highlighter: token classes per language, state
//! carried across lines, and colour-off output.

use super::*;

const KW: &str = "\u{1b}[35m";
const STR: &str = "\u{1b}[32m";
const NUM: &str = "\u{1b}[33m";
const COMMENT: &str = "\u{1b}[2m";
const BLUE: &str = "\u{1b}[34m";
const CYAN: &str = "\u{1b}[36m";
const END: &str = "\u{1b}[0m";

fn hl(lang: &str, lines: &[&str]) -> Vec<String> {
    let lang = Lang::from_name(lang);
    let mut state = HighlightState::default();
    lines
        .iter()
        .map(|line| highlight_line(lang, &mut state, line, true))
        .collect()
}

fn one(lang: &str, line: &str) -> String {
    hl(lang, &[line]).remove(0)
}

fn painted(prefix: &str, text: &str) -> String {
    format!("{prefix}{text}{END}")
}

/// The text of a highlighted line with its SGR sequences removed.
fn text_of(line: &str) -> String {
    crate::safe::strip_ansi(line)
}

#[test]
fn names_and_aliases_map_to_languages() {
    assert_eq!(Lang::from_name("rust,ignore"), Lang::Rust);
    assert_eq!(Lang::from_name("Python title=\"x\""), Lang::Python);
    assert_eq!(Lang::from_name("{ts}"), Lang::JavaScript);
    assert_eq!(Lang::from_name("c++"), Lang::C);
    assert_eq!(Lang::from_name("zsh"), Lang::Shell);
    assert_eq!(Lang::from_name("yml"), Lang::Yaml);
    assert_eq!(Lang::from_name("patch"), Lang::Diff);
    assert_eq!(Lang::from_name("brainfuck"), Lang::Plain);
    assert_eq!(Lang::from_name(""), Lang::Plain);
}

#[test]
fn rust_tokens_get_their_classes() {
    let line = one("rust", "let x: u32 = 42; // answer");
    assert!(line.starts_with(&painted(KW, "let")), "{line:?}");
    assert!(line.contains(&painted(BLUE, "u32")));
    assert!(line.contains(&painted(NUM, "42")));
    assert!(line.ends_with(&painted(COMMENT, "// answer")));
    assert_eq!(text_of(&line), "let x: u32 = 42; // answer");
}

#[test]
fn rust_char_literals_are_strings_and_lifetimes_are_not() {
    let line = one(
        "rust",
        "fn f<'a>(c: char) -> bool { c == 'x' || c == '\\n' || c == '\\'' }",
    );
    assert!(line.contains(&painted(STR, "'x'")), "{line:?}");
    assert!(line.contains(&painted(STR, "'\\n'")));
    assert!(line.contains(&painted(STR, "'\\''")));
    assert!(line.contains("<'a>"), "{line:?}");
}

#[test]
fn rust_nested_block_comment_spans_lines() {
    let lines = hl("rust", &["a /* one /* two */", "still */ b", "c"]);
    assert!(
        lines[0].ends_with(&painted(COMMENT, "/* one /* two */")),
        "{lines:?}"
    );
    assert_eq!(lines[1], format!("{} b", painted(COMMENT, "still */")));
    assert_eq!(lines[2], "c");
}

#[test]
fn rust_raw_and_multiline_strings_carry_over() {
    let lines = hl("rust", &[r##"let s = r#"a "quoted""##, r##"b"# ; 1"##]);
    assert!(
        lines[0].ends_with(&painted(STR, r##"r#"a "quoted""##)),
        "{lines:?}"
    );
    assert!(lines[1].starts_with(&painted(STR, r##"b"#"##)), "{lines:?}");
    assert!(lines[1].ends_with(&painted(NUM, "1")));
    let lines = hl("rust", &["\"first", "second\" x"]);
    assert_eq!(lines[1], format!("{} x", painted(STR, "second\"")));
}

#[test]
fn python_triple_quoted_string_spans_lines() {
    let lines = hl(
        "python",
        &[
            "def f():",
            "    \"\"\"Doc",
            "    more\"\"\"",
            "    return None",
        ],
    );
    assert!(lines[0].starts_with(&painted(KW, "def")));
    assert!(lines[1].ends_with(&painted(STR, "\"\"\"Doc")));
    assert_eq!(lines[2], painted(STR, "    more\"\"\""));
    assert!(lines[3].ends_with(&painted(NUM, "None")), "{lines:?}");
}

#[test]
fn python_single_quoted_string_does_not_carry() {
    let lines = hl("py", &["x = 'open", "y = 1"]);
    assert!(lines[1].starts_with('y'), "{lines:?}");
}

#[test]
fn javascript_template_literal_spans_lines() {
    let lines = hl("ts", &["const s = `a", "b` + 1;"]);
    assert!(lines[0].starts_with(&painted(KW, "const")));
    assert!(lines[1].starts_with(&painted(STR, "b`")));
}

#[test]
fn go_c_java_keywords_and_comments() {
    assert!(one("go", "func main() {} // x").starts_with(&painted(KW, "func")));
    let c = one("c", "#include <stdio.h> /* io */");
    assert!(c.starts_with(&painted(KW, "#include")), "{c:?}");
    assert!(c.ends_with(&painted(COMMENT, "/* io */")));
    let java = one("java", "@Override public String x() { return \"s\"; }");
    assert!(java.starts_with(&painted(CYAN, "@Override")), "{java:?}");
    assert!(java.contains(&painted(BLUE, "String")));
}

#[test]
fn shell_comments_need_whitespace_and_variables_are_coloured() {
    let line = one("bash", "echo $# ${HOME}/x \"$USER\" # done");
    assert!(line.contains(&painted(CYAN, "$#")), "{line:?}");
    assert!(line.contains(&painted(CYAN, "${HOME}")));
    assert!(line.contains(&painted(STR, "\"$USER\"")));
    assert!(line.ends_with(&painted(COMMENT, "# done")));
    let line = one("sh", "if [ -f x ]; then rm -rf a#b; fi");
    assert!(line.starts_with(&painted(KW, "if")));
    assert!(!line.contains(COMMENT), "{line:?}");
}

#[test]
fn json_keys_differ_from_values() {
    let line = one("json", r#"{"name": "oy", "n": 3, "ok": true}"#);
    assert!(line.contains(&painted(BLUE, "\"name\"")), "{line:?}");
    assert!(line.contains(&painted(STR, "\"oy\"")));
    assert!(line.contains(&painted(NUM, "3")));
    assert!(line.contains(&painted(NUM, "true")));
}

#[test]
fn toml_headers_keys_and_multiline_strings() {
    let lines = hl(
        "toml",
        &[
            "[package]",
            "name = \"oy\" # c",
            "s = '''",
            "key = x",
            "'''",
        ],
    );
    assert_eq!(lines[0], "\u{1b}[1m[package]\u{1b}[0m");
    assert!(lines[1].starts_with(&painted(BLUE, "name")), "{lines:?}");
    assert!(lines[1].ends_with(&painted(COMMENT, "# c")));
    assert_eq!(lines[3], painted(STR, "key = x"), "{lines:?}");
}

#[test]
fn yaml_keys_markers_and_comments() {
    let lines = hl(
        "yaml",
        &[
            "---",
            "- name: build # step",
            "  run: cargo test",
            "  url: http://x",
        ],
    );
    assert_eq!(lines[0], painted(KW, "---"));
    assert!(
        lines[1].starts_with(&format!("- {}", painted(BLUE, "name"))),
        "{lines:?}"
    );
    assert!(lines[1].ends_with(&painted(COMMENT, "# step")));
    assert!(lines[3].contains(&painted(BLUE, "url")));
    assert!(!lines[3].contains(COMMENT));
}

#[test]
fn diff_lines_are_coloured_whole() {
    let lines = hl("diff", &["--- a/x", "@@ -1 +1 @@", "-old", "+new", " same"]);
    assert_eq!(lines[0], "\u{1b}[1m--- a/x\u{1b}[0m");
    assert_eq!(lines[1], painted(CYAN, "@@ -1 +1 @@"));
    assert_eq!(lines[2], "\u{1b}[31m-old\u{1b}[0m");
    assert_eq!(lines[3], painted(STR, "+new"));
    assert_eq!(lines[4], " same");
}

#[test]
fn unknown_language_and_colour_off_are_plain() {
    assert_eq!(one("klingon", "let x = 1"), "let x = 1");
    let mut state = HighlightState::default();
    let line = highlight_line(Lang::Rust, &mut state, "\tlet s = \"a", false);
    assert_eq!(line, "    let s = \"a");
    assert_eq!(state.mode, Mode::Str { delim: 0 });
}

#[test]
fn hostile_characters_never_pass_through() {
    let line = one(
        "rust",
        "let s = \"\u{1b}]8;;http://x\u{7}\u{202e}\"; // \u{1b}[2J\n",
    );
    assert!(!text_of(&line).contains('\u{1b}'));
    assert_eq!(line.matches('\u{1b}').count(), 6, "{line:?}");
    assert!(line.contains('\u{fffd}'));
}

#[test]
fn a_state_left_by_another_language_does_not_stick() {
    let mut state = HighlightState::default();
    highlight_line(Lang::Python, &mut state, "'''open", true);
    assert_eq!(state.mode, Mode::Str { delim: 1 });
    assert_eq!(highlight_line(Lang::Rust, &mut state, "x", true), "x");
    assert_eq!(state.mode, Mode::Normal);
}
