//! Credential-like variable names: the words, fragments and whole names
//! that mark a variable as a secret whatever its value.
//!
//! A name is split into words before it is judged: on every character that
//! is not an ASCII letter or digit, and at camelCase humps, so
//! `awsSecretAccessKey`, `AWS_SECRET_ACCESS_KEY` and `aws.secret-access-key`
//! all read AWS SECRET ACCESS KEY. The rules never look at the value: a
//! harmless name holding a token is the business of `value_shapes`.

/// Fragments that mark a credential anywhere inside a word, so run-together
/// names (`GHTOKEN`, `PGPASSWORD`, `SQLCONNSTR_main`, `TS_AUTHKEY`) count.
const FRAGMENTS: [&str; 15] = [
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "COOKIE",
    "APIKEY",
    "ACCESSKEY",
    "PRIVATEKEY",
    "AUTHKEY",
    "JWT",
    "BEARER",
    "WEBHOOK",
    // Azure App Service connection strings: SQLCONNSTR_, SQLAZURECONNSTR_,
    // MYSQLCONNSTR_, POSTGRESQLCONNSTR_, CUSTOMCONNSTR_.
    "CONNSTR",
];

/// Words that mark a credential only as a whole word (trailing digits
/// ignored, so `KEY2` counts): too short to look for inside other words, or
/// `KEYBOARD_LAYOUT`, `PASSENGER_ENV`, `GIT_AUTHOR_NAME` and `PATH` would go.
const WORDS: [&str; 18] = [
    "KEY",
    "KEYS",
    "KEYFILE",
    "PASS",
    "PWD",
    "PW",
    "PSW",
    "PAT",
    "AUTH",
    "AUTHORIZATION",
    "SESSION",
    "PRIVATE",
    "SIGNATURE",
    "CRED",
    "CREDS",
    "PEM",
    "ASKPASS",
    // Sentry and other DSNs embed the key in the URL.
    "DSN",
];

/// Words that contain a fragment but name something harmless: the Hugging
/// Face `TOKENIZERS_PARALLELISM` setting, cookiecutter's config, Auth0's
/// tenant settings (`AUTH0_DOMAIN`; its secret still goes by `SECRET`).
const HARMLESS_WORDS: [&str; 5] = [
    "TOKENIZER",
    "TOKENIZERS",
    "TOKENIZE",
    "COOKIECUTTER",
    "AUTH0",
];

/// Phrases of consecutive words (joined by `_`) that mark a credential
/// although no single word does.
const PHRASES: [&str; 2] = ["CONNECTION_STRING", "CONN_STR"];

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
/// plumbing, never a secret: the shell's directories, the D-Bus and X
/// session addresses.
const HARMLESS_NAMES: [&str; 5] = [
    "PWD",
    "OLDPWD",
    "DBUS_SESSION_BUS_ADDRESS",
    "DESKTOP_SESSION",
    "SESSION_MANAGER",
];

/// Prefixes of harmless names: the freedesktop base directories and
/// session descriptors (`XDG_SESSION_TYPE`, `XDG_SESSION_ID`), which tools
/// need to find their config.
const HARMLESS_PREFIXES: [&str; 1] = ["XDG_"];

/// True when `name` marks its variable as a credential.
pub(super) fn is_credential_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if HARMLESS_NAMES.contains(&upper.as_str())
        || HARMLESS_PREFIXES
            .iter()
            .any(|prefix| upper.starts_with(prefix))
    {
        return false;
    }
    if NAMES.contains(&upper.as_str()) || PREFIXES.iter().any(|prefix| upper.starts_with(prefix)) {
        return true;
    }
    let words = words(name);
    if words.iter().any(|word| is_credential_word(word)) {
        return true;
    }
    let joined = words.join("_");
    PHRASES.iter().any(|phrase| joined.contains(phrase))
}

fn is_credential_word(word: &str) -> bool {
    if HARMLESS_WORDS.contains(&word) {
        return false;
    }
    let stem = word.trim_end_matches(|c: char| c.is_ascii_digit());
    WORDS.contains(&stem) || FRAGMENTS.iter().any(|fragment| word.contains(fragment))
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
