//! Terminal approvals and questions: the preview on stderr, the answer
//! from the terminal. What the person approves is what they could see
//! (`docs/protected-paths.md`, "Approve what you saw"): input typed before
//! a prompt is discarded, a preview longer than the screen says how many
//! lines it hides and pages through all of them on `v`, and a no can carry
//! a reason for the model.

use std::io::Write;

use oy_tools::{Answer, ApprovalRequest, Approver, Asker, Preview, Reply};

/// Asks the person at the terminal. Only built when stdin and stderr are terminals.
#[derive(Debug, Default)]
pub(crate) struct TerminalPrompt;

impl TerminalPrompt {
    fn prompt(&self, text: &str) -> Option<String> {
        {
            // Released before blocking on stdin: the signal thread prints
            // to stderr too, and must not wait for an answer to do so.
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "{text}");
            let _ = stderr.flush();
        }
        // Keys typed before the question was on screen never answer it.
        discard_typed_ahead();
        read_answer_line()
    }
}

impl TerminalPrompt {
    /// Asks a yes/no question; anything but yes is no.
    pub(crate) fn confirm(&self, question: &str) -> bool {
        matches!(
            self.prompt(&format!("\n{}\n[y/N] ", visible_lines(question).join("\n")))
                .as_deref()
                .map(str::trim),
            Some("y" | "Y" | "yes" | "Yes")
        )
    }
}

/// Drops whatever was typed but not yet read (`tcflush(TCIFLUSH)`).
fn discard_typed_ahead() {
    let _ = rustix::termios::tcflush(
        rustix::stdio::stdin(),
        rustix::termios::QueueSelector::IFlush,
    );
}

/// One line from stdin, read a byte at a time so nothing after the line
/// is taken into a buffer (where a flush could not reach it and the next
/// prompt would find it). `None` at end of input or on an error.
fn read_answer_line() -> Option<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match rustix::io::read(rustix::stdio::stdin(), &mut byte) {
            Ok(0) => return (!line.is_empty()).then(|| text_of(&line)),
            Ok(_) if byte[0] == b'\n' => return Some(text_of(&line)),
            Ok(_) => line.push(byte[0]),
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => return None,
        }
        if line.len() > MAX_ANSWER_BYTES {
            return Some(text_of(&line));
        }
    }
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .trim_end_matches('\r')
        .to_owned()
}

/// A longer answer is cut here (a reason is a sentence, not a file).
const MAX_ANSWER_BYTES: usize = 4096;

/// Rows of the terminal on stderr, when it says.
fn screen_rows() -> Option<usize> {
    rustix::termios::tcgetwinsize(rustix::stdio::stderr())
        .ok()
        .map(|size| usize::from(size.ws_row))
        .filter(|rows| *rows > 0)
}

/// Preview lines shown before the question when the preview is longer:
/// the screen's height less room for the summary and the question, never
/// under [`MIN_SHOWN`].
fn shown_budget(rows: Option<usize>) -> usize {
    rows.unwrap_or(DEFAULT_ROWS)
        .saturating_sub(PROMPT_ROWS)
        .max(MIN_SHOWN)
}

const DEFAULT_ROWS: usize = 40;
const PROMPT_ROWS: usize = 8;
const MIN_SHOWN: usize = 12;

