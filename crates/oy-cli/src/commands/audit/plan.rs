//! The plan as `--dry-run` prints it, and why an audit stops, with the
//! options that let it go on.

use std::io::Write;

use oy_audit::{PreparedAudit, Stop, WindowSource};

use crate::render::terminal_line;

/// Prints the whole plan: what would be sent, what is skipped and why,
/// the window, the chunks and the estimated tokens, and every reason the
/// audit would stop (with what to do). Nothing is sent.
pub(super) fn print_plan(
    prepared: &PreparedAudit,
    rerun: &dyn Fn(&[String]) -> String,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let collection = prepared.collection();
    let (files, bytes) = (collection.files.len(), prepared.bytes());
    let redacted = prepared.redacted_lines();
    writeln!(
        out,
        "would send {files} files ({bytes} bytes); {redacted} secret-shaped lines redacted"
    )?;
    for file in &collection.files {
        let language = file.language.as_deref().map(terminal_line);
        let language = language.map(|l| format!("  {l}")).unwrap_or_default();
        let path = terminal_line(&file.path);
        writeln!(
            out,
            "  {path}  {} bytes  {} lines{language}",
            file.bytes, file.lines
        )?;
    }
    writeln!(
        out,
        "skipped {} files:",
        collection.skipped.values().sum::<usize>()
    )?;
    for (reason, count) in &collection.skipped {
        let examples = collection
            .skipped_examples
            .get(reason)
            .into_iter()
            .flatten();
        let examples: Vec<String> = examples.map(|path| terminal_line(path)).collect();
        writeln!(
            out,
            "  {:<20} {count:>6}  {}",
            reason.name(),
            examples.join(", ")
        )?;
    }
    let window = prepared.window();
    let source = match &window.source {
        WindowSource::Fallback => "default; set context_window in the config for your model".into(),
        source => source.to_string(),
    };
    // The source can name the configured model.
    writeln!(
        out,
        "context window {} tokens ({})",
        window.tokens,
        terminal_line(&source)
    )?;
    let plan = prepared.plan();
    let (chunks, calls) = (plan.chunks.len(), plan.model_calls);
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    writeln!(
        out,
        "{chunks} chunk{} of at most {} tokens; {calls} model call{}; ~{} input tokens",
        plural(chunks),
        plan.chunk_budget,
        plural(calls),
        plan.estimated_tokens
    )?;
    for chunk in &plan.chunks {
        let (index, files) = (chunk.index + 1, chunk.files.len());
        writeln!(
            out,
            "  chunk {index}: {files} files, {} bytes, ~{} tokens",
            chunk.bytes, chunk.tokens
        )?;
    }
    if plan.stops.is_empty() {
        writeln!(out, "the audit would run; nothing was sent (--dry-run)")
    } else {
        writeln!(out, "the audit would stop; nothing was sent (--dry-run):")?;
        for stop in &plan.stops {
            writeln!(out, "{}", advice(stop, rerun))?;
        }
        Ok(())
    }
}

/// Why the audit stops and what to do, in lines: the reason (naming
/// every file it concerns) and `hint:` lines with the options to go on.
pub(super) fn advice(stop: &Stop, rerun: &dyn Fn(&[String]) -> String) -> String {
    const NARROW: &str = "narrow the audit with --path DIR";
    const WINDOW: &str = "use a model with a larger context window (or set context_window in the config if the server runs a larger one than oy assumed)";
    match stop {
        Stop::FilesTooLarge { files, budget } => {
            let mut text = format!(
                "- {} code or configuration file{} larger than a chunk ({budget} tokens); oy never truncates, and only data and documentation are skipped for size:",
                files.len(),
                if files.len() == 1 { " is" } else { "s are" }
            );
            for file in files {
                text.push_str(&format!(
                    "\n    {}  ~{} tokens",
                    terminal_line(&file.path),
                    file.tokens
                ));
            }
            let excludes: Vec<String> = files.iter().map(|f| f.exclude_pattern()).collect();
            text.push_str(&format!(
                "\nhint: to audit everything else: {}",
                terminal_line(&rerun(&excludes))
            ));
            text.push_str(&format!("\nhint: or {NARROW}, or {WINDOW}"));
            text
        }
        Stop::TooManyChunks { needed, max } => format!(
            "- the audit needs {needed} chunks, more than the limit of {max}\nhint: {NARROW} or --exclude GLOB, raise --max-chunks, or {WINDOW}"
        ),
        Stop::BudgetTooSmall { .. } => format!("- {stop}\nhint: {WINDOW}"),
        Stop::NothingToReview { .. } => format!(
            "- {stop}\nhint: --include-hidden, --include-ignored and --include-lockfiles widen what is collected"
        ),
        other => format!("- {other}"),
    }
}
