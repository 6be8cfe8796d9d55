//! The `Provider` trait every backend implements.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use futures_core::Stream;

use crate::error::{ErrorKind, ProviderError};
use crate::model::{Event, ModelInfo, Request};

/// A stream of answer events; an `Err` item ends it.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<Event, ProviderError>> + Send>>;

/// A boxed future, so the trait stays usable as `dyn Provider`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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
