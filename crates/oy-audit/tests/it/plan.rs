//! Tests of the manifest, the security index and `plan`: deterministic
//! chunk plans (snapshot), security-first order, fail-closed limits, and
//! the packing invariants under proptest.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use oy_audit::{
    Category, CollectedFile, Collection, OversizedFile, Plan, PlanOptions, SecurityHit, SkipReason,
    Stop, manifest, plan, security_index,
};
use proptest::prelude::*;

fn file(path: &str, text: &str, language: Option<&str>) -> CollectedFile {
    CollectedFile {
        path: path.to_owned(),
        text: text.to_owned(),
        bytes: text.len() as u64,
        lines: text.lines().count(),
        language: language.map(str::to_owned),
        redactions: Vec::new(),
    }
}

fn collection(mut files: Vec<CollectedFile>) -> Collection {
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Collection {
        files,
        ..Collection::default()
    }
}

/// Plain text of about `bytes` bytes, in 40-byte lines, with no pattern
/// the security index knows.
fn filler(bytes: usize) -> String {
    let line = "let value = compute(input, offset) + 1;\n";
    line.repeat(bytes.div_ceil(line.len()))
}

fn options(context_window: u64, reserve_tokens: u64, max_chunks: usize) -> PlanOptions {
    let mut o = PlanOptions::default();
    o.context_window = context_window;
    o.reserve_tokens = reserve_tokens;
    o.max_chunks = max_chunks;
    o
}

/// A repository of 30 files of varied sizes; every fifth file spawns a
/// process (a security-index hit), and one has several kinds of hits.
fn fixture() -> Collection {
    let mut files = Vec::new();
    for i in 0..30usize {
        let dir = ["src", "src/net", "lib", "tests"][i % 4];
        let path = format!("{dir}/file_{i:02}.rs");
        // Sizes from 200 bytes to about 14 KB, deterministic but uneven.
        let size = 200 + (i * 7919) % 14_000;
        let mut text = filler(size);
        if i % 5 == 0 {
            text.push_str("let out = Command::new(\"git\").output()?;\n");
        }
        if i == 17 {
            text.push_str("let body = reqwest::get(url).await?;\n");
            text.push_str("std::fs::write(path, body)?;\n");
        }
        files.push(file(&path, &text, Some("Rust")));
    }
    files.push(file("README.md", &filler(900), Some("Markdown")));
    collection(files)
}

/// The plan as text, for the snapshot and for people reading a diff.
fn render(collection: &Collection, plan: &Plan) -> String {
    let mut out = format!(
        "budget {} tokens, {} chunks, {} model calls, ~{} tokens\n",
        plan.chunk_budget,
        plan.chunks.len(),
        plan.model_calls,
        plan.estimated_tokens
    );
    for chunk in &plan.chunks {
        let _ = writeln!(
            out,
            "chunk {}: {} files, {} bytes, {} tokens",
            chunk.index,
            chunk.files.len(),
            chunk.bytes,
            chunk.tokens
        );
        for &i in &chunk.files {
            let f = &collection.files[i];
            let _ = writeln!(out, "  {} ({} bytes)", f.path, f.text.len());
        }
    }
    out
}

fn planned_paths(collection: &Collection, plan: &Plan) -> Vec<String> {
    plan.chunks
        .iter()
        .flat_map(|c| c.files.iter().map(|&i| collection.files[i].path.clone()))
        .collect()
}

#[test]
fn plan_of_thirty_files_is_stable() {
    let c = fixture();
    let index = security_index(&c.files);
    let p = plan(&c, &index, &options(8192, 2048, 64)).ready().unwrap();
    assert!(p.chunks.len() > 1, "the fixture should need map/reduce");
    insta::assert_snapshot!(render(&c, &p));
}

#[test]
fn security_relevant_files_come_first_in_path_order() {
    let c = fixture();
    let index = security_index(&c.files);
    let p = plan(&c, &index, &options(8192, 2048, 64)).ready().unwrap();
    let paths = planned_paths(&c, &p);

    let mut flagged: Vec<String> = index.iter().map(|h| h.path.clone()).collect();
    flagged.dedup();
    let mut rest: Vec<String> = c
        .files
        .iter()
        .map(|f| f.path.clone())
        .filter(|p| !flagged.contains(p))
        .collect();
    rest.sort();
    assert_eq!(flagged.len(), 6 + 1, "every fifth file, and file 17");
    assert_eq!(paths[..flagged.len()], flagged[..]);
    assert_eq!(paths[flagged.len()..], rest[..]);
}

