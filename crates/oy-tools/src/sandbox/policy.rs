//! `Sandbox`: the resolved sandbox of one tool context — the setting, the
//! launcher, what the kernel supports, the readable hierarchies, oy's own
//! directories, and the private temporary directory children write to.
//! The frontend collects plain values into [`SandboxInputs`]; which paths
//! those values grant is decided here.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::argv::Spec;
use super::git_dirs::{self, Watched};
use super::probe::{Level, Support};

/// The user's choice (`--sandbox`, the global config). A workspace's
/// config can only turn it on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxSetting {
    /// Confine every command as far as the kernel allows (the default).
    #[default]
    On,
    /// Commands run with the user's full authority (still in their own
    /// session, and nothing outlives the call).
    Off,
}

impl SandboxSetting {
    /// `on` or `off`.
    pub fn name(self) -> &'static str {
        match self {
            Self::On => "on",
            Self::Off => "off",
        }
    }

    /// Parses `on`/`off` (and `true`/`false`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "on" | "true" => Some(Self::On),
            "off" | "false" => Some(Self::Off),
            _ => None,
        }
    }
}

/// Environment variables naming toolchain and cache directories that
/// builds read; the frontend passes their values in
/// [`SandboxInputs::toolchain_env`].
pub const TOOLCHAIN_VARS: &[&str] = &[
    "CARGO_HOME",
    "RUSTUP_HOME",
    "GOPATH",
    "GOMODCACHE",
    "GOCACHE",
    "GOROOT",
    "PYENV_ROOT",
    "NVM_DIR",
    "VOLTA_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "UV_CACHE_DIR",
    "PIP_CACHE_DIR",
    "npm_config_cache",
    "GRADLE_USER_HOME",
    "SDKMAN_DIR",
    "JAVA_HOME",
    "RBENV_ROOT",
    "GEM_HOME",
];

/// System hierarchies every command may read and execute from.
const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/nix",
    "/snap",
    "/run",
    "/var/lib",
    "/var/cache",
    "/proc",
    "/sys",
];

/// Toolchain and cache paths under the home directory: what builds read,
/// never the credentials kept beside them (`~/.cargo/credentials.toml`,
/// `~/.npmrc`, `~/.m2/settings.xml`, `~/.gradle/gradle.properties`,
/// `~/.git-credentials`, `~/.config/git/credentials`).
const HOME_READ: &[&str] = &[
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    ".cargo/config.toml",
    ".cargo/config",
    ".rustup",
    ".npm",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    ".pyenv",
    ".rbenv",
    ".gem",
    ".local/bin",
    ".local/lib",
    ".local/share/uv",
    ".local/share/pnpm",
    ".cache/pip",
    ".cache/uv",
    ".cache/go-build",
    ".cache/deno",
    ".cache/yarn",
    ".cache/pypoetry",
    "go/pkg",
    "go/bin",
    ".gradle/caches",
    ".gradle/wrapper",
    ".m2/repository",
    ".sdkman/candidates",
    ".gitconfig",
    ".config/git/config",
    ".config/git/ignore",
    ".config/git/attributes",
];

/// Device files any command may open.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// Values the frontend collects for [`Sandbox::resolve`].
#[derive(Debug, Clone, Default)]
pub struct SandboxInputs {
    /// On or off.
    pub setting: SandboxSetting,
    /// The program to re-execute as the launcher (the running `oy`); it
    /// must call [`super::dispatch`] first thing in `main`. `None`: no
    /// launcher, so nothing can be sandboxed.
    pub launcher: Option<PathBuf>,
    /// The user's home directory.
    pub home: Option<PathBuf>,
    /// Values of the [`TOOLCHAIN_VARS`] that are set.
    pub toolchain_env: Vec<(String, OsString)>,
    /// More readable paths from the user's global config.
    pub extra_read: Vec<PathBuf>,
    /// oy's own config and data directories: read-only to commands when
    /// they lie inside the workspace.
    pub private_dirs: Vec<PathBuf>,
    /// Where the per-run temporary directory is made (the system's).
    pub temp_base: PathBuf,
}

/// The resolved sandbox.
#[derive(Debug)]
pub struct Sandbox {
    setting: SandboxSetting,
    launcher: Option<PathBuf>,
    /// What the kernel supports, asked on first use: a command that
    /// starts no process never probes.
    support: OnceLock<Support>,
    read: Vec<PathBuf>,
    private_dirs: Vec<PathBuf>,
    home: Option<PathBuf>,
    temp_base: PathBuf,
    temp: OnceLock<Result<PathBuf, String>>,
}

impl Default for Sandbox {
    /// No launcher: commands run unconfined, in their own process group.
    fn default() -> Self {
        Self::resolve(SandboxInputs {
            setting: SandboxSetting::Off,
            ..SandboxInputs::default()
        })
    }
}

