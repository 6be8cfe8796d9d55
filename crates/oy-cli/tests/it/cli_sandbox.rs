//! The process sandbox against the real kernel, tried as an attacker
//! would: through `oy tool bash` (exactly what a model's call runs) and
//! `oy sandbox --`. Each test skips, saying why, only where the kernel
//! lacks Landlock, seccomp or mount namespaces.

use std::fs;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::{Oy, Run};

/// True when this kernel gives the full sandbox; otherwise prints why the
/// calling test is skipped.
#[expect(
    clippy::print_stdout,
    reason = "a test skipped for the kernel says why"
)]
pub(crate) fn full_sandbox(oy: &Oy) -> bool {
    let run = oy.run(&["sandbox"]);
    let full = run.stdout.starts_with("sandbox: full");
    if !full {
        println!(
            "skipped: the kernel does not offer the full sandbox:\n{}",
            run.stdout
        );
    }
    full
}

/// A fake home with planted credentials and a dotfile, outside the root.
fn fake_home(oy: &Oy) -> PathBuf {
    let home = oy.root.parent().unwrap().join("home");
    fs::create_dir_all(home.join(".ssh")).unwrap();
    fs::create_dir_all(home.join(".aws")).unwrap();
    fs::write(home.join(".ssh/id_rsa"), "PLANTED-SSH-KEY\n").unwrap();
    fs::write(home.join(".aws/credentials"), "PLANTED-AWS-SECRET\n").unwrap();
    fs::write(home.join(".bashrc"), "# original\n").unwrap();
    home
}

