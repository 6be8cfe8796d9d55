//! Property tests: random trees with planted symlinks, random path strings and random operations never change, reveal or list anything outside the root (plus the walker's ignore-file reads, which the random trees cannot observe).

use std::fs;
use std::io::Read;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Component, Path, PathBuf};

use oy_boundary::{BoundaryError, FileKind, LineWindow, Metadata, WalkOptions, WorkspacePath};
use proptest::prelude::*;
use proptest::sample::select;

use crate::support::{Fixture, SECRET};

/// Content written by the operations: never contains the secret.
const WRITTEN: &[u8] = b"written by the property test\n";

/// Marks put on everything outside the root, so metadata that describes an
/// outside object can be recognised: inside, no directory is ever sticky and
/// no file ever has an execute bit (nothing here creates one).
const OUTSIDE_DIR_MODE: u32 = 0o1755;
const OUTSIDE_BASE_MODE: u32 = 0o1700;
const OUTSIDE_FILE_MODE: u32 = 0o715;

const DIRS: &[&str] = &["a", "a/b", "d", "e/f"];
const FILES: &[(&str, &[u8])] = &[
    ("x.txt", b"inside x\n"),
    ("a/x.txt", b"inside a/x\nsecond line\n"),
    ("a/b/x.txt", b"deep\r\ninside\r\n"),
    ("d/blob.bin", b"\0\x01\x02binary"),
    ("notes.md", b"# notes\n"),
];
const LINK_SITES: &[&str] = &["l1", "l2", "a/l1", "a/l2", "a/b/l1", "d/l2"];

/// Path components for the random path strings.
const COMPONENTS: &[&str] = &[
    "a",
    "b",
    "d",
    "l1",
    "l2",
    "..",
    ".",
    "x.txt",
    "outside",
    "secret.txt",
    "dir",
    "inner.txt",
    "wsroot",
    "nope",
];

/// Where a planted symlink points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    RelA,
    RelAB,
    RelUpA,
    RelFile,
    RelUp,
    RelUpUp,
    RelUpOutside,
    RelUpOutsideSecret,
    RelUpUpOutsideSecret,
    RelDotsEscape,
    AbsOutsideDir,
    AbsOutsideSecret,
    AbsOutsideInner,
    AbsBase,
    AbsInsideDir,
    AbsInsideFile,
    AbsInsideViaDots,
    AbsEscapeViaDots,
    DanglingInside,
    DanglingInsideAbs,
    DanglingOutside,
    DanglingOutsideAbs,
    DanglingBase,
    RootDot,
    RootAbs,
    RootUp,
    SelfLoop,
    Sibling,
    ChainUp,
}

impl Target {
    const ALL: &'static [Self] = &[
        Self::RelA,
        Self::RelAB,
        Self::RelUpA,
        Self::RelFile,
        Self::RelUp,
        Self::RelUpUp,
        Self::RelUpOutside,
        Self::RelUpOutsideSecret,
        Self::RelUpUpOutsideSecret,
        Self::RelDotsEscape,
        Self::AbsOutsideDir,
        Self::AbsOutsideSecret,
        Self::AbsOutsideInner,
        Self::AbsBase,
        Self::AbsInsideDir,
        Self::AbsInsideFile,
        Self::AbsInsideViaDots,
        Self::AbsEscapeViaDots,
        Self::DanglingInside,
        Self::DanglingInsideAbs,
        Self::DanglingOutside,
        Self::DanglingOutsideAbs,
        Self::DanglingBase,
        Self::RootDot,
        Self::RootAbs,
        Self::RootUp,
        Self::SelfLoop,
        Self::Sibling,
        Self::ChainUp,
    ];

    /// The link's target for a link planted at `site` (relative to the root).
    fn render(self, site: &str, fx: &Fixture) -> PathBuf {
        let name = Path::new(site)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let base = fx.root.parent().unwrap();
        match self {
            Self::RelA => "a".into(),
            Self::RelAB => "a/b".into(),
            Self::RelUpA => "../a".into(),
            Self::RelFile => "x.txt".into(),
            Self::RelUp => "..".into(),
            Self::RelUpUp => "../..".into(),
            Self::RelUpOutside => "../outside".into(),
            Self::RelUpOutsideSecret => "../outside/secret.txt".into(),
            Self::RelUpUpOutsideSecret => "../../outside/secret.txt".into(),
            Self::RelDotsEscape => "a/../../outside/dir".into(),
            Self::AbsOutsideDir => fx.outside.clone(),
            Self::AbsOutsideSecret => fx.outside.join("secret.txt"),
            Self::AbsOutsideInner => fx.outside.join("dir/inner.txt"),
            Self::AbsBase => base.to_path_buf(),
            Self::AbsInsideDir => fx.root.join("a"),
            Self::AbsInsideFile => fx.root.join("x.txt"),
            Self::AbsInsideViaDots => fx.root.join("a/../x.txt"),
            Self::AbsEscapeViaDots => fx.root.join("../outside/secret.txt"),
            Self::DanglingInside => "nope".into(),
            Self::DanglingInsideAbs => fx.root.join("nope/deeper"),
            Self::DanglingOutside => "../outside/nope".into(),
            Self::DanglingOutsideAbs => fx.outside.join("nope"),
            Self::DanglingBase => "../newfile".into(),
            Self::RootDot => ".".into(),
            Self::RootAbs => fx.root.clone(),
            Self::RootUp => "../wsroot".into(),
            Self::SelfLoop => name.into(),
            Self::Sibling => if name == "l1" { "l2" } else { "l1" }.into(),
            Self::ChainUp => format!("../{name}").into(),
        }
    }
}

