//! Check before sending: a prompt that cannot fit the model's window (with
//! the instructions and tool definitions) is refused before any request and
//! leaves nothing behind; the server's word on the window is waited for
//! only when the prompt is over the window known so far.

use std::sync::Arc;
use std::time::{Duration, Instant};

use oy_agent::{AgentError, AgentOptions};
use oy_provider::{
    BoxFuture, EventStream, ModelInfo, Provider, ProviderError, Request, ScriptedProvider,
    ServerWindow, WindowSource,
};
use oy_tools::Mode;

use crate::support::{Ws, builder, kinds, text};

/// A scripted provider whose server takes `delay` to name its window.
struct SlowWindow {
    inner: ScriptedProvider,
    delay: Duration,
    window: Option<u64>,
}

impl SlowWindow {
    fn new(
        delay: Duration,
        window: Option<u64>,
        replies: Vec<oy_provider::ScriptedReply>,
    ) -> Arc<Self> {
        Arc::new(Self {
            inner: ScriptedProvider::new(replies),
            delay,
            window,
        })
    }

    fn requests(&self) -> Vec<Request> {
        self.inner.requests()
    }
}

impl Provider for SlowWindow {
    fn name(&self) -> &str {
        "scripted"
    }

    fn stream<'a>(
        &'a self,
        request: &'a Request,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        self.inner.stream(request)
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        self.inner.list_models()
    }

    fn context_window<'a>(
        &'a self,
        _model: &'a str,
        _timeout: Duration,
    ) -> BoxFuture<'a, Option<ServerWindow>> {
        let (delay, window) = (self.delay, self.window);
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            window.map(|tokens| ServerWindow::new(tokens, WindowSource::ModelList))
        })
    }
}

/// About `tokens` tokens of prompt by the default estimate (3.5 bytes each).
fn prompt_of(tokens: usize) -> String {
    "word ".repeat(tokens * 7 / 10)
}

#[tokio::test]
async fn a_guessed_window_never_refuses_a_prompt() {
    // Nothing knows the window: the fallback is a guess, and the server
    // may well take the prompt; it is sent.
    let ws = Ws::new();
    let provider = SlowWindow::new(Duration::ZERO, None, vec![text("took it")]);
    let (builder, _) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    let outcome = agent.turn(&prompt_of(60_000)).await.unwrap();
    assert_eq!(outcome.text, "took it");
    assert_eq!(provider.requests().len(), 1);
}

#[tokio::test]
async fn a_prompt_over_the_window_makes_no_request_and_leaves_nothing() {
    let ws = Ws::new();
    let provider = SlowWindow::new(Duration::ZERO, None, vec![text("fine")]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut options = AgentOptions::default();
    options.context_window = Some(32_768);
    let mut agent = builder.options(options).build().unwrap();

    let error = agent.turn(&prompt_of(60_000)).await.unwrap_err();
    let AgentError::PromptTooLarge {
        prompt_tokens,
        window,
        source,
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(*window, 32_768);
    assert_eq!(source, "configured");
    assert!(*prompt_tokens > 60_000, "{prompt_tokens}");
    assert!(provider.requests().is_empty());
    assert_eq!(kinds(&events.events()), ["session_started"]);
    assert!(agent.history().is_empty());
    assert!(agent.transcript().entries().is_empty());

    // The next prompt that fits is the session's first turn.
    let outcome = agent.turn("hello").await.unwrap();
    assert_eq!((outcome.turn, outcome.text.as_str()), (1, "fine"));
    assert_eq!(provider.requests().len(), 1);
}

#[tokio::test]
async fn the_error_says_how_large_against_what_window_from_where() {
    let ws = Ws::new();
    let provider = SlowWindow::new(Duration::ZERO, None, vec![]);
    let (builder, _) = builder(provider.clone(), &ws, Mode::Plan);
    let mut options = AgentOptions::default();
    options.context_window = Some(4096);
    let mut agent = builder.options(options).build().unwrap();
    let error = agent.turn(&prompt_of(10_000)).await.unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("the prompt does not fit the model's context window: about "),
        "{text}"
    );
    assert!(
        text.contains(" tokens with the instructions and tool definitions, and the window is 4096 tokens (configured); shorten the prompt or attach less, or use a model with a larger window"),
        "{text}"
    );
    assert!(std::error::Error::source(&error).is_none());
    assert!(provider.requests().is_empty());
}

#[tokio::test]
async fn the_model_table_names_its_window_as_the_source() {
    let ws = Ws::new();
    let provider = SlowWindow::new(Duration::ZERO, None, vec![]);
    let events = Arc::new(oy_agent::CollectedEvents::default());
    let mut agent = oy_agent::AgentBuilder::new(provider.clone(), "gpt-3.5-turbo")
        .workspace(Arc::clone(&ws.workspace))
        .events(events)
        .build()
        .unwrap();
    let error = agent.turn(&prompt_of(20_000)).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::PromptTooLarge { window: 16_385, source, .. } if source == "the model table"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_prompt_over_the_known_window_waits_for_the_server_and_goes_through() {
    let ws = Ws::new();
    // The fallback window is 32 768 tokens; the server, asked in the
    // background, runs the model with 200 000.
    let provider = SlowWindow::new(
        Duration::from_millis(300),
        Some(200_000),
        vec![text("read it all")],
    );
    let (builder, _) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    let outcome = agent.turn(&prompt_of(60_000)).await.unwrap();
    assert_eq!(outcome.text, "read it all");
    assert_eq!(provider.requests().len(), 1);
    assert_eq!(agent.budget().window(), 200_000);
}

#[tokio::test]
async fn the_server_window_too_small_refuses_with_the_server_as_source() {
    let ws = Ws::new();
    // Over the fallback window, so the server is waited for; it runs the
    // model with less still.
    let provider = SlowWindow::new(Duration::from_millis(100), Some(8_192), vec![]);
    let (builder, _) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    let error = agent.turn(&prompt_of(40_000)).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::PromptTooLarge { window: 8_192, source, .. } if source == "the server"),
        "{error:?}"
    );
    assert!(provider.requests().is_empty());
}

#[tokio::test]
async fn a_prompt_that_fits_never_waits_for_the_server() {
    let ws = Ws::new();
    let provider = SlowWindow::new(Duration::from_secs(3), Some(200_000), vec![text("quick")]);
    let (builder, _) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    let started = Instant::now();
    let outcome = agent.turn("a short prompt").await.unwrap();
    assert_eq!(outcome.text, "quick");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "waited {:?}",
        started.elapsed()
    );
}
