//! Secret names: the words, fragments and whole names that mark what a
//! variable or a field holds as a credential or a password.
//!
//! A name is split into words before it is judged: on every character that
//! is not an ASCII letter or digit, and at camelCase humps, so
//! `awsSecretAccessKey`, `AWS_SECRET_ACCESS_KEY` and `aws.secret-access-key`
//! all read AWS SECRET ACCESS KEY. Every rule marks a name at one of three
//! strengths ([`Mark`]); the strongest mark any rule gives is what the name
//! says. The rules never look at a value: a harmless name holding a token is
//! the business of the value shapes.

/// How strongly a rule marks a name, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mark {
    /// A secret word inside a longer word (`hotkey`, `xauthority`,
    /// `tokenizers`): what the name holds is worth judging, but the name
    /// alone proves nothing.
    Mention,
    /// A credential (`API_KEY`, `GH_TOKEN`, `SESSION`, `DATABASE_URL`):
    /// whatever the name holds counts as one.
    Credential,
    /// A password or a secret: a value needs no randomness to be one
    /// (`DB_PASSWORD=hunter2`).
    Password,
}

/// Where a rule's text must sit in a word.
#[derive(Clone, Copy)]
enum At {
    /// Anywhere in the word, so run-together names count (`GHTOKEN`,
    /// `PGPASSWORD`, `SQLCONNSTR_main`, `TS_AUTHKEY`).
    Inside,
    /// At the end of the word, trailing digits ignored (`DBPASS`,
    /// `SENTRYDSN`, `PASS2`).
    End,
    /// The whole word, trailing digits ignored (`KEY2`): too short to look
    /// for inside other words, or `KEYBOARD_LAYOUT`, `PASSENGER_ENV`,
    /// `GIT_AUTHOR_NAME` and `PATH` would count.
    Word,
}

/// One word rule: `text` at `at` marks the name `mark`, except in the
/// words of `unless`, which hold the text but name something harmless.
struct Rule {
    text: &'static str,
    at: At,
    mark: Mark,
    unless: &'static [&'static str],
}

const fn rule(text: &'static str, at: At, mark: Mark) -> Rule {
    Rule {
        text,
        at,
        mark,
        unless: &[],
    }
}

/// Words that hold `KEY` but name no key.
const KEY_LOOKALIKES: &[&str] = &[
    "KEYBOARD",
    "KEYBOARDS",
    "KEYWORD",
    "KEYWORDS",
    "KEYSTROKE",
    "KEYSTROKES",
    "KEYFRAME",
    "KEYFRAMES",
    "KEYMAP",
    "KEYCODE",
    "KEYPRESS",
    "KEYDOWN",
    "KEYUP",
    "MONKEY",
    "DONKEY",
    "TURKEY",
    "HOCKEY",
    "WHISKEY",
];

