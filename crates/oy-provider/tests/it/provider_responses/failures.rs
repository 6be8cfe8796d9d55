//! The Responses backend's failures: errors inside the stream and in the
//! HTTP status, cut and silent streams, malformed events, and the limits.

use std::time::Duration;

use futures_util::StreamExt;
use oy_provider::{ErrorKind, Event, OpenAiConfig, OpenAiResponsesProvider, Provider};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use super::{KEY, provider, request, run, server_with, sse, stream_error, text_of};
use crate::openai_spec::{self, CheckedUrl, Recorder, guarded_server};

#[tokio::test]
async fn server_error_event_is_a_retryable_status() {
    let error = stream_error(sse(fixture!("error_event")), None).await;
    assert_eq!(error.kind(), ErrorKind::Status);
    assert!(error.is_retryable());
    assert!(error.to_string().contains("server_error"), "{error}");
}

/// llama.cpp reports a failure mid-stream as `data: {"error":{...}}`, with
/// no `type` and no `event:` name: it is that error, not a cut stream.
#[tokio::test]
async fn an_untyped_error_event_is_reported_as_the_error_it_carries() {
    let body = concat!(
        "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r1\",\"status\":\"in_progress\",\"output\":[]}}\n\n",
        "data: {\"error\":{\"code\":500,\"message\":\"the request exceeds the available context size\",\"type\":\"exceed_context_size_error\"}}\n\n",
    );
    let error = stream_error(sse(body), None).await;
    assert_ne!(error.kind(), ErrorKind::StreamCut, "{error}");
    assert!(
        error
            .to_string()
            .contains("exceeds the available context size"),
        "{error}"
    );
}

#[tokio::test]
async fn failed_response_is_a_protocol_error_with_its_message() {
    let error = stream_error(sse(fixture!("failed")), None).await;
    assert_eq!(error.kind(), ErrorKind::Protocol);
    assert!(!error.is_retryable());
    assert!(error.to_string().contains("Invalid prompt"), "{error}");
}

#[tokio::test]
async fn stream_without_completed_is_cut() {
    let server = server_with(sse(fixture!("no_completed"))).await;
    let items = run(&provider(&server, None)).await;
    assert!(matches!(items[0], Ok(Event::TextDelta { .. })));
    let error = items.last().unwrap().as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::StreamCut);
    assert!(error.is_retryable());
}

#[tokio::test]
async fn stream_stopping_mid_event_is_cut() {
    let error = stream_error(sse(fixture!("cut_mid_event")), None).await;
    assert_eq!(error.kind(), ErrorKind::StreamCut);
}

#[tokio::test]
async fn malformed_event_json_is_a_protocol_error() {
    let error = stream_error(sse(fixture!("malformed_json")), None).await;
    assert_eq!(error.kind(), ErrorKind::Protocol);
}

#[tokio::test]
async fn rate_limit_carries_retry_after() {
    let template = ResponseTemplate::new(429)
        .insert_header("retry-after", "7")
        .set_body_json(json!({"error": {"message": "Rate limit reached", "type": "requests"}}));
    let error = stream_error(template, Some(KEY)).await;
    assert_eq!(error.http_status(), Some(429));
    assert_eq!(error.retry_after(), Some(Duration::from_secs(7)));
    assert!(error.is_retryable());
    assert!(error.to_string().contains("Rate limit reached"), "{error}");
}

#[tokio::test]
async fn server_error_status_is_retryable() {
    let error = stream_error(
        ResponseTemplate::new(500).set_body_string("upstream broke"),
        None,
    )
    .await;
    assert_eq!(error.kind(), ErrorKind::Status);
    assert_eq!(error.http_status(), Some(500));
    assert!(error.is_retryable());
}

