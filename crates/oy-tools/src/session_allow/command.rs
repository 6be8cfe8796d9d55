//! How a command line reads for a session permission: its words, when a
//! shell would run it as exactly one simple command with exactly those
//! words, and the prefix an `a` answer offers for it
//! (`docs/protected-paths.md`, "Allow for this session").
//!
//! The reader accepts a deliberately small part of the shell language and
//! says "not one simple command" for everything else: a remembered prefix
//! must never cover a line that runs something more than its words.

/// The words of `line` when `bash -c line` would run it as one simple
/// command with exactly those words: no operator (`;` `&` `|`), no
/// redirection or here-doc, no substitution or parameter expansion (`$`,
/// backquotes), no subshell, group, brace or tilde expansion, no comment,
/// no escape, no leading assignment (`FOO=1 cmd`), no line break, no
/// control or invisible formatting character. Quotes are read as the
/// shell reads them (single quotes literal, double quotes without `$`,
/// backquotes or backslashes). `None` whenever in doubt.
pub(crate) fn simple_command(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if is_invisible_or_control(c) && c != '\t' {
            return None;
        }
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c if is_invisible_or_control(c) && c != '\t' => return None,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' | '\\' => return None,
                        c if is_invisible_or_control(c) && c != '\t' => return None,
                        c => word.push(c),
                    }
                }
            }
            // A `#` starting a word starts a comment.
            '#' if !in_word => return None,
            c if is_shell_special(c) => return None,
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    // `NAME=value cmd` runs `cmd` with a changed environment (`PATH=.`,
    // `LD_PRELOAD=…`); a lone first word with `=` is such an assignment too.
    if words.first()?.contains('=') {
        return None;
    }
    Some(words)
}

/// Characters that, unquoted, make a line more than one plain simple
/// command (or change its words): operators, redirections, substitutions,
/// expansions, escapes, history and negation, groups and braces, tilde.
fn is_shell_special(c: char) -> bool {
    matches!(
        c,
        ';' | '&' | '|' | '<' | '>' | '(' | ')' | '$' | '`' | '\\' | '!' | '{' | '}' | '~'
    )
}

/// Control characters (line breaks included) and the invisible formatting
/// ones (bidi overrides, zero-width, line separators): a person cannot
/// see what they do in a preview.
fn is_invisible_or_control(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{ad}'
                | '\u{61c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        )
}

/// True when the command `words` begins with `prefix`, word for word.
pub(crate) fn starts_with(words: &[String], prefix: &[String]) -> bool {
    !prefix.is_empty() && words.len() >= prefix.len() && words[..prefix.len()] == *prefix
}

/// The prefix an `a` answer offers for a command of these words, or `None`
/// when no prefix would be safe to remember:
/// - a tool with subcommands (`cargo`, `git`, `npm`, …): the program and its
///   subcommand (`cargo test`); for a subcommand that runs a program or
///   script it names (`npm run`, `uv run`, `go run`, `docker run`), that
///   name too (`npm run build`); none when the second word is an option;
/// - `python -m MODULE`: those three words;
/// - a shell, an interpreter, a program that runs its arguments as a
///   command or code (`env`, `sudo`, `xargs`, `find`, `sed`, `awk`, …), one
///   that removes or overwrites (`rm`, `dd`, …), or a shell builtin other
///   than `echo`, `pwd`, `true`, `false`: none;
/// - any other program: the program alone (`pytest`, `ls`, `./gradlew`).
///
/// Every word offered is plain ASCII (letters, digits, `_ . + / : @ , -`),
/// so what the person reads is what is compared.
pub(crate) fn prefix_for(words: &[String]) -> Option<Vec<String>> {
    let program = words.first()?;
    if !is_plain_program(program) {
        return None;
    }
    let name = program.rsplit('/').next().filter(|name| !name.is_empty())?;
    if runs_its_arguments(name) {
        let module = words.get(2).filter(|word| is_plain_subcommand(word));
        let is_python = names_of(name).any(|name| name == "python" || name == "python3");
        return (is_python && words.get(1).is_some_and(|word| word == "-m") && module.is_some())
            .then(|| words[..3].to_vec());
    }
    let Some((_, runners, never)) = names_of(name).find_map(|name| {
        SUBCOMMANDS
            .iter()
            .find(|(tool, _, _)| *tool == name)
            .copied()
    }) else {
        return Some(vec![program.clone()]);
    };
    let subcommand = words.get(1).filter(|word| is_plain_subcommand(word))?;
    if never.contains(&subcommand.as_str()) {
        return None;
    }
    if !runners.contains(&subcommand.as_str()) {
        return Some(words[..2].to_vec());
    }
    let target = words.get(2).filter(|word| is_plain_subcommand(word))?;
    let target_name = target.rsplit('/').next().unwrap_or(target);
    (!runs_its_arguments(target_name)).then(|| words[..3].to_vec())
}

/// A program word a prefix may hold: plain ASCII, not an option, not an
/// assignment, naming something (`cargo`, `./gradlew`, `/usr/bin/make`).
fn is_plain_program(word: &str) -> bool {
    is_plain(word, b"_.+/-")
}

/// A subcommand, script or module word a prefix may hold (`test`,
/// `test:unit`, `http.server`, `@scope/pkg`, `./cmd/server`); never an
/// option or a toolchain switch (`+nightly`).
fn is_plain_subcommand(word: &str) -> bool {
    is_plain(word, b"_.+/:@,-")
}

