//! The generated repository `cargo xtask bench audit` measures: a
//! deterministic monorepo of six languages under the temp dir, made once
//! and reused (a marker written last says it is complete).
#![expect(
    clippy::disallowed_methods,
    reason = "xtask builds its own scratch tree in the temp dir, not a workspace of oy's"
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Bump when the generator changes, so a stale tree is not reused.
const TREE_VERSION: u32 = 1;
/// Written last, holding `FILES BYTES`: present once the tree is complete.
const MARKER: &str = ".oy-bench-complete";
/// Packages × directories per package × files per directory = source files.
const PACKAGES: usize = 40;
const DIRS: usize = 25;
const FILES: usize = 24;

/// The tree's root and its file and byte counts, generating it first when
/// it is missing or incomplete.
pub(super) fn ensure_tree() -> Result<(PathBuf, u64, u64)> {
    let name = format!("oy-bench-audit-tree-v{TREE_VERSION}");
    cached_tree(&name, "the audit benchmark tree", |root| {
        let mut tree = Tree {
            root: root.to_path_buf(),
            rng: Rng(0x6f79_2d61_7564_6974),
            files: 0,
            bytes: 0,
        };
        tree.generate()?;
        Ok((tree.files, tree.bytes))
    })
}

/// The tree `name` under the temp dir and its file and byte counts: reused
/// when its marker (written last) says it is complete, else made afresh by
/// `generate`, which returns the counts.
pub(super) fn cached_tree(
    name: &str,
    what: &str,
    generate: impl FnOnce(&Path) -> Result<(u64, u64)>,
) -> Result<(PathBuf, u64, u64)> {
    let root = std::env::temp_dir().join(name);
    let marker = root.join(MARKER);
    if let Ok(text) = std::fs::read_to_string(&marker)
        && let [files, bytes] = text.split_whitespace().collect::<Vec<_>>()[..]
        && let (Ok(files), Ok(bytes)) = (files.parse(), bytes.parse())
    {
        return Ok((root, files, bytes));
    }
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("removing {}", root.display()))?;
    }
    eprintln!("xtask: generating {what} in {}", root.display());
    let started = std::time::Instant::now();
    let (files, bytes) = generate(&root)?;
    eprintln!(
        "xtask: generated {files} files ({:.1} MB) in {:.1} s",
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    std::fs::write(&marker, format!("{files} {bytes}\n"))
        .with_context(|| format!("writing {}", marker.display()))?;
    Ok((root, files, bytes))
}

/// A tiny deterministic PRNG (splitmix64): same seed, same tree.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub(super) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `n` characters from `alphabet`, for token-shaped strings.
    pub(super) fn chars(&mut self, n: usize, alphabet: &str) -> String {
        let alphabet = alphabet.as_bytes();
        (0..n)
            .map(|_| char::from(alphabet[self.below(alphabet.len())]))
            .collect()
    }
}

const WORDS: &[&str] = &[
    "account", "buffer", "cache", "client", "config", "cursor", "event", "handler", "index",
    "invoice", "ledger", "order", "parser", "payload", "queue", "record", "request", "response",
    "session", "state", "token", "user", "value", "worker",
];

/// How one language's files look. In the templates each `@` is replaced
/// by a word: cheap to fill, and varied enough for the index and the
/// redaction prefilter to do real work.
struct Language {
    dir: &'static str,
    extensions: &'static [&'static str],
    open: &'static str,
    lines: &'static [&'static str],
    close: &'static str,
    /// Lines the security index reports (process, shell, SQL, network…).
    risky: &'static [&'static str],
}

