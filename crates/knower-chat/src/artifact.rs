//! An artifact (seed 004): what a chat concluded — an *effort* (open, or
//! resolved with its resolution), a *fact* or an *event* — kept as one note
//! in `chat/artifacts/<id>.md`, so each is searchable on its own, visible
//! and correctable in any editor, journaled and undoable.
//!
//! ```markdown
//! ---
//! kind: "effort"
//! status: "resolved"
//! tags: ["geocoder", "postgres"]
//! ref_count: 3
//! last_referenced: "2026-11-23T18:00:00Z"
//! expires: false
//! exchange: "20261120-101500-ab12"
//! links: ["f3a9c1e02"]
//! ---
//! # Choose the geocoder's connection pool size
//!
//! Resolution: 32 connections, since the renderer runs 16 workers.
//! ```

use serde::{Deserialize, Serialize};

pub const DIR: &str = "chat/artifacts";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Effort,
    Fact,
    Event,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Effort => "effort",
            Kind::Fact => "fact",
            Kind::Event => "event",
        }
    }

    /// The first letter of an artifact's id.
    fn letter(self) -> char {
        match self {
            Kind::Effort => 'e',
            Kind::Fact => 'f',
            Kind::Event => 'v',
        }
    }

    pub fn parse(name: &str) -> Option<Kind> {
        match name {
            "effort" => Some(Kind::Effort),
            "fact" => Some(Kind::Fact),
            "event" => Some(Kind::Event),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// An effort under way.
    Open,
    /// An effort done, with its resolution.
    Resolved,
    /// A fact or event in use.
    Active,
    /// A fact or event that expired unreferenced: kept, out of contexts.
    Archived,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    pub id: String,
    pub kind: Kind,
    pub status: Status,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    /// When it was first written (the note's `created`).
    #[serde(default)]
    pub created: String,
    #[serde(default)]
    pub last_referenced: String,
    #[serde(default)]
    pub ref_count: u64,
    /// Facts and events that may expire when nobody refers to them.
    #[serde(default)]
    pub expires: bool,
    /// The exchange that made it.
    #[serde(default)]
    pub exchange: String,
    /// The exchange that resolved it (efforts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<String>,
    /// Other artifacts it is linked with.
    #[serde(default)]
    pub links: Vec<String>,
}

/// The id of the artifact of `kind` that `exchange` made: stable, so that
/// interpreting an exchange again (after a crash) writes the same note.
pub fn id_for(kind: Kind, exchange: &str, n: usize) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{exchange}/{}/{n}", kind.name()).as_bytes());
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{}{hex}", kind.letter())
}

pub fn path_of(id: &str) -> String {
    format!("{DIR}/{id}.md")
}

