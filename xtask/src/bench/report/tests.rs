//! The report's rows, verdicts and Markdown, on made-up figures.

use super::*;

fn report(sections: Vec<Section>) -> Report {
    Report {
        command: "cargo xtask bench".to_owned(),
        quick: false,
        machine: Machine {
            date: "2025-01-02".to_owned(),
            cpu: "Test CPU | 4 GHz".to_owned(),
            load_start: "1.00 1.00 1.00".to_owned(),
            load_end: "2.00 2.00 2.00".to_owned(),
            ..Machine::default()
        },
        sections,
    }
}

fn section(rows: Vec<Row>) -> Section {
    Section {
        title: "Tool primitives".to_owned(),
        about: "What is measured.".to_owned(),
        rows,
        ..Section::default()
    }
}

#[test]
fn ratio_goal_met_and_missed() {
    let row = Row::measured("search", Figure::ms(81.0, 79.0))
        .against("rg", Figure::ms(98.0, 95.0))
        .goal(Goal::RatioAtMost(1.2));
    assert_eq!(row.met(), Some(true));
    assert_eq!(row.ratio().map(ratio_text).as_deref(), Some("0.83×"));
    let row = Row::measured("sloc", Figure::ms(12.0, 11.0))
        .against("tokei", Figure::ms(10.0, 9.0))
        .goal(Goal::RatioAtMost(1.0));
    assert_eq!(row.met(), Some(false));
    // Exactly at the goal is within it.
    let row = Row::measured("list", Figure::ms(11.0, 10.0))
        .against("rg --files", Figure::ms(10.0, 9.0))
        .goal(Goal::RatioAtMost(1.1));
    assert_eq!(row.met(), Some(true));
}

#[test]
fn absolute_and_added_goals() {
    let version = Row::measured("oy --version", Figure::ms(2.5, 2.1)).goal(Goal::Below(10.0));
    assert_eq!(version.met(), Some(true));
    let rss = Row::measured("peak RSS", Figure::median(41.0, Unit::MiB)).goal(Goal::Below(40.0));
    assert_eq!(rss.met(), Some(false));
    let sandbox = Row::measured("sandbox", Figure::ms(16.4, 15.0))
        .against("sandbox off", Figure::ms(14.5, 14.0))
        .goal(Goal::AddedMsAtMost(5.0));
    assert_eq!(sandbox.met(), Some(true));
    assert_eq!(sandbox.cells()[4], "1.13× (+1.90 ms)");
    assert_eq!(sandbox.cells()[5], "≤ +5 ms");
    let slow = Row::measured("sandbox", Figure::ms(26.0, 25.0))
        .against("sandbox off", Figure::ms(14.5, 14.0))
        .goal(Goal::AddedMsAtMost(5.0));
    assert_eq!(slow.met(), Some(false));
}

#[test]
fn a_row_without_goal_or_anchor_has_no_verdict() {
    let row = Row::measured("wall", Figure::ms(25.0, 23.0));
    assert_eq!(row.met(), None);
    assert_eq!(row.ratio(), None);
    assert_eq!(
        row.cells(),
        ["wall", "25.0 ms (23.0)", "—", "—", "—", "—", "—"].map(str::to_owned)
    );
}

#[test]
fn a_skipped_anchor_yields_a_skipped_cell_and_no_verdict() {
    let row = Row::measured("audit collection", Figure::ms(850.0, 820.0))
        .anchor_skipped("code2prompt", "code2prompt is not on PATH")
        .goal(Goal::RatioAtMost(1.0));
    assert_eq!(row.met(), None);
    let cells = row.cells();
    assert_eq!(cells[2], "code2prompt");
    assert_eq!(cells[3], "skipped: code2prompt is not on PATH");
    assert_eq!(cells[4], "—");
    assert_eq!(cells[6], "—");
    let md = report(vec![section(vec![row])]).markdown();
    assert!(
        md.contains(
            "| audit collection | 850 ms (820) | code2prompt | skipped: code2prompt is not on \
             PATH | — | ≤ 1× | — |"
        ),
        "{md}"
    );
}

#[test]
fn a_skipped_row_says_why_in_the_table_and_on_the_terminal() {
    let row = Row::skipped("search literal", "rg is not on PATH");
    assert_eq!(row.met(), None);
    assert_eq!(row.text(), "search literal: skipped: rg is not on PATH");
    let md = report(vec![section(vec![row])]).markdown();
    assert!(
        md.contains("| search literal | skipped: rg is not on PATH | — | — | — | — | — |"),
        "{md}"
    );
}

#[test]
fn milliseconds_keep_sensible_digits() {
    assert_eq!(ms_text(0.4123), "0.412");
    assert_eq!(ms_text(2.456), "2.46");
    assert_eq!(ms_text(45.34), "45.3");
    assert_eq!(ms_text(1234.4), "1234");
    assert_eq!(ratio_text(1.0), "1.00×");
    assert_eq!(ratio_text(12.345), "12.35×");
}