/// `oy tool bash` in auto-approve mode with `env` added to oy's own
/// environment.
pub(crate) fn bash(oy: &Oy, command: &str, extra: &[&str], env: &[(&str, &str)]) -> Run {
    let args = serde_json::json!({ "command": command, "timeout_ms": 20_000 }).to_string();
    let mut all = vec!["tool", "bash", args.as_str(), "--mode", "auto"];
    all.extend_from_slice(extra);
    let mut cmd = oy.command();
    cmd.args(&all);
    for (name, value) in env {
        cmd.env(name, value);
    }
    let output = cmd.output().unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

pub(crate) fn git(root: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn writes_outside_the_root_are_refused_however_they_are_tried() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let home = fake_home(&oy);
    let base = oy.root.parent().unwrap();
    let sibling = base.join("sibling");
    fs::create_dir_all(&sibling).unwrap();
    // Another user's world-writable file in a shared temporary directory.
    let shared = base.join("shared-tmp");
    fs::create_dir_all(&shared).unwrap();
    fs::write(shared.join("theirs.txt"), "theirs\n").unwrap();
    fs::set_permissions(shared.join("theirs.txt"), fs::Permissions::from_mode(0o666)).unwrap();
    std::os::unix::fs::symlink(home.join(".bashrc"), oy.root.join("planted-link")).unwrap();
    let script = format!(
        "echo evil >> {home}/.bashrc; echo evil > {sibling}/new.txt; echo evil >> {shared}/theirs.txt; \
         echo evil >> planted-link; mkdir {sibling}/dir; echo ok > inside.txt; echo ok > \"$TMPDIR/scratch\" && echo tmp-ok; \
         chmod 600 {shared}/theirs.txt; touch -d 2001-01-01 {shared}/theirs.txt; chmod u+s {shared}/theirs.txt; \
         printf 'shadow bytes: '; cat /etc/shadow 2>/dev/null | wc -c",
        home = home.display(),
        sibling = sibling.display(),
        shared = shared.display()
    );
    let run = bash(&oy, &script, &[], &[("HOME", home.to_str().unwrap())]);
    assert_eq!(
        fs::read_to_string(home.join(".bashrc")).unwrap(),
        "# original\n"
    );
    assert!(!sibling.join("new.txt").exists());
    assert!(!sibling.join("dir").exists());
    assert_eq!(
        fs::read_to_string(shared.join("theirs.txt")).unwrap(),
        "theirs\n"
    );
    assert_eq!(oy.read("inside.txt"), "ok\n", "{}", run.stdout);
    assert!(run.stdout.contains("tmp-ok"), "{}", run.stdout);
    // Read-only mounts answer first, then Landlock.
    assert!(
        run.stdout.contains("Read-only file system") || run.stdout.contains("Permission denied"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("is outside the workspace"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("oy sandbox: the command was refused"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("RECOVERY:"), "{}", run.stdout);
}

#[test]
fn home_credentials_are_not_readable_but_toolchains_are() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let home = fake_home(&oy);
    fs::create_dir_all(home.join(".cargo/bin")).unwrap();
    fs::write(home.join(".cargo/bin/tool-marker"), "TOOLCHAIN-OK\n").unwrap();
    fs::write(
        home.join(".cargo/credentials.toml"),
        "PLANTED-CARGO-TOKEN\n",
    )
    .unwrap();
    let run = bash(
        &oy,
        "cat ~/.ssh/id_rsa ~/.aws/credentials ~/.cargo/credentials.toml; ls ~ ; cat ~/.cargo/bin/tool-marker",
        &[],
        &[("HOME", home.to_str().unwrap())],
    );
    for planted in [
        "PLANTED-SSH-KEY",
        "PLANTED-AWS-SECRET",
        "PLANTED-CARGO-TOKEN",
        ".bashrc",
    ] {
        assert!(
            !run.stdout.contains(planted),
            "{planted} leaked:\n{}",
            run.stdout
        );
    }
    assert!(run.stdout.contains("TOOLCHAIN-OK"), "{}", run.stdout);
}

/// Serves one TCP connection and one UDP datagram on 127.0.0.1; returns
/// the ports and a probe telling whether either arrived.
fn listeners() -> (u16, u16, impl FnOnce() -> (bool, bool)) {
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let (tcp_port, udp_port) = (
        tcp.local_addr().unwrap().port(),
        udp.local_addr().unwrap().port(),
    );
    tcp.set_nonblocking(true).unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let probe = move || {
        let tcp_seen = tcp.accept().is_ok();
        let mut buf = [0_u8; 16];
        let udp_seen = udp.recv(&mut buf).is_ok();
        (tcp_seen, udp_seen)
    };
    (tcp_port, udp_port, probe)
}

#[test]
fn sockets_other_than_unix_are_refused_unless_the_network_is_allowed() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let (tcp, udp, probe) = listeners();
    let script = format!(
        "echo hi > /dev/tcp/127.0.0.1/{tcp}; echo hi > /dev/udp/127.0.0.1/{udp}; \
         python3 -c 'import socket; a,b = socket.socketpair(); print(\"unix-ok\")' 2>&1"
    );
    // auto-approve implies `--network allow`; `ask` leaves commands offline.
    let run = bash(&oy, &script, &["--network", "ask"], &[]);
    assert_eq!(probe(), (false, false), "{}", run.stdout);
    assert!(
        run.stdout.contains("Operation not permitted"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("unix-ok") || !python_works(),
        "{}",
        run.stdout
    );

    let (tcp, udp, probe) = listeners();
    let script = format!("echo hi > /dev/tcp/127.0.0.1/{tcp}; echo hi > /dev/udp/127.0.0.1/{udp}");
    let run = bash(&oy, &script, &["--network", "allow"], &[]);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(probe(), (true, true), "{}", run.stdout);
}

fn python_works() -> bool {
    Command::new("python3")
        .arg("-c")
        .arg("pass")
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn oy_environment_and_memory_cannot_be_read_back() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    // The bash's parent is the supervisor, whose parent is oy.
    let script = "oy=$(awk '{print $4}' /proc/$PPID/stat); echo oy=$oy; \
        cat /proc/$oy/environ; cat /proc/$PPID/environ; head -c 100 /proc/$oy/maps; \
        ls /proc/$oy/fd; tr '\\0' '\\n' < /proc/1/environ | head -3; echo done";
    let run = bash(
        &oy,
        script,
        &[],
        &[("OY_TEST_PROVIDER_KEY", "sk-PLANTED-PROVIDER-KEY-123456")],
    );
    assert!(run.stdout.contains("oy="), "{}", run.stdout);
    assert!(run.stdout.contains("done"), "{}", run.stdout);
    assert!(
        !run.stdout.contains("PLANTED-PROVIDER-KEY"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("XDG_DATA_HOME="), "{}", run.stdout);
}

#[test]
fn children_have_no_terminal_and_cannot_type_into_one() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let script = "exec 3<>/dev/tty && echo TTY-OPENED; ls /dev/pts >/dev/null && echo >> /dev/pts/0 && echo PTS-WRITTEN; \
        python3 -c 'import fcntl, termios, sys\ntry:\n fcntl.ioctl(0, termios.TIOCSTI, b\"x\")\nexcept OSError as e:\n print(\"tiocsti errno\", e.errno)' ; \
        ps -o tty= -p $$";
    let run = bash(&oy, script, &[], &[]);
    assert!(!run.stdout.contains("TTY-OPENED"), "{}", run.stdout);
    assert!(!run.stdout.contains("PTS-WRITTEN"), "{}", run.stdout);
    if python_works() {
        // EPERM from seccomp, not ENOTTY (25) from /dev/null.
        assert!(run.stdout.contains("tiocsti errno 1"), "{}", run.stdout);
    }
}

pub(crate) fn alive(marker: &str) -> bool {
    let out = Command::new("pgrep").args(["-f", marker]).output().unwrap();
    !out.stdout.is_empty()
}

pub(crate) fn wait_gone(marker: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        if !alive(marker) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn nothing_started_by_a_call_outlives_it() {
    let oy = Oy::new();
    if !full_sandbox(&oy) || Command::new("pgrep").arg("-V").output().is_err() {
        println!("skipped: pgrep is missing");
        return;
    }
    let script = "setsid sleep 987601 & (sleep 987602 &) ; set -m; sleep 987603 & \
        nohup sh -c 'sleep 987604' >/dev/null 2>&1 & disown; echo started";
    let run = bash(&oy, script, &[], &[]);
    assert!(run.stdout.contains("started"), "{}", run.stdout);
    for marker in [
        "sleep 987601",
        "sleep 987602",
        "sleep 987603",
        "sleep 987604",
    ] {
        assert!(wait_gone(marker), "{marker} outlived the call");
    }
    // And on a timeout, with the leader still running.
    let args = serde_json::json!({
        "command": "setsid sleep 987605 & (sleep 987606 &); sleep 987607",
        "timeout_ms": 700
    })
    .to_string();
    let run = oy.run(&["tool", "bash", &args, "--mode", "auto"]);
    assert!(run.stdout.contains("exit: 124"), "{}", run.stdout);
    for marker in ["sleep 987605", "sleep 987606", "sleep 987607"] {
        assert!(wait_gone(marker), "{marker} outlived the timeout");
    }
}

#[test]
fn a_killed_oy_takes_its_commands_with_it() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let args = serde_json::json!({ "command": "setsid sleep 987611 & sleep 987612", "timeout_ms": 60_000 }).to_string();
    let mut child = oy
        .command()
        .args(["tool", "bash", &args, "--mode", "auto"])
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !alive("sleep 987611") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(alive("sleep 987611"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        wait_gone("sleep 987611"),
        "the setsid grandchild outlived oy"
    );
    assert!(wait_gone("sleep 987612"), "the command outlived oy");
}

#[test]
fn real_work_inside_the_workspace_still_works() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    git(&oy.root, &["init", "-q"]);
    oy.file(
        "Cargo.toml",
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    oy.file(
        "src/lib.rs",
        "pub fn double(x: u32) -> u32 { x * 2 }\n#[cfg(test)]\nmod tests { #[test] fn doubles() { assert_eq!(super::double(2), 4); } }\n",
    );
    let script = "git status --short && git -c user.name=t -c user.email=t@e add -A && \
        git -c user.name=t -c user.email=t@e commit -q -m init && git diff HEAD && echo GIT-OK; \
        cargo test --offline -q 2>&1 | grep 'test result' && echo CARGO-DONE; \
        if python3 -c pass 2>/dev/null; then python3 -m unittest -q test_tiny 2>&1 | tail -1; else echo 'OK (no python)'; fi";
    oy.file(
        "test_tiny.py",
        "import tempfile, unittest\nclass T(unittest.TestCase):\n    def test_tmp(self):\n        with tempfile.NamedTemporaryFile() as f:\n            f.write(b'x')\n",
    );
    let target = oy.root.join("target");
    let run = bash(
        &oy,
        script,
        &[],
        &[("CARGO_TARGET_DIR", target.to_str().unwrap())],
    );
    assert!(run.stdout.contains("GIT-OK"), "{}", run.stdout);
    assert!(
        run.stdout.contains("test result: ok. 1 passed"),
        "{}",
        run.stdout
    );
}

#[test]
fn turning_it_off_is_the_users_choice_said_loudly_and_a_workspace_cannot() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let base = oy.root.parent().unwrap().to_path_buf();
    oy.file(".oy/config.toml", "sandbox = \"off\"\n");
    let script = format!("echo x > {}/outside/written.txt", base.display());
    let run = bash(&oy, &script, &[], &[]);
    assert!(!base.join("outside/written.txt").exists(), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("a workspace cannot turn the sandbox off"),
        "{}",
        run.stderr
    );
    fs::remove_file(oy.root.join(".oy/config.toml")).unwrap();
    let run = bash(&oy, &script, &["--sandbox", "off"], &[]);
    assert!(base.join("outside/written.txt").exists(), "{}", run.stdout);
    assert!(run.stderr.contains("WARNING"), "{}", run.stderr);
    assert!(run.stderr.contains("sandbox level none"), "{}", run.stderr);
}

#[test]
fn oy_sandbox_runs_a_command_under_the_tool_sandbox_and_shows_the_rules() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let shown = oy.run(&["sandbox"]);
    assert!(shown.stdout.contains("writable:"), "{}", shown.stdout);
    assert!(shown.stdout.contains("network: off"), "{}", shown.stdout);
    let run = oy.run(&[
        "sandbox",
        "--",
        "bash",
        "-c",
        "echo inside > made.txt; exit 7",
    ]);
    assert_eq!(run.code, 7, "{}", run.stderr);
    assert_eq!(oy.read("made.txt"), "inside\n");
    let run = oy.run(&["sandbox", "--", "cat", "../outside/secret.txt"]);
    assert_ne!(run.code, 0);
    assert!(!run.stdout.contains("OUTSIDE-SECRET"));
    let run = oy.run(&["sandbox", "--", "no-such-program-oy"]);
    assert_eq!(run.code, 127, "{}", run.stderr);
}

#[test]
fn exec_and_pty_sessions_are_confined_too() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let args = serde_json::json!({ "cmd": "cat", "args": ["../outside/secret.txt"] }).to_string();
    let run = oy.run(&["tool", "exec", &args, "--mode", "auto"]);
    assert!(!run.stdout.contains("OUTSIDE-SECRET"), "{}", run.stdout);
    assert!(run.stdout.contains("Permission denied"), "{}", run.stdout);
    let args = serde_json::json!({
        "cmd": "cat ../outside/secret.txt; test -w /dev/tty && echo TTY-USABLE",
        "yield_time_ms": 3000
    })
    .to_string();
    let run = oy.run(&["tool", "exec_command", &args, "--mode", "auto"]);
    assert!(!run.stdout.contains("OUTSIDE-SECRET"), "{}", run.stdout);
    assert!(run.stdout.contains("TTY-USABLE"), "{}", run.stdout);
    // A session still running when oy exits takes its whole tree with it,
    // also a process that left the session's process group.
    let args = serde_json::json!({
        "cmd": "setsid sleep 987631 & sleep 987632",
        "yield_time_ms": 300
    })
    .to_string();
    let run = oy.run(&["tool", "exec_command", &args, "--mode", "auto"]);
    assert!(run.stdout.contains("running"), "{}", run.stdout);
    assert!(
        wait_gone("sleep 987631"),
        "a setsid process outlived its PTY session"
    );
    assert!(wait_gone("sleep 987632"), "the PTY session outlived oy");
}

/// Runs `oy tool bash` as uid/gid 65534 through `setpriv` (see
/// [`tool_as_nobody_with`]), with a planted provider key in its
/// environment; `None` when the machine cannot.
fn bash_as_nobody(oy: &Oy, command: &str, sandbox: &str) -> Option<Run> {
    let args = serde_json::json!({ "command": command, "timeout_ms": 20_000 }).to_string();
    crate::support::tool_as_nobody_with(
        oy,
        "bash",
        &args,
        &["--mode", "auto", "--sandbox", sandbox],
        &[("OY_TEST_PROVIDER_KEY", "sk-PLANTED-PROVIDER-KEY-654321")],
    )
}

#[test]
fn a_non_root_user_gets_the_same_sandbox_and_oy_stays_unreadable_even_when_off() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    fake_home(&oy);
    git(&oy.root, &["init", "-q"]);
    let read_oy = "oy=$(awk '{print $4}' /proc/$PPID/stat); cat /proc/$oy/environ /proc/$PPID/environ; echo done";
    let script = format!(
        "{read_oy}; echo x >> .git/config; cat ~/.ssh/id_rsa; echo x > ../outside/by-nobody.txt; echo ok > mine.txt; \
         echo /elsewhere > .git/commondir; chmod 555 .git; \
         mkdir -p \"$TMPDIR/d/e\"; chmod 000 \"$TMPDIR/d\"; echo \"tmp=$TMPDIR\""
    );
    let Some(run) = bash_as_nobody(&oy, &script, "on") else {
        return;
    };
    assert!(run.stdout.contains("done"), "{}{}", run.stdout, run.stderr);
    assert!(
        !run.stdout.contains("PLANTED-PROVIDER-KEY"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("PLANTED-SSH-KEY"), "{}", run.stdout);
    assert!(!oy.read(".git/config").contains("x\n"), "{}", run.stdout);
    assert!(
        !oy.root
            .parent()
            .unwrap()
            .join("outside/by-nobody.txt")
            .exists()
    );
    assert_eq!(oy.read("mine.txt"), "ok\n");
    // The private temporary directory goes with oy, whatever was done to it.
    let tmp = run
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("tmp="))
        .unwrap();
    assert!(tmp.contains("oy-") && !Path::new(tmp).exists(), "{tmp}");
    // A read-only `.git` does not keep a planted pointer from being removed.
    assert!(!oy.root.join(".git/commondir").exists(), "{}", run.stdout);
    // Off: oy is still non-dumpable, so its environment stays its own.
    let run = bash_as_nobody(&oy, read_oy, "off").unwrap();
    assert!(run.stdout.contains("done"), "{}{}", run.stdout, run.stderr);
    assert!(
        !run.stdout.contains("PLANTED-PROVIDER-KEY"),
        "{}",
        run.stdout
    );
}

