//! The supervisor stage: leads a new session (no controlling terminal,
//! unless oy gave it a PTY), becomes a child subreaper so that every
//! orphaned descendant — `setsid`, double fork, `set -m` jobs — is
//! re-parented to it, starts the confine stage (or, with the sandbox off,
//! the program), and when that ends, or oy sends SIGTERM, or oy dies,
//! kills every descendant before exiting with the command's status.
//!
//! It stays outside the command's Landlock domain, so the command can
//! neither signal nor trace it.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::process::{Pid, Signal, WaitOptions, WaitStatus};
use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};

use super::LAUNCHER_ARG;
use super::argv::{Spec, Stage};
use super::confine::{SETUP_FAILED, say};
use super::env_transport;
use super::git_dirs::Watched;

/// Runs the stage; returns the exit code (or ends by the command's signal).
pub(crate) fn run(spec: &Spec) -> i32 {
    if !spec.pty {
        // A PTY session is already its own session's leader (portable-pty).
        let _ = rustix::process::setsid();
    }
    if rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_err() {
        say("oy sandbox: cannot become a child subreaper; the command was not run");
        return SETUP_FAILED;
    }
    let stop = Arc::new(AtomicBool::new(false));
    if watch_signals(&stop).is_err() {
        say("oy sandbox: cannot handle signals; the command was not run");
        return SETUP_FAILED;
    }
    if !spec.pty && !dies_with_parent(spec.parent) {
        return SETUP_FAILED;
    }
    let carriers = env_transport::carriers(std::env::vars_os());
    let mut command = if spec.confine {
        // The confine stage starts as clean as this one did.
        let mut command = Command::new("/proc/self/exe");
        command
            .arg(LAUNCHER_ARG)
            .args(spec.encode(Stage::Confine))
            .env_clear()
            .envs(carriers);
        command
    } else {
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .env_clear()
            .envs(env_transport::decode(&carriers));
        command
    };
    let child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            say(&format!(
                "oy sandbox: cannot start {}: {error}",
                spec.program.to_string_lossy()
            ));
            return if error.kind() == std::io::ErrorKind::NotFound {
                super::confine::NOT_FOUND
            } else {
                SETUP_FAILED
            };
        }
    };
    let main = Pid::from_child(&child);
    let status = reap_all(main, &stop);
    // Every process of the command is gone: undo what it did to the
    // watched names here, so that it happens even when oy died.
    let watched = Watched {
        absent: spec.absent.clone(),
        links: spec.links.clone(),
    };
    if let Some(note) = watched.undo() {
        say(&note);
    }
    exit_like(status)
}

/// SIGTERM and SIGHUP (oy, or the PTY hanging up) kill everything; SIGINT
/// and SIGQUIT from a PTY are the command's business, not ours.
fn watch_signals(stop: &Arc<AtomicBool>) -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT])?;
    let stop = Arc::clone(stop);
    std::thread::Builder::new()
        .name("oy-supervisor-signals".to_owned())
        .spawn(move || {
            for signal in signals.forever() {
                if signal == SIGTERM || signal == SIGHUP {
                    stop.store(true, Ordering::SeqCst);
                    // The reaper may be blocked in `wait()` on an exit a
                    // tracer hides from it: keep killing the whole tree
                    // until the process ends (the reaper then exits it).
                    loop {
                        kill_descendants();
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                }
            }
        })?;
    Ok(())
}

/// The supervisor gets SIGTERM when the thread that started it (the tool
/// call, which waits for it) or oy ends; false if oy is already gone.
fn dies_with_parent(parent: Option<u32>) -> bool {
    if rustix::process::set_parent_process_death_signal(Some(Signal::TERM)).is_err() {
        say("oy sandbox: cannot watch oy; the command was not run");
        return false;
    }
    let Some(parent) = parent else {
        return true;
    };
    let alive = rustix::process::getppid()
        .is_some_and(|pid| u32::try_from(pid.as_raw_nonzero().get()).ok() == Some(parent));
    if !alive {
        say("oy sandbox: oy has exited; the command was not run");
    }
    alive
}

