//! The request-body oracle: OpenAI's own OpenAPI definitions of the Chat
//! Completions and Responses request bodies (`tests/fixtures/openai-spec`,
//! normalised to JSON Schema 2020-12 by its `extract.py`), compiled once,
//! that every body a test sends to a mock server must satisfy.
//!
//! Shared by the integration tests of several crates through `#[path]`, so
//! it depends only on what each of them has: `serde_json`, `jsonschema`
//! and `wiremock`. Mock servers on other threads collect violations in a
//! [`Recorder`] and the test thread asserts them; wiremock servers get a
//! [`guard`] that fails the test when the server is dropped.

#![allow(
    dead_code,
    unreachable_pub,
    reason = "each test binary that includes this file uses a different part"
)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// Which request body a URL path takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    ChatCompletions,
    Responses,
}

impl Api {
    /// The API whose request a `POST` to `path` sends; `None` for every
    /// other path (`/models`, probes), which sends no body worth checking.
    pub fn for_path(path: &str) -> Option<Self> {
        let path = path.split('?').next().unwrap_or(path).trim_end_matches('/');
        if path.ends_with("/chat/completions") {
            Some(Self::ChatCompletions)
        } else if path.ends_with("/responses") {
            Some(Self::Responses)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::ChatCompletions => "POST /chat/completions",
            Self::Responses => "POST /responses",
        }
    }

    /// The parsed schema and its validator, built on first use.
    fn compiled(self) -> &'static (Value, Validator) {
        static CHAT: OnceLock<(Value, Validator)> = OnceLock::new();
        static RESPONSES: OnceLock<(Value, Validator)> = OnceLock::new();
        let (cell, text) = match self {
            Self::ChatCompletions => (
                &CHAT,
                include_str!("../fixtures/openai-spec/chat-completions-request.json"),
            ),
            Self::Responses => (
                &RESPONSES,
                include_str!("../fixtures/openai-spec/responses-request.json"),
            ),
        };
        cell.get_or_init(|| {
            let schema: Value = serde_json::from_str(text).expect("the fixture is JSON");
            assert_eq!(
                schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "extract.py writes draft 2020-12"
            );
            // Formats stay annotations (2020-12's default): the spec's
            // `unixtime`, `int64` or `double` are not JSON Schema formats.
            let validator = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(false)
                .build(&schema)
                .unwrap_or_else(|error| {
                    panic!("{}: schema does not compile: {error}", self.name())
                });
            (schema, validator)
        })
    }
}

#[path = "openai_spec/known.rs"]
pub mod known;

