//! `knowledge/ledger.json`: what was done with each conversation, keyed by
//! the SHA-256 of its content. It is what proves a source harvested before
//! the source may be deleted, and why the same content met again costs no
//! model call.

use std::collections::BTreeMap;

use knower_vault::{Batch, Error};
use serde::{Deserialize, Serialize};

use crate::items::Counts;

pub const LEDGER: &str = "knowledge/ledger.json";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Its items are in the category files.
    Harvested,
    /// The model failed twice, or could not be reached: the source is kept.
    HarvestFailed,
    /// Over the size a harvest takes: kept, not harvested.
    TooLarge,
    /// Reclaimed without a harvest, as the user asked (`--no-harvest`).
    DeletedUnharvested,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Harvested => "harvested",
            Status::HarvestFailed => "harvest-failed",
            Status::TooLarge => "too-large",
            Status::DeletedUnharvested => "deleted-unharvested",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Where the conversation was (`file` or `file#conversation`).
    pub path: String,
    /// The conversation's name, as its items' provenance says.
    #[serde(default)]
    pub name: String,
    pub status: Status,
    pub at: String,
    #[serde(default)]
    pub items: Counts,
    #[serde(default)]
    pub deleted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    #[serde(default)]
    pub entries: BTreeMap<String, Entry>,
}

impl Ledger {
    /// The ledger as the vault holds it (empty when there is none). A
    /// ledger that does not parse is an error, never overwritten.
    pub fn parse(text: Option<&str>) -> Result<Ledger, String> {
        match text {
            None => Ok(Ledger::default()),
            Some(text) if text.trim().is_empty() => Ok(Ledger::default()),
            Some(text) => serde_json::from_str(text).map_err(|e| {
                format!("{LEDGER} is not a ledger ({e}); fix it by hand or move it away")
            }),
        }
    }

    pub fn load(batch: &mut Batch) -> Result<Ledger, Error> {
        let text = batch.read(LEDGER)?;
        Ledger::parse(text.as_deref()).map_err(Error::Refused)
    }

    pub fn save(&self, batch: &mut Batch) -> Result<(), Error> {
        let text = serde_json::to_string_pretty(self).expect("the ledger serialises");
        batch.write(LEDGER, &format!("{text}\n"))
    }

    pub fn get(&self, digest: &str) -> Option<&Entry> {
        self.entries.get(digest)
    }
}
