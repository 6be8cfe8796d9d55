//! Credentials in URLs: redacted for display, found in values.

use oy_secrets::{has_password, has_userinfo, redact_userinfo};

#[test]
fn credentials_in_a_url_are_hidden() {
    assert_eq!(
        redact_userinfo("https://user:s3cr3t@gw.example/v1"),
        "https://***@gw.example/v1"
    );
    assert_eq!(
        redact_userinfo("http://127.0.0.1:8080/v1"),
        "http://127.0.0.1:8080/v1"
    );
    assert_eq!(redact_userinfo("https://a@b@host"), "https://***@host");
    assert_eq!(redact_userinfo("not a url"), "not a url");
    assert_eq!(
        redact_userinfo("socks5://token@proxy:1080"),
        "socks5://***@proxy:1080"
    );
    assert_eq!(
        redact_userinfo("https://h.example/p?next=user@example.com"),
        "https://h.example/p?next=user@example.com"
    );
}

#[test]
fn a_proxy_without_its_scheme_is_hidden_too() {
    assert_eq!(redact_userinfo("user:pw@proxy:3128"), "***@proxy:3128");
    assert_eq!(redact_userinfo("proxy:3128"), "proxy:3128");
    assert_eq!(redact_userinfo("mail me@home"), "mail me@home");
}

#[test]
fn a_url_with_a_password_is_told_from_a_port_and_a_path() {
    assert!(has_password("postgres://u:p/ss@h/db"));
    assert!(has_password("mongodb://u:p#ss@h"));
    assert!(has_password("redis://:pw@cache:6379/0"));
    assert!(!has_password(
        "https://cdn.example.com:443/npm/lodash@4.17.21"
    ));
    assert!(!has_password(
        "http://status.example:8080?owner=ops@example.com"
    ));
    assert!(!has_password("ssh://git@github.com/acme/app.git"));
    assert!(!has_password("http://[::1]:8080/x@y"));
}

#[test]
fn a_url_names_a_user_with_or_without_a_password() {
    assert!(has_userinfo("https://token@host/"));
    assert!(has_userinfo("https://u:p@host"));
    assert!(!has_userinfo("https://host/path@x"));
    assert!(!has_userinfo("git@github.com:acme/app.git"));
}
