//! Who may talk to the server.
//!
//! - **Host** (on a loopback address): only `localhost`, `127.0.0.1` and
//!   `[::1]`. A web page on another domain that resolves to 127.0.0.1 (DNS
//!   rebinding) sends its own name as Host and is refused.
//! - **Origin**: a browser names the page that makes a request; only pages
//!   served by this server itself may call it. Other programs send none.
//! - **Fetch metadata**: a browser also says whether a request comes from
//!   another site (`Sec-Fetch-Site`), even where it sends no Origin; such
//!   requests are refused, but for opening the UI itself from a link.
//! - **Token**: when `KNOWER_TOKEN` is set (required off loopback), every
//!   request but the UI's static files carries it, as
//!   `Authorization: Bearer …` or, for `EventSource`, which cannot set
//!   headers, `?token=…` (URL-encoded, as browsers write it).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

pub struct Guard {
    /// Bound to a loopback address: Host names are checked.
    pub loopback: bool,
    pub token: Option<String>,
}

const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

pub async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    match guard.refusal(&request) {
        Some(error) => error.into_response(),
        None => next.run(request).await,
    }
}

impl Guard {
    fn refusal(&self, request: &Request) -> Option<ApiError> {
        let headers = request.headers();
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(str::to_ascii_lowercase);
        if self.loopback
            && let Some(host) = &host
            && !LOOPBACK_NAMES.contains(&host_name(host))
        {
            return Some(ApiError::new(
                StatusCode::FORBIDDEN,
                "host_refused",
                format!(
                    "Host `{host}` is not this server's; it answers to localhost, 127.0.0.1 and [::1]"
                ),
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("").to_ascii_lowercase();
            let same = host.as_deref().is_some_and(|host| {
                origin == format!("http://{host}") || origin == format!("https://{host}")
            });
            if !same {
                return Some(ApiError::new(
                    StatusCode::FORBIDDEN,
                    "origin_refused",
                    format!("requests from the page at `{origin}` are refused"),
                ));
            }
        }
        let fetched_from = headers
            .get("sec-fetch-site")
            .and_then(|h| h.to_str().ok())
            .map(str::to_ascii_lowercase);
        if let Some(site) = fetched_from
            && (site == "cross-site" || site == "same-site")
            && !is_static(request)
        {
            return Some(ApiError::new(
                StatusCode::FORBIDDEN,
                "cross_site_refused",
                format!(
                    "the browser says this request comes from another site ({site}); only this server's own page may call it"
                ),
            ));
        }
        if let Some(token) = &self.token
            && !is_static(request)
            && !presents(headers, request.uri().query(), token)
        {
            return Some(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "this server needs its token: `Authorization: Bearer $KNOWER_TOKEN`",
            ));
        }
        None
    }
}

/// `name` of `name:port`, and of `[v6]:port`.
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

fn is_static(request: &Request) -> bool {
    let path = request.uri().path();
    request.method() == axum::http::Method::GET && (path == "/" || path.starts_with("/assets/"))
}

fn presents(headers: &HeaderMap, query: Option<&str>, token: &str) -> bool {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "));
    // Percent-decoding only: a `+` in a token is itself, as in a header.
    let in_query = query.and_then(|q| {
        q.split('&')
            .find_map(|pair| pair.strip_prefix("token="))
            .and_then(|raw| percent_encoding::percent_decode_str(raw).decode_utf8().ok())
            .map(|decoded| decoded.into_owned())
    });
    bearer.is_some_and(|b| same(b, token)) || in_query.is_some_and(|q| same(&q, token))
}

/// Compares without stopping at the first difference, so response times
/// do not tell how much of a guess was right.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_without_ports() {
        assert_eq!(host_name("localhost:8000"), "localhost");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
        assert_eq!(host_name("[::1]:8000"), "[::1]");
        assert_eq!(host_name("evil.example:8000"), "evil.example");
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same("secret", "secret"));
        assert!(!same("secret", "secreT"));
        assert!(!same("secret", "secret2"));
    }
}
