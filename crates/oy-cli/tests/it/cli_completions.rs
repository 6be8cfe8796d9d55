//! `oy completions SHELL`: scripts generated from the clap grammar.

use crate::support::Oy;

#[test]
fn completions_are_generated_for_bash_and_zsh() {
    let oy = Oy::new();
    let run = oy.run_clean(&["completions", "bash"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("_oy()"),
        "{}",
        &run.stdout[..200.min(run.stdout.len())]
    );
    assert!(run.stdout.contains("--max-turns"));
    let run = oy.run_clean(&["completions", "zsh"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("#compdef oy"));
    let run = oy.run_clean(&["completions", "nosh"], &[]);
    assert_eq!(run.code, 2);
}
