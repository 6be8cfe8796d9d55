//! Placeholders: values that stand in for a secret (templates, environment
//! lookups, documentation fillers) and so are none.

/// True when `value` stands in for a secret rather than being one:
/// `changeme`, `<your-token>`, `${DB_PASSWORD}`, `{{ .Values.secret }}`,
/// `xxxxxxxx`, `process.env.KEY`. `bare` says the value stood unquoted: a
/// bare `$VAR` is a variable, a quoted `"$x…"` may be a password that
/// starts with `$`.
pub fn is_placeholder(value: &str, bare: bool) -> bool {
    let lower = value.to_ascii_lowercase();
    let filler = |c: char| matches!(c, 'x' | '*' | '.' | '-' | '_' | '0' | '#');
    let mut chars = lower.chars();
    let first = chars.next();
    lower.chars().all(filler)
        || chars.all(|c| Some(c) == first)
        || (lower.starts_with('<') && lower.ends_with('>'))
        || lower.contains("${")
        || lower.contains("{{")
        || lower.contains("%(")
        || (bare && lower.starts_with('$'))
        || lower.starts_with("your")
        || lower.contains("your_")
        || lower.contains("your-")
        || lower.contains("your ")
        || lower.starts_with("enter ")
        || [
            "password", "passwd", "pass", "pwd", "pw", "secret", "token", "none", "null",
        ]
        .contains(&lower.as_str())
        || [
            "changeme",
            "change_me",
            "change-me",
            "placeholder",
            "example",
            "process.env",
            "os.environ",
            "getenv",
            "env!(",
            "env::var",
            "redacted",
        ]
        .iter()
        .any(|word| lower.contains(word))
}
