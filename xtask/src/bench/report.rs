//! What a benchmark section measured, as data: rows of oy's figure against
//! an anchor's with a goal, printed as they come and rendered at the end as
//! the Markdown of `docs/benchmarks.md` (with the machine from `machine.rs`).

use std::fmt::Write as _;

use super::machine::Machine;

/// The unit of a figure; every one of them is better when lower.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Unit {
    Ms,
    Seconds,
    MiB,
    Bytes,
}

/// A measured value: the median of the runs and, when kept, their minimum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Figure {
    pub(crate) median: f64,
    pub(crate) min: Option<f64>,
    pub(crate) unit: Unit,
}

impl Figure {
    pub(crate) fn ms(median: f64, min: f64) -> Self {
        Self {
            median,
            min: Some(min),
            unit: Unit::Ms,
        }
    }

    /// A median without a minimum, in `unit`.
    pub(crate) fn median(median: f64, unit: Unit) -> Self {
        Self {
            median,
            min: None,
            unit,
        }
    }
}

/// What a row is held to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Goal {
    None,
    /// oy's median at most this many times the anchor's.
    RatioAtMost(f64),
    /// oy's median below this, in the figure's unit.
    Below(f64),
    /// oy's median at most this many milliseconds above the anchor's.
    AddedMsAtMost(f64),
}

/// The other side of a row.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Anchor {
    None,
    Skipped { name: String, reason: String },
    Measured { name: String, figure: Figure },
}

/// One line of a section's table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    pub(crate) what: String,
    pub(crate) outcome: Outcome,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Outcome {
    /// Nothing was measured (a missing anchor that the oy side needs too).
    Skipped(String),
    Measured {
        oy: Figure,
        anchor: Anchor,
        goal: Goal,
    },
}

impl Row {
    pub(crate) fn measured(what: impl Into<String>, oy: Figure) -> Self {
        Self {
            what: what.into(),
            outcome: Outcome::Measured {
                oy,
                anchor: Anchor::None,
                goal: Goal::None,
            },
        }
    }

    pub(crate) fn skipped(what: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            what: what.into(),
            outcome: Outcome::Skipped(reason.into()),
        }
    }

    pub(crate) fn against(mut self, name: impl Into<String>, figure: Figure) -> Self {
        if let Outcome::Measured { anchor, .. } = &mut self.outcome {
            *anchor = Anchor::Measured {
                name: name.into(),
                figure,
            };
        }
        self
    }

    pub(crate) fn anchor_skipped(
        mut self,
        name: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        if let Outcome::Measured { anchor, .. } = &mut self.outcome {
            *anchor = Anchor::Skipped {
                name: name.into(),
                reason: reason.into(),
            };
        }
        self
    }

    pub(crate) fn goal(mut self, new: Goal) -> Self {
        if let Outcome::Measured { goal, .. } = &mut self.outcome {
            *goal = new;
        }
        self
    }

    /// oy's median over the anchor's, when both were measured.
    pub(crate) fn ratio(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Measured {
                oy,
                anchor: Anchor::Measured { figure, .. },
                ..
            } => Some(oy.median / figure.median.max(1e-9)),
            _ => None,
        }
    }

    /// Whether the goal was met; `None` without a goal or the figures it needs.
    pub(crate) fn met(&self) -> Option<bool> {
        let Outcome::Measured {
            oy, anchor, goal, ..
        } = &self.outcome
        else {
            return None;
        };
        let anchor = match anchor {
            Anchor::Measured { figure, .. } => Some(figure.median),
            _ => None,
        };
        match *goal {
            Goal::None => None,
            Goal::Below(limit) => Some(oy.median < limit),
            Goal::RatioAtMost(most) => self.ratio().map(|ratio| ratio <= most),
            Goal::AddedMsAtMost(most) => anchor.map(|theirs| oy.median - theirs <= most),
        }
    }

    /// The cells of the Markdown table, in the order of [`HEADER`].
    fn cells(&self) -> [String; 7] {
        let dash = || "—".to_owned();
        let (oy, anchor, goal) = match &self.outcome {
            Outcome::Skipped(reason) => {
                return [
                    self.what.clone(),
                    format!("skipped: {reason}"),
                    dash(),
                    dash(),
                    dash(),
                    dash(),
                    dash(),
                ];
            }
            Outcome::Measured { oy, anchor, goal } => (oy, anchor, goal),
        };
        let (name, theirs) = match anchor {
            Anchor::None => (dash(), dash()),
            Anchor::Skipped { name, reason } => (name.clone(), format!("skipped: {reason}")),
            Anchor::Measured { name, figure } => (name.clone(), figure_text(figure)),
        };
        let ratio = match (self.ratio(), anchor, goal) {
            (Some(ratio), Anchor::Measured { figure, .. }, Goal::AddedMsAtMost(_)) => format!(
                "{} ({})",
                ratio_text(ratio),
                added_text(oy.median - figure.median)
            ),
            (Some(ratio), _, _) => ratio_text(ratio),
            (None, _, _) => dash(),
        };
        let met = match self.met() {
            Some(true) => "yes".to_owned(),
            Some(false) => "**no**".to_owned(),
            None => dash(),
        };
        [
            self.what.clone(),
            figure_text(oy),
            name,
            theirs,
            ratio,
            goal_text(*goal, oy.unit),
            met,
        ]
    }

    /// One line for the terminal, printed as the row is measured.
    pub(crate) fn text(&self) -> String {
        let [what, oy, name, theirs, ratio, goal, met] = self.cells();
        if let Outcome::Skipped(_) = self.outcome {
            return format!("{what}: {oy}");
        }
        let mut line = format!("{what}: oy {oy}");
        if name != "—" {
            let _ = write!(line, ", {name} {theirs}");
        }
        if ratio != "—" {
            let _ = write!(line, ", ratio {ratio}");
        }
        if goal != "—" {
            let met = met.trim_matches('*');
            let _ = write!(line, " (goal {goal}: {met})");
        }
        line
    }
}

