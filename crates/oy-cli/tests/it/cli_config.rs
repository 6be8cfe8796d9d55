//! The config files: the global config's precedence under flags, and a
//! workspace `.oy/config.toml` that can only lower privileges — seen
//! through the tools `oy tools` offers and what `oy doctor` reports.

use std::fs;

use crate::support::{ModelsServer, Oy};

fn tool_names(oy: &Oy, args: &[&str], envs: &[(&str, &str)]) -> Vec<String> {
    let mut full = vec!["tools"];
    full.extend_from_slice(args);
    let run = oy.run_clean(&full, envs);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let specs: Vec<serde_json::Value> = serde_json::from_str(&run.stdout).unwrap();
    specs
        .iter()
        .map(|spec| spec["name"].as_str().unwrap().to_owned())
        .collect()
}

fn has(names: &[String], name: &str) -> bool {
    names.iter().any(|n| n == name)
}

#[test]
fn global_config_mode_decides_the_tools_offered() {
    let oy = Oy::new();
    oy.global_config("mode = \"plan\"\n");
    let names = tool_names(&oy, &[], &[]);
    assert!(has(&names, "read"));
    assert!(!has(&names, "write") && !has(&names, "bash") && !has(&names, "webfetch"));
}

#[test]
fn mode_flag_and_env_beat_the_global_config() {
    let oy = Oy::new();
    oy.global_config("mode = \"plan\"\n");
    assert!(has(&tool_names(&oy, &["--mode", "auto"], &[]), "bash"));
    assert!(has(&tool_names(&oy, &[], &[("OY_MODE", "edit")]), "write"));
}

#[test]
fn global_config_network_deny_removes_webfetch() {
    let oy = Oy::new();
    oy.global_config("network = \"deny\"\n");
    let names = tool_names(&oy, &[], &[]);
    assert!(has(&names, "bash") && !has(&names, "webfetch"));
    assert!(has(
        &tool_names(&oy, &["--network", "ask"], &[]),
        "webfetch"
    ));
}

