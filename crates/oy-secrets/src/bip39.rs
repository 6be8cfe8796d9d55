//! The BIP-39 English wordlist (`rules/bip39-english.txt`, MIT; see
//! `rules/THIRD_PARTY.md`): the 2048 words a seed phrase is made of, read
//! into a set on first use.

use std::collections::HashSet;
use std::sync::LazyLock;

/// The wordlist, one word a line, as published.
const WORDLIST: &str = include_str!("../rules/bip39-english.txt");

/// True when `word` is one of the 2048 words.
pub(crate) fn is_word(word: &str) -> bool {
    static WORDS: LazyLock<HashSet<&'static str>> =
        LazyLock::new(|| WORDLIST.lines().map(str::trim).collect());
    WORDS.contains(word)
}
