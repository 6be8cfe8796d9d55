//! `Secret`: an API key that never shows up in `Debug`, `Display`, logs or
//! error messages.

use std::fmt;

/// A credential. Only [`Secret::expose`] reveals it, at the one place a
/// request header is built.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself: call only where it goes on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True for an empty value (local servers need no key).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}