const LANGUAGES: &[Language] = &[
    Language {
        dir: "src",
        extensions: &["rs"],
        open: "pub fn @_@(@: &str) -> Result<(), Error> {",
        lines: &[
            "    let @_@ = @.@(&@)?;",
            "    // the @ is checked before the @",
        ],
        close: "}",
        risky: &[
            "    let out = Command::new(\"sh\").arg(\"-c\").arg(&@).output()?;",
            "    let rows = conn.query(&format!(\"SELECT * FROM @ WHERE id = {}\", @))?;",
            "    let body = reqwest::get(&@).await?.text().await?;",
        ],
    },
    Language {
        dir: "app",
        extensions: &["py"],
        open: "def @_@(@, @):",
        lines: &["    @_@ = @.@(@)", "    # the @ is checked before the @"],
        close: "    return @",
        risky: &[
            "    subprocess.run(@, shell=True)",
            "    cursor.execute(\"SELECT * FROM @ WHERE name = '%s'\" % @)",
            "    requests.get(@, verify=False)",
        ],
    },
    Language {
        dir: "internal",
        extensions: &["go"],
        open: "func @@(@ string) error {",
        lines: &["\t@@ := @.@(@)", "\t// the @ is checked before the @"],
        close: "}",
        risky: &[
            "\tcmd := exec.Command(\"sh\", \"-c\", @)",
            "\trows, err := db.Query(\"SELECT * FROM @ WHERE id = \" + @)",
            "\tresp, err := http.Get(@)",
        ],
    },
    Language {
        dir: "web/src",
        extensions: &["ts", "tsx", "js"],
        open: "export async function @@(@: string): Promise<void> {",
        lines: &[
            "  const @@ = await @.@(@);",
            "  // the @ is checked before the @",
        ],
        close: "}",
        risky: &[
            "  child_process.exec(`git ${@}`);",
            "  const res = await fetch(@);",
            "  el.innerHTML = @;",
        ],
    },
    Language {
        dir: "src/main/java",
        extensions: &["java"],
        open: "    public void @@(String @) {",
        lines: &[
            "        var @@ = @.@(@);",
            "        // the @ is checked before the @",
        ],
        close: "    }",
        risky: &[
            "        Runtime.getRuntime().exec(@);",
            "        stmt.executeQuery(\"SELECT * FROM @ WHERE id = \" + @);",
        ],
    },
    Language {
        dir: "lib",
        extensions: &["c", "h"],
        open: "static int @_@(const char *@) {",
        lines: &[
            "    int @_@ = @_@(@);",
            "    /* the @ is checked before the @ */",
        ],
        close: "}",
        risky: &[
            "    system(@);",
            "    strcpy(@, @);",
            "    popen(@, \"r\");",
        ],
    },
];

/// The generator's state: where it writes, and what it wrote.
struct Tree {
    root: PathBuf,
    rng: Rng,
    files: u64,
    bytes: u64,
}

