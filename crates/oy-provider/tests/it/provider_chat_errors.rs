//! The Chat Completions backend when things go wrong: HTTP statuses with
//! `Retry-After`, the key kept out of errors, refused connections, silent
//! and oversized streams, and a retried 500 through `stream_with_retries`.

use std::time::{Duration, Instant, SystemTime};

use futures_util::StreamExt;
use oy_provider::limits::MAX_SSE_EVENT_BYTES;
use oy_provider::{
    ErrorKind, Event, OpenAiChatProvider, OpenAiConfig, RetryPolicy, Secret, StopReason,
    stream_with_retries,
};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::provider_chat::{KEY, collect, config, request, serve, sse};
use crate::openai_spec::{self, CheckedUrl, Recorder, guarded_server};

async fn failing(template: ResponseTemplate) -> MockServer {
    let server = guarded_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(template)
        .mount(&server)
        .await;
    server
}

fn keyed(server: &MockServer) -> OpenAiChatProvider {
    let mut config = config(server);
    config.api_key = Some(Secret::new(KEY));
    config.api_key_name = Some("OPENAI_API_KEY".to_owned());
    OpenAiChatProvider::new(config).unwrap()
}

#[tokio::test]
async fn maps_429_with_retry_after_seconds() {
    let server = failing(
        ResponseTemplate::new(429)
            .insert_header("retry-after", "7")
            .set_body_string(r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#),
    )
    .await;
    let (_, error) = collect(&keyed(&server)).await;
    let error = error.unwrap();
    assert_eq!(error.kind(), ErrorKind::Status);
    assert_eq!(error.http_status(), Some(429));
    assert_eq!(error.retry_after(), Some(Duration::from_secs(7)));
    assert!(error.is_retryable());
    assert!(error.to_string().contains("Rate limit reached"));
}

#[tokio::test]
async fn maps_retry_after_given_as_an_http_date() {
    let at = SystemTime::now() + Duration::from_secs(120);
    let server = failing(
        ResponseTemplate::new(503).insert_header("retry-after", httpdate::fmt_http_date(at)),
    )
    .await;
    let (_, error) = collect(&keyed(&server)).await;
    let wait = error.unwrap().retry_after().unwrap();
    assert!(
        wait > Duration::from_secs(100) && wait <= Duration::from_secs(120),
        "{wait:?}"
    );
}

#[tokio::test]
async fn marks_500_retryable() {
    let server = failing(ResponseTemplate::new(500).set_body_string("upstream exploded")).await;
    let (_, error) = collect(&keyed(&server)).await;
    let error = error.unwrap();
    assert_eq!(error.http_status(), Some(500));
    assert!(error.is_retryable());
    assert_eq!(error.retry_after(), None);
}

#[tokio::test]
async fn names_the_key_variable_on_401_but_never_the_key() {
    let server = failing(ResponseTemplate::new(401).set_body_string(format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}.","code":"invalid_api_key"}}}}"#
    )))
    .await;
    let (_, error) = collect(&keyed(&server)).await;
    let error = error.unwrap();
    assert_eq!(error.http_status(), Some(401));
    assert!(!error.is_retryable());
    let message = error.to_string();
    assert!(message.contains("OPENAI_API_KEY"), "{message}");
    assert!(!message.contains(KEY), "{message}");
    assert!(!format!("{error:?}").contains(KEY));
}

#[tokio::test]
async fn reports_a_refused_connection_as_connect() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut config = OpenAiConfig::new(format!("http://127.0.0.1:{port}/v1"));
    config.api_key = Some(Secret::new(KEY));
    let (_, error) = collect(&OpenAiChatProvider::new(config).unwrap()).await;
    let error = error.unwrap();
    assert_eq!(error.kind(), ErrorKind::Connect);
    assert!(error.is_retryable());
    assert!(!error.to_string().contains(KEY));
}

/// A raw server that answers one request with SSE headers, then `body`,
/// then holds the connection open without a word. The request body is
/// checked against OpenAI's spec when the returned address is dropped.
async fn stalling_server(body: Vec<u8>) -> CheckedUrl {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let recorder = Recorder::default();
    let checked = recorder.clone();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        openai_spec::read_request(&mut socket, &checked).await;
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
        socket.write_all(head.as_bytes()).await.unwrap();
        for piece in body.chunks(64 * 1024) {
            if socket.write_all(piece).await.is_err() {
                return;
            }
        }
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    CheckedUrl {
        url: format!("http://{address}/v1"),
        recorder,
    }
}

