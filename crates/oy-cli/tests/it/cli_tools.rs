//! `oy tools`: the specs per mode, and their size (every byte is re-sent
//! to the model each turn).

use serde_json::Value;

use crate::support::Oy;

fn names(json: &str) -> Vec<String> {
    let specs: Vec<Value> = serde_json::from_str(json).unwrap();
    specs
        .iter()
        .map(|spec| {
            let keys: Vec<&String> = spec.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["description", "name", "parameters"]);
            assert_eq!(spec["parameters"]["additionalProperties"], false);
            spec["name"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn tools_lists_what_each_mode_offers() {
    let oy = Oy::new();
    let plan = oy.run(&["tools", "--mode", "plan"]);
    assert_eq!(plan.code, 0, "{}", plan.stderr);
    let plan = names(&plan.stdout);
    assert!(
        plan.contains(&"read".to_owned()) && !plan.contains(&"write".to_owned()),
        "{plan:?}"
    );
    let auto = names(&oy.run(&["tools", "--mode", "auto"]).stdout);
    for name in [
        "list", "read", "write", "replace", "move", "remove", "todo", "ask",
    ] {
        assert!(
            auto.contains(&name.to_owned()),
            "{name} missing from {auto:?}"
        );
    }
}

#[test]
fn all_tool_specs_fit_the_byte_budget() {
    let oy = Oy::new();
    let out = oy.run(&["tools", "--mode", "auto"]);
    // The product budget for every tool's spec together (DESIGN: ~8 KB).
    assert!(
        out.stdout.len() < 8 * 1024,
        "tool specs are {} bytes",
        out.stdout.len()
    );
}

#[test]
fn unknown_mode_is_a_usage_error() {
    let oy = Oy::new();
    let out = oy.run(&["tools", "--mode", "yolo"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("unknown mode `yolo`"), "{}", out.stderr);
}

#[test]
fn docs_tools_md_matches_the_registry() {
    let oy = Oy::new();
    let generated = oy.run(&["tools", "--format", "markdown"]).stdout;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/tools.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/tools.md is stale: run `cargo xtask codegen` and commit the result"
    );
}

#[test]
fn docs_say_the_type_the_schema_says() {
    // Arrays name their items' type and maps their values' type, read from
    // the schema: `include` and `args` take strings, not objects.
    let oy = Oy::new();
    let generated = oy
        .run(&["tools", "--format", "markdown", "--mode", "auto"])
        .stdout;
    for row in [
        "| `include` | array of strings |",
        "| `args` | array of strings |",
        "| `env` | object of strings |",
        "| `items` | array of objects |",
        "| `mode` | `slice` \\| `indentation` |",
    ] {
        assert!(generated.contains(row), "{row} not in:\n{generated}");
    }
}

#[test]
fn tools_listing_follows_the_network_switch() {
    let oy = Oy::new();
    let listed = |args: &[&str]| names(&oy.run(args).stdout);
    assert!(listed(&["tools", "--mode", "auto"]).contains(&"webfetch".to_owned()));
    assert!(
        !listed(&["tools", "--mode", "auto", "--network", "deny"]).contains(&"webfetch".to_owned())
    );
    assert!(!listed(&["tools", "--mode", "plan"]).contains(&"webfetch".to_owned()));
    // An explicit setting overrides the mode's default.
    assert!(
        listed(&["tools", "--mode", "plan", "--network", "allow"]).contains(&"webfetch".to_owned())
    );
    assert!(listed(&["tools", "--mode", "default"]).contains(&"webfetch".to_owned()));
}
