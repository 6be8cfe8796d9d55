//! The fuzz driver every crate's fuzz targets share (each test binary
//! includes this file by `#[path]`): proptest's runner over a target's
//! generator, a few hundred fixed-seed cases in the ordinary test suite, and
//! fresh seeds batch after batch until a deadline under `cargo xtask fuzz`
//! (which sets [`SECONDS_VAR`]). A failure panics with proptest's minimized
//! input, ready to be pasted into a regression test. Also the byte-level
//! mutators that turn a seed corpus into inputs (`mutated`, `mutated_text`).

#![allow(dead_code, reason = "each test binary uses the part it needs")]

use std::fmt::Debug;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};

/// Set by `cargo xtask fuzz TARGET --time N`: fuzz for N seconds.
pub const SECONDS_VAR: &str = "OY_FUZZ_SECONDS";

/// Cases per fresh seed while fuzzing: the deadline is checked between
/// batches, so a batch stays well under a second on the slower targets.
const BATCH: u32 = 64;

/// One case taking longer than this is a failure ("never hang"): every
/// target's work is bounded, and a case here takes milliseconds.
const CASE_LIMIT: Duration = Duration::from_secs(20);

/// Runs `test` on inputs from `strategy`: `default_cases` fixed-seed cases
/// (the same ones on every run, so the suite is reproducible), or fresh
/// seeds until [`SECONDS_VAR`]'s deadline. Panics with the minimized input
/// on the first failure; a panic inside `test` is a failure too.
pub fn fuzz<S>(
    name: &str,
    default_cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S: Strategy,
    S::Value: Debug,
{
    let timed = |value: S::Value| {
        let started = Instant::now();
        test(value)?;
        let took = started.elapsed();
        prop_assert!(took < CASE_LIMIT, "one case took {took:?}");
        Ok(())
    };
    let Some(seconds) = std::env::var(SECONDS_VAR)
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
    else {
        let mut runner = TestRunner::new_with_rng(
            config(default_cases),
            TestRng::deterministic_rng(RngAlgorithm::ChaCha),
        );
        if let Err(error) = runner.run(&strategy, timed) {
            panic!("fuzz {name}: {}", describe(&error));
        }
        return;
    };
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let mut cases: u64 = 0;
    while Instant::now() < deadline {
        let seed = fresh_seed(cases);
        let mut runner = TestRunner::new_with_rng(
            config(BATCH),
            TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
        );
        if let Err(error) = runner.run(&strategy, timed) {
            panic!(
                "fuzz {name}: failed after {cases} passing cases (seed {}): {}",
                hex(&seed),
                describe(&error)
            );
        }
        cases += u64::from(BATCH);
    }
    report(name, cases, started.elapsed());
}

#[expect(clippy::print_stderr, reason = "the count `cargo xtask fuzz` reports")]
fn report(name: &str, cases: u64, took: Duration) {
    eprintln!(
        "fuzz {name}: {cases} cases in {:.1} s, no failure",
        took.as_secs_f64()
    );
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 20_000,
        max_shrink_time: 60_000,
        ..Config::default()
    }
}

fn describe<T: Debug>(error: &TestError<T>) -> String {
    match error {
        TestError::Abort(why) => format!("aborted: {why}"),
        TestError::Fail(why, input) => format!("{why}\nminimal failing input: {input:?}"),
    }
}

/// 32 bytes no earlier batch used: the clock and a counter through the
/// std hasher's per-process random keys.
fn fresh_seed(counter: u64) -> [u8; 32] {
    use std::hash::{BuildHasher, Hasher};
    let state = std::collections::hash_map::RandomState::new();
    let mut seed = [0; 32];
    for (lane, chunk) in seed.chunks_mut(8).enumerate() {
        let mut hasher = state.build_hasher();
        hasher.write_u64(counter);
        hasher.write_usize(lane);
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_nanos()),
        );
        chunk.copy_from_slice(&hasher.finish().to_le_bytes());
    }
    seed
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Bytes that print as a byte string (`b"a/\xff"`), so a minimized
/// input can be pasted into a regression test as it is.
#[derive(Clone, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("b\"")?;
        for &byte in &self.0 {
            write!(f, "{}", std::ascii::escape_default(byte))?;
        }
        f.write_str("\"")
    }
}