/// A validator for one `$defs` schema of `api`'s fixture, built on first
/// use: what a known violation's fixed shape must pass.
fn def_validator(api: Api, def: &'static str) -> &'static Validator {
    type Cache = Mutex<HashMap<(Api, &'static str), &'static Validator>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Cache::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    cache.entry((api, def)).or_insert_with(|| {
        let mut schema = api.compiled().0.clone();
        schema["$ref"] = format!("#/$defs/{def}").into();
        if let Some(root) = schema.as_object_mut() {
            root.remove("propertyNames");
        }
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .unwrap_or_else(|error| panic!("{def}: schema does not compile: {error}"));
        Box::leak(Box::new(validator))
    })
}

fn path_matches(pattern: &str, path: &str) -> bool {
    let (mut want, mut got) = (pattern.split('/'), path.split('/'));
    loop {
        match (want.next(), got.next()) {
            (None, None) => return true,
            (Some(w), Some(g)) if w == "*" || w == g => {}
            _ => return false,
        }
    }
}

/// The known violation that `error` is, if any: same place, same error,
/// oy's exact shape, and a fixed shape that passes.
fn known_for(api: Api, error: &ValidationError<'_>) -> Option<&'static str> {
    let kind = match error.kind {
        ValidationErrorKind::OneOfMultipleValid { .. } => known::Kind::TwoBranches,
        ValidationErrorKind::OneOfNotValid { .. } => known::Kind::NoBranch,
        _ => return None,
    };
    known::KNOWN
        .iter()
        .find(|known| {
            known.api == api
                && known.kind == kind
                && path_matches(known.instance_path, error.instance_path.as_str())
                && (known.fixed)(&error.instance)
                    .is_some_and(|fixed| def_validator(api, known.def).is_valid(&fixed))
        })
        .map(|known| known.name)
}

/// Whether `error` is only known violations (their names go to `used`). A
/// failed `oneOf`/`anyOf` is when some branch fails only for known ones:
/// that branch is what the value meant.
fn excused(api: Api, error: &ValidationError<'_>, used: &mut Vec<&'static str>) -> bool {
    if let Some(name) = known_for(api, error) {
        used.push(name);
        return true;
    }
    match &error.kind {
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            context.iter().any(|branch| {
                let mut branch_used = Vec::new();
                let all = branch
                    .iter()
                    .all(|error| excused(api, error, &mut branch_used));
                if all {
                    used.extend(branch_used);
                }
                all
            })
        }
        _ => false,
    }
}

/// Each violation of `body` against `api`'s request schema as readable
/// lines (with the known ones left out when `excuse_known`), and the
/// names of the known violations left out.
fn check(api: Api, body: &Value, excuse_known: bool) -> (Vec<String>, Vec<&'static str>) {
    let (schema, validator) = api.compiled();
    let mut lines = Vec::new();
    let mut used = Vec::new();
    for error in validator.iter_errors(body) {
        if excuse_known && excused(api, &error, &mut used) {
            continue;
        }
        render(schema, &error, 0, &mut lines);
    }
    used.sort_unstable();
    used.dedup();
    (lines, used)
}

/// Violations of `body` against `api`, known ones excused.
pub fn violations(api: Api, body: &Value) -> Vec<String> {
    check(api, body, true).0
}

/// Violations of `body` against `api`, known ones included.
pub fn strict_violations(api: Api, body: &Value) -> Vec<String> {
    check(api, body, false).0
}

/// The names of the known violations in `body`, sorted.
pub fn known_violations(api: Api, body: &Value) -> Vec<&'static str> {
    check(api, body, true).1
}

/// Violations of a request sent to `path`, under a line naming the
/// request; none for a path of neither API (`/models`, probes).
pub fn request_violations(path: &str, body: &Value) -> Vec<String> {
    let Some(api) = Api::for_path(path) else {
        return Vec::new();
    };
    let mut lines = violations(api, body);
    if !lines.is_empty() {
        lines.insert(0, format!("{} (to {path}):", api.name()));
    }
    lines
}

fn assert_valid(api: Api, body: &Value) {
    let found = violations(api, body);
    assert!(
        found.is_empty(),
        "this {} body breaks OpenAI's spec:\n{}\nbody: {body:#}",
        api.name(),
        found.join("\n")
    );
}

/// Panics with every violation unless `body` is a valid Chat Completions
/// request.
pub fn assert_chat_request(body: &Value) {
    assert_valid(Api::ChatCompletions, body);
}

/// Panics with every violation unless `body` is a valid Responses request.
pub fn assert_responses_request(body: &Value) {
    assert_valid(Api::Responses, body);
}

/// Panics with every violation of a request body sent to `path`.
pub fn check_request(path: &str, body: &Value) {
    if let Some(api) = Api::for_path(path) {
        assert_valid(api, body);
    }
}

/// The body as JSON; a body that is not JSON is checked as `null`, which
/// no request schema accepts.
pub fn parse_body(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or(Value::Null)
}

// ---- readable errors ----

/// One line per error: where in the body, what is wrong, and for a failed
/// `oneOf`/`anyOf` the branches that came closest, indented below it.
fn render(schema: &Value, error: &ValidationError<'_>, depth: usize, lines: &mut Vec<String>) {
    let at = match error.instance_path.as_str() {
        "" => "/",
        path => path,
    };
    let indent = "  ".repeat(depth);
    let branches = || branch_names(schema, error.schema_path.as_str());
    match &error.kind {
        ValidationErrorKind::OneOfMultipleValid { context } => {
            let names = branches();
            let matched: Vec<String> = context
                .iter()
                .enumerate()
                .filter(|(_, errors)| errors.is_empty())
                .map(|(index, _)| names.get(index).cloned().unwrap_or(index.to_string()))
                .collect();
            lines.push(format!(
                "{indent}{at}: matches more than one `oneOf` branch: {} [schema {}]",
                matched.join(", "),
                error.schema_path
            ));
        }
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            let names = branches();
            let listed = match names.len() {
                0..=8 => names.join(" | "),
                more => format!("{} | … ({} more)", names[..6].join(" | "), more - 6),
            };
            lines.push(format!("{indent}{at}: matches no branch of {listed}"));
            // Show only the branches of the value's own kind: not those
            // whose `type` or `role` it does not have, nor another JSON type.
            let of_another_kind = |errors: &Vec<ValidationError<'_>>| {
                errors.iter().any(|e| {
                    let path = e.instance_path.as_str();
                    path == format!("{}/type", error.instance_path.as_str())
                        || path == format!("{}/role", error.instance_path.as_str())
                        || (path == error.instance_path.as_str()
                            && matches!(e.kind, ValidationErrorKind::Type { .. }))
                })
            };
            for (index, errors) in context.iter().enumerate() {
                if !of_another_kind(errors) {
                    let name = names.get(index).cloned().unwrap_or(index.to_string());
                    lines.push(format!("{indent}  as {name}:"));
                    for error in errors {
                        render(schema, error, depth + 2, lines);
                    }
                }
            }
        }
        ValidationErrorKind::PropertyNames { error: name } => lines.push(format!(
            "{indent}{at}: unknown top-level parameter {} (OpenAI answers HTTP 400)",
            name.instance
        )),
        _ => lines.push(format!(
            "{indent}{at}: {error} [schema {}]",
            error.schema_path
        )),
    }
}

