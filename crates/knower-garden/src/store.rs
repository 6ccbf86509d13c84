//! Where the garden lives in the vault, and reading and changing it there.
//! Every change goes through the vault (journaled with its reason,
//! undoable); a topic is changed as read-modify-write inside one vault
//! batch, so a person's edit made meanwhile is never overwritten.

use std::collections::HashMap;

use knower_vault::{Author, Vault};

use crate::GardenError;
use crate::model::{SOURCES, Source, TOPICS, Topic};

/// Seed 001's review files, in the vault.
pub const APPROVALS: &str = "garden/inbox/approvals.json";
pub const REJECTIONS: &str = "garden/inbox/rejections.json";
pub const REQUESTS: &str = "garden/inbox/requests.md";
pub const CANDIDATES: &str = "garden/outbox/candidates";
pub const DIGEST: &str = "garden/outbox/digest.md";
pub const ALERTS: &str = "garden/outbox/alerts.md";
pub const WEEKLY: &str = "garden/outbox/weekly";
pub const SNAPSHOTS: &str = "garden/snapshots";
pub const ACTIVITY: &str = "garden/logs/activity.md";

/// The actor the journal records for the gardener's changes.
pub const ACTOR: &str = "gardener";

pub fn author(reason: impl Into<String>) -> Author {
    Author::new(ACTOR, reason)
}

/// A topic note that could not be read (left as it is, never rewritten).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Unreadable {
    pub path: String,
    pub error: String,
}

/// The garden's topics, by slug, and the notes under `garden/topics/`
/// that are not topics.
pub fn topics(vault: &Vault) -> (Vec<Topic>, Vec<Unreadable>) {
    let mut topics = Vec::new();
    let mut unreadable = Vec::new();
    for path in files(vault, TOPICS, ".md") {
        let slug = slug_of(&path);
        match vault
            .read(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| Topic::parse(&slug, &text))
        {
            Ok(topic) => topics.push(topic),
            Err(error) => unreadable.push(Unreadable { path, error }),
        }
    }
    topics.sort_by(|a, b| a.slug.cmp(&b.slug));
    (topics, unreadable)
}

pub fn topic(vault: &Vault, slug: &str) -> Result<Topic, GardenError> {
    let path = format!("{TOPICS}/{slug}.md");
    let text = vault
        .read(&path)
        .map_err(|_| GardenError::Invalid(format!("there is no topic {slug:?} (no {path})")))?;
    Topic::parse(slug, &text).map_err(|e| GardenError::Invalid(format!("{path}: {e}")))
}

/// The topic `name` names: its slug, or its name in any case.
pub fn find_topic(vault: &Vault, name: &str) -> Result<Topic, GardenError> {
    let slug = knower_vault::slug(name);
    let (topics, _) = topics(vault);
    topics
        .into_iter()
        .find(|t| t.slug == slug || t.name.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| {
            GardenError::Invalid(format!(
                "there is no topic {name:?} (see `knower garden list`)"
            ))
        })
}

/// Every source note, by slug.
pub fn sources(vault: &Vault) -> HashMap<String, Source> {
    files(vault, SOURCES, ".md")
        .into_iter()
        .filter_map(|path| {
            let slug = slug_of(&path);
            vault
                .read(&path)
                .ok()
                .and_then(|text| Source::parse(&slug, &text))
        })
        .map(|s| (s.slug.clone(), s))
        .collect()
}

/// A source note's readable text (its body below the title).
pub fn source_text(vault: &Vault, slug: &str) -> Option<String> {
    source_page(vault, slug).map(|(_, text)| text)
}

/// A source note read once: what it says of its page (none when its
/// frontmatter is unreadable), and the page's text.
pub fn source_page(vault: &Vault, slug: &str) -> Option<(Option<Source>, String)> {
    let text = vault.read(&format!("{SOURCES}/{slug}.md")).ok()?;
    let source = Source::parse(slug, &text);
    let body = knower_vault::frontmatter::split(&text)
        .map(|s| s.body.to_string())
        .unwrap_or(text);
    let body = match body.trim_start().strip_prefix("# ") {
        Some(rest) => rest
            .split_once('\n')
            .map(|(_, b)| b.to_string())
            .unwrap_or_default(),
        None => body,
    };
    Some((source, body))
}