impl Tree {
    fn write(&mut self, path: &str, body: &[u8]) -> Result<()> {
        let path = self.root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, body).with_context(|| format!("writing {}", path.display()))?;
        self.files += 1;
        self.bytes += body.len() as u64;
        Ok(())
    }

    fn generate(&mut self) -> Result<()> {
        // `.git/` makes the root a repository for the tools that ask.
        self.write(".git/HEAD", b"ref: refs/heads/main\n")?;
        self.write(".gitignore", b"target/\nnode_modules/\ndist/\n*.log\n")?;
        self.write(".github/workflows/ci.yml", b"on: [push]\njobs: {}\n")?;
        self.write(".editorconfig", b"root = true\n")?;
        self.write("README.md", b"# monorepo\n\nA generated benchmark tree.\n")?;
        // Lockfiles: skipped by name, and big, as real ones are.
        let lock = self.text(&LANGUAGES[0], 60_000);
        self.write("Cargo.lock", lock.as_bytes())?;
        let lock = self.text(&LANGUAGES[3], 200_000);
        self.write("package-lock.json", lock.as_bytes())?;
        // Planted secrets by name: never opened by oy.
        let env = self.secret_lines();
        for path in [".env", "web/.env.local", "pkg07/.env.production"] {
            self.write(path, env.as_bytes())?;
        }
        self.write("deploy/.env.staging", env.as_bytes())?;
        self.write("deploy/tls/server.key", env.as_bytes())?;
        for serial in 0..PACKAGES * DIRS * FILES {
            let package = serial / (DIRS * FILES);
            let dir = serial / FILES % DIRS;
            let language = &LANGUAGES[package % LANGUAGES.len()];
            if serial % (DIRS * FILES) == 0 {
                let readme = self.text(language, 3000);
                self.write(&format!("pkg{package:02}/README.md"), readme.as_bytes())?;
            }
            let extension = self.rng.pick(language.extensions);
            let size = self.file_size(serial);
            let body = self.text(language, size);
            let path = format!(
                "pkg{package:02}/{}/mod{dir:02}/file{:02}.{extension}",
                language.dir,
                serial % FILES
            );
            self.write(&path, body.as_bytes())?;
        }
        // Images: binary, skipped after the first read.
        for index in 0..200 {
            let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
            png.extend((0..4000).map(|_| (self.rng.next() & 0xff) as u8));
            self.write(&format!("web/assets/img{index:03}.png"), &png)?;
        }
        // Over the 256 KiB cap: skipped by size, never read.
        for index in 0..6 {
            let body = self.text(&LANGUAGES[3], 300_000 + index * 150_000);
            self.write(&format!("data/fixtures/big{index}.json"), body.as_bytes())?;
        }
        // Vendored code: walked, skipped by place.
        for index in 0..300 {
            let body = self.text(&LANGUAGES[2], 2000);
            self.write(
                &format!("vendor/mod{:02}/f{index:03}.go", index / 30),
                body.as_bytes(),
            )?;
        }
        // Ignored trees: never entered by the walker, but they must be cheap.
        for (top, count) in [
            ("node_modules", 3000),
            ("target/debug", 1000),
            ("dist", 200),
        ] {
            for index in 0..count {
                let body = self.text(&LANGUAGES[3], 1500);
                let path = format!("{top}/pkg{:02}/f{index:04}.js", index / 50);
                self.write(&path, body.as_bytes())?;
            }
        }
        for package in 0..PACKAGES {
            let log = self.text(&LANGUAGES[1], 4000);
            self.write(&format!("pkg{package:02}/debug.log"), log.as_bytes())?;
        }
        Ok(())
    }

    /// Mostly small files, some medium, a few large; every 1,500th file is
    /// generated code of ~200 KiB (under the cap, so it is collected).
    fn file_size(&mut self, serial: usize) -> usize {
        if serial % 1500 == 700 {
            return 180_000 + self.rng.below(60_000);
        }
        match self.rng.below(100) {
            0..75 => 300 + self.rng.below(2700),
            75..97 => 3000 + self.rng.below(9000),
            _ => 12_000 + self.rng.below(40_000),
        }
    }

    /// About `size` bytes of code in `language`; one file in 300 carries
    /// secret-shaped lines for the redactor.
    fn text(&mut self, language: &Language, size: usize) -> String {
        let mut text = String::with_capacity(size + 256);
        if self.rng.below(300) == 0 {
            text.push_str(&self.secret_lines());
        }
        while text.len() < size {
            self.fill(&mut text, language.open);
            for _ in 0..2 + self.rng.below(10) {
                let line = if self.rng.below(60) == 0 {
                    self.rng.pick(language.risky)
                } else {
                    self.rng.pick(language.lines)
                };
                self.fill(&mut text, line);
            }
            text.push_str(language.close);
            text.push_str("\n\n");
        }
        text
    }

    /// Appends `template` with each `@` replaced by a word, and a newline.
    fn fill(&mut self, text: &mut String, template: &str) {
        for (index, part) in template.split('@').enumerate() {
            if index > 0 {
                text.push_str(self.rng.pick(WORDS));
            }
            text.push_str(part);
        }
        text.push('\n');
    }

    /// Fake credentials in the shapes the redactor knows. The prefixes are
    /// assembled at run time so that this source file holds no
    /// secret-shaped string for scanners (oy's own audit included) to flag.
    fn secret_lines(&mut self) -> String {
        const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let mut text = String::new();
        let _ = writeln!(
            text,
            "AWS_ACCESS_KEY_ID={}{}",
            ["AK", "IA"].concat(),
            self.rng.chars(16, UPPER)
        );
        let _ = writeln!(
            text,
            "GITHUB_TOKEN={}_{}",
            ["gh", "p"].concat(),
            self.rng.chars(36, ALNUM)
        );
        let _ = writeln!(
            text,
            "STRIPE_KEY={}_{}",
            ["sk", "live"].join("_"),
            self.rng.chars(24, ALNUM)
        );
        text
    }
}
