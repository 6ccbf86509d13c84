//! Knower's gardener (seeds 000/001): the user's topics kept fresh from
//! the web, as candidate facts with confidence and sources, for the user to
//! approve.
//!
//! The garden is plain markdown in the vault ([`model`], [`store`]):
//! topics with their facts by status, sources with their readable text,
//! and seed 001's inbox and outbox files ([`review`], [`outbox`]). A
//! [`Garden::run`] is one cycle of eight steps ([`cycle`]), within bounds
//! that hold whatever happens and resumable after a kill. The web is
//! reached with manners ([`web`]): search providers ([`search`]), feeds
//! and readable pages ([`readable`]); what it returns is data that only
//! ever becomes candidates ([`extract`]).

pub mod claims;
pub mod cycle;
pub mod extract;
mod garden;
pub mod injection;
pub mod model;
pub mod outbox;
pub mod reach;
pub mod readable;
pub mod review;
pub mod search;
pub mod settings;
pub mod snapshot;
mod stats;
pub mod store;
pub mod units;
pub mod web;

pub use cycle::{Cycle, Plan, Progress, RunOptions, State, Step};
pub use garden::{Assessment, BUILT_IN_PROMPT, Garden, Listing, NewTopic, PROMPT};
pub use model::{Credibility, Fact, Source, Status, Topic};
pub use review::{InboxReport, Item, Review};
pub use settings::{Provider, Settings};
pub use stats::Stats;

#[derive(Debug, thiserror::Error)]
pub enum GardenError {
    #[error("{0}")]
    Invalid(String),
    #[error("a garden cycle is already running on this vault")]
    Busy,
    #[error("{0}")]
    Io(String),
    #[error(transparent)]
    Vault(#[from] knower_vault::Error),
}

/// The gardener's prompt in effect for a vault (for `knower prompts`).
pub fn prompts(vault: &knower_vault::Vault) -> Vec<knower_agents::Prompt> {
    vec![knower_agents::prompt(vault, PROMPT, BUILT_IN_PROMPT)]
}
