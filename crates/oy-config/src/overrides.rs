//! [`Overrides`]: the values a frontend was given for this run (flags, or
//! the `OY_*` variables that stand for them), each beating the config file;
//! and [`is_interactive`], whether a person can answer.

use std::ffi::OsString;

use oy_provider::Sourced;

/// What the frontend was told for this run. Every field is optional: an
/// unset one leaves the choice to the config file and the defaults. Names
/// are checked by [`crate::Settings::resolve`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Overrides {
    /// A mode name (`plan`, `edit`, …).
    pub mode: Option<String>,
    /// A network setting (`allow`, `ask`, `deny`).
    pub network: Option<String>,
    /// A sandbox setting (`on`, `off`).
    pub sandbox: Option<String>,
    /// The model, and where it was named (the reason shown for it).
    pub model: Option<Sourced>,
    /// The provider name, and where it was named.
    pub provider: Option<Sourced>,
    /// The OpenAI-compatible wire API (`chat`, `responses`).
    pub wire_api: Option<String>,
}

impl Overrides {
    /// The overrides `oy` reads from the environment when no flag gives
    /// them: `OY_MODE`, `OY_MODEL`, `OY_PROVIDER` and `OY_WIRE_API`, from
    /// `lookup`. An embedding program that wants `oy`'s configuration
    /// starts here.
    pub fn from_env(lookup: impl Fn(&str) -> Option<OsString>) -> Self {
        // An empty variable is an unset one (`OY_MODEL= oy …`), as in a
        // shell's `${OY_MODEL:-default}`.
        let text = |name: &str| {
            lookup(name)
                .and_then(|value| value.into_string().ok())
                .filter(|value| !value.trim().is_empty())
        };
        Self {
            mode: text("OY_MODE"),
            network: None,
            sandbox: None,
            model: text("OY_MODEL").map(|model| Sourced::new(model, "OY_MODEL")),
            provider: text("OY_PROVIDER").map(|name| Sourced::new(name, "OY_PROVIDER")),
            wire_api: text("OY_WIRE_API"),
        }
    }
}

/// A person can answer only when `terminals` (the frontend's input and
/// diagnostics are both terminals) and `OY_NON_INTERACTIVE` is unset, empty
/// or `0`: scripts and CI never get a silent yes.
pub fn is_interactive(lookup: impl Fn(&str) -> Option<OsString>, terminals: bool) -> bool {
    let forced_off = lookup("OY_NON_INTERACTIVE").is_some_and(|v| !v.is_empty() && v != "0");
    !forced_off && terminals
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oy_non_interactive_turns_a_terminal_off() {
        let set = |value: &'static str| move |_: &str| Some(OsString::from(value));
        assert!(!is_interactive(set("1"), true));
        assert!(is_interactive(set("0"), true));
        assert!(is_interactive(set(""), true));
        assert!(is_interactive(|_: &str| None, true));
        assert!(!is_interactive(|_: &str| None, false));
    }

    #[test]
    fn the_environment_names_its_variables_as_sources() {
        let overrides =
            Overrides::from_env(|name: &str| (name == "OY_MODEL").then(|| OsString::from("m1")));
        assert_eq!(overrides.model, Some(Sourced::new("m1", "OY_MODEL")));
        assert!(overrides.provider.is_none() && overrides.mode.is_none());
    }

    #[test]
    fn an_empty_variable_is_no_choice() {
        let overrides = Overrides::from_env(|_: &str| Some(OsString::from(" ")));
        assert!(overrides.model.is_none() && overrides.provider.is_none());
        assert!(overrides.mode.is_none() && overrides.wire_api.is_none());
    }
}
