//! A workspace's `.oy/mcp.toml`/`.json` adds no server until its exact
//! content is trusted for that root.

use std::fs;

use oy_boundary::Workspace;
use oy_mcp::{WorkspaceServers, load_workspace_servers};
use oy_tools::MemoryTrustStore;

fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join(".oy")).unwrap();
    for (name, text) in files {
        fs::write(tmp.path().join(name), text).unwrap();
    }
    let ws = Workspace::open(tmp.path()).unwrap();
    (tmp, ws)
}

const SERVERS: &str = "[mcp_servers.repo]\ncommand = \"./tools/mcp-server\"\n";

#[test]
fn an_untrusted_file_adds_nothing_until_approved_and_an_edit_asks_again() {
    let (tmp, ws) = workspace(&[(".oy/mcp.toml", SERVERS)]);
    let mut store = MemoryTrustStore::default();
    let mut asked = Vec::new();
    let refused = load_workspace_servers(&ws, &mut store, false, |request| {
        asked.push(request.servers.len());
        false
    })
    .unwrap();
    assert!(
        matches!(refused, WorkspaceServers::Untrusted { ref names, .. } if names == &["repo".to_owned()])
    );
    assert_eq!(asked, vec![1]);
    let trusted = load_workspace_servers(&ws, &mut store, false, |_| true).unwrap();
    assert!(matches!(trusted, WorkspaceServers::Trusted { ref servers, .. } if servers.len() == 1));
    let remembered =
        load_workspace_servers(&ws, &mut store, false, |_| panic!("asked again")).unwrap();
    assert!(matches!(remembered, WorkspaceServers::Trusted { .. }));
    fs::write(
        tmp.path().join(".oy/mcp.toml"),
        format!("{SERVERS}args = [\"--more\"]\n"),
    )
    .unwrap();
    let edited = load_workspace_servers(&ws, &mut store, false, |_| false).unwrap();
    assert!(matches!(edited, WorkspaceServers::Untrusted { .. }));
    let flagged = load_workspace_servers(&ws, &mut store, true, |_| false).unwrap();
    assert!(matches!(flagged, WorkspaceServers::Trusted { .. }));
}

#[test]
fn the_json_form_is_trusted_apart_and_both_forms_at_once_are_refused() {
    let json = r#"{"mcpServers": {"repo": {"command": "./tools/mcp-server"}}}"#;
    let (_tmp, ws) = workspace(&[(".oy/mcp.json", json)]);
    let mut store = MemoryTrustStore::default();
    let loaded = load_workspace_servers(&ws, &mut store, true, |_| false).unwrap();
    assert!(matches!(
        loaded,
        WorkspaceServers::Trusted {
            file: ".oy/mcp.json",
            ..
        }
    ));
    let (_tmp, both) = workspace(&[(".oy/mcp.json", json), (".oy/mcp.toml", SERVERS)]);
    let error = load_workspace_servers(&both, &mut store, true, |_| true).unwrap_err();
    assert!(error.to_string().contains("keep one"), "{error}");
}

#[test]
fn a_broken_file_is_never_asked_about_or_recorded() {
    let (_tmp, ws) = workspace(&[(".oy/mcp.toml", "[mcp_servers.x]\nurl = \"ftp://h\"\n")]);
    let mut store = MemoryTrustStore::default();
    let error = load_workspace_servers(&ws, &mut store, false, |_| panic!("asked")).unwrap_err();
    assert!(error.to_string().contains("not an http(s) URL"), "{error}");
}

#[test]
fn a_file_linked_out_of_the_workspace_is_not_read() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("mcp.toml"), SERVERS).unwrap();
    let (tmp, ws) = workspace(&[]);
    std::os::unix::fs::symlink(
        outside.path().join("mcp.toml"),
        tmp.path().join(".oy/mcp.toml"),
    )
    .unwrap();
    let mut store = MemoryTrustStore::default();
    let loaded = load_workspace_servers(&ws, &mut store, true, |_| true).unwrap();
    assert!(
        matches!(loaded, WorkspaceServers::Unreadable { .. }),
        "{loaded:?}"
    );
}