/// How a random path string starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prefix {
    Relative,
    Slash,
    AbsRoot,
    AbsOutside,
    AbsBase,
}

/// A random path string, rendered against a fixture.
#[derive(Debug, Clone)]
struct PathSpec {
    prefix: Prefix,
    /// A path the tree may hold, so that operations often find something.
    head: Option<&'static str>,
    components: Vec<&'static str>,
    trailing_slash: bool,
}

impl PathSpec {
    fn render(&self, fx: &Fixture) -> String {
        let joined = self
            .head
            .iter()
            .chain(&self.components)
            .copied()
            .collect::<Vec<_>>()
            .join("/");
        let head = match self.prefix {
            Prefix::Relative => String::new(),
            Prefix::Slash => "/".to_owned(),
            Prefix::AbsRoot => format!("{}/", fx.root.display()),
            Prefix::AbsOutside => format!("{}/", fx.outside.display()),
            Prefix::AbsBase => format!("{}/", fx.root.parent().unwrap().display()),
        };
        let mut text = format!("{head}{joined}");
        if text.is_empty() {
            text.push('.');
        }
        if self.trailing_slash && !text.ends_with('/') {
            text.push('/');
        }
        text
    }
}

#[derive(Debug, Clone)]
struct Tree {
    dirs: Vec<&'static str>,
    files: Vec<(&'static str, &'static [u8])>,
    links: Vec<(&'static str, Target)>,
}

#[derive(Debug, Clone)]
enum Op {
    ReadText(PathSpec),
    ReadBytes(PathSpec),
    ReadLines(PathSpec, usize),
    Metadata(PathSpec),
    SymlinkMetadata(PathSpec),
    IsText(PathSpec),
    OpenFile(PathSpec),
    Write(PathSpec),
    CreateNew(PathSpec),
    Append(PathSpec),
    CreateDirAll(PathSpec),
    Rename(PathSpec, PathSpec, bool),
    Remove(PathSpec, bool),
    Walk(PathSpec, bool),
    Suggest(PathSpec),
}

/// Paths a generated tree may hold: heads for the random path strings.
const KNOWN: &[&str] = &[
    "a",
    "a/b",
    "d",
    "e/f",
    "x.txt",
    "a/x.txt",
    "a/b/x.txt",
    "d/blob.bin",
    "notes.md",
    "l1",
    "l2",
    "a/l1",
    "a/l2",
    "a/b/l1",
    "d/l2",
];

fn path_spec() -> impl Strategy<Value = PathSpec> {
    let prefix = prop_oneof![
        10 => Just(Prefix::Relative),
        1 => Just(Prefix::Slash),
        3 => Just(Prefix::AbsRoot),
        1 => Just(Prefix::AbsOutside),
        1 => Just(Prefix::AbsBase),
    ];
    (
        prefix,
        proptest::option::weighted(0.8, select(KNOWN)),
        prop_oneof![
            3 => Just(Vec::new()),
            2 => proptest::collection::vec(select(COMPONENTS), 1..=3),
        ],
        proptest::bool::weighted(0.15),
    )
        .prop_map(|(prefix, head, components, trailing_slash)| PathSpec {
            prefix,
            head,
            components,
            trailing_slash,
        })
}

/// Each of `items`, kept with probability 0.8.
fn mostly<T: Clone + std::fmt::Debug + 'static>(
    items: &'static [T],
) -> impl Strategy<Value = Vec<T>> {
    proptest::collection::vec(proptest::bool::weighted(0.8), items.len()).prop_map(|keep| {
        items
            .iter()
            .zip(keep)
            .filter(|(_, keep)| *keep)
            .map(|(item, _)| item.clone())
            .collect()
    })
}

