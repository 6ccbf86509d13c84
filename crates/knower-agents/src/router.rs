//! The seam where an update's place is decided: a [`Router`] reads the
//! [`Facts`] the vault and the index hold about it and comes to a
//! [`Decision`]. The offline engine's rules ([`crate::offline::Rules`]) and
//! the model's update agent (`llm::update::ModelRouter`, which files with
//! its tools as it decides) are the two routers; the update's report takes
//! confidence, reasoning and rule from either's decision in one place
//! (`UpdateReport::decided`).

use std::collections::BTreeMap;
use std::sync::Arc;

use knower_index::{Index, Mode, SearchOptions};
use knower_vault::{EntryKind, Vault, frontmatter};
use serde_json::Value;

use crate::error::Result;
use crate::inbox::Choice;
use crate::offline::kind::Kind;
use crate::payload::Payload;

/// Decides where an update belongs.
pub trait Router {
    fn route(&self, facts: &Facts, update: &Payload) -> Result<Decision>;
}

/// Where an update goes, why, and which rule said so.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Decision {
    /// The file to write; `None` for the inbox.
    pub destination: Option<String>,
    /// The kind the offline rules gave the text; a model gives none.
    pub kind: Option<Kind>,
    pub project: Option<String>,
    /// 0 to 1: how sure the router is, when it says.
    pub confidence: Option<f32>,
    pub reasoning: String,
    /// The rule that decided (`named`, `sole-holder`, `weighs-options`…),
    /// `model` for the model's own judgement.
    pub rule: &'static str,
    /// The destinations considered, best first (the inbox's options).
    #[serde(skip)]
    pub choices: Vec<Choice>,
    /// What the router wrote itself: a model files with its tools as it
    /// decides; the offline rules write nothing (their decision is filed
    /// afterwards).
    #[serde(skip)]
    pub written: Vec<String>,
}

impl Decision {
    /// A decision by `rule` that says nothing else yet: the inbox, no
    /// reasoning, nothing written.
    pub fn by(rule: &'static str) -> Decision {
        Decision {
            destination: None,
            kind: None,
            project: None,
            confidence: None,
            reasoning: String::new(),
            rule,
            choices: vec![],
            written: vec![],
        }
    }
}

/// A project of the vault as routing sees it.
#[derive(Clone, Debug)]
pub struct Project {
    /// Its folder's name under `projects/`.
    pub name: String,
    /// Lower-case forms a text may name it by: the folder's name, its
    /// title, its `aliases`.
    pub names: Vec<String>,
}

/// One passage the search found for an update's text.
#[derive(Clone, Debug)]
pub struct Hit {
    pub path: String,
    pub line_start: usize,
    pub line_end: usize,
    pub score: f32,
}

/// How close in meaning a text is to some files and some short texts (see
/// [`Index::similarity_to`]); `Err` says why it could not be measured.
type Similarity = (Vec<Option<f32>>, Vec<Option<f32>>);

/// What the vault and the index hold that bears on where an update goes,
/// gathered before a router runs: the projects and the names they go by,
/// the search's passages for the text, and the text of each project's own
/// notes and of the notes the search found. How close in meaning the text
/// is to a note is measured when a rule first asks ([`Facts::similarity`]):
/// it needs the embedding model, which a decision by name never loads.
#[derive(Default)]
pub struct Facts {
    pub projects: Vec<Project>,
    /// The search's passages for the text, best first.
    pub hits: Vec<Hit>,
    notes: BTreeMap<String, String>,
    meaning: Option<Arc<Index>>,
}

/// How many passages the search gives routing.
const HITS: usize = 40;
/// How many of a project's notes found by the search routing reads.
pub const HIT_FILES: usize = 8;
/// The notes of its own each project's facts hold.
pub const OWN_NOTES: [&str; 4] = ["description.md", "state.md", "tasks.md", "changelog.md"];

