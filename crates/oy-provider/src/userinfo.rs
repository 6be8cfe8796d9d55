//! Hiding the `user:password@` part of a URL shown to people: a base URL or
//! endpoint may carry credentials, and what `oy doctor` prints gets pasted
//! into issues.

/// `url` with any `user:password@` replaced by `***@`; anything that is not
/// a URL comes back unchanged.
pub(crate) fn without_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::without_userinfo;

    #[test]
    fn credentials_in_a_url_are_hidden() {
        assert_eq!(
            without_userinfo("https://user:s3cr3t@gw.example/v1"),
            "https://***@gw.example/v1"
        );
        assert_eq!(
            without_userinfo("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/v1"
        );
        assert_eq!(without_userinfo("https://a@b@host"), "https://***@host");
        assert_eq!(without_userinfo("not a url"), "not a url");
    }

    #[test]
    fn an_at_sign_after_the_host_is_not_userinfo() {
        assert_eq!(
            without_userinfo("https://host/v1?user=a@b"),
            "https://host/v1?user=a@b"
        );
    }
}
