//! Sync through git (issue 74): one vault on every machine, and shared by
//! a team, with any git host as the meeting point. Start at [`Sync::run`].
//!
//! What makes a vault in git sync without a conflict on every pull:
//! derived parts never conflict (tree.md is not committed and each machine
//! regenerates it; `created`, `updated` and `tokens` are recomputed, never
//! merged; indexes and journals stay in `.knower/`, per machine);
//! append-style files merge by union; a real conflict keeps both versions
//! and asks the user in the inbox.

mod error;
mod git;
pub mod merge;
mod settings;
mod sync;

pub use error::{Error, Result};
pub use settings::{Settings, host_name};
pub use sync::{Last, Report, Status, Sync, conflicts_waiting};
