//! The `Provider` trait every backend implements.

use std::future::Future;
use std::pin::Pin;

use futures_core::Stream;

use crate::error::ProviderError;
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
