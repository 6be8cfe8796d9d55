//! The transient lines at the bottom of a terminal while oy works: a
//! spinner with the elapsed time and the tokens streamed so far while the
//! model thinks, and a running command's last lines under its name. They
//! are drawn by indicatif (which redraws on its own tick and knows how to
//! clear what it drew); everything permanent is printed through
//! [`Activity::suspend`], so it lands above them and they never mix.
//! Without a terminal on stderr nothing is drawn at all.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the spinner moves (and the elapsed time is redrawn).
const TICK: Duration = Duration::from_millis(100);

/// What the transient lines say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Doing {
    /// Waiting for the model: `~N tokens` streamed so far in this request.
    Thinking { tokens: u64 },
    /// A tool call running, with the last lines of its output.
    Running { label: String, tail: Vec<String> },
}

/// The spinner and live box, when stderr is a terminal.
pub(crate) struct Activity {
    enabled: bool,
    bar: Option<ProgressBar>,
    shown: Option<Doing>,
}

impl Activity {
    pub(crate) fn new(enabled: bool) -> Self {
        Self {
            enabled,
            bar: None,
            shown: None,
        }
    }

    /// Shows `doing`; the clock restarts when the kind of work changes.
    pub(crate) fn show(&mut self, doing: Doing) {
        if !self.enabled || self.shown.as_ref() == Some(&doing) {
            return;
        }
        let (prefix, message) = text(&doing);
        let same_work = match (&self.shown, &doing) {
            (Some(Doing::Thinking { .. }), Doing::Thinking { .. }) => true,
            (Some(Doing::Running { label: a, .. }), Doing::Running { label: b, .. }) => a == b,
            _ => false,
        };
        let bar = self.bar.get_or_insert_with(spinner);
        if !same_work {
            bar.reset_elapsed();
        }
        bar.set_prefix(prefix);
        bar.set_message(message);
        self.shown = Some(doing);
    }

    /// Removes the transient lines (before a prompt, at the end of a turn).
    pub(crate) fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.shown = None;
    }

    /// Runs `print` with the transient lines out of the way; they come
    /// back on the next tick.
    pub(crate) fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }
}

fn spinner() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    // The template has no colour of its own: NO_COLOR needs nothing here.
    if let Ok(style) = ProgressStyle::with_template("{spinner} {prefix} · {elapsed}{msg}") {
        bar.set_style(style.tick_chars("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ "));
    }
    bar.enable_steady_tick(TICK);
    bar
}

/// The first line's words and what follows the elapsed time: the tokens
/// streamed so far, or a command's last lines under it.
fn text(doing: &Doing) -> (String, String) {
    match doing {
        Doing::Thinking { tokens: 0 } => ("thinking".to_owned(), "  (Ctrl-C cancels)".to_owned()),
        Doing::Thinking { tokens } => (
            "thinking".to_owned(),
            format!(" · ↓ ~{tokens} tokens  (Ctrl-C cancels)"),
        ),
        Doing::Running { label, tail } => {
            let mut below = String::new();
            for line in tail {
                below.push('\n');
                below.push_str(line);
            }
            (format!("running {label}"), below)
        }
    }
}
