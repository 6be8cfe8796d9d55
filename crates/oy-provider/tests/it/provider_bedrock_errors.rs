//! The Bedrock backend when things go wrong: AWS error answers, exceptions
//! mid-stream, cut streams, refused connections and event-stream frames
//! that do not decode. Each must be classified for the retry gate and read
//! as one short line naming what failed, never as SDK debug output.

use oy_provider::{
    BedrockConfig, BedrockProvider, ErrorKind, Event, Provider, ProviderError, RetryPolicy,
    stream_with_retries,
};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::provider_bedrock::{
    collect, collect_from, credentials, frame, frame_bytes, provider, read_request_head, request,
    send_event_stream_chunk, serve, start, stream_body, text,
};

/// Fails unless `error` reads as one short line without SDK internals.
fn assert_readable(error: &ProviderError) {
    let shown = error.to_string();
    assert!(shown.len() < 300, "{} chars: {shown}", shown.len());
    assert!(!shown.contains('\n'), "{shown}");
    for internal in [
        "DispatchFailure",
        "Decoded(",
        "headers:",
        "ServiceError {",
        "ConnectorError",
        "Some(",
    ] {
        assert!(!shown.contains(internal), "`{internal}` in: {shown}");
    }
}

/// A port on 127.0.0.1 where nothing listens.
fn closed_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{address}")
}

fn aws_error(status: u16, kind: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .insert_header(
            "x-amzn-errortype",
            format!("{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
        )
        .set_body_raw(json!({"message": message}).to_string(), "application/json")
}

#[tokio::test]
async fn throttling_is_a_retryable_429() {
    let server = serve(aws_error(429, "ThrottlingException", "Too many requests")).await;
    let (events, error) = collect(&server, &request()).await;
    assert!(events.is_empty());
    let error = error.unwrap();
    assert_eq!(error.kind(), ErrorKind::Status);
    assert_eq!(error.http_status(), Some(429));
    assert!(error.is_retryable());
    assert_readable(&error);
    let shown = error.to_string();
    for part in ["429", "ThrottlingException", "Too many requests"] {
        assert!(shown.contains(part), "{part} missing: {shown}");
    }
    // The SDK's own retries are off: the retry gate decides.
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn access_denied_and_validation_are_final() {
    for (status, kind) in [(403, "AccessDeniedException"), (400, "ValidationException")] {
        let server = serve(aws_error(status, kind, "nope")).await;
        let (_, error) = collect(&server, &request()).await;
        let error = error.unwrap();
        assert_eq!(error.http_status(), Some(status), "{kind}");
        assert!(!error.is_retryable(), "{kind}");
    }
    let server = serve(aws_error(503, "ServiceUnavailableException", "busy")).await;
    let (_, error) = collect(&server, &request()).await;
    assert!(error.unwrap().is_retryable());
}

#[tokio::test]
async fn exception_event_mid_stream_keeps_earlier_text() {
    let exception = frame(
        &[
            (":exception-type", "throttlingException"),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        &json!({"message": "slow down"}),
    );
    let server = serve(stream_body(&[start(), text(0, "partial"), exception])).await;
    let (events, error) = collect(&server, &request()).await;
    assert_eq!(
        events,
        vec![Event::TextDelta {
            text: "partial".into()
        }]
    );
    let error = error.unwrap();
    assert_eq!(error.http_status(), Some(429));
    assert!(error.is_retryable());
    assert_readable(&error);
    let shown = error.to_string();
    for part in ["429", "ThrottlingException", "slow down"] {
        assert!(shown.contains(part), "{part} missing: {shown}");
    }
}

#[tokio::test]
async fn stream_ending_before_message_stop_is_a_cut() {
    let server = serve(stream_body(&[start(), text(0, "half")])).await;
    let (events, error) = collect(&server, &request()).await;
    assert_eq!(
        events,
        vec![Event::TextDelta {
            text: "half".into()
        }]
    );
    let error = error.unwrap();
    assert_eq!(error.kind(), ErrorKind::StreamCut);
    assert!(error.is_retryable());
}

#[tokio::test]
async fn a_refused_connection_names_the_endpoint_and_the_cause() {
    let url = closed_port();
    let provider = BedrockProvider::new(
        BedrockConfig::new("us-east-1", credentials()).with_endpoint_url(&url),
    );
    let error = match provider.stream(&request()).await {
        Ok(_) => panic!("connected to a closed port"),
        Err(error) => error,
    };
    assert_eq!(error.kind(), ErrorKind::Connect, "{error}");
    assert!(error.is_retryable());
    assert_readable(&error);
    let shown = error.to_string();
    assert!(shown.contains("connection refused"), "{shown}");
    assert!(
        shown.contains(&format!("the Bedrock runtime at {url}")),
        "{shown}"
    );

    let provider = BedrockProvider::new(
        BedrockConfig::new("us-east-1", credentials()).with_control_endpoint_url(&url),
    );
    let error = provider.list_models().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Connect, "{error}");
    assert_readable(&error);
    let shown = error.to_string();
    assert!(shown.contains("connection refused"), "{shown}");
    assert!(
        shown.contains(&format!("the Bedrock control plane at {url}")),
        "{shown}"
    );
}

#[tokio::test]
async fn a_403_names_status_code_message_and_credential_on_one_line() {
    let denial = "User: arn:aws:iam::123456789012:user/dev is not authorized to perform: \
                  bedrock:InvokeModelWithResponseStream";
    let server = serve(aws_error(403, "AccessDeniedException", denial)).await;
    let (_, error) = collect(&server, &request()).await;
    let error = error.unwrap();
    assert_eq!(error.http_status(), Some(403));
    assert!(!error.is_retryable());
    assert_readable(&error);
    let shown = error.to_string();
    for part in [
        "403",
        "AccessDeniedException",
        "is not authorized to perform",
        "AWS credential chain",
        &server.uri(),
    ] {
        assert!(shown.contains(part), "{part} missing: {shown}");
    }
}

#[tokio::test]
async fn a_connection_cut_inside_a_frame_is_a_retryable_cut() {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        read_request_head(&mut socket).await;
        // One whole frame and half of the next in a chunk, then the
        // connection closes without the chunked body's end.
        let half = text(0, "never finished");
        let body = [start(), half[..half.len() / 2].to_vec()].concat();
        send_event_stream_chunk(&mut socket, &body).await;
        socket.shutdown().await.unwrap();
    });
    let provider = BedrockProvider::new(
        BedrockConfig::new("us-east-1", credentials())
            .with_endpoint_url(format!("http://{address}")),
    );
    let (_, error) = collect_from(&provider, &request()).await;
    let error = error.unwrap();
    assert_eq!(error.kind(), ErrorKind::StreamCut, "{error}");
    assert!(error.is_retryable());
    assert_readable(&error);
    server.await.unwrap();
}

