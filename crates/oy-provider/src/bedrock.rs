//! [`BedrockProvider`]: AWS Bedrock through the runtime API's
//! `ConverseStream`, with tool use. The frontend resolves configuration
//! (oy-cli calls `aws_config::defaults(BehaviorVersion::latest()).load()`
//! for the standard credential chain, `AWS_REGION` and `AWS_PROFILE`) and
//! passes the resulting [`SdkConfig`] in, with any [`BedrockEndpoints`]
//! override, or builds a [`BedrockConfig`] from explicit values; this crate
//! never reads the environment. The SDK's own retries and stalled-stream
//! protection are off: [`crate::retry`] decides retries (never after a side
//! effect) and the idle timeout here cuts silent streams. Model listing
//! (`ListFoundationModels`) is in the control-plane API, `aws-sdk-bedrock`,
//! which is reached at its own endpoint, never at the runtime's.

mod converse;
mod credentials;
mod decode;
mod endpoints;
mod errors;
mod probe;
mod request;

use std::collections::VecDeque;
use std::time::Duration;

use aws_sdk_bedrockruntime::Client;
use aws_sdk_bedrockruntime::config::retry::RetryConfig;
use aws_sdk_bedrockruntime::config::{
    BehaviorVersion, Builder, ProvideCredentials, Region, SharedCredentialsProvider,
    StalledStreamProtectionConfig,
};
use aws_sdk_bedrockruntime::primitives::event_stream::EventReceiver;
use aws_sdk_bedrockruntime::types::ConverseStreamOutput;
use aws_sdk_bedrockruntime::types::error::ConverseStreamOutputError;
pub use aws_types::SdkConfig;
pub(crate) use credentials::{CredentialProblem, resolve as resolve_credentials};
pub use endpoints::BedrockEndpoints;

use crate::error::{ErrorKind, ProviderError};
use crate::model::{Event, ModelInfo, Request};
use crate::provider::{BoxFuture, EventStream, Provider, Reachability, within};
use crate::pump::{self, Step};

use decode::ConverseDecoder;
use request::ConverseInput;

/// The default idle timeout: a stream silent this long is cut.
const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// Explicit Bedrock settings, for callers that do not load an [`SdkConfig`].
#[derive(Debug, Clone)]
pub struct BedrockConfig {
    /// The AWS region (`us-east-1`…).
    pub region: String,
    /// Where the runtime and the control plane are reached instead of the
    /// regional endpoints (tests, VPC endpoints, proxies). Requests are
    /// still signed.
    pub endpoints: BedrockEndpoints,
    /// Where credentials come from.
    pub credentials: SharedCredentialsProvider,
    /// A stream silent this long is cut ([`ErrorKind::IdleTimeout`]).
    pub idle_timeout: Duration,
}

impl BedrockConfig {
    /// Settings for `region` with `credentials`, the regional endpoints and
    /// a 60 s idle timeout.
    pub fn new(region: impl Into<String>, credentials: impl ProvideCredentials + 'static) -> Self {
        Self {
            region: region.into(),
            endpoints: BedrockEndpoints::default(),
            credentials: SharedCredentialsProvider::new(credentials),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
        }
    }

    /// The same settings with runtime requests (prompts) sent to `url`.
    pub fn with_endpoint_url(mut self, url: impl Into<String>) -> Self {
        self.endpoints.runtime = Some(url.into());
        self
    }

    /// The same settings with control-plane requests (model listing) sent
    /// to `url`.
    pub fn with_control_endpoint_url(mut self, url: impl Into<String>) -> Self {
        self.endpoints.control = Some(url.into());
        self
    }
}

/// The Bedrock backend.
#[derive(Debug, Clone)]
pub struct BedrockProvider {
    client: Client,
    /// The control-plane API, for ListFoundationModels.
    control: aws_sdk_bedrock::Client,
    /// How messages name the runtime and the control plane (where each is).
    runtime_name: String,
    control_name: String,
    idle_timeout: Duration,
    streaming: bool,
}

