//! `oy resume [ID]`, and `/resume` in chat without an id: this workspace's
//! recent sessions (title, age, turns), numbered, to pick one by number or
//! id at the terminal (Enter on nothing cancels); the chosen session goes
//! on in chat. Without a terminal to pick at, an id is needed.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use oy_agent::{SessionHeader, SessionStore};
use oy_boundary::Workspace;

use crate::agent_setup::{Built, session_store};
use crate::cli::{ChatArgs, ResumeCommand};
use crate::config::Config;
use crate::exit::{Exit, UsageError};
use crate::render::{terminal_line, terminal_safe};

/// Most sessions offered; `oy sessions` lists them all.
const RECENT: usize = 20;

/// Longest title shown, in characters.
const TITLE_CHARS: usize = 60;

/// The question under the list.
const QUESTION: &str = "resume: number or id (Enter cancels): ";

pub(crate) fn run(config: Config, command: ResumeCommand) -> Result<Exit> {
    let id = match command.id {
        Some(id) => id,
        None => {
            if !(config.settings.policy.interactive && std::io::stdout().is_terminal()) {
                return Err(UsageError::new(
                    "`oy resume` needs a session id when there is no terminal to pick one at\nhint: `oy sessions` lists this workspace's sessions; then `oy resume ID`",
                )
                .into());
            }
            let store = session_store(&config)?;
            let root = Workspace::open(&config.root)
                .map(|workspace| workspace.root().display().to_string())
                .unwrap_or_else(|_| config.root.display().to_string());
            let sessions = sessions_of(&store, &root, None)?;
            if sessions.is_empty() {
                return Err(UsageError::new(
                    "no saved sessions for this workspace\nhint: `oy sessions --all` lists every workspace's",
                )
                .into());
            }
            match pick(&sessions, SystemTime::now(), read_stdin_line) {
                Ok(Some(id)) => id,
                Ok(None) => return Ok(Exit::Ok),
                Err(message) => return Err(UsageError::new(message).into()),
            }
        }
    };
    let chat = ChatArgs {
        prompt: Vec::new(),
        verbose: command.verbose,
        max_turns: command.max_turns,
        resume: Some(id),
        continue_: false,
    };
    super::chat::run(config, chat)
}

/// `/resume` without an id: the session to switch to, or `None` (the
/// person cancelled, or there is nothing to pick; it has been said).
pub(crate) fn pick_in_chat<H: rustyline::Helper, I: rustyline::history::History>(
    config: &Config,
    built: &Built,
    editor: &mut rustyline::Editor<H, I>,
) -> Option<String> {
    if !config.settings.policy.interactive {
        note("/resume needs a session id here; /sessions lists them");
        return None;
    }
    let root = built.agent.tool_context().workspace().root();
    let current = built.agent.session_id();
    let listed = sessions_of(&built.store, &root.display().to_string(), Some(current));
    let sessions = match listed {
        Ok(sessions) => sessions,
        Err(error) => {
            note(&format!("oy: {error:#}"));
            return None;
        }
    };
    if sessions.is_empty() {
        note("no other saved sessions for this workspace");
        return None;
    }
    let ask = |question: &str| editor.readline(question).ok();
    pick(&sessions, SystemTime::now(), ask).unwrap_or_else(|message| {
        note(&message);
        None
    })
}

/// This workspace's saved sessions, newest first, without `except`.
fn sessions_of(
    store: &SessionStore,
    root: &str,
    except: Option<&str>,
) -> Result<Vec<SessionHeader>> {
    Ok(store
        .list()?
        .into_iter()
        .filter(|header| header.workspace == root && Some(header.id.as_str()) != except)
        .collect())
}

