//! File names as tool output shows them: a name holding a control
//! character (ESC, BEL, a newline…) is C-quoted, as git quotes paths
//! (`"evil\nname"`), so a hostile name can neither drive the person's
//! terminal through `oy tool` nor make the model read one entry as two.

use std::borrow::Cow;

/// `name` as it is, or C-quoted (quotes and backslashes escaped too) when
/// it holds a control character.
pub(crate) fn shown_name(name: &str) -> Cow<'_, str> {
    if !name.chars().any(char::is_control) {
        return Cow::Borrowed(name);
    }
    Cow::Owned(oy_boundary::c_quoted(name))
}

#[cfg(test)]
mod tests {
    use super::shown_name;

    #[test]
    fn plain_names_stay_and_control_characters_are_quoted() {
        assert_eq!(shown_name("src/main.rs"), "src/main.rs");
        assert_eq!(shown_name("a \"b\" c"), "a \"b\" c");
        assert_eq!(shown_name("a\nb.txt"), "\"a\\nb.txt\"");
        assert_eq!(shown_name("\u{1b}[31mred\u{7}"), "\"\\033[31mred\\007\"");
        assert_eq!(shown_name("q\"\\\r"), "\"q\\\"\\\\\\r\"");
        assert!(!shown_name("x\u{9b}y").contains('\u{9b}'));
    }
}