/// The names (`$ref` target or `title`) of the branches of the `oneOf` or
/// `anyOf` at `keyword_path`, a path that follows `$ref`s.
fn branch_names(schema: &Value, keyword_path: &str) -> Vec<String> {
    let mut node = schema;
    for segment in keyword_path.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        node = if segment == "$ref" {
            resolve(schema, node)
        } else if let Ok(index) = segment.parse::<usize>() {
            node.get(index).unwrap_or(&Value::Null)
        } else {
            node.get(&segment).unwrap_or(&Value::Null)
        };
    }
    node.as_array()
        .map(|branches| {
            branches
                .iter()
                .enumerate()
                .map(|(index, branch)| {
                    branch["$ref"]
                        .as_str()
                        .and_then(|r| r.strip_prefix("#/$defs/"))
                        .or(branch["title"].as_str())
                        .or(branch["type"].as_str())
                        .map_or_else(|| format!("branch {index}"), str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn resolve<'a>(schema: &'a Value, node: &'a Value) -> &'a Value {
    node["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| schema["$defs"].get(name))
        .unwrap_or(&Value::Null)
}

// ---- mock servers ----

/// Violations found by a mock server on another thread, for the test
/// thread to assert: a panic in a server thread would only drop a
/// connection.
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<String>>>);

impl Recorder {
    /// Checks one request and keeps its violations.
    pub fn record(&self, path: &str, body: &Value) {
        let found = request_violations(path, body);
        if !found.is_empty() {
            let mut all = self
                .0
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            all.extend(found);
        }
    }

    /// Panics with every violation recorded so far.
    pub fn assert_clean(&self) {
        let all = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        assert!(
            all.is_empty(),
            "a request body broke OpenAI's spec:\n{}",
            all.join("\n")
        );
    }

    /// [`Self::assert_clean`] for a `Drop`: quiet while the thread is
    /// already panicking, so the first failure is the one reported.
    pub fn assert_clean_on_drop(&self) {
        if !std::thread::panicking() {
            self.assert_clean();
        }
    }
}

/// A raw test server's address, with the [`Recorder`] its server task
/// fills; dropping it (at the end of the test) asserts the recorder clean.
#[derive(Debug)]
pub struct CheckedUrl {
    pub url: String,
    pub recorder: Recorder,
}

impl Drop for CheckedUrl {
    fn drop(&mut self) {
        self.recorder.assert_clean_on_drop();
    }
}

/// Reads one HTTP/1.1 request (head, then a `Content-Length` body) from a
/// raw test server's socket and records its violations. `false` when the
/// connection ended before the request did.
pub async fn read_request<S>(socket: &mut S, recorder: &Recorder) -> bool
where
    S: tokio::io::AsyncRead + Unpin,
{
    use tokio::io::AsyncReadExt;
    let mut bytes = Vec::new();
    let mut chunk = vec![0; 64 * 1024];
    loop {
        if let Some((path, body)) = split_request(&bytes) {
            recorder.record(&path, &parse_body(body));
            return true;
        }
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
        }
    }
}

/// The path and body of a complete HTTP/1.1 request in `bytes`, or `None`
/// while some of it is still to come.
pub fn split_request(bytes: &[u8]) -> Option<(String, &[u8])> {
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = std::str::from_utf8(&bytes[..end]).ok()?;
    let path = head.split_whitespace().nth(1)?.to_owned();
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    bytes.get(end..end + length).map(|body| (path, body))
}

/// Mounts, on `server`, a mock that catches every request body that breaks
/// the spec: it answers HTTP 400 naming the violations, and as it expects
/// no call at all, wiremock fails the test when `server` is dropped.
pub async fn guard(server: &wiremock::MockServer) {
    wiremock::Mock::given(BreaksSpec)
        .respond_with(BreaksSpec)
        .with_priority(1)
        .named("a request body that breaks OpenAI's spec (violations in the test's stderr)")
        .expect(0)
        .mount(server)
        .await;
}

/// A started wiremock server with the [`guard`] mounted.
pub async fn guarded_server() -> wiremock::MockServer {
    let server = wiremock::MockServer::start().await;
    guard(&server).await;
    server
}

struct BreaksSpec;

impl BreaksSpec {
    fn violations(request: &wiremock::Request) -> Vec<String> {
        if request.method != "POST" {
            return Vec::new();
        }
        request_violations(request.url.path(), &parse_body(&request.body))
    }
}

impl wiremock::Match for BreaksSpec {
    fn matches(&self, request: &wiremock::Request) -> bool {
        !Self::violations(request).is_empty()
    }
}

impl wiremock::Respond for BreaksSpec {
    #[expect(
        clippy::print_stderr,
        reason = "the violations go where a failing test's output is shown"
    )]
    fn respond(&self, request: &wiremock::Request) -> wiremock::ResponseTemplate {
        let found = Self::violations(request).join("\n");
        eprintln!("a request body broke OpenAI's spec:\n{found}");
        wiremock::ResponseTemplate::new(400).set_body_json(serde_json::json!({
            "error": {"message": format!("mock: the body breaks OpenAI's spec: {found}"),
                      "type": "invalid_request_error"}
        }))
    }
}
