//! [`ProviderEnv`]: the environment values a provider choice depends on,
//! and which variables they come from. The frontend hands in a lookup (and
//! a way to tell whether a file exists); this crate never reads the
//! environment itself.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::ProviderTable;
use crate::Secret;

/// The variables whose presence suggests the AWS SDK's credential chain
/// will find credentials, in the order they are reported.
const AWS_VARS: &[&str] = &[
    "AWS_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
];

/// The provider-related environment, resolved once by the frontend.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ProviderEnv {
    /// `OPENAI_BASE_URL`.
    pub openai_base_url: Option<String>,
    /// `OPENAI_API_KEY`.
    pub openai_api_key: Option<Secret>,
    /// The variables the provider tables' `env_key` name, by name.
    pub keys: BTreeMap<String, Secret>,
    /// `HTTPS_PROXY`/`https_proxy`, else `ALL_PROXY`/`all_proxy`. A secret:
    /// proxy URLs often carry a password.
    pub https_proxy: Option<Secret>,
    /// `HTTP_PROXY`/`http_proxy`, else `ALL_PROXY`/`all_proxy`.
    pub http_proxy: Option<Secret>,
    /// `NO_PROXY`/`no_proxy`.
    pub no_proxy: Option<String>,
    /// What suggests AWS credentials are available, if anything (a
    /// variable's name, or the path of a shared credentials or config
    /// file), for reasons and diagnostics.
    pub aws_credentials: Option<String>,
}

impl ProviderEnv {
    /// Resolves the values from `var` (an environment lookup) and
    /// `is_file` (for the AWS shared files): the variables above, each
    /// unset when blank; the keys the `providers` tables' `env_key` name;
    /// and the first sign of AWS credentials — the variables the SDK's
    /// chain reads, then the shared files it would open
    /// (`AWS_SHARED_CREDENTIALS_FILE` or `~/.aws/credentials`, then
    /// `AWS_CONFIG_FILE` or `~/.aws/config`).
    pub fn from_vars(
        providers: &BTreeMap<String, ProviderTable>,
        var: impl Fn(&str) -> Option<OsString>,
        is_file: impl Fn(&Path) -> bool,
    ) -> Self {
        let text = |name: &str| {
            var(name)
                .and_then(|value| value.into_string().ok())
                .filter(|value| !value.trim().is_empty())
        };
        let first = |names: &[&str]| names.iter().find_map(|name| text(name));
        let all_proxy = || first(&["ALL_PROXY", "all_proxy"]);
        let keys = providers
            .values()
            .filter_map(|table| table.env_key.as_deref())
            .filter_map(|name| text(name).map(|value| (name.to_owned(), Secret::new(value))))
            .collect();
        let aws_credentials = AWS_VARS
            .iter()
            .find(|name| text(name).is_some())
            .map(|name| (*name).to_owned())
            .or_else(|| {
                let home = var("HOME").map(PathBuf::from);
                [
                    ("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials"),
                    ("AWS_CONFIG_FILE", ".aws/config"),
                ]
                .into_iter()
                .find_map(|(name, default)| {
                    let path = text(name)
                        .map(PathBuf::from)
                        .or_else(|| home.as_ref().map(|home| home.join(default)))?;
                    is_file(&path).then(|| path.display().to_string())
                })
            });
        Self {
            openai_base_url: text("OPENAI_BASE_URL"),
            openai_api_key: text("OPENAI_API_KEY").map(Secret::new),
            keys,
            https_proxy: first(&["HTTPS_PROXY", "https_proxy"])
                .or_else(all_proxy)
                .map(Secret::new),
            http_proxy: first(&["HTTP_PROXY", "http_proxy"])
                .or_else(all_proxy)
                .map(Secret::new),
            no_proxy: first(&["NO_PROXY", "no_proxy"]),
            aws_credentials,
        }
    }
}
