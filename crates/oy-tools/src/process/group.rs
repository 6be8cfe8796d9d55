//! `Group`: a spawned child that leads its own process group, and the
//! guard that kills the whole group — on timeout, on cancellation, after
//! the child exits (stray background jobs), and on drop (an unwinding tool).
//!
//! The group is only ever signalled while its leader is unreaped (running
//! or a zombie), so its id cannot have been reused by an unrelated process.

use std::io;
use std::process::{Child, ExitStatus};

use std::time::{Duration, Instant};

use rustix::process::{
    Pid, Signal, WaitId, WaitIdOptions, kill_process, kill_process_group, waitid,
};

/// How long a supervisor gets to kill its descendants and exit after
/// SIGTERM before its group is killed outright.
const SUPERVISOR_GRACE: Duration = Duration::from_secs(2);

/// A child in its own process group (spawned with `process_group(0)`), or
/// the sandbox's supervisor, which makes its own session and kills every
/// descendant when it gets SIGTERM.
#[derive(Debug)]
pub(crate) struct Group {
    child: Child,
    pgid: Pid,
    supervised: bool,
    reaped: bool,
}

impl Group {
    /// Takes ownership of `child`, which must lead its own group (or be a
    /// supervisor, which makes one).
    pub(crate) fn new(child: Child, supervised: bool) -> Self {
        let pgid = Pid::from_child(&child);
        Self {
            child,
            pgid,
            supervised,
            reaped: false,
        }
    }

    /// The child, for taking its pipes.
    pub(crate) fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// True once the leader has exited. It is left a zombie (`WNOWAIT`), so
    /// the group id stays reserved until [`Self::reap`].
    pub(crate) fn has_exited(&self) -> io::Result<bool> {
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match waitid(WaitId::Pid(self.pgid), options) {
            Ok(status) => Ok(status.is_some()),
            Err(rustix::io::Errno::INTR) => Ok(false),
            Err(error) => Err(error.into()),
        }
    }

    /// Ends every process of the call: a supervisor is asked (SIGTERM) and
    /// given [`SUPERVISOR_GRACE`]; otherwise, or after that, `SIGKILL` goes
    /// to the whole group. A group that is already gone is not an error.
    pub(crate) fn kill(&self) {
        if self.reaped {
            return;
        }
        if self.supervised {
            let _ = kill_process(self.pgid, Signal::TERM);
            let deadline = Instant::now() + SUPERVISOR_GRACE;
            while Instant::now() < deadline {
                if self.has_exited().unwrap_or(true) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            let _ = kill_process(self.pgid, Signal::KILL);
        }
        // ESRCH (nobody left) and EPERM (a member changed credentials)
        // leave nothing more to do here.
        let _ = kill_process_group(self.pgid, Signal::KILL);
    }

    /// Waits for the leader and collects its status. Call after [`Self::kill`]
    /// (or once [`Self::has_exited`]) so it cannot block for long.
    pub(crate) fn reap(&mut self) -> io::Result<ExitStatus> {
        let status = self.child.wait();
        self.reaped = true;
        status
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
            let _ = self.child.wait();
            self.reaped = true;
        }
    }
}