/// Shows the most recent of `sessions` numbered, then asks (through
/// `ask`) for a number or an id: the id picked, `Ok(None)` when the answer
/// is empty or there is none, or what to say when it names nothing.
fn pick(
    sessions: &[SessionHeader],
    now: SystemTime,
    ask: impl FnOnce(&str) -> Option<String>,
) -> Result<Option<String>, String> {
    let shown = &sessions[..sessions.len().min(RECENT)];
    let mut lines = listing(shown, now);
    if sessions.len() > shown.len() {
        lines.push(format!(
            "  … and {} older (`oy sessions` lists them all; an id works too)",
            sessions.len() - shown.len()
        ));
    }
    {
        let mut stderr = std::io::stderr().lock();
        for line in &lines {
            let _ = writeln!(stderr, "{line}");
        }
    }
    let Some(answer) = ask(QUESTION) else {
        return Ok(None);
    };
    let answer = answer.trim();
    if answer.is_empty() {
        return Ok(None);
    }
    chosen(shown, sessions, answer)
        .map(|id| Some(id.to_owned()))
        .ok_or_else(|| {
            format!(
                "`{}` is neither a number from 1 to {} nor a session id of this workspace",
                terminal_line(answer),
                shown.len()
            )
        })
}

/// One line per session: number, title, age, turns, id. Titles and ids
/// come from session files (titles from whatever was typed or sent): each
/// is one terminal-safe line, the title cut to [`TITLE_CHARS`].
fn listing(shown: &[SessionHeader], now: SystemTime) -> Vec<String> {
    let titles: Vec<String> = shown.iter().map(|header| title(&header.title)).collect();
    let ages: Vec<String> = shown
        .iter()
        .map(|header| age(&header.updated_at, now))
        .collect();
    let title_width = titles.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    let age_width = ages.iter().map(|a| a.chars().count()).max().unwrap_or(0);
    let digits = shown.len().to_string().len();
    shown
        .iter()
        .zip(titles.iter().zip(&ages))
        .enumerate()
        .map(|(index, (header, (title, age)))| {
            let turns = format!(
                "{} turn{}",
                header.turns,
                if header.turns == 1 { "" } else { "s" }
            );
            format!(
                "{:>digits$}  {title:<title_width$}  {age:>age_width$}  {turns:>9}  {}",
                index + 1,
                terminal_line(&header.id)
            )
        })
        .collect()
}

fn title(raw: &str) -> String {
    let line = terminal_line(raw.trim());
    if line.is_empty() {
        return "(untitled)".to_owned();
    }
    if line.chars().count() <= TITLE_CHARS {
        return line;
    }
    let mut cut: String = line.chars().take(TITLE_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// How long ago `stamp` (RFC 3339, as sessions are saved) was: "just
/// now", "5 min ago", "3 h ago", "12 d ago", and the date from 60 days
/// on; a stamp that does not parse is shown as it is, made safe.
fn age(stamp: &str, now: SystemTime) -> String {
    let Ok(then) = humantime::parse_rfc3339(stamp.trim()) else {
        return terminal_line(stamp);
    };
    let secs = now.duration_since(then).unwrap_or(Duration::ZERO).as_secs();
    match secs {
        0..60 => "just now".to_owned(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..172_800 => format!("{} h ago", secs / 3600),
        172_800..5_184_000 => format!("{} d ago", secs / 86_400),
        _ => humantime::format_rfc3339_seconds(then)
            .to_string()
            .chars()
            .take(10)
            .collect(),
    }
}

/// The id `answer` names: a number in `shown` (1-based), or an exact id
/// among `all` (this workspace's sessions).
fn chosen<'a>(
    shown: &'a [SessionHeader],
    all: &'a [SessionHeader],
    answer: &str,
) -> Option<&'a str> {
    if let Ok(number) = answer.parse::<usize>() {
        return number
            .checked_sub(1)
            .and_then(|index| shown.get(index))
            .map(|header| header.id.as_str());
    }
    all.iter()
        .find(|header| header.id == answer)
        .map(|header| header.id.as_str())
}

/// The answer typed on stdin (before any chat's line editor exists).
fn read_stdin_line(question: &str) -> Option<String> {
    {
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "{question}");
        let _ = stderr.flush();
    }
    let mut answer = String::new();
    match std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .context("cannot read the answer")
    {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(answer),
    }
}