impl BedrockProvider {
    /// A provider from explicit settings.
    pub fn new(config: BedrockConfig) -> Self {
        let builder = Builder::new()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new(config.region.clone()))
            .credentials_provider(config.credentials.clone());
        let control = aws_sdk_bedrock::config::Builder::new()
            .behavior_version(aws_sdk_bedrock::config::BehaviorVersion::latest())
            .region(aws_sdk_bedrock::config::Region::new(config.region))
            .credentials_provider(config.credentials);
        Self::with_builders(builder, control, &config.endpoints, config.idle_timeout)
    }

    /// A provider from an [`SdkConfig`] the frontend loaded (region,
    /// credentials, the SDK's endpoint settings) with `endpoints` on top,
    /// and a 60 s idle timeout. An override for the runtime belongs in
    /// `endpoints`, not in the `SdkConfig`: there it would apply to the
    /// control plane too. A missing region shows up as an
    /// [`ErrorKind::Config`] error on the first call.
    pub fn from_sdk_config(config: &SdkConfig, endpoints: &BedrockEndpoints) -> Self {
        Self::with_builders(
            Builder::from(config),
            aws_sdk_bedrock::config::Builder::from(config),
            endpoints,
            DEFAULT_IDLE_TIMEOUT,
        )
    }

    /// The same provider with another idle timeout.
    pub fn with_idle_timeout(mut self, idle_timeout: Duration) -> Self {
        self.idle_timeout = idle_timeout;
        self
    }

    /// With `false`, requests use `Converse` (the whole answer at once,
    /// replayed as the same events) instead of `ConverseStream` — for
    /// models or endpoints that do not stream.
    pub fn with_streaming(mut self, streaming: bool) -> Self {
        self.streaming = streaming;
        self
    }

    fn with_builders(
        mut builder: Builder,
        mut control: aws_sdk_bedrock::config::Builder,
        endpoints: &BedrockEndpoints,
        idle_timeout: Duration,
    ) -> Self {
        let runtime_url = endpoints.runtime.clone();
        let control_url = endpoints.control_url();
        if let Some(url) = &runtime_url {
            builder = builder.endpoint_url(url);
        }
        if let Some(url) = &control_url {
            control = control.endpoint_url(url);
        }
        let config = builder
            .retry_config(RetryConfig::disabled())
            .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
            .build();
        let control = control
            .retry_config(aws_sdk_bedrock::config::retry::RetryConfig::disabled())
            .build();
        let region = config.region().map(ToString::to_string);
        Self {
            runtime_name: endpoints::describe("runtime", runtime_url.as_deref(), region.as_deref()),
            control_name: endpoints::describe(
                "control plane",
                control_url.as_deref(),
                region.as_deref(),
            ),
            client: Client::from_conf(config),
            control: aws_sdk_bedrock::Client::from_conf(control),
            idle_timeout,
            streaming: true,
        }
    }

    /// ListFoundationModels: the models that answer with text.
    async fn models(&self) -> Result<Vec<ModelInfo>, ProviderError> {
        let call = async {
            self.control
                .list_foundation_models()
                .send()
                .await
                .map_err(|error| errors::from_call(error, &self.control_name))
        };
        let output = within(self.idle_timeout, &self.control_name, call).await?;
        let mut models: Vec<ModelInfo> = output
            .model_summaries()
            .iter()
            .filter(|summary| {
                summary.output_modalities().is_empty()
                    || summary
                        .output_modalities()
                        .iter()
                        .any(|modality| modality.as_str() == "TEXT")
            })
            .map(|summary| ModelInfo {
                id: summary.model_id().to_owned(),
                owned_by: summary.provider_name().map(str::to_owned),
                context_window: None,
            })
            .collect();
        models.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(models)
    }

    async fn open(&self, request: &Request) -> Result<EventStream, ProviderError> {
        if !self.streaming {
            return self.converse(request).await;
        }
        let input = ConverseInput::new(request)?;
        let call = self
            .client
            .converse_stream()
            .model_id(&request.model)
            .set_messages(Some(input.messages))
            .set_system(input.system)
            .set_tool_config(input.tool_config)
            .set_inference_config(input.inference)
            .send();
        let call = async {
            call.await
                .map_err(|error| errors::from_send(error, &self.runtime_name))
        };
        let output = within(self.idle_timeout, &self.runtime_name, call).await?;
        Ok(Box::pin(pump::events(State {
            receiver: output.stream,
            idle_timeout: self.idle_timeout,
            decoder: ConverseDecoder::default(),
        })))
    }
}

