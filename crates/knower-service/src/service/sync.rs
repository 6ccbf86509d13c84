//! The sync through the service: a sync now (announced on the events),
//! where the vault stands, and the schedule of `[sync] every_minutes` in a
//! serving process.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use knower_sync::{Report, Status, Sync};
use serde_json::json;

use super::{Service, blocking};
use crate::error::Result;
use crate::events::Events;

impl Service {
    /// Syncs the vault with its remote now; `progress` hears each step.
    /// Remote changes reach the index and the live events as changes by
    /// "sync from REMOTE"; the outcome is announced as a `sync` event.
    pub async fn sync(&self, progress: impl FnMut(&str) + Send + 'static) -> Result<Report> {
        let vault = self.vault.clone();
        let events = self.events.clone();
        blocking(move || run_sync(vault, &events, progress)).await
    }

    /// Where the vault stands against its remote (no network).
    pub fn sync_status(&self) -> Result<Status> {
        Ok(Sync::new(self.vault.clone())?.status())
    }
}

/// Where a vault stands against its remote, for a surface that has no
/// service (`knower status` reads the vault without starting the agents).
pub fn sync_status(vault: &Arc<knower_vault::Vault>) -> Status {
    match Sync::new(vault.clone()) {
        Ok(sync) => sync.status(),
        Err(e) => Status {
            problem: Some(e.to_string()),
            ..Status::default()
        },
    }
}

fn run_sync(
    vault: Arc<knower_vault::Vault>,
    events: &Events,
    mut progress: impl FnMut(&str),
) -> Result<Report> {
    let sync = Sync::new(vault)?;
    events.emit("sync", json!({"state": "running"}));
    let result = sync.run(&mut |step| {
        events.emit("sync", json!({"state": "running", "step": step}));
        progress(step);
    });
    let status = sync.status();
    match &result {
        Ok(report) => events.emit(
            "sync",
            json!({"state": "done", "report": report, "status": status}),
        ),
        Err(e) => events.emit(
            "sync",
            json!({"state": "failed", "error": e.to_string(), "status": status}),
        ),
    }
    Ok(result?)
}

/// How often the schedule reads `[sync]` again.
const SETTINGS_READ: Duration = Duration::from_secs(10);

/// The sync's schedule in a serving process: every `[sync] every_minutes`.
pub(super) fn schedule_sync(service: &Arc<Service>, stopping: Arc<AtomicBool>) {
    let vault = service.vault.clone();
    let events = service.events.clone();
    let _ = std::thread::Builder::new()
        .name("knower-sync".into())
        .spawn(move || {
            // `[sync] every_minutes`, read again every so often (so an
            // edit of knower.toml takes effect without a restart); the
            // tests' shorter round from KNOWER_SYNC_EVERY_MS.
            let round = || {
                let minutes = knower_sync::Settings::of(&vault)
                    .ok()
                    .and_then(|s| s.every_minutes)
                    .filter(|m| *m > 0)?;
                let test_ms = std::env::var("KNOWER_SYNC_EVERY_MS").ok();
                Some(
                    test_ms
                        .and_then(|ms| ms.parse().ok())
                        .map_or(Duration::from_secs(minutes * 60), Duration::from_millis),
                )
            };
            let (mut every, mut read_at) = (round(), Instant::now());
            let mut last = Instant::now();
            while !stopping.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(500));
                if read_at.elapsed() >= SETTINGS_READ {
                    (every, read_at) = (round(), Instant::now());
                }
                if every.is_none_or(|every| last.elapsed() < every) {
                    continue;
                }
                last = Instant::now();
                // A failure is announced and kept in the status; the next
                // round tries again.
                let _ = run_sync(vault.clone(), &events, |_| {});
            }
        });
}