/// Whether `id` looks like an artifact's id (so a path built from it stays
/// in the folder).
pub fn valid_id(id: &str) -> bool {
    id.len() == 9
        && matches!(id.as_bytes()[0], b'e' | b'f' | b'v')
        && id[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

#[derive(Deserialize)]
struct Front {
    kind: Kind,
    status: Status,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    ref_count: u64,
    #[serde(default)]
    last_referenced: String,
    #[serde(default)]
    expires: bool,
    #[serde(default)]
    exchange: String,
    #[serde(default)]
    resolved_by: Option<String>,
    #[serde(default)]
    links: Vec<String>,
    #[serde(default)]
    created: Option<String>,
}

impl Artifact {
    /// The artifact a note holds, or why it does not (a person's edit may
    /// have broken it: the chat leaves it alone and says so).
    pub fn parse(id: &str, text: &str) -> Result<Artifact, String> {
        let map = knower_vault::frontmatter::parse(text)?
            .ok_or_else(|| "it has no frontmatter".to_string())?;
        let front: Front = serde_json::from_value(serde_json::Value::Object(map))
            .map_err(|e| format!("its frontmatter is not an artifact's ({e})"))?;
        let body = knower_vault::frontmatter::split(text)
            .map(|s| s.body)
            .unwrap_or(text);
        let mut summary = String::new();
        let mut resolution = None;
        for line in body.lines() {
            if let Some(title) = line.strip_prefix("# ") {
                if summary.is_empty() {
                    summary = title.trim().to_string();
                }
            } else if let Some(r) = line.strip_prefix("Resolution: ") {
                resolution = Some(r.trim().to_string());
            }
        }
        Ok(Artifact {
            id: id.to_string(),
            kind: front.kind,
            status: front.status,
            summary,
            resolution,
            tags: front.tags,
            created: front.created.unwrap_or_default(),
            last_referenced: front.last_referenced,
            ref_count: front.ref_count,
            expires: front.expires,
            exchange: front.exchange,
            resolved_by: front.resolved_by,
            links: front.links,
        })
    }

    /// The note's text (Knower stamps `created`, `updated` and `tokens`).
    pub fn render(&self) -> String {
        use knower_vault::frontmatter::value as json;
        let mut out = String::from("---\n");
        out.push_str(&format!("kind: {}\n", json(&self.kind.name())));
        out.push_str(&format!("status: {}\n", json(&status_name(self.status))));
        out.push_str(&format!("tags: {}\n", json(&self.tags)));
        out.push_str(&format!("ref_count: {}\n", self.ref_count));
        out.push_str(&format!(
            "last_referenced: {}\n",
            json(&self.last_referenced)
        ));
        out.push_str(&format!("expires: {}\n", self.expires));
        out.push_str(&format!("exchange: {}\n", json(&self.exchange)));
        if let Some(by) = &self.resolved_by {
            out.push_str(&format!("resolved_by: {}\n", json(by)));
        }
        out.push_str(&format!("links: {}\n", json(&self.links)));
        out.push_str("---\n");
        out.push_str(&format!("# {}\n", one_line(&self.summary)));
        if let Some(resolution) = &self.resolution {
            out.push_str(&format!("\nResolution: {}\n", one_line(resolution)));
        }
        out
    }

    /// One line for a context or a list: `[e1a2b3c4d effort, open] summary`.
    pub fn line(&self) -> String {
        let mut line = format!(
            "[{} {}, {}] {}",
            self.id,
            self.kind.name(),
            status_name(self.status),
            self.summary
        );
        if let Some(r) = &self.resolution {
            line.push_str(&format!(" — resolved: {r}"));
        }
        if !self.tags.is_empty() {
            line.push_str(&format!(" (#{})", self.tags.join(" #")));
        }
        line
    }
}

pub fn status_name(status: Status) -> &'static str {
    match status {
        Status::Open => "open",
        Status::Resolved => "resolved",
        Status::Active => "active",
        Status::Archived => "archived",
    }
}

/// Text on one line, bounded: it becomes a heading or a line of a note.
pub fn one_line(text: &str) -> String {
    knower_agents::text::bounded_line(text, 300)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_artifact_round_trips_through_its_note() {
        let a = Artifact {
            id: id_for(Kind::Effort, "20261123-1", 0),
            kind: Kind::Effort,
            status: Status::Resolved,
            summary: "Choose the pool size\n# injected heading".into(),
            resolution: Some("32 connections".into()),
            tags: vec!["geocoder".into(), "it's \"quoted\"".into()],
            created: String::new(),
            last_referenced: "2026-11-23T18:00:00Z".into(),
            ref_count: 3,
            expires: false,
            exchange: "20261123-1".into(),
            resolved_by: Some("20261124-2".into()),
            links: vec!["f00000001".into()],
        };
        assert!(valid_id(&a.id), "{}", a.id);
        let text = a.render();
        let back = Artifact::parse(&a.id, &text).unwrap();
        assert_eq!(back.summary, "Choose the pool size # injected heading");
        assert_eq!(back.tags, a.tags);
        assert_eq!(back.resolution.as_deref(), Some("32 connections"));
        assert_eq!((back.ref_count, back.status), (3, Status::Resolved));
        assert_eq!(back.resolved_by, a.resolved_by);
        assert!(!valid_id("../x"));
        assert!(Artifact::parse("f1", "# no frontmatter").is_err());
    }
}
