//! Unit tests for the Markdown renderer and the stream's cuts.

use super::*;

fn plain(text: &str) -> String {
    render_markdown(
        text,
        MarkdownOptions {
            color: false,
            width: 40,
        },
    )
}

fn colored(text: &str) -> String {
    render_markdown(
        text,
        MarkdownOptions {
            color: true,
            width: 40,
        },
    )
}

#[test]
fn headings_lose_their_markers_and_plain_ones_are_underlined() {
    assert_eq!(
        plain("# Title\n\n## Sub\n\n### Third"),
        "Title\n=====\n\nSub\n---\n\nThird\n"
    );
    assert_eq!(colored("# Title"), "\u{1b}[1;4;36mTitle\u{1b}[0m\n");
    assert_eq!(colored("### T"), "\u{1b}[1;36mT\u{1b}[0m\n");
}

#[test]
fn emphasis_markers_are_dropped_or_styled() {
    assert_eq!(plain("a *b* **c** ~~d~~ `e`"), "a b c ~~d~~ `e`\n");
    assert_eq!(
        colored("**OddLength** `x`"),
        "\u{1b}[1mOddLength\u{1b}[0m \u{1b}[33mx\u{1b}[0m\n"
    );
}

#[test]
fn paragraphs_wrap_to_the_width() {
    let text = "one two three four five six seven eight nine ten eleven twelve";
    assert_eq!(
        plain(text),
        "one two three four five six seven eight\nnine ten eleven twelve\n"
    );
}

#[test]
fn links_show_their_url_unless_it_is_the_text() {
    assert_eq!(
        plain("[docs](https://x.y/d) and <https://x.y>"),
        "docs (https://x.y/d) and https://x.y\n"
    );
    assert_eq!(plain("mail <a@b.c>"), "mail a@b.c\n");
    assert_eq!(plain("![logo](l.png)"), "[image: logo] (l.png)\n");
}

#[test]
fn lists_nest_with_hanging_indent_and_numbers() {
    let text = "- one two three four five six seven eight nine ten\n  - inner\n- [x] done\n- [ ] todo\n\n3. three\n4. four";
    assert_eq!(
        plain(text),
        "• one two three four five six seven\n  eight nine ten\n  ◦ inner\n• [x] done\n• [ ] todo\n\n3. three\n4. four\n"
    );
}

#[test]
fn loose_lists_keep_their_blank_lines() {
    assert_eq!(plain("- a\n\n- b\n\n  more"), "• a\n\n• b\n\n  more\n");
}

#[test]
fn quotes_rules_and_code() {
    assert_eq!(plain("> quoted\n>\n> two"), "│ quoted\n│\n│ two\n");
    assert_eq!(
        plain("a\n\n---\n\nb"),
        format!("a\n\n{}\n\nb\n", "─".repeat(40))
    );
    assert_eq!(
        plain("```rust\nfn main() {}\n\n}\n```\n\n    indented"),
        "  rust\n    fn main() {}\n\n    }\n\n    indented\n"
    );
    assert!(colored("```rust\nlet x = 1;\n```").contains("\u{1b}[35mlet\u{1b}[0m"));
}

#[test]
fn tables_align_or_fall_back_to_records() {
    let text = "| Name | Size |\n|:-----|-----:|\n| a | 1 |\n| bbbb | 200 |";
    assert_eq!(
        plain(text),
        "Name  Size\n────  ────\na        1\nbbbb   200\n"
    );
    let wide = "| Key | Description |\n|---|---|\n| a | a description long enough to overflow forty columns |";
    assert_eq!(
        plain(wide),
        "Key: a\nDescription: a description long enough\nto overflow forty columns\n"
    );
}

#[test]
fn html_is_shown_as_text() {
    assert_eq!(
        plain("<div>\n<b>x</b>\n</div>"),
        "<div>\n<b>x</b>\n</div>\n"
    );
    assert_eq!(plain("a <b>bold</b> c"), "a <b>bold</b> c\n");
}

