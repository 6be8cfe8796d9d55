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
    /// Where the AWS credential chain looks, to say so when it finds
    /// nothing.
    pub aws_places: AwsPlaces,
}

/// Where the AWS SDK's credential chain looks, as the environment sets it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AwsPlaces {
    /// `AWS_PROFILE` (else the chain reads the profile `default`).
    pub profile: Option<String>,
    /// The shared credentials file, then the config file, each with
    /// whether it exists (`AWS_SHARED_CREDENTIALS_FILE` or
    /// `~/.aws/credentials`, `AWS_CONFIG_FILE` or `~/.aws/config`).
    pub files: Vec<(PathBuf, bool)>,
    /// `AWS_EC2_METADATA_DISABLED=true`: the instance metadata service is
    /// not asked.
    pub metadata_disabled: bool,
}

impl AwsPlaces {
    /// Where the chain looked, in one clause: the variables, the profile
    /// (`profile` when a provider table names one, else `AWS_PROFILE`,
    /// else `default`) in the shared files, and the metadata services.
    pub fn describe(&self, profile: Option<&str>) -> String {
        let profile = profile.or(self.profile.as_deref()).unwrap_or("default");
        let files: Vec<String> = self
            .files
            .iter()
            .map(|(path, exists)| {
                let state = if *exists { "present" } else { "missing" };
                format!("{} ({state})", path.display())
            })
            .collect();
        let files = if files.is_empty() {
            "no shared files (HOME is not set)".to_owned()
        } else {
            files.join(" and ")
        };
        let metadata = if self.metadata_disabled {
            "container credentials; not EC2 instance metadata (AWS_EC2_METADATA_DISABLED is set)"
        } else {
            "container credentials; EC2 instance metadata"
        };
        format!(
            "environment variables (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, \
             AWS_WEB_IDENTITY_TOKEN_FILE); profile `{profile}`, with any SSO, role or \
             credential_process settings, in {files}; {metadata}"
        )
    }
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
        let home = var("HOME").map(PathBuf::from);
        let files: Vec<(PathBuf, bool)> = [
            ("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials"),
            ("AWS_CONFIG_FILE", ".aws/config"),
        ]
        .into_iter()
        .filter_map(|(name, default)| {
            text(name)
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|home| home.join(default)))
        })
        .map(|path| {
            let exists = is_file(&path);
            (path, exists)
        })
        .collect();
        let aws_credentials = AWS_VARS
            .iter()
            .find(|name| text(name).is_some())
            .map(|name| (*name).to_owned())
            .or_else(|| {
                files
                    .iter()
                    .find(|(_, exists)| *exists)
                    .map(|(path, _)| path.display().to_string())
            });
        let aws_places = AwsPlaces {
            profile: text("AWS_PROFILE"),
            files,
            metadata_disabled: text("AWS_EC2_METADATA_DISABLED")
                .is_some_and(|value| value.trim().eq_ignore_ascii_case("true")),
        };
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
            aws_places,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aws_places_come_from_the_variables_and_home() {
        let vars = [
            ("HOME", "/Users/u"),
            ("AWS_CONFIG_FILE", "/etc/aws/config"),
            ("AWS_PROFILE", "dev"),
            ("AWS_EC2_METADATA_DISABLED", "TRUE"),
        ];
        let env = ProviderEnv::from_vars(
            &BTreeMap::new(),
            |name| {
                vars.iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| OsString::from(value))
            },
            |path| path == Path::new("/etc/aws/config"),
        );
        assert_eq!(
            env.aws_places,
            AwsPlaces {
                profile: Some("dev".to_owned()),
                files: vec![
                    (PathBuf::from("/Users/u/.aws/credentials"), false),
                    (PathBuf::from("/etc/aws/config"), true),
                ],
                metadata_disabled: true,
            }
        );
        assert_eq!(env.aws_credentials.as_deref(), Some("AWS_PROFILE"));
        let said = env.aws_places.describe(None);
        assert!(said.contains("profile `dev`"), "{said}");
        assert!(
            said.contains("/Users/u/.aws/credentials (missing) and /etc/aws/config (present)"),
            "{said}"
        );
        assert!(said.contains("not EC2 instance metadata"), "{said}");
        assert!(
            env.aws_places
                .describe(Some("prod"))
                .contains("profile `prod`"),
            "a table's profile wins"
        );
    }

    #[test]
    fn without_home_no_shared_files_are_looked_at() {
        let env = ProviderEnv::from_vars(&BTreeMap::new(), |_| None, |_| true);
        assert!(env.aws_places.files.is_empty());
        assert_eq!(env.aws_credentials, None);
        let said = env.aws_places.describe(None);
        assert!(said.contains("settings, in no shared files"), "{said}");
        assert!(said.contains("EC2 instance metadata"), "{said}");
    }
}