/// A line for the person on stderr, made safe (it quotes answers and
/// errors naming files).
fn note(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", terminal_safe(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(id: &str, title: &str, updated_at: &str, turns: u64) -> SessionHeader {
        let mut header = SessionHeader::new(id.to_owned(), "/Users/u/project".to_owned());
        header.title = title.to_owned();
        header.updated_at = updated_at.to_owned();
        header.turns = turns;
        header
    }

    fn at(stamp: &str) -> SystemTime {
        humantime::parse_rfc3339(stamp).unwrap()
    }

    #[test]
    fn ages_read_like_a_person_would_say_them() {
        let now = at("2026-11-22T12:00:00Z");
        assert_eq!(age("2026-11-22T11:59:30.500Z", now), "just now");
        assert_eq!(age("2026-11-22T11:55:00Z", now), "5 min ago");
        assert_eq!(age("2026-11-22T08:59:59.123Z", now), "3 h ago");
        assert_eq!(age("2026-11-20T11:00:00Z", now), "2 d ago");
        assert_eq!(age("2026-09-24T11:00:00Z", now), "59 d ago");
        assert_eq!(age("2026-09-23T12:00:00Z", now), "2026-09-23");
        assert_eq!(age("2001-01-01T00:00:00Z", now), "2001-01-01");
        assert_eq!(
            age("2026-11-23T00:00:00Z", now),
            "just now",
            "a clock ahead"
        );
        assert_eq!(age("yesterday\x1b[2J", now), "yesterday\u{fffd}[2J");
    }

    #[test]
    fn the_listing_is_numbered_safe_and_aligned() {
        let now = at("2026-11-22T12:00:00Z");
        let sessions = [
            header(
                "b-2",
                "fix the \x1b]0;pwned\x07test",
                "2026-11-22T09:00:00Z",
                1,
            ),
            header("a-1", "", "2026-11-21T12:00:00Z", 12),
            header("c-3", &"long ".repeat(30), "2026-11-22T11:59:59Z", 3),
        ];
        let lines = listing(&sessions, now);
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("1  fix the "), "{lines:?}");
        assert!(
            lines[0].contains("3 h ago") && lines[0].contains(" 1 turn  b-2"),
            "{lines:?}"
        );
        assert!(
            lines[1].contains("(untitled)") && lines[1].contains("12 turns  a-1"),
            "{lines:?}"
        );
        assert!(
            lines[2].contains('…') && lines[2].contains("just now"),
            "{lines:?}"
        );
        for line in &lines {
            assert!(!line.chars().any(|c| c.is_control()), "{line:?}");
        }
        let id_at: Vec<usize> = lines
            .iter()
            .map(|line| line[..line.rfind("  ").unwrap()].chars().count())
            .collect();
        assert!(id_at.windows(2).all(|pair| pair[0] == pair[1]), "{lines:?}");
    }

    #[test]
    fn a_pick_is_a_shown_number_or_an_exact_id() {
        let all = [
            header("s-1", "one", "2026-11-22T09:00:00Z", 1),
            header("s-2", "two", "2026-11-21T09:00:00Z", 1),
        ];
        let shown = &all[..1];
        assert_eq!(chosen(shown, &all, "1"), Some("s-1"));
        assert_eq!(chosen(shown, &all, "2"), None, "not shown");
        assert_eq!(chosen(shown, &all, "0"), None);
        assert_eq!(chosen(shown, &all, "s-2"), Some("s-2"), "older, by id");
        assert_eq!(chosen(shown, &all, "s-"), None);
    }

    #[test]
    fn an_empty_answer_or_none_cancels_and_a_wrong_one_says_so() {
        let now = at("2026-11-22T12:00:00Z");
        let all = [header("s-1", "one", "2026-11-22T09:00:00Z", 1)];
        assert_eq!(pick(&all, now, |_| Some("  \n".to_owned())), Ok(None));
        assert_eq!(pick(&all, now, |_| None), Ok(None));
        assert_eq!(
            pick(&all, now, |_| Some("1\n".to_owned())),
            Ok(Some("s-1".to_owned()))
        );
        let refused = pick(&all, now, |_| Some("7".to_owned())).unwrap_err();
        assert!(refused.contains("from 1 to 1"), "{refused}");
    }
}