/// Changes one topic as one journaled change: `change` sees the topic as
/// it is on disk now and says whether it changed anything.
pub fn change_topic<T>(
    vault: &Vault,
    slug: &str,
    author: &Author,
    change: impl FnOnce(&mut Topic) -> Result<T, GardenError>,
) -> Result<T, GardenError> {
    let path = format!("{TOPICS}/{slug}.md");
    let mut failure = None;
    let (out, _) = vault.batch(author, |batch| {
        let Some(text) = batch.read(&path)? else {
            failure = Some(GardenError::Invalid(format!("there is no topic {slug:?}")));
            return Ok(None);
        };
        let mut topic = match Topic::parse(slug, &text) {
            Ok(topic) => topic,
            Err(e) => {
                failure = Some(GardenError::Invalid(format!("{path}: {e}")));
                return Ok(None);
            }
        };
        match change(&mut topic) {
            Ok(out) => {
                let rendered = topic.render();
                if rendered != text {
                    batch.write(&path, &rendered)?;
                }
                Ok(Some(out))
            }
            Err(e) => {
                failure = Some(e);
                Ok(None)
            }
        }
    })?;
    match (out, failure) {
        (Some(out), _) => Ok(out),
        (None, Some(e)) => Err(e),
        (None, None) => Err(GardenError::Invalid(format!("{path} could not be changed"))),
    }
}

/// The vault paths under `folder` ending with `suffix`, in order.
pub fn files(vault: &Vault, folder: &str, suffix: &str) -> Vec<String> {
    let prefix = format!("{folder}/");
    let mut paths: Vec<String> = vault
        .entries()
        .into_iter()
        .filter(|(_, entry)| entry.kind == knower_vault::EntryKind::File)
        .map(|(path, _)| path.as_str().to_string())
        .filter(|p| p.starts_with(&prefix) && p.ends_with(suffix))
        .collect();
    paths.sort();
    paths
}

fn slug_of(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name).to_string()
}

/// The slug of a source note for `url`: readable, bounded, and distinct for
/// distinct URLs.
pub fn source_slug(url: &str) -> String {
    use sha2::{Digest, Sha256};
    let readable = url.split_once("://").map(|(_, rest)| rest).unwrap_or(url);
    let mut slug = knower_vault::slug(readable);
    if let Some((cut, _)) = slug.char_indices().nth(60) {
        slug.truncate(cut);
    }
    let digest = Sha256::digest(url.as_bytes());
    let hex: String = digest.iter().take(3).map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}", slug.trim_matches('-'))
}

/// The host of a URL (`www.` left out), for reputation.
pub fn domain(url: &str) -> String {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| h.trim_start_matches("www.").to_ascii_lowercase())
        })
        .unwrap_or_default()
}

/// A JSON file of the vault, or its default when there is none.
pub fn read_json(vault: &Vault, path: &str) -> Result<Option<serde_json::Value>, GardenError> {
    match vault.read(path) {
        Ok(text) if text.trim().is_empty() => Ok(None),
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
            GardenError::Invalid(format!(
                "{path} is not valid JSON ({e}); fix it and try again"
            ))
        }),
        Err(knower_vault::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_slugs_are_readable_bounded_and_distinct() {
        let a = source_slug("https://tokio.rs/blog/2024-09-tokio-1-40");
        assert!(a.starts_with("tokio-rs-blog-2024-09-tokio-1-40-"), "{a}");
        assert_ne!(a, source_slug("https://tokio.rs/blog/2024-09-tokio-1-40?x"));
        assert!(source_slug(&format!("https://x.org/{}", "a".repeat(500))).len() < 80);
        assert_eq!(domain("https://www.Tokio.rs/blog"), "tokio.rs");
    }
}
