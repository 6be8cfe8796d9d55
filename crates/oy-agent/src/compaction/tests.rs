//! Invariants of compaction over random transcripts: pairing holds, the
//! task and the latest unit survive untouched, the weight never grows, and
//! every cut output keeps its original text.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests fail loudly on broken fixtures"
)]

use oy_provider::{Event, ProviderError, ScriptedProvider, ScriptedReply, ToolCall};
use proptest::prelude::*;

use super::*;

/// One unit of a random transcript.
#[derive(Debug, Clone)]
enum Unit {
    User(usize),
    Summary(usize),
    /// Assistant text (if any) and, per call: output size, whether it
    /// failed, whether error lines are buried in it, whether the tool
    /// already cut it (a `full_text` present before compaction).
    Tools {
        text: Option<usize>,
        calls: Vec<(usize, bool, bool, bool)>,
    },
}

fn unit() -> impl Strategy<Value = Unit> {
    prop_oneof![
        1 => (0usize..400).prop_map(Unit::User),
        1 => (0usize..400).prop_map(Unit::Summary),
        6 => (
            proptest::option::of(0usize..300),
            proptest::collection::vec(
                (0usize..12_000, any::<bool>(), any::<bool>(), any::<bool>()),
                0..4,
            ),
        )
            .prop_map(|(text, calls)| Unit::Tools { text, calls }),
    ]
}

/// Text of about `size` bytes in lines, some of them error lines.
fn output(size: usize, errors: bool, seed: usize) -> String {
    let mut text = String::new();
    let mut line = 0;
    while text.len() < size {
        if errors && line % 17 == 5 {
            text.push_str(&format!("error[E{seed:04}]: something failed at {line}\n"));
        } else {
            text.push_str(&format!("{seed}:{line} ordinary output line ÿ\n"));
        }
        line += 1;
    }
    text
}