/// Makes text safe to show in the prompt: control, format (bidi overrides,
/// zero-width) and separator characters are shown escaped, and runs of
/// blank lines are collapsed to one (they hold nothing to see, and could
/// push the rest off the screen).
fn visible_lines(text: &str) -> Vec<String> {
    let escaped: String = text
        .chars()
        .map(|c| match c {
            '\n' | '\t' => c.to_string(),
            c if c.is_control() || is_invisible(c) => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect();
    let mut lines = Vec::new();
    let mut blanks = 0;
    for line in escaped.lines() {
        blanks = if line.trim().is_empty() {
            blanks + 1
        } else {
            0
        };
        if blanks <= 1 {
            lines.push(line.to_owned());
        }
    }
    lines
}

/// `lines` cut to `budget` lines, keeping head and tail, with the exact
/// number hidden in their place (`None` when nothing is hidden).
fn windowed(lines: &[String], budget: usize) -> (Vec<String>, Option<usize>) {
    if lines.len() <= budget {
        return (lines.to_vec(), None);
    }
    let head = budget / 2;
    let tail = budget - head - 1;
    let hidden = lines.len() - head - tail;
    let mut shown: Vec<String> = lines[..head].to_vec();
    shown.push(format!(
        "[… {hidden} more lines not shown: answer v to see all {} …]",
        lines.len()
    ));
    shown.extend_from_slice(&lines[lines.len() - tail..]);
    (shown, Some(hidden))
}

/// What the person answered.
#[derive(Debug, PartialEq, Eq)]
enum Said {
    Yes,
    View,
    No(Option<String>),
}

/// `y`/`yes` approve and `v`/`view` shows everything; every other answer
/// is a no. After a leading `n`/`no` (and `:` `,` `-` `.`), or on its own,
/// any other text is the reason the model is given.
fn parse_answer(answer: Option<&str>) -> Said {
    let Some(answer) = answer.map(str::trim) else {
        return Said::No(None);
    };
    match answer.to_ascii_lowercase().as_str() {
        "y" | "yes" => return Said::Yes,
        "v" | "view" => return Said::View,
        "" | "n" | "no" => return Said::No(None),
        _ => {}
    }
    let lower = answer.to_ascii_lowercase();
    let rest = ["no", "n"]
        .iter()
        .find_map(|word| {
            let after = answer.get(word.len()..)?;
            let separated = after.starts_with([' ', ':', ',', '-', '.', '\t']);
            (lower.starts_with(word) && separated).then_some(after)
        })
        .unwrap_or(answer);
    let reason = rest
        .trim_start_matches([' ', ':', ',', '-', '.', '\t'])
        .trim();
    Said::No((!reason.is_empty()).then(|| reason.to_owned()))
}

/// Characters that change how text is laid out without being seen.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{061c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

/// Colours one line of a unified diff (already made visible) for a
/// terminal, unless `NO_COLOR` is set: additions green, removals red, hunk
/// headers cyan.
fn color_diff(line: &str) -> String {
    let style = crate::render::Style::detect(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    if line.starts_with("+++") || line.starts_with("---") {
        style.paint("1", line)
    } else if line.starts_with('+') {
        style.green(line)
    } else if line.starts_with('-') {
        style.red(line)
    } else if line.starts_with("@@") {
        style.paint("36", line)
    } else {
        line.to_owned()
    }
}

impl TerminalPrompt {
    /// Shows all of `lines`, a screenful at a time.
    fn page(&self, lines: &[String]) {
        let page = screen_rows()
            .unwrap_or(DEFAULT_ROWS)
            .saturating_sub(2)
            .max(MIN_SHOWN);
        let total = lines.len();
        for (index, chunk) in lines.chunks(page).enumerate() {
            let first = index * page + 1;
            let last = first + chunk.len() - 1;
            let mut text = format!("\n{}\n", chunk.join("\n"));
            if last < total {
                text.push_str(&format!(
                    "-- lines {first}–{last} of {total}: Enter for more, q to stop -- "
                ));
                let more = self.prompt(&text);
                if more.as_deref().map(str::trim) == Some("q") || more.is_none() {
                    return;
                }
            } else {
                let mut stderr = std::io::stderr().lock();
                let _ = writeln!(stderr, "{text}-- end of the preview ({total} lines) --");
            }
        }
    }
}

impl Approver for TerminalPrompt {
    fn approve(&self, request: &ApprovalRequest) -> Answer {
        self.reply(request).answer
    }

    fn reply(&self, request: &ApprovalRequest) -> Reply {
        let (text, is_diff) = match &request.preview {
            Preview::Diff(text) => (text, true),
            Preview::Command(text) | Preview::Summary(text) => (text, false),
        };
        let mut lines = visible_lines(text.trim_end());
        if is_diff {
            lines = lines.iter().map(|line| color_diff(line)).collect();
        }
        let (shown, hidden) = windowed(&lines, shown_budget(screen_rows()));
        let choices = match hidden {
            Some(_) => format!(
                "[y/N, v: view all {} lines, or n and a reason] ",
                lines.len()
            ),
            None => "[y/N, or n and a reason] ".to_owned(),
        };
        let mut question = format!(
            "\noy: `{}` wants to {}\n{}\nAllow? {choices}",
            request.tool,
            visible_lines(&request.summary).join(" "),
            shown.join("\n"),
        );
        loop {
            match parse_answer(self.prompt(&question).as_deref()) {
                Said::Yes => return Answer::Approve.into(),
                Said::No(reason) => {
                    return Reply {
                        answer: Answer::Deny,
                        reason,
                    };
                }
                Said::View => {
                    self.page(&lines);
                    question = format!("Allow? {choices}");
                }
            }
        }
    }
}

impl Asker for TerminalPrompt {
    fn ask(&self, question: &str) -> Option<String> {
        self.prompt(&format!(
            "\noy asks: {}\n> ",
            visible_lines(question).join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_yes_approves_and_a_no_may_carry_a_reason() {
        assert_eq!(parse_answer(Some("y")), Said::Yes);
        assert_eq!(parse_answer(Some(" Yes ")), Said::Yes);
        assert_eq!(parse_answer(Some("v")), Said::View);
        for no in [None, Some(""), Some("n"), Some("NO"), Some("   ")] {
            assert_eq!(parse_answer(no), Said::No(None), "{no:?}");
        }
        let reason = |text: &str| Said::No(Some(text.to_owned()));
        assert_eq!(parse_answer(Some("n use staging")), reason("use staging"));
        assert_eq!(
            parse_answer(Some("no: not that file")),
            reason("not that file")
        );
        assert_eq!(
            parse_answer(Some("No, ask me first")),
            reason("ask me first")
        );
        assert_eq!(parse_answer(Some("never do that")), reason("never do that"));
        assert_eq!(parse_answer(Some("yes but later")), reason("yes but later"));
        assert_eq!(parse_answer(Some("nope")), reason("nope"));
    }

    #[test]
    fn a_long_preview_says_exactly_how_many_lines_it_hides() {
        let lines: Vec<String> = (1..=100).map(|n| format!("line {n}")).collect();
        let (shown, hidden) = windowed(&lines, 20);
        assert_eq!(shown.len(), 20);
        assert_eq!(hidden, Some(81));
        assert!(shown.iter().any(|line| line.contains("81 more lines")));
        assert_eq!(shown.first().map(String::as_str), Some("line 1"));
        assert_eq!(shown.last().map(String::as_str), Some("line 100"));
        let (all, none) = windowed(&lines[..20], 20);
        assert_eq!((all.len(), none), (20, None));
    }

    #[test]
    fn previews_show_control_characters_escaped_and_collapse_blank_runs() {
        let lines = visible_lines("a\x1b[2Jb\n\n\n\nc\u{202e}d");
        assert_eq!(lines, ["a\\u{1b}[2Jb", "", "c\\u{202e}d"]);
    }
}
