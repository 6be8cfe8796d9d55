//! Signs of life on long audits: a spinner with counts while collecting
//! and a bar over chunks while reviewing on a terminal; plain lines on
//! stderr otherwise (at most one every few seconds while collecting).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use oy_audit::{CollectProgress, ReviewProgress};

use super::note;
use crate::render::{Style, terminal_safe};

/// Between two plain progress lines while collecting.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// Collection progress: a spinner on a terminal, a line every few
/// seconds otherwise (a short collection prints nothing).
pub(super) struct Collecting {
    spinner: Option<indicatif::ProgressBar>,
    last_line: Mutex<Instant>,
}

impl Collecting {
    pub(super) fn new() -> Self {
        let spinner = std::io::stderr().is_terminal().then(|| {
            let spinner = indicatif::ProgressBar::new_spinner();
            if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}")
            {
                spinner.set_style(style);
            }
            spinner.enable_steady_tick(Duration::from_millis(120));
            spinner.set_message("collecting files");
            spinner
        });
        Self {
            spinner,
            last_line: Mutex::new(Instant::now()),
        }
    }

    pub(super) fn update(&self, progress: CollectProgress) {
        let line = format!(
            "collecting: {} entries walked, {} files kept ({} bytes)",
            progress.walked, progress.collected, progress.bytes
        );
        match &self.spinner {
            Some(spinner) => spinner.set_message(line),
            None => {
                let Ok(mut last) = self.last_line.lock() else {
                    return;
                };
                if last.elapsed() >= PLAIN_EVERY {
                    *last = Instant::now();
                    note(&line);
                }
            }
        }
    }

    pub(super) fn finish(&self) {
        if let Some(spinner) = &self.spinner {
            spinner.finish_and_clear();
        }
    }
}

/// A bar over chunks on a terminal, plain lines otherwise.
pub(super) struct Reviewing {
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    style: Style,
    done: AtomicUsize,
}

impl Reviewing {
    pub(super) fn new(total: usize) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let template = "reviewing {bar:30} {pos}/{len} chunks {elapsed} {msg}";
        let bar = terminal.then(|| indicatif::ProgressBar::new(total as u64));
        if let (Some(bar), Ok(style)) = (&bar, indicatif::ProgressStyle::with_template(template)) {
            bar.set_style(style);
        }
        let (style, done) = (Style::detect(terminal), AtomicUsize::new(0));
        Self {
            bar,
            total,
            style,
            done,
        }
    }

    pub(super) fn update(&self, event: &ReviewProgress) {
        let (line, dim) = match (&self.bar, event) {
            (Some(bar), ReviewProgress::ChunkDone { .. }) => return bar.inc(1),
            (None, ReviewProgress::ChunkDone { findings, .. }) => {
                let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
                let total = self.total;
                (
                    format!("reviewed chunk {done}/{total}: {findings} finding(s)"),
                    false,
                )
            }
            (_, ReviewProgress::Retry { error }) => {
                (format!("retrying: {}", terminal_safe(error)), true)
            }
            (_, ReviewProgress::Reducing) => ("merging findings".to_owned(), false),
            _ => return,
        };
        match &self.bar {
            Some(bar) => bar.set_message(line),
            None if dim => note(&self.style.dim(&line)),
            None => note(&line),
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
