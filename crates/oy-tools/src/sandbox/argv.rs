//! `Spec`: what one sandboxed command runs under, and its encoding as the
//! launcher's arguments (`--read PATH`, `--net`, `-- PROGRAM ARGS…`).
//! Arguments rather than JSON because paths need not be UTF-8.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// The launcher's two stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Session, subreaper, kill-all; spawns the confine stage (or, with
    /// the sandbox off, the program itself).
    Supervise,
    /// Restricts itself and `exec`s the program.
    Confine,
}

impl Stage {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Supervise => "supervise",
            Self::Confine => "confine",
        }
    }
}

/// One command and its confinement.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Spec {
    /// The command runs on a PTY oy created (its controlling terminal).
    pub(crate) pty: bool,
    /// Sockets other than AF_UNIX are allowed.
    pub(crate) network: bool,
    /// Apply the confine stage at all (false: sandbox off).
    pub(crate) confine: bool,
    /// Apply Landlock (the kernel has it).
    pub(crate) landlock: bool,
    /// Apply the seccomp filter (the kernel has it).
    pub(crate) seccomp: bool,
    /// Make a private mount namespace: everything read-only but `write`,
    /// `pin` and `protect` applied (the kernel allows one).
    pub(crate) mounts: bool,
    /// Readable and executable hierarchies.
    pub(crate) read: Vec<PathBuf>,
    /// Writable hierarchies.
    pub(crate) write: Vec<PathBuf>,
    /// Device files that may be opened for reading and writing.
    pub(crate) devices: Vec<PathBuf>,
    /// Paths inside writable hierarchies made read-only by bind mounts.
    pub(crate) protect: Vec<PathBuf>,
    /// Directories bound onto themselves (still writable) so they cannot
    /// be renamed or removed.
    pub(crate) pin: Vec<PathBuf>,
    /// Protected names that did not exist: the supervisor removes any the
    /// command made once every process is gone (also when oy died).
    pub(crate) absent: Vec<PathBuf>,
    /// Protected links and their targets, put back the same way.
    pub(crate) links: Vec<(PathBuf, PathBuf)>,
    /// oy's pid: the supervisor dies with it.
    pub(crate) parent: Option<u32>,
    /// The program (an absolute path) and its arguments.
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
}

impl Spec {
    /// The launcher arguments after [`super::LAUNCHER_ARG`] for `stage`.
    pub(crate) fn encode(&self, stage: Stage) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![stage.name().into()];
        for (flag, on) in [
            ("--pty", self.pty),
            ("--net", self.network),
            ("--confine", self.confine),
            ("--landlock", self.landlock),
            ("--seccomp", self.seccomp),
            ("--mounts", self.mounts),
        ] {
            if on {
                out.push(flag.into());
            }
        }
        for (flag, paths) in [
            ("--read", &self.read),
            ("--write", &self.write),
            ("--dev", &self.devices),
            ("--protect", &self.protect),
            ("--pin", &self.pin),
            ("--absent", &self.absent),
        ] {
            for path in paths {
                out.push(flag.into());
                out.push(path.clone().into_os_string());
            }
        }
        for (link, target) in &self.links {
            out.push("--link".into());
            out.push(link.clone().into_os_string());
            out.push(target.clone().into_os_string());
        }
        if let Some(parent) = self.parent {
            out.push("--parent".into());
            out.push(parent.to_string().into());
        }
        out.push("--".into());
        out.push(self.program.clone());
        out.extend(self.args.iter().cloned());
        out
    }

    /// Parses what [`Self::encode`] wrote (without the stage).
    pub(crate) fn decode(args: &[OsString]) -> Result<Self, String> {
        let mut spec = Self::default();
        let mut rest = args.iter();
        let value = |rest: &mut std::slice::Iter<'_, OsString>, flag: &str| {
            rest.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        while let Some(arg) = rest.next() {
            match arg.to_str() {
                Some("--pty") => spec.pty = true,
                Some("--net") => spec.network = true,
                Some("--confine") => spec.confine = true,
                Some("--landlock") => spec.landlock = true,
                Some("--seccomp") => spec.seccomp = true,
                Some("--mounts") => spec.mounts = true,
                Some("--read") => spec.read.push(value(&mut rest, "--read")?.into()),
                Some("--write") => spec.write.push(value(&mut rest, "--write")?.into()),
                Some("--dev") => spec.devices.push(value(&mut rest, "--dev")?.into()),
                Some("--protect") => spec.protect.push(value(&mut rest, "--protect")?.into()),
                Some("--pin") => spec.pin.push(value(&mut rest, "--pin")?.into()),
                Some("--absent") => spec.absent.push(value(&mut rest, "--absent")?.into()),
                Some("--link") => {
                    let link = value(&mut rest, "--link")?;
                    let target = value(&mut rest, "--link")?;
                    spec.links.push((link.into(), target.into()));
                }
                Some("--parent") => {
                    let text = value(&mut rest, "--parent")?;
                    let pid = text
                        .to_str()
                        .and_then(|text| text.parse().ok())
                        .ok_or("--parent needs a process id")?;
                    spec.parent = Some(pid);
                }
                Some("--") => {
                    spec.program = rest.next().cloned().ok_or("no program after --")?;
                    spec.args = rest.cloned().collect();
                    return Ok(spec);
                }
                _ => return Err(format!("unknown argument {}", show(arg))),
            }
        }
        Err("no `--` before the program".to_owned())
    }
}

fn show(arg: &OsStr) -> String {
    arg.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_then_decode_is_identity() {
        let spec = Spec {
            pty: true,
            network: false,
            confine: true,
            landlock: true,
            seccomp: true,
            mounts: true,
            read: vec!["/usr".into(), "/weird path/\u{e9}".into()],
            write: vec!["/ws".into()],
            devices: vec!["/dev/null".into()],
            protect: vec!["/ws/.git/config".into()],
            pin: vec!["/ws/.git".into()],
            absent: vec!["/ws/.git/commondir".into()],
            links: vec![("/ws/.git/hooks".into(), "../h".into())],
            parent: Some(42),
            program: "/bin/bash".into(),
            args: vec!["-c".into(), "--read x -- y".into()],
        };
        let encoded = spec.encode(Stage::Confine);
        assert_eq!(encoded[0], "confine");
        assert_eq!(Spec::decode(&encoded[1..]), Ok(spec));
    }

    #[test]
    fn rejects_unknown_flags_and_missing_program() {
        assert!(Spec::decode(&["--bogus".into()]).is_err());
        assert!(Spec::decode(&["--read".into()]).is_err());
        assert!(Spec::decode(&["--pty".into(), "--".into()]).is_err());
    }
}
