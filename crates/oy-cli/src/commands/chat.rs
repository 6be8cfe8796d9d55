//! `oy chat`: the interactive session. rustyline reads lines (history file
//! under the data directory, `\` at the end of a line continues it, Tab
//! completes in `complete.rs`); plain lines are turns (their `@path`
//! mentions attached), `/` lines are commands, `!` lines the person's own
//! shell commands (`shell.rs`). Ctrl-C during a turn cancels the turn, at
//! the prompt it clears the line; Ctrl-D quits.

mod complete;
mod shell;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use oy_agent::{Agent, TurnOutcome};
use oy_tools::Mode;
use rustyline::error::ReadlineError;

use self::complete::ChatEditor;

use crate::agent_setup::{Built, Resume, build, runtime};
use crate::cli::ChatArgs;
use crate::config::Config;
use crate::exit::Exit;
use crate::render::{Output, Renderer, Style, terminal_line, terminal_safe};
use crate::signals::Interrupts;

const HELP: &str = "\
Type a task and press Enter; end a line with \\ to continue it on the next.
  @path              attach a file or directory (@\"a b.txt\" for spaces; @@ for a plain @)
  !command           run a command in your shell; its output goes with your next message
  Tab                complete a /command or an @path
  /help              this list
  /mode [MODE]       show or set the mode: plan, default, accept-edits, auto-approve
  /model [ID]        show or switch the model
  /ask QUESTION      research-only turn: no file changes, no commands
  /init [NOTES]      look at the repository and write AGENTS.md (build, test, layout)
  /compact           summarise older turns to free context
  /clear             start the conversation afresh (the saved history keeps it)
                     and forget what was allowed for the session
  /permissions       what `a` answers allowed for this session
  /mcp               MCP servers: status, tools, bytes their schemas add per request
  /save              save the session now (it is also saved after every turn)
  /resume [ID]       continue a saved session (no ID: pick one of this workspace's)
  /sessions          list this workspace's saved sessions
  /undo [N]          put back what the last turn (or N turns) changed
  /redo              take the last undo back (once, before the next turn)
  /diff              everything this session changed so far
  /todo              show the plan the model keeps with the todo tool
  /tokens            context use and tokens spent
  /quit              leave (also Ctrl-D)
Ctrl-C cancels a running turn; at the prompt it clears the line.";

/// What one line of input asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ChatInput {
    Turn(String),
    Shell(String),
    Ask(String),
    Mode(Option<String>),
    Model(Option<String>),
    Resume(Option<String>),
    Init(Option<String>),
    /// `/NAME ARGS` that no built-in takes: a prompt file's, or unknown.
    Custom(String, String),
    Compact,
    Clear,
    Undo(Option<String>),
    Redo,
    Diff,
    Permissions,
    Mcp,
    Save,
    Sessions,
    Todo,
    Tokens,
    Help,
    Quit,
    Empty,
    Unknown(String),
}

/// Parses one (possibly multi-line) input.
pub(crate) fn parse_input(line: &str) -> ChatInput {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return ChatInput::Empty;
    }
    if let Some(command) = trimmed.strip_prefix('!') {
        return match command.trim() {
            "" => ChatInput::Unknown("! needs a command, e.g. !git status".to_owned()),
            command => ChatInput::Shell(command.to_owned()),
        };
    }
    let Some(command) = trimmed.strip_prefix('/') else {
        return ChatInput::Turn(line.trim_end().to_owned());
    };
    let (name, rest) = command
        .split_once(char::is_whitespace)
        .map_or((command, ""), |(name, rest)| (name, rest.trim()));
    let arg = (!rest.is_empty()).then(|| rest.to_owned());
    match name {
        "help" | "?" => ChatInput::Help,
        "quit" | "exit" | "q" => ChatInput::Quit,
        "mode" => ChatInput::Mode(arg),
        "model" => ChatInput::Model(arg),
        "ask" => arg.map_or(
            ChatInput::Unknown("/ask needs a question".to_owned()),
            ChatInput::Ask,
        ),
        "resume" => ChatInput::Resume(arg),
        "init" => ChatInput::Init(arg),
        "compact" => ChatInput::Compact,
        "undo" => ChatInput::Undo(arg),
        "redo" => ChatInput::Redo,
        "diff" => ChatInput::Diff,
        "clear" => ChatInput::Clear,
        "permissions" => ChatInput::Permissions,
        "mcp" => ChatInput::Mcp,
        "save" => ChatInput::Save,
        "sessions" => ChatInput::Sessions,
        "todo" | "todos" => ChatInput::Todo,
        "tokens" => ChatInput::Tokens,
        other => ChatInput::Custom(other.to_owned(), rest.to_owned()),
    }
}

