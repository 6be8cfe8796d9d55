//! The approval policy: safety modes, the network switch, and what each
//! allows per kind of effect (README, "Everyday use"), and the
//! [`Ceiling`] a workspace's config may put on them.

mod ceiling;

pub use ceiling::{Ceiling, CeilingReport, Lowering, Overreach, Privileges};

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::spec::Effect;

/// A safety mode. Each has a long name and a short alias.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// `default` / `ask`: reads allowed, writes and processes ask.
    #[default]
    Default,
    /// `plan` / `read`: reads only; writes and processes are not offered.
    Plan,
    /// `accept-edits` / `edit`: writes automatic, processes ask.
    AcceptEdits,
    /// `auto-approve` / `auto`: writes and processes automatic.
    AutoApprove,
}

impl Mode {
    /// Every mode, in order of increasing privilege except plan first.
    pub const ALL: [Mode; 4] = [
        Mode::Plan,
        Mode::Default,
        Mode::AcceptEdits,
        Mode::AutoApprove,
    ];

    /// The canonical name (`default`, `plan`, `accept-edits`, `auto-approve`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Plan => "plan",
            Self::AcceptEdits => "accept-edits",
            Self::AutoApprove => "auto-approve",
        }
    }

    /// The short alias (`ask`, `read`, `edit`, `auto`).
    pub fn alias(self) -> &'static str {
        match self {
            Self::Default => "ask",
            Self::Plan => "read",
            Self::AcceptEdits => "edit",
            Self::AutoApprove => "auto",
        }
    }

    /// The network setting this mode implies when none is given.
    pub fn default_network(self) -> Network {
        match self {
            Self::Plan => Network::Deny,
            Self::AutoApprove => Network::Allow,
            Self::Default | Self::AcceptEdits => Network::Ask,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown mode or network name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{given}` (expected one of: {expected})")]
pub struct UnknownName {
    what: &'static str,
    given: String,
    expected: &'static str,
}

impl FromStr for Mode {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mode::ALL
            .into_iter()
            .find(|mode| s == mode.name() || s == mode.alias())
            .ok_or_else(|| UnknownName {
                what: "mode",
                given: s.to_owned(),
                expected: "default|ask, plan|read, accept-edits|edit, auto-approve|auto",
            })
    }
}

/// The network switch (`--network`), separate from the mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Network {
    /// Fetches go ahead.
    Allow,
    /// Each fetch asks (a denial without an interactive user).
    Ask,
    /// The network tool is not offered.
    Deny,
}

impl Network {
    /// The name `--network` takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

impl FromStr for Network {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "allow" => Ok(Self::Allow),
            "ask" => Ok(Self::Ask),
            "deny" => Ok(Self::Deny),
            _ => Err(UnknownName {
                what: "network setting",
                given: s.to_owned(),
                expected: "allow, ask, deny",
            }),
        }
    }
}

/// What the policy says about one action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Go ahead without asking.
    Allow,
    /// Ask the person first; without one, deny.
    Ask,
    /// Refuse; the tool is not offered at all.
    Deny,
}

/// A mode plus a network setting, and whether a person can be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// The safety mode.
    pub mode: Mode,
    /// The network switch (the mode's default unless given).
    pub network: Network,
    /// True when an interactive person can answer approvals and questions.
    pub interactive: bool,
}

impl Policy {
    /// The policy for `mode` with its default network setting.
    pub fn new(mode: Mode, interactive: bool) -> Self {
        Self {
            mode,
            network: mode.default_network(),
            interactive,
        }
    }

    /// The mode's rule for `effect` (before considering who can answer).
    pub fn decide(&self, effect: Effect) -> Decision {
        match (effect, self.mode) {
            (Effect::Read, _) => Decision::Allow,
            (Effect::AskUser, _) => {
                if self.interactive {
                    Decision::Allow
                } else {
                    Decision::Deny
                }
            }
            (Effect::Network, _) => match self.network {
                Network::Allow => Decision::Allow,
                Network::Ask => Decision::Ask,
                Network::Deny => Decision::Deny,
            },
            (Effect::WorkspaceWrite | Effect::Process, Mode::Plan) => Decision::Deny,
            (Effect::WorkspaceWrite, Mode::AcceptEdits | Mode::AutoApprove) => Decision::Allow,
            (Effect::Process, Mode::AutoApprove) => Decision::Allow,
            (Effect::WorkspaceWrite | Effect::Process, _) => Decision::Ask,
        }
    }

    /// True when a tool with this effect is listed for the model. "Ask"
    /// tools are listed even without a person: the call is then refused
    /// with a message naming the mode that would allow it.
    pub fn offers(&self, effect: Effect) -> bool {
        self.decide(effect) != Decision::Deny
    }

    /// What would let `effect` run without asking: the mode or setting,
    /// by name.
    pub fn hint_for(&self, effect: Effect) -> String {
        // Modes and settings by name, never a frontend's flags: an
        // embedding program has its own way to choose them.
        match effect {
            Effect::WorkspaceWrite => {
                "use the accept-edits (or auto-approve) mode to allow file changes, or run interactively to approve each one".to_owned()
            }
            Effect::Process => {
                "use the auto-approve mode to allow commands, or run interactively to approve each one".to_owned()
            }
            Effect::Network => "allow the network (network: allow) to allow fetches".to_owned(),
            Effect::AskUser => "decide yourself and say what you assumed".to_owned(),
            Effect::Read => String::new(),
        }
    }
}