/// The word rules, in no particular order (the strongest mark wins).
const RULES: &[Rule] = &[
    // Passwords and secrets: `PASSWORD`, `PASSWD`, `CLIENT_SECRET`,
    // `DBPASS`, `MYSQL_PWD`, `DB_PW`, `GIT_ASKPASS`.
    rule("SECRET", At::Inside, Mark::Password),
    rule("PASSW", At::Inside, Mark::Password),
    rule("PASSPHRASE", At::Inside, Mark::Password),
    Rule {
        text: "PASS",
        at: At::End,
        mark: Mark::Password,
        unless: &[
            "BYPASS",
            "COMPASS",
            "ENCOMPASS",
            "SURPASS",
            "TRESPASS",
            "OVERPASS",
            "UNDERPASS",
        ],
    },
    rule("PWD", At::End, Mark::Password),
    // `DB_PW`, and run together: `bindpw`, `rootpw` (LDAP).
    rule("PW", At::End, Mark::Password),
    // Redis's password for its primary.
    rule("MASTERAUTH", At::Word, Mark::Password),
    rule("PASSCODE", At::Inside, Mark::Password),
    // Wallet seeds: a mnemonic is a password of twelve words.
    rule("MNEMONIC", At::Inside, Mark::Password),
    // Tokens. Hugging Face's `TOKENIZERS_PARALLELISM` is a setting, not a
    // credential; a `tokenizers` field in code is still worth a look.
    Rule {
        text: "TOKEN",
        at: At::Inside,
        mark: Mark::Credential,
        unless: &["TOKENIZER", "TOKENIZERS", "TOKENIZE"],
    },
    Rule {
        text: "TOKEN",
        at: At::Inside,
        mark: Mark::Mention,
        unless: &["TOKENIZER", "TOKENIZE"],
    },
    rule("CREDENTIAL", At::Inside, Mark::Credential),
    // cookiecutter's config is no cookie.
    Rule {
        text: "COOKIE",
        at: At::Inside,
        mark: Mark::Credential,
        unless: &["COOKIECUTTER"],
    },
    rule("APIKEY", At::Inside, Mark::Credential),
    rule("ACCESSKEY", At::Inside, Mark::Credential),
    rule("PRIVATEKEY", At::Inside, Mark::Credential),
    // Wallet keys: `PRIVKEY`, a WIF key, a BIP-32 `xprv`; `PK` is as often
    // a primary key (`pk = 42`), so its values are judged, not taken.
    rule("PRIVKEY", At::Inside, Mark::Credential),
    rule("WIF", At::Word, Mark::Credential),
    rule("XPRV", At::Inside, Mark::Credential),
    rule("PK", At::Word, Mark::Mention),
    rule("AUTHKEY", At::Inside, Mark::Credential),
    rule("JWT", At::Inside, Mark::Credential),
    rule("BEARER", At::Inside, Mark::Credential),
    rule("WEBHOOK", At::Inside, Mark::Credential),
    // Azure App Service connection strings: `SQLCONNSTR_`,
    // `SQLAZURECONNSTR_`, `MYSQLCONNSTR_`, `CUSTOMCONNSTR_`…
    rule("CONNSTR", At::Inside, Mark::Credential),
    // Keys: `KEY` as a word marks a credential, inside a word it is a
    // mention (`HOTKEYS_ENABLED` is a setting, `keychainPath` worth a look).
    Rule {
        text: "KEY",
        at: At::Inside,
        mark: Mark::Mention,
        unless: KEY_LOOKALIKES,
    },
    rule("KEY", At::Word, Mark::Credential),
    rule("KEYS", At::Word, Mark::Credential),
    rule("KEYFILE", At::Word, Mark::Credential),
    // Auth: a word of its own (`SSH_AUTH_SOCK`) marks a credential, Auth0's
    // tenant settings (`AUTH0_DOMAIN`; its secret goes by `SECRET`) do not.
    Rule {
        text: "AUTH",
        at: At::Inside,
        mark: Mark::Mention,
        unless: &[
            "AUTHOR",
            "AUTHORS",
            "AUTHORED",
            "AUTHORITY",
            "AUTHORITIES",
            "AUTHENTICATED",
        ],
    },
    Rule {
        text: "AUTH",
        at: At::Word,
        mark: Mark::Credential,
        unless: &["AUTH0"],
    },
    rule("AUTHORIZATION", At::Word, Mark::Credential),
    // Sentry and other DSNs embed the key in the URL.
    rule("DSN", At::End, Mark::Credential),
    rule("PRIVATE", At::Word, Mark::Credential),
    // Jenkins' `CREDS_PSW`, Azure DevOps' `EXT_PAT`, session ids,
    // request signatures, PEM blobs.
    rule("PSW", At::Word, Mark::Credential),
    rule("PAT", At::Word, Mark::Credential),
    rule("SESSION", At::Word, Mark::Credential),
    rule("SIGNATURE", At::Word, Mark::Credential),
    rule("CRED", At::Word, Mark::Credential),
    rule("CREDS", At::Word, Mark::Credential),
    rule("PEM", At::Word, Mark::Credential),
];

/// Phrases of consecutive words (joined by `_`) that mark a credential
/// although no single word does.
const PHRASES: [&str; 2] = ["CONNECTION_STRING", "CONN_STR"];

/// Phrases that mark a wallet's seed words: a password of several words
/// (`SEED_PHRASE="legal winner thank …"`), so a value with spaces counts.
const PASSWORD_PHRASES: [&str; 6] = [
    "SEED_PHRASE",
    "SEED_WORDS",
    "RECOVERY_PHRASE",
    "RECOVERY_WORDS",
    "BACKUP_PHRASE",
    "WALLET_SEED",
];

/// Whole names that carry credentials (or point at them) without a telling
/// word.
const NAMES: [&str; 11] = [
    "IDENTITY_HEADER",
    "DATABASE_URL",
    "KUBECONFIG",
    "KUBE_CONFIG",
    "KUBE_CONFIG_DATA",
    "KUBECONFIG_DATA",
    "AWS_PROFILE",
    "NETRC",
    "PGPASSFILE",
    "SSHPASS",
    "BORG_PASSCOMMAND",
];

/// Name prefixes that carry credentials: VS Code's git credential bridge.
const PREFIXES: [&str; 1] = ["VSCODE_GIT_"];

/// Whole names that contain a credential word but are the desktop's own
/// plumbing, never a credential: the shell's directories, the D-Bus and X
/// session addresses.
const PLUMBING_NAMES: [&str; 5] = [
    "PWD",
    "OLDPWD",
    "DBUS_SESSION_BUS_ADDRESS",
    "DESKTOP_SESSION",
    "SESSION_MANAGER",
];

/// Prefixes of plumbing names: the freedesktop base directories and
/// session descriptors (`XDG_SESSION_TYPE`, `XDG_SESSION_ID`), which tools
/// need to find their config.
const PLUMBING_PREFIXES: [&str; 1] = ["XDG_"];