/// One edit of a seed: positions are fractions of the current length, so
/// they shrink toward the start and stay valid after earlier edits.
#[derive(Debug, Clone)]
enum Edit {
    /// Insert a dictionary token.
    Token(Index, Index),
    /// Insert one arbitrary byte.
    Byte(Index, u8),
    /// Remove a range of up to 16 bytes.
    Remove(Index, usize),
    /// Copy a range of up to 64 bytes to another place.
    Copy(Index, usize, Index),
    /// Overwrite one byte with a bit flipped.
    Flip(Index, u8),
    /// Cut everything after a point.
    Truncate(Index),
    /// Repeat a range of up to 32 bytes up to 64 times.
    Repeat(Index, usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<Index>(), any::<Index>()).prop_map(|(at, token)| Edit::Token(at, token)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(at, byte)| Edit::Byte(at, byte)),
        2 => (any::<Index>(), 1..16usize).prop_map(|(at, len)| Edit::Remove(at, len)),
        1 => (any::<Index>(), 1..64usize, any::<Index>())
            .prop_map(|(from, len, to)| Edit::Copy(from, len, to)),
        2 => (any::<Index>(), 0..8u8).prop_map(|(at, bit)| Edit::Flip(at, bit)),
        1 => any::<Index>().prop_map(Edit::Truncate),
        1 => (any::<Index>(), 1..32usize, 1..64usize)
            .prop_map(|(at, len, times)| Edit::Repeat(at, len, times)),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit], dictionary: &[&[u8]]) -> Vec<u8> {
    let spot = |index: &Index, len: usize| index.index(len + 1);
    for edit in edits {
        let len = bytes.len();
        match edit {
            Edit::Token(at, token) => {
                if !dictionary.is_empty() {
                    let token = dictionary[token.index(dictionary.len())];
                    let at = spot(at, len);
                    bytes.splice(at..at, token.iter().copied());
                }
            }
            Edit::Byte(at, byte) => bytes.insert(spot(at, len), *byte),
            Edit::Remove(at, n) => {
                let at = spot(at, len);
                bytes.drain(at..(at + n).min(len));
            }
            Edit::Copy(from, n, to) => {
                let from = spot(from, len);
                let piece = bytes[from..(from + n).min(len)].to_vec();
                let to = spot(to, len);
                bytes.splice(to..to, piece);
            }
            Edit::Flip(at, bit) => {
                if len > 0 {
                    let at = at.index(len);
                    bytes[at] ^= 1 << bit;
                }
            }
            Edit::Truncate(at) => bytes.truncate(spot(at, len)),
            Edit::Repeat(at, n, times) => {
                let at = spot(at, len);
                let piece = bytes[at..(at + n).min(len)].to_vec();
                for _ in 0..*times {
                    bytes.splice(at..at, piece.iter().copied());
                }
            }
        }
    }
    bytes
}

/// A seed from `seeds` with up to `max_edits` byte-level edits: inserted
/// `dictionary` tokens, arbitrary bytes, removals, copies, bit flips,
/// truncations and repetitions.
pub fn mutated(
    seeds: Vec<Vec<u8>>,
    dictionary: &'static [&'static str],
    max_edits: usize,
) -> impl Strategy<Value = Vec<u8>> {
    let tokens: Vec<&'static [u8]> = dictionary.iter().map(|token| token.as_bytes()).collect();
    (select(seeds), prop::collection::vec(edit(), 0..=max_edits))
        .prop_map(move |(seed, edits)| apply(seed, &edits, &tokens))
}

/// [`mutated`] as text: invalid UTF-8 becomes U+FFFD, as a lossy reader
/// would make it (the loaders take `&str`).
pub fn mutated_text(
    seeds: &'static [&'static str],
    dictionary: &'static [&'static str],
    max_edits: usize,
) -> impl Strategy<Value = String> {
    let seeds = seeds.iter().map(|seed| seed.as_bytes().to_vec()).collect();
    mutated(seeds, dictionary, max_edits)
        .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}
