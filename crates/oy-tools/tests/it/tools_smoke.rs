//! The basic path of each file tool, end to end through the registry.

use oy_tools::Mode;
use serde_json::json;

use crate::support::{Env, assert_tool_error};

#[test]
fn read_then_replace_then_read_again() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("src/lib.rs", "fn old() {}\nfn keep() {}\n");
    let out = env.call("read", json!({"path": "src/lib.rs"}));
    assert!(out.ok, "{}", out.text);
    assert_eq!(out.text, "1\tfn old() {}\n2\tfn keep() {}\n");
    let out = env.call(
        "replace",
        json!({"path": "src/lib.rs", "old": "fn old()", "new": "fn new()"}),
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(env.read("src/lib.rs"), "fn new() {}\nfn keep() {}\n");
}

#[test]
fn replace_without_read_is_refused() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "x\n");
    let out = env.call("replace", json!({"path": "a.txt", "old": "x", "new": "y"}));
    assert_tool_error(&out, "has not been read");
    assert_eq!(env.read("a.txt"), "x\n");
}

#[test]
fn every_tool_knows_its_name_and_effect_as_its_spec_says() {
    // Lookups and the policy ask the tool, not its (lazily made) spec.
    let registry = oy_tools::default_registry();
    for name in registry.names() {
        let tool = registry.get(&name).expect("a listed tool is found");
        let spec = tool.spec();
        assert_eq!(tool.name(), spec.name, "{name}");
        assert_eq!(tool.effect(), spec.effect, "{name}");
    }
    assert!(registry.names().len() >= 16);
}