fn tree() -> impl Strategy<Value = Tree> {
    (
        mostly(DIRS),
        mostly(FILES),
        proptest::collection::vec((select(LINK_SITES), select(Target::ALL)), 0..=8),
    )
        .prop_map(|(dirs, files, links)| Tree { dirs, files, links })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        path_spec().prop_map(Op::ReadText),
        path_spec().prop_map(Op::ReadBytes),
        (path_spec(), 0usize..4).prop_map(|(p, offset)| Op::ReadLines(p, offset)),
        path_spec().prop_map(Op::Metadata),
        path_spec().prop_map(Op::SymlinkMetadata),
        path_spec().prop_map(Op::IsText),
        path_spec().prop_map(Op::OpenFile),
        path_spec().prop_map(Op::Write),
        path_spec().prop_map(Op::CreateNew),
        path_spec().prop_map(Op::Append),
        path_spec().prop_map(Op::CreateDirAll),
        (path_spec(), path_spec(), any::<bool>()).prop_map(|(a, b, o)| Op::Rename(a, b, o)),
        (path_spec(), any::<bool>()).prop_map(|(p, r)| Op::Remove(p, r)),
        (path_spec(), any::<bool>()).prop_map(|(p, h)| Op::Walk(p, h)),
        path_spec().prop_map(Op::Suggest),
    ]
}

/// One object in a snapshot: its path, its type and mode, and its content
/// (file bytes or link target).
type Entry = (PathBuf, &'static str, u32, Vec<u8>);

/// Everything under `dir` (including `dir` itself), skipping the subtree at
/// `skip`. Links are recorded by their target, never followed.
fn tree_snapshot(dir: &Path, skip: Option<&Path>) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if Some(path.as_path()) == skip {
            continue;
        }
        let meta = fs::symlink_metadata(&path).unwrap();
        let mode = meta.permissions().mode() & 0o7777;
        let file_type = meta.file_type();
        if file_type.is_symlink() {
            let target = fs::read_link(&path).unwrap();
            out.push((
                path,
                "link",
                0,
                target.into_os_string().into_encoded_bytes(),
            ));
        } else if file_type.is_dir() {
            for entry in fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
            out.push((path, "dir", mode, Vec::new()));
        } else {
            let bytes = fs::read(&path).unwrap();
            out.push((path, "file", mode, bytes));
        }
    }
    out.sort();
    out
}

fn set_mode(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    let got = fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777;
    assert_eq!(got, mode, "could not mark {}", path.display());
}

/// A fixture with `tree` built inside the root and the outside marked.
fn build(tree: &Tree) -> Fixture {
    let fx = Fixture::new();
    let base = fx.root.parent().unwrap().to_path_buf();
    for dir in &tree.dirs {
        fs::create_dir_all(fx.root.join(dir)).unwrap();
    }
    for (file, contents) in &tree.files {
        let path = fx.root.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
    }
    for (site, target) in &tree.links {
        let path = fx.root.join(site);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        if fs::symlink_metadata(&path).is_err() {
            symlink(target.render(site, &fx), path).unwrap();
        }
    }
    set_mode(&fx.outside.join("secret.txt"), OUTSIDE_FILE_MODE);
    set_mode(&fx.outside.join("dir/inner.txt"), OUTSIDE_FILE_MODE);
    set_mode(&fx.outside.join("dir"), OUTSIDE_DIR_MODE);
    set_mode(&fx.outside, OUTSIDE_DIR_MODE);
    set_mode(&base, OUTSIDE_BASE_MODE);
    fx
}

fn contains_secret(bytes: &[u8]) -> bool {
    bytes
        .windows(SECRET.len())
        .any(|window| window == SECRET.as_bytes())
}