#[tokio::test]
async fn cuts_a_stream_that_goes_silent_after_the_idle_timeout() {
    let server = stalling_server(
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n".to_vec(),
    )
    .await;
    let mut config = OpenAiConfig::new(&server.url);
    config.idle_timeout = Duration::from_millis(300);
    let started = Instant::now();
    let (events, error) = collect(&OpenAiChatProvider::new(config).unwrap()).await;
    assert_eq!(
        events,
        vec![Event::TextDelta {
            text: "Hel".to_owned()
        }]
    );
    let error = error.unwrap();
    assert_eq!(error.kind(), ErrorKind::IdleTimeout);
    assert!(error.is_retryable());
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn refuses_an_event_larger_than_the_limit_without_buffering_it_all() {
    // 4 MiB of one `data:` line that never ends, then silence: the reader
    // must give up at the limit, not wait for the end of the line.
    let mut body = b"data: {\"choices\":[{\"delta\":{\"content\":\"".to_vec();
    body.resize(4 * MAX_SSE_EVENT_BYTES, b'a');
    let server = stalling_server(body).await;
    let mut config = OpenAiConfig::new(&server.url);
    config.idle_timeout = Duration::from_secs(5);
    let (_, error) = collect(&OpenAiChatProvider::new(config).unwrap()).await;
    assert_eq!(error.unwrap().kind(), ErrorKind::LimitExceeded);
}

#[tokio::test]
async fn refuses_an_event_of_many_data_lines_past_the_limit() {
    let line = format!("data: {}\n", "b".repeat(64 * 1024));
    let body = line.repeat(MAX_SSE_EVENT_BYTES / (64 * 1024) + 2) + "\n";
    let server = serve(&body).await;
    let (_, error) = collect(&OpenAiChatProvider::new(config(&server)).unwrap()).await;
    assert_eq!(error.unwrap().kind(), ErrorKind::LimitExceeded);
}

#[tokio::test]
async fn retries_a_500_then_streams_the_answer() {
    let server = guarded_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(500))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(sse(include_str!("../fixtures/chat/text.sse")))
        .with_priority(2)
        .mount(&server)
        .await;
    let provider = OpenAiChatProvider::new(config(&server)).unwrap();
    let policy = RetryPolicy {
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
        ..RetryPolicy::default()
    };
    let retries = std::sync::atomic::AtomicU32::new(0);
    let stream = stream_with_retries(&provider, &request(), &policy, &|| true, &|_| {
        retries.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    })
    .await
    .unwrap();
    let events: Vec<Event> = stream.map(Result::unwrap).collect().await;
    assert_eq!(retries.into_inner(), 1);
    assert_eq!(
        events.last(),
        Some(&Event::Finished {
            reason: StopReason::EndTurn
        })
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn times_out_waiting_for_response_headers() {
    let server = failing(sse("data: [DONE]\n\n").set_delay(Duration::from_secs(5))).await;
    let mut config = config(&server);
    config.request_timeout = Duration::from_millis(200);
    let started = Instant::now();
    let (_, error) = collect(&OpenAiChatProvider::new(config).unwrap()).await;
    let error = error.unwrap();
    assert_eq!(error.kind(), ErrorKind::Timeout);
    assert!(error.is_retryable());
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn fails_on_an_error_reported_mid_stream() {
    let text = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n";
    let cases = [
        (
            r#"{"message":"model overloaded","code":503}"#,
            ErrorKind::Status,
            true,
        ),
        (
            r#"{"message":"model overloaded","code":"boom"}"#,
            ErrorKind::Protocol,
            false,
        ),
    ];
    for (error, kind, retryable) in cases {
        let server = serve(&format!("{text}data: {{\"error\":{error}}}\n\n")).await;
        let (events, got) = collect(&OpenAiChatProvider::new(config(&server)).unwrap()).await;
        assert_eq!(events.len(), 1);
        let got = got.unwrap();
        assert_eq!(got.kind(), kind, "{error}");
        assert_eq!(got.is_retryable(), retryable, "{error}");
        assert!(got.to_string().contains("model overloaded"));
    }
}

#[tokio::test]
async fn keeps_extra_header_values_out_of_debug_output() {
    let mut config = OpenAiConfig::new("https://gateway.example.com/v1");
    config.api_key = Some(Secret::new(KEY));
    config.extra_headers = vec![("api-key".to_owned(), "azure-secret-77".to_owned())];
    let shown = format!("{:?}", OpenAiChatProvider::new(config).unwrap());
    assert!(shown.contains("api-key"));
    assert!(!shown.contains("azure-secret-77"));
    assert!(!shown.contains(KEY));
}
