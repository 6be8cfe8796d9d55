//! Published secret formats: private-key files and the token formats of
//! clouds, code hosts, package registries and SaaS APIs.
//!
//! Every shape is tight on purpose: a prefix alone never counts (`sk-`
//! needs 20 more token characters and a check, `SG.` the 22.43 SendGrid
//! layout, `AKIA` exactly 16 more), so paths, locales, flags and plain
//! URLs pass. Examples are assembled with `concat!` so that no line of this
//! file is a token a scanner would flag.

use crate::checks;
use crate::shape::{Scope, Shape};

use Scope::{Anywhere, Value};

pub(super) const FORMATS: &[Shape] = &[
    // Private keys in PEM, OpenSSH and PGP armour (`PRIVATE KEY BLOCK`);
    // certificates and public keys are not secrets and pass.
    Shape::new(
        "private-key",
        Anywhere,
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY",
        &["-----BEGIN"],
        concat!("-----BEGIN ", "OPENSSH PRIVATE", " KEY-----"),
    ),
    // Base64 of `-----BEGIN` (kubeconfig `client-key-data`, `*_B64=`).
    Shape::new(
        "base64-pem",
        Anywhere,
        r"LS0tLS1CRUdJTi",
        &["LS0tLS1CRUdJTi"],
        concat!("LS0tLS1CRUdJTi", "BSU0EgUFJJVkFURSBLRVktLS0tLQo="),
    ),
    Shape::new(
        "putty-private-key",
        Anywhere,
        r"PuTTY-User-Key-File-[0-9]",
        &["PuTTY-User-Key-File-"],
        concat!("PuTTY-User-", "Key-File-3: ssh-ed25519"),
    ),
    Shape::new(
        "age-secret-key",
        Anywhere,
        bounded!(r"AGE-SECRET-KEY-1[0-9A-Z]{50,}"),
        &["AGE-SECRET-KEY-1"],
        concat!(
            "AGE-SECRET-",
            "KEY-1UJZDE8GXD6NCF10EPF91DHODZDOC9IS0J8HT9LGMXG9EDN581U33XTPLPF"
        ),
    ),
    // AWS access key ids: long-lived, temporary (STS), bearer, context.
    Shape::new(
        "aws-access-key-id",
        Anywhere,
        delimited!(r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
        &["AKIA", "ASIA", "ABIA", "ACCA"],
        concat!("AKIA", "QZ3X7RT2MW9PLK4J"),
    ),
    // GitHub: personal, OAuth, user-to-server, server-to-server, refresh,
    // fine-grained.
    Shape::new(
        "github-token",
        Anywhere,
        bounded!(r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"),
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        concat!("gh", "p_", "R8f2kLm9Qw3Zt7Xy1Bv4Nc6Hj0Ps5Ud8Ea2G"),
    ),
    // GitLab: personal, deploy, runner, trigger, CI job, OAuth, feed, mail.
    Shape::new(
        "gitlab-token",
        Anywhere,
        bounded!(r"gl(?:pat|dt|rt|ptt|cbt|oas|ft|imt)-[A-Za-z0-9_-]{20,}"),
        &[
            "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-", "glft-", "glimt-",
        ],
        concat!("glpat", "-Xy7Zb2Qm9LkPw4Rt8Vn1"),
    ),
    // Anthropic (`sk-ant-api03-`) before OpenAI's and the OpenAI-compatible
    // APIs' `sk-`, `sk-proj-`, `sk-svcacct-`, `sk-admin-`.
    Shape::new(
        "anthropic-key",
        Anywhere,
        bounded!(r"sk-ant-[A-Za-z0-9_-]{20,}"),
        &["sk-ant-"],
        concat!("sk-", "ant-", "api03-Zx8Cv7Bn6Mq5Wk4Ej3Rt2Yu1Io0Pa9Sd"),
    ),
    Shape::new(
        "openai-key",
        Anywhere,
        bounded!(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
        &["sk-"],
        concat!("sk-", "proj-", "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"),
    )
    .with_check(checks::openai_key),
    // Stripe secret and restricted keys and webhook secrets; publishable
    // `pk_` keys are public by design.
    Shape::new(
        "stripe-key",
        Anywhere,
        bounded!(r"[sr]k_(?:live|test)_[A-Za-z0-9]{10,}"),
        &["k_live_", "k_test_"],
        concat!("sk", "_live_", "4eC39HqLyjWDarjtT1zdp7dc"),
    ),
    Shape::new(
        "stripe-webhook-secret",
        Anywhere,
        bounded!(r"whsec_[A-Za-z0-9+/=]{24,}"),
        &["whsec_"],
        concat!("whsec", "_VHnyrvWdFrK9xiRGHOY32nfr"),
    ),
    // Slack bot, user, app-level, refresh and configuration tokens.
    Shape::new(
        "slack-token",
        Anywhere,
        bounded!(r"xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}"),
        &["xox", "xapp-"],
        concat!("xo", "xb-", "2468013579-1357924680-AbCdEfGhIjKlMnOp"),
    ),
    // Google API keys, OAuth access tokens, OAuth client secrets.
    Shape::new(
        "google-api-key",
        Anywhere,
        bounded!(r"AIza[A-Za-z0-9_-]{35}"),
        &["AIza"],
        concat!("AI", "za", "G5ZFJoC6vWCBiJmpflvJfupxqZKm4bV3AyA"),
    ),
    Shape::new(
        "google-oauth-token",
        Anywhere,
        bounded!(r"ya29\.[A-Za-z0-9_.-]{20,}"),
        &["ya29."],
        concat!("ya29", ".a0VHnyrvWdFrK9xiRGHOY32nfr"),
    ),
    Shape::new(
        "google-client-secret",
        Anywhere,
        bounded!(r"GOCSPX-[A-Za-z0-9_-]{24,}"),
        &["GOCSPX-"],
        concat!("GOCSPX", "-VHnyrvWdFrK9xiRGHOY32nfr"),
    ),
    // Azure AD (Entra) client secrets carry `Q~` after a digit.
    Shape::new(
        "azure-client-secret",
        Anywhere,
        bounded!(r"[A-Za-z0-9_.-]{3}[0-9]Q~[A-Za-z0-9_.~-]{31,34}"),
        &[
            "0Q~", "1Q~", "2Q~", "3Q~", "4Q~", "5Q~", "6Q~", "7Q~", "8Q~", "9Q~",
        ],
        concat!("Ab18Q", "~KtHF4vUCsMehGAkWvj7FAc9QeWJKY40uv"),
    ),
    // npm, PyPI (a macaroon: base64 of its version byte), crates.io,
    // RubyGems, NuGet, Docker Hub.
    Shape::new(
        "npm-token",
        Anywhere,
        bounded!(r"npm_[A-Za-z0-9]{36,}"),
        &["npm_"],
        concat!("npm", "_SwMFLZDe1f8rESQedUStPKR0CsTy4Qwb8Dwk"),
    ),
    Shape::new(
        "pypi-token",
        Anywhere,
        bounded!(r"pypi-Ag[A-Za-z0-9_-]{50,}"),
        &["pypi-Ag"],
        concat!(
            "pypi-",
            "AgENhFdnXsiVpzz63FfkCzJr4i0B3JrTAwR4y9ojfljoQoaF1LlqsajAIxNKu8i"
        ),
    ),
    Shape::new(
        "crates-io-token",
        Anywhere,
        delimited!(r"cio[A-Za-z0-9]{32}"),
        &["cio"],
        concat!("cio", "S2G8NPRVdD53X83RZJzzzzgEOzdmenCk"),
    ),
    Shape::new(
        "rubygems-key",
        Anywhere,
        bounded!(r"rubygems_[a-f0-9]{48}"),
        &["rubygems_"],
        concat!(
            "rubygems",
            "_3a13043b026c48bbf33feff9243a8f506b40928b5b7a767c"
        ),
    ),
    Shape::new(
        "nuget-key",
        Anywhere,
        bounded!(r"oy2[a-z0-9]{43}"),
        &["oy2"],
        concat!("oy2", "om75wbbr4qmw2wxfogo4mvn4a4wfhym4l1vfz3zfkki"),
    ),
    Shape::new(
        "docker-hub-token",
        Anywhere,
        bounded!(r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"),
        &["dckr_"],
        concat!("dckr", "_pat_VHnyrvWdFrK9xiRGHOY32nfr"),
    ),
    // Hugging Face user and organisation tokens.
    Shape::new(
        "huggingface-token",
        Anywhere,
        bounded!(r"hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z0-9]{30,}"),
        &["hf_", "api_org_"],
        concat!("hf", "_sFd67JikEAvstqVVPqzPptEJQzhkPken"),
    ),
    // DigitalOcean, Shopify, SendGrid, Tailscale, Linear.
    Shape::new(
        "digitalocean-token",
        Anywhere,
        bounded!(r"do[opr]_v1_[a-f0-9]{64}"),
        &["_v1_"],
        concat!(
            "dop_v1",
            "_04e4fb440034d6608697a8d41bed440e50454f31af3176813e02ea68ef786e4d"
        ),
    ),
    Shape::new(
        "shopify-token",
        Anywhere,
        bounded!(r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
        &["shpat_", "shpss_", "shpca_", "shppa_"],
        concat!("shpat", "_3cea27d26934b484e73cf575dcad6ba2"),
    ),
    Shape::new(
        "sendgrid-key",
        Anywhere,
        bounded!(r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
        &["SG."],
        concat!(
            "SG.",
            "UxbvJDCTbyvHNsG9eh6Yo4.",
            "gfqrc5XlrWi0B26R08qzjI6GKFSufrdZSlB5er8bOfZ"
        ),
    ),
    Shape::new(
        "tailscale-key",
        Anywhere,
        bounded!(r"tskey-[A-Za-z0-9-]{20,}"),
        &["tskey-"],
        concat!("tskey", "-auth-VHnyrvWdFrK9xiRGHOY32nfr"),
    ),
    Shape::new(
        "linear-key",
        Anywhere,
        bounded!(r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
        &["lin_api_", "lin_oauth_"],
        concat!("lin_", "api_qfM2oeq3hDavJA76rNicHTp8hkqdlm7t"),
    ),
    // Grafana Cloud and service-account tokens, Databricks.
    Shape::new(
        "grafana-token",
        Anywhere,
        bounded!(r"glc_[A-Za-z0-9+/=_-]{32,}|glsa_[A-Za-z0-9_]{32,}"),
        &["glc_", "glsa_"],
        concat!("glsa", "_OtHWnsCGRlrwZbqcabUGJmGEp7CgQ0PB"),
    ),
    Shape::new(
        "databricks-token",
        Anywhere,
        bounded!(r"dapi[a-f0-9]{32}"),
        &["dapi"],
        concat!("dapi", "fc967a64cb14028d512c9791e558e08b"),
    ),
    // Sentry org and user tokens, Atlassian, Postman, Vault, Doppler,
    // Buildkite, CircleCI, Square.
    Shape::new(
        "sentry-token",
        Anywhere,
        bounded!(r"sntry[su]_[A-Za-z0-9+/=_-]{30,}"),
        &["sntrys_", "sntryu_"],
        concat!("sntrys", "_9vJupc94tnwlavyfErGPmpGXafq0fjzLcz"),
    ),
    Shape::new(
        "atlassian-token",
        Anywhere,
        bounded!(r"ATATT3[A-Za-z0-9_=-]{50,}"),
        &["ATATT3"],
        concat!(
            "ATATT3",
            "xFfGF0bttOofL9H2WjQ5TY4MyWuUFjsUNPjc01T5GOBUSZGi6HWGK10Zb0RLZ5"
        ),
    ),
    Shape::new(
        "postman-key",
        Anywhere,
        bounded!(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
        &["PMAK-"],
        concat!(
            "PMAK",
            "-72014b3ce107f80e222f8287-67efc2f91624a8940f1f836f99eee3692f"
        ),
    ),
    Shape::new(
        "vault-token",
        Anywhere,
        bounded!(r"hv[sbr]\.[A-Za-z0-9_-]{20,}"),
        &["hvs.", "hvb.", "hvr."],
        concat!("hvs", ".CAESIVHnyrvWdFrK9xiRGHOY32nfr"),
    ),
    Shape::new(
        "doppler-token",
        Anywhere,
        bounded!(r"dp\.(?:st|ct|pt|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}"),
        &["dp."],
        concat!("dp.st", ".bsDe0G9Cryn687neLfjVHq8xiM0OGr4hTxoF54Fzbka8"),
    ),
    Shape::new(
        "buildkite-token",
        Anywhere,
        bounded!(r"bkua_[A-Za-z0-9]{30,}"),
        &["bkua_"],
        concat!("bkua", "_FRCztUjAwyuh1vauWv1zh87mTa5Vsqxe"),
    ),
    Shape::new(
        "circleci-token",
        Anywhere,
        bounded!(r"CCIPAT_[A-Za-z0-9_]{30,}"),
        &["CCIPAT_"],
        concat!("CCIPAT", "_zy3Lex7BWr2drgd1QsO7jprBGumXxY9B"),
    ),
    Shape::new(
        "square-token",
        Anywhere,
        bounded!(r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}"),
        &["sq0atp-", "sq0csp-"],
        concat!("sq0atp", "-4bZWOz648JJnUfd7UACNWiP3"),
    ),
    // JWTs (CI OIDC tokens, service tokens): two base64url JSON parts.
    Shape::new(
        "jwt",
        Anywhere,
        bounded!(r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
        &["eyJ"],
        concat!(
            "eyJ",
            "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
            ".eyJ",
            "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ",
            ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
    ),
    // Discord bot tokens: base64 user id, timestamp, HMAC. Three runs of
    // base64 joined by dots hold no literal to scan text for, and code is
    // full of dotted names: in a single value only.
    Shape::new(
        "discord-bot-token",
        Value,
        bounded!(r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}"),
        &[],
        concat!(
            "token: \"MTA0NTY3ODkwMTIzNDU2Nzg5MA",
            ".GhIjKl.",
            "AbCdEfGhIjKlMnOpQrStUvWxYz012345\""
        ),
    ),
];
