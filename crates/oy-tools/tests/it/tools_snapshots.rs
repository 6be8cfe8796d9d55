//! Snapshots of the model-visible text of each file tool: the exact bytes a
//! model reads are part of the contract.

use oy_tools::Mode;
use serde_json::json;

use crate::support::Env;

fn sample() -> Env {
    let env = Env::new(Mode::AcceptEdits);
    env.file("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n")
        .file(
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
        )
        .file("README.md", "# Sample\n");
    env
}

#[test]
fn snapshot_list() {
    let env = sample();
    insta::assert_snapshot!(env.call("list", json!({})).text);
}

#[test]
fn snapshot_read_slice() {
    let env = sample();
    insta::assert_snapshot!(
        env.call("read", json!({"path": "src/lib.rs", "limit": 2}))
            .text
    );
}

#[test]
fn snapshot_sloc() {
    let env = sample();
    insta::assert_snapshot!(env.call("sloc", json!({})).text);
}

#[test]
fn snapshot_write_replace_move_remove() {
    let env = sample();
    env.call("read", json!({"path": "src/lib.rs"}));
    let texts = [
        env.call("write", json!({"path": "notes.txt", "content": "a\n"}))
            .text,
        env.call(
            "replace",
            json!({"path": "src/lib.rs", "old": "a + b", "new": "b + a"}),
        )
        .text,
        env.call("move", json!({"from": "notes.txt", "to": "docs/notes.txt"}))
            .text,
        env.call("remove", json!({"path": "docs", "recursive": true}))
            .text,
    ];
    insta::assert_snapshot!(texts.join("\n"));
}

#[test]
fn snapshot_errors() {
    let env = sample();
    let texts = [
        env.call("read", json!({"path": "src/mian.rs"})).text,
        env.call("read", json!({"path": "../x"})).text,
        env.call("read", json!({"path": 7})).text,
        env.call(
            "replace",
            json!({"path": "README.md", "old": "#", "new": "##"}),
        )
        .text,
        env.call("frobnicate", json!({})).text,
    ];
    insta::assert_snapshot!(texts.join("\n\n"));
}

#[test]
fn snapshot_todo() {
    let env = sample();
    let out = env.call(
        "todo",
        json!({"items": [
            {"text": "read the code", "status": "done"},
            {"text": "write the test", "status": "in_progress"},
            {"id": "x", "text": "ship", "status": "pending"}
        ]}),
    );
    insta::assert_snapshot!(out.text);
}
