//! Editing the global config file's text: [`with_model`] sets the default
//! model (`oy model --set`) keeping the rest of the file as written.

use crate::ConfigError;

/// `text` with the top-level `model` key set to `id`: the existing line
/// replaced in place (or a new first line), checked by parsing; a file too
/// unusual for that is rewritten from its parsed table. A text that does
/// not parse as TOML is an [`ConfigError::Edit`].
pub fn with_model(text: &str, id: &str) -> Result<String, ConfigError> {
    let value = toml::Value::String(id.to_owned()).to_string();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let top_level_end = lines
        .iter()
        .position(|line| line.trim_start().starts_with('['))
        .unwrap_or(lines.len());
    let existing = lines[..top_level_end].iter().position(|line| {
        let line = line.trim_start();
        line.strip_prefix("model")
            .is_some_and(|rest| rest.trim_start().starts_with('='))
    });
    match existing {
        Some(at) => lines[at] = format!("model = {value}"),
        None => lines.insert(0, format!("model = {value}")),
    }
    let mut edited = lines.join("\n");
    edited.push('\n');
    if let Ok(table) = toml::from_str::<toml::Table>(&edited)
        && table.get("model").and_then(toml::Value::as_str) == Some(id)
    {
        return Ok(edited);
    }
    let edit = |message: String| ConfigError::Edit { message };
    let mut table: toml::Table = toml::from_str(text).map_err(|e| edit(e.to_string()))?;
    table.insert("model".to_owned(), toml::Value::String(id.to_owned()));
    toml::to_string(&table).map_err(|e| edit(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::with_model;

    #[test]
    fn replaces_the_model_line_and_keeps_the_rest() {
        let text = "# mine\nmodel = \"old\"\nmode = \"plan\"\n\n[providers.x]\nmodel = \"keep\"\n";
        let out = with_model(text, "new").unwrap();
        assert_eq!(
            out,
            "# mine\nmodel = \"new\"\nmode = \"plan\"\n\n[providers.x]\nmodel = \"keep\"\n"
        );
    }

    #[test]
    fn adds_a_model_line_before_the_tables() {
        let out = with_model("[providers.x]\nmodel = \"keep\"\n", "a\"b").unwrap();
        let table: toml::Table = toml::from_str(&out).unwrap();
        assert_eq!(table["model"].as_str(), Some("a\"b"));
        assert_eq!(table["providers"]["x"]["model"].as_str(), Some("keep"));
    }

    #[test]
    fn starts_an_empty_file() {
        assert_eq!(with_model("", "m").unwrap(), "model = \"m\"\n");
    }

    #[test]
    fn a_text_that_is_not_toml_is_an_edit_error() {
        let error = with_model("x = [\n", "m").unwrap_err();
        assert!(matches!(error, crate::ConfigError::Edit { .. }), "{error}");
    }
}
