//! Web search, as the providers answer it: the Brave Search API
//! (`GET …/res/v1/web/search?q=…`, key in `X-Subscription-Token`, results in
//! `web.results[]` with `title`, `url`, `description`) and SearxNG's JSON
//! (`GET {instance}/search?q=…&format=json`, `results[]` with `title`, `url`,
//! `content`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::settings::Provider;
use crate::web::{Web, WebError};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub title: String,
    pub url: String,
    pub snippet: String,
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
            Ok(hits(answer.pointer("/web/results"), "description", count))
        }
        Provider::Searxng { url } => {
            let endpoint = format!("{}/search", url.trim_end_matches('/'));
            let request = web
                .client()
                .get(&endpoint)
                .query(&[("q", query), ("format", "json")])
                .header("Accept", "application/json");
            let answer = web.json(request, &endpoint)?;
            Ok(hits(answer.get("results"), "content", count))
        }
    }
}

/// The first `count` results of a provider's list (Brave's `web.results`,
/// SearxNG's `results`), with the field each puts its snippet in.
fn hits(list: Option<&Value>, snippet: &str, count: usize) -> Vec<Hit> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .take(count)
        .map(|r| Hit {
            title: text(r, "title"),
            url: text(r, "url"),
            snippet: strip_tags(&text(r, snippet)),
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