impl BedrockProvider {
    /// One `Converse` call, its answer replayed as events.
    async fn converse(&self, request: &Request) -> Result<EventStream, ProviderError> {
        let input = ConverseInput::new(request)?;
        let call = self
            .client
            .converse()
            .model_id(&request.model)
            .set_messages(Some(input.messages))
            .set_system(input.system)
            .set_tool_config(input.tool_config)
            .set_inference_config(input.inference)
            .send();
        let call = async {
            call.await
                .map_err(|error| errors::from_call(error, &self.runtime_name))
        };
        let output = within(self.idle_timeout, &self.runtime_name, call).await?;
        let events = converse::events(&output)?;
        Ok(Box::pin(futures_util::stream::iter(
            events.into_iter().map(Ok),
        )))
    }
}

impl Provider for BedrockProvider {
    fn name(&self) -> &str {
        "bedrock"
    }

    fn stream<'a>(
        &'a self,
        request: &'a Request,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        Box::pin(self.open(request))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(self.models())
    }

    /// The runtime and the control plane are asked separately (and at
    /// once): a model list that cannot be had says nothing about prompts.
    fn check(&self, timeout: Duration) -> BoxFuture<'_, Reachability> {
        Box::pin(async move {
            let (inference, models) = futures_util::future::join(
                within(
                    timeout,
                    &self.runtime_name,
                    probe::runtime(&self.client, &self.runtime_name),
                ),
                within(timeout, &self.control_name, self.models()),
            )
            .await;
            Reachability { inference, models }
        })
    }
}

type Receiver = EventReceiver<ConverseStreamOutput, ConverseStreamOutputError>;

/// Reading state: the SDK's event receiver, the idle timeout and the decoder.
struct State {
    receiver: Receiver,
    idle_timeout: Duration,
    decoder: ConverseDecoder,
}

impl Step for State {
    /// Reads one stream event; the answer is complete once the decoder saw
    /// the end of the message, or the stream ended.
    async fn step(&mut self, out: &mut VecDeque<Event>) -> Result<bool, ProviderError> {
        if self.decoder.is_finished() {
            return Ok(false);
        }
        let idle_timeout = self.idle_timeout;
        let next = tokio::time::timeout(idle_timeout, self.receiver.recv())
            .await
            .map_err(|_| {
                ProviderError::new(
                    ErrorKind::IdleTimeout,
                    format!(
                        "the Bedrock stream was silent for {} s",
                        idle_timeout.as_secs()
                    ),
                )
            })?
            .map_err(errors::from_stream)?;
        match next {
            Some(event) => self.decoder.event(event, out).map(|()| true),
            None => self.decoder.eof(out).map(|()| false),
        }
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_bedrockruntime::config::Credentials;

    use super::*;

    fn config() -> BedrockConfig {
        let credentials = Credentials::new("AKIDTEST", "test-secret", None, None, "oy-test");
        BedrockConfig::new("us-east-1", credentials)
    }

    #[test]
    fn a_runtime_endpoint_is_not_given_to_the_control_plane() {
        let provider = BedrockProvider::new(config().with_endpoint_url("http://127.0.0.1:4566"));
        assert_eq!(
            provider.runtime_name,
            "the Bedrock runtime at http://127.0.0.1:4566"
        );
        assert_eq!(
            provider.control_name,
            "the Bedrock control plane in us-east-1"
        );
    }

    #[test]
    fn a_regional_runtime_endpoint_from_the_frontend_implies_the_control_plane() {
        let sdk = SdkConfig::builder()
            .region(Region::new("us-east-1"))
            .behavior_version(BehaviorVersion::latest())
            .build();
        let endpoints = BedrockEndpoints {
            runtime: Some("https://bedrock-runtime.us-west-2.amazonaws.com".into()),
            control: None,
        };
        let provider = BedrockProvider::from_sdk_config(&sdk, &endpoints);
        assert_eq!(
            provider.control_name,
            "the Bedrock control plane at https://bedrock.us-west-2.amazonaws.com"
        );
        let provider = BedrockProvider::from_sdk_config(&sdk, &BedrockEndpoints::default());
        assert_eq!(provider.runtime_name, "the Bedrock runtime in us-east-1");
    }
}