#[test]
fn json_events_and_approval_summaries_name_the_sandbox() {
    use crate::mock_model::{self, Wire, call, text};
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let json_lines = |stdout: &str| -> Vec<serde_json::Value> {
        stdout
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    };
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call("bash", serde_json::json!({"command": "echo hi"})),
            text("done"),
        ],
    );
    let out = mock_model::run(
        &oy,
        &mock,
        &["--json", "--mode", "auto", "--network", "ask", "say hi"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events = json_lines(&out.stdout);
    let started = events
        .iter()
        .find(|event| event["type"] == "tool_call_started")
        .unwrap();
    assert_eq!(
        started["sandbox"], "sandbox: full, workspace-write, network off",
        "{started}"
    );

    // Default mode without a terminal: the denied approval's summary says it.
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call("bash", serde_json::json!({"command": "echo hi"})),
            text("done"),
        ],
    );
    let out = mock_model::run(&oy, &mock, &["--json", "say hi"]);
    let events = json_lines(&out.stdout);
    let approval = events
        .iter()
        .find(|event| event["type"] == "approval")
        .unwrap();
    assert!(
        approval["summary"]
            .as_str()
            .unwrap()
            .contains("sandbox: full"),
        "{approval}"
    );
}

/// Compiles `source` with the machine's C compiler into `dir/name`
/// (`-shared` when `shared`); `None` when there is no compiler.
#[expect(
    clippy::print_stdout,
    reason = "a test skipped for the machine says why"
)]
fn compile_c(dir: &Path, name: &str, source: &str, shared: bool) -> Option<PathBuf> {
    let src = dir.join(format!("{name}.c"));
    fs::write(&src, source).unwrap();
    let out = dir.join(name);
    let mut cc = Command::new("cc");
    if shared {
        cc.args(["-shared", "-fPIC"]);
    }
    match cc.arg("-o").arg(&out).arg(&src).status() {
        Ok(status) if status.success() => Some(out),
        _ => {
            println!("skipped: no working C compiler (cc)");
            None
        }
    }
}

