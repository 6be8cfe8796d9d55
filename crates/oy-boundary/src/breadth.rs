//! [`BroadRoot`]: a workspace root too broad to work in as a whole — the
//! filesystem's root or the person's home directory. Working there walks,
//! offers the model and (for an audit) could send everything the person
//! owns, so frontends warn or refuse; the rule lives here so every
//! frontend and library decides it the same way.

use std::path::Path;

/// Why a root is too broad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BroadRoot {
    /// `/`: no parent.
    FilesystemRoot,
    /// The home directory itself (not a project under it).
    Home,
}

impl BroadRoot {
    /// The broad place `root` is, if it is one. Both paths are compared
    /// component by component as given: pass them resolved the same way
    /// (a [`crate::Workspace`]'s root is canonical, so canonicalise
    /// `home` too: a home reached through a link is still the home).
    pub fn of(root: &Path, home: Option<&Path>) -> Option<Self> {
        if root.parent().is_none() {
            Some(Self::FilesystemRoot)
        } else if home.is_some_and(|home| root.components().eq(home.components())) {
            Some(Self::Home)
        } else {
            None
        }
    }

    /// `the filesystem's root` or `the home directory`.
    pub fn what(self) -> &'static str {
        match self {
            Self::FilesystemRoot => "the filesystem's root",
            Self::Home => "the home directory",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_and_the_home_are_broad_a_project_is_not() {
        let home = Some(Path::new("/Users/u"));
        assert_eq!(
            BroadRoot::of(Path::new("/"), home),
            Some(BroadRoot::FilesystemRoot)
        );
        assert_eq!(
            BroadRoot::of(Path::new("/Users/u"), home),
            Some(BroadRoot::Home)
        );
        assert_eq!(
            BroadRoot::of(Path::new("/Users/u/"), home),
            Some(BroadRoot::Home)
        );
        assert_eq!(BroadRoot::of(Path::new("/Users/u/project"), home), None);
        assert_eq!(BroadRoot::of(Path::new("/Users"), home), None);
        assert_eq!(BroadRoot::of(Path::new("/Users/u"), None), None);
        assert_eq!(BroadRoot::Home.what(), "the home directory");
    }
}