#[test]
fn plan_ignores_the_order_of_the_index() {
    let c = fixture();
    let mut index = security_index(&c.files);
    let a = plan(&c, &index, &options(8192, 2048, 64)).ready().unwrap();
    index.reverse();
    let b = plan(&c, &index, &options(8192, 2048, 64)).ready().unwrap();
    assert_eq!(a, b);
}

#[test]
fn small_repository_is_a_single_prompt() {
    let c = collection(vec![
        file("src/main.rs", "fn main() {}\n", Some("Rust")),
        file("src/lib.rs", &filler(2_000), Some("Rust")),
        file("README.md", "# demo\n", Some("Markdown")),
    ]);
    let opts = PlanOptions::default();
    let p = plan(&c, &security_index(&c.files), &opts).ready().unwrap();
    assert_eq!(p.chunks.len(), 1);
    assert!(p.is_single());
    assert_eq!(p.model_calls, 1);
    assert_eq!(p.chunks[0].files.len(), 3);
    assert_eq!(p.chunk_budget, opts.context_window - opts.reserve_tokens);
    // No reduce step: the chunk plus one prompt's overhead.
    assert_eq!(
        p.estimated_tokens,
        p.chunks[0].tokens + opts.reserve_tokens / 2
    );
}

#[test]
fn several_chunks_add_a_reduce_call() {
    let c = fixture();
    let p = plan(&c, &[], &options(8192, 2048, 64)).ready().unwrap();
    assert!(!p.is_single());
    assert_eq!(p.model_calls, p.chunks.len() + 1);
    let maps: u64 = p.chunks.iter().map(|c| c.tokens + 1024).sum();
    assert!(p.estimated_tokens > maps, "the reduce step is counted");
}

#[test]
fn oversized_file_fails_closed_with_advice() {
    let c = collection(vec![
        file("src/a.rs", &filler(1_000), Some("Rust")),
        file("src/huge.rs", &filler(200_000), Some("Rust")),
        file("src/z.rs", &filler(1_000), Some("Rust")),
    ]);
    let p = plan(&c, &[], &PlanOptions::default());
    let [Stop::FilesTooLarge { files, budget }] = &p.stops[..] else {
        panic!("expected FilesTooLarge, got {:?}", p.stops);
    };
    let [OversizedFile { path, tokens, .. }] = &files[..] else {
        panic!("{files:?}");
    };
    assert_eq!(path, "src/huge.rs");
    assert_eq!(*budget, 32_768 - 12_288);
    assert!(*tokens > *budget);
    // The rest is still planned, for a dry run to show, and never sent.
    let planned: Vec<&str> = p.chunks[0]
        .files
        .iter()
        .map(|&i| c.files[i].path.as_str())
        .collect();
    assert_eq!(planned, ["src/a.rs", "src/z.rs"]);
    let message = p.check().unwrap_err().to_string();
    assert!(message.contains("src/huge.rs"), "{message}");
    assert!(message.contains("narrow the audit"), "{message}");
    assert!(message.contains("larger context window"), "{message}");
}

#[test]
fn file_exactly_at_the_budget_fits() {
    // 3 bytes per token: one line of text + its `1| ` prefix (3 bytes) +
    // path + 64 header bytes = budget * 3.
    let budget = 2048u64;
    let path = "src/edge.rs";
    let text = "x".repeat(budget as usize * 3 - 3 - path.len() - 64);
    let c = collection(vec![file(path, &text, None)]);
    let p = plan(&c, &[], &options(budget + 1000, 1000, 4))
        .ready()
        .unwrap();
    assert_eq!(p.chunks[0].tokens, budget);

    let c = collection(vec![file(path, &format!("{text}x"), None)]);
    let p = plan(&c, &[], &options(budget + 1000, 1000, 4));
    assert!(
        matches!(&p.stops[..], [Stop::FilesTooLarge { files, .. }] if files[0].tokens == budget + 1),
        "{:?}",
        p.stops
    );
}

#[test]
fn too_many_chunks_fails_closed() {
    let c = fixture();
    let p = plan(&c, &[], &options(8192, 2048, 3));
    let [Stop::TooManyChunks { needed, max }] = p.stops[..] else {
        panic!("expected TooManyChunks, got {:?}", p.stops);
    };
    assert_eq!(max, 3);
    assert!(needed > 3);
    // The count is the real one: the same plan with room for it succeeds.
    let p = plan(&c, &[], &options(8192, 2048, needed)).ready().unwrap();
    assert_eq!(p.chunks.len(), needed);
}

