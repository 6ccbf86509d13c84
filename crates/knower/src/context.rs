//! What every command starts from: where the vault is, opening it, and
//! bringing it (and its search index) up to date with what changed while
//! Knower was not running.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use knower_index::Index;
use knower_service::Service;
use knower_vault::{Author, Error, SyncReport, Vault};

use crate::output::{Failure, failure, progress_bar, warn};

/// The actor the journal records for changes made from the command line.
pub const ACTOR: &str = "cli";

/// The global options: the vault given, and whether output is JSON.
pub struct Context {
    given: Option<PathBuf>,
    pub json: bool,
}

/// What a command needs of the search index.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum IndexUse {
    /// Reading files needs no index.
    None,
    /// A change goes ahead when the index cannot follow; the next command
    /// that can open it catches up.
    IfPossible,
    /// Searching and the agents cannot do without it.
    Required,
}

impl Context {
    pub fn new(given: Option<PathBuf>, json: bool) -> Context {
        Context { given, json }
    }

    /// `--vault`, else `$KNOWER_VAULT`, else `~/knower`. (The variable is
    /// read here, not by clap: an argument clap takes from the environment
    /// shows in every usage line as if it had to be typed.)
    pub fn location(&self) -> Result<PathBuf, Failure> {
        if let Some(path) = &self.given {
            return Ok(path.clone());
        }
        if let Some(path) = std::env::var_os("KNOWER_VAULT").filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(path));
        }
        match std::env::var_os("HOME") {
            Some(home) if !home.is_empty() => Ok(Path::new(&home).join("knower")),
            _ => Err(failure(
                "no vault given and $HOME is not set",
                Some("pass --vault PATH or set KNOWER_VAULT"),
            )),
        }
    }

    /// The vault as it is, without processing outside changes.
    pub fn vault(&self) -> Result<Arc<Vault>, Failure> {
        Ok(Arc::new(Vault::open(&self.location()?)?))
    }

    /// The vault, created first when there is none (for the commands that
    /// keep running: `watch`, `serve`, `start`, `mcp`).
    pub fn vault_or_new(&self, command: &str) -> Result<Arc<Vault>, Failure> {
        let path = self.location()?;
        match Vault::open(&path) {
            Ok(vault) => Ok(Arc::new(vault)),
            Err(Error::NotAVault { .. }) => {
                let (vault, _) = Vault::init(
                    &path,
                    &Author::new(ACTOR, format!("{command}: create the vault")),
                )?;
                if !self.json {
                    println!("created a new vault at {}", vault.root().display());
                }
                Ok(Arc::new(vault))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The vault brought up to date: its index opened (as `index` says,
    /// before the rescan, so it hears of what the rescan finds), whatever
    /// changed while Knower was not running processed, and the index
    /// caught up.
    pub fn prepare(
        &self,
        vault: Arc<Vault>,
        index_use: IndexUse,
    ) -> Result<(Arc<Vault>, Option<Arc<Index>>), Failure> {
        let index = match index_use {
            IndexUse::None => None,
            IndexUse::Required => Some(Index::open(vault.clone())?),
            IndexUse::IfPossible => match Index::open(vault.clone()) {
                Ok(index) => Some(index),
                Err(e) => {
                    warn("search index not updated", &e.into());
                    None
                }
            },
        };
        self.rescan(&vault)?;
        if let Some(open) = &index {
            match self.catch_up(open) {
                Err(e) if index_use != IndexUse::Required => warn("search index not updated", &e),
                caught => caught?,
            }
        }
        Ok((vault, index))
    }

    /// The vault prepared with its index, and the service over both.
    pub fn service(&self) -> Result<Service, Failure> {
        let (vault, index) = self.prepare(self.vault()?, IndexUse::Required)?;
        let index = index.expect("a required index is open");
        Ok(Service::local(vault, index)?)
    }

    /// Processes what changed while Knower was not running; a note on
    /// stderr says so.
    pub fn rescan(&self, vault: &Vault) -> Result<(), Failure> {
        let report = vault.rescan_with(&mut progress_bar(
            "processing files changed outside Knower",
            self.json,
        ))?;
        if !self.json {
            announce_rescan(&report);
        }
        Ok(())
    }

    /// Brings the index up to date with the files, with a progress bar when
    /// that takes a while (the first time, or after a rebuild).
    pub fn catch_up(&self, index: &Index) -> Result<(), Failure> {
        let report = index.catch_up(&mut progress_bar("indexing notes for search", self.json))?;
        if !self.json && report.rebuilt {
            eprintln!(
                "note: the search index was damaged or of another version; rebuilt it from the notes"
            );
        }
        Ok(())
    }
}

/// After a rescan, a note on stderr (stdout stays the command's output).
fn announce_rescan(report: &SyncReport) {
    if let Some(change) = &report.change {
        eprintln!(
            "note: {} paths changed outside Knower were processed (change {})",
            change.files.len(),
            change.id
        );
    }
    warn_problems(report);
}

pub fn warn_problems(report: &SyncReport) {
    for (path, problem) in &report.problems {
        eprintln!("warning: {path}: {problem}; left untouched");
    }
}

/// Problems the index met while following changes (it repairs itself at
/// the next catch-up, but the user should know).
pub fn warn_index_problems(index: &Index) {
    for problem in index.take_problems() {
        eprintln!("warning: search index: {problem}");
    }
}

/// Runs a future (a call on the service) to completion: the CLI's one
/// bridge to async code.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a single-threaded runtime can always be built")
        .block_on(future)
}
