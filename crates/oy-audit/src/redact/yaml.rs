//! Values below a secret-named YAML key (`password: |`, `secret:` with an
//! indented scalar), which the line before names and the lines after hold.

use std::sync::LazyLock;

use regex::Regex;

use super::assignment::secret_name;
use super::regex;

/// A secret-named YAML key whose value follows on more-indented lines.
#[derive(Clone, Copy)]
pub(super) struct Continuation {
    /// The key's column: lines indented further belong to its value.
    pub(super) indent: usize,
    /// A block scalar (`|`, `>-`): every more-indented line is value. A
    /// bare `key:` only continues while lines are not `name: …` entries
    /// (those start a nested mapping, judged line by line).
    pub(super) block: bool,
}

/// `name:` alone or with a block-scalar indicator, at the end of a line.
static YAML_KEY: LazyLock<Regex> = LazyLock::new(|| {
    regex(r#"^(\s*(?:-\s+)?)["']?([A-Za-z0-9_.\-]+)["']?\s*:\s*([|>][-+0-9]*)?\s*(?:#.*)?$"#)
});
/// A line that starts a `name: …` entry (or a list item holding one).
static MAPPING_ENTRY: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"^\s*(?:-\s+)?["']?[^\s:"'#]+["']?\s*:(?:\s|$)"#));

pub(super) fn yaml_secret_key(content: &str) -> Option<Continuation> {
    let captures = YAML_KEY.captures(content)?;
    let name = captures.get(2)?.as_str();
    let block = captures.get(3).is_some();
    // `private:` (C++), `public:`… open a section of code, not a value.
    if !block && ["private", "protected", "public"].contains(&name.to_ascii_lowercase().as_str()) {
        return None;
    }
    secret_name(name)?;
    Some(Continuation {
        indent: captures.get(1).map_or(0, |m| m.as_str().len()),
        block,
    })
}

pub(super) fn is_mapping_entry(content: &str) -> bool {
    MAPPING_ENTRY.is_match(content)
}
