//! Resolving the AWS credentials once, when Bedrock is built: a chain that
//! finds nothing is said at once, in one line, instead of surfacing as a
//! failed (and retried) first prompt with the SDK's whole chain report.
//! The credentials found are handed to the clients, so the chain is not
//! walked twice; later refreshes (temporary credentials) go to the chain.

use std::sync::Mutex;
use std::time::Duration;

use aws_credential_types::Credentials;
use aws_credential_types::provider::error::CredentialsError;
use aws_credential_types::provider::{self, ProvideCredentials, SharedCredentialsProvider};
use aws_types::SdkConfig;

use super::errors::cause;

/// Why no credentials could be had.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CredentialProblem {
    /// The chain looked everywhere and found none (or has no provider).
    NotFound,
    /// The chain failed (a profile it cannot use, an expired login), or
    /// did not answer within the time given.
    Failed(String),
}

/// Resolves `sdk`'s credentials within `timeout`; on success returns the
/// config with them ready for the first request.
pub(crate) async fn resolve(
    sdk: SdkConfig,
    timeout: Duration,
) -> Result<SdkConfig, CredentialProblem> {
    let Some(chain) = sdk.credentials_provider() else {
        return Err(CredentialProblem::NotFound);
    };
    let found = match tokio::time::timeout(timeout, chain.provide_credentials()).await {
        Ok(Ok(credentials)) => credentials,
        Ok(Err(CredentialsError::CredentialsNotLoaded(_))) => {
            return Err(CredentialProblem::NotFound);
        }
        Ok(Err(error)) => return Err(CredentialProblem::Failed(describe(&error))),
        Err(_) => {
            return Err(CredentialProblem::Failed(format!(
                "the credential chain did not answer within {} s",
                timeout.as_secs()
            )));
        }
    };
    let first = FoundFirst {
        found: Mutex::new(Some(found)),
        chain,
    };
    Ok(sdk
        .into_builder()
        .credentials_provider(SharedCredentialsProvider::new(first))
        .build())
}

/// The error and its innermost cause, one line: the outer text alone says
/// only "the credentials provider was not properly configured".
fn describe(error: &CredentialsError) -> String {
    let inner = cause(error);
    let outer = error.to_string();
    if inner == outer {
        outer
    } else {
        format!("{outer}: {inner}")
    }
}

/// The credentials already resolved, once, then the chain.
#[derive(Debug)]
struct FoundFirst {
    found: Mutex<Option<Credentials>>,
    chain: SharedCredentialsProvider,
}

impl ProvideCredentials for FoundFirst {
    fn provide_credentials<'a>(&'a self) -> provider::future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        let found = self.found.lock().ok().and_then(|mut found| found.take());
        match found {
            Some(credentials) => provider::future::ProvideCredentials::ready(Ok(credentials)),
            None => self.chain.provide_credentials(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_bedrockruntime::config::BehaviorVersion;

    fn sdk(provider: impl ProvideCredentials + 'static) -> SdkConfig {
        SdkConfig::builder()
            .behavior_version(BehaviorVersion::latest())
            .credentials_provider(SharedCredentialsProvider::new(provider))
            .build()
    }

    /// A provider that always fails with `error()`.
    #[derive(Debug)]
    struct Failing(fn() -> CredentialsError);

    impl ProvideCredentials for Failing {
        fn provide_credentials<'a>(&'a self) -> provider::future::ProvideCredentials<'a>
        where
            Self: 'a,
        {
            provider::future::ProvideCredentials::ready(Err((self.0)()))
        }
    }

    #[tokio::test]
    async fn found_credentials_are_handed_on() {
        let keys = Credentials::new("AKIDTEST", "test-secret", None, None, "test");
        let resolved = resolve(sdk(keys.clone()), Duration::from_secs(1))
            .await
            .unwrap();
        let provider = resolved.credentials_provider().unwrap();
        assert_eq!(provider.provide_credentials().await.unwrap(), keys);
        // Then the chain itself.
        assert_eq!(provider.provide_credentials().await.unwrap(), keys);
    }

    #[tokio::test]
    async fn nothing_found_and_a_failing_chain_are_told_apart() {
        let none = resolve(
            sdk(Failing(|| {
                CredentialsError::not_loaded("no credentials found in chain. Attempted: …")
            })),
            Duration::from_secs(1),
        )
        .await;
        assert_eq!(none.unwrap_err(), CredentialProblem::NotFound);
        let failed = resolve(
            sdk(Failing(|| {
                CredentialsError::invalid_configuration("profile `nope` was not defined")
            })),
            Duration::from_secs(1),
        )
        .await;
        assert_eq!(
            failed.unwrap_err(),
            CredentialProblem::Failed(
                "the credentials provider was not properly configured: profile `nope` was not defined"
                    .to_owned()
            )
        );
        let no_provider = SdkConfig::builder()
            .behavior_version(BehaviorVersion::latest())
            .build();
        assert_eq!(
            resolve(no_provider, Duration::from_secs(1))
                .await
                .unwrap_err(),
            CredentialProblem::NotFound
        );
    }

    /// A provider that never answers.
    #[derive(Debug)]
    struct Silent;

    impl ProvideCredentials for Silent {
        fn provide_credentials<'a>(&'a self) -> provider::future::ProvideCredentials<'a>
        where
            Self: 'a,
        {
            provider::future::ProvideCredentials::new(std::future::pending())
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_chain_that_does_not_answer_is_a_failure_in_time() {
        let error = resolve(sdk(Silent), Duration::from_secs(5))
            .await
            .unwrap_err();
        assert_eq!(
            error,
            CredentialProblem::Failed("the credential chain did not answer within 5 s".to_owned())
        );
    }
}