#[test]
fn the_models_environment_never_reaches_the_unconfined_launcher() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let base = oy.root.parent().unwrap().to_path_buf();
    let marker = base.join("outside/PWNED");
    let source = format!(
        "#include <stdio.h>\n__attribute__((constructor)) static void pwn(void) {{\n\
         FILE *f = fopen(\"{}\", \"a\"); if (f) {{ fputs(\"escaped\\n\", f); fclose(f); }} }}\n",
        marker.display()
    );
    let Some(library) = compile_c(&base, "evil.so", &source, true) else {
        return;
    };
    for env in ["LD_PRELOAD", "LD_AUDIT"] {
        let args = serde_json::json!({
            "cmd": "true",
            "env": { env: library.to_str().unwrap() }
        })
        .to_string();
        let run = oy.run(&["tool", "exec", &args, "--mode", "auto"]);
        assert!(
            !marker.exists(),
            "{env} ran code outside the sandbox: {}",
            run.stdout
        );
    }
}

#[test]
fn a_tracer_that_hides_a_childs_exit_does_not_outlive_the_call() {
    let oy = Oy::new();
    if !full_sandbox(&oy) || Command::new("pgrep").arg("-V").output().is_err() {
        return;
    }
    // M lets anyone trace it; its child T leaves the session, traces M (so
    // M's exit is reported to T, not to M's parent) and starts a daemon D.
    let source = "#include <unistd.h>\n#include <sys/ptrace.h>\n#include <sys/prctl.h>\n\
        int main(void) { prctl(PR_SET_PTRACER, (unsigned long)-1, 0, 0, 0); pid_t m = getpid();\n\
        if (fork() == 0) { setsid(); ptrace(PTRACE_SEIZE, m, 0, 0);\n\
          if (fork() == 0) { setsid(); for (;;) pause(); }\n\
          for (;;) pause(); }\n\
        for (;;) pause(); }\n";
    let Some(_) = compile_c(&oy.root, "hider_987651", source, false) else {
        return;
    };
    let args =
        serde_json::json!({ "command": "exec ./hider_987651", "timeout_ms": 1000 }).to_string();
    let run = oy.run(&["tool", "bash", &args, "--mode", "auto"]);
    assert!(run.stdout.contains("exit: 124"), "{}", run.stdout);
    assert!(
        wait_gone("hider_987651"),
        "a traced process tree outlived the call"
    );
}