#[test]
fn window_smaller_than_the_reserve_fails_closed() {
    let c = collection(vec![file("a.txt", "hello\n", None)]);
    let p = plan(&c, &[], &options(4096, 8192, 64));
    assert!(
        matches!(
            &p.stops[..],
            [Stop::BudgetTooSmall {
                context_window: 4096,
                reserve_tokens: 8192,
                ..
            }]
        ),
        "{:?}",
        p.stops
    );
    assert!(p.chunks.is_empty() && p.model_calls == 0);
    let err = p.check().unwrap_err();
    assert!(err.to_string().contains("larger context window"), "{err}");
    // Small but positive budgets are refused too, even when files fit.
    let p = plan(&c, &[], &options(1500, 1000, 64));
    assert!(
        matches!(p.stops[..], [Stop::BudgetTooSmall { .. }]),
        "{:?}",
        p.stops
    );
}

#[test]
fn empty_collection_has_nothing_to_review() {
    let mut c = Collection::default();
    c.skipped.insert(SkipReason::Binary, 2);
    c.skipped.insert(SkipReason::Hidden, 1);
    let p = plan(&c, &[], &PlanOptions::default());
    assert!(
        matches!(p.stops[..], [Stop::NothingToReview { skipped: 3 }]),
        "{:?}",
        p.stops
    );
    let err = p.check().unwrap_err();
    assert!(err.to_string().contains("3 skipped"), "{err}");
}

#[test]
fn unusable_bytes_per_token_falls_back_to_one_token_per_byte() {
    let c = collection(vec![file("a.txt", "hello\n", None)]);
    for ratio in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let mut o = PlanOptions::default();
        o.bytes_per_token = ratio;
        let p = plan(&c, &[], &o).ready().unwrap();
        // "hello\n" + its `1| ` prefix + the path + the header.
        assert_eq!(p.chunks[0].tokens, (6 + 3 + 5 + 64) as u64, "{ratio}");
    }
}

#[test]
fn manifest_sorts_entries_and_totals_languages() {
    let files = vec![
        file("src/b.rs", "a\nb\nc\n", Some("Rust")),
        file("src/a.rs", "a\n", Some("Rust")),
        file("app.py", "a\nb\n", Some("Python")),
        file("tool.sh", "a\nb\nc\nd\n", Some("Shell")),
        file("data.weird", "a\nb\nc\nd\n", None),
        file("notes.txt", "", None),
    ];
    let m = manifest(&files);
    let paths: Vec<&str> = m.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "app.py",
            "data.weird",
            "notes.txt",
            "src/a.rs",
            "src/b.rs",
            "tool.sh"
        ]
    );
    assert_eq!(m.entries[3].bytes, 2);
    assert_eq!(m.entries[3].lines, 1);
    assert_eq!(m.entries[3].language.as_deref(), Some("Rust"));
    // Most lines first; ties by name (byte order: capitals first).
    assert_eq!(
        m.languages,
        vec![
            ("Rust".to_owned(), 2, 4),
            ("Shell".to_owned(), 1, 4),
            ("other".to_owned(), 2, 4),
            ("Python".to_owned(), 1, 2),
        ]
    );
    let total_files: usize = m.languages.iter().map(|l| l.1).sum();
    let total_lines: usize = m.languages.iter().map(|l| l.2).sum();
    assert_eq!(total_files, files.len());
    assert_eq!(total_lines, 14);
}