/// Metadata carrying the marks of an object outside the root.
fn describes_outside(meta: &Metadata) -> bool {
    (meta.kind == FileKind::Directory && meta.mode & 0o1000 != 0)
        || (meta.kind == FileKind::File && meta.mode & 0o111 != 0)
}

fn check_error(what: &str, err: &BoundaryError) -> Result<(), TestCaseError> {
    prop_assert!(
        !contains_secret(err.to_string().as_bytes()),
        "{what}: error message leaks the secret: {err}"
    );
    Ok(())
}

fn check_bytes(what: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    prop_assert!(
        !contains_secret(bytes),
        "{what} returned the outside secret"
    );
    Ok(())
}

fn check_metadata(what: &str, meta: &Metadata) -> Result<(), TestCaseError> {
    prop_assert!(
        !describes_outside(meta),
        "{what} returned metadata of an object outside the root: {meta:?}"
    );
    Ok(())
}

fn check_listed(fx: &Fixture, what: &str, path: &WorkspacePath) -> Result<(), TestCaseError> {
    let host = fx.ws.host_path(path);
    prop_assert!(
        host.starts_with(&fx.root),
        "{what} listed {} at {}, outside the root",
        path.display(),
        host.display()
    );
    prop_assert!(
        !path
            .as_path()
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::RootDir)),
        "{what} listed a non-normal path {}",
        path.display()
    );
    Ok(())
}

/// Checks one `Result`: an error must not leak, a success goes to `ok`.
fn check<T>(
    what: &str,
    result: oy_boundary::Result<T>,
    ok: impl FnOnce(T) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    match result {
        Ok(value) => ok(value),
        Err(err) => check_error(what, &err),
    }
}

/// Runs one operation and checks what it returned.
fn run(fx: &Fixture, op: &Op) -> Result<(), TestCaseError> {
    let ws = &fx.ws;
    let what = format!("{op:?}");
    let parse = |spec: &PathSpec| ws.path(spec.render(fx));
    macro_rules! parsed {
        ($spec:expr) => {
            match parse($spec) {
                Ok(path) => path,
                Err(err) => return check_error(&what, &err),
            }
        };
    }
    match op {
        Op::ReadText(spec) => {
            let p = parsed!(spec);
            check(&what, ws.read_text(&p, 1 << 20), |text| {
                check_bytes(&what, text.as_bytes())
            })
        }
        Op::ReadBytes(spec) => {
            let p = parsed!(spec);
            check(&what, ws.read_bytes(&p, 1 << 20), |bytes| {
                check_bytes(&what, &bytes)
            })
        }
        Op::ReadLines(spec, offset) => {
            let p = parsed!(spec);
            let window = LineWindow {
                offset: *offset,
                ..LineWindow::default()
            };
            check(&what, ws.read_lines(&p, window), |slice| {
                for line in &slice.lines {
                    check_bytes(&what, line.text.as_bytes())?;
                }
                Ok(())
            })
        }
        Op::Metadata(spec) => {
            let p = parsed!(spec);
            check(&what, ws.metadata(&p), |meta| check_metadata(&what, &meta))
        }
        Op::SymlinkMetadata(spec) => {
            let p = parsed!(spec);
            check(&what, ws.symlink_metadata(&p), |meta| {
                check_metadata(&what, &meta)
            })
        }
        Op::IsText(spec) => {
            let p = parsed!(spec);
            check(&what, ws.is_text(&p), |_| Ok(()))
        }
        Op::OpenFile(spec) => {
            let p = parsed!(spec);
            check(&what, ws.open_file(&p), |mut file| {
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes).unwrap();
                check_bytes(&what, &bytes)?;
                let meta = file.metadata().unwrap();
                prop_assert!(
                    meta.permissions().mode() & 0o111 == 0,
                    "{what} opened a file outside the root"
                );
                Ok(())
            })
        }
        Op::Write(spec) => {
            let p = parsed!(spec);
            check(&what, ws.write(&p, WRITTEN), |_| Ok(()))
        }
        Op::CreateNew(spec) => {
            let p = parsed!(spec);
            check(&what, ws.create_new(&p, WRITTEN), |_| Ok(()))
        }
        Op::Append(spec) => {
            let p = parsed!(spec);
            check(&what, ws.append(&p, WRITTEN), |_| Ok(()))
        }
        Op::CreateDirAll(spec) => {
            let p = parsed!(spec);
            check(&what, ws.create_dir_all(&p), |()| Ok(()))
        }
        Op::Rename(from, to, overwrite) => {
            let from = parsed!(from);
            let to = parsed!(to);
            check(&what, ws.rename(&from, &to, *overwrite), |()| Ok(()))
        }
        Op::Remove(spec, recursive) => {
            let p = parsed!(spec);
            check(&what, ws.remove(&p, *recursive), |_| Ok(()))
        }
        Op::Walk(spec, hidden) => {
            let p = parsed!(spec);
            let mut options = WalkOptions::new(p);
            options.include_hidden = *hidden;
            options.respect_ignore_files = !*hidden;
            check(&what, ws.walk(&options), |walk| {
                for entry in &walk.entries {
                    check_listed(fx, &what, &entry.path)?;
                }
                Ok(())
            })
        }
        Op::Suggest(spec) => {
            let p = parsed!(spec);
            for found in ws.suggest(&p, 8) {
                check_listed(fx, &what, &found)?;
            }
            Ok(())
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        max_shrink_iters: 2048,
        ..ProptestConfig::default()
    })]

    /// Whatever the tree, the path and the operation: the outside is
    /// unchanged, nothing new appears beside the root, no secret comes back
    /// and nothing outside is listed.
    #[test]
    fn operations_never_reach_outside_the_root(
        tree in tree(),
        ops in proptest::collection::vec(op(), 1..=4),
    ) {
        let fx = build(&tree);
        let base = fx.root.parent().unwrap().to_path_buf();
        let outside_before = fx.outside_snapshot();
        let beside_before = tree_snapshot(&base, Some(&fx.root));
        for op in &ops {
            run(&fx, op)?;
            prop_assert_eq!(
                &fx.outside_snapshot(),
                &outside_before,
                "{:?} changed the outside directory",
                op
            );
            prop_assert_eq!(
                &tree_snapshot(&base, Some(&fx.root)),
                &beside_before,
                "{:?} changed something beside the root",
                op
            );
            let root_meta = fs::symlink_metadata(&fx.root).unwrap();
            prop_assert!(root_meta.is_dir(), "{:?} replaced the root", op);
        }
    }
}