/// One section of the report: a title, what it measures, its rows, notes
/// under the table and verbatim blocks (the divan tables).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Section {
    pub(crate) title: String,
    pub(crate) about: String,
    pub(crate) rows: Vec<Row>,
    pub(crate) notes: Vec<String>,
    pub(crate) verbatim: Vec<String>,
    /// Set when nothing in the section ran: "skipped: …" or "failed: …".
    pub(crate) outcome: Option<String>,
}

impl Section {
    /// A new section; its title goes to stdout at once.
    pub(crate) fn start(title: &str, about: impl Into<String>) -> Self {
        println!("\n== {title} ==");
        Self {
            title: title.to_owned(),
            about: about.into(),
            ..Self::default()
        }
    }

    /// Adds a row and prints it.
    pub(crate) fn push(&mut self, row: Row) {
        println!("{}", row.text());
        self.rows.push(row);
    }

    /// Adds a note under the table and prints it.
    pub(crate) fn note(&mut self, note: impl Into<String>) {
        let note = note.into();
        println!("  {note}");
        self.notes.push(note);
    }

    /// A section that did not run, with why ("skipped: …", "failed: …").
    pub(crate) fn not_run(title: &str, outcome: String) -> Self {
        println!("\n== {title} ==\n{outcome}");
        Self {
            title: title.to_owned(),
            outcome: Some(outcome),
            ..Self::default()
        }
    }
}

/// A whole run, ready to be written.
pub(crate) struct Report {
    pub(crate) command: String,
    pub(crate) quick: bool,
    pub(crate) machine: Machine,
    pub(crate) sections: Vec<Section>,
}

const HEADER: [&str; 7] = [
    "what",
    "oy median (min)",
    "anchor",
    "anchor median (min)",
    "ratio",
    "goal",
    "met?",
];

impl Report {
    /// `docs/benchmarks.md`.
    pub(crate) fn markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# Benchmarks\n");
        let _ = writeln!(
            md,
            "<!-- Generated by `{}`: do not edit by hand, run it again. -->\n",
            self.command
        );
        let _ = writeln!(
            md,
            "Generated by `{}` on {}{}. Times are the wall time of whole processes in \
             milliseconds: the median of the timed runs, and their minimum in brackets. \
             Each anchor ran in the same run on the same input, interleaved with oy where \
             the section says so; the ratio is oy's median over the anchor's. A missed goal \
             is reported, never enforced.\n",
            self.command,
            self.machine.date,
            if self.quick {
                " (a quick run: fewer rounds, rougher figures)"
            } else {
                ""
            },
        );
        let _ = writeln!(md, "{}\n", self.verdicts());
        md.push_str("## Machine\n\n| | |\n| --- | --- |\n");
        for (name, value) in self.machine.facts() {
            let _ = writeln!(md, "| {name} | {} |", cell(&value));
        }
        for section in &self.sections {
            let _ = writeln!(md, "\n## {}\n", section.title);
            if let Some(outcome) = &section.outcome {
                let _ = writeln!(md, "{}", cell(outcome));
                continue;
            }
            if !section.about.is_empty() {
                let _ = writeln!(md, "{}\n", section.about);
            }
            if !section.rows.is_empty() {
                table_line(&mut md, HEADER.map(str::to_owned));
                table_line(&mut md, HEADER.map(|_| "---".to_owned()));
                for row in &section.rows {
                    table_line(&mut md, row.cells());
                }
            }
            if !section.notes.is_empty() {
                md.push('\n');
                for note in &section.notes {
                    let _ = writeln!(md, "- {note}");
                }
            }
            for block in &section.verbatim {
                if !md.ends_with("\n\n") {
                    md.push('\n');
                }
                let _ = writeln!(md, "```text\n{}\n```", block.trim_end());
            }
        }
        md
    }
}

