//! The web, for real and with manners: one HTTP client (rustls) with
//! connect and total timeouts, a size cap read as the body streams, at most
//! five redirects, only pages Knower can read (HTML, plain text, markdown,
//! feeds), robots.txt honoured, and a user agent that names Knower. What it
//! fetches is untrusted text: it is only ever turned into text.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use knower_llm::error_chain;

use crate::reach::Reach;
use crate::settings::{Provider, Settings};

pub const USER_AGENT: &str = concat!(
    "Knower/",
    env!("CARGO_PKG_VERSION"),
    " (gardener; +https://github.com/knower/knower)"
);
/// The robots.txt read, at most.
const ROBOTS_BYTES: usize = 512 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("{url}: {detail}")]
    Failed { url: String, detail: String },
    #[error("{url}: robots.txt asks crawlers to stay away")]
    Disallowed { url: String },
}

/// A page as fetched: its final URL, what it is, and its text.
#[derive(Clone, Debug)]
pub struct Page {
    pub url: String,
    pub kind: Kind,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Html,
    Text,
    Feed,
}

pub struct Web {
    /// Built at the first request: every command opens the gardener, few
    /// of them reach the web.
    client: OnceLock<reqwest::Client>,
    timeout_secs: u64,
    max_bytes: usize,
    /// robots.txt by origin (`None`: none, or unreadable: everything allowed).
    robots: Mutex<HashMap<String, Option<Arc<texting_robots::Robot>>>>,
    io: OnceLock<tokio::runtime::Runtime>,
    reach: Reach,
}

impl Drop for Web {
    fn drop(&mut self) {
        if let Some(io) = self.io.take() {
            io.shutdown_background();
        }
    }
}

impl Web {
    /// The web as `settings` allow it; the search provider the user
    /// configured (`provider`, from the settings or the environment) is
    /// reachable wherever it runs.
    pub fn new(settings: &Settings, provider: Option<&Provider>) -> Web {
        // Settings::parse has refused bad entries; settings made in code
        // with a bad one reach only the public web.
        let mut reach = settings.reach().unwrap_or_default();
        if let Some(Provider::Brave { url, .. } | Provider::Searxng { url }) = provider {
            reach = reach.with_url(url);
        }
        Web {
            reach,
            client: OnceLock::new(),
            timeout_secs: settings.timeout_secs,
            max_bytes: settings.max_page_bytes,
            robots: Mutex::new(HashMap::new()),
            io: OnceLock::new(),
        }
    }

    /// Runs a request on this client's own runtime, from synchronous code.
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.io
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("knower-web")
                    .enable_all()
                    .build()
                    .expect("a one-thread runtime can be built")
            })
            .block_on(future)
    }

    /// A JSON API's answer (a search provider's).
    pub fn json(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
    ) -> Result<serde_json::Value, WebError> {
        let failed = |detail: String| WebError::Failed {
            url: url.to_string(),
            detail,
        };
        self.block_on(async {
            let response = request.send().await.map_err(|e| failed(error_chain(&e)))?;
            let status = response.status();
            if !status.is_success() {
                return Err(failed(format!("answered {status}")));
            }
            let bytes = read_capped(response, self.max_bytes)
                .await
                .map_err(failed)?;
            serde_json::from_slice(&bytes)
                .map_err(|e| failed(format!("not the JSON expected ({e})")))
        })
    }

    pub fn client(&self) -> &reqwest::Client {
        self.client.get_or_init(|| {
            knower_llm::install_tls_provider();
            reqwest::Client::builder()
                .user_agent(USER_AGENT)
                .connect_timeout(Duration::from_secs(self.timeout_secs.min(10)))
                .timeout(Duration::from_secs(self.timeout_secs))
                .redirect(redirects(self.reach.clone()))
                .dns_resolver(self.reach.resolver())
                .build()
                .expect("an HTTP client with rustls builds")
        })
    }

    /// Whether `url` is an address the gardener may reach, as far as its
    /// text tells (a name is judged again once resolved).
    pub fn reachable(&self, url: &str) -> Result<(), String> {
        let parsed = reqwest::Url::parse(url).map_err(|e| format!("not a URL ({e})"))?;
        self.reach.check(&parsed)
    }

    /// Fetches a page or a feed, if robots.txt allows it.
    pub fn fetch(&self, url: &str) -> Result<Page, WebError> {
        let failed = |detail: String| WebError::Failed {
            url: url.to_string(),
            detail,
        };
        let parsed = reqwest::Url::parse(url).map_err(|e| failed(format!("not a URL ({e})")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(failed("only http and https are fetched".into()));
        }
        self.reach.check(&parsed).map_err(failed)?;
        if !self.allowed(&parsed) {
            return Err(WebError::Disallowed {
                url: url.to_string(),
            });
        }
        self.block_on(async {
            let response = self
                .client()
                .get(parsed.clone())
                .header(reqwest::header::ACCEPT, "text/html, text/plain, text/markdown, application/rss+xml, application/atom+xml, application/xml;q=0.9")
                .send()
                .await
                .map_err(|e| failed(error_chain(&e)))?;
            let status = response.status();
            if !status.is_success() {
                return Err(failed(format!("answered {status}")));
            }
            let final_url = response.url().to_string();
            let content_type = response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_ascii_lowercase();
            let kind = kind_of(&content_type).ok_or_else(|| {
                failed(format!(
                    "{} is not a page Knower reads (HTML, text, markdown, feeds)",
                    if content_type.is_empty() { "an untyped answer" } else { content_type.as_str() }
                ))
            })?;
            if let Some(length) = response.content_length()
                && length as usize > self.max_bytes
            {
                return Err(failed(format!("{length} bytes, over the {} a page may have", self.max_bytes)));
            }
            let bytes = read_capped(response, self.max_bytes).await.map_err(failed)?;
            Ok(Page {
                url: final_url,
                kind,
                text: decode(&bytes, &content_type),
            })
        })
    }

    /// Whether robots.txt lets Knower fetch `url` (read once per origin;
    /// none, or an unreadable one, allows everything).
    fn allowed(&self, url: &reqwest::Url) -> bool {
        let origin = url.origin().ascii_serialization();
        let known = self
            .robots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&origin)
            .cloned();
        let robot = match known {
            Some(robot) => robot,
            None => {
                let robots_url = format!("{origin}/robots.txt");
                let fetched = self.block_on(async {
                    let response = self
                        .client()
                        .get(&robots_url)
                        .timeout(Duration::from_secs(10))
                        .send()
                        .await
                        .ok()?;
                    if !response.status().is_success() {
                        return None;
                    }
                    read_capped(response, ROBOTS_BYTES).await.ok()
                });
                let robot = fetched
                    .and_then(|bytes| texting_robots::Robot::new("Knower", &bytes).ok())
                    .map(Arc::new);
                self.robots
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(origin, robot.clone());
                robot
            }
        };
        robot.is_none_or(|r| r.allowed(url.as_str()))
    }
}

