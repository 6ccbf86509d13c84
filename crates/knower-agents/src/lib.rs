//! Knower's agents (seed 003): the **update agent** ("where does this
//! information belong?") and the **search agent** ("what does the user need
//! to know?"), the eight tools they work with, the inbox where ambiguous
//! updates wait for the user, and the **offline engine** that does both
//! jobs deterministically when no LLM is configured.
//!
//! Start at [`Agents`]: [`Agents::update`] files a [`Payload`],
//! [`Agents::ask`] answers a question.

mod agents;
mod changelog;
mod citations;
pub mod conflict;
mod context;
mod error;
pub mod evidence;
mod filing;
mod inbox;
mod llm;
mod offline;
mod payload;
mod prompts;
mod recovery;
mod report;
mod router;
mod settings;
pub mod text;
pub mod tools;

pub use agents::{Agents, Engine};
pub use error::{Error, Result};
pub use inbox::{INBOX, InboxItem, code as inbox_code};
pub use llm::{CallRecord, Stop};
pub use offline::common::is_everyday_word;
pub use offline::{
    Evidence, Kind, Line, PROFILE_CONFIDENCE, PROFILE_SHARED_CONFIDENCE, Rules,
    SOLE_HOLDER_CONFIDENCE, Within, kind_of, passages_by_file, route,
};
pub use payload::{Attachment, MAX_TEXT_BYTES, Payload, image_type};
pub use prompts::{Prompt, PromptSource};
pub use recovery::{Resume, resume, undo_update, undone_updates, update_of};
pub use report::{Answer, OFFLINE, Outcome, Source, UpdateReport, conclusion};
pub use router::{Decision, Facts, Hit, Project, Router};
pub use settings::Settings;
pub use tools::{ReadTools, ToolSet, WriteTools};

/// The items waiting in a vault's inbox, oldest first (no index needed).
pub fn inbox_list(vault: &knower_vault::Vault) -> Result<Vec<InboxItem>> {
    inbox::list(vault)
}

/// One inbox item, by its id or its short code.
pub fn inbox_item(vault: &knower_vault::Vault, id: &str) -> Result<InboxItem> {
    inbox::load(vault, id)
}

/// The agents' prompts in effect for a vault.
pub fn prompts(vault: &knower_vault::Vault) -> Vec<Prompt> {
    prompts::all(vault)
}

/// The `path:line` citations of a text that the vault has (those it does
/// not have are left out): for answers written outside the search agent
/// (the chat).
pub fn citations(vault: &knower_vault::Vault, text: &str) -> Vec<Source> {
    citations::check_citations(vault, text).unwrap_or_else(|_| {
        // Some citation is wrong: keep the ones that hold, one by one.
        text.split_whitespace()
            .filter_map(|word| citations::check_citations(vault, word).ok())
            .flatten()
            .collect()
    })
}

/// A feature's prompt: `built_in`, unless the vault's `prompts/NAME.md`
/// overrides it.
pub fn prompt(vault: &knower_vault::Vault, name: &'static str, built_in: &str) -> Prompt {
    prompts::resolve(vault, name, built_in)
}
