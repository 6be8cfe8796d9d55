//! Tables: aligned columns under a bold header and a rule when they fit
//! the width, otherwise one record per row (`header: value` lines), which
//! stays readable however narrow the screen.

use pulldown_cmark::Alignment;

use super::inline::{Inline, line_width, paint};
use crate::style::Style;

/// A table being collected, cell by cell.
#[derive(Debug, Default)]
pub(super) struct Table {
    pub(super) aligns: Vec<Alignment>,
    pub(super) header: Vec<Inline>,
    pub(super) rows: Vec<Vec<Inline>>,
    pub(super) in_header: bool,
}

impl Table {
    pub(super) fn new(aligns: Vec<Alignment>) -> Table {
        Table {
            aligns,
            ..Table::default()
        }
    }

    pub(super) fn start_row(&mut self) {
        self.rows.push(Vec::new());
    }

    pub(super) fn push_cell(&mut self, cell: Inline) {
        match self.rows.last_mut() {
            Some(row) if !self.in_header => row.push(cell),
            _ => self.header.push(cell),
        }
    }

    /// The table's lines (painted, without the container prefix), laid out
    /// in at most `max` columns (0: no limit).
    pub(super) fn render(&self, max: usize, color: bool) -> Vec<String> {
        let columns = self
            .aligns
            .len()
            .max(self.header.len())
            .max(self.rows.iter().map(Vec::len).max().unwrap_or(0));
        let cell_line = |cell: Option<&Inline>, style: Style| {
            let mut pieces = cell.map(|c| c.wrap(0)).unwrap_or_default().concat();
            for (_, s) in &mut pieces {
                *s = s.merge(style);
            }
            pieces
        };
        let header: Vec<_> = (0..columns)
            .map(|i| cell_line(self.header.get(i), Style::bold()))
            .collect();
        let rows: Vec<Vec<_>> = self
            .rows
            .iter()
            .map(|row| {
                (0..columns)
                    .map(|i| cell_line(row.get(i), Style::PLAIN))
                    .collect()
            })
            .collect();
        let mut widths = vec![0; columns];
        for row in std::iter::once(&header).chain(&rows) {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(line_width(cell));
            }
        }
        let total = widths.iter().sum::<usize>() + 2 * columns.saturating_sub(1);
        if max > 0 && total > max {
            return self.records(&header, &rows, max, color);
        }
        let mut out = Vec::with_capacity(rows.len() + 2);
        out.push(self.grid_row(&header, &widths, color));
        let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
        out.push(Style::dim().paint(&rule.join("  "), color));
        for row in &rows {
            out.push(self.grid_row(row, &widths, color));
        }
        out
    }

    fn grid_row(&self, row: &[Vec<(String, Style)>], widths: &[usize], color: bool) -> String {
        let mut out = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            let gap = w - line_width(cell);
            let (left, right) = match self.aligns.get(i) {
                Some(Alignment::Right) => (gap, 0),
                Some(Alignment::Center) => (gap / 2, gap - gap / 2),
                _ => (0, gap),
            };
            if i > 0 {
                out.push_str("  ");
            }
            out.push_str(&" ".repeat(left));
            out.push_str(&paint(cell, color));
            out.push_str(&" ".repeat(right));
        }
        out.trim_end_matches(' ').to_owned()
    }

    /// One block per row: each non-empty cell as `header: value`, wrapped.
    fn records(
        &self,
        header: &[Vec<(String, Style)>],
        rows: &[Vec<Vec<(String, Style)>>],
        max: usize,
        color: bool,
    ) -> Vec<String> {
        let mut out = Vec::new();
        for (n, row) in rows.iter().enumerate() {
            if n > 0 {
                out.push(String::new());
            }
            for (i, cell) in row.iter().enumerate() {
                if cell.is_empty() {
                    continue;
                }
                let mut record = Inline::default();
                if let Some(name) = header.get(i).filter(|h| !h.is_empty()) {
                    for (text, style) in name {
                        record.text(text, *style);
                    }
                    record.text(":", Style::bold());
                    record.space(Style::PLAIN);
                }
                for (text, style) in cell {
                    record.text(text, *style);
                }
                out.extend(record.wrap(max).iter().map(|l| paint(l, color)));
            }
        }
        out
    }
}
