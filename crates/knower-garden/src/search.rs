//! Web search, as the providers answer it: the Brave Search API
//! (`GET …/res/v1/web/search?q=…`, key in `X-Subscription-Token`, results in
//! `web.results[]` with `title`, `url`, `description`) and SearxNG's JSON
//! (`GET {instance}/search?q=…&format=json`, `results[]` with `title`, `url`,
//! `content`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::readable::clean;
use crate::settings::Provider;
use crate::web::{Web, WebError};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub title: String,
    pub url: String,
    pub snippet: String,
    /// `YYYY-MM-DD`, when the provider or the feed says (Brave's
    /// `page_age`, SearxNG's `publishedDate`, a feed entry's date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

pub fn search(
    web: &Web,
    provider: &Provider,
    query: &str,
    count: usize,
) -> Result<Vec<Hit>, WebError> {
    match provider {
        Provider::None => Ok(vec![]),
        Provider::Brave { url, key } => {
            let request = web
                .client()
                .get(url)
                .query(&[("q", query), ("count", &count.to_string())])
                .header("Accept", "application/json")
                .header("X-Subscription-Token", key);
            let answer = web.json(request, url)?;
            Ok(hits(
                answer.pointer("/web/results"),
                "description",
                "page_age",
                count,
            ))
        }
        Provider::Searxng { url } => {
            let endpoint = searxng_endpoint(url);
            let request = web
                .client()
                .get(&endpoint)
                .query(&[("q", query), ("format", "json")])
                .header("Accept", "application/json");
            let answer = web.json(request, &endpoint)?;
            Ok(hits(
                answer.get("results"),
                "content",
                "publishedDate",
                count,
            ))
        }
    }
}

/// The instance's search endpoint, whether the user wrote the instance
/// (`http://127.0.0.1:8888`) or its endpoint (`…/search`).
pub fn searxng_endpoint(url: &str) -> String {
    let base = url.trim_end_matches('/');
    if base.ends_with("/search") {
        base.to_string()
    } else {
        format!("{base}/search")
    }
}

/// The first `count` results of a provider's list (Brave's `web.results`,
/// SearxNG's `results`), with the fields each puts its snippet and its
/// date in.
fn hits(list: Option<&Value>, snippet: &str, date: &str, count: usize) -> Vec<Hit> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .take(count)
        .map(|r| Hit {
            title: clean(&text(r, "title")),
            url: clean(&text(r, "url")),
            snippet: clean(&strip_tags(&text(r, snippet))),
            published: day_of(&text(r, date)),
        })
        .filter(|h| !h.url.is_empty())
        .collect()
}

/// Brave marks matches with `<strong>`: snippets are text.
fn strip_tags(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in text.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

/// The day of an ISO 8601 date or timestamp (`2024-09-02T00:00:00`).
fn day_of(text: &str) -> Option<String> {
    let day = text.trim().get(..10)?;
    day.parse::<jiff::civil::Date>().ok().map(|d| d.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_searxng_instance_is_found_whether_its_endpoint_is_written_or_not() {
        for written in [
            "http://127.0.0.1:8888",
            "http://127.0.0.1:8888/",
            "http://127.0.0.1:8888/search",
            "http://127.0.0.1:8888/search/",
        ] {
            assert_eq!(searxng_endpoint(written), "http://127.0.0.1:8888/search");
        }
        assert_eq!(
            searxng_endpoint("https://example.org/searx"),
            "https://example.org/searx/search"
        );
    }

    #[test]
    fn results_keep_their_dates() {
        let list = serde_json::json!([
            {"title": "Tokio 1.42", "url": "https://tokio.rs/a", "content": "x", "publishedDate": "2024-12-03T00:00:00"},
            {"title": "Old", "url": "https://tokio.rs/b", "content": "y", "publishedDate": null},
        ]);
        let found = hits(Some(&list), "content", "publishedDate", 10);
        assert_eq!(found[0].published.as_deref(), Some("2024-12-03"));
        assert_eq!(found[1].published, None);
    }
}
