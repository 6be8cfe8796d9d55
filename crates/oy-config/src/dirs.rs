//! [`Dirs`]: oy's config and data directories (XDG), as a pure function of
//! an environment lookup the frontend hands in.

use std::ffi::OsString;
use std::path::PathBuf;

/// Where oy keeps the user's files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Dirs {
    /// `$XDG_CONFIG_HOME/oy` (or `~/.config/oy`): config, global tools.json
    /// and prompt files (`prompts/`).
    pub config_dir: Option<PathBuf>,
    /// `$XDG_DATA_HOME/oy` (or `~/.local/share/oy`): sessions and history.
    pub data_dir: Option<PathBuf>,
}

impl Dirs {
    /// The directories `lookup` (an environment) implies: `$VAR/oy` when
    /// `VAR` is an absolute path, else under `$HOME`; `None` when neither
    /// is set.
    pub fn from_env(lookup: impl Fn(&str) -> Option<OsString>) -> Self {
        Self {
            config_dir: xdg_dir(&lookup, "XDG_CONFIG_HOME", ".config"),
            data_dir: xdg_dir(&lookup, "XDG_DATA_HOME", ".local/share"),
        }
    }

    /// The global config file, `CONFIG_DIR/config.toml`: the file a
    /// frontend reads and hands to [`crate::Settings::resolve`].
    pub fn config_file(&self) -> Option<PathBuf> {
        self.config_dir.as_ref().map(|dir| dir.join("config.toml"))
    }
}

/// `$VAR/oy` when `VAR` is an absolute path, else `$HOME/FALLBACK/oy`.
fn xdg_dir(
    lookup: &impl Fn(&str) -> Option<OsString>,
    var: &str,
    fallback: &str,
) -> Option<PathBuf> {
    let base = lookup(var)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| lookup("HOME").map(|home| PathBuf::from(home).join(fallback)))?;
    Some(base.join("oy"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    #[test]
    fn xdg_variables_beat_home() {
        let dirs = Dirs::from_env(env(&[
            ("HOME", "/Users/u"),
            ("XDG_CONFIG_HOME", "/cfg"),
            ("XDG_DATA_HOME", "/data"),
        ]));
        assert_eq!(dirs.config_dir, Some(PathBuf::from("/cfg/oy")));
        assert_eq!(dirs.data_dir, Some(PathBuf::from("/data/oy")));
        assert_eq!(
            dirs.config_file(),
            Some(PathBuf::from("/cfg/oy/config.toml"))
        );
    }

    #[test]
    fn relative_or_empty_xdg_variables_fall_back_to_home() {
        let dirs = Dirs::from_env(env(&[
            ("HOME", "/Users/u"),
            ("XDG_CONFIG_HOME", "rel"),
            ("XDG_DATA_HOME", ""),
        ]));
        assert_eq!(dirs.config_dir, Some(PathBuf::from("/Users/u/.config/oy")));
        assert_eq!(
            dirs.data_dir,
            Some(PathBuf::from("/Users/u/.local/share/oy"))
        );
    }

    #[test]
    fn no_home_and_no_xdg_means_no_directories() {
        assert_eq!(Dirs::from_env(env(&[])), Dirs::default());
    }
}
