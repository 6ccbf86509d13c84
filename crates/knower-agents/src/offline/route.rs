//! Where an update belongs, without an LLM.
//!
//! The rules, in order:
//!
//! 1. **Kind.** A *task* starts like one (`todo`, `- [ ]`, `remember to`,
//!    `need to`, an imperative such as `buy`, `call`, `fix`…). An *event*
//!    reports something that happened or was decided (`decided`,
//!    `shipped`, `released`, `met with`…). A *preference* is about the user
//!    (`I prefer`, `I like`, `always use`, `call me`…). Anything else is a
//!    *note*.
//! 2. **Project named.** A project whose folder name (or title, or an
//!    `aliases` entry of its description.md) appears in the text is the
//!    project. If several are named, search scores choose among them.
//! 3. **Project by content.** Otherwise the text is searched (BM25) and each
//!    project scores its best passage plus half its second. The best
//!    project wins when it scores at least [`MIN_SCORE`] and
//!    [`MIN_RATIO`] times the runner-up.
//! 4. **No project.** A preference goes to `profile.md`, a task to the
//!    global `tasks.md`; anything else, or two projects too close to call,
//!    goes to the inbox with the scores as the reasoning.
//!
//! Inside a project, tasks go to `tasks.md`, events to `changelog.md`,
//! notes and preferences to `state.md`.

use std::collections::BTreeMap;

use knower_index::{Index, Mode, SearchOptions};
use knower_vault::{EntryKind, Vault, frontmatter};
use serde_json::Value;

use crate::error::Result;
use crate::inbox::Choice;

/// A project's content score must reach this to be chosen without being named.
pub const MIN_SCORE: f32 = 3.0;
/// …and be this many times the runner-up's.
pub const MIN_RATIO: f32 = 1.5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Task,
    Event,
    Preference,
    Note,
}

/// Where the offline engine files an update, and why.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Decision {
    /// The file to write; `None` for the inbox.
    pub destination: Option<String>,
    pub kind: Kind,
    pub project: Option<String>,
    /// 0 to 1: how sure the rules are.
    pub confidence: f32,
    pub reasoning: String,
    /// The destinations considered, best first (the inbox's options).
    #[serde(skip)]
    pub choices: Vec<Choice>,
}

const TASK_STARTS: &[&str] = &[
    "todo",
    "to do",
    "to-do",
    "task:",
    "- [ ]",
    "[ ]",
    "* [ ]",
    "remember to",
    "don't forget",
    "do not forget",
    "need to",
    "needs to",
    "we need to",
    "i need to",
    "i have to",
    "we have to",
    "we must",
    "i must",
    "must ",
    "should ",
    "action item",
    "follow up",
    "follow-up",
    "buy ",
    "call ",
    "email ",
    "book ",
    "schedule ",
    "fix ",
    "ask ",
    "send ",
    "renew ",
    "pay ",
    "check ",
    "review ",
    "write ",
    "prepare ",
    "order ",
    "finish ",
    "submit ",
    "reply to",
    "set up",
    "clean ",
    "cancel ",
    "plan ",
    "pick up",
    "return ",
    "run ",
    "choose ",
    "turn ",
    "try ",
    "find ",
    "get ",
    "make ",
    "move ",
    "update ",
    "test ",
    "add ",
    "remove ",
    "install ",
    "print ",
    "read ",
    "draft ",
    "contact ",
    "visit ",
    "confirm ",
    "arrange ",
    "collect ",
    "repair ",
    "replace ",
    "paint ",
    "water ",
    "plant ",
    "sign ",
    "register ",
];
/// Said of the user directly: a preference even when a task word starts it.
const ABOUT_ME: &[&str] = &["call me ", "my name is", "i am called"];
const EVENT_WORDS: &[&str] = &[
    "decided",
    "decision",
    "shipped",
    "released",
    "launched",
    "deployed",
    "merged",
    "signed",
    "we agreed",
    "agreed to",
    "completed",
    "finished",
    "met with",
    "meeting with",
    "kicked off",
    "went live",
    "hired",
    "approved",
    "announced",
    "closed the",
    "migrated",
    "switched to",
    "booked",
    "bought",
    "ordered",
    "paid",
    "harvested",
    "planted",
    "delivered",
    "published",
    "submitted",
    "received",
    "cancelled",
    "canceled",
];
const PREFERENCE_WORDS: &[&str] = &[
    "i prefer",
    "i like ",
    "i love ",
    "i hate ",
    "i dislike",
    "i don't like",
    "i do not like",
    "my favorite",
    "my favourite",
    "always use",
    "never use",
    "please always",
    "please never",
    "call me ",
    "i'm allergic",
    "i am allergic",
    "i'm vegetarian",
    "i am vegetarian",
    "i'm vegan",
    "i am vegan",
    "my name is",
    "i work as",
    "i live in",
    "my birthday",
    "i usually",
    "i always ",
    "i never ",
];