#[tokio::test]
async fn unauthorized_names_the_key_variable_not_the_key() {
    let template = ResponseTemplate::new(401).set_body_json(
        json!({"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}),
    );
    let error = stream_error(template, Some(KEY)).await;
    assert_eq!(error.http_status(), Some(401));
    assert!(!error.is_retryable());
    let text = format!("{error} {error:?}");
    assert!(text.contains("OPENAI_API_KEY"), "{text}");
    assert!(!text.contains(KEY), "{text}");
}

#[tokio::test]
async fn connection_refused_is_a_connect_error() {
    // wiremock pools its servers, so a closed port comes from a listener.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let config = OpenAiConfig::new(format!("http://127.0.0.1:{port}/v1"));
    let error = OpenAiResponsesProvider::new(config)
        .unwrap()
        .stream(&request())
        .await
        .err()
        .unwrap();
    assert_eq!(error.kind(), ErrorKind::Connect);
    assert!(error.is_retryable());
}

#[tokio::test]
async fn event_bigger_than_the_limit_is_refused() {
    let big = "x".repeat(oy_provider::limits::MAX_SSE_EVENT_BYTES + 16);
    let body = format!(
        "event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"delta\":\"{big}\"}}\n\n"
    );
    let error = stream_error(sse(&body), None).await;
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
}

#[tokio::test]
async fn tool_arguments_bigger_than_the_limit_are_refused() {
    let half = "y".repeat(oy_provider::limits::MAX_TOOL_ARGUMENT_BYTES / 2 + 8);
    let mut body = String::from(
        "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"write\",\"arguments\":\"\"}}\n\n",
    );
    for _ in 0..2 {
        body.push_str(&format!(
            "data: {{\"type\":\"response.function_call_arguments.delta\",\"output_index\":0,\"delta\":\"{half}\"}}\n\n"
        ));
    }
    let error = stream_error(sse(&body), None).await;
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
}

#[tokio::test]
async fn too_many_tool_calls_are_refused() {
    let mut body = String::new();
    for index in 0..=oy_provider::limits::MAX_TOOL_CALLS {
        body.push_str(&format!(
            "data: {{\"type\":\"response.output_item.added\",\"output_index\":{index},\"item\":{{\"type\":\"function_call\",\"call_id\":\"c{index}\",\"name\":\"read\",\"arguments\":\"\"}}}}\n\n"
        ));
    }
    let error = stream_error(sse(&body), None).await;
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
}

/// A server that sends the headers and `first` as one chunk, then stays
/// silent with the connection open. The request body is checked against
/// OpenAI's spec when the returned address is dropped.
async fn silent_after(first: &'static str) -> CheckedUrl {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let recorder = Recorder::default();
    let checked = recorder.clone();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        openai_spec::read_request(&mut socket, &checked).await;
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        let chunk = format!("{:x}\r\n{first}\r\n", first.len());
        socket.write_all(head.as_bytes()).await.unwrap();
        socket.write_all(chunk.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    CheckedUrl {
        url: format!("http://{address}/v1"),
        recorder,
    }
}

#[tokio::test]
async fn silent_stream_is_cut_after_the_idle_timeout() {
    let server = silent_after(
        "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"Hel\"}\n\n",
    )
    .await;
    let mut config = OpenAiConfig::new(&server.url);
    config.idle_timeout = Duration::from_millis(300);
    let items = run(&OpenAiResponsesProvider::new(config).unwrap()).await;
    assert_eq!(
        items[0],
        Ok(Event::TextDelta {
            text: "Hel".to_owned()
        })
    );
    let error = items[1].as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::IdleTimeout);
    assert!(error.is_retryable());
    assert_eq!(items.len(), 2);
}

#[tokio::test]
async fn in_stream_server_error_before_any_event_is_retried_by_the_gate() {
    let server = guarded_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(sse(fixture!("error_event")))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(sse(fixture!("text")))
        .mount(&server)
        .await;
    let policy = oy_provider::RetryPolicy {
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(2),
        ..oy_provider::RetryPolicy::default()
    };
    let stream = oy_provider::stream_with_retries(
        &provider(&server, None),
        &request(),
        &policy,
        &|| true,
        &|_| {},
    )
    .await
    .unwrap();
    let events: Vec<Event> = stream.map(Result::unwrap).collect().await;
    assert_eq!(text_of(&events), "Hi there! How can I help?");
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}
