//! Where a hunk's lines occur in a file: each line's hash, the lines
//! ordered by hash, and prefix hashes of the whole text, built once per
//! `apply` call. Placing a hunk then costs about its own length plus the
//! candidate starts it checks in O(1) each, never file lines × hunk lines;
//! every step is charged to a [`Work`] budget so that no input can make the
//! matcher run for long.

use std::cell::OnceCell;
use std::cmp::Reverse;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hasher};
use std::ops::Range;

/// Units of work (a line compared, hashed, looked up or voted for, or a
/// candidate start checked) one `apply` call may spend locating its hunks.
/// A hunk with a rare line costs about three units per hunk line; one of
/// only common lines that matches nowhere about two per file line. So files
/// of a million lines fit, while many hunks of common lines with misleading
/// line numbers, each searched across the file, are stopped early.
pub(super) const WORK_BUDGET: u64 = 4_000_000;

/// A hunk line found more often than this says little about where the hunk
/// is (blank lines, lone braces), so the nearest-lines search skips it.
const UNINFORMATIVE: usize = 64;

/// Starts with the most votes that the nearest-lines search scores exactly.
const SCORED: usize = 8;

/// The Mersenne prime 2^61 - 1: window hashes are polynomials modulo it,
/// which has no structured collisions like those of arithmetic mod 2^64.
const MODULUS: u64 = (1 << 61) - 1;
/// The polynomial's base: any fixed number below the modulus.
const BASE: u64 = 0x0b5e_c3a1_7d29_e64f % MODULUS;

/// How a hunk's old side was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tier {
    Exact,
    IgnoringTrailingWhitespace,
}

impl Tier {
    /// The part of a line this tier compares.
    fn key(self, text: &str) -> &str {
        match self {
            Self::Exact => text,
            Self::IgnoringTrailingWhitespace => text.trim_end(),
        }
    }

    pub(super) fn same(self, file: &str, hunk: &str) -> bool {
        self.key(file) == self.key(hunk)
    }
}

/// The work spent so far, and how much may be spent.
#[derive(Debug)]
pub(crate) struct Work {
    spent: u64,
    limit: u64,
}

/// The budget ran out before the hunk was placed.
#[derive(Debug)]
pub(super) struct OverBudget;

impl Work {
    pub(super) fn new(limit: u64) -> Self {
        Self { spent: 0, limit }
    }

    /// Units spent so far.
    #[cfg(test)]
    pub(super) fn spent(&self) -> u64 {
        self.spent
    }

    fn charge(&mut self, units: usize) -> Result<(), OverBudget> {
        self.spent = self.spent.saturating_add(units as u64);
        if self.spent > self.limit {
            Err(OverBudget)
        } else {
            Ok(())
        }
    }
}

/// Line numbers grouped by the hash of one key of each line.
struct Table {
    /// `(hash, line number)`, sorted: each hash's lines are one ascending run.
    sorted: Vec<(u64, usize)>,
}

impl Table {
    fn new(hashes: &[u64]) -> Self {
        let mut sorted: Vec<(u64, usize)> = hashes.iter().copied().zip(0..).collect();
        sorted.sort_unstable();
        Self { sorted }
    }

    /// The lines whose key hashes to `hash`, ascending (a collision may add
    /// a line with another key: callers compare the text).
    fn lines(&self, hash: u64) -> impl ExactSizeIterator<Item = usize> {
        let lo = self.sorted.partition_point(|&(h, _)| h < hash);
        let hi = self.sorted.partition_point(|&(h, _)| h <= hash);
        self.sorted
            .get(lo..hi)
            .unwrap_or_default()
            .iter()
            .map(|&(_, at)| at)
    }

    /// Those of [`Self::lines`] in `lo..=hi`.
    fn lines_within(&self, hash: u64, lo: usize, hi: usize) -> &[(u64, usize)] {
        let from = self.sorted.partition_point(|&entry| entry < (hash, lo));
        let to = self
            .sorted
            .partition_point(|&entry| entry <= (hash, hi))
            .max(from);
        self.sorted.get(from..to).unwrap_or_default()
    }
}

/// One tier's table and the prefix hashes of the file under that tier.
struct Tiered {
    table: Table,
    /// `prefix[i]` hashes lines `..i`, so any window hashes in O(1).
    prefix: Vec<u64>,
}

impl Tiered {
    fn new(lines: &[&str], tier: Tier) -> Self {
        let hashes: Vec<u64> = lines.iter().map(|l| line_hash(tier.key(l))).collect();
        let mut prefix = Vec::with_capacity(hashes.len() + 1);
        let mut acc = 0;
        prefix.push(acc);
        for &hash in &hashes {
            acc = add(mul(acc, BASE), hash % MODULUS);
            prefix.push(acc);
        }
        Self {
            table: Table::new(&hashes),
            prefix,
        }
    }

    /// The hash of lines `at..at + len`, given `shift` = BASE^len.
    fn window(&self, at: usize, len: usize, shift: u64) -> Option<u64> {
        let end = *self.prefix.get(at + len)?;
        let start = *self.prefix.get(at)?;
        Some(sub(end, mul(start, shift)))
    }
}

