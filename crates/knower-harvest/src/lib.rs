//! Knower's harvest (seed 002): the user's past conversations become
//! durable knowledge in the vault's `knowledge/` folder.
//!
//! [`Harvester::run`] reads Claude Code, Codex CLI and Gemini CLI sessions,
//! the ChatGPT and Claude.ai exports, Knower's chat log and plain text
//! ([`formats`], a conversation at a time), classifies each conversation
//! against the [`ledger`], and — only when told to apply — extracts seven
//! categories of items from each (with the model, [`model`], or by the
//! offline engine's stated rules, [`offline`]), appends the new ones to the
//! category files with a link to the vault's project they are about
//! ([`projects`]), regenerates the bounded digest ([`knowledge`]) and
//! records the conversations in the ledger, up to 100 a vault change. With `reclaim` it deletes the sources the
//! ledger proves harvested.

pub mod conversation;
pub mod formats;
mod harvest;
pub mod items;
pub mod knowledge;
pub mod ledger;
pub mod model;
pub mod offline;
pub mod projects;

pub use conversation::{Conversation, Format, Turn};
pub use harvest::{
    ACTOR, BUILT_IN_PROMPT, Class, Failed, HarvestError, Harvester, OFFLINE, Options, PROMPT,
    Planned, Report, Tally, Unreadable, sha256,
};
pub use items::{Counts, Harvested};
pub use ledger::{Ledger, Status};

/// The harvest's prompt in effect for a vault (for `knower prompts`).
pub fn prompts(vault: &knower_vault::Vault) -> Vec<knower_agents::Prompt> {
    vec![knower_agents::prompt(vault, PROMPT, BUILT_IN_PROMPT)]
}

mod overview;
pub use overview::{CategoryFile, DigestState, Overview, delete_digest, overview};
