//! The retry gate, on paused tokio time: what is retried, how long it
//! waits, and that nothing is replayed after a side effect.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use oy_provider::{
    ErrorKind, Event, ProviderError, Request, RetryNotice, RetryPolicy, ScriptedProvider,
    ScriptedReply, StopReason, stream_with_retries,
};

fn answer(text: &str) -> ScriptedReply {
    ScriptedReply::Stream(vec![
        Ok(Event::TextDelta {
            text: text.to_owned(),
        }),
        Ok(Event::Finished {
            reason: StopReason::EndTurn,
        }),
    ])
}

fn status(code: u16, retry_after: Option<u64>) -> ScriptedReply {
    ScriptedReply::Fail(ProviderError::status(
        code,
        retry_after.map(Duration::from_secs),
        "",
        None,
    ))
}

async fn run(
    provider: &ScriptedProvider,
    may_retry: bool,
) -> (Result<Vec<Event>, ProviderError>, Vec<RetryNotice>) {
    let notices = Mutex::new(Vec::new());
    let allowed = AtomicBool::new(may_retry);
    let result = stream_with_retries(
        provider,
        &Request::default(),
        &RetryPolicy::default(),
        &|| allowed.load(Ordering::SeqCst),
        &|notice| notices.lock().unwrap().push(notice.clone()),
    )
    .await;
    let events = match result {
        Ok(stream) => Ok(stream
            .collect::<Vec<_>>()
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect()),
        Err(error) => Err(error),
    };
    (events, notices.into_inner().unwrap())
}

#[tokio::test(start_paused = true)]
async fn a_500_then_success_is_retried_once_with_backoff() {
    let provider = ScriptedProvider::new([status(500, None), answer("hi")]);
    let started = tokio::time::Instant::now();
    let (events, notices) = run(&provider, true).await;
    assert_eq!(events.unwrap().len(), 2);
    assert_eq!(provider.requests().len(), 2);
    assert_eq!(notices.len(), 1);
    let delay = notices[0].delay;
    assert!(
        delay >= Duration::from_millis(250) && delay <= Duration::from_millis(500),
        "{delay:?}"
    );
    assert_eq!(started.elapsed(), delay);
}

#[tokio::test(start_paused = true)]
async fn retry_after_is_honoured_for_429() {
    let provider = ScriptedProvider::new([status(429, Some(7)), answer("ok")]);
    let started = tokio::time::Instant::now();
    let (events, notices) = run(&provider, true).await;
    assert!(events.is_ok());
    assert_eq!(notices[0].delay, Duration::from_secs(7));
    assert_eq!(started.elapsed(), Duration::from_secs(7));
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_beyond_the_bound_fails_at_once() {
    let provider = ScriptedProvider::new([status(429, Some(3600)), answer("never")]);
    let (events, notices) = run(&provider, true).await;
    let error = events.unwrap_err();
    assert!(
        error.to_string().contains("longer than oy waits"),
        "{error}"
    );
    assert!(notices.is_empty());
    assert_eq!(provider.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn attempts_are_bounded() {
    let provider = ScriptedProvider::new((0..10).map(|_| status(503, None)));
    let (events, notices) = run(&provider, true).await;
    let error = events.unwrap_err();
    assert!(
        error.to_string().contains("gave up after 4 attempts"),
        "{error}"
    );
    assert_eq!(provider.requests().len(), 4);
    assert_eq!(notices.len(), 3);
    // Backoff doubles (with jitter between half and all of each step).
    for (notice, full_ms) in notices.iter().zip([500u64, 1000, 2000]) {
        let ms = u64::try_from(notice.delay.as_millis()).unwrap();
        assert!(ms >= full_ms / 2 && ms <= full_ms, "{ms} for {full_ms}");
    }
}

#[tokio::test(start_paused = true)]
async fn client_errors_are_not_retried() {
    for code in [400, 401, 403, 404, 422] {
        let provider = ScriptedProvider::new([status(code, None), answer("never")]);
        let (events, _) = run(&provider, true).await;
        assert_eq!(events.unwrap_err().http_status(), Some(code));
        assert_eq!(provider.requests().len(), 1, "HTTP {code} was retried");
    }
    for code in [408, 409] {
        let provider = ScriptedProvider::new([status(code, None), answer("ok")]);
        assert!(
            run(&provider, true).await.0.is_ok(),
            "HTTP {code} not retried"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn nothing_is_replayed_after_a_side_effect() {
    let provider = ScriptedProvider::new([status(500, None), answer("must not be requested")]);
    let (events, notices) = run(&provider, false).await;
    let error = events.unwrap_err();
    assert!(error.to_string().contains("not retried"), "{error}");
    assert!(error.to_string().contains("not replayed"), "{error}");
    assert_eq!(provider.requests().len(), 1, "a retried request went out");
    assert!(notices.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_stream_cut_before_the_first_event_is_retried() {
    let cut = ScriptedReply::Stream(vec![Err(ProviderError::new(
        ErrorKind::StreamCut,
        "connection reset",
    ))]);
    let empty = ScriptedReply::Stream(Vec::new());
    let provider = ScriptedProvider::new([cut, empty, answer("third time")]);
    let (events, notices) = run(&provider, true).await;
    assert_eq!(events.unwrap().len(), 2);
    assert_eq!(notices.len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_failure_after_the_first_event_goes_to_the_caller_unretried() {
    let partial = ScriptedReply::Stream(vec![
        Ok(Event::TextDelta {
            text: "half".to_owned(),
        }),
        Err(ProviderError::new(ErrorKind::StreamCut, "connection reset")),
    ]);
    let provider = ScriptedProvider::new([partial, answer("never")]);
    let stream = stream_with_retries(
        &provider,
        &Request::default(),
        &RetryPolicy::default(),
        &|| true,
        &|_| {},
    )
    .await
    .unwrap();
    let items: Vec<_> = stream.collect().await;
    assert_eq!(items.len(), 2);
    assert!(items[1].is_err());
    assert_eq!(
        provider.requests().len(),
        1,
        "text already shown must not be duplicated"
    );
}