/// A file's lines with their tables, each built the first time it is needed.
pub(super) struct Index<'d> {
    lines: Vec<&'d str>,
    exact: OnceCell<Tiered>,
    lenient: OnceCell<Tiered>,
    /// Keyed by `trim()`: for `@@` anchors and the nearest-lines search.
    trimmed: OnceCell<Table>,
}

/// Which of the matching starts a search wants.
#[derive(Debug, Clone, Copy)]
pub(super) enum Prefer {
    /// The first at or after `from`.
    First,
    /// The one closest to this line (the lower of two equally close).
    Closest(usize),
    /// Only the one that ends at the end of the file.
    AtEnd,
}

impl<'d> Index<'d> {
    pub(super) fn new(lines: Vec<&'d str>) -> Self {
        Self {
            lines,
            exact: OnceCell::new(),
            lenient: OnceCell::new(),
            trimmed: OnceCell::new(),
        }
    }

    /// Number of lines.
    pub(super) fn len(&self) -> usize {
        self.lines.len()
    }

    /// Lines `at..at + len`, or as many of them as exist.
    pub(super) fn window(&self, at: usize, len: usize) -> &[&'d str] {
        let end = (at + len).min(self.lines.len());
        self.lines.get(at..end).unwrap_or_default()
    }

    fn tiered(&self, tier: Tier) -> &Tiered {
        let cell = match tier {
            Tier::Exact => &self.exact,
            Tier::IgnoringTrailingWhitespace => &self.lenient,
        };
        cell.get_or_init(|| Tiered::new(&self.lines, tier))
    }

    fn trimmed(&self) -> &Table {
        self.trimmed.get_or_init(|| {
            let hashes: Vec<u64> = self.lines.iter().map(|l| line_hash(l.trim())).collect();
            Table::new(&hashes)
        })
    }

    /// Where `old` (not empty) matches under `tier`, starting within
    /// `starts`, as `prefer` says.
    ///
    /// Candidate starts come from the positions of the hunk's rarest line;
    /// each is checked by its window hash, and only a hash match is compared
    /// line by line, so a file of identical lines costs one comparison of
    /// the hunk, not one per start.
    pub(super) fn find(
        &self,
        tier: Tier,
        old: &[&str],
        starts: Range<usize>,
        prefer: Prefer,
        work: &mut Work,
    ) -> Result<Option<usize>, OverBudget> {
        let Some(end) = self.lines.len().checked_sub(old.len()) else {
            return Ok(None);
        };
        let from = starts.start;
        let last = end.min(starts.end.saturating_sub(1));
        if starts.is_empty() || from > last || old.is_empty() {
            return Ok(None);
        }
        let tiered = self.tiered(tier);
        work.charge(old.len())?;
        let hashes: Vec<u64> = old.iter().map(|l| line_hash(tier.key(l))).collect();
        let target = hashes
            .iter()
            .fold(0, |acc, &hash| add(mul(acc, BASE), hash % MODULUS));
        let shift = power(BASE, old.len());
        let check = |at: usize, work: &mut Work| -> Result<bool, OverBudget> {
            work.charge(1)?;
            if tiered.window(at, old.len(), shift) != Some(target) {
                return Ok(false);
            }
            work.charge(old.len())?;
            let window = self.lines.get(at..at + old.len()).unwrap_or_default();
            Ok(window.len() == old.len() && window.iter().zip(old).all(|(l, h)| tier.same(l, h)))
        };
        if let Prefer::AtEnd = prefer {
            return Ok((last == end && check(end, work)?).then_some(end));
        }
        // The rarest line gives the fewest starts to check.
        let mut rarest = (usize::MAX, 0);
        for (offset, &hash) in hashes.iter().enumerate() {
            work.charge(1)?;
            let count = tiered.table.lines(hash).len();
            if count < rarest.0 {
                rarest = (count, offset);
            }
        }
        let (_, offset) = rarest;
        let Some(&hash) = hashes.get(offset) else {
            return Ok(None);
        };
        // The occurrences of that line, in order, each naming a start.
        let found = tiered
            .table
            .lines_within(hash, from + offset, last + offset);
        let start = |&(_, line): &(u64, usize)| line - offset;
        match prefer {
            Prefer::First | Prefer::AtEnd => {
                for at in found.iter().map(start) {
                    if check(at, work)? {
                        return Ok(Some(at));
                    }
                }
            }
            Prefer::Closest(hint) => {
                // Outward from the hint: the first match is the closest.
                let split = found.partition_point(|entry| start(entry) < hint);
                let (below, above) = found.split_at(split);
                let mut below = below.iter().rev().map(start).peekable();
                let mut above = above.iter().map(start).peekable();
                loop {
                    let at = match (below.peek(), above.peek()) {
                        (Some(&b), Some(&a)) if hint - b <= a - hint => below.next(),
                        (_, Some(_)) => above.next(),
                        (Some(_), None) => below.next(),
                        (None, None) => return Ok(None),
                    };
                    if let Some(at) = at
                        && check(at, work)?
                    {
                        return Ok(Some(at));
                    }
                }
            }
        }
        Ok(None)
    }

