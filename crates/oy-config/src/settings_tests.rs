//! Precedence: overrides beat the global file, the file beats defaults,
//! and the workspace ceiling caps whatever set a value.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use oy_provider::Sourced;
use oy_tools::{Mode, Network, SandboxSetting};

use crate::{ConfigError, ConfigTexts, Overrides, Settings};

fn env(name: &str) -> Option<OsString> {
    (name == "HOME").then(|| OsString::from("/Users/u"))
}

fn no_file(_: &Path) -> bool {
    false
}

fn resolve(overrides: &Overrides, global: &str, workspace: Option<&str>) -> Settings {
    try_resolve(overrides, global, workspace).unwrap()
}

fn try_resolve(
    overrides: &Overrides,
    global: &str,
    workspace: Option<&str>,
) -> Result<Settings, ConfigError> {
    let texts = ConfigTexts {
        global: Some(global.to_owned()),
        workspace: workspace.map(|text| (PathBuf::from("/ws/.oy/config.toml"), text.to_owned())),
    };
    Settings::resolve(overrides, texts, false, env, no_file)
}

const CONFIG: &str = "/Users/u/.config/oy/config.toml";

#[test]
fn overrides_beat_the_file_and_name_their_source() {
    let overrides = Overrides {
        model: Some(Sourced::new("flag-model", "--model")),
        mode: Some("edit".to_owned()),
        ..Overrides::default()
    };
    let settings = resolve(
        &overrides,
        "model = \"file-model\"\nmode = \"plan\"\n",
        None,
    );
    assert_eq!(settings.model, Some(Sourced::new("flag-model", "--model")));
    assert_eq!(settings.policy.mode, Mode::AcceptEdits);
}

#[test]
fn the_file_names_itself_as_the_source() {
    let settings = resolve(
        &Overrides::default(),
        "provider = \"gw\"\nmodel = \"m\"\n",
        None,
    );
    assert_eq!(settings.provider, Some(Sourced::new("gw", CONFIG)));
    assert_eq!(settings.model, Some(Sourced::new("m", CONFIG)));
    assert_eq!(settings.config_file, Some((PathBuf::from(CONFIG), true)));
}

#[test]
fn the_provider_table_gives_the_model_and_window_last() {
    let text = "provider = \"gw\"\ncontext_window = 1000\n\
                [providers.gw]\nbase_url = \"http://h\"\nmodel = \"gm\"\ncontext_window = 2000\n";
    let settings = resolve(&Overrides::default(), text, None);
    assert_eq!(
        settings.model,
        Some(Sourced::new("gm", "providers.gw.model in the config"))
    );
    assert_eq!(settings.context_window, Some(2000));
    let settings = resolve(&Overrides::default(), "context_window = 1000\n", None);
    assert_eq!(settings.context_window, Some(1000));
    assert_eq!(settings.audit_window(None, None).tokens, 1000);
}

#[test]
fn a_workspace_config_caps_what_the_user_chose() {
    let overrides = Overrides {
        mode: Some("auto".to_owned()),
        ..Overrides::default()
    };
    let settings = resolve(
        &overrides,
        "max_turns = 50\nnetwork = \"allow\"\n",
        Some("mode = \"plan\"\nmax_turns = 5\nsandbox = \"on\"\nmodel = \"x\"\n"),
    );
    assert_eq!(settings.policy.mode, Mode::Plan);
    assert_eq!(settings.max_turns, Some(5));
    assert_eq!(settings.max_turns_with(Some(99)), Some(5));
    assert_eq!(settings.agent_options(Some(99)).max_turns, 5);
    assert_eq!(settings.sandbox, SandboxSetting::On);
    assert!(settings.network_chosen);
    assert_eq!(settings.policy_for_mode(Mode::AutoApprove).mode, Mode::Plan);
    let (path, effects) = settings.workspace_config.as_ref().unwrap();
    assert_eq!(path, Path::new("/ws/.oy/config.toml"));
    assert!(!effects.is_empty());
    assert!(
        settings
            .warnings
            .iter()
            .any(|w| w.contains("cannot set model")),
        "{:?}",
        settings.warnings
    );
}