fn streamed(text: &str, step: usize) -> (Vec<String>, String) {
    let options = MarkdownOptions {
        color: false,
        width: 40,
    };
    let mut stream = MarkdownStream::new(options);
    let mut pieces = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    for chunk in chars.chunks(step) {
        pieces.push(stream.push(&chunk.iter().collect::<String>()));
    }
    pieces.push(stream.finish());
    let whole = pieces.concat();
    (pieces, whole)
}

#[test]
fn stream_shows_blocks_as_they_complete() {
    let mut stream = MarkdownStream::new(MarkdownOptions {
        color: false,
        width: 40,
    });
    assert_eq!(stream.push("# Head"), "");
    assert_eq!(stream.push("ing\nSome "), "Heading\n=======\n");
    assert_eq!(stream.push("text\n"), "");
    assert_eq!(stream.push("\nNext"), "");
    assert_eq!(
        stream.push("\n```py\nx = 1\n"),
        "\nSome text\n\nNext\n\n  py\n    x = 1\n"
    );
    assert_eq!(stream.push("y = 2"), "");
    assert_eq!(stream.push("\n```\n- a\n\n"), "    y = 2\n");
    assert_eq!(stream.push("- b\n\nend"), "");
    assert_eq!(stream.finish(), "\n• a\n\n• b\n\nend\n");
}

#[test]
fn stream_does_not_cut_inside_lists_or_html_blocks() {
    let text = "- a\n\n- b\n\n<!-- x\n\ny -->\n\n1. one\n\n2. two\n";
    let (pieces, whole) = streamed(text, 1);
    assert_eq!(whole, plain(text));
    assert!(
        pieces.iter().any(|p| p.contains("• a\n\n• b")),
        "{pieces:?}"
    );
}

#[test]
fn stream_handles_carriage_returns_split_across_deltas() {
    let text = "a\r\n\r\nb\r\r```\rcode\r\n```";
    for step in 1..4 {
        assert_eq!(streamed(text, step).1, plain(text));
    }
    assert_eq!(plain(text), "a\n\nb\n\n    code\n");
}

#[test]
fn stream_fence_strips_the_opening_indent_like_the_parser() {
    let text = "  ```\n\tx\n    y\n z\n  ```\nafter\n";
    assert_eq!(streamed(text, 1).1, plain(text));
    assert_eq!(streamed(text, 1).1, "      x\n      y\n    z\n\nafter\n");
}

#[test]
fn unclosed_fence_runs_to_the_end() {
    let text = "```sh\necho hi\nls";
    assert_eq!(streamed(text, 2).1, plain(text));
    assert_eq!(plain(text), "  sh\n    echo hi\n    ls\n");
}

#[test]
fn stream_carries_link_definitions_to_later_chunks() {
    let text = "[docs]: https://d.example\n\nsee [the docs][docs] and [Docs]\n";
    let whole = streamed(text, 3).1;
    assert_eq!(whole, plain(text));
    assert_eq!(
        whole,
        "see the docs (https://d.example) and\nDocs (https://d.example)\n"
    );
}

#[test]
fn long_blocks_that_fail_checks_still_render_the_same() {
    // A `<pre>` block runs over blank lines to `</pre>`: every blank line
    // is a candidate cut that fails, past the back-off threshold.
    let mut text = String::from("<pre>\n");
    for n in 0..800 {
        text.push_str(&format!("line {n}\n\n"));
    }
    text.push_str("</pre>\n\nafter\n\n- a\n\n- b\n\n      ```\n  x\n\n");
    // Checks back off until the text doubles, then output resumes.
    for n in 0..800 {
        text.push_str(&format!("para {n}\n\n"));
    }
    let (pieces, whole) = streamed(&text, 7);
    assert_eq!(whole, plain(&text));
    let before_finish = &pieces[..pieces.len() - 1];
    assert!(
        before_finish.iter().any(|p| p.contains("after")),
        "shown before the end"
    );
}
