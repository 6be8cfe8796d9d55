//! The `Provider` trait every backend implements, and [`Reachability`],
//! what its `check` finds.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use futures_core::Stream;

use crate::error::{ErrorKind, ProviderError};
use crate::model::{Event, ModelInfo, Request};
use crate::window::ServerWindow;

/// A stream of answer events; an `Err` item ends it.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<Event, ProviderError>> + Send>>;

/// A boxed future, so the trait stays usable as `dyn Provider`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What [`Provider::check`] found. The two parts are separate because a
/// backend may list its models somewhere other than where it answers
/// prompts (Bedrock: the control plane and the runtime), and a run needs
/// only the second.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reachability {
    /// `Ok` when the endpoint that answers prompts answered and did not
    /// reject the credentials.
    pub inference: Result<(), ProviderError>,
    /// The models listed, or why they could not be.
    pub models: Result<Vec<ModelInfo>, ProviderError>,
}

/// A model backend. Chosen at run time; tests implement it with a script.
pub trait Provider: Send + Sync {
    /// A short name for messages (`openai-chat`, `bedrock`…).
    fn name(&self) -> &str;

    /// Sends `request` and returns the answer as a stream. An `Err` here
    /// means nothing was received; an `Err` item means the stream broke.
    fn stream<'a>(
        &'a self,
        request: &'a Request,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>>;

    /// The models this provider offers.
    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>>;

    /// Whether a prompt would reach the model server, and its models,
    /// without spending tokens; each part waits at most `timeout`. The
    /// default lists the models once: servers that list them where they
    /// answer prompts answer both questions with one call.
    fn check(&self, timeout: Duration) -> BoxFuture<'_, Reachability> {
        Box::pin(async move {
            let models = within(timeout, "the provider", self.list_models()).await;
            Reachability {
                inference: models.as_ref().map(|_| ()).map_err(Clone::clone),
                models,
            }
        })
    }

    /// The context window the server runs `model` with, when it can tell;
    /// each probe waits at most `timeout`. `None` means it cannot (never an
    /// error): the caller falls back to its own table. The default cannot
    /// tell.
    fn context_window<'a>(
        &'a self,
        model: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Option<ServerWindow>> {
        let _ = (model, timeout);
        Box::pin(std::future::ready(None))
    }
}

/// `call`, or a [`ErrorKind::Timeout`] naming `who` once `timeout` passed.
pub(crate) async fn within<T>(
    timeout: Duration,
    who: &str,
    call: impl Future<Output = Result<T, ProviderError>>,
) -> Result<T, ProviderError> {
    tokio::time::timeout(timeout, call)
        .await
        .unwrap_or_else(|_| {
            Err(ProviderError::new(
                ErrorKind::Timeout,
                format!("{who} did not answer within {} s", timeout.as_secs_f32()),
            ))
        })
}
