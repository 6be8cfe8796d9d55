//! A `tools/call` result as text for the model: text blocks as they are,
//! structured content as JSON when no text says it, resource links and
//! embedded text resources with their URI, and images, audio and binary
//! resources as a one-line placeholder (oy has no image input yet). Read
//! from the result's JSON form, so a block kind rmcp adds later still
//! becomes a placeholder, never a failure.

use serde_json::Value;

/// The model-visible text of a result and whether the server flagged it
/// as an error.
pub(crate) fn render(result: &rmcp::model::CallToolResult) -> (String, bool) {
    let value = serde_json::to_value(result).unwrap_or(Value::Null);
    let is_error = value.get("isError").and_then(Value::as_bool) == Some(true);
    let mut parts: Vec<String> = value
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| blocks.iter().map(block).collect())
        .unwrap_or_default();
    let has_text = parts.iter().any(|part| !part.starts_with('['));
    if let Some(structured) = value.get("structuredContent")
        && !has_text
    {
        parts.push(structured.to_string());
    }
    if parts.is_empty() {
        parts.push("(the tool returned no content)".to_owned());
    }
    (parts.join("\n"), is_error)
}

fn block(block: &Value) -> String {
    let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
    match text("type") {
        "text" => text("text").to_owned(),
        "image" | "audio" => format!(
            "[{} {}: {} bytes, not shown]",
            text("type"),
            or_unknown(text("mimeType")),
            base64_len(text("data"))
        ),
        "resource_link" => {
            let mut line = format!("[resource link: {}", text("uri"));
            if !text("name").is_empty() {
                line.push_str(&format!(" ({})", text("name")));
            }
            if !text("description").is_empty() {
                line.push_str(&format!(": {}", text("description")));
            }
            line.push(']');
            line
        }
        "resource" => {
            let resource = block.get("resource").cloned().unwrap_or(Value::Null);
            let field = |key: &str| {
                resource
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            match resource.get("text").and_then(Value::as_str) {
                Some(body) => format!("[resource {}]\n{body}", field("uri")),
                None => format!(
                    "[resource {}: {} {} bytes, not shown]",
                    field("uri"),
                    or_unknown(&field("mimeType")),
                    base64_len(&field("blob"))
                ),
            }
        }
        other => format!("[{} content, not shown]", or_unknown(other)),
    }
}

fn or_unknown(text: &str) -> &str {
    if text.is_empty() { "unknown" } else { text }
}

/// Decoded size of base64 text, near enough for a placeholder.
fn base64_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|byte| *byte == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(value: Value) -> rmcp::model::CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn text_images_links_and_structured_content() {
        let (text, error) = render(&result(serde_json::json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "file:///a.txt", "name": "a"},
                {"type": "resource", "resource": {"uri": "mem://x", "text": "body"}}
            ],
            "structuredContent": {"n": 1}
        })));
        assert!(!error);
        assert_eq!(
            text,
            "hello\n[image image/png: 3 bytes, not shown]\n[resource link: file:///a.txt (a)]\n[resource mem://x]\nbody"
        );
        let (text, _) = render(&result(serde_json::json!({
            "content": [], "structuredContent": {"n": 1}
        })));
        assert_eq!(text, "{\"n\":1}");
    }

    #[test]
    fn an_error_result_is_flagged() {
        let (text, error) = render(&result(serde_json::json!({
            "content": [{"type": "text", "text": "no such page"}], "isError": true
        })));
        assert!(error);
        assert_eq!(text, "no such page");
    }
}
