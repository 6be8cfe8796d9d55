//! The manifest (files, sizes, languages, lines) and the security index:
//! places where sinks live (process spawning, shell, network, filesystem
//! writes, deserialisation, crypto, auth, SQL, templating), found by cheap
//! pattern scans so every chunk's review knows where to look.
//!
//! The index is a hint list for the reviewer, not a list of findings: the
//! patterns lean towards recall, and a false positive only costs the model
//! a glance.

use std::collections::BTreeMap;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use regex::{Regex, RegexSet};
use serde::Serialize;

use crate::collect::CollectedFile;

/// A kind of security-relevant place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Category {
    /// Spawning processes.
    Process,
    /// Shell command strings.
    Shell,
    /// Network clients and servers.
    Network,
    /// Filesystem writes, deletes, permissions.
    FilesystemWrite,
    /// Deserialisation of untrusted data.
    Deserialization,
    /// Cryptography and randomness.
    Crypto,
    /// Authentication, sessions, tokens.
    Auth,
    /// SQL built from strings.
    Sql,
    /// Templating and HTML output.
    Templating,
}

/// One hit of the security index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecurityHit {
    /// Root-relative path.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// What kind of place.
    pub category: Category,
}

/// One file in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ManifestEntry {
    /// Root-relative path.
    pub path: String,
    /// Bytes.
    pub bytes: u64,
    /// Lines.
    pub lines: usize,
    /// Language, if known.
    pub language: Option<String>,
}

/// Every collected file, and totals per language.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Manifest {
    /// Files, sorted by path.
    pub entries: Vec<ManifestEntry>,
    /// (language, files, lines), most lines first.
    pub languages: Vec<(String, usize, usize)>,
}

/// The language name for files tokei does not recognise.
const OTHER_LANGUAGE: &str = "other";

/// Builds the manifest of `files`.
pub fn manifest(files: &[CollectedFile]) -> Manifest {
    let mut entries: Vec<ManifestEntry> = files
        .iter()
        .map(|f| ManifestEntry {
            path: f.path.clone(),
            bytes: f.bytes,
            lines: f.lines,
            language: f.language.clone(),
        })
        .collect();
    // The collector sorts already; sorting again keeps the manifest's
    // contract independent of how it was called.
    entries.sort_by(|a, b| a.path.cmp(&b.path));

    let mut totals: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for f in files {
        let language = f.language.as_deref().unwrap_or(OTHER_LANGUAGE);
        let total = totals.entry(language).or_default();
        total.0 += 1;
        total.1 += f.lines;
    }
    let mut languages: Vec<(String, usize, usize)> = totals
        .into_iter()
        .map(|(name, (files, lines))| (name.to_owned(), files, lines))
        .collect();
    // Most lines first; ties by name so the order never depends on input
    // order.
    languages.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));

    Manifest { entries, languages }
}

/// One pattern of the index.
#[derive(Clone, Copy)]
struct Rule {
    category: Category,
    /// Must match the line.
    pattern: &'static str,
    /// Must also match the line, when set: lets one rule require two
    /// things in any order (an SQL keyword *and* string interpolation),
    /// which a single regex cannot say without listing both orders.
    also: Option<&'static str>,
}

/// Every rule: the one-pattern ones of [`PATTERNS`], then [`PAIRED`].
fn rules() -> impl Iterator<Item = Rule> {
    let single = PATTERNS.iter().flat_map(|&(category, patterns)| {
        patterns.iter().map(move |&pattern| Rule {
            category,
            pattern,
            also: None,
        })
    });
    single.chain(PAIRED.iter().copied())
}

/// SQL statement shapes. `select` alone and `update` alone are ordinary
/// English, so they need the rest of a statement around them.
const SQL_STATEMENT: &str = r"(?i)\bselect\b.+\bfrom\b|\binsert\s+into\b|\bupdate\s+[\w.`\x22\[\]]+\s+set\b|\bdelete\s+from\b|\b(?:drop|create|alter|truncate)\s+table\b|\bwhere\s+[\w.]+\s*(?:=|<|>|\blike\b|\bin\b)";