/// Letters, digits and `also`; starting with a letter, a digit or one of
/// `_ . / @`; holding a letter or a digit.
fn is_plain(word: &str, also: &[u8]) -> bool {
    let first_ok = word
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'@'));
    first_ok
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || also.contains(&b))
        && word.bytes().any(|b| b.is_ascii_alphanumeric())
}

/// `name` and the names it is a version or variant of: `python3.12` is
/// also `python3` and `python`, `mkfs.ext4` also `mkfs`, `pip3` also `pip`.
fn names_of(name: &str) -> impl Iterator<Item = &str> {
    let unversioned = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let before_dot = name.split('.').next().unwrap_or(name);
    [name, unversioned, before_dot].into_iter()
}

fn runs_its_arguments(name: &str) -> bool {
    // The dynamic loader runs whatever program it is given.
    name.starts_with("ld-linux")
        || name.starts_with("ld.so")
        || names_of(name).any(|name| NO_PREFIX.split_whitespace().any(|listed| listed == name))
}

/// Programs for which no prefix is offered, whitespace-separated, a
/// group a line: shells; interpreters (`python -m MODULE` is handled
/// above); programs that run the command or code their arguments name;
/// programs that remove, overwrite or signal; programs that copy, move or
/// link over files; programs that run a command an option or their input
/// names (`tar --to-command`, `zip -TT`, `rsync -e`, an editor's `-c`, a
/// pager's `!`, `cmake -P`, a compiler's `-wrapper`, a client's shell
/// escape, `rg --pre`, `sort --compress-program`), wrappers that run a
/// program (`fakeroot`, `ccache`, `eatmydata`, `sg`), and container
/// runners; shell builtins and reserved
/// words other than `echo`, `pwd`, `true`, `false` (several evaluate their
/// arguments: `let`, `test -v`, `printf -v`, `trap`, `enable -f`).
const NO_PREFIX: &str = "
    sh bash rbash dash zsh ksh mksh fish csh tcsh busybox pwsh powershell
    python python3 pypy pypy3 node nodejs ruby irb perl php lua luajit tclsh wish Rscript R
    julia osascript ghci runghc runhaskell elixir iex erl escript groovy scala java jshell
    env sudo doas su pkexec runuser nohup timeout gtimeout nice ionice chrt taskset stdbuf
    setsid setpriv chroot unshare nsenter flock script strace ltrace gdb lldb valgrind
    xargs parallel watch entr find gfind fd fdfind sed gsed awk gawk mawk nawk npx pnpx
    bunx pipx uvx ssh expect firejail bwrap systemd-run xvfb-run direnv nix-shell
    rm rmdir unlink shred dd truncate mkfs chmod chown chgrp kill pkill killall
    mv cp ln install tee rsync patch touch split csplit mkfifo mknod scp sftp
    tar gtar bsdtar zip unzip cpio less more most man info vi vim nvim view vimdiff ex ed
    emacs emacsclient nano cmake gcc g++ cc c++ clang clang++ ld socat nc ncat netcat telnet
    ftp openssl sqlite3 mysql psql tmux screen m4 docker podman kubectl
    rg sort bat batcat delta fakeroot ccache eatmydata sg
    setarch linux32 linux64 prlimit dbus-run-session run-parts
    . : [ [[ alias bg bind break builtin caller cd command compgen complete compopt
    continue coproc declare dirs disown enable eval exec exit export fc fg function getopts
    hash help history jobs let local logout mapfile popd printf pushd read readarray
    readonly return select set shift shopt source suspend test time times trap type typeset
    ulimit umask unalias unset wait if then else elif fi case esac for while until do done in
";

/// Tools with subcommands: (program, subcommands that run a program or
/// script they name next, subcommands that get no prefix at all).
type Subcommands = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);

const SUBCOMMANDS: &[Subcommands] = &[
    ("cargo", &[], &[]),
    (
        "git",
        &[],
        &[
            "grep",
            "fetch",
            "pull",
            "clone",
            "ls-remote",
            "push",
            "archive",
            "submodule",
            "bisect",
            "rebase",
            "filter-branch",
            "config",
            "difftool",
            "mergetool",
            "daemon",
            "shell",
        ],
    ),
    ("npm", &["run", "run-script", "exec", "x"], &[]),
    ("pnpm", &["run", "exec", "dlx"], &[]),
    ("yarn", &["run", "exec", "dlx"], &[]),
    ("bun", &["run", "x"], &[]),
    ("deno", &["run", "task"], &["eval", "repl"]),
    ("go", &["run"], &[]),
    ("make", &[], &[]),
    ("gmake", &[], &[]),
    ("just", &[], &[]),
    ("rustup", &[], &["run"]),
    ("pip", &[], &[]),
    ("uv", &["run"], &["tool"]),
    ("poetry", &["run"], &["shell"]),
    ("pipenv", &["run"], &["shell"]),
    ("pdm", &["run"], &[]),
    ("hatch", &["run"], &["shell"]),
    ("bundle", &["exec"], &[]),
    ("mix", &["run"], &[]),
    ("dotnet", &["exec"], &[]),
    ("swift", &[], &["repl"]),
    ("zig", &["run"], &[]),
    ("gradle", &[], &[]),
    ("mvn", &[], &[]),
    ("docker", &["run", "exec"], &[]),
    ("podman", &["run", "exec"], &[]),
    ("kubectl", &["exec", "run"], &[]),
];
