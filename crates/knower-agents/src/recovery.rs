//! What an interrupted update left behind, read from the vault's journal.
//!
//! Every change an update makes is journaled with a reason that starts with
//! the update's id ([`author_of`]), and the last change of every update,
//! whatever its outcome, is its one entry in the global changelog. So after
//! a crash the journal alone tells whether an update finished (its
//! changelog entry is there), never started (nothing carries its id), or
//! stopped half-way — and then its changes can be undone and the update
//! run again, so that its effect lands exactly once.

use std::collections::HashMap;

use knower_vault::{Author, ChangeRecord, Vault};
use serde::Serialize;

use crate::error::{Error, Result};

pub(crate) const CHANGELOG: &str = "changelog.md";
/// The owner's profile, which agents read whole.
pub(crate) const PROFILE: &str = "profile.md";

/// The author of a change made for update `update_id`.
pub(crate) fn author_of(actor: &str, update_id: &str, reason: &str) -> Author {
    Author::new(actor, format!("{update_id}: {reason}"))
}

/// What [`resume`] found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Resume {
    /// The update had finished: its changelog entry is in the journal.
    Finished {
        /// The changelog entry's reason, which is the update's summary.
        summary: String,
        /// The paths it changed (the changelog not included).
        changed: Vec<String>,
    },
    /// It had not finished; this many of its changes were undone, and it
    /// can run again from a clean vault.
    RolledBack { undone: usize },
}

/// Looks for update `update_id` in the journal and, when it stopped
/// half-way, undoes its changes, newest first.
pub fn resume(vault: &Vault, update_id: &str) -> Result<Resume> {
    let journal = vault.log()?;
    let prefix = format!("{update_id}: ");
    let undone = undone_changes(&journal);
    let mine: Vec<&ChangeRecord> = journal
        .iter()
        .filter(|record| record.reason.starts_with(&prefix))
        .collect();
    if let Some(entry) = mine
        .iter()
        .rev()
        .find(|record| record.files.iter().any(|f| f.path.as_str() == CHANGELOG))
    {
        let mut changed: Vec<String> = Vec::new();
        for record in &mine {
            for file in &record.files {
                let path = file.path.to_string();
                if path != CHANGELOG && !changed.contains(&path) {
                    changed.push(path);
                }
            }
        }
        return Ok(Resume::Finished {
            summary: entry.reason[prefix.len()..].to_string(),
            changed,
        });
    }
    let author = Author::new(
        "knower",
        format!("rolled back the unfinished {update_id} after an interruption, to run it again"),
    );
    let live = standing(&mine, &undone);
    if !live.is_empty() {
        vault.undo_all(&live, &author, false)?;
    }
    Ok(Resume::RolledBack { undone: live.len() })
}

/// The update a change was made for: its reason starts with the update's
/// id (`update-…: `), or the id of one attempt (`update-…~2: `).
pub fn update_of(record: &ChangeRecord) -> Option<&str> {
    let (run, _) = record.reason.split_once(": ")?;
    let id = run.split_once('~').map_or(run, |(id, _)| id);
    (id.starts_with("update-") && !id.contains(' ')).then_some(id)
}

/// Which changes stand undone, each with the change that undid it. Undoing
/// an undo brings back what that undo had taken away.
fn undone_changes(journal: &[ChangeRecord]) -> HashMap<u64, u64> {
    let undoes: HashMap<u64, &[u64]> = journal
        .iter()
        .filter(|r| !r.undoes.is_empty())
        .map(|r| (r.id, r.undoes.as_slice()))
        .collect();
    let mut undone = HashMap::new();
    for record in journal {
        for &id in &record.undoes {
            for restored in undoes.get(&id).copied().unwrap_or_default() {
                undone.remove(restored);
            }
            undone.insert(id, record.id);
        }
    }
    undone
}

/// The ids of `changes` not undone, newest first: what an undo takes back.
fn standing(changes: &[&ChangeRecord], undone: &HashMap<u64, u64>) -> Vec<u64> {
    changes
        .iter()
        .rev()
        .map(|r| r.id)
        .filter(|id| !undone.contains_key(id))
        .collect()
}

/// The updates whose changes all stand undone, each with the change that
/// undid the last of them.
pub fn undone_updates(journal: &[ChangeRecord]) -> HashMap<String, u64> {
    let undone = undone_changes(journal);
    let mut updates: HashMap<&str, Option<u64>> = HashMap::new();
    for record in journal {
        let Some(update) = update_of(record) else {
            continue;
        };
        let by = updates.entry(update).or_insert(Some(0));
        *by = match (*by, undone.get(&record.id)) {
            (Some(a), Some(&b)) => Some(a.max(b)),
            _ => None,
        };
    }
    updates
        .into_iter()
        .filter_map(|(update, by)| Some((update.to_string(), by?)))
        .collect()
}

/// Takes back every change of update `update_id` that still stands, as
/// one change: an update is one thing to the user, however many changes
/// its agent made. Refused when nothing of it is left, or (unless `force`)
/// when the lines it wrote were changed since.
pub fn undo_update(
    vault: &Vault,
    update_id: &str,
    actor: &str,
    force: bool,
) -> Result<ChangeRecord> {
    let journal = vault.log()?;
    let undone = undone_changes(&journal);
    let mine: Vec<&ChangeRecord> = journal
        .iter()
        .filter(|r| update_of(r) == Some(update_id))
        .collect();
    let live = standing(&mine, &undone);
    match mine.last() {
        None => {
            return Err(Error::Invalid(format!(
                "no change of the vault carries update {update_id}"
            )));
        }
        Some(last) if live.is_empty() => {
            return Err(knower_vault::Error::UndoConflict {
                id: last.id,
                detail: format!("update {update_id} is already undone"),
            }
            .into());
        }
        Some(_) => {}
    }
    let author = Author::new(actor, format!("undo {update_id}"));
    vault
        .undo_all(&live, &author, force)?
        .ok_or_else(|| Error::Invalid(format!("update {update_id} changed nothing left to undo")))
}