pub(crate) fn run(config: Config, args: ChatArgs) -> Result<Exit> {
    let renderer = Arc::new(Renderer::new(Output::Human, args.verbose));
    let style = Style::detect(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let resume = Resume::from_flags(args.resume.clone(), args.continue_);
    let history = history_file(&config)?;
    let workspace = oy_boundary::Workspace::open(&config.root).ok();
    let mut editor = complete::editor(workspace).context("cannot start the line editor")?;
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    // `oy chat "first message"`: the first turn, before the prompt.
    let mut first = Some(args.prompt.join(" ")).filter(|text| !text.trim().is_empty());
    // A message whose mention could not be attached comes back to be fixed.
    let mut again: Option<String> = None;
    runtime()?.block_on(async {
        let connected = crate::provider_setup::connect(&config).await?;
        let mut provider = Arc::clone(&connected.provider);
        let mut built = build(
            &config,
            connected,
            renderer.clone(),
            &resume,
            args.max_turns,
        )?;
        let mut interrupts = Interrupts::install(
            built.cancel.clone(),
            built.agent.tool_context().child_killer(),
        )?;
        let prompts = crate::prompt_commands::load_for_chat(&config);
        complete::set_prompt_commands(
            &mut editor,
            prompts
                .commands
                .iter()
                .map(|command| command.name.clone())
                .collect(),
        );
        say_styled(
            |text| style.dim(text),
            &format!(
                "oy chat · {} · /help for commands · Ctrl-D to quit",
                built.description
            ),
        );
        loop {
            let line = match first.take() {
                Some(message) => Ok(Some(message)),
                None => {
                    interrupts.set_idle(true);
                    let line = read_input(&mut editor, again.take());
                    interrupts.set_idle(false);
                    line
                }
            };
            let line = match line {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(error) => return Err(error),
            };
            if !line.trim().is_empty() {
                let _ = editor.add_history_entry(line.as_str());
                if let Some(path) = &history {
                    save_history(&mut editor, path);
                }
            }
            let input = parse_input(&line);
            let outcome = match input {
                ChatInput::Quit => break,
                ChatInput::Empty => continue,
                ChatInput::Help => {
                    say(HELP);
                    say(&crate::prompt_commands::help(&prompts, &config));
                    continue;
                }
                ChatInput::Unknown(message) => {
                    say_styled(|text| style.yellow(text), &message);
                    continue;
                }
                ChatInput::Mcp => {
                    match &built.mcp {
                        Some(mcp) => say(crate::mcp::render(&mcp.report(), false).trim_end()),
                        None => say("no MCP servers are configured (docs/mcp.md)"),
                    }
                    continue;
                }
                ChatInput::Turn(text) => match prepare(&built.agent, &text, style).await {
                    Some(prompt) => built.agent.turn(prompt).await,
                    None => {
                        again = Some(text);
                        continue;
                    }
                },
                ChatInput::Ask(text) => match prepare(&built.agent, &text, style).await {
                    Some(prompt) => built.agent.ask(prompt).await,
                    None => {
                        again = Some(format!("/ask {text}"));
                        continue;
                    }
                },
                ChatInput::Shell(command) => {
                    shell::run(&mut built.agent, &command, style).await;
                    if interrupts.terminate_requested() {
                        if !built.agent.history().is_empty() {
                            let _ = built.agent.save().await;
                        }
                        return Ok(Exit::Interrupted);
                    }
                    if built.cancel.is_cancelled() {
                        built.cancel.reset();
                        interrupts.rearm();
                    }
                    continue;
                }
                ChatInput::Init(notes) => {
                    let prompt =
                        crate::prompt_commands::init_prompt(notes.as_deref().unwrap_or(""));
                    built.agent.turn(prompt).await
                }
                ChatInput::Custom(name, args) => {
                    match crate::prompt_commands::prompt_for(&prompts, &name, &args) {
                        Ok(prompt) => built.agent.turn(prompt).await,
                        Err(refusal) => {
                            say_styled(|text| style.yellow(text), &refusal.chat_message());
                            continue;
                        }
                    }
                }
                ChatInput::Resume(id) => {
                    let picked = || super::resume::pick_in_chat(&config, &built, &mut editor);
                    let Some(id) = id.or_else(picked) else {
                        continue;
                    };
                    let connected = crate::provider_setup::connect(&config).await?;
                    provider = Arc::clone(&connected.provider);
                    match build(
                        &config,
                        connected,
                        renderer.clone(),
                        &Resume::Id(id),
                        args.max_turns,
                    ) {
                        Ok(new) => {
                            drop(interrupts);
                            built = new;
                            interrupts = Interrupts::install(
                                built.cancel.clone(),
                                built.agent.tool_context().child_killer(),
                            )?;
                        }
                        Err(error) => say_styled(|text| style.red(text), &format!("oy: {error:#}")),
                    }
                    continue;
                }
                ChatInput::Model(Some(id)) => {
                    switch_model(&mut built.agent, provider.as_ref(), &id, style).await;
                    continue;
                }
                other => {
                    command(&config, &mut built, other, style).await;
                    continue;
                }
            };
            renderer.finish_text();
            if let Err(error) = outcome.as_ref().map(|_: &TurnOutcome| ()) {
                // Provider errors were shown by the renderer; others are not.
                if !matches!(error, oy_agent::AgentError::Provider(_)) {
                    say_styled(|text| style.red(text), &format!("oy: error: {error}"));
                }
                if matches!(error, oy_agent::AgentError::PromptTooLarge { .. }) {
                    say(&format!("hint: {}", crate::agent_setup::WINDOW_HINT));
                }
            }
            if interrupts.terminate_requested() {
                // SIGTERM or SIGHUP: the turn was cancelled; end the program.
                if !built.agent.history().is_empty() {
                    let _ = built.agent.save().await;
                }
                return Ok(Exit::Interrupted);
            }
            if built.cancel.is_cancelled() {
                built.cancel.reset();
                interrupts.rearm();
            }
        }
        // A chat in which nothing was said leaves no session behind.
        if !built.agent.history().is_empty() {
            let _ = built.agent.save().await;
            say_styled(
                |text| style.dim(text),
                &format!(
                    "session {} saved · oy chat --resume {}",
                    built.agent.session_id(),
                    built.agent.session_id()
                ),
            );
        }
        Ok(Exit::Ok)
    })
}

/// Reads one input, joining lines that end with `\`, starting from
/// `initial` (one line) when given. `None` at Ctrl-D.
fn read_input(editor: &mut ChatEditor, initial: Option<String>) -> Result<Option<String>> {
    let mut text = String::new();
    let mut prompt = "› ";
    let mut initial = initial.filter(|line| !line.contains('\n'));
    loop {
        let read = match initial.take() {
            Some(line) => editor.readline_with_initial(prompt, (&line, "")),
            None => editor.readline(prompt),
        };
        match read {
            Ok(line) => {
                if let Some(head) = line.strip_suffix('\\') {
                    text.push_str(head);
                    text.push('\n');
                    prompt = "… ";
                    continue;
                }
                text.push_str(&line);
                return Ok(Some(text));
            }
            // Ctrl-C at the prompt drops what was typed.
            Err(ReadlineError::Interrupted) => {
                text.clear();
                prompt = "› ";
            }
            Err(ReadlineError::Eof) => return Ok(None),
            Err(error) => return Err(error).context("cannot read input"),
        }
    }
}

async fn command(config: &Config, built: &mut Built, input: ChatInput, style: Style) {
    let agent: &mut Agent = &mut built.agent;
    match input {
        ChatInput::Mode(None) => say(&format!(
            "mode {} · network {}",
            agent.policy().mode.name(),
            agent.policy().network.name()
        )),
        ChatInput::Mode(Some(name)) => match name.parse::<Mode>() {
            Ok(mode) => {
                let policy = config.settings.policy_for_mode(mode);
                agent.set_policy(policy);
                if policy.mode != mode {
                    say_styled(
                        |text| style.yellow(text),
                        &format!(
                            "the workspace config allows at most mode {}",
                            policy.mode.name()
                        ),
                    );
                }
                say(&format!(
                    "mode {} · network {}",
                    policy.mode.name(),
                    policy.network.name()
                ));
            }
            Err(error) => say_styled(|text| style.yellow(text), &error.to_string()),
        },
        ChatInput::Model(None) => say(&format!("model {}", agent.model())),
        ChatInput::Compact => match agent.compact().await {
            Ok(()) => {}
            Err(error) => say_styled(|text| style.red(text), &format!("oy: {error}")),
        },
        ChatInput::Undo(_) | ChatInput::Redo | ChatInput::Diff => {
            crate::commands::undo::chat_command(agent, input, style).await;
        }
        ChatInput::Clear => {
            let allowed = agent.tool_context().session_allows().len();
            agent.clear();
            say(&match allowed {
                0 => "conversation cleared".to_owned(),
                1 => "conversation cleared; forgot 1 session permission".to_owned(),
                n => format!("conversation cleared; forgot {n} session permissions"),
            });
        }
        ChatInput::Permissions => {
            let allowed = agent.tool_context().session_allows();
            if allowed.is_empty() {
                say("nothing is allowed for this session; answer `a` at an approval to allow it");
            }
            for scope in allowed {
                say(&format!("allowed for this session: {scope}"));
            }
        }
        ChatInput::Save if agent.history().is_empty() => {
            say("nothing to save yet: a session is saved once something is said");
        }
        ChatInput::Save => match agent.save().await {
            Ok(()) => say(&format!("saved session {}", agent.session_id())),
            Err(error) => say_styled(|text| style.red(text), &format!("oy: {error}")),
        },
        ChatInput::Sessions => match built.store.list() {
            Ok(list) => {
                let root = agent
                    .tool_context()
                    .workspace()
                    .root()
                    .display()
                    .to_string();
                let mine: Vec<_> = list.into_iter().filter(|h| h.workspace == root).collect();
                if mine.is_empty() {
                    say("no saved sessions for this workspace");
                }
                for header in mine {
                    say(&format!(
                        "{}  {}  {}",
                        terminal_line(&header.id),
                        terminal_line(&header.updated_at),
                        terminal_line(&header.title)
                    ));
                }
            }
            Err(error) => say_styled(|text| style.red(text), &format!("oy: {error}")),
        },
        ChatInput::Todo => {
            let state = agent.tool_context().snapshot_state();
            if state.todos.is_empty() {
                say("no plan yet");
            }
            for item in &state.todos {
                let mark = match item.status {
                    oy_tools::TodoStatus::Done => "x",
                    oy_tools::TodoStatus::InProgress => "~",
                    _ => " ",
                };
                say(&format!("[{mark}] {}", terminal_line(&item.text)));
            }
        }
        ChatInput::Tokens => {
            let usage = agent.usage();
            say(&format!(
                "context ~{} of {} tokens · spent {}{} in / {} out",
                agent.context_tokens(),
                agent.budget().window(),
                if usage.estimated { "~" } else { "" },
                usage.input_tokens,
                usage.output_tokens
            ));
        }
        _ => {}
    }
}

/// How long `/model ID` waits for the provider's list before switching
/// unchecked.
const MODEL_LIST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// `/model ID`: switches when the provider lists `id`, or when no list can
/// be had (saying so); refuses a name the list lacks, with the closest.
async fn switch_model(
    agent: &mut Agent,
    provider: &dyn oy_provider::Provider,
    id: &str,
    style: Style,
) {
    match tokio::time::timeout(MODEL_LIST_TIMEOUT, provider.list_models()).await {
        Ok(Ok(models)) if !models.is_empty() && !models.iter().any(|model| model.id == id) => {
            let ids: Vec<&str> = models.iter().map(|model| model.id.as_str()).collect();
            let mut message = format!(
                "the provider does not list a model `{id}`; still {}",
                agent.model()
            );
            let close = crate::lone_word::closest(id, &ids);
            if !close.is_empty() {
                message.push_str(&format!("\ndid you mean {}?", close.join(", ")));
            }
            say_styled(|text| style.yellow(text), &message);
            return;
        }
        Ok(Ok(_)) => {}
        Ok(Err(error)) => say_styled(
            |text| style.dim(text),
            &format!("(could not check `{id}` against the provider's list: {error})"),
        ),
        Err(_) => say_styled(
            |text| style.dim(text),
            &format!(
                "(the provider did not list its models within {} s; `{id}` is unchecked)",
                MODEL_LIST_TIMEOUT.as_secs()
            ),
        ),
    }
    agent.set_model(id);
    say(&format!("model {}", agent.model()));
}

fn history_file(config: &Config) -> Result<Option<PathBuf>> {
    let Some(data_dir) = &config.settings.dirs.data_dir else {
        return Ok(None);
    };
    let dir = crate::private_dir::private_dir(data_dir, None)?;
    Ok(Some(dir.join("history")))
}

fn save_history(editor: &mut ChatEditor, path: &std::path::Path) {
    if editor.save_history(path).is_ok() {
        use std::os::unix::fs::PermissionsExt;
        // History can hold secrets typed at the prompt: 0600 whatever
        // rustyline's version does with the umask.
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    }
}

/// The prompt for `text` with its mentions attached, said on the screen;
/// `None` (the reason said) when one cannot be attached.
async fn prepare(agent: &Agent, text: &str, style: Style) -> Option<oy_agent::Prompt> {
    match agent.prepare(text).await {
        Ok(prompt) => {
            crate::mentions::say_attached(&prompt, style);
            Some(prompt)
        }
        Err(error) => {
            say_styled(|text| style.yellow(text), &crate::mentions::refusal(&error));
            None
        }
    }
}

/// A line for the person, on stderr. Chat lines quote errors (which name
/// files), model ids, session titles, the todo list and the provider's
/// description: all pass through the terminal-safe renderer here.
fn say(text: &str) {
    say_styled(str::to_owned, text);
}

/// [`say`], coloured after the text is made safe, so the colour is the
/// only escape sequence that reaches the terminal.
fn say_styled(paint: impl FnOnce(&str) -> String, text: &str) {
    let line = paint(&terminal_safe(text));
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}
