//! `Ceiling`: the caps a workspace's own config may set. It speaks for a
//! repository the user may not trust, so each cap can only lower a
//! privilege — the mode, the network switch, the turn limit — or turn the
//! sandbox on, whatever chose the value it caps.

use std::fmt;

use crate::policy::{Mode, Network, Policy};
use crate::sandbox::SandboxSetting;

/// What a workspace config asks for. `None` caps nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ceiling {
    /// The highest mode allowed.
    pub mode: Option<Mode>,
    /// The loosest network switch allowed.
    pub network: Option<Network>,
    /// Only `On` has an effect: a workspace can turn the sandbox on, never off.
    pub sandbox: Option<SandboxSetting>,
    /// The most model requests a turn may make.
    pub max_turns: Option<u32>,
}

/// A run's privileges as the user chose them (flags, environment, their
/// own config), before a workspace's ceiling applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Privileges {
    /// Mode, network switch, and whether a person can answer.
    pub policy: Policy,
    /// True when the network switch was chosen rather than taken from the
    /// mode: a lowered mode then keeps it instead of its own default.
    pub network_chosen: bool,
    /// The command sandbox.
    pub sandbox: SandboxSetting,
    /// Model requests allowed per turn.
    pub max_turns: Option<u32>,
}

/// One cap the ceiling applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lowering {
    /// The mode went down.
    Mode {
        /// Before.
        from: Mode,
        /// After.
        to: Mode,
    },
    /// The network switch got stricter.
    Network {
        /// Before.
        from: Network,
        /// After.
        to: Network,
    },
    /// The sandbox, off before, is on.
    SandboxOn,
    /// A turn limit is in force (reported whether or not it was lower
    /// than the run's own: it also caps a later choice).
    MaxTurns {
        /// The cap.
        cap: u32,
    },
}

impl fmt::Display for Lowering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mode { from, to } => write!(f, "mode lowered from {from} to {to}"),
            Self::Network { from, to } => {
                write!(f, "network lowered from {} to {}", from.name(), to.name())
            }
            Self::SandboxOn => f.write_str("sandbox turned on"),
            Self::MaxTurns { cap } => write!(f, "max_turns capped at {cap}"),
        }
    }
}

/// One cap the ceiling refused (an overreach): it would have raised a
/// privilege.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Overreach {
    /// The workspace named a mode above the run's.
    RaiseMode {
        /// What the workspace asked for.
        wanted: Mode,
        /// What the run has (and keeps).
        current: Mode,
    },
    /// The workspace named a looser network switch than the run's.
    LoosenNetwork {
        /// What the workspace asked for.
        wanted: Network,
        /// What the run has (and keeps).
        current: Network,
    },
    /// The workspace asked for the sandbox off.
    SandboxOff,
}

impl fmt::Display for Overreach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RaiseMode { wanted, current } => {
                write!(f, "mode {wanted} would raise the mode above {current}")
            }
            Self::LoosenNetwork { wanted, current } => write!(
                f,
                "network {} would loosen network {}",
                wanted.name(),
                current.name()
            ),
            Self::SandboxOff => f.write_str("a workspace cannot turn the sandbox off"),
        }
    }
}

/// What [`Ceiling::apply`] did, in the order the caps are applied (mode,
/// network, sandbox, turns).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CeilingReport {
    /// The caps that took effect.
    pub lowered: Vec<Lowering>,
    /// The caps refused because they would have raised a privilege.
    pub ignored: Vec<Overreach>,
}

impl Ceiling {
    /// Lowers `privileges` to the ceiling and says what changed. Never
    /// raises anything: a cap above the run's value is reported as
    /// ignored and leaves the value as it was.
    pub fn apply(&self, privileges: &mut Privileges) -> CeilingReport {
        let mut report = CeilingReport::default();
        let policy = &mut privileges.policy;
        if let Some(mode) = self.mode {
            if privilege(mode) < privilege(policy.mode) {
                report.lowered.push(Lowering::Mode {
                    from: policy.mode,
                    to: mode,
                });
                policy.mode = mode;
                if !privileges.network_chosen {
                    // The lower mode's default; the stricter of the two
                    // keeps this monotone even for a caller whose network
                    // was not the old mode's default.
                    policy.network = stricter(policy.network, mode.default_network());
                }
            } else if mode != policy.mode {
                report.ignored.push(Overreach::RaiseMode {
                    wanted: mode,
                    current: policy.mode,
                });
            }
        }
        if let Some(network) = self.network {
            if strictness(network) < strictness(policy.network) {
                report.lowered.push(Lowering::Network {
                    from: policy.network,
                    to: network,
                });
                policy.network = network;
            } else if network != policy.network {
                report.ignored.push(Overreach::LoosenNetwork {
                    wanted: network,
                    current: policy.network,
                });
            }
        }
        match self.sandbox {
            Some(SandboxSetting::On) if privileges.sandbox == SandboxSetting::Off => {
                privileges.sandbox = SandboxSetting::On;
                report.lowered.push(Lowering::SandboxOn);
            }
            Some(SandboxSetting::Off) => report.ignored.push(Overreach::SandboxOff),
            _ => {}
        }
        if let Some(cap) = self.max_turns {
            privileges.max_turns = self.cap_turns(privileges.max_turns);
            report.lowered.push(Lowering::MaxTurns { cap });
        }
        report
    }

    /// `mode`, or the ceiling's mode when that is lower.
    pub fn cap_mode(&self, mode: Mode) -> Mode {
        match self.mode {
            Some(ceiling) if privilege(ceiling) < privilege(mode) => ceiling,
            _ => mode,
        }
    }

    /// `network`, or the ceiling's network when that is stricter.
    pub fn cap_network(&self, network: Network) -> Network {
        self.network
            .map_or(network, |ceiling| stricter(ceiling, network))
    }

    /// The turn limit: `turns`, at most the cap; the cap when `turns` is
    /// unlimited.
    pub fn cap_turns(&self, turns: Option<u32>) -> Option<u32> {
        match (turns, self.max_turns) {
            (Some(turns), Some(cap)) => Some(turns.min(cap)),
            (turns, cap) => turns.or(cap),
        }
    }

    /// The policy for switching to `mode` mid-run (a chat's `/mode`):
    /// `chosen_network` when the user chose one, else the mode's default,
    /// and neither above the ceiling.
    pub fn policy_for(
        &self,
        mode: Mode,
        chosen_network: Option<Network>,
        interactive: bool,
    ) -> Policy {
        let mut policy = Policy::new(self.cap_mode(mode), interactive);
        if let Some(network) = chosen_network {
            policy.network = network;
        }
        policy.network = self.cap_network(policy.network);
        policy
    }
}

/// Mode order by privilege: plan < default < accept-edits < auto-approve.
fn privilege(mode: Mode) -> u8 {
    match mode {
        Mode::Plan => 0,
        Mode::Default => 1,
        Mode::AcceptEdits => 2,
        Mode::AutoApprove => 3,
    }
}

/// Network order by permission: deny < ask < allow.
fn strictness(network: Network) -> u8 {
    match network {
        Network::Deny => 0,
        Network::Ask => 1,
        Network::Allow => 2,
    }
}

fn stricter(a: Network, b: Network) -> Network {
    if strictness(a) <= strictness(b) { a } else { b }
}