impl Sandbox {
    /// Resolves `inputs` and lists what commands may read. The kernel is
    /// probed (only when the sandbox is on) when something first needs
    /// its answer: a level, a warning, a command's spec.
    pub fn resolve(inputs: SandboxInputs) -> Self {
        let support = OnceLock::new();
        if inputs.setting == SandboxSetting::Off || inputs.launcher.is_none() {
            let _ = support.set(Support {
                landlock_abi: None,
                seccomp: false,
                mount_namespace: false,
            });
        }
        let mut read: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
        if let Some(home) = &inputs.home {
            read.extend(HOME_READ.iter().map(|path| home.join(path)));
        }
        for (name, value) in &inputs.toolchain_env {
            let dir = PathBuf::from(value);
            if !dir.is_absolute()
                || inputs
                    .home
                    .as_deref()
                    .is_some_and(|home| home.starts_with(&dir))
            {
                // `/`, the home directory or one above it would grant it all.
                continue;
            }
            match name.as_str() {
                "CARGO_HOME" => read.extend(
                    ["bin", "registry", "git", "config.toml", "config"]
                        .iter()
                        .map(|part| dir.join(part)),
                ),
                "GRADLE_USER_HOME" => {
                    read.extend(["caches", "wrapper"].iter().map(|part| dir.join(part)));
                }
                "GOPATH" => read.extend(["pkg", "bin"].iter().map(|part| dir.join(part))),
                _ => read.push(dir),
            }
        }
        read.extend(
            inputs
                .extra_read
                .iter()
                .filter(|path| path.is_absolute())
                .cloned(),
        );
        read.sort();
        read.dedup();
        Self {
            setting: inputs.setting,
            launcher: inputs.launcher,
            support,
            read,
            private_dirs: inputs.private_dirs,
            home: inputs.home,
            temp_base: inputs.temp_base,
            temp: OnceLock::new(),
        }
    }

    /// On or off, as the user set it.
    pub fn setting(&self) -> SandboxSetting {
        self.setting
    }

    /// What the kernel supports (all false when the sandbox is off).
    pub fn support(&self) -> &Support {
        self.support.get_or_init(Support::probe)
    }

    /// The level commands run under.
    pub fn level(&self) -> Level {
        if self.setting == SandboxSetting::Off || self.launcher.is_none() {
            Level::None
        } else {
            self.support().level()
        }
    }

    /// Why the level is not full, one sentence each.
    pub fn missing(&self) -> Vec<String> {
        if self.setting == SandboxSetting::Off {
            return vec![
                "the sandbox is off (`--sandbox off` or `sandbox = \"off\"` in the global config): commands run with your full authority"
                    .to_owned(),
            ];
        }
        if self.launcher.is_none() {
            return vec![
                "no launcher is configured: commands run with the program's full authority"
                    .to_owned(),
            ];
        }
        self.support().missing()
    }

    /// What to tell the person once per run when commands are not fully
    /// confined; `None` at the full level.
    pub fn warning(&self) -> Option<String> {
        let level = self.level();
        (level != Level::Full).then(|| {
            format!(
                "commands run with sandbox level {level}: {}",
                self.missing().join("; ")
            )
        })
    }

    /// One line for approval previews and events: `sandbox: full, network off`.
    pub fn describe(&self, network: bool) -> String {
        let level = self.level();
        if level == Level::None {
            return "sandbox: none".to_owned();
        }
        let network = if network { "network on" } else { "network off" };
        format!("sandbox: {level}, workspace-write, {network}")
    }

    /// oy's own config and data directories, as the frontend named them.
    pub fn private_dirs(&self) -> &[PathBuf] {
        &self.private_dirs
    }

    /// The user's home directory, when the frontend knows it.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Hierarchies commands may read (beside the workspace).
    pub fn read_paths(&self) -> &[PathBuf] {
        &self.read
    }

    /// The private temporary directory (the child's `TMPDIR`), made on
    /// first use, 0700; removed when the sandbox is dropped.
    pub fn temp_dir(&self) -> Result<&Path, String> {
        self.temp
            .get_or_init(|| make_temp_dir(&self.temp_base))
            .as_ref()
            .map(PathBuf::as_path)
            .map_err(Clone::clone)
    }

    /// True when commands go through the launcher (supervised).
    pub(crate) fn launcher(&self) -> Option<&Path> {
        self.launcher.as_deref()
    }

    /// The spec for one command in the workspace at `root`, and the
    /// protected paths that do not exist yet (to remove if it makes them).
    pub(crate) fn spec(
        &self,
        root: &Path,
        program: OsString,
        args: Vec<OsString>,
        pty: bool,
        network: bool,
    ) -> Result<(Spec, Watched), String> {
        let confine = self.level() != Level::None;
        let mut spec = Spec {
            pty,
            network,
            confine,
            landlock: confine && self.support().landlock_abi.is_some(),
            seccomp: confine && self.support().seccomp,
            parent: Some(std::process::id()),
            program,
            args,
            ..Spec::default()
        };
        if !confine {
            return Ok((spec, Watched::default()));
        }
        spec.read = self.read.clone();
        spec.write = vec![root.to_path_buf(), self.temp_dir()?.to_path_buf()];
        spec.devices = DEVICES.iter().map(PathBuf::from).collect();
        if pty {
            spec.devices.push("/dev/tty".into());
        }
        let git = git_dirs::find(root);
        spec.write.extend(git.writable_outside.iter().cloned());
        spec.read.extend(git.readable_outside.iter().cloned());
        let mut watched = Watched::default();
        if self.support().mount_namespace {
            spec.mounts = true;
            spec.protect = self.protected(root, git.protected);
            spec.pin = git.pinned;
            watched.absent = git.absent;
            watched.absent.extend(
                spec.protect
                    .iter()
                    .filter(|path| rustix::fs::lstat(path.as_path()).is_err())
                    .cloned(),
            );
            watched.links = git.links;
            let (pins, links) = super::ancestors::guarded_ways(root, &spec.protect);
            spec.pin.extend(pins);
            spec.pin.sort_by_key(|dir| dir.as_os_str().len());
            spec.pin.dedup();
            watched.links.extend(links);
            spec.absent = watched.absent.clone();
            spec.links = watched.links.clone();
        }
        Ok((spec, watched))
    }

