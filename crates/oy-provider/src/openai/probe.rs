//! Side requests at a server's own endpoints, for [`crate::window`]: the
//! server's root (the base URL without its `/v1`), URLs built on it that
//! never leave the configured host, and a request that answers a body or
//! nothing — a probe that fails is never an error.

use std::time::Duration;

use super::{OpenAiClient, read_bounded};

impl OpenAiClient {
    /// `origin` + the path `segments`, each percent-encoded as one segment
    /// (so a model id with `/` in it stays one), with `query` pairs. Always
    /// on the configured host: only the path and query change.
    pub(crate) fn origin_url(&self, segments: &[&str], query: &[(&str, &str)]) -> reqwest::Url {
        let mut url = self.origin.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        url
    }

    /// A side request that must never fail the caller: `GET url`, or a
    /// `POST` of the JSON `body`, with the same headers (and key) as every
    /// other request to this host. The body when the server answered 2xx
    /// with at most `MAX_PROBE_BYTES` within `timeout`; `None` for anything
    /// else.
    pub(crate) async fn probe(
        &self,
        url: reqwest::Url,
        body: Option<Vec<u8>>,
        timeout: Duration,
    ) -> Option<Vec<u8>> {
        /// What a probe reads at most: a model list with hundreds of
        /// entries fits; a server streaming without end does not.
        const MAX_PROBE_BYTES: usize = 8 * 1024 * 1024;
        let request = match body {
            Some(body) => self
                .http
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body),
            None => self.http.get(url),
        }
        .headers(self.headers.clone())
        .header(reqwest::header::ACCEPT, "application/json");
        tokio::time::timeout(timeout, async {
            let mut response = request.send().await.ok()?;
            if !response.status().is_success() {
                return None;
            }
            read_bounded(&mut response, MAX_PROBE_BYTES).await.ok()
        })
        .await
        .ok()
        .flatten()
    }
}

/// The server root of an API base URL: a trailing `/v1` (the OpenAI
/// convention) removed, any path before it kept, no query or fragment.
pub(super) fn origin_of(base: &reqwest::Url) -> reqwest::Url {
    let mut origin = base.clone();
    origin.set_query(None);
    origin.set_fragment(None);
    let path = origin.path().trim_end_matches('/');
    let path = path.strip_suffix("/v1").unwrap_or(path).to_owned();
    origin.set_path(&path);
    origin
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OpenAiConfig;

    #[test]
    fn origin_drops_a_trailing_v1_and_keeps_a_prefix() {
        let origin = |base: &str| {
            OpenAiClient::new(OpenAiConfig::new(base))
                .unwrap()
                .origin_url(&["props"], &[])
                .to_string()
        };
        assert_eq!(
            origin("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/props"
        );
        assert_eq!(
            origin("http://127.0.0.1:8080/v1/"),
            "http://127.0.0.1:8080/props"
        );
        assert_eq!(
            origin("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080/props"
        );
        assert_eq!(
            origin("https://gw.example/team/llm/v1?x=1"),
            "https://gw.example/team/llm/props"
        );
        // Only a whole `/v1` segment is the API version.
        assert_eq!(
            origin("https://gw.example/llmv1"),
            "https://gw.example/llmv1/props"
        );
        let url = OpenAiClient::new(OpenAiConfig::new("http://h.localhost/v1"))
            .unwrap()
            .origin_url(&["api", "v0", "models", "org/m@q4"], &[("model", "a b&c")]);
        assert_eq!(
            url.as_str(),
            "http://h.localhost/api/v0/models/org%2Fm@q4?model=a+b%26c"
        );
    }
}
