//! Knower's chat (seed 004): a conversation that remembers by conclusions,
//! not by token limits.
//!
//! Each exchange ([`Chat::exchange`]) is answered from a context built just
//! in time ([`context`]): the prompt, the profile and the knowledge digest,
//! the open efforts, the artifacts and vault passages relevant to this
//! message (the index ranks them; a token budget bounds them), and the last
//! few exchanges. The exchange goes to the permanent log ([`log`],
//! `chat/log.jsonl`, appended and synced, never rewritten); then the
//! interpreter ([`interpret`], or the offline rules of [`offline`]) decides
//! what it concluded, and the artifacts ([`artifact`], one note each in
//! `chat/artifacts/`) change in one journaled vault change: an effort
//! opened, resolved (the open one itself, never a second), a fact or an
//! event recorded; references counted; unreferenced facts and events
//! archived after a while.

pub mod artifact;
mod chat;
pub mod context;
pub mod interpret;
pub mod log;
pub mod offline;
mod settings;
mod store;

pub use artifact::{Artifact, Kind, Status};
pub use chat::{
    ACTOR, BUILT_IN_INTERPRET_PROMPT, BUILT_IN_PROMPT, Change, Chat, ChatError, Correction,
    Exchange, INTERPRET_PROMPT, OFFLINE, PROMPT, remember,
};
pub use context::{Context, ContextReport};
pub use log::{LOG, Record};
pub use settings::Settings;

/// The chat's prompts in effect for a vault (for `knower prompts`).
pub fn prompts(vault: &knower_vault::Vault) -> Vec<knower_agents::Prompt> {
    vec![
        knower_agents::prompt(vault, PROMPT, BUILT_IN_PROMPT),
        knower_agents::prompt(vault, INTERPRET_PROMPT, BUILT_IN_INTERPRET_PROMPT),
    ]
}
