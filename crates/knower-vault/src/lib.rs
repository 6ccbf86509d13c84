//! The vault: the only code that touches the files of a Knower vault.
//!
//! A vault is a folder of plain markdown notes plus Knower's own `.knower/`
//! folder. [`Vault`] offers the eight operations of seed 003's agent tools —
//! [`tree`](Vault::tree), [`read`](Vault::read), [`write`](Vault::write),
//! [`edit`](Vault::edit), [`append`](Vault::append),
//! [`delete`](Vault::delete), [`rename`](Vault::rename) (seed 003's `move`) —
//! plus [`undo`](Vault::undo) and [`log`](Vault::log), and runs every change
//! through one pipeline: confined path → atomic write → journal → frontmatter
//! and tree.md → listeners. Changes made by other programs are brought into
//! the same pipeline by [`Vault::rescan`] and [`Vault::watch`].

mod batch;
mod beneath;
mod blobs;
mod change;
mod error;
pub mod frontmatter;
mod fsutil;
mod intent;
mod journal;
mod lock;
mod manifest;
mod path;
mod revert;
mod starter;
mod sync;
mod text;
mod time;
mod tree;
mod vault;
mod walk;
mod watch;

pub use batch::Batch;
pub use blobs::Hash;
pub use error::{Error, Result};
/// For a feature's own state under `.knower/` (not a note: not journaled).
pub use fsutil::write_atomic;
pub use journal::{ChangeRecord, FileChange, Version, one_or_many};
pub use manifest::{Entry, EntryKind};
pub use path::{VaultPath, slug};
pub use starter::PROFILE_PLACEHOLDERS;
pub use sync::{Pending, SyncReport};
pub use text::Position;
/// The vault's two timestamp forms, for features that write dates the
/// same way (a merge's `updated`, a state file's time).
pub use time::{frontmatter_now, journal_now};
pub use tree::{TreeNode, folder_summary, human_size, render as render_tree};
pub use vault::{
    APPEND_ONLY, Author, Changed, INTERNAL_DIR, InitReport, Stats, TREE_MD, Untouched, Vault,
};
pub use watch::{WatchEvent, Watcher};