/// At most five redirects, each to a URL [`Reach`] allows: a public page
/// that redirects to 127.0.0.1 is refused at that hop.
fn redirects(reach: Reach) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() > 5 {
            return attempt.error("more than 5 redirects");
        }
        match reach.check(attempt.url()) {
            Ok(()) => attempt.follow(),
            Err(why) => {
                let why = format!("redirected to {}: {why}", attempt.url());
                attempt.error(why)
            }
        }
    })
}

fn kind_of(content_type: &str) -> Option<Kind> {
    let mime = content_type.split(';').next().unwrap_or("").trim();
    match mime {
        "text/html" | "application/xhtml+xml" => Some(Kind::Html),
        "text/plain" | "text/markdown" | "text/x-markdown" => Some(Kind::Text),
        "application/rss+xml"
        | "application/atom+xml"
        | "application/xml"
        | "text/xml"
        | "application/feed+json" => Some(Kind::Feed),
        _ => None,
    }
}

/// The body, refused once it passes `max` bytes (a server may lie about its
/// length, or send none).
async fn read_capped(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| error_chain(&e))? {
        if bytes.len() + chunk.len() > max {
            return Err(format!(
                "over the {max} bytes a page may have; not read further"
            ));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Text in the charset the server names: UTF-8, or Latin-1 (and its
/// Windows superset, read as Latin-1); anything else as UTF-8 with
/// replacement characters.
fn decode(bytes: &[u8], content_type: &str) -> String {
    let charset = content_type
        .split(';')
        .filter_map(|p| p.trim().strip_prefix("charset="))
        .next()
        .map(|c| c.trim_matches('"').to_ascii_lowercase());
    match charset.as_deref() {
        Some("iso-8859-1" | "latin1" | "latin-1" | "windows-1252" | "cp1252") => {
            bytes.iter().map(|&b| b as char).collect()
        }
        _ => match std::str::from_utf8(bytes) {
            Ok(text) => text.to_string(),
            Err(_) if charset.is_none() && looks_latin1(bytes) => {
                bytes.iter().map(|&b| b as char).collect()
            }
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        },
    }
}

/// An HTML page that says it is Latin-1 in a meta tag.
fn looks_latin1(bytes: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(2048)]).to_ascii_lowercase();
    head.contains("charset=iso-8859-1")
        || head.contains("charset=\"iso-8859-1\"")
        || head.contains("charset=windows-1252")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_read_in_the_charset_they_name() {
        assert_eq!(decode(b"caf\xe9", "text/html; charset=ISO-8859-1"), "café");
        assert_eq!(
            decode("café".as_bytes(), "text/html; charset=utf-8"),
            "café"
        );
        assert_eq!(
            decode(b"<meta charset=iso-8859-1>caf\xe9", "text/html"),
            "<meta charset=iso-8859-1>café"
        );
        assert_eq!(kind_of("application/pdf"), None);
        assert_eq!(
            kind_of("application/rss+xml; charset=utf-8"),
            Some(Kind::Feed)
        );
    }
}
