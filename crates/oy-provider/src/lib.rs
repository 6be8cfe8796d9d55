//! Model providers for oy.
//!
//! It owns: the provider-neutral [`Request`] (instructions, messages with
//! user text, assistant text and tool calls, tool results; tool schemas as
//! plain JSON Schema; output limits) and the stream of [`Event`]s a model
//! answers with (text deltas, tool calls started / argument deltas / done,
//! usage, finish with a [`StopReason`]); the [`Provider`] trait every
//! backend implements (usable as `dyn`, so tests can script one), the
//! [`Reachability`] its `check` reports without spending tokens and the
//! [`ServerWindow`] its `context_window` asks the model server for; the
//! [`retry`] gate (transient failures retried with jittered backoff, never
//! after a side effect); [`Secret`] for API keys; the [`limits`] on what a
//! server may send; and choosing the provider and model from plain values
//! ([`connect`]: provider tables, the environment the frontend resolved,
//! local servers found by a probe), with the reason for each choice and a
//! typed [`ConnectError`] when none can be made.
//!
//! It must never: let a wire type (Chat Completions, Responses, Converse)
//! leave this crate, log or print a key, read environment variables (the
//! frontend resolves configuration), know about oy's tools, or retry a
//! prompt once the caller says a side effect was attempted.

mod autodetect;
#[cfg(feature = "bedrock")]
mod bedrock;
mod connect;
mod error;
pub mod limits;
mod model;
mod openai;
mod openai_chat;
mod openai_responses;
mod provider;
mod pump;
pub mod retry;
mod scripted;
mod secret;
mod window;

pub use autodetect::{
    LocalServer, LocalServerKind, ProbeTargets, probe_local_servers, probe_servers,
};
#[cfg(feature = "bedrock")]
pub use bedrock::{BedrockConfig, BedrockEndpoints, BedrockProvider, SdkConfig};
pub use connect::{
    AwsConfig, AwsPlaces, AwsSettings, Backend, BedrockChoice, Choice, ConnectError,
    ConnectSettings, Connected, DEFAULT_BEDROCK_MODEL, DEFAULT_OPENAI_MODEL, ModelChoice,
    ProviderEnv, ProviderKind, ProviderTable, Sourced, WireApi, build_provider, choose_model,
    choose_provider, connect,
};
pub use error::{ErrorKind, ProviderError};
pub use model::{
    Event, Message, ModelInfo, ReasoningEffort, Request, StopReason, ToolCall, ToolSchema, Usage,
};
pub use openai::OpenAiConfig;
pub use openai_chat::OpenAiChatProvider;
pub use openai_responses::OpenAiResponsesProvider;
pub use provider::{BoxFuture, EventStream, Provider, Reachability};
pub use retry::{Attempts, Replay, RetryNotice, RetryPolicy, stream_with_retries};
pub use scripted::{ScriptedProvider, ScriptedReply};
pub use secret::Secret;
pub use window::{ServerWindow, WindowBound, WindowSource};