#[test]
fn workspace_config_cannot_raise_the_mode() {
    let oy = Oy::new();
    oy.global_config("mode = \"plan\"\n");
    oy.file(".oy/config.toml", "mode = \"auto-approve\"\n");
    let run = oy.run_clean(&["tools"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("mode auto-approve would raise the mode above plan"),
        "{}",
        run.stderr
    );
    let names = tool_names(&oy, &[], &[]);
    assert!(!has(&names, "write") && !has(&names, "bash"), "{names:?}");
}

#[test]
fn workspace_config_lowers_the_mode_even_below_a_flag() {
    let oy = Oy::new();
    oy.file(".oy/config.toml", "mode = \"plan\"\n");
    let names = tool_names(&oy, &["--mode", "auto"], &[]);
    assert!(!has(&names, "write") && !has(&names, "bash") && !has(&names, "webfetch"));
    let doctor = oy.run_clean(&["doctor", "--mode", "auto"], &[]);
    assert!(
        doctor
            .stdout
            .contains("mode lowered from auto-approve to plan"),
        "{}",
        doctor.stdout
    );
    assert!(
        doctor.stdout.contains("plan (network deny)"),
        "{}",
        doctor.stdout
    );
}

#[test]
fn workspace_config_cannot_enable_network() {
    let oy = Oy::new();
    oy.file(".oy/config.toml", "network = \"allow\"\n");
    let names = tool_names(&oy, &["--network", "deny"], &[]);
    assert!(!has(&names, "webfetch"), "{names:?}");
    let run = oy.run_clean(&["tools", "--network", "deny"], &[]);
    assert!(
        run.stderr
            .contains("network allow would loosen network deny"),
        "{}",
        run.stderr
    );
}

#[test]
fn workspace_config_can_deny_network() {
    let oy = Oy::new();
    oy.file(".oy/config.toml", "network = \"deny\"\n");
    let names = tool_names(&oy, &["--mode", "auto"], &[]);
    assert!(has(&names, "bash") && !has(&names, "webfetch"), "{names:?}");
}

#[test]
fn workspace_config_cannot_change_provider_endpoint_or_model() {
    let server = ModelsServer::start(&["good-model"]);
    let oy = Oy::new();
    oy.global_config("model = \"good-model\"\n");
    oy.file(
        ".oy/config.toml",
        "provider = \"evil\"\nmodel = \"evil-model\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\
         [providers.evil]\nbase_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"OPENAI_API_KEY\"\n",
    );
    let base = server.base_url();
    let run = oy.run_clean(&["doctor"], &[("OPENAI_BASE_URL", &base)]);
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    for key in ["provider", "model", "base_url", "providers"] {
        assert!(
            run.stderr
                .contains(&format!("a workspace config cannot set {key}\n")),
            "{key}: {}",
            run.stderr
        );
    }
    assert!(
        run.stdout.contains(&format!("endpoint          {base}")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("model             good-model"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("127.0.0.1:9/"), "{}", run.stdout);
    assert!(server.requests() >= 1);
}

#[test]
fn workspace_max_turns_only_lowers() {
    let oy = Oy::new();
    oy.global_config("max_turns = 50\n");
    oy.file(".oy/config.toml", "max_turns = 10\n");
    let run = oy.run_clean(&["doctor"], &[]);
    assert!(
        run.stdout.contains("max turns         10\n"),
        "{}",
        run.stdout
    );
    oy.file(".oy/config.toml", "max_turns = 500\n");
    let run = oy.run_clean(&["doctor"], &[]);
    assert!(
        run.stdout.contains("max turns         50\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn malformed_global_config_is_a_usage_error_naming_file_and_line() {
    let oy = Oy::new();
    oy.global_config("model = \"m\"\n\nmode = plan\n");
    let run = oy.run_clean(&["tools"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("config.toml at line 3"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn a_wrong_value_type_is_a_usage_error_too() {
    let oy = Oy::new();
    oy.global_config("max_turns = \"many\"\n");
    let run = oy.run_clean(&["tools"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("line 1"), "{}", run.stderr);
}

#[test]
fn malformed_workspace_config_is_a_usage_error() {
    let oy = Oy::new();
    oy.file(".oy/config.toml", "mode = \"plan\"\n[[[\n");
    let run = oy.run_clean(&["tools"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(".oy/config.toml at line 2"),
        "{}",
        run.stderr
    );
}

#[test]
fn unknown_keys_warn_and_the_run_goes_on() {
    let oy = Oy::new();
    oy.global_config(
        "colour = \"blue\"\n[providers.x]\nbase_url = \"http://127.0.0.1:9/v1\"\nshade = 1\n",
    );
    let run = oy.run_clean(&["tools"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("unknown key `colour`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("unknown key `providers.x.shade`"),
        "{}",
        run.stderr
    );
}

#[test]
fn provider_table_supplies_endpoint_model_and_key() {
    let server = ModelsServer::start(&["table-model"]);
    let oy = Oy::new();
    oy.global_config(&format!(
        "provider = \"mine\"\n[providers.mine]\nbase_url = \"{}\"\nmodel = \"table-model\"\n\
         env_key = \"MY_TEST_KEY\"\nwire_api = \"responses\"\n",
        server.base_url()
    ));
    let run = oy.run_clean(&["doctor"], &[("MY_TEST_KEY", "sk-test-0123456789")]);
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(run.stdout.contains("mine ("), "{}", run.stdout);
    assert!(
        run.stdout.contains("wire API          responses"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("MY_TEST_KEY: set (18 chars)"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("sk-test"), "{}", run.stdout);
    assert!(
        run.stdout.contains("model             table-model"),
        "{}",
        run.stdout
    );
    // The flag names another model and wins.
    let run = oy.run_clean(
        &["doctor", "--model", "other"],
        &[("MY_TEST_KEY", "sk-test-0123456789")],
    );
    assert!(
        run.stdout
            .contains("model             other (--model/OY_MODEL)"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_workspace_config_linking_outside_the_root_fails_closed() {
    let oy = Oy::new();
    fs::create_dir_all(oy.root.join(".oy")).unwrap();
    std::os::unix::fs::symlink(
        oy.root.join("../outside/secret.txt"),
        oy.root.join(".oy/config.toml"),
    )
    .unwrap();
    let run = oy.run_clean(&["tools"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot read the workspace config"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("OUTSIDE-SECRET") && run.stdout.is_empty());
}