/// Event-stream bodies that cannot be decoded, each after a good first
/// frame or on its own.
fn undecodable() -> Vec<(&'static str, Vec<Vec<u8>>)> {
    let mut bad_message_crc = text(0, "hi");
    let last = bad_message_crc.len() - 1;
    bad_message_crc[last] ^= 0xff;
    let mut bad_prelude_crc = text(0, "hi");
    bad_prelude_crc[9] ^= 0xff;
    let not_json = frame_bytes(
        &[
            (":event-type", "contentBlockDelta"),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        b"{not json",
    );
    vec![
        (
            "garbage",
            vec![b"this is not an event stream at all".to_vec()],
        ),
        ("bad message checksum", vec![start(), bad_message_crc]),
        ("bad prelude checksum", vec![bad_prelude_crc]),
        ("payload that is not JSON", vec![start(), not_json]),
    ]
}

#[tokio::test]
async fn frames_that_do_not_decode_are_a_final_protocol_error() {
    for (case, frames) in undecodable() {
        let server = serve(stream_body(&frames)).await;
        let (events, error) = collect(&server, &request()).await;
        assert!(events.is_empty(), "{case}: {events:?}");
        let error = error.unwrap_or_else(|| panic!("{case}: no error"));
        assert_eq!(error.kind(), ErrorKind::Protocol, "{case}: {error}");
        assert!(!error.is_retryable(), "{case}: {error}");
        assert_readable(&error);
        assert!(
            error.to_string().contains("cannot decode"),
            "{case}: {error}"
        );
    }
}

#[tokio::test]
async fn an_undecodable_stream_is_requested_once() {
    let server = serve(stream_body(&[b"garbage garbage garbage".to_vec()])).await;
    let provider = provider(&server);
    let result = stream_with_retries(
        &provider,
        &request(),
        &RetryPolicy::default(),
        &|| true,
        &|notice| panic!("retried: {}", notice.error),
    )
    .await;
    let Err(error) = result else {
        panic!("a garbage stream was accepted");
    };
    assert_eq!(error.kind(), ErrorKind::Protocol, "{error}");
    assert_readable(&error);
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn listing_models_without_permission_names_the_credential_chain() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/foundation-models"))
        .respond_with(
            ResponseTemplate::new(403)
                .insert_header("x-amzn-errortype", "AccessDeniedException")
                .set_body_json(json!({"message": "not allowed"})),
        )
        .mount(&server)
        .await;
    let provider = BedrockProvider::new(
        BedrockConfig::new("us-east-1", credentials()).with_control_endpoint_url(server.uri()),
    );
    let error = provider.list_models().await.unwrap_err();
    assert_eq!(error.http_status(), Some(403));
    assert!(!error.is_retryable());
    assert_readable(&error);
    let shown = error.to_string();
    assert!(shown.contains("AWS credential chain"), "{shown}");
    assert!(shown.contains("the Bedrock control plane at"), "{shown}");
}
