//! Kubernetes Secret manifests: every value under `data:` (base64) or
//! `stringData:` of a `kind: Secret` object goes, whatever its key is
//! called (`tls.crt`, `config.json`, `DB_URL`), in YAML (one document of a
//! `---` stream, or an item of a `List`, `kind` before or after `data` as
//! `kubectl get -o yaml` writes it) and in JSON. Template placeholders
//! (`{{ .Values.password | b64enc }}`) are no secret and stay.

use std::sync::LazyLock;

use regex::Regex;

use super::{indent_of, regex, split_ending};

/// `kind: Secret` in YAML (`- kind: Secret` in a list).
static YAML_KIND: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"^(\s*(?:-\s+)?)kind:\s*["']?Secret["']?\s*(?:#.*)?$"#));
/// `data:` or `stringData:` in YAML, the value below it (or inline).
static YAML_DATA: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"^(\s*(?:-\s+)?)["']?(?:data|stringData)["']?:(.*)$"#));
/// `"kind": "Secret"` and `"data": {` in JSON.
static JSON_KIND: LazyLock<Regex> = LazyLock::new(|| regex(r#""kind"\s*:\s*"Secret""#));
static JSON_DATA: LazyLock<Regex> = LazyLock::new(|| regex(r#""(?:data|stringData)"\s*:\s*\{"#));

/// The indices of the lines of `lines` that hold a Secret's data values.
pub(super) fn secret_data_lines(text: &str, lines: &[&str]) -> Vec<usize> {
    if !text.contains("Secret") {
        return Vec::new();
    }
    let mut found = yaml_data_lines(lines);
    if JSON_KIND.is_match(text) {
        found.extend(json_data_lines(lines));
    }
    found.sort_unstable();
    found.dedup();
    found
}

fn yaml_data_lines(lines: &[&str]) -> Vec<usize> {
    let contents: Vec<&str> = lines.iter().map(|line| split_ending(line).0).collect();
    let mut found = Vec::new();
    for (index, content) in contents.iter().enumerate() {
        let Some(captures) = YAML_DATA.captures(content) else {
            continue;
        };
        // The column the mapping's keys start at (after a list item's `- `).
        let column = captures.get(1).map_or(0, |m| m.as_str().len());
        if !in_secret_object(&contents, index, column) {
            continue;
        }
        let inline = captures.get(2).map_or("", |m| m.as_str()).trim();
        if !inline.is_empty() && !inline.starts_with('#') && !is_template(inline) {
            // `data: {a: b}`, the whole mapping on this line.
            found.push(index);
        }
        for (below, line) in contents.iter().enumerate().skip(index + 1) {
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            if indent_of(line) <= column {
                break;
            }
            if !is_template(line) {
                found.push(below);
            }
        }
    }
    found
}

/// True when the mapping whose keys start at `column` and which holds the
/// key on line `at` also holds `kind: Secret` (looked for up and down,
/// within the document and the list item).
fn in_secret_object(contents: &[&str], at: usize, column: usize) -> bool {
    let is_kind = |line: &str| {
        YAML_KIND
            .captures(line)
            .is_some_and(|c| c.get(1).map_or(0, |m| m.as_str().len()) == column)
    };
    // A line that ends the mapping: a document marker, or a key to the
    // left of it.
    let ends = |line: &str| {
        line.starts_with("---")
            || line.starts_with("...")
            || (!line.trim().is_empty()
                && !line.trim_start().starts_with('#')
                && indent_of(line) < column)
    };
    // A list item starting at this column's item marker ends it too.
    let new_item = |line: &str| {
        column >= 2 && indent_of(line) == column - 2 && line.trim_start().starts_with("- ")
    };
    for line in contents.iter().skip(at + 1) {
        if ends(line) || new_item(line) {
            break;
        }
        if is_kind(line) {
            return true;
        }
    }
    for line in contents.iter().take(at + 1).rev() {
        if is_kind(line) {
            return true;
        }
        if ends(line) || (new_item(line) && !is_kind(line)) {
            break;
        }
    }
    false
}

/// The lines inside each `"data": { … }` object of a JSON Secret.
fn json_data_lines(lines: &[&str]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut depth: Option<i64> = None;
    for (index, line) in lines.iter().enumerate() {
        let (content, _) = split_ending(line);
        match depth {
            None => {
                if let Some(open) = JSON_DATA.find(content) {
                    let rest = content.get(open.end()..).unwrap_or_default();
                    let balance = braces(rest) + 1;
                    if balance > 0 {
                        depth = Some(balance);
                    } else if !is_template(rest) && rest.contains(':') {
                        // The whole object on this line.
                        found.push(index);
                    }
                }
            }
            Some(open) => {
                let balance = open + braces(content);
                if balance <= 0 {
                    depth = None;
                    continue;
                }
                if !is_template(content) && content.contains(':') {
                    found.push(index);
                }
                depth = Some(balance);
            }
        }
    }
    found
}

/// Opening minus closing braces outside string literals.
fn braces(text: &str) -> i64 {
    let mut balance = 0;
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '{' if !in_string => balance += 1,
            '}' if !in_string => balance -= 1,
            _ => {}
        }
    }
    balance
}

/// A value filled in by a template (Helm, Kustomize, envsubst).
fn is_template(text: &str) -> bool {
    text.contains("{{") || text.contains("${")
}