#[test]
fn other_units_and_goals_are_named() {
    let cpu = Row::measured("CPU", Figure::median(0.2104, Unit::Seconds)).goal(Goal::Below(0.35));
    assert_eq!(cpu.cells()[1], "0.210 s");
    assert_eq!(cpu.cells()[5], "< 0.35 s");
    let bytes = Row::measured("bytes", Figure::median(8123.4, Unit::Bytes));
    assert_eq!(bytes.cells()[1], "8123 B");
    let missed =
        Row::measured("peak RSS", Figure::median(41.25, Unit::MiB)).goal(Goal::Below(40.0));
    assert_eq!(missed.cells()[1], "41.2 MiB");
    assert_eq!(missed.cells()[5], "< 40 MiB");
    assert_eq!(missed.cells()[6], "**no**");
    assert_eq!(missed.text(), "peak RSS: oy 41.2 MiB (goal < 40 MiB: no)");
}

#[test]
fn terminal_line_names_anchor_ratio_and_verdict() {
    let row = Row::measured("search literal", Figure::ms(81.04, 79.2))
        .against("rg", Figure::ms(98.0, 95.1))
        .goal(Goal::RatioAtMost(1.2));
    assert_eq!(
        row.text(),
        "search literal: oy 81.0 ms (79.2), rg 98.0 ms (95.1), ratio 0.83× (goal ≤ 1.2×: yes)"
    );
}

#[test]
fn markdown_has_the_header_machine_sections_and_escapes_cells() {
    let mut tools = section(vec![
        Row::measured("search", Figure::ms(81.0, 79.0))
            .against("rg", Figure::ms(98.0, 95.0))
            .goal(Goal::RatioAtMost(1.2)),
    ]);
    tools.notes.push("9 interleaved runs per side".to_owned());
    tools
        .verbatim
        .push("search  fastest │ slowest\n".to_owned());
    let skipped = Section {
        title: "Audit".to_owned(),
        outcome: Some("failed: cargo build | exited 101\nsecond line".to_owned()),
        ..Section::default()
    };
    let md = report(vec![tools, skipped]).markdown();
    assert!(md.starts_with("# Benchmarks\n\n<!-- Generated by `cargo xtask bench`"));
    assert!(md.contains("on 2025-01-02."), "{md}");
    assert!(md.contains("| CPU | Test CPU \\| 4 GHz |"), "{md}");
    assert!(
        md.contains("| load average | 1.00 1.00 1.00 (1, 5, 15 min) at the start, 2.00 2.00 2.00 at the end |"),
        "{md}"
    );
    assert!(
        md.contains(
            "## Tool primitives\n\nWhat is measured.\n\n| what | oy median (min) | anchor |"
        ),
        "{md}"
    );
    assert!(
        md.contains("| --- | --- | --- | --- | --- | --- | --- |"),
        "{md}"
    );
    assert!(
        md.contains("| search | 81.0 ms (79.0) | rg | 98.0 ms (95.0) | 0.83× | ≤ 1.2× | yes |"),
        "{md}"
    );
    assert!(md.contains("\n- 9 interleaved runs per side\n"), "{md}");
    assert!(
        md.contains("```text\nsearch  fastest │ slowest\n```"),
        "{md}"
    );
    assert!(
        md.contains("## Audit\n\nfailed: cargo build \\| exited 101 second line\n"),
        "{md}"
    );
    assert!(!md.contains("quick run"), "{md}");
}

#[test]
fn a_quick_run_says_so() {
    let mut quick = report(Vec::new());
    quick.quick = true;
    assert!(quick.markdown().contains("a quick run"));
}

#[test]
fn verdicts_count_met_missed_unjudged_and_skipped() {
    let rows = vec![
        Row::measured("search", Figure::ms(81.0, 79.0))
            .against("rg", Figure::ms(98.0, 95.0))
            .goal(Goal::RatioAtMost(1.2)),
        Row::measured("list", Figure::ms(20.0, 19.0))
            .against("rg --files", Figure::ms(10.0, 9.0))
            .goal(Goal::RatioAtMost(1.1)),
        Row::measured("audit", Figure::ms(850.0, 820.0))
            .anchor_skipped("code2prompt", "not on PATH")
            .goal(Goal::RatioAtMost(1.0)),
        Row::measured("wall", Figure::ms(25.0, 23.0)),
        Row::skipped("sloc", "tokei is not on PATH"),
    ];
    let failed = Section {
        title: "Sandbox".to_owned(),
        outcome: Some("failed: no".to_owned()),
        ..Section::default()
    };
    let report = report(vec![section(rows), failed]);
    assert_eq!(
        report.verdicts(),
        "Goals: **1 met, 1 missed** (list), 1 not judged for want of an anchor; 2 skipped \
         or failed (said where they stand)."
    );
    assert!(report.markdown().contains(&report.verdicts()));
    let all_met = report_of_one_met();
    assert_eq!(all_met.verdicts(), "Goals: **1 met, 0 missed**.");
}

fn report_of_one_met() -> Report {
    report(vec![section(vec![
        Row::measured("oy --version", Figure::ms(2.5, 2.1)).goal(Goal::Below(10.0)),
    ])])
}

#[test]
fn verbatim_blocks_follow_the_text_after_one_blank_line() {
    let mut divan = section(Vec::new());
    divan.verbatim.push("a table".to_owned());
    divan.verbatim.push("another".to_owned());
    let md = report(vec![divan]).markdown();
    assert!(
        md.contains("What is measured.\n\n```text\na table\n```\n\n```text\nanother\n```\n"),
        "{md}"
    );
}
