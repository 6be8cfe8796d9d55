//! Key material beyond PEM private keys: OpenVPN static keys, SSH2
//! (RFC 4716) private keys, and wallet keys — BIP-32 extended private keys,
//! hex and WIF private keys under a wallet-ish name, BIP-39 seed phrases.
//!
//! A 64-digit hex string alone is as often a SHA-256 digest as a key, and
//! twelve words are as often prose as a seed phrase: those need a name
//! that says what they are (`PRIVATE_KEY=`, `mnemonic:`), and a seed
//! phrase's words must all come from the BIP-39 English wordlist.

use crate::checks;
use crate::shape::{Scope, Shape};

use Scope::{Anywhere, Value};

/// A name that marks a wallet key or seed (at a word's start or after
/// `_`) before `=`, `:`, `=>` or a call's `(` (`Wallet("0x…")`,
/// `from_mnemonic("…")`), with an optional quote around the name and the
/// value.
macro_rules! named {
    ($names:literal, $value:literal) => {
        named!($names, "", $value)
    };
    ($names:literal, $suffixes:literal, $value:literal) => {
        concat!(
            r#"(?i)(?:(?-u:\b|_)(?:"#,
            $names,
            r#")[A-Za-z0-9_.-]*"#,
            $suffixes,
            r#")["'`\]]?\s*(?::=|=>|=|:|\()\s*[\[(]?\s*[bru]?["'`]?(?-i:"#,
            $value,
            r#")"#
        )
    };
}

pub(super) const KEYS: &[Shape] = &[
    Shape::new(
        "openvpn-static-key",
        Anywhere,
        r"-----BEGIN OpenVPN Static key",
        &["OpenVPN Static key"],
        concat!("-----BEGIN OpenVPN ", "Static key V1-----"),
    ),
    Shape::new(
        "ssh2-private-key",
        Anywhere,
        r"-{4,5} ?BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY",
        &["BEGIN SSH2"],
        concat!("---- BEGIN SSH2 ", "ENCRYPTED PRIVATE KEY ----"),
    ),
    // BIP-32 extended private keys (mainnet, testnet, SegWit variants).
    Shape::new(
        "bip32-private-key",
        Anywhere,
        delimited!(r"[xtyzuv]prv[1-9A-HJ-NP-Za-km-z]{100,112}"),
        &["xprv", "tprv", "yprv", "zprv", "uprv", "vprv"],
        concat!(
            "xprv",
            "9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"
        ),
    ),
    // A wallet's private key under a wallet-ish name: 64 hex digits
    // (Ethereum and friends, `0x` or not) or a WIF key (Bitcoin: 51 or 52
    // Base58 characters). Other names (`ETH_KEY=`) are the audit's name
    // heuristics' to judge.
    Shape::new(
        "wallet-private-key",
        Anywhere,
        named!(
            r"priv(?:ate)?[_-]?key|wallet|signer|deployer|mnemonic|wif",
            // `ETH_PK=`, `DEPLOYER_PK:` (a bare `pk` is as often a primary key).
            r"|[A-Za-z0-9]+_pk",
            r"(?:0x)?([a-fA-F0-9]{64}|[59][1-9A-HJ-NP-Za-km-z]{50}|[KLc][1-9A-HJ-NP-Za-km-z]{51})(?:[^A-Za-z0-9]|$)"
        ),
        &[
            "privkey",
            "privatekey",
            "private_key",
            "private-key",
            "priv_key",
            "priv-key",
            "wallet",
            "signer",
            "deployer",
            "mnemonic",
            "wif",
            "_pk",
        ],
        concat!(
            "DEPLOYER_PRIVATE_KEY=0x",
            "4c0883a69102937d6231471b5dbb6204fe512961708279f2e3e8a5d4b8e3e1b2"
        ),
    ),
    // A WIF key as a value of its own (an environment variable).
    Shape::new(
        "wallet-private-key",
        Value,
        r"^\s*(?:[59][1-9A-HJ-NP-Za-km-z]{50}|[KLc][1-9A-HJ-NP-Za-km-z]{51})\s*$",
        &[],
        concat!("5HueCGU8rMjxEXxiPuD5BDku", "4MkFqeZyd4dZ1jvhTVqvbTLvyTJ"),
    ),
    // A BIP-39 seed phrase under a seed-ish name: 12 to 24 words, every
    // one from the English wordlist.
    Shape::new(
        "seed-phrase",
        Anywhere,
        named!(
            r"mnemonic|seed|phrase|recovery|secret[_ -]?words|backup[_ -]?words",
            r"((?:[a-z]{3,8}[ \t,]+){11,23}[a-z]{3,8})"
        ),
        &["mnemonic", "seed", "phrase", "recovery", "words"],
        concat!(
            "mnemonic: \"legal winner thank year wave ",
            "sausage worth useful legal winner thank yellow\""
        ),
    )
    .with_check(checks::seed_phrase),
    // A seed phrase as a value of its own.
    Shape::new(
        "seed-phrase",
        Value,
        r"^\s*((?:[a-z]{3,8}\s+){11,23}[a-z]{3,8})\s*$",
        &[],
        concat!(
            "letter advice cage absurd amount doctor ",
            "acoustic avoid letter advice cage above"
        ),
    )
    .with_check(checks::seed_phrase),
];
