//! The vault lock: one writer at a time, across threads and processes.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// An exclusive advisory lock on `.knower/lock`. Every change to the vault
/// (and to the journal and manifest that describe it) happens while it is
/// held, so two `knower` processes serialise their read-modify-write cycles
/// instead of losing each other's edits. Readers do not take it: atomic
/// renames already guarantee they see whole files.
pub(crate) struct VaultLock {
    file: File,
}

impl VaultLock {
    pub(crate) fn open(path: &Path) -> io::Result<Self> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        Ok(VaultLock { file })
    }

    /// Blocks until this process holds the lock. The in-process mutex around
    /// the vault state ensures only one thread asks at a time.
    pub(crate) fn acquire(&self) -> io::Result<LockGuard<'_>> {
        self.file.lock()?;
        Ok(LockGuard { file: &self.file })
    }
}

pub(crate) struct LockGuard<'a> {
    file: &'a File,
}

impl Drop for LockGuard<'_> {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}
