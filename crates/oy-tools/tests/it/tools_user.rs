//! User tools from tools.json: manifest validation, the JSON-in/JSON-out
//! contract, timeouts, bad output, and the process policy.

use std::collections::BTreeSet;

use oy_tools::{ManifestError, Mode, UserTool, default_registry, parse_manifest};
use serde_json::json;

use crate::support::{Env, assert_tool_error};

fn builtin_names() -> BTreeSet<String> {
    default_registry().names()
}

fn manifest(command: serde_json::Value, extra: serde_json::Value) -> String {
    let mut tool = json!({
        "name": "echo_json",
        "description": "Echo the arguments back.",
        "parameters": {"type": "object", "properties": {"msg": {"type": "string"}}, "required": ["msg"], "additionalProperties": false},
        "command": command,
    });
    if let (Some(tool), Some(extra)) = (tool.as_object_mut(), extra.as_object()) {
        tool.extend(extra.clone());
    }
    json!({ "tools": [tool] }).to_string()
}

fn env_with(mode: Mode, text: &str) -> Env {
    let mut env = Env::new(mode);
    for def in parse_manifest("test", text, &env.registry.names()).unwrap() {
        env.registry.push(Box::new(UserTool::new(def)));
    }
    env
}

#[test]
fn manifests_are_validated_before_anything_runs() {
    let reserved = builtin_names();
    let cases = [
        (
            r#"{"tools":[{"name":"read","description":"x","command":["true"]}]}"#,
            "already taken",
        ),
        (
            r#"[{"name":"a b","description":"x","command":["true"]}]"#,
            "the name must be",
        ),
        (
            r#"[{"name":"t","description":"x","command":[]}]"#,
            "non-empty argv",
        ),
        (
            r#"[{"name":"t","description":"x","command":["true"],"parameters":{"type":"array"}}]"#,
            "\"type\": \"object\"",
        ),
        (
            r#"[{"name":"t","description":"x","command":["true"]},{"name":"t","description":"y","command":["true"]}]"#,
            "defined twice",
        ),
        (
            r#"[{"name":"t","description":"x","command":["true"],"shell":"sh"}]"#,
            "not a valid tools manifest",
        ),
        ("not json", "not a valid tools manifest"),
    ];
    for (text, needle) in cases {
        let error = parse_manifest("tools.json", text, &reserved).unwrap_err();
        assert!(error.to_string().contains(needle), "{text}: {error}");
        assert!(error.to_string().starts_with("tools.json"), "{error}");
    }
    let ok = parse_manifest("t", &manifest(json!(["cat"]), json!({})), &reserved).unwrap();
    assert_eq!(ok.len(), 1);
    assert!(matches!(
        parse_manifest(
            "t",
            &manifest(json!(["cat"]), json!({})),
            &["echo_json".to_owned()].into()
        ),
        Err(ManifestError::BadTool { .. })
    ));
}

#[test]
fn arguments_go_in_as_json_and_one_json_value_comes_back() {
    let env = env_with(Mode::AutoApprove, &manifest(json!(["cat"]), json!({})));
    let out = env.call("echo_json", json!({"msg": "hi"}));
    assert!(out.ok, "{}", out.text);
    assert_eq!(out.text, r#"{"msg":"hi"}"#);
}

#[test]
fn arguments_are_checked_against_required_and_closed_fields() {
    let env = env_with(Mode::AutoApprove, &manifest(json!(["cat"]), json!({})));
    assert_tool_error(
        &env.call("echo_json", json!({})),
        "missing required field `msg`",
    );
    assert_tool_error(
        &env.call("echo_json", json!({"msg": "x", "extra": 1})),
        "unknown field `extra`",
    );
}

#[test]
fn output_that_is_not_json_is_a_clear_error() {
    let env = env_with(
        Mode::AutoApprove,
        &manifest(
            json!(["sh", "-c", "cat >/dev/null; echo not json; echo oops >&2"]),
            json!({}),
        ),
    );
    let out = env.call("echo_json", json!({"msg": "hi"}));
    assert_tool_error(&out, "did not print one JSON value");
    assert!(out.text.contains("stderr: oops"), "{}", out.text);
}

#[test]
fn a_failing_tool_reports_its_exit_code_and_stderr() {
    let env = env_with(
        Mode::AutoApprove,
        &manifest(json!(["sh", "-c", "echo broken >&2; exit 3"]), json!({})),
    );
    let out = env.call("echo_json", json!({"msg": "hi"}));
    assert_tool_error(&out, "failed with exit code 3; stderr: broken");
}

#[test]
fn a_tool_that_runs_too_long_is_killed_at_its_timeout() {
    let env = env_with(
        Mode::AutoApprove,
        &manifest(json!(["sleep", "20"]), json!({"timeoutSec": 1})),
    );
    let started = std::time::Instant::now();
    let out = env.call("echo_json", json!({"msg": "hi"}));
    assert_tool_error(&out, "timed out after 1 s");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn user_tools_are_processes_for_the_policy() {
    let text = manifest(json!(["cat"]), json!({}));
    let plan = env_with(Mode::Plan, &text);
    assert_tool_error(
        &plan.call("echo_json", json!({"msg": "x"})),
        "not available",
    );
    let default = env_with(Mode::AcceptEdits, &text);
    let out = default.call("echo_json", json!({"msg": "x"}));
    assert_tool_error(&out, "no one to ask");
    assert!(out.text.contains("the auto-approve mode"), "{}", out.text);
}

#[test]
fn user_tools_get_the_filtered_environment() {
    use std::ffi::OsString;
    let text = manifest(
        json!([
            "sh",
            "-c",
            "cat >/dev/null; printf '{\"token\":\"%s\"}' \"${GITHUB_TOKEN:-none}\""
        ]),
        json!({}),
    );
    let env = env_with(Mode::AutoApprove, &text).map_ctx(|ctx| {
        ctx.with_child_env(oy_tools::ChildEnv::filtered(
            [
                (OsString::from("PATH"), OsString::from("/usr/bin:/bin")),
                (OsString::from("GITHUB_TOKEN"), OsString::from("ghp_secret")),
            ],
            &[],
        ))
    });
    let out = env.call("echo_json", json!({"msg": "x"}));
    assert_eq!(out.text, r#"{"token":"none"}"#);
}