/// Components for parse-only path strings: the tree's names plus odd ones.
const PARSE_COMPONENTS: &[&str] = &[
    "a",
    "b",
    "..",
    ".",
    "",
    "...",
    ".a",
    "a.",
    "~",
    "\\",
    " ",
    "é",
    "x.txt",
    "outside",
    "wsroot",
    "secret.txt",
];

fn parse_input() -> impl Strategy<Value = (Prefix, Vec<&'static str>, bool)> {
    let prefix = prop_oneof![
        6 => Just(Prefix::Relative),
        1 => Just(Prefix::Slash),
        3 => Just(Prefix::AbsRoot),
        1 => Just(Prefix::AbsOutside),
        1 => Just(Prefix::AbsBase),
    ];
    (
        prefix,
        proptest::collection::vec(select(PARSE_COMPONENTS), 0..=7),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A parsed path of a confined workspace always lies under the root, is
    /// normal, and parses back to itself from its text and its host path.
    #[test]
    fn parsed_paths_stay_inside_and_reparse_equal(
        (prefix, components, trailing_slash) in parse_input(),
    ) {
        let fx = Fixture::new();
        let spec = PathSpec { prefix, head: None, components: components.clone(), trailing_slash };
        let input = spec.render(&fx);
        match fx.ws.path(&input) {
            Ok(p) => {
                let host = fx.ws.host_path(&p);
                prop_assert!(
                    host.starts_with(&fx.root),
                    "{:?} parsed to {} at {}",
                    input, p.display(), host.display()
                );
                prop_assert!(p.as_path().is_relative(), "{:?} -> {}", input, p.display());
                prop_assert!(
                    p.as_path().components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)),
                    "{:?} -> {} is not normal", input, p.display()
                );
                prop_assert_eq!(p.is_root(), host == fx.root);
                let again = fx.ws.path(p.to_text());
                prop_assert!(again.is_ok(), "{:?}: reparsing {:?} failed: {:?}", input, p.to_text(), again);
                prop_assert_eq!(again.unwrap(), p.clone());
                let from_host = fx.ws.path(&host);
                prop_assert!(from_host.is_ok(), "{:?}: host path {} failed: {:?}", input, host.display(), from_host);
                prop_assert_eq!(from_host.unwrap(), p);
            }
            Err(err) => {
                // Only climbing out or leaving by an absolute path may be
                // refused; a relative path without `..` never is.
                let plain_relative = !input.starts_with('/') && !components.contains(&"..");
                prop_assert!(!plain_relative, "{:?} refused: {}", input, err);
                prop_assert!(err.is_escape(), "{:?} refused for the wrong reason: {}", input, err);
            }
        }
    }
}