impl Facts {
    /// The facts about `text` in `vault`, searched in `index`.
    pub fn gather(vault: &Vault, index: &Arc<Index>, text: &str) -> Result<Facts> {
        let projects = projects(vault)?;
        let query = keywords(text);
        let hits: Vec<Hit> = if query.trim().is_empty() {
            vec![]
        } else {
            let options = SearchOptions {
                mode: Mode::Fast,
                scope: None,
                limit: HITS,
            };
            index
                .search(&query, &options)?
                .hits
                .into_iter()
                .map(|h| Hit {
                    path: h.path,
                    line_start: h.line_start,
                    line_end: h.line_end,
                    score: h.score,
                })
                .collect()
        };
        let mut facts = Facts {
            projects,
            hits,
            notes: BTreeMap::new(),
            meaning: index.model_at_hand().then(|| index.clone()),
        };
        let mut paths: Vec<String> = facts
            .projects
            .iter()
            .flat_map(|p| OWN_NOTES.map(|f| format!("projects/{}/{f}", p.name)))
            .collect();
        for project in &facts.projects {
            paths.extend(facts.hit_files(&project.name).iter().map(|f| f.to_string()));
        }
        for path in paths {
            // A hit may be one of a project's own notes, read already.
            if facts.notes.contains_key(&path) {
                continue;
            }
            if let Ok(text) = vault.read(&path) {
                facts.notes.insert(path, text);
            }
        }
        Ok(facts)
    }

    /// Facts given whole, for a router's tests: no search, no model.
    pub fn of(projects: Vec<Project>, hits: Vec<Hit>, notes: BTreeMap<String, String>) -> Facts {
        Facts {
            projects,
            hits,
            notes,
            meaning: None,
        }
    }

    /// The text of a note the facts hold (a project's own notes, or one
    /// the search found).
    pub fn note(&self, path: &str) -> Option<&str> {
        self.notes.get(path).map(String::as_str)
    }

    /// The notes of `project` the search found, best first, at most
    /// [`HIT_FILES`].
    pub fn hit_files(&self, project: &str) -> Vec<&str> {
        let prefix = format!("projects/{project}/");
        let mut files: Vec<&str> = Vec::new();
        for hit in self.hits.iter().filter(|h| h.path.starts_with(&prefix)) {
            if files.len() < HIT_FILES && !files.contains(&hit.path.as_str()) {
                files.push(&hit.path);
            }
        }
        files
    }

    /// Whether meaning can be measured: an embedding model is on this
    /// machine.
    pub fn has_meaning(&self) -> bool {
        self.meaning.is_some()
    }

    /// How close in meaning `text` is to each note of `paths` and to each
    /// of `others`. `Ok(None)` when no model is at hand.
    pub fn similarity(
        &self,
        text: &str,
        paths: &[&str],
        others: &[&str],
    ) -> std::result::Result<Option<Similarity>, String> {
        match &self.meaning {
            None => Ok(None),
            Some(index) => index
                .similarity_to(text, paths, others)
                .map(Some)
                .map_err(|e| e.to_string()),
        }
    }
}

/// The projects of the vault, each with the names a text may call it by.
pub(crate) fn projects(vault: &Vault) -> Result<Vec<Project>> {
    let node = match vault.tree("projects", Some(1)) {
        Ok(node) => node,
        Err(knower_vault::Error::NotFound { .. }) => return Ok(vec![]),
        Err(e) => return Err(e.into()),
    };
    let mut out = Vec::new();
    for child in node.children.iter().filter(|c| c.kind == EntryKind::Folder) {
        let name = child.path.name().to_string();
        let mut names = vec![
            name.to_lowercase(),
            name.to_lowercase().replace(['-', '_'], " "),
        ];
        if let Ok(text) = vault.read(&format!("projects/{name}/description.md")) {
            if let Ok(Some(meta)) = frontmatter::parse(&text)
                && let Some(Value::Array(aliases)) = meta.get("aliases")
            {
                names.extend(
                    aliases
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_lowercase),
                );
            }
            let body = frontmatter::split(&text).map(|s| s.body).unwrap_or(&text);
            if let Some(title) = body.lines().find_map(|l| l.strip_prefix("# ")) {
                names.push(title.trim().to_lowercase());
            }
        }
        names.retain(|n| n.chars().filter(|c| c.is_alphanumeric()).count() >= 3);
        names.sort();
        names.dedup();
        out.push(Project { name, names });
    }
    Ok(out)
}

/// The text as a plain keyword query (no operators, bounded length).
fn keywords(text: &str) -> String {
    text.split_whitespace()
        .map(|w| {
            w.trim_start_matches(['-', '+'])
                .replace(['"', '*', ':', '(', ')'], " ")
        })
        .take(120)
        .collect::<Vec<_>>()
        .join(" ")
}