    /// Whether `old` is exactly the file's lines from `at`, compared line
    /// by line (no table is built).
    pub(super) fn matches_at(
        &self,
        old: &[&str],
        at: usize,
        work: &mut Work,
    ) -> Result<bool, OverBudget> {
        let Some(window) = self.lines.get(at..).and_then(|rest| rest.get(..old.len())) else {
            return Ok(false);
        };
        // Charged for the lines compared: a wrong place costs one.
        let same = window.iter().zip(old).take_while(|(l, h)| l == h).count();
        work.charge((same + 1).min(old.len()))?;
        Ok(same == old.len())
    }

    /// The first line at or after `from` that is `anchor`, else the first
    /// whose trimmed text is.
    pub(super) fn anchor(
        &self,
        anchor: &str,
        from: usize,
        work: &mut Work,
    ) -> Result<Option<usize>, OverBudget> {
        let hash = line_hash(anchor);
        let exact = self.tiered(Tier::Exact);
        for &(_, at) in exact.table.lines_within(hash, from, usize::MAX) {
            work.charge(1)?;
            if self.lines.get(at) == Some(&anchor) {
                return Ok(Some(at));
            }
        }
        for &(_, at) in self.trimmed().lines_within(hash, from, usize::MAX) {
            work.charge(1)?;
            if self.lines.get(at).is_some_and(|l| l.trim() == anchor) {
                return Ok(Some(at));
            }
        }
        Ok(None)
    }

    /// How many of `old`'s first lines equal the file's from `at`,
    /// ignoring surrounding whitespace.
    pub(super) fn score(&self, at: usize, old: &[&str]) -> usize {
        self.lines
            .get(at..)
            .unwrap_or_default()
            .iter()
            .zip(old)
            .filter(|(l, h)| l.trim() == h.trim())
            .count()
    }

    /// The start of the window of `span` lines most like `old` (most lines
    /// equal ignoring surrounding whitespace, then closest to `target`, the
    /// later of two equally close), with its score.
    ///
    /// Each informative hunk line votes for the starts its occurrences
    /// imply; only the best-voted starts and the one at `target` are scored
    /// exactly. When every hunk line is informative the votes are the
    /// scores, so this finds the best window of all.
    pub(super) fn nearest(
        &self,
        old: &[&str],
        span: usize,
        target: usize,
        work: &mut Work,
    ) -> Result<Option<(usize, usize)>, OverBudget> {
        let Some(last) = self.lines.len().checked_sub(span) else {
            return Ok(None);
        };
        let table = self.trimmed();
        let mut votes: HashMap<usize, usize> = HashMap::new();
        for (offset, hunk) in old.iter().take(span).enumerate() {
            work.charge(1)?;
            let hunk = hunk.trim();
            let found = table.lines(line_hash(hunk));
            if found.len() > UNINFORMATIVE {
                continue;
            }
            work.charge(found.len())?;
            for line in found {
                let Some(at) = line.checked_sub(offset).filter(|&at| at <= last) else {
                    continue;
                };
                if self.lines.get(line).is_some_and(|l| l.trim() == hunk) {
                    *votes.entry(at).or_default() += 1;
                }
            }
        }
        let distance = |at: usize| at.abs_diff(target);
        let mut ranked: Vec<(usize, usize)> = votes.into_iter().collect();
        ranked.sort_unstable_by_key(|&(at, count)| (Reverse(count), distance(at), Reverse(at)));
        let mut candidates: Vec<usize> = ranked.iter().take(SCORED).map(|&(at, _)| at).collect();
        candidates.push(target.min(last));
        let mut best: Option<(usize, usize)> = None;
        for at in candidates {
            work.charge(span)?;
            let score = self.score(at, old.get(..span).unwrap_or_default());
            let better = best.is_none_or(|(best_at, best_score)| {
                (score, Reverse(distance(at)), at)
                    > (best_score, Reverse(distance(best_at)), best_at)
            });
            if better {
                best = Some((at, score));
            }
        }
        Ok(best)
    }
}

/// A line's hash: fixed keys, so a file hashes the same in every run.
fn line_hash(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    hasher.write(text.as_bytes());
    hasher.finish()
}

fn add(a: u64, b: u64) -> u64 {
    let sum = a + b;
    if sum >= MODULUS { sum - MODULUS } else { sum }
}

fn sub(a: u64, b: u64) -> u64 {
    add(a, MODULUS - b)
}

/// `a * b` modulo 2^61 - 1, for `a, b` below it: the high bits fold onto
/// the low ones because 2^61 is 1 modulo the prime.
fn mul(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    let low = (product as u64) & MODULUS;
    let high = (product >> 61) as u64;
    add(low, high)
}

fn power(mut base: u64, mut exponent: usize) -> u64 {
    let mut result = 1;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = mul(result, base);
        }
        base = mul(base, base);
        exponent >>= 1;
    }
    result
}
