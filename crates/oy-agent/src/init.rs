//! [`INIT_PROMPT`]: the turn behind `/init`, which writes (or improves)
//! the workspace's `AGENTS.md` — the file [`crate::read_agents_md`] sends
//! with every later request, so it pays to keep it short and true.

/// The prompt of an `/init` turn. The file it asks for is written with the
/// ordinary tools, so the person approves it like any other change.
pub const INIT_PROMPT: &str = "\
Create or improve AGENTS.md at the workspace root: short, accurate guidance for coding agents and new contributors working in this repository. It is sent with every request, so every line must earn its place.

1. Look before you write; do not guess. List the top level, then read what exists of: the README, the build and package manifests (Cargo.toml, package.json, pyproject.toml, go.mod, pom.xml, build.gradle, Makefile, justfile, CMakeLists.txt…), CI workflows (.github/workflows, .gitlab-ci.yml…), contributing guides, linter and formatter configs, and rules written for other assistants (CLAUDE.md, GEMINI.md, .cursorrules, .cursor/rules/, .github/copilot-instructions.md). Skim a few central source files and tests to see the conventions in use.
2. If AGENTS.md already exists, read it first and improve it: keep what is still true and the owner's own notes, correct what is wrong, add what is missing. Never throw it away to start over.
3. Write AGENTS.md in Markdown with these sections, each only when you found something real:
   - Build, test and lint: the exact commands (in code blocks), including how to run a single test, and any setup they need.
   - Layout: the main directories and what lives in each, the entry points, how the pieces fit together.
   - Conventions: code style, naming, error handling, testing and commit rules that the code or the docs show.
   - Gotchas: what surprises a newcomer (generated files not to edit, slow or flaky tests, required services).
   Aim for 20 to 60 lines. State only what you verified in the files; no generic advice that fits any project; no secrets, tokens or personal paths.
4. Save it with one file change (the user approves it). Do not run the build or the tests for this; do not change any other file.

Finish with two or three lines on what AGENTS.md now covers.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_init_prompt_names_its_file_and_what_it_must_hold() {
        for needed in [
            "AGENTS.md",
            "Build, test and lint",
            "Layout",
            "Conventions",
            "already exists",
            "approves",
        ] {
            assert!(INIT_PROMPT.contains(needed), "{needed}");
        }
    }
}
