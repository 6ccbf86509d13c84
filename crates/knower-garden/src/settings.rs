//! `[garden]` in the vault's `knower.toml`, with the environment's keys.

use serde::Deserialize;

use crate::reach::Reach;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Hours between two scheduled cycles (`knower serve`).
    pub every_hours: u64,
    /// `brave`, `searxng` or `none` (feeds only); by default Brave when
    /// `BRAVE_API_KEY` is set, else SearxNG when `searxng_url` is, else none.
    pub search: Option<String>,
    pub searxng_url: Option<String>,
    pub brave_url: String,
    /// Seed 001's bounds, per cycle.
    pub max_searches: usize,
    pub max_fetches: usize,
    pub max_candidates: usize,
    /// Feeds read for their links, per cycle (they discover pages; the
    /// pages read are `max_fetches`).
    pub max_feeds: usize,
    pub topics_per_cycle: usize,
    /// A topic tended less than this long ago is left to cool.
    pub cooling_hours: u64,
    /// Results of one search considered.
    pub results_per_search: usize,
    pub max_page_bytes: usize,
    pub timeout_secs: u64,
    /// Snapshots kept (one a day).
    pub keep_snapshots: usize,
    /// A topic with fewer confirmed facts than this is sparse.
    pub sparse_below: usize,
    /// `host:port` pairs on loopback or a private network the gardener may
    /// reach (a local web under test, an intranet wiki); nothing else that
    /// is not public is ever requested.
    pub allow_private_hosts: Vec<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            every_hours: 24,
            search: None,
            searxng_url: None,
            brave_url: "https://api.search.brave.com/res/v1/web/search".into(),
            max_searches: 5,
            max_fetches: 3,
            max_candidates: 10,
            max_feeds: 5,
            topics_per_cycle: 3,
            cooling_hours: 24,
            results_per_search: 10,
            max_page_bytes: 2 << 20,
            timeout_secs: 20,
            keep_snapshots: 30,
            sparse_below: 3,
            allow_private_hosts: Vec::new(),
        }
    }
}

/// Which search provider a cycle uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provider {
    Brave { url: String, key: String },
    Searxng { url: String },
    None,
}

impl Settings {
    pub fn parse(toml_text: &str) -> Result<Settings, String> {
        let file: toml::Table =
            toml::from_str(toml_text).map_err(|e| format!("knower.toml: {e}"))?;
        let settings: Settings = match file.get("garden") {
            None => Settings::default(),
            Some(section) => section
                .clone()
                .try_into()
                .map_err(|e| format!("knower.toml [garden]: {e}"))?,
        };
        settings.reach()?;
        Ok(settings)
    }

    /// The addresses the gardener may reach: the public web, the hosts
    /// allowed by name, and the search provider configured here.
    pub fn reach(&self) -> Result<Reach, String> {
        let mut reach = Reach::new(self.allow_private_hosts.iter().map(String::as_str))?;
        for url in self.searxng_url.iter().chain([&self.brave_url]) {
            reach = reach.with_url(url);
        }
        Ok(reach)
    }

    /// The provider these settings and `env` (the environment) choose.
    pub fn provider(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Provider, String> {
        let key = env("BRAVE_API_KEY")
            .or_else(|| env("KNOWER_BRAVE_API_KEY"))
            .filter(|k| !k.is_empty());
        let searxng = env("KNOWER_SEARXNG_URL")
            .or_else(|| self.searxng_url.clone())
            .filter(|u| !u.is_empty());
        match self.search.as_deref() {
            Some("brave") => key
                .map(|key| Provider::Brave {
                    url: self.brave_url.clone(),
                    key,
                })
                .ok_or_else(|| {
                    "[garden] search = \"brave\" needs BRAVE_API_KEY in the environment".to_string()
                }),
            Some("searxng") => searxng.map(|url| Provider::Searxng { url }).ok_or_else(|| {
                "[garden] search = \"searxng\" needs searxng_url (or KNOWER_SEARXNG_URL)"
                    .to_string()
            }),
            Some("none") => Ok(Provider::None),
            Some(other) => Err(format!(
                "[garden] search must be \"brave\", \"searxng\" or \"none\", not {other:?}"
            )),
            None => Ok(match (key, searxng) {
                (Some(key), _) => Provider::Brave {
                    url: self.brave_url.clone(),
                    key,
                },
                (None, Some(url)) => Provider::Searxng { url },
                (None, None) => Provider::None,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_private_hosts_are_read_and_a_bad_one_is_a_sentence() {
        let s = Settings::parse("[garden]\nallow_private_hosts = [\"127.0.0.1:8765\"]\n").unwrap();
        let url = reqwest::Url::parse("http://127.0.0.1:8765/feed.xml").unwrap();
        assert!(s.reach().unwrap().check(&url).is_ok());
        let said =
            Settings::parse("[garden]\nallow_private_hosts = [\"127.0.0.1\"]\n").unwrap_err();
        assert!(said.contains("HOST:PORT"), "{said}");
        // The SearxNG the user configured is reachable where it runs.
        let s =
            Settings::parse("[garden]\nsearxng_url = \"http://127.0.0.1:8888/search\"\n").unwrap();
        let url = reqwest::Url::parse("http://127.0.0.1:8888/search?q=x").unwrap();
        assert!(s.reach().unwrap().check(&url).is_ok());
    }
}