/// The kind of an update's text (rule 1).
pub fn kind_of(text: &str) -> Kind {
    let lower = text.trim().to_lowercase();
    let first = lower.trim_start_matches(['-', '*', '•', ' ']);
    let first = if lower.starts_with("- [ ]") || lower.starts_with("* [ ]") {
        lower.as_str()
    } else {
        first
    };
    if ABOUT_ME.iter().any(|s| first.starts_with(s)) {
        Kind::Preference
    } else if TASK_STARTS.iter().any(|s| first.starts_with(s)) {
        Kind::Task
    } else if EVENT_WORDS.iter().any(|w| contains_words(&lower, w)) {
        Kind::Event
    } else if PREFERENCE_WORDS.iter().any(|w| lower.contains(w)) {
        Kind::Preference
    } else {
        Kind::Note
    }
}

/// `needle` in `hay` at word boundaries.
fn contains_words(hay: &str, needle: &str) -> bool {
    let needle = needle.trim();
    hay.match_indices(needle).any(|(at, _)| {
        let before = hay[..at].chars().next_back();
        let after = hay[at + needle.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

struct Project {
    name: String,
    /// Lower-case forms the text may name it by.
    names: Vec<String>,
}

fn projects(vault: &Vault) -> Result<Vec<Project>> {
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

pub fn route(vault: &Vault, index: &Index, text: &str) -> Result<Decision> {
    let kind = kind_of(text);
    let lower = text.to_lowercase();
    let projects = projects(vault)?;
    let named: Vec<&Project> = projects
        .iter()
        .filter(|p| p.names.iter().any(|n| contains_words(&lower, n)))
        .collect();

    // Content scores per project (rule 3).
    let mut per_project: BTreeMap<String, (Vec<f32>, String)> = BTreeMap::new();
    let query = keywords(text);
    if !query.trim().is_empty() {
        let options = SearchOptions {
            mode: Mode::Fast,
            scope: None,
            limit: 40,
        };
        for hit in index.search(&query, &options)?.hits {
            let mut parts = hit.path.splitn(3, '/');
            if let (Some("projects"), Some(project), Some(_)) =
                (parts.next(), parts.next(), parts.next())
            {
                let entry = per_project.entry(project.to_string()).or_insert_with(|| {
                    (
                        vec![],
                        format!("{}:{}-{}", hit.path, hit.line_start, hit.line_end),
                    )
                });
                entry.0.push(hit.score);
            }
        }
    }
    let mut scored: Vec<(String, f32, String)> = per_project
        .into_iter()
        .map(|(p, (scores, best))| {
            let score = scores[0] + 0.5 * scores.get(1).copied().unwrap_or(0.0);
            (p, score, best)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let score_of = |p: &str| scored.iter().find(|s| s.0 == p).map(|s| s.1).unwrap_or(0.0);

    let mut why = vec![format!(
        "Kind: {} (rule: {}).",
        kind_name(kind),
        kind_rule(kind)
    )];
    why.push(if named.is_empty() {
        "No project is named in the text.".to_string()
    } else {
        format!(
            "Named in the text: {}.",
            named
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
    why.push(if scored.is_empty() {
        "No project's notes match the text's words.".to_string()
    } else {
        format!(
            "Search scores (best passage + half the second): {}.",
            scored
                .iter()
                .take(4)
                .map(|(p, s, best)| format!("{p} {s:.1} ({best})"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    });

    let file_in = |project: &str| project_file(project, kind);
    let choice = |project: &str, why: String| Choice {
        destination: file_in(project),
        why,
    };
    let decided = |project: &str, confidence: f32, why: Vec<String>| Decision {
        destination: Some(file_in(project)),
        kind,
        project: Some(project.to_string()),
        confidence,
        reasoning: why.join(" "),
        choices: vec![choice(project, "chosen".into())],
    };
    let global = |path: &str, confidence: f32, why: Vec<String>| Decision {
        destination: Some(path.to_string()),
        kind,
        project: None,
        confidence,
        reasoning: why.join(" "),
        choices: vec![Choice {
            destination: path.to_string(),
            why: "chosen".into(),
        }],
    };

    // Rule 2: named projects.
    if named.len() == 1 {
        let p = &named[0].name;
        why.push(format!("Filed in {p}, the project it names."));
        let confidence = if scored.first().is_some_and(|s| &s.0 == p) {
            0.95
        } else {
            0.85
        };
        return Ok(decided(p, confidence, why));
    }
    if named.len() > 1 {
        let mut by_score: Vec<(&str, f32)> = named
            .iter()
            .map(|p| (p.name.as_str(), score_of(&p.name)))
            .collect();
        by_score.sort_by(|a, b| b.1.total_cmp(&a.1));
        let (best, s1) = by_score[0];
        let s2 = by_score[1].1;
        if s1 >= MIN_SCORE && s1 >= MIN_RATIO * s2 {
            why.push(format!(
                "Several projects are named; {best} matches the text best."
            ));
            return Ok(decided(best, 0.6, why));
        }
        why.push(
            "Several projects are named and their notes match about equally, so I cannot choose."
                .into(),
        );
        let choices = by_score
            .iter()
            .map(|(p, s)| choice(p, format!("named in the text; score {s:.1}")))
            .collect();
        return Ok(inbox(kind, why, choices));
    }

    // Rule 3: content.
    let (s1, s2) = (
        scored.first().map(|s| s.1).unwrap_or(0.0),
        scored.get(1).map(|s| s.1).unwrap_or(0.0),
    );
    if kind == Kind::Preference {
        why.push("A preference that names no project belongs in the profile.".into());
        return Ok(global("profile.md", 0.8, why));
    }
    if s1 >= MIN_SCORE && s1 >= MIN_RATIO * s2 {
        let best = scored[0].0.clone();
        let margin = 1.0 - s2 / s1;
        let strength = (s1 / (2.0 * MIN_SCORE)).min(1.0);
        let confidence = 0.5 + 0.4 * margin * strength;
        why.push(format!(
            "Filed in {best}: its notes match best, {:.1}× the runner-up.",
            if s2 > 0.0 { s1 / s2 } else { f32::INFINITY }
        ));
        return Ok(decided(&best, confidence, why));
    }
    // Rule 4: no project.
    if s1 < MIN_SCORE && kind == Kind::Task {
        why.push("A task that matches no project goes to the global task list.".into());
        return Ok(global("tasks.md", 0.7, why));
    }
    let mut choices: Vec<Choice> = scored
        .iter()
        .take(3)
        .map(|(p, s, best)| choice(p, format!("score {s:.1}, best passage {best}")))
        .collect();
    if s1 >= MIN_SCORE {
        why.push(format!(
            "{} and {} match about equally (less than {MIN_RATIO}× apart), so I cannot choose.",
            scored[0].0, scored[1].0
        ));
    } else {
        why.push(format!(
            "No project scores {MIN_SCORE} or more, and the text is not a task or a preference, so I do not know where it belongs."
        ));
    }
    choices.push(Choice {
        destination: "bucket/".into(),
        why: "keep it as raw material, attached to no project".into(),
    });
    Ok(inbox(kind, why, choices))
}

/// The note of `project` an update of `kind` goes to.
pub fn project_file(project: &str, kind: Kind) -> String {
    let file = match kind {
        Kind::Task => "tasks.md",
        Kind::Event => "changelog.md",
        Kind::Note | Kind::Preference => "state.md",
    };
    format!("projects/{project}/{file}")
}

/// What the user's answer to an inbox item asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answered {
    /// File the item's update in this file, or in a new note of this folder
    /// when it ends with `/`.
    File(String),
    Discard,
}

/// Reads an answer to an inbox item: an option number, `discard`,
/// `bucket`, `profile`, `tasks`, a path, or a project's name.
pub fn read_answer(
    vault: &Vault,
    answer: &str,
    options: &[String],
    kind: Kind,
) -> Result<Option<Answered>> {
    let answer = answer.trim().trim_matches(['"', '\'', '`', '.']);
    let lower = answer.to_lowercase();
    if [
        "discard",
        "drop",
        "delete",
        "ignore",
        "delete it",
        "drop it",
    ]
    .contains(&lower.as_str())
    {
        return Ok(Some(Answered::Discard));
    }
    if let Ok(n) = lower
        .trim_start_matches(['#', '('])
        .trim_end_matches(')')
        .parse::<usize>()
    {
        return Ok(options.get(n.wrapping_sub(1)).cloned().map(Answered::File));
    }
    for (word, path) in [
        ("bucket", "bucket/"),
        ("profile", "profile.md"),
        ("tasks", "tasks.md"),
    ] {
        if contains_words(&lower, word) && !lower.contains('/') {
            return Ok(Some(Answered::File(path.into())));
        }
    }
    if answer.contains('/') || answer.ends_with(".md") {
        let path = knower_vault::VaultPath::parse(answer)?;
        if path.starts_with(&knower_vault::VaultPath::parse(crate::inbox::INBOX).expect("valid")) {
            return Ok(None);
        }
        let s = path.as_str();
        if let Some(project) = s.strip_prefix("projects/").filter(|p| !p.contains('/')) {
            return Ok(Some(Answered::File(project_file(project, kind))));
        }
        return Ok(Some(Answered::File(if s.ends_with(".md") {
            s.to_string()
        } else {
            format!("{s}/")
        })));
    }
    // `project trip`, `new project trip`: that project, started if new.
    if let Some(name) = lower
        .strip_prefix("new project ")
        .or_else(|| lower.strip_prefix("project "))
    {
        let name = knower_vault::slug(name);
        if !name.is_empty() {
            return Ok(Some(Answered::File(project_file(&name, kind))));
        }
    }
    let named: Vec<Project> = projects(vault)?
        .into_iter()
        .filter(|p| p.names.iter().any(|n| contains_words(&lower, n)))
        .collect();
    Ok(match named.as_slice() {
        [one] => Some(Answered::File(project_file(&one.name, kind))),
        _ => None,
    })
}

fn inbox(kind: Kind, why: Vec<String>, choices: Vec<Choice>) -> Decision {
    Decision {
        destination: None,
        kind,
        project: None,
        confidence: 0.0,
        reasoning: why.join(" "),
        choices,
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Task => "task",
        Kind::Event => "event",
        Kind::Preference => "preference",
        Kind::Note => "note",
    }
}

fn kind_rule(kind: Kind) -> &'static str {
    match kind {
        Kind::Task => "it starts like a task",
        Kind::Event => "it reports something that happened or was decided",
        Kind::Preference => "it states a preference or a fact about the user",
        Kind::Note => "none of the task, event or preference rules apply",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_documented_rules() {
        for (text, kind) in [
            ("TODO: renew the domain", Kind::Task),
            ("- [ ] write the report", Kind::Task),
            ("Remember to call the plumber", Kind::Task),
            ("Buy oat milk", Kind::Task),
            ("We decided to use Postgres", Kind::Event),
            ("Atlas v2 shipped today", Kind::Event),
            ("I prefer answers in French", Kind::Preference),
            ("The API has three endpoints", Kind::Note),
            ("the redecided field", Kind::Note),
        ] {
            assert_eq!(kind_of(text), kind, "{text}");
        }
    }

    #[test]
    fn names_match_at_word_boundaries() {
        assert!(contains_words("notes on atlas today", "atlas"));
        assert!(!contains_words("the atlases", "atlas"));
        assert!(contains_words("home renovation: tiles", "home renovation"));
    }
}