fn transcript(task: usize, units: &[Unit]) -> Transcript {
    let mut entries = vec![Entry::User {
        text: "t".repeat(task),
    }];
    let mut next = 0;
    for unit in units {
        match unit {
            Unit::User(size) => entries.push(Entry::User {
                text: "u".repeat(*size),
            }),
            Unit::Summary(size) => entries.push(Entry::Summary {
                text: "s".repeat(*size),
                replaced: 2,
            }),
            Unit::Tools { text, calls } => {
                let ids: Vec<String> = calls
                    .iter()
                    .map(|_| {
                        next += 1;
                        format!("call{next}")
                    })
                    .collect();
                entries.push(Entry::Assistant {
                    text: text.map(|size| "a".repeat(size)),
                    tool_calls: ids
                        .iter()
                        .map(|id| ToolCall {
                            id: id.clone(),
                            name: "read".to_owned(),
                            arguments: format!(r#"{{"path":"{id}.txt"}}"#),
                        })
                        .collect(),
                    reasoning: None,
                });
                for (id, (size, failed, errors, cut)) in ids.iter().zip(calls) {
                    let text = output(*size, *errors, next);
                    entries.push(Entry::ToolResult {
                        call_id: id.clone(),
                        tool: "read".to_owned(),
                        full_text: cut.then(|| format!("{text}[the rest the tool cut]\n")),
                        output: text,
                        is_error: *failed,
                    });
                }
            }
        }
    }
    Transcript::from_entries(entries).unwrap()
}

fn transcripts() -> impl Strategy<Value = Transcript> {
    (0usize..300, proptest::collection::vec(unit(), 0..14))
        .prop_map(|(task, units)| transcript(task, &units))
}

/// The entries of the last unit.
fn last_unit(transcript: &Transcript) -> Vec<Entry> {
    let range = transcript.units().last().cloned().unwrap_or(0..0);
    transcript.entries()[range].to_vec()
}

/// The last unit with tool outputs blanked: a window too small for it may
/// cut its outputs (checked separately), never its shape.
fn last_unit_shape(transcript: &Transcript) -> Vec<Entry> {
    last_unit(transcript)
        .into_iter()
        .map(|entry| match entry {
            Entry::ToolResult {
                call_id,
                tool,
                is_error,
                ..
            } => Entry::ToolResult {
                call_id,
                tool,
                output: String::new(),
                is_error,
                full_text: None,
            },
            other => other,
        })
        .collect()
}

/// Asserts what every compaction step must keep.
fn assert_kept(before: &Transcript, after: &Transcript) {
    after.check().unwrap();
    let task = before.task_index().unwrap();
    assert_eq!(after.task_index(), Some(task));
    assert_eq!(after.entries()[task], before.entries()[task]);
    assert_eq!(last_unit_shape(after), last_unit_shape(before));
    assert!(
        after.weight() <= before.weight(),
        "weight grew from {} to {}",
        before.weight(),
        after.weight()
    );
    // Every result still there is either untouched or cut with its
    // original kept whole.
    for entry in after.entries() {
        let Entry::ToolResult {
            call_id,
            output,
            full_text,
            ..
        } = entry
        else {
            continue;
        };
        let original = before
            .entries()
            .iter()
            .find(|old| matches!(old, Entry::ToolResult { call_id: id, .. } if id == call_id))
            .unwrap();
        if original == entry {
            continue;
        }
        let Entry::ToolResult {
            output: old_output,
            full_text: old_full,
            ..
        } = original
        else {
            unreachable!()
        };
        assert!(output.len() < old_output.len());
        assert_eq!(
            full_text.as_ref(),
            Some(old_full.as_ref().unwrap_or(old_output)),
            "a cut output lost its original"
        );
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn recent_start_is_a_unit_boundary_that_keeps_the_last_unit(
        transcript in transcripts(),
        recent in 0usize..40_000,
    ) {
        let start = recent_start(&transcript, recent);
        let units = transcript.units();
        let last = units.last().unwrap();
        prop_assert!(start <= last.start);
        prop_assert!(units.iter().any(|unit| unit.start == start));
    }

    #[test]
    fn shrinking_old_outputs_keeps_pairing_task_last_unit_and_originals(
        transcript in transcripts(),
        recent in 0usize..40_000,
    ) {
        let before = transcript.clone();
        let mut after = transcript;
        let keep_from = recent_start(&after, recent);

        let shrunk = shrink_old_outputs(&mut after, keep_from);

        assert_kept(&before, &after);
        prop_assert_eq!(after.len(), before.len());
        prop_assert_eq!(&after.entries()[keep_from..], &before.entries()[keep_from..]);
        let changed = before
            .entries()
            .iter()
            .zip(after.entries())
            .filter(|(old, new)| old != new)
            .count();
        prop_assert_eq!(shrunk, changed);
        // Shrinking again changes nothing.
        let again = after.clone();
        prop_assert_eq!(shrink_old_outputs(&mut after, keep_from), 0);
        prop_assert_eq!(after, again);
    }

    #[test]
    fn summarising_a_range_keeps_pairing_task_and_last_unit(
        transcript in transcripts(),
        recent in 0usize..40_000,
    ) {
        let before = transcript.clone();
        let mut after = transcript;
        let keep_from = recent_start(&after, recent);
        shrink_old_outputs(&mut after, keep_from);
        let shrunk = after.clone();

        if let Some(range) = summary_range(&after, keep_from) {
            let task = after.task_index().unwrap();
            prop_assert!(range.start > task);
            prop_assert!(range.end <= keep_from);
            let latest_user = after
                .entries()
                .iter()
                .rposition(|entry| matches!(entry, Entry::User { .. }));
            prop_assert!(latest_user.is_none_or(|user| !range.contains(&user)));
            prop_assert!(after.units().iter().any(|unit| unit.start == range.start));
            let replaced = range.len();
            let old_weight: usize = after.entries()[range.clone()].iter().map(Entry::weight).sum();
            replace_with_summary(&mut after, range.clone(), "x".repeat(old_weight / 2));
            prop_assert_eq!(after.len(), shrunk.len() - replaced + 1);
            let is_summary = matches!(
                &after.entries()[range.start],
                Entry::Summary { replaced: n, .. } if *n == replaced
            );
            prop_assert!(is_summary);
        }

        assert_kept(&before, &after);
    }

    #[test]
    fn the_digest_is_capped(transcript in transcripts()) {
        let text = digest(transcript.entries());
        prop_assert!(text.len() <= DIGEST_LIMIT.max_bytes + 200, "{}", text.len());
        prop_assert!(text.starts_with("Digest of earlier entries"));
    }

    #[test]
    fn compacting_keeps_the_invariants_whatever_the_summary(
        transcript in transcripts(),
        window in 1024u64..24_000,
        manual in any::<bool>(),
        summary in prop_oneof![
            Just(None),
            (0usize..6_000).prop_map(Some),
        ],
    ) {
        let before = transcript.clone();
        let mut after = transcript;
        let budget = ContextBudget::new(window, 0.85);
        let reply = match summary {
            // The summary request fails: the digest stands in.
            None => ScriptedReply::Fail(ProviderError::new(
                oy_provider::ErrorKind::Protocol,
                "no summary today",
            )),
            Some(size) => ScriptedReply::Stream(vec![Ok(Event::TextDelta {
                text: "m".repeat(size),
            })]),
        };
        let provider = ScriptedProvider::new([reply]);
        let trigger = if manual { Trigger::Manual } else { Trigger::Auto };

        let report = runtime().block_on(compact(
            &mut after,
            &budget,
            2_000,
            &provider,
            "model",
            trigger,
            &CancelToken::new(),
        ));

        assert_kept(&before, &after);
        prop_assert!(report.tokens_after <= report.tokens_before);
        let summaries = after
            .entries()
            .iter()
            .filter(|entry| matches!(entry, Entry::Summary { .. }))
            .count();
        let before_summaries = before
            .entries()
            .iter()
            .filter(|entry| matches!(entry, Entry::Summary { .. }))
            .count();
        if report.entries_summarized == 0 {
            prop_assert_eq!(report.summary_by, "none");
            prop_assert_eq!(after.len(), before.len());
        } else {
            prop_assert!(matches!(report.summary_by, "model" | "digest"));
            prop_assert!(summaries <= before_summaries + 1);
        }
    }
}

#[test]
fn shrinking_keeps_error_lines_from_the_cut_middle() {
    let text = output(20_000, true, 7);

    let short = shrink(&text);

    assert!(short.len() < text.len());
    assert!(
        short.contains("[error lines from the omitted part]"),
        "{short}"
    );
    assert!(short.contains("error[E0007]"));
}

#[test]
fn a_manual_compaction_summarises_a_short_conversation() {
    let mut transcript = transcript(
        10,
        &[
            Unit::Tools {
                text: Some(10),
                calls: vec![(100, false, false, false)],
            },
            Unit::User(20),
            Unit::Tools {
                text: Some(10),
                calls: vec![(100, false, false, false)],
            },
        ],
    );
    let provider = ScriptedProvider::new([ScriptedReply::Stream(vec![Ok(Event::TextDelta {
        text: "short".to_owned(),
    })])]);

    let report = runtime().block_on(compact(
        &mut transcript,
        &ContextBudget::new(128_000, 0.85),
        2_000,
        &provider,
        "model",
        Trigger::Manual,
        &CancelToken::new(),
    ));

    assert_eq!(report.summary_by, "model");
    // The first tool unit is summarised; the latest prompt stays verbatim.
    assert_eq!(report.entries_summarized, 2);
    assert_eq!(transcript.len(), 5);
    assert!(matches!(transcript.entries()[1], Entry::Summary { .. }));
    assert!(matches!(transcript.entries()[2], Entry::User { .. }));
    transcript.check().unwrap();
}
