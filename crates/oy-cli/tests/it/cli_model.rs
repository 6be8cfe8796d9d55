//! `oy model`: listing, filtering, JSON, and `--set` saving the default
//! into the global config (0600, other keys kept).

use std::fs;
use std::os::unix::fs::PermissionsExt;

use crate::support::{
    AWS_TEST_ENV, BedrockServers, HOSTILE_NAME, ModelsServer, Oy, assert_private_tree,
    assert_terminal_safe, closed_url,
};

#[test]
fn lists_models_and_marks_the_default() {
    let server = ModelsServer::start(&["zeta", "alpha", "beta"]);
    let oy = Oy::new();
    let base = server.base_url();
    let run = oy.run_clean(&["model", "--model", "beta"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "  alpha\n* beta\n  zeta\n");
}

#[test]
fn filters_by_substring() {
    let server = ModelsServer::start(&["gpt-small", "gpt-large", "llama"]);
    let oy = Oy::new();
    let base = server.base_url();
    let run = oy.run_clean(&["model", "GPT"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "  gpt-large\n  gpt-small\n");
    assert!(run.stderr.contains("oy model --set ID"), "{}", run.stderr);
}

#[test]
fn prints_json() {
    let server = ModelsServer::start(&["a", "b"]);
    let oy = Oy::new();
    let base = server.base_url();
    let run = oy.run_clean(
        &["model", "--json", "b"],
        &[("OPENAI_BASE_URL", &base), ("OY_MODEL", "b")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let items: Vec<serde_json::Value> = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], "b");
    assert_eq!(items[0]["default"], true);
}

#[test]
fn set_saves_the_model_privately_and_keeps_other_keys() {
    let server = ModelsServer::start(&["old", "new"]);
    let oy = Oy::new();
    oy.global_config("# my settings\nmodel = \"old\"\nmax_turns = 7\n\n[providers.x]\nbase_url = \"http://127.0.0.1:9/v1\"\n");
    let base = server.base_url();
    let run = oy.run_clean(&["model", "--set", "new"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let path = oy.config_dir().join("config.toml");
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(
        text,
        "# my settings\nmodel = \"new\"\nmax_turns = 7\n\n[providers.x]\nbase_url = \"http://127.0.0.1:9/v1\"\n"
    );
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // And it is now the default.
    let run = oy.run_clean(&["model"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.stdout, "* new\n  old\n");
}

#[test]
fn set_creates_the_config_file_0600() {
    let server = ModelsServer::start(&["m1"]);
    let oy = Oy::new();
    let base = server.base_url();
    let run = oy.run_clean(&["model", "--set", "m1"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let path = oy.config_dir().join("config.toml");
    assert_eq!(fs::read_to_string(&path).unwrap(), "model = \"m1\"\n");
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn set_refuses_a_model_the_provider_does_not_list() {
    let server = ModelsServer::start(&["gpt-large", "gpt-small"]);
    let oy = Oy::new();
    let base = server.base_url();
    let run = oy.run_clean(&["model", "--set", "gpt"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("does not list a model `gpt`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("hint: did you mean gpt-large, gpt-small?"),
        "{}",
        run.stderr
    );
    assert!(!oy.config_dir().join("config.toml").exists());
}

#[test]
fn set_without_a_reachable_list_warns_and_saves() {
    let oy = Oy::new();
    let run = oy.run_clean(
        &["model", "--set", "offline-model"],
        &[("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("warning: could not check"),
        "{}",
        run.stderr
    );
    let text = fs::read_to_string(oy.config_dir().join("config.toml")).unwrap();
    assert_eq!(text, "model = \"offline-model\"\n");
}

#[test]
fn listing_fails_when_the_provider_does_not_answer() {
    let oy = Oy::new();
    let run = oy.run_clean(&["model"], &[("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("did not list its models"),
        "{}",
        run.stderr
    );
}

#[test]
fn hostile_model_ids_from_the_server_are_listed_inert() {
    let server = ModelsServer::start(&["alpha", HOSTILE_NAME]);
    let oy = Oy::new();
    let base = server.base_url();
    let run = oy.run_clean(&["model"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_terminal_safe("model", &run.stdout);
    assert_terminal_safe("model (stderr)", &run.stderr);
    assert_eq!(run.stdout.lines().count(), 2, "{}", run.stdout);

    let run = oy.run_clean(&["model", "--json"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_terminal_safe("model --json", &run.stdout);
    let items: Vec<serde_json::Value> = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(items[1]["id"], HOSTILE_NAME);
}

#[test]
fn set_creates_a_private_config_directory_and_tightens_a_loose_one() {
    let server = ModelsServer::start(&["m1"]);
    let base = server.base_url();
    let oy = Oy::new();
    let run = oy.run_clean(&["model", "--set", "m1"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_private_tree(&oy.data.with_file_name("config"));

    let oy = Oy::new();
    oy.global_config("max_turns = 3\n");
    fs::set_permissions(oy.config_dir(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(
        oy.config_dir().join("config.toml"),
        fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let run = oy.run_clean(&["model", "--set", "m1"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_private_tree(&oy.config_dir());
}

#[test]
fn bedrock_lists_models_from_the_control_plane_not_the_runtime_endpoint() {
    let servers = BedrockServers::start(&["meta.llama3-8b-instruct-v1:0", "amazon.nova-lite-v1:0"]);
    let oy = Oy::new();
    oy.global_config(&servers.config(Some(&servers.control.uri())));
    let run = oy.run_clean(&["model", "--provider", "aws"], AWS_TEST_ENV);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "  amazon.nova-lite-v1:0\n  meta.llama3-8b-instruct-v1:0\n"
    );
    assert!(!run.stderr.contains("unknown key"), "{}", run.stderr);
    let (runtime, control) = servers.paths();
    assert!(runtime.is_empty(), "the runtime was asked: {runtime:?}");
    assert_eq!(control, ["/foundation-models"]);
}

#[test]
fn bedrock_listing_that_fails_names_the_control_plane_setting() {
    let servers = BedrockServers::start(&[]);
    let oy = Oy::new();
    let control = closed_url();
    oy.global_config(&servers.config(Some(&control)));
    let run = oy.run_clean(&["model", "--provider", "aws"], AWS_TEST_ENV);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let stderr = &run.stderr;
    assert!(
        stderr.contains(&format!(
            "cannot reach the Bedrock control plane at {control}: connection refused"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: ") && stderr.contains("control_endpoint_url"),
        "{stderr}"
    );
    assert!(!stderr.contains("DispatchFailure"), "{stderr}");
}