/// String building that can splice data into a statement: `format!`,
/// `+` or PHP `.` concatenation, f-strings, `%` formatting, `${}`/`#{}`
/// interpolation, `.format(`, `sprintf`-alikes, PHP `$var` in strings.
/// Placeholders (`?`, `$1`, `%s` passed separately) do not count: that is
/// the safe form.
const SQL_INTERPOLATION: &str = r#"format!\s*\(|["'`]\s*(?:\+|\.\s*\$|\.\s+\w|%\s*[(\w])|(?:\+|\w\s+\.)\s*["'`]|\b[fF][rR]?["'][^"']*\{|\$"[^"]*\{|\$\{|#\{|\.format\s*\(|\b(?:s|f|v)?n?printf\b|\bSprintf\b|\bString\.format\b|"[^"]*\$[a-zA-Z_]"#;

/// The one-pattern rules, by category. Patterns are per line: none may
/// rely on `^`/`$` or match across a newline, so a whole-file match is a
/// sound prefilter.
static PATTERNS: &[(Category, &[&str])] = &[
    // Process spawning.
    (
        Category::Process,
        &[
            r"\bCommand::new\b",
            r"\bsubprocess\.",
            r"\bPopen\s*\(",
            r"\bos\.(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?|fork|StartProcess)\b",
            r"\bchild_process\b",
            r"\bexec\.Command(?:Context)?\b",
            r"\bsyscall\.(?:Exec|ForkExec)\b",
            r"\bRuntime\.getRuntime\(\)\.exec\b",
            r"\bProcessBuilder\b",
            r"\bpopen\s*\(",
            // `spawn(` but not `thread::spawn(`/`tokio::spawn(`, which start
            // threads and tasks, not processes.
            r"(?:^|[^:\w])spawn(?:Sync)?\s*\(",
            r"\bexecFile(?:Sync)?\s*\(",
            r"\b(?:execl|execlp|execle|execv|execvp|execvpe|execve|posix_spawnp?|CreateProcess\w*)\s*\(",
            r"\bproc_open\s*\(",
            r"\bOpen3\.|\bIO\.popen\b|\bKernel\.spawn\b",
        ],
    ),
    // Shell command strings.
    (
        Category::Shell,
        &[
            r"\b(?:ba|z|da|k)?sh\s+-c\b",
            // argv lists: `Command::new("sh").arg("-c")`, `["bash", "-c", cmd]`.
            r#"["'](?:/usr)?(?:/bin/)?(?:ba|z|da|k)?sh["']\s*[,)]\s*(?:\.args?\(\s*(?:&?\[)?\s*)?["']-c["']"#,
            r#"\bcmd(?:\.exe)?["']?\s*,?\s*["']?/[cC]\b"#,
            r"\bshell\s*=\s*True\b",
            r"\bshell:\s*true\b",
            // No space before the paren: "a system (or …)" is prose.
            r"\bsystem\(",
            r"\b(?:shell_exec|passthru)\s*\(",
            // `exec(`/`execSync(` as free functions (Node's child_process, PHP):
            // both go through a shell. `.exec(` is left out: in JS it is mostly
            // `RegExp.prototype.exec`.
            r"(?:^|[^.\w])exec(?:Sync)?\s*\(",
            r"%x[({\[]",
        ],
    ),
    // Network.
    (
        Category::Network,
        &[
            r"\breqwest\b",
            r"(?:^|[^.\w])requests\.\w+",
            r"(?:^|[^.\w:])fetch\s*\(",
            r"\bhttps?\.(?:Get|Post|Head|PostForm|NewRequest(?:WithContext)?|ListenAndServe(?:TLS)?|Serve|request|get|createServer)\b",
            r"\b(?:urllib3?|httpx|aiohttp|http\.client|httplib|HttpClient|HttpURLConnection|XMLHttpRequest|WebSocket|axios|Net::HTTP|HTTParty|Faraday|open-uri)\b",
            r"\b(?:hyper|ureq|surf|isahc|curl|tungstenite|tokio_tungstenite)::",
            r"\b(?:TcpListener|TcpStream|UdpSocket|ServerSocket)\b",
            r"\bsocket\s*\(",
            r"\bsocket\.(?:socket|create_connection)\b",
            r"\bnet\.(?:Dial|Listen)\w*\s*\(",
            r"\bnet\.(?:createServer|createConnection|connect)\b",
            r"\bopenConnection\s*\(",
            r"\bcurl_(?:init|exec)\b",
            r"\b(?:curl|wget)\s+-*[\w$'\x22]",
        ],
    ),
    // Filesystem writes, deletes, permissions.
    (
        Category::FilesystemWrite,
        &[
            r"\bfs::(?:write|remove_file|remove_dir(?:_all)?|rename|copy|create_dir(?:_all)?|set_permissions|hard_link)\b",
            r"\b(?:File::create|OpenOptions|remove_file|remove_dir_all|set_permissions)\b",
            // `open(path, 'w')`, `fopen(p, "ab")`, `open(p, mode="r+")`.
            r#"\bf?open\s*\(.*,\s*(?:mode\s*=\s*)?["'][rbt]*[wax+]"#,
            r"\b(?:writeFile|appendFile|createWriteStream)(?:Sync)?\b",
            r"\bfs\.(?:unlink|rm|rmdir|rename|chmod|chown|mkdir|copyFile|truncate)(?:Sync)?\b",
            r"\bos\.(?:remove|unlink|rmdir|removedirs|rename|replace|chmod|chown|makedirs|mkdir|truncate|WriteFile|Create|Remove|RemoveAll|Rename|Chmod|Chown|Mkdir|MkdirAll|OpenFile)\b",
            r"\bshutil\.(?:rmtree|move|copy\w*)\b|\bioutil\.WriteFile\b",
            r"\.write_(?:text|bytes)\s*\(",
            r"\b(?:FileOutputStream|FileWriter|RandomAccessFile)\b",
            r"\bFiles\.(?:write|writeString|delete|deleteIfExists|move|copy|createFile|newOutputStream|newBufferedWriter)\b",
            r"\bFile\.(?:write|delete|unlink|chmod)\b|\bFileUtils\.\w+",
            r"\b(?:file_put_contents|fwrite|fputs)\s*\(",
            r"\b(?:chmod|chown|unlink)\b",
            r"\brm\s+-[a-zA-Z]*[rRf]",
        ],
    ),
    // Deserialisation.
    (
        Category::Deserialization,
        &[
            r"\b(?:c?[pP]ickle|dill|marshal)\.loads?\b|\bjoblib\.load\b|\bshelve\.open\b|\bjsonpickle\.decode\b",
            r"\byaml\.(?:load|load_all|unsafe_load|full_load)\s*\(",
            r"\b(?:serde_json|serde_yaml|serde_yml|serde_cbor|toml|bincode|rmp_serde|ciborium|postcard|ron)::(?:from_\w+|de::|deserialize\w*|decode\w*)",
            r"\bJSON\.parse\s*\(",
            r"\bjson\.loads?\s*\(",
            r"\b(?:json|xml|yaml)\.Unmarshal\b|\b(?:json|gob|xml)\.NewDecoder\b",
            r"\b(?:unserialize|readObject|readUnshared)\s*\(",
            r"\b(?:ObjectInputStream|XMLDecoder|BinaryFormatter|XStream)\b",
            r"\bMarshal\.load\b|\bYAML\.(?:load|unsafe_load)\b",
        ],
    ),
    // Crypto, randomness, and TLS verification switched off.
    (
        Category::Crypto,
        &[
            r"(?i)\b(?:md4|md5|sha-?1|rc4|ecb)\b",
            r"\brand::|\bthread_rng\b|\bMath\.random\b",
            r"\brandom\.(?:random|randint|choice|choices|randrange|seed|shuffle|uniform|getrandbits)\b",
            r"\bmath/rand\b|\brand\.(?:Intn|Int31n|Int63|Float64|Seed)\b",
            r"\b(?:s?rand|mt_rand|lcg_value)\s*\(|\bnew\s+Random\s*\(",
            r"\b(?:Cipher|MessageDigest|SecureRandom|KeyGenerator|hashlib|hmac)\b",
            r"\bcrypto\.(?:createCipher\w*|createDecipher\w*|createHash|createHmac|randomBytes|subtle)\b",
            r"\b(?:aes|aes_gcm|chacha20poly1305|ed25519_dalek|rsa|sha1|sha2|hmac|ring|openssl|rustls)::",
            r"\bverify\s*=\s*False\b|\bInsecureSkipVerify\b|\bdanger_accept_invalid_(?:certs|hostnames)\b|\brejectUnauthorized\s*:\s*false\b|\bNODE_TLS_REJECT_UNAUTHORIZED\b|\bCURLOPT_SSL_VERIFY(?:PEER|HOST)\b",
        ],
    ),
    // Authentication, sessions, tokens.
    (
        Category::Auth,
        &[
            r"(?i)passw(?:or)?d|passphrase",
            r"(?i)jwt|jsonwebtoken|oauth|\bcsrf\b|\bxsrf\b",
            r"(?i)session",
            // `access_token`, `authToken`, a bare `token` — not `tokens`,
            // `tokenizer`, `max_tokens`, `syn::token::Brace` or `Token![;]`, which
            // are parsers and model budgets (and dominated the hits on a crates.io
            // sample before they were left out).
            r"(?i)\b(?:bearer|access|auth|api|refresh|csrf|session|id|reset)[_-]?token\b",
            r"\b[tT]oken\b(?:[^:!]|$)",
            r"(?i)bcrypt|scrypt|argon2|pbkdf2",
            r"(?i)authori[sz]|authenticat|\blog[_-]?in|\bsign[_-]?in\b|api[_-]?key|secret|credential",
        ],
    ),
    // The calls that run SQL (with an argument: `url.query()` is an
    // accessor).
    (
        Category::Sql,
        &[
            r"\b(?:execute|executemany|executescript|query|raw_query|exec_query|query_row|query_as)\s*\(\s*[^)\s]",
            r"\b(?:executeQuery|executeUpdate|createStatement|prepareStatement|mysqli_query|mysql_query|pg_query|sqlite3_exec)\b",
            r"\.(?:Exec|Query|QueryRow)(?:Context)?\s*\(|\bsqlx::query(?:_as|_scalar)?\b",
        ],
    ),
    // Templating, HTML output and code evaluation. `|safe` needs a
    // template tag on the line: bare, it is a Rust closure parameter.
    // `{{{` needs a name after it (C initialisers and `format!` escapes
    // have digits and braces), `eval(` must not be a method call.
    (
        Category::Templating,
        &[
            r"\b(?:innerHTML|outerHTML|insertAdjacentHTML|dangerouslySetInnerHTML|document\.write)\b",
            r"\{[{%].*\|\s*(?:safe|raw)\b|\bmark_safe\b|\.html_safe\b|\bMarkup\s*\(",
            r"\brender_template_string\b|\bhtml!|\bv-html\b|\bPreEscaped\b",
            r"\b(?:template\.HTML|template\.JS)\s*\(|\{\{\{\s*[A-Za-z_]|<%-|\{!!",
            r"(?i)\bautoescape\s*(?:=\s*False|\s+(?:off|false))\b",
            r"(?:^|[^.\w])eval\s*\(|\bnew\s+Function\s*\(",
        ],
    ),
];

