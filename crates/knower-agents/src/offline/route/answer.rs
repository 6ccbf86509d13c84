//! Reading the user's answer to an inbox item: an option's number, a
//! project, a path, `bucket`, `profile`, `tasks` or `discard`.

use crate::error::Result;
use crate::offline::kind::{Kind, project_file};
use crate::offline::phrasing::contains_words;
use crate::router::{Project, projects};
use knower_vault::Vault;

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