impl Report {
    /// One sentence on the goals of every row: met, missed (named), not
    /// judged for want of a figure, and rows or sections that did not run.
    pub(crate) fn verdicts(&self) -> String {
        let (mut met, mut missed, mut unjudged, mut skipped) = (0, Vec::new(), 0, 0);
        for section in &self.sections {
            if section.outcome.is_some() {
                skipped += 1;
            }
            for row in &section.rows {
                match (&row.outcome, row.met()) {
                    (Outcome::Skipped(_), _) => skipped += 1,
                    (_, Some(true)) => met += 1,
                    (_, Some(false)) => missed.push(row.what.clone()),
                    (Outcome::Measured { goal, .. }, None) if *goal != Goal::None => unjudged += 1,
                    _ => {}
                }
            }
        }
        let mut text = format!("Goals: **{met} met, {} missed**", missed.len());
        if !missed.is_empty() {
            let _ = write!(text, " ({})", missed.join("; "));
        }
        if unjudged > 0 {
            let _ = write!(text, ", {unjudged} not judged for want of an anchor");
        }
        if skipped > 0 {
            let _ = write!(
                text,
                "; {skipped} skipped or failed (said where they stand)"
            );
        }
        text.push('.');
        text
    }
}

fn table_line(md: &mut String, cells: [String; 7]) {
    let cells: Vec<String> = cells.iter().map(|text| cell(text)).collect();
    let _ = writeln!(md, "| {} |", cells.join(" | "));
}

/// Text made safe for one table cell: no pipes, no line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Milliseconds with the digits that mean something at that size.
pub(crate) fn ms_text(ms: f64) -> String {
    match ms.abs() {
        value if value < 1.0 => format!("{ms:.3}"),
        value if value < 10.0 => format!("{ms:.2}"),
        value if value < 100.0 => format!("{ms:.1}"),
        _ => format!("{ms:.0}"),
    }
}

fn value_text(value: f64, unit: Unit) -> String {
    let name = unit_name(unit);
    match unit {
        Unit::Ms => format!("{} {name}", ms_text(value)),
        Unit::Seconds => format!("{value:.3} {name}"),
        Unit::MiB => format!("{value:.1} {name}"),
        Unit::Bytes => format!("{value:.0} {name}"),
    }
}

fn unit_name(unit: Unit) -> &'static str {
    match unit {
        Unit::Ms => "ms",
        Unit::Seconds => "s",
        Unit::MiB => "MiB",
        Unit::Bytes => "B",
    }
}

fn figure_text(figure: &Figure) -> String {
    let median = value_text(figure.median, figure.unit);
    match (figure.min, figure.unit) {
        (Some(min), Unit::Ms) => format!("{median} ({})", ms_text(min)),
        (Some(min), unit) => format!("{median} ({})", value_text(min, unit)),
        (None, _) => median,
    }
}

pub(crate) fn ratio_text(ratio: f64) -> String {
    format!("{ratio:.2}×")
}

fn added_text(ms: f64) -> String {
    let sign = if ms < 0.0 { "−" } else { "+" };
    format!("{sign}{} ms", ms_text(ms.abs()))
}

fn goal_text(goal: Goal, unit: Unit) -> String {
    match goal {
        Goal::None => "—".to_owned(),
        Goal::RatioAtMost(most) => format!("≤ {most}×"),
        Goal::Below(limit) => format!("< {limit} {}", unit_name(unit)),
        Goal::AddedMsAtMost(most) => format!("≤ +{most} ms"),
    }
}

#[cfg(test)]
mod tests;