/// Walks the root and asks for suggestions near `x.txx`; true when both
/// still see `x.txt`, i.e. no ignore rule hid it.
fn sees_x_txt(fx: &Fixture) -> (bool, Vec<String>, Vec<String>) {
    let walk = fx.ws.walk(&WalkOptions::new(fx.ws.root_path())).unwrap();
    let walked: Vec<String> = walk.entries.iter().map(|e| e.path.to_text()).collect();
    let missing = fx.ws.path("x.txx").unwrap();
    let suggested: Vec<String> = fx
        .ws
        .suggest(&missing, 5)
        .iter()
        .map(WorkspacePath::to_text)
        .collect();
    let seen = walked.iter().any(|p| p == "x.txt") && suggested.iter().any(|p| p == "x.txt");
    (seen, walked, suggested)
}

/// A named way of planting ignore rules.
type Scenario<'a> = (&'a str, &'a dyn Fn(&Fixture));

/// Runs each scenario on a fresh fixture holding `x.txt` and `keep.txt`,
/// with ignore rules naming `x.txt` available only outside the root, and
/// returns the scenarios in which the rules took effect.
fn scenarios_reading_outside(scenarios: &[Scenario<'_>]) -> Vec<String> {
    let mut leaked = Vec::new();
    for (name, plant) in scenarios {
        let fx = Fixture::new();
        fx.file("x.txt", "x\n").file("keep.txt", "keep\n");
        fs::write(fx.outside.join("rules"), "x.txt\n").unwrap();
        fs::create_dir_all(fx.outside.join("gitdir/info")).unwrap();
        fs::write(fx.outside.join("gitdir/info/exclude"), "x.txt\n").unwrap();
        let (control, walked, _) = sees_x_txt(&fx);
        assert!(
            control,
            "{name}: x.txt hidden before planting anything: {walked:?}"
        );
        plant(&fx);
        let (seen, walked, suggested) = sees_x_txt(&fx);
        if !seen {
            leaked.push(format!("{name}: walk {walked:?}, suggest {suggested:?}"));
        }
    }
    leaked
}

/// An ignore file (or `.git`) inside the root that is a symlink leading out
/// must not be followed: its rules live outside the root.
#[test]
fn walk_does_not_follow_ignore_file_links_out_of_the_root() {
    let leaked = scenarios_reading_outside(&[
        (".gitignore -> ../outside/rules", &|fx: &Fixture| {
            fx.link(".gitignore", "../outside/rules");
        }),
        (".ignore -> /abs/outside/rules", &|fx: &Fixture| {
            fx.link(".ignore", fx.outside.join("rules"));
        }),
        (".git -> ../outside/gitdir", &|fx: &Fixture| {
            fx.link(".git", "../outside/gitdir");
        }),
    ]);
    assert!(
        leaked.is_empty(),
        "rules read from outside the root: {leaked:#?}"
    );
}

/// Ignore files in the directories above the root are outside the root and
/// must not be read either.
#[test]
fn walk_does_not_read_ignore_files_above_the_root() {
    let leaked = scenarios_reading_outside(&[
        ("../.gitignore", &|fx: &Fixture| {
            fs::write(fx.root.parent().unwrap().join(".gitignore"), "x.txt\n").unwrap();
        }),
        ("../.ignore", &|fx: &Fixture| {
            fs::write(fx.root.parent().unwrap().join(".ignore"), "x.txt\n").unwrap();
        }),
        ("../.git/info/exclude", &|fx: &Fixture| {
            let git = fx.root.parent().unwrap().join(".git/info");
            fs::create_dir_all(&git).unwrap();
            fs::write(git.join("exclude"), "x.txt\n").unwrap();
        }),
    ]);
    assert!(
        leaked.is_empty(),
        "rules read from above the root: {leaked:#?}"
    );
}