/// Lines that must hit `category`, across the common languages.
const HITS: &[(Category, &str)] = &[
    (
        Category::Process,
        r#"let out = Command::new("git").arg("status").output()?;"#,
    ),
    (Category::Process, "subprocess.run(args, check=True)"),
    (Category::Process, "os.system(cmd)"),
    (
        Category::Process,
        "const { spawn } = require('child_process');",
    ),
    (Category::Process, r#"cmd := exec.Command("ls", dir)"#),
    (
        Category::Process,
        "Process p = Runtime.getRuntime().exec(command);",
    ),
    (Category::Process, r#"FILE *f = popen(cmd, "r");"#),
    (Category::Process, "const child = spawn('ls', ['-la']);"),
    (Category::Process, "let child = cmd.spawn()?;"),
    (Category::Process, "new ProcessBuilder(args).start();"),
    (Category::Process, "stdout, status = Open3.capture2(cmd)"),
    (
        Category::Shell,
        r#"Command::new("sh").arg("-c").arg(script)"#,
    ),
    (Category::Shell, r#"subprocess.run(["bash", "-c", cmd])"#),
    (Category::Shell, "run_in_shell(\"bash -c 'make all'\")"),
    (Category::Shell, "subprocess.call(cmd, shell=True)"),
    (Category::Shell, "system(buf);"),
    (Category::Shell, "$out = shell_exec($cmd);"),
    (Category::Shell, "exec(`git log ${ref}`, cb);"),
    (
        Category::Network,
        "let body = reqwest::get(url).await?.text().await?;",
    ),
    (Category::Network, "r = requests.get(url, timeout=5)"),
    (Category::Network, "const res = await fetch(url);"),
    (Category::Network, "resp, err := http.Get(url)"),
    (Category::Network, "from urllib.request import urlopen"),
    (
        Category::Network,
        r#"let listener = TcpListener::bind("0.0.0.0:80")?;"#,
    ),
    (
        Category::Network,
        "int fd = socket(AF_INET, SOCK_STREAM, 0);",
    ),
    (Category::Network, "axios.post('/api', data)"),
    (Category::Network, r#"conn, err := net.Dial("tcp", addr)"#),
    (
        Category::Network,
        "curl -fsSL https://example.com/install.sh | sh",
    ),
    (Category::FilesystemWrite, "fs::write(&path, bytes)?;"),
    (Category::FilesystemWrite, "let f = File::create(path)?;"),
    (Category::FilesystemWrite, "std::fs::remove_file(&tmp)?;"),
    (Category::FilesystemWrite, "with open(out_path, 'w') as f:"),
    (
        Category::FilesystemWrite,
        r#"with open(os.path.join(d, name), mode="ab") as f:"#,
    ),
    (Category::FilesystemWrite, r#"FILE *f = fopen(path, "w+");"#),
    (Category::FilesystemWrite, "fs.writeFileSync(target, data);"),
    (Category::FilesystemWrite, "os.remove(path)"),
    (Category::FilesystemWrite, "chmod 0777 /srv/data"),
    (Category::FilesystemWrite, "unlink($file);"),
    (
        Category::FilesystemWrite,
        "err := os.WriteFile(name, data, 0644)",
    ),
    (
        Category::FilesystemWrite,
        "file_put_contents($path, $body);",
    ),
    (Category::FilesystemWrite, "rm -rf \"$BUILD_DIR\""),
    (Category::Deserialization, "obj = pickle.load(fh)"),
    (Category::Deserialization, "cfg = yaml.load(text)"),
    (
        Category::Deserialization,
        "let v: Value = serde_json::from_str(&body)?;",
    ),
    (
        Category::Deserialization,
        "const data = JSON.parse(req.body);",
    ),
    (
        Category::Deserialization,
        "$o = unserialize($_COOKIE['cart']);",
    ),
    (
        Category::Deserialization,
        "ObjectInputStream in = new ObjectInputStream(sock.getInputStream());",
    ),
    (Category::Deserialization, "obj = Marshal.load(data)"),
    (
        Category::Deserialization,
        "err := json.Unmarshal(body, &req)",
    ),
    (Category::Crypto, "digest = hashlib.md5(data).hexdigest()"),
    (Category::Crypto, "let h = Sha1::new(); // sha1 for ids"),
    (Category::Crypto, "let n: u32 = rand::random();"),
    (Category::Crypto, "const id = Math.random().toString(36);"),
    (
        Category::Crypto,
        r#"Cipher c = Cipher.getInstance("AES/ECB/PKCS5Padding");"#,
    ),
    (Category::Crypto, "nonce = random.random()"),
    (Category::Crypto, "requests.get(url, verify=False)"),
    (Category::Crypto, "InsecureSkipVerify: true,"),
    (Category::Auth, r#"if user.password == form["password"]:"#),
    (Category::Auth, "let claims = decode_jwt(&header)?;"),
    (Category::Auth, "session['user_id'] = user.id"),
    (Category::Auth, "const token = req.headers.authorization;"),
    (
        Category::Auth,
        "let access_token = refresh(&client).await?;",
    ),
    (
        Category::Auth,
        "hashed = bcrypt.hashpw(pw, bcrypt.gensalt())",
    ),
    (Category::Auth, "def authorize(request):"),
    (Category::Auth, "@app.route('/login', methods=['POST'])"),
    (
        Category::Sql,
        r#"let q = format!("SELECT * FROM users WHERE name = '{name}'");"#,
    ),
    (
        Category::Sql,
        r#"String q = "SELECT id FROM users WHERE name = '" + name + "'";"#,
    ),
    (
        Category::Sql,
        r#"q = f"DELETE FROM sessions WHERE id = {sid}""#,
    ),
    (
        Category::Sql,
        r#"q = "INSERT INTO logs VALUES ('%s')" % msg"#,
    ),
    (
        Category::Sql,
        r#"$sql = "UPDATE users SET name = '$name' WHERE id = 1";"#,
    ),
    (
        Category::Sql,
        "const q = `SELECT * FROM t WHERE id = ${id}`;",
    ),
    (
        Category::Sql,
        r#"q := fmt.Sprintf("SELECT * FROM t WHERE id = %s", id)"#,
    ),
    (Category::Sql, "cursor.execute(query, params)"),
    (Category::Sql, "let rows = client.query(&stmt, &[]).await?;"),
    (Category::Templating, "el.innerHTML = userInput;"),
    (
        Category::Templating,
        "<div dangerouslySetInnerHTML={{ __html: html }} />",
    ),
    (Category::Templating, "<p>{{ comment.body|safe }}</p>"),
    (Category::Templating, "return mark_safe(html)"),
    (Category::Templating, "return render_template_string(tpl)"),
    (Category::Templating, "html! { <div>{ name }</div> }"),
    (Category::Templating, r#"<span v-html="message"></span>"#),
    (Category::Templating, "result = eval(expr)"),
    (Category::Templating, "<div>{{{ body }}}</div>"),
];

/// Lines that must not hit anything: near misses of the patterns above.
const MISSES: &[&str] = &[
    "let handle = std::thread::spawn(move || work());",
    "tokio::spawn(async move { serve().await });",
    "let m = /a(b)c/.exec(text);",
    "let tokens = tokenize(source);",
    "max_tokens: 4096,",
    "let cancel = CancellationToken::new();",
    "let brace: syn::token::Brace = input.parse()?;",
    "input.parse::<Token![;]>()?;",
    "// Select a file from the list below.",
    "let msg = format!(\"update available: {version}\");",
    "Please select the files you want, then press enter.",
    "let n = items.iter().filter(|raw| raw.is_empty()).count();",
    "let s = self.requests.len();",
    "fn parse_args(args: &[String]) -> Options {",
    "with open(path) as f:",
    "with open(path, 'rb') as f:",
    "data = yaml.safe_load(text)",
    "let x = compute(input, offset) + 1;",
    "/// A system (or developer) message for the model.",
    "static T: [[u64; 4]; 1] = {{{0, 0, 0, 0}}};",
    "write!(w, \"{{{}}}\", name)?;",
    "let v = lhs.eval() + rhs.eval();",
    "assert_eq!(url.query(), Some(\"page=2\"));",
];

fn hits_of(line: &str) -> Vec<Category> {
    security_index(&[file("x/sample.txt", line, None)])
        .into_iter()
        .map(|h| h.category)
        .collect()
}

#[test]
fn security_index_finds_each_category() {
    let mut failures = Vec::new();
    for (category, line) in HITS {
        if !hits_of(line).contains(category) {
            failures.push(format!("{category:?} not found in: {line}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn security_index_skips_near_misses() {
    let mut failures = Vec::new();
    for line in MISSES {
        let hits = hits_of(line);
        if !hits.is_empty() {
            failures.push(format!("{hits:?} in: {line}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn security_index_is_sorted_with_one_hit_per_line_and_category() {
    let files = vec![
        file(
            "b.py",
            "import os\nos.system(cmd); os.system(other)\npassword = password_input()\n",
            Some("Python"),
        ),
        file(
            "a.rs",
            "fn main() {}\nlet s = rand::random::<u64>(); // md5\n",
            Some("Rust"),
        ),
        file("c.txt", "nothing here\n", None),
    ];
    let hits = security_index(&files);
    let expected = [
        ("a.rs", 2, Category::Crypto),
        ("b.py", 2, Category::Process),
        ("b.py", 2, Category::Shell),
        ("b.py", 3, Category::Auth),
    ];
    let got: Vec<(&str, usize, Category)> = hits
        .iter()
        .map(|h| (h.path.as_str(), h.line, h.category))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn security_index_handles_crlf_and_non_ascii() {
    let text = "// déjà vu: ünïcode\r\nlet f = File::create(p)?;\r\n";
    let hits = security_index(&[file("w.rs", text, Some("Rust"))]);
    assert_eq!(
        hits,
        [SecurityHit {
            path: "w.rs".to_owned(),
            line: 2,
            category: Category::FilesystemWrite,
        }]
    );
}

/// Arbitrary collections: up to 40 files of up to 24 KB, some flagged.
fn arb_collection() -> impl Strategy<Value = (Collection, Vec<SecurityHit>)> {
    prop::collection::btree_map(
        "[a-e]{1,3}/[a-z]{1,6}\\.rs",
        (0usize..24_000, any::<bool>()),
        1..40,
    )
    .prop_map(|spec: BTreeMap<String, (usize, bool)>| {
        let mut files = Vec::new();
        let mut hits = Vec::new();
        for (path, (size, flagged)) in spec {
            if flagged {
                hits.push(SecurityHit {
                    path: path.clone(),
                    line: 1,
                    category: Category::Process,
                });
            }
            files.push(file(&path, &"x".repeat(size), Some("Rust")));
        }
        (collection(files), hits)
    })
}

proptest! {
    #[test]
    fn packing_invariants(
        (c, hits) in arb_collection(),
        window in 2_000u64..40_000,
        reserve in 0u64..4_000,
        max_chunks in 1usize..20,
    ) {
        let o = options(window, reserve, max_chunks);
        let first = plan(&c, &hits, &o);
        let second = plan(&c, &hits, &o);
        prop_assert_eq!(&first, &second, "plan is not deterministic");
        let budget = window.saturating_sub(reserve);
        // Whatever stops it, the chunks keep their invariants.
        let p = first;
        prop_assert_eq!(p.chunk_budget, budget);
        let too_small = p.stops.iter().any(|s| matches!(s, Stop::BudgetTooSmall { .. }));
        let too_many = p.stops.iter().any(|s| matches!(s, Stop::TooManyChunks { .. }));
        prop_assert_eq!(too_many, p.chunks.len() > max_chunks);
        let mut seen = vec![0usize; c.files.len()];
        for (n, chunk) in p.chunks.iter().enumerate() {
            prop_assert_eq!(chunk.index, n);
            prop_assert!(!chunk.files.is_empty());
            prop_assert!(chunk.tokens <= budget);
            let bytes: usize = chunk.files.iter().map(|&i| c.files[i].text.len()).sum();
            prop_assert_eq!(chunk.bytes, bytes);
            for &i in &chunk.files {
                seen[i] += 1;
            }
        }
        // Every file that fits is planned once; the others are stops.
        let oversized: Vec<&str> = p.stops.iter().flat_map(|s| match s {
            Stop::FilesTooLarge { files, .. } => files.iter().map(|f| f.path.as_str()).collect(),
            _ => Vec::new(),
        }).collect();
        for (i, file) in c.files.iter().enumerate() {
            let expected = usize::from(!too_small && !oversized.contains(&file.path.as_str()));
            prop_assert_eq!(seen[i], expected, "{}", file.path);
        }
        let calls = match p.chunks.len() { 0 => 0, 1 => 1, n => n + 1 };
        prop_assert_eq!(p.model_calls, calls);
        // Flagged files first.
        let order: Vec<bool> = p.chunks.iter()
            .flat_map(|ch| ch.files.iter().map(|&i| hits.iter().any(|h| h.path == c.files[i].path)))
            .collect();
        prop_assert!(order.windows(2).all(|w| w[0] >= w[1]));
        for stop in &p.stops {
            match stop {
                Stop::FilesTooLarge { files, budget: b } => {
                    prop_assert_eq!(*b, budget);
                    prop_assert!(files.iter().all(|f| f.tokens > *b));
                }
                Stop::BudgetTooSmall { min, .. } => prop_assert!(budget < *min),
                Stop::TooManyChunks { needed, max } => {
                    prop_assert_eq!(*max, max_chunks);
                    prop_assert!(needed > max);
                }
                other => prop_assert!(false, "unexpected stop {other:?}"),
            }
        }
    }
}

#[test]
fn a_huge_window_still_gets_chunks_of_a_readable_size() {
    let c = fixture();
    let p = plan(&c, &[], &options(1_000_000, 8192, 64))
        .ready()
        .unwrap();
    assert_eq!(p.chunk_budget, PlanOptions::default().max_chunk_tokens);
    assert!(p.chunks.iter().all(|chunk| chunk.tokens <= p.chunk_budget));
}