    /// What commands in the workspace at `root` may not change although it
    /// lies inside a writable hierarchy: git's code-running parts, `.oy/`,
    /// and oy's own directories when they are inside. Empty when the
    /// kernel cannot enforce it (see [`Support::mount_namespace`]).
    pub fn protected_paths(&self, root: &Path) -> Vec<PathBuf> {
        if self.level() == Level::None || !self.support().mount_namespace {
            return Vec::new();
        }
        let protected = self.protected(root, git_dirs::find(root).protected);
        protected
            .into_iter()
            .filter(|path| rustix::fs::lstat(path).is_ok())
            .collect()
    }

    fn protected(&self, root: &Path, mut protected: Vec<PathBuf>) -> Vec<PathBuf> {
        protected.push(root.join(".oy"));
        // Inside as named, or where links lead.
        protected.extend(
            self.private_dirs
                .iter()
                .filter(|dir| dir.starts_with(root) || canonical_inside(dir, root))
                .cloned(),
        );
        protected
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Some(Ok(dir)) = self.temp.get() {
            remove_temp_dir(dir);
        }
    }
}

fn make_temp_dir(base: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    let base = if base.as_os_str().is_empty() {
        Path::new("/tmp")
    } else {
        base
    };
    let mut last_error = String::new();
    for _ in 0..8 {
        let dir = base.join(format!(
            "oy-{}-{:08x}",
            std::process::id(),
            fastrand::u32(..)
        ));
        // Exclusive create: an existing (perhaps planted) name is never used.
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(error) => last_error = error.to_string(),
        }
    }
    Err(format!(
        "cannot make a private temporary directory in {}: {last_error}",
        base.display()
    ))
}

#[expect(
    clippy::disallowed_methods,
    reason = "oy's own per-run temporary directory, outside the workspace"
)]
fn remove_temp_dir(dir: &Path) {
    // Does not follow symlinks a command left inside.
    if std::fs::remove_dir_all(dir).is_ok() {
        return;
    }
    // A command may have taken its own write or search bits away
    // (`chmod 000 $TMPDIR/d`): give them back, without following links,
    // and try once more.
    restore_owner_bits(dir, 0);
    let _ = std::fs::remove_dir_all(dir);
}

#[expect(
    clippy::disallowed_methods,
    reason = "oy's own per-run temporary directory, outside the workspace"
)]
fn restore_owner_bits(dir: &Path, depth: usize) {
    let Ok(stat) = rustix::fs::lstat(dir) else {
        return;
    };
    if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::Directory
        || depth > 64
    {
        return;
    }
    let mode = rustix::fs::Mode::from_raw_mode(stat.st_mode) | rustix::fs::Mode::RWXU;
    let _ = rustix::fs::chmod(dir, mode);
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            restore_owner_bits(&entry.path(), depth + 1);
        }
    }
}

/// True when `dir` exists and really lies inside `root` (through links).
#[expect(
    clippy::disallowed_methods,
    reason = "oy's own directories as the kernel resolves them, not workspace files"
)]
fn canonical_inside(dir: &Path, root: &Path) -> bool {
    std::fs::canonicalize(dir).is_ok_and(|real| real.starts_with(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(setting: SandboxSetting, launcher: Option<&str>) -> Sandbox {
        Sandbox::resolve(SandboxInputs {
            setting,
            launcher: launcher.map(PathBuf::from),
            ..SandboxInputs::default()
        })
    }

    #[test]
    fn the_kernel_is_asked_on_first_use_and_only_when_the_sandbox_is_on() {
        let on = resolved(SandboxSetting::On, Some("/proc/self/exe"));
        assert!(on.support.get().is_none(), "probed before any use");
        assert_eq!(on.support(), &Support::probe());
        assert_eq!(on.level(), Support::probe().level());
        let unconfined = Support {
            landlock_abi: None,
            seccomp: false,
            mount_namespace: false,
        };
        for sandbox in [
            resolved(SandboxSetting::Off, Some("/proc/self/exe")),
            resolved(SandboxSetting::On, None),
        ] {
            assert_eq!(sandbox.support.get(), Some(&unconfined));
            assert_eq!(sandbox.level(), Level::None);
        }
    }
}
