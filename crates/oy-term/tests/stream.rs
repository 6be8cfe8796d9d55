//! Streaming a Markdown answer in arbitrary pieces renders exactly what a
//! single pass over the whole text renders, for several sample documents,
//! with colour on and off and at several widths.

mod common;

use common::SAMPLES;
use oy_term::{MarkdownOptions, MarkdownStream, render_markdown};
use proptest::prelude::*;

/// Pushes `text` cut at the given character positions, then finishes.
fn streamed(text: &str, cuts: &[usize], options: MarkdownOptions) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (chars.len() + 1)).collect();
    points.push(0);
    points.push(chars.len());
    points.sort_unstable();
    points.dedup();
    let mut stream = MarkdownStream::new(options);
    let mut out = String::new();
    for pair in points.windows(2) {
        let piece: String = chars[pair[0]..pair[1]].iter().collect();
        out.push_str(&stream.push(&piece));
    }
    out.push_str(&stream.finish());
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn stream_equals_whole(
        sample in 0..SAMPLES.len(),
        cuts in proptest::collection::vec(any::<usize>(), 0..60),
        color in any::<bool>(),
        width in prop_oneof![Just(0u16), Just(40u16), Just(80u16), 10u16..120],
    ) {
        let text = SAMPLES[sample];
        let options = MarkdownOptions { color, width };
        prop_assert_eq!(streamed(text, &cuts, options), render_markdown(text, options));
    }

    #[test]
    fn stream_equals_whole_for_each_line_and_character(sample in 0..SAMPLES.len()) {
        let text = SAMPLES[sample];
        let options = MarkdownOptions { color: true, width: 60 };
        let every: Vec<usize> = (0..text.chars().count()).collect();
        prop_assert_eq!(streamed(text, &every, options), render_markdown(text, options));
    }

    /// Random Markdown-ish text made of the constructs that interact at
    /// block boundaries (link reference definitions left out: one used
    /// before it is defined is the documented difference).
    #[test]
    fn stream_equals_whole_on_generated_text(
        lines in proptest::collection::vec(prop_oneof![
            Just(""), Just("text"), Just("- item"), Just("  indented"), Just("1. one"),
            Just("2) two"), Just("> quote"), Just("```"), Just("~~~"), Just("```rust"),
            Just("    code"), Just("# head"), Just("---"), Just("==="), Just("***"),
            Just("<div>"), Just("<!--"), Just("-->"), Just("| a | b |"), Just("|---|---|"),
            Just("\t tab"), Just("  ```"), Just("* star"), Just("- [ ] task"),
            Just("  - nested"), Just(">"), Just("> ```"), Just("<pre>"), Just("</pre>"),
            Just("hard  "), Just("``` `x`"), Just("````"), Just("   ~~~ py"), Just("- - -"),
            Just("#nospace"), Just("   # h"), Just("+ plus"), Just("\t```"), Just("   "),
        ], 0..40),
        cuts in proptest::collection::vec(any::<usize>(), 0..30),
    ) {
        let text = lines.join("\n");
        let options = MarkdownOptions { color: false, width: 30 };
        prop_assert_eq!(streamed(&text, &cuts, options), render_markdown(&text, options));
    }
}