#[test]
fn without_a_choice_the_mode_decides_the_network() {
    let settings = resolve(&Overrides::default(), "mode = \"plan\"\n", None);
    assert_eq!(settings.policy.network, Network::Deny);
    assert!(!settings.network_chosen);
    assert_eq!(
        settings.policy_for_mode(Mode::AutoApprove).network,
        Network::Allow
    );
}

#[test]
fn bad_values_are_typed_errors_without_flag_names() {
    let bad = |overrides: Overrides| try_resolve(&overrides, "", None).unwrap_err();
    let error = bad(Overrides {
        sandbox: Some("maybe".to_owned()),
        ..Overrides::default()
    });
    assert!(matches!(&error, ConfigError::Sandbox { given } if given == "maybe"));
    assert!(!error.to_string().contains("--"), "{error}");
    assert!(matches!(
        bad(Overrides {
            mode: Some("yolo".to_owned()),
            ..Overrides::default()
        }),
        ConfigError::Mode(_)
    ));
    assert!(matches!(
        bad(Overrides {
            wire_api: Some("grpc".to_owned()),
            ..Overrides::default()
        }),
        ConfigError::WireApi(_)
    ));
    let error = try_resolve(&Overrides::default(), "idle_timeout_secs = 0\n", None).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("idle_timeout_secs in {CONFIG} must be at least 1")
    );
}

#[test]
fn connect_settings_carry_the_choices_and_their_sources() {
    let text =
        "provider = \"gw\"\nidle_timeout_secs = 7\n[providers.gw]\nbase_url = \"http://h\"\n";
    let connect = resolve(&Overrides::default(), text, None).connect_settings();
    assert_eq!(connect.provider, Some(Sourced::new("gw", CONFIG)));
    assert!(connect.providers.contains_key("gw"));
    assert_eq!(
        connect.idle_timeout,
        Some(std::time::Duration::from_secs(7))
    );
}

#[test]
fn sandbox_read_paths_expand_the_home_directory() {
    let settings = resolve(
        &Overrides::default(),
        "sandbox_read = [\"~/opt\", \"/srv\"]\n",
        None,
    );
    let inputs = settings.sandbox_inputs(env, None, PathBuf::from("/tmp"));
    assert_eq!(
        inputs.extra_read,
        vec![PathBuf::from("/Users/u/opt"), PathBuf::from("/srv")]
    );
    assert_eq!(inputs.home, Some(PathBuf::from("/Users/u")));
    assert_eq!(
        inputs.private_dirs,
        vec![
            PathBuf::from("/Users/u/.config/oy"),
            PathBuf::from("/Users/u/.local/share/oy")
        ]
    );
}

#[test]
fn mcp_servers_are_read_checked_and_a_workspace_cannot_replace_the_users_own() {
    let settings = resolve(
        &Overrides::default(),
        "[mcp_servers.docs]\ncommand = \"docs-mcp\"\ncolour = 1\n[mcp_servers.both]\ncommand = \"a\"\nurl = \"https://h/mcp\"\n",
        Some("[mcp_servers.evil]\ncommand = \"x\"\n"),
    );
    let names: Vec<&str> = settings
        .mcp_servers
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(names, vec!["docs"]);
    let warnings = settings.warnings.join("\n");
    assert!(
        warnings.contains("unknown key `mcp_servers.docs.colour`"),
        "{warnings}"
    );
    assert!(
        warnings.contains("MCP server `both`: set `command` or `url`, not both"),
        "{warnings}"
    );
    // A workspace config cannot add servers (only a trusted .oy/mcp.toml can).
    assert!(warnings.contains("cannot set mcp_servers"), "{warnings}");
    let (workspace, _) = oy_mcp::parse_servers(
        ".oy/mcp.toml",
        "[mcp_servers.docs]\ncommand = \"other\"\n[mcp_servers.repo]\ncommand = \"r\"\n",
        false,
    )
    .unwrap();
    let (specs, notes) = settings.mcp_specs(workspace, &|_| None);
    let origins: Vec<(&str, oy_mcp::Origin)> = specs
        .iter()
        .map(|spec| (spec.name.as_str(), spec.origin))
        .collect();
    assert_eq!(
        origins,
        vec![
            ("docs", oy_mcp::Origin::Global),
            ("repo", oy_mcp::Origin::Workspace)
        ]
    );
    assert_eq!(specs[0].config.command.as_deref(), Some("docs-mcp"));
    assert_eq!(notes.len(), 1, "{notes:?}");
}
