//! The names MCP tools are offered by: `mcp__SERVER__TOOL`, in the
//! characters every provider accepts (`[A-Za-z0-9_-]`) and within their
//! 64-character limit.

use oy_tools::content_digest;

/// Longest tool name the providers accept.
pub const MAX_TOOL_NAME: usize = 64;

/// Longest server name.
const MAX_SERVER_NAME: usize = 32;

/// A server name oy accepts: 1-32 of `[A-Za-z0-9_-]`, without `__` (the
/// separator in tool names).
pub fn is_server_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_SERVER_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !name.contains("__")
}

/// The name the model calls `tool` of `server` by: `mcp__SERVER__TOOL`,
/// every other character of the server's name for it replaced by `_`; a
/// name too long keeps its start and ends in `_` and eight hex digits of
/// the SHA-256 of the whole, so two long names stay apart.
pub fn tool_name(server: &str, tool: &str) -> String {
    let clean: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let full = format!("mcp__{server}__{clean}");
    if full.len() <= MAX_TOOL_NAME {
        return full;
    }
    let digest = content_digest(format!("{server}\0{tool}").as_bytes());
    let suffix = &digest[..8];
    // Every character is ASCII by now, so any byte index is a boundary.
    let keep = MAX_TOOL_NAME - suffix.len() - 1;
    format!("{}_{suffix}", &full[..keep])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitised_and_bounded() {
        assert_eq!(tool_name("docs", "search"), "mcp__docs__search");
        assert_eq!(
            tool_name("docs", "get.page/v2 ü"),
            "mcp__docs__get_page_v2__"
        );
        let long = tool_name("docs", &"x".repeat(100));
        assert_eq!(long.len(), MAX_TOOL_NAME);
        assert_ne!(long, tool_name("docs", &"x".repeat(101)));
        assert!(
            long.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        );
    }

    #[test]
    fn server_names_exclude_the_separator() {
        assert!(is_server_name("git-hub_2"));
        assert!(!is_server_name("a__b"));
        assert!(!is_server_name(""));
        assert!(!is_server_name("a.b"));
        assert!(!is_server_name(&"a".repeat(33)));
    }
}
