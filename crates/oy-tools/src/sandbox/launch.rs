//! Both ends of the launcher: [`dispatch`], which the embedding program
//! calls first thing in `main`, and [`Launch`], which turns one tool's
//! command into the launcher command that runs it supervised and
//! confined.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::LAUNCHER_ARG;
use super::argv::{Spec, Stage};
use super::confine::{self, say};
use super::git_dirs::Watched;
use super::policy::Sandbox;
use super::supervise;

/// Runs the launcher when the program was started as one
/// (`PROGRAM __oy-sandbox STAGE …`) and returns its exit code; `None`
/// for any other command line. Call it before anything else in `main`:
///
/// ```no_run
/// if let Some(code) = oy_tools::sandbox::dispatch(std::env::args_os()) {
///     std::process::exit(code);
/// }
/// ```
pub fn dispatch(args: impl IntoIterator<Item = OsString>) -> Option<i32> {
    let mut args = args.into_iter();
    let _program = args.next();
    if args.next().as_deref() != Some(OsStr::new(LAUNCHER_ARG)) {
        return None;
    }
    let stage = match args.next().as_deref().and_then(OsStr::to_str) {
        Some("supervise") => Stage::Supervise,
        Some("confine") => Stage::Confine,
        _ => {
            say("oy sandbox: unknown launcher stage");
            return Some(confine::SETUP_FAILED);
        }
    };
    let rest: Vec<OsString> = args.collect();
    let spec = match Spec::decode(&rest) {
        Ok(spec) => spec,
        Err(problem) => {
            say(&format!("oy sandbox: bad launcher arguments: {problem}"));
            return Some(confine::SETUP_FAILED);
        }
    };
    Some(match stage {
        Stage::Supervise => supervise::run(&spec),
        Stage::Confine => confine::run(&spec),
    })
}

/// Hardens the running program against its own children: marks it
/// non-dumpable, so a child of the same user cannot read its memory or
/// `/proc/<pid>/environ` (where the provider key lives) even with the
/// sandbox off. Call once at start-up, after [`dispatch`].
pub fn protect_process() -> std::io::Result<()> {
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .map_err(std::io::Error::from)
}

/// One command a tool wants to run.
#[derive(Debug)]
pub(crate) struct Launch {
    /// A program name (looked up on the child's `PATH`) or path.
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
    /// The host directory it runs in (inside the workspace).
    pub(crate) cwd: PathBuf,
    /// The child's environment (already filtered), plus any the call adds.
    pub(crate) env: Vec<(OsString, OsString)>,
    /// On a PTY oy made.
    pub(crate) pty: bool,
}

/// The command to spawn for a [`Launch`].
#[derive(Debug)]
pub(crate) struct Launched {
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
    pub(crate) cwd: PathBuf,
    pub(crate) env: Vec<(OsString, OsString)>,
    /// Runs under the supervisor: stop it with SIGTERM, not by killing
    /// its process group.
    pub(crate) supervised: bool,
    /// Protected names checked when the call ends.
    pub(crate) watched: Watched,
}

impl Launched {
    /// As a `std::process::Command` (stdio left to the caller).
    pub(crate) fn command(&self) -> std::process::Command {
        let mut command = std::process::Command::new(&self.program);
        command
            .args(&self.args)
            .current_dir(&self.cwd)
            .env_clear()
            .envs(self.env.iter().map(|(name, value)| (name, value)));
        command
    }

    /// Once every process of the call is gone: removes the protected paths
    /// it created (a `.git/commondir` pointing elsewhere, a new `.oy/`) and
    /// puts back protected links it replaced; returns a line for the model
    /// saying so, or `None`.
    pub(crate) fn undo_protected(&self) -> Option<String> {
        self.watched.undo()
    }
}

impl Sandbox {
    /// Wraps `launch` in the launcher (when there is one) for the
    /// workspace at `root`. `Err(NotFound)` when the program is not on the
    /// child's `PATH`; `Err(Other)` when the private temporary directory
    /// cannot be made.
    pub(crate) fn wrap(
        &self,
        launch: Launch,
        root: &Path,
        network: bool,
    ) -> std::io::Result<Launched> {
        let Launch {
            program,
            args,
            cwd,
            mut env,
            pty,
        } = launch;
        let Some(launcher) = self.launcher() else {
            return Ok(Launched {
                program,
                args,
                cwd,
                env,
                supervised: false,
                watched: Watched::default(),
            });
        };
        let resolved = resolve_program(&program, &env, &cwd)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such program"))?;
        let (spec, watched) = self
            .spec(root, resolved.into_os_string(), args, pty, network)
            .map_err(std::io::Error::other)?;
        if spec.confine {
            let temp = self.temp_dir().map_err(std::io::Error::other)?;
            env.retain(|(name, _)| name != "TMPDIR");
            env.push(("TMPDIR".into(), temp.as_os_str().to_owned()));
        }
        let mut launcher_args = vec![OsString::from(LAUNCHER_ARG)];
        launcher_args.extend(spec.encode(Stage::Supervise));
        Ok(Launched {
            program: launcher.as_os_str().to_owned(),
            args: launcher_args,
            cwd,
            // The launcher itself runs with nothing but the carriers.
            env: super::env_transport::encode(&env),
            supervised: true,
            watched,
        })
    }
}

impl Sandbox {
    /// A command that runs `program args` in `cwd` (inside the workspace at
    /// `root`) under this sandbox exactly as a tool call would, with `env`
    /// as its environment and stdio left to the caller — what
    /// `oy sandbox -- CMD` runs.
    pub fn command(
        &self,
        program: &OsStr,
        args: &[OsString],
        cwd: &Path,
        env: &crate::ChildEnv,
        root: &Path,
        network: bool,
    ) -> std::io::Result<std::process::Command> {
        let launch = Launch {
            program: program.to_owned(),
            args: args.to_vec(),
            cwd: cwd.to_path_buf(),
            env: env.vars().to_vec(),
            pty: false,
        };
        let launched = self.wrap(launch, root, network)?;
        let mut command = launched.command();
        if !launched.supervised {
            std::os::unix::process::CommandExt::process_group(&mut command, 0);
        }
        Ok(command)
    }
}

/// `program` as the child would find it: a path with a `/` (relative to
/// `cwd`), or the first executable regular file of that name on the
/// child's `PATH` (absolute entries only, as the environment filter left
/// them).
fn resolve_program(program: &OsStr, env: &[(OsString, OsString)], cwd: &Path) -> Option<PathBuf> {
    if program.as_bytes().contains(&b'/') {
        let path = cwd.join(program);
        return is_executable(&path).then_some(path);
    }
    if program.is_empty() {
        return None;
    }
    let path_var = env
        .iter()
        .rev()
        .find(|(name, _)| name == "PATH")
        .map(|(_, value)| value.as_os_str())?;
    path_var
        .as_bytes()
        .split(|byte| *byte == b':')
        .filter(|entry| entry.first() == Some(&b'/'))
        .map(|entry| Path::new(OsStr::from_bytes(entry)).join(program))
        .find(|candidate| is_executable(candidate))
}

/// A regular file this user may execute.
pub(crate) fn is_executable(path: &Path) -> bool {
    use rustix::fs::{Access, FileType};
    rustix::fs::stat(path)
        .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile)
        && rustix::fs::access(path, Access::EXEC_OK).is_ok()
}
