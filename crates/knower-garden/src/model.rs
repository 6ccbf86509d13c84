//! The garden as notes (seed 001's memory schema, kept readable):
//!
//! - a **topic** is `garden/topics/<slug>.md`: its settings in frontmatter
//!   (`priority` 1–5, `freshness_days`, `last_tended`, `queries`, `feeds`)
//!   and its facts as bullets under `## Confirmed`, `## Candidates`,
//!   `## Disputed` and `## Archived` — the section is the fact's status, so
//!   moving a line by hand changes it;
//! - a **fact** is one bullet: its statement, its id in backticks, its
//!   confidence, the day it was found, a link to its source note, and the
//!   facts it contradicts;
//! - a **source** is `garden/sources/<slug>.md`: `url`, `title`,
//!   `fetched_at`, `credibility` in frontmatter, and the page's readable
//!   text.
//!
//! ```markdown
//! - Tokio 1.40 was released in September 2024. `g1a2b3c4d` · confidence 0.82 · found 2026-11-20 · [tokio.rs](../sources/tokio-rs-1-40.md)
//! ```

use serde::{Deserialize, Serialize};

pub const TOPICS: &str = "garden/topics";
pub const SOURCES: &str = "garden/sources";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Confirmed,
    Candidate,
    Disputed,
    Archived,
}

impl Status {
    pub const ALL: [Status; 4] = [
        Status::Confirmed,
        Status::Candidate,
        Status::Disputed,
        Status::Archived,
    ];

