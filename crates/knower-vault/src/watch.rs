//! The file watcher of long-running processes: turns file-system events into
//! [`Vault::sync_paths`] calls, so edits made in other editors get their
//! frontmatter, tree.md, journal entry and listeners' attention within
//! tens of milliseconds.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher as _};

use crate::error::{Error, Result};
use crate::path::VaultPath;
use crate::sync::SyncReport;
use crate::vault::Vault;

/// Events arriving closer together than this are handled as one batch:
/// editors save in several steps (write temp, rename, chmod).
const QUIET: Duration = Duration::from_millis(30);
/// A steady stream of events is still handled at least this often.
const MAX_BATCH: Duration = Duration::from_millis(300);

/// What the watcher reports after each batch.
#[derive(Debug)]
pub enum WatchEvent {
    Synced(SyncReport),
    Failed(Error),
}

/// A running watcher; dropping it stops it.
pub struct Watcher {
    watcher: Option<notify::RecommendedWatcher>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // Dropping the notify watcher closes the channel, which ends the thread.
        drop(self.watcher.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Vault {
    /// Watches the vault folder until the returned [`Watcher`] is dropped,
    /// calling `on_event` after each batch of changes is processed.
    pub fn watch(
        self: &Arc<Self>,
        mut on_event: impl FnMut(WatchEvent) + Send + 'static,
    ) -> Result<Watcher> {
        let (sender, events) = mpsc::channel::<notify::Result<notify::Event>>();
        let mut watcher = notify::recommended_watcher(sender).map_err(watch_error)?;
        watcher
            .watch(self.root(), RecursiveMode::Recursive)
            .map_err(watch_error)?;
        let vault = Arc::clone(self);
        let thread = std::thread::Builder::new()
            .name("knower-watch".into())
            .spawn(move || {
                while let Ok(first) = events.recv() {
                    let mut batch = vec![first];
                    let deadline = Instant::now() + MAX_BATCH;
                    loop {
                        match events.recv_timeout(QUIET) {
                            Ok(event) => batch.push(event),
                            Err(RecvTimeoutError::Timeout) => break,
                            Err(RecvTimeoutError::Disconnected) => break,
                        }
                        if Instant::now() >= deadline {
                            break;
                        }
                    }
                    if let Some(result) = handle(&vault, batch) {
                        on_event(match result {
                            Ok(report) => WatchEvent::Synced(report),
                            Err(e) => WatchEvent::Failed(e),
                        });
                    }
                }
            })
            .map_err(Error::io("starting the watcher thread"))?;
        Ok(Watcher {
            watcher: Some(watcher),
            thread: Some(thread),
        })
    }
}

fn handle(vault: &Vault, batch: Vec<notify::Result<notify::Event>>) -> Option<Result<SyncReport>> {
    let mut paths = BTreeSet::new();
    let mut rescan = false;
    for event in batch {
        match event {
            // The kernel dropped events (queue overflow): only a rescan is safe.
            Ok(event) if event.need_rescan() => rescan = true,
            Ok(event) if changes_nothing(&event.kind) => {}
            Ok(event) => paths.extend(
                event
                    .paths
                    .iter()
                    .filter_map(|p| VaultPath::from_disk(vault.root(), p)),
            ),
            Err(_) => rescan = true,
        }
    }
    if rescan {
        return Some(vault.rescan());
    }
    if paths.is_empty() {
        // Only hidden paths (.knower/, .git/…) moved.
        return None;
    }
    let paths: Vec<VaultPath> = paths.into_iter().collect();
    Some(vault.sync_paths(&paths))
}

/// An open, or a close without writing. notify asks inotify for opens, and
/// Knower's own reads — the index reading a note, a rescan listing a folder,
/// the comparison with tree.md — cause them: handling them would make every
/// sync wake the watcher again, an endless rescan of the vault.
fn changes_nothing(kind: &EventKind) -> bool {
    matches!(kind, EventKind::Access(access) if *access != AccessKind::Close(AccessMode::Write))
}

fn watch_error(e: notify::Error) -> Error {
    Error::Io {
        context: "watching the vault folder".into(),
        source: std::io::Error::other(e.to_string()),
    }
}
