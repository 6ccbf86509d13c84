//! What an interrupted update left behind, read from the vault's journal.
//!
//! Every change an update makes is journaled with a reason that starts with
//! the update's id ([`author_of`]), and the last change of every update,
//! whatever its outcome, is its one entry in the global changelog. So after
//! a crash the journal alone tells whether an update finished (its
//! changelog entry is there), never started (nothing carries its id), or
//! stopped half-way — and then its changes can be undone and the update
//! run again, so that its effect lands exactly once.

use knower_vault::{Author, ChangeRecord, Vault};
use serde::Serialize;

use crate::error::Result;

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
    let undone: std::collections::HashSet<u64> =
        journal.iter().filter_map(|record| record.undoes).collect();
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
    let mut count = 0;
    for record in mine.iter().rev().filter(|r| !undone.contains(&r.id)) {
        vault.undo(record.id, &author, false)?;
        count += 1;
    }
    Ok(Resume::RolledBack { undone: count })
}
