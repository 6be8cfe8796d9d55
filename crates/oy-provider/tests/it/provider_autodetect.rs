//! Local server detection against mock servers on random loopback ports:
//! what counts as a server, what is reported, and that no probe carries a
//! credential.

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use oy_provider::{LocalServerKind, ModelInfo, ProbeTargets, probe_servers};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::openai_spec::guarded_server;

fn port(server: &MockServer) -> u16 {
    server.address().port()
}

fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn model(id: &str, owned_by: Option<&str>) -> ModelInfo {
    ModelInfo {
        id: id.to_owned(),
        owned_by: owned_by.map(str::to_owned),
        context_window: None,
    }
}

#[tokio::test]
async fn finds_ollama_and_llama_cpp_and_skips_a_closed_port() {
    let ollama = guarded_server().await;
    Mock::given(method("GET"))
        .and(path("/api/tags"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "models": [{"name": "qwen2.5:7b", "model": "qwen2.5:7b", "size": 1}]
        })))
        .mount(&ollama)
        .await;
    let llama = guarded_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "object": "list",
            "data": [{"id": "model.gguf", "object": "model", "owned_by": "llamacpp"}]
        })))
        .mount(&llama)
        .await;
    let targets = ProbeTargets {
        host: IpAddr::V4(Ipv4Addr::LOCALHOST),
        ports: vec![
            (LocalServerKind::Ollama, port(&ollama)),
            (LocalServerKind::LlamaCpp, port(&llama)),
            (LocalServerKind::LmStudio, closed_port()),
        ],
    };
    let found = probe_servers(&targets, Duration::from_secs(2)).await;
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].kind, LocalServerKind::Ollama);
    assert_eq!(found[0].base_url, format!("{}/v1", ollama.uri()));
    assert_eq!(found[0].models, vec![model("qwen2.5:7b", Some("ollama"))]);
    assert_eq!(found[1].kind, LocalServerKind::LlamaCpp);
    assert_eq!(found[1].base_url, format!("{}/v1", llama.uri()));
    assert_eq!(found[1].models, vec![model("model.gguf", Some("llamacpp"))]);

    for server in [&ollama, &llama] {
        for request in server.received_requests().await.unwrap() {
            assert!(request.headers.get("authorization").is_none());
            assert!(request.headers.get("cookie").is_none());
        }
    }
}

#[tokio::test]
async fn falls_back_to_v1_models_for_ollama_and_ignores_other_programs() {
    let ollama = guarded_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": [{"id": "llama3.2", "owned_by": "library"}]
        })))
        .mount(&ollama)
        .await;
    // Something else on LM Studio's port: a web app answering HTML.
    let other = guarded_server().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>hello</html>"))
        .mount(&other)
        .await;
    let targets = ProbeTargets {
        host: IpAddr::V4(Ipv4Addr::LOCALHOST),
        ports: vec![
            (LocalServerKind::Ollama, port(&ollama)),
            (LocalServerKind::LmStudio, port(&other)),
        ],
    };
    let found = probe_servers(&targets, Duration::from_secs(2)).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, LocalServerKind::Ollama);
    assert_eq!(found[0].models, vec![model("llama3.2", Some("library"))]);
}

#[tokio::test]
async fn gives_up_on_a_server_slower_than_the_timeout() {
    let slow = guarded_server().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"data": []}))
                .set_delay(Duration::from_secs(5)),
        )
        .mount(&slow)
        .await;
    let targets = ProbeTargets {
        host: IpAddr::V4(Ipv4Addr::LOCALHOST),
        ports: vec![(LocalServerKind::LmStudio, port(&slow))],
    };
    let started = Instant::now();
    let found = probe_servers(&targets, Duration::from_millis(200)).await;
    assert!(found.is_empty());
    assert!(started.elapsed() < Duration::from_secs(2));
}