/// What a name says about what it holds (see [`secret_name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecretName {
    mark: Mark,
    /// The name is the desktop's own plumbing (`PWD`, `XDG_SESSION_ID`).
    plumbing: bool,
}

impl SecretName {
    /// The name alone marks a credential: a variable so named is one,
    /// whatever it holds (`GITHUB_TOKEN`, `DB_PASSWORD`, `KUBECONFIG`).
    /// The child-process environment filter removes these.
    pub fn is_credential(self) -> bool {
        self.mark >= Mark::Credential && !self.plumbing
    }

    /// The name says password or secret: a value needs no randomness to be
    /// one (`PASSWORD=Word` is a password, `API_KEY=Word` is code).
    pub fn is_password_like(self) -> bool {
        self.mark == Mark::Password
    }
}

/// What `name` says about what it holds: `None` when nothing secret, else
/// how strongly (see [`SecretName`]). `Some` alone means "a value under this
/// name is worth judging"; the audit's `KEY=value` heuristics ask that.
pub fn secret_name(name: &str) -> Option<SecretName> {
    let upper = name.to_ascii_uppercase();
    let plumbing = PLUMBING_NAMES.contains(&upper.as_str())
        || PLUMBING_PREFIXES
            .iter()
            .any(|prefix| upper.starts_with(prefix));
    let whole =
        NAMES.contains(&upper.as_str()) || PREFIXES.iter().any(|prefix| upper.starts_with(prefix));
    let words = words(name);
    let joined = words.join("_");
    let phrase = PHRASES.iter().any(|phrase| joined.contains(phrase));
    let seed = PASSWORD_PHRASES
        .iter()
        .any(|phrase| joined.contains(phrase));
    let by_words = words.iter().filter_map(|word| word_mark(word)).max();
    let by_name = (whole || phrase).then_some(Mark::Credential);
    let by_seed = seed.then_some(Mark::Password);
    let mark = by_words.max(by_name).max(by_seed)?;
    Some(SecretName { mark, plumbing })
}

/// True when `name` alone marks a credential:
/// `secret_name(name).is_some_and(SecretName::is_credential)`.
pub fn is_credential_name(name: &str) -> bool {
    secret_name(name).is_some_and(SecretName::is_credential)
}

/// The strongest mark any rule gives `word` (upper-case).
fn word_mark(word: &str) -> Option<Mark> {
    let stem = word.trim_end_matches(|c: char| c.is_ascii_digit());
    RULES
        .iter()
        .filter(|rule| !rule.unless.contains(&word))
        .filter(|rule| match rule.at {
            At::Inside => word.contains(rule.text),
            At::End => stem.ends_with(rule.text),
            At::Word => stem == rule.text,
        })
        .map(|rule| rule.mark)
        .max()
}

/// The upper-cased words of `name`: `awsSecretAccessKey` → AWS SECRET
/// ACCESS KEY, `HTTPProxy` → HTTP PROXY, `npm_config__authToken` → NPM
/// CONFIG AUTH TOKEN, `OPENAI_API_KEY2` → OPENAI API KEY2.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    // Splitting on everything but ASCII letters and digits leaves ASCII-only
    // parts, so byte offsets below are character boundaries.
    for part in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let bytes = part.as_bytes();
        let mut start = 0;
        for at in 1..bytes.len() {
            let (prev, here) = (bytes[at - 1], bytes[at]);
            let next_is_lower = bytes.get(at + 1).is_some_and(u8::is_ascii_lowercase);
            // `secretKey`, `v2Key`: a capital after a lower-case letter or a
            // digit; `APIKey`: the last capital of an acronym starts a word.
            let hump = (prev.is_ascii_lowercase() || prev.is_ascii_digit())
                && here.is_ascii_uppercase()
                || prev.is_ascii_uppercase() && here.is_ascii_uppercase() && next_is_lower;
            if hump {
                words.push(part[start..at].to_ascii_uppercase());
                start = at;
            }
        }
        if start < part.len() {
            words.push(part[start..].to_ascii_uppercase());
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn splits_at_punctuation_and_camel_case_humps() {
        assert_eq!(
            words("awsSecretAccessKey"),
            ["AWS", "SECRET", "ACCESS", "KEY"]
        );
        assert_eq!(words("HTTPProxy"), ["HTTP", "PROXY"]);
        assert_eq!(
            words("npm_config__authToken"),
            ["NPM", "CONFIG", "AUTH", "TOKEN"]
        );
        assert_eq!(words("OPENAI_API_KEY2"), ["OPENAI", "API", "KEY2"]);
        assert_eq!(words("DBPassword"), ["DB", "PASSWORD"]);
        assert_eq!(words("v2Key"), ["V2", "KEY"]);
    }
}
