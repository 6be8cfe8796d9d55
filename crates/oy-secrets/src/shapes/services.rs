//! Token formats of hosting, AI and messaging services that the vendored
//! gitleaks rules do not know, or know only next to the service's name
//! although the token alone is unmistakable (a Telegram bot token, a
//! Mailchimp key, a New Relic user key).
//!
//! Published prefixes only, each with its length, so that identifiers
//! sharing a prefix (`vcr_cassette`, `gsk_path`) pass. Examples are
//! assembled with `concat!` so that no line of this file is a token a
//! scanner would flag.

use crate::checks;
use crate::shape::{Scope, Shape};

use Scope::Anywhere;

pub(super) const SERVICES: &[Shape] = &[
    // Netlify: personal, CLI, OAuth, app and build tokens (40 characters).
    Shape::new(
        "netlify-token",
        Anywhere,
        bounded!(r"nf[pcoub]_[A-Za-z0-9]{32,}"),
        &["nfp_", "nfc_", "nfo_", "nfu_", "nfb_"],
        concat!("nfp", "_Hq3v8TzL0aW5mKc2Rj7Yx1Bn6Pd4Gs9Ef3Ku"),
    ),
    // Vercel: personal, integration, app, refresh tokens and API keys.
    Shape::new(
        "vercel-token",
        Anywhere,
        bounded!(r"vc[piark]_[A-Za-z0-9]{24,}"),
        &["vcp_", "vci_", "vca_", "vcr_", "vck_"],
        concat!("vcp", "_7Kd2Lq9Xw4Zt1Vb8Nm3Hs6Pr0Cy5Ej"),
    )
    .with_check(checks::mixed_token),
    // Cloudflare's scannable global keys, user and account tokens.
    Shape::new(
        "cloudflare-token",
        Anywhere,
        bounded!(r"cf(?:k|ut|at)_[A-Za-z0-9]{40,}"),
        &["cfk_", "cfut_", "cfat_"],
        concat!("cfut", "_Zx8Cv7Bn6Mq5Wk4Ej3Rt2Yu1Io0Pa9SdFg8Hj7Kl6"),
    ),
    // Supabase personal access tokens and secret API keys.
    Shape::new(
        "supabase-token",
        Anywhere,
        bounded!(r"sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,}"),
        &["sbp_", "sb_secret_"],
        concat!("sbp", "_0f4e5a7c9b1d3e5f7a9c1b3d5e7f9a1c3e5b7d9f"),
    ),
    // AI APIs: Groq, Replicate, xAI, LangSmith, Pinecone, Tavily.
    Shape::new(
        "groq-key",
        Anywhere,
        bounded!(r"gsk_[A-Za-z0-9]{48,}"),
        &["gsk_"],
        concat!("gsk", "_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9kLm2n"),
    ),
    Shape::new(
        "replicate-token",
        Anywhere,
        bounded!(r"r8_[A-Za-z0-9]{37,}"),
        &["r8_"],
        concat!("r8", "_Zk9xQ2mT7rWv8LpN3sYb6HcJ4dFg1Aq5Ue0Oi7"),
    ),
    Shape::new(
        "xai-key",
        Anywhere,
        bounded!(r"xai-[A-Za-z0-9]{70,}"),
        &["xai-"],
        concat!(
            "xai-",
            "Zk9xQ2mT7rWv8LpN3sYb6HcJ4dFg1Aq5Ue0Oi7",
            "Zk9xQ2mT7rWv8LpN3sYb6HcJ4dFg1Aq5Ue0Oi7"
        ),
    ),
    Shape::new(
        "langsmith-key",
        Anywhere,
        bounded!(r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
        &["lsv2_"],
        concat!("lsv2", "_pt_0f4e5a7c9b1d3e5f7a9c1b3d5e7f9a1c_3e5b7d9f0a"),
    ),
    Shape::new(
        "pinecone-key",
        Anywhere,
        bounded!(r"pcsk_[A-Za-z0-9_]{40,}"),
        &["pcsk_"],
        concat!("pcsk", "_4Zk9xQ_2mT7rWv8LpN3sYb6HcJ4dFg1Aq5Ue0Oi7Lm"),
    )
    .with_check(checks::mixed_token),
    Shape::new(
        "tavily-key",
        Anywhere,
        bounded!(r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32,}"),
        &["tvly-"],
        concat!("tvly", "-dev-Zk9xQ2mT7rWv8LpN3sYb6HcJ4dFg1Aq5"),
    ),
    // New Relic user API keys.
    Shape::new(
        "new-relic-key",
        Anywhere,
        delimited!(r"NRAK-[A-Z0-9]{27}"),
        &["NRAK-"],
        concat!("NRAK", "-Q2MT7RWV8LPN3SYB6HCJ4DFG1AQ"),
    ),
    // Mailchimp API keys: 32 hex digits and the data centre.
    Shape::new(
        "mailchimp-key",
        Anywhere,
        delimited!(r"[a-f0-9]{32}-us[0-9]{1,2}"),
        &["-us"],
        concat!("0f4e5a7c9b1d3e5f", "7a9c1b3d5e7f9a1c-us21"),
    ),
    // Telegram bot tokens: the bot's id, a colon, `AA` and 33 more.
    Shape::new(
        "telegram-bot-token",
        Anywhere,
        delimited!(r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}"),
        &[":AA"],
        concat!("5012345678", ":AA", "Hq3v8TzL0aW5mKc2Rj7Yx1Bn6Pd4Gs9Ef"),
    ),
    // Firebase Cloud Messaging legacy server keys.
    Shape::new(
        "firebase-server-key",
        Anywhere,
        bounded!(r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}"),
        &[":APA91b"],
        concat!(
            "AAAA",
            "x1Yz2Ab:",
            "APA91b",
            "Hq3v8TzL0aW5mKc2Rj7Yx1Bn6Pd4Gs9Ef3KuHq3v8TzL0aW5mKc2Rj7Yx1Bn6Pd4Gs9Ef3Ku",
            "Hq3v8TzL0aW5mKc2Rj7Yx1Bn6Pd4Gs9Ef3KuHq3v8TzL0aW5mKc2Rj7"
        ),
    ),
    // Bitbucket (Atlassian) app passwords.
    Shape::new(
        "bitbucket-app-password",
        Anywhere,
        bounded!(r"ATBB[A-Za-z0-9_=.-]{32,}"),
        &["ATBB"],
        concat!("ATBB", "Hq3v8TzL0aW5mKc2Rj7Yx1Bn6Pd4Gs9Ef3Ku"),
    ),
    // Figma personal access tokens.
    Shape::new(
        "figma-token",
        Anywhere,
        bounded!(r"figd_[A-Za-z0-9_-]{40,}"),
        &["figd_"],
        concat!("figd", "_Hq3v8TzL0aW5mKc2Rj7Yx1Bn6Pd4Gs9Ef3KuLm2Np"),
    ),
];