    pub fn heading(self) -> &'static str {
        match self {
            Status::Confirmed => "## Confirmed",
            Status::Candidate => "## Candidates",
            Status::Disputed => "## Disputed",
            Status::Archived => "## Archived",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Status::Confirmed => "confirmed",
            Status::Candidate => "candidate",
            Status::Disputed => "disputed",
            Status::Archived => "archived",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Credibility {
    Low,
    Medium,
    High,
}

impl Credibility {
    pub fn name(self) -> &'static str {
        match self {
            Credibility::Low => "low",
            Credibility::Medium => "medium",
            Credibility::High => "high",
        }
    }

    pub fn weight(self) -> f64 {
        match self {
            Credibility::Low => 0.2,
            Credibility::Medium => 0.5,
            Credibility::High => 0.8,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fact {
    pub id: String,
    pub statement: String,
    pub status: Status,
    pub confidence: f64,
    /// `YYYY-MM-DD`.
    pub found: String,
    /// The source note's slug (`garden/sources/<slug>.md`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Facts this one contradicts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contradicts: Vec<String>,
    /// Why it was rejected (archived facts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Topic {
    pub slug: String,
    pub name: String,
    pub priority: u8,
    pub freshness_days: u32,
    /// RFC 3339, or empty when never tended.
    pub last_tended: String,
    pub queries: Vec<String>,
    pub feeds: Vec<String>,
    pub facts: Vec<Fact>,
    /// The note's text outside the fact sections (a person's notes): kept.
    #[serde(skip)]
    pub preamble: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    pub slug: String,
    pub url: String,
    pub title: String,
    pub fetched_at: String,
    pub credibility: Credibility,
}

impl Topic {
    pub fn new(name: &str, priority: u8, freshness_days: u32) -> Topic {
        Topic {
            slug: knower_vault::slug(name),
            name: one_line(name),
            priority: priority.clamp(1, 5),
            freshness_days: freshness_days.max(1),
            last_tended: String::new(),
            queries: vec![],
            feeds: vec![],
            facts: vec![],
            preamble: String::new(),
        }
    }

    pub fn path(&self) -> String {
        format!("{TOPICS}/{}.md", self.slug)
    }

    pub fn count(&self, status: Status) -> usize {
        self.facts.iter().filter(|f| f.status == status).count()
    }

    pub fn fact(&self, id: &str) -> Option<&Fact> {
        self.facts.iter().find(|f| f.id == id)
    }

    /// The topic's note.
    pub fn render(&self) -> String {
        use knower_vault::frontmatter::value as json;
        let mut out = String::from("---\n");
        out.push_str(&format!("priority: {}\n", self.priority));
        out.push_str(&format!("freshness_days: {}\n", self.freshness_days));
        out.push_str(&format!("last_tended: {}\n", json(&self.last_tended)));
        out.push_str(&format!("queries: {}\n", json(&self.queries)));
        out.push_str(&format!("feeds: {}\n", json(&self.feeds)));
        out.push_str("---\n");
        out.push_str(&format!("# {}\n", self.name));
        let preamble = self.preamble.trim();
        if !preamble.is_empty() {
            out.push_str(&format!("\n{preamble}\n"));
        }
        for status in Status::ALL {
            out.push_str(&format!("\n{}\n\n", status.heading()));
            for fact in self.facts.iter().filter(|f| f.status == status) {
                out.push_str(&fact.render());
                out.push('\n');
            }
        }
        out
    }

    /// A topic note, or why it is not one.
    pub fn parse(slug: &str, text: &str) -> Result<Topic, String> {
        let front = knower_vault::frontmatter::parse(text)?.unwrap_or_default();
        #[derive(Deserialize)]
        struct Front {
            #[serde(default = "three")]
            priority: u8,
            #[serde(default = "seven")]
            freshness_days: u32,
            #[serde(default)]
            last_tended: String,
            #[serde(default)]
            queries: Vec<String>,
            #[serde(default)]
            feeds: Vec<String>,
        }
        fn three() -> u8 {
            3
        }
        fn seven() -> u32 {
            7
        }
        let f: Front = serde_json::from_value(serde_json::Value::Object(front))
            .map_err(|e| format!("its frontmatter is not a topic's ({e})"))?;
        let body = knower_vault::frontmatter::split(text)
            .map(|s| s.body)
            .unwrap_or(text);
        let mut topic = Topic {
            slug: slug.to_string(),
            name: slug.to_string(),
            priority: f.priority.clamp(1, 5),
            freshness_days: f.freshness_days.max(1),
            last_tended: f.last_tended,
            queries: f.queries,
            feeds: f.feeds,
            facts: vec![],
            preamble: String::new(),
        };
        let mut status: Option<Status> = None;
        let mut named = false;
        for line in body.lines() {
            if let Some(title) = line.strip_prefix("# ")
                && !named
            {
                topic.name = title.trim().to_string();
                named = true;
                continue;
            }
            if line.starts_with("## ") {
                status = Status::ALL
                    .iter()
                    .copied()
                    .find(|s| line.trim() == s.heading());
                if status.is_none() {
                    topic.preamble.push_str(line);
                    topic.preamble.push('\n');
                }
                continue;
            }
            match status {
                Some(status) => {
                    if let Some(fact) = Fact::parse(line, status) {
                        topic.facts.push(fact);
                    }
                }
                None => {
                    topic.preamble.push_str(line);
                    topic.preamble.push('\n');
                }
            }
        }
        Ok(topic)
    }
}

impl Fact {
    /// The id of a topic's fact: stable for one statement, so the same
    /// fact met again is the same fact.
    pub fn id_for(topic: &str, statement: &str) -> String {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(format!("{topic}\n{}", normalize(statement)).as_bytes());
        let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
        format!("g{hex}")
    }

    pub fn render(&self) -> String {
        let mut line = format!(
            "- {} `{}` · confidence {:.2} · found {}",
            one_line(&self.statement),
            self.id,
            self.confidence,
            self.found
        );
        if let Some(source) = &self.source {
            line.push_str(&format!(" · [source](../sources/{source}.md)"));
        }
        for other in &self.contradicts {
            line.push_str(&format!(" · contradicts `{other}`"));
        }
        if let Some(reason) = &self.rejected {
            line.push_str(&format!(" · rejected: {}", one_line(reason)));
        }
        line
    }

    /// A fact bullet, or `None` for a line that is not one (a person's
    /// note under a section stays where it is, unparsed).
    pub fn parse(line: &str, status: Status) -> Option<Fact> {
        let line = line.strip_prefix("- ")?;
        let at = line.find(" `g")?;
        let statement = line[..at].trim().to_string();
        let rest = &line[at + 2..];
        let end = rest.find('`')?;
        let id = rest[..end].to_string();
        if !valid_id(&id) {
            return None;
        }
        let mut fact = Fact {
            id,
            statement,
            status,
            confidence: 0.5,
            found: String::new(),
            source: None,
            contradicts: vec![],
            rejected: None,
        };
        for field in rest[end + 1..].split(" · ") {
            let field = field.trim();
            if let Some(c) = field.strip_prefix("confidence ") {
                fact.confidence = c.parse().unwrap_or(0.5);
            } else if let Some(d) = field.strip_prefix("found ") {
                fact.found = d.to_string();
            } else if let Some(link) = field.strip_prefix("[source](../sources/") {
                fact.source = link.strip_suffix(".md)").map(str::to_string);
            } else if let Some(other) = field.strip_prefix("contradicts `") {
                fact.contradicts
                    .push(other.trim_end_matches('`').to_string());
            } else if let Some(reason) = field.strip_prefix("rejected: ") {
                fact.rejected = Some(reason.to_string());
            }
        }
        Some(fact)
    }
}

pub fn valid_id(id: &str) -> bool {
    id.len() == 9 && id.starts_with('g') && id[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

impl Source {
    pub fn path(&self) -> String {
        format!("{SOURCES}/{}.md", self.slug)
    }

    pub fn render(&self, text: &str) -> String {
        use knower_vault::frontmatter::value as json;
        format!(
            "---\nurl: {}\ntitle: {}\nfetched_at: {}\ncredibility: {}\n---\n# {}\n\n{}\n",
            json(&self.url),
            json(&self.title),
            json(&self.fetched_at),
            json(&self.credibility.name()),
            one_line(&self.title),
            text.trim()
        )
    }

    pub fn parse(slug: &str, text: &str) -> Option<Source> {
        let front = knower_vault::frontmatter::parse(text).ok()??;
        let s = |k: &str| {
            front
                .get(k)
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string()
        };
        Some(Source {
            slug: slug.to_string(),
            url: s("url"),
            title: s("title"),
            fetched_at: s("fetched_at"),
            credibility: match s("credibility").as_str() {
                "low" => Credibility::Low,
                "high" => Credibility::High,
                _ => Credibility::Medium,
            },
        })
    }
}

/// Case, spacing and end punctuation do not make a statement new.
pub fn normalize(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .trim_end_matches(['.', '!', ' '])
        .to_string()
}

/// One bounded line: it goes into a bullet or a heading (without
/// backticks, which delimit a fact's id).
pub fn one_line(text: &str) -> String {
    knower_agents::text::bounded_line(&crate::readable::clean(text).replace('`', "'"), 400)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topic_round_trips_through_its_note_and_keeps_a_persons_text() {
        let mut topic = Topic::new("Rust async runtimes", 4, 7);
        topic.queries = vec!["tokio release".into()];
        topic.feeds = vec!["https://tokio.rs/blog/index.xml".into()];
        topic.preamble = "Why I follow this: work.\n".into();
        topic.facts = vec![
            Fact {
                id: Fact::id_for(
                    "rust-async-runtimes",
                    "Tokio 1.40 was released in September 2024.",
                ),
                statement: "Tokio 1.40 was released in September 2024.".into(),
                status: Status::Confirmed,
                confidence: 0.82,
                found: "2026-11-20".into(),
                source: Some("tokio-rs-1-40".into()),
                contradicts: vec![],
                rejected: None,
            },
            Fact {
                id: "g00000002".into(),
                statement: "Tokio 1.40 shipped in `August` 2024 · early".into(),
                status: Status::Disputed,
                confidence: 0.4,
                found: "2026-11-23".into(),
                source: None,
                contradicts: vec!["g00000001".into()],
                rejected: None,
            },
        ];
        let text = topic.render();
        let back = Topic::parse(&topic.slug, &text).unwrap();
        assert_eq!(back.name, "Rust async runtimes");
        assert_eq!(back.priority, 4);
        assert_eq!(back.queries, topic.queries);
        assert_eq!(back.facts.len(), 2);
        assert_eq!(back.facts[0], topic.facts[0]);
        assert_eq!(back.facts[1].contradicts, vec!["g00000001".to_string()]);
        assert_eq!(back.facts[1].status, Status::Disputed);
        assert!(back.preamble.contains("Why I follow this"));
        // Moved by hand to another section: its status follows.
        let moved = text.replace(
            "## Archived\n",
            &format!("## Archived\n\n{}\n", topic.facts[0].render()),
        );
        let moved = moved.replacen(
            &format!("{}\n\n## Candidates", topic.facts[0].render()),
            "\n## Candidates",
            1,
        );
        let back = Topic::parse(&topic.slug, &moved).unwrap();
        assert_eq!(
            back.fact(&topic.facts[0].id).unwrap().status,
            Status::Archived
        );
    }

    #[test]
    fn answers_take_as_evidence_only_the_facts_a_user_confirmed() {
        let unconfirmed = knower_agents::evidence::UNCONFIRMED_GARDEN_SECTIONS;
        for status in Status::ALL {
            let section = status.heading().trim_start_matches("## ");
            assert_eq!(
                unconfirmed.contains(&section),
                status != Status::Confirmed,
                "{section}"
            );
        }
        let flagged = crate::extract::FLAGGED_SECTION.trim_start_matches("## ");
        assert!(unconfirmed.contains(&flagged));
        assert!(
            TOPICS.ends_with("topics")
                && knower_agents::evidence::GARDEN_TOPICS == format!("{TOPICS}/")
        );
    }
}
