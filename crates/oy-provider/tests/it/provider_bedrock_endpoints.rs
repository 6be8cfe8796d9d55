//! The Bedrock runtime (prompts) and control plane (model listing) are
//! different services: each call must reach its own endpoint, and
//! `Provider::check` must tell a reachable runtime from a model list that
//! cannot be had. Two local servers stand in for the two.

use std::time::Duration;

use oy_provider::{BedrockConfig, BedrockProvider, ErrorKind, Provider};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::provider_bedrock::{
    collect_from, credentials, metadata, request, serve, start, stop, stream_body,
};

const CHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// A control plane listing one text model.
async fn control_plane() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/foundation-models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "modelSummaries": [
                {"modelArn": "arn:aws:bedrock:us-east-1::foundation-model/a",
                 "modelId": "anthropic.claude-3-haiku-20240307-v1:0",
                 "providerName": "Anthropic", "outputModalities": ["TEXT"]}
            ]
        })))
        .mount(&server)
        .await;
    server
}

/// A runtime whose `ListAsyncInvokes` answers with `answer`.
async fn runtime(answer: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/async-invoke"))
        .respond_with(answer)
        .mount(&server)
        .await;
    server
}

fn no_async_invokes() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({"asyncInvokeSummaries": []}))
}

fn at(runtime: &str, control: &str) -> BedrockProvider {
    BedrockProvider::new(
        BedrockConfig::new("us-east-1", credentials())
            .with_endpoint_url(runtime)
            .with_control_endpoint_url(control),
    )
}

/// A port on 127.0.0.1 where nothing listens.
fn closed_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{address}")
}

async fn paths(server: &MockServer) -> Vec<String> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| request.url.path().to_owned())
        .collect()
}

#[tokio::test]
async fn prompts_and_model_listing_reach_their_own_servers() {
    let runtime = serve(stream_body(&[start(), stop("end_turn"), metadata(1, 1)])).await;
    let control = control_plane().await;
    let provider = at(&runtime.uri(), &control.uri());

    let models = provider.list_models().await.unwrap();
    assert_eq!(models.len(), 1);
    let (_, error) = collect_from(&provider, &request()).await;
    assert_eq!(error, None);

    assert_eq!(
        paths(&runtime).await,
        ["/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream"]
    );
    assert_eq!(paths(&control).await, ["/foundation-models"]);
}

#[tokio::test]
async fn lists_text_models_from_the_control_plane() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/foundation-models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "modelSummaries": [
                {"modelArn": "arn:aws:bedrock:us-east-1::foundation-model/b", "modelId": "meta.llama3-8b-instruct-v1:0",
                 "providerName": "Meta", "outputModalities": ["TEXT"]},
                {"modelArn": "arn:aws:bedrock:us-east-1::foundation-model/a", "modelId": "anthropic.claude-3-haiku-20240307-v1:0",
                 "providerName": "Anthropic", "outputModalities": ["TEXT"]},
                {"modelArn": "arn:aws:bedrock:us-east-1::foundation-model/i", "modelId": "amazon.titan-image-generator-v1",
                 "providerName": "Amazon", "outputModalities": ["IMAGE"]}
            ]
        })))
        .mount(&server)
        .await;
    let provider = BedrockProvider::new(
        BedrockConfig::new("us-east-1", credentials()).with_control_endpoint_url(server.uri()),
    );
    let models = provider.list_models().await.unwrap();
    let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "anthropic.claude-3-haiku-20240307-v1:0",
            "meta.llama3-8b-instruct-v1:0"
        ]
    );
    assert_eq!(models[0].owned_by.as_deref(), Some("Anthropic"));
    let request = &server.received_requests().await.unwrap()[0];
    let auth = request
        .headers
        .get("authorization")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(
        auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDTEST/"),
        "{auth}"
    );
}

#[tokio::test]
async fn check_finds_the_runtime_reachable_when_the_model_list_is_not() {
    let runtime = runtime(no_async_invokes()).await;
    let provider = at(&runtime.uri(), &closed_port());
    let found = provider.check(CHECK_TIMEOUT).await;
    assert_eq!(found.inference, Ok(()));
    let error = found.models.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Connect, "{error}");
    assert!(error.to_string().contains("control plane"), "{error}");
    assert_eq!(paths(&runtime).await, ["/async-invoke"]);
}

#[tokio::test]
async fn check_reports_an_unreachable_runtime_even_when_models_are_listed() {
    let control = control_plane().await;
    let provider = at(&closed_port(), &control.uri());
    let found = provider.check(CHECK_TIMEOUT).await;
    let error = found.inference.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Connect, "{error}");
    assert!(
        error.to_string().contains("the Bedrock runtime at"),
        "{error}"
    );
    assert_eq!(found.models.unwrap().len(), 1);
}

#[tokio::test]
async fn check_accepts_access_denied_but_not_rejected_credentials() {
    let denied = |kind: &str, status: u16| {
        ResponseTemplate::new(status)
            .insert_header("x-amzn-errortype", kind)
            .set_body_json(json!({"message": "no"}))
    };
    let control = control_plane().await;
    let server = runtime(denied("AccessDeniedException", 403)).await;
    let found = at(&server.uri(), &control.uri()).check(CHECK_TIMEOUT).await;
    assert_eq!(found.inference, Ok(()));

    for (kind, status) in [
        ("UnrecognizedClientException", 403),
        ("InternalServerException", 500),
    ] {
        let server = runtime(denied(kind, status)).await;
        let found = at(&server.uri(), &control.uri()).check(CHECK_TIMEOUT).await;
        let error = found.inference.unwrap_err();
        assert_eq!(error.http_status(), Some(status), "{kind}: {error}");
        assert!(error.to_string().contains(kind), "{error}");
    }
}