/// The rules that need two patterns on one line.
static PAIRED: &[Rule] = &[
    // SQL built from strings.
    Rule {
        category: Category::Sql,
        pattern: SQL_STATEMENT,
        also: Some(SQL_INTERPOLATION),
    },
];

/// The compiled rules: one set for the scan, and per rule its category
/// and `also` condition.
struct Scanner {
    set: RegexSet,
    categories: Vec<Category>,
    also: Vec<Option<Regex>>,
}

/// ASCII word boundaries: Unicode `\b` makes the lazy DFA give up on any
/// non-ASCII line and fall back to a much slower engine, and every
/// identifier the rules look for is ASCII anyway.
fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

/// Compiles the rules once. `None` only if a pattern is malformed, which
/// the tests rule out: the index then stays empty rather than panicking.
static SCANNER: LazyLock<Option<Scanner>> = LazyLock::new(|| {
    let rules: Vec<Rule> = rules().collect();
    let set = RegexSet::new(rules.iter().map(|r| ascii_boundaries(r.pattern))).ok()?;
    let categories = rules.iter().map(|r| r.category).collect();
    let also = rules
        .iter()
        .map(|r| match r.also {
            Some(p) => Regex::new(&ascii_boundaries(p)).ok().map(Some),
            None => Some(None),
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Scanner {
        set,
        categories,
        also,
    })
});

/// Files per unit of work the scanning threads take from a shared counter:
/// large enough that taking one is rare, small enough that one thread
/// handed the few huge files of a tree does not finish alone.
const SCAN_BATCH: usize = 64;

/// Scans `files` for security-relevant places, in path then line order.
///
/// The files are scanned on as many threads as the machine has cores
/// (each taking the next batch of files as it finishes one), and the hits
/// sorted after, so the result does not depend on the threads: on a
/// 100 MB tree this scan was the longest single-threaded step of an
/// audit's collection.
pub fn security_index(files: &[CollectedFile]) -> Vec<SecurityHit> {
    let Some(scanner) = SCANNER.as_ref() else {
        return Vec::new();
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(files.len().div_ceil(SCAN_BATCH))
        .max(1);
    let next = AtomicUsize::new(0);
    let scan = || {
        let mut hits = Vec::new();
        loop {
            let start = next.fetch_add(SCAN_BATCH, Ordering::Relaxed);
            let Some(batch) = files.get(start..files.len().min(start + SCAN_BATCH)) else {
                break;
            };
            if batch.is_empty() {
                break;
            }
            for file in batch {
                scan_file(scanner, file, &mut hits);
            }
        }
        hits
    };
    let mut hits = std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, scan).ok())
            .collect();
        // This thread scans too, so a worker that could not start leaves
        // its batches to the others; a worker's panic reaches the caller
        // as it would have without threads.
        let mut hits = scan();
        for worker in workers {
            match worker.join() {
                Ok(more) => hits.extend(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        hits
    });
    hits.sort_by(|a, b| {
        a.path
            .cmp(&b.path)
            .then(a.line.cmp(&b.line))
            .then(a.category.cmp(&b.category))
    });
    hits
}

/// Adds the hits of one file to `hits`.
fn scan_file(scanner: &Scanner, file: &CollectedFile, hits: &mut Vec<SecurityHit>) {
    // One pass over the whole text first: most files in a large tree have
    // no hit at all, and no rule spans lines, so no match here means no
    // match on any line.
    if !scanner.set.is_match(&file.text) {
        return;
    }
    for (n, line) in file.text.lines().enumerate() {
        if !scanner.set.is_match(line) {
            continue;
        }
        let mut categories: Vec<Category> = scanner
            .set
            .matches(line)
            .into_iter()
            .filter(|&i| match scanner.also.get(i) {
                Some(Some(also)) => also.is_match(line),
                _ => true,
            })
            .filter_map(|i| scanner.categories.get(i).copied())
            .collect();
        categories.sort_unstable();
        categories.dedup();
        hits.extend(categories.into_iter().map(|category| SecurityHit {
            path: file.path.clone(),
            line: n + 1,
            category,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        for r in rules() {
            assert!(
                Regex::new(&ascii_boundaries(r.pattern)).is_ok(),
                "{}",
                r.pattern
            );
            if let Some(also) = r.also {
                assert!(Regex::new(&ascii_boundaries(also)).is_ok(), "{also}");
            }
        }
        assert!(SCANNER.is_some());
    }

    #[test]
    fn the_threaded_scan_finds_what_one_pass_finds_in_path_then_line_order() {
        // Enough files for every thread to take several batches, listed
        // out of order, with hits at different lines.
        let files: Vec<CollectedFile> = (0..SCAN_BATCH * 9 + 5)
            .rev()
            .map(|n| {
                let text = match n % 3 {
                    0 => format!("let x = {n};\nCommand::new(\"sh\").arg(user);\n"),
                    1 => format!("// {n}\nlet q = format!(\"SELECT * FROM t WHERE id = {{}}\", id);\nunsafe {{ run() }}\n"),
                    _ => "nothing to see\n".to_owned(),
                };
                CollectedFile {
                    path: format!("src/f{n:04}.rs"),
                    lines: text.lines().count(),
                    bytes: text.len() as u64,
                    text,
                    language: Some("Rust".to_owned()),
                    redactions: Vec::new(),
                }
            })
            .collect();
        let Some(scanner) = SCANNER.as_ref() else {
            panic!("the rules compile");
        };
        let mut expected = Vec::new();
        for file in &files {
            scan_file(scanner, file, &mut expected);
        }
        expected.sort_by(|a, b| (&a.path, a.line, a.category).cmp(&(&b.path, b.line, b.category)));
        assert!(expected.len() > SCAN_BATCH * 4, "{}", expected.len());
        for _ in 0..3 {
            assert_eq!(security_index(&files), expected);
        }
    }
}