/// Reaps children until none is left, killing every descendant once the
/// main child has ended or a stop was asked for. Returns the main child's
/// status (`None` if it was never seen).
///
/// Once stopping it never blocks: a child traced by another process has
/// its exit hidden from us until the tracer is gone, so every round kills
/// the whole tree again, reaps what it can, and pauses briefly.
fn reap_all(main: Pid, stop: &AtomicBool) -> Option<WaitStatus> {
    let mut status = None;
    loop {
        let stopping = status.is_some() || stop.load(Ordering::SeqCst);
        let options = if stopping {
            kill_descendants();
            WaitOptions::NOHANG
        } else {
            WaitOptions::empty()
        };
        match rustix::process::wait(options) {
            Ok(Some((pid, wait_status))) => {
                if pid == main {
                    status = Some(wait_status);
                }
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(2)),
            Err(rustix::io::Errno::INTR) => {}
            // ECHILD: nobody is left.
            Err(_) => return status,
        }
    }
}

/// SIGKILL to every descendant, found by walking the process tree down
/// from us (a process that called `setsid` is still in it; one whose
/// parent died was re-parented to us, the subreaper).
fn kill_descendants() {
    let mut pending = children_of("self");
    let mut seen = std::collections::HashSet::new();
    while let Some(pid) = pending.pop() {
        if !seen.insert(pid) {
            continue;
        }
        let _ = rustix::process::kill_process(pid, Signal::KILL);
        pending.extend(children_of(&pid.as_raw_nonzero().to_string()));
    }
}

/// The children of process `pid` (`self` or a number), from
/// `/proc/PID/task/*/children`, or by scanning every process's parent
/// where the kernel lacks that file.
fn children_of(pid: &str) -> Vec<Pid> {
    let mut found = Vec::new();
    let mut read_any = false;
    for task in list_dir(&format!("/proc/{pid}/task")) {
        if let Some(text) = read_text(&format!("/proc/{pid}/task/{task}/children")) {
            read_any = true;
            found.extend(text.split_whitespace().filter_map(parse_pid));
        }
    }
    if read_any {
        return found;
    }
    let parent = if pid == "self" {
        rustix::process::getpid()
    } else {
        match parse_pid(pid) {
            Some(parent) => parent,
            None => return found,
        }
    };
    list_dir("/proc")
        .into_iter()
        .filter_map(|name| {
            let child = parse_pid(&name)?;
            let stat = read_text(&format!("/proc/{name}/stat"))?;
            // `pid (comm) state ppid …`; comm may hold spaces or `)`.
            let after = &stat[stat.rfind(')')? + 1..];
            let ppid = after.split_whitespace().nth(1).and_then(parse_pid)?;
            (ppid == parent).then_some(child)
        })
        .collect()
}

fn parse_pid(text: &str) -> Option<Pid> {
    text.parse::<i32>().ok().and_then(Pid::from_raw)
}

#[expect(
    clippy::disallowed_methods,
    reason = "the process table under /proc, not workspace files"
)]
fn read_text(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[expect(
    clippy::disallowed_methods,
    reason = "the process table under /proc, not workspace files"
)]
fn list_dir(path: &str) -> Vec<String> {
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| entry.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Ends this process the way the command ended: its exit code, or its
/// signal re-raised with the default action.
fn exit_like(status: Option<WaitStatus>) -> i32 {
    let Some(status) = status else {
        return SETUP_FAILED;
    };
    if let Some(code) = status.exit_status() {
        return code;
    }
    if let Some(signal) = status.terminating_signal() {
        let _ = signal_hook::low_level::emulate_default_handler(signal);
        return 128 + signal;
    }
    SETUP_FAILED
}
