//! The knowledge folder at a glance, for the web UI: each category file
//! with its item count, the digest with its size and bound, the ledger;
//! and "delete to turn off".

use knower_vault::{Author, Vault};
use serde::Serialize;

use crate::knowledge::{CATEGORIES, DIGEST, DIGEST_MAX_BYTES};
use crate::ledger::{Entry, LEDGER, Ledger};

#[derive(Clone, Debug, Serialize)]
pub struct CategoryFile {
    pub path: &'static str,
    pub exists: bool,
    /// Bullets (for tasks.md: open and done together).
    pub items: usize,
    pub bytes: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct DigestState {
    pub path: &'static str,
    pub exists: bool,
    pub bytes: usize,
    pub max_bytes: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Overview {
    pub files: Vec<CategoryFile>,
    pub digest: DigestState,
    /// The ledger's entries, newest first, with their sha256.
    pub ledger: Vec<(String, Entry)>,
    /// Why the ledger could not be read, if it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ledger_problem: Option<String>,
}

pub fn overview(vault: &Vault) -> Result<Overview, knower_vault::Error> {
    let files = CATEGORIES
        .iter()
        .map(|(path, _)| {
            let text = vault.read(path).ok();
            CategoryFile {
                path,
                exists: text.is_some(),
                items: text
                    .as_deref()
                    .map_or(0, |t| t.lines().filter(|l| l.starts_with("- ")).count()),
                bytes: text.as_deref().map_or(0, str::len),
            }
        })
        .collect();
    let digest = vault.read(DIGEST).ok();
    let (ledger, ledger_problem) = match Ledger::parse(vault.read(LEDGER).ok().as_deref()) {
        Ok(ledger) => {
            let mut entries: Vec<(String, Entry)> = ledger.entries.into_iter().collect();
            entries.sort_by(|a, b| b.1.at.cmp(&a.1.at));
            (entries, None)
        }
        Err(problem) => (vec![], Some(problem)),
    };
    Ok(Overview {
        files,
        digest: DigestState {
            path: DIGEST,
            exists: digest.is_some(),
            bytes: digest.as_deref().map_or(0, str::len),
            max_bytes: DIGEST_MAX_BYTES,
        },
        ledger,
        ledger_problem,
    })
}

/// Deletes the digest (delete to turn off), journaled under `actor`.
/// Returns whether there was one.
pub fn delete_digest(vault: &Vault, actor: &str) -> Result<bool, knower_vault::Error> {
    if vault.read(DIGEST).is_err() {
        return Ok(false);
    }
    vault.delete(
        DIGEST,
        &Author::new(
            actor,
            "delete knowledge/digest.md: no knowledge block reaches the agents until the next harvest",
        ),
    )?;
    Ok(true)
}
