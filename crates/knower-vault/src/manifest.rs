//! What Knower knows of every file and folder: size, modification time,
//! content hash, token count, `updated` stamp and any problem found.
//!
//! It is what lets tree.md be regenerated without reading 10,000 files, lets
//! the start-up rescan compare `stat` results instead of contents, and gives
//! the journal the previous hash of a file edited in another editor.
//!
//! It lives in `.knower/manifest.jsonl`, an append-only log of
//! `{path, entry|null}` records replayed at load and compacted when it has
//! grown well past the number of entries. Append-only also makes it the change
//! feed between processes: under the lock, a process reads the records others
//! appended since it last looked and learns exactly which paths they changed.
//! It is derived data: if it is lost, the next rescan rebuilds it from the files.

use std::collections::BTreeMap;
use std::fs::{self, Metadata, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::blobs::Hash;
use crate::frontmatter;
use crate::fsutil;
use crate::path::VaultPath;
use crate::time;
use crate::tree::Listing;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    File,
    Folder,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub kind: EntryKind,
    #[serde(default)]
    pub size: u64,
    #[serde(default)]
    pub mtime_ns: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<Hash>,
    /// `ceil(characters / 4)` of the body; `None` for files that are not text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// The frontmatter's `updated`, or the modification time for other files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// Why the background job left this file alone (malformed frontmatter,
    /// not UTF-8…); reported by `knower status` and in tree.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl Entry {
    pub(crate) fn folder() -> Entry {
        Entry {
            kind: EntryKind::Folder,
            size: 0,
            mtime_ns: 0,
            hash: None,
            tokens: None,
            updated: None,
            problem: None,
        }
    }

    /// Describes a file from its bytes and the metadata read after writing it.
    pub(crate) fn file(path: &VaultPath, bytes: &[u8], hash: Hash, meta: &Metadata) -> Entry {
        let mut entry = Entry {
            kind: EntryKind::File,
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
            hash: Some(hash),
            tokens: None,
            updated: None,
            problem: None,
        };
        match std::str::from_utf8(bytes) {
            Ok(text) if path.is_markdown() => match frontmatter::split(text) {
                Ok(split) => {
                    entry.tokens = Some(frontmatter::count_tokens(split.body));
                    match split.frontmatter.map(|b| frontmatter::parse_yaml(b.yaml)) {
                        Some(Ok(map)) => {
                            entry.updated = frontmatter::scalar(&map, frontmatter::UPDATED)
                        }
                        Some(Err(detail)) => {
                            entry.problem = Some(format!("malformed frontmatter: {detail}"))
                        }
                        None => {}
                    }
                }
                Err(detail) => {
                    entry.tokens = Some(frontmatter::count_tokens(text));
                    entry.problem = Some(format!("malformed frontmatter: {detail}"));
                }
            },
            Ok(text) => entry.tokens = Some(frontmatter::count_tokens(text)),
            Err(e) if path.is_markdown() => {
                entry.problem = Some(format!("not valid UTF-8 (byte {})", e.valid_up_to()));
            }
            Err(_) => {}
        }
        if entry.updated.is_none() {
            entry.updated = meta.modified().ok().map(time::frontmatter_at);
        }
        entry
    }

    /// True when `meta` shows the file as Knower last saw it, so a rescan can
    /// skip reading it.
    pub(crate) fn same_stat(&self, meta: &Metadata) -> bool {
        self.kind == EntryKind::File && self.size == meta.len() && self.mtime_ns == mtime_ns(meta)
    }
}

pub(crate) fn mtime_ns(meta: &Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64)
}

#[derive(Serialize, Deserialize)]
struct Record {
    path: VaultPath,
    entry: Option<Entry>,
}

pub(crate) struct Manifest {
    entries: BTreeMap<VaultPath, Entry>,
    /// tree.md's lines, built on first use and then kept in step with
    /// `entries` by [`Manifest::apply`].
    listing: Option<Listing>,
    log: PathBuf,
    /// Which log file (inode) and how much of it is reflected in `entries`.
    inode: u64,
    offset: u64,
    records: usize,
}

impl Manifest {
    /// Reads the log. A missing log is an empty manifest; unreadable records
    /// are skipped (the rescan repairs whatever they described).
    pub(crate) fn load(log: PathBuf) -> io::Result<Manifest> {
        let mut manifest = Manifest {
            entries: BTreeMap::new(),
            listing: None,
            log,
            inode: 0,
            offset: 0,
            records: 0,
        };
        manifest.reload()?;
        Ok(manifest)
    }

    fn reload(&mut self) -> io::Result<()> {
        self.entries.clear();
        self.listing = None;
        self.records = 0;
        self.offset = 0;
        self.inode = fs::metadata(&self.log).map_or(0, |m| m.ino());
        let bytes = fsutil::read_complete_lines(&self.log)?;
        self.replay(&bytes);
        self.offset = bytes.len() as u64;
        Ok(())
    }

    /// Applies the records in `bytes`; returns the paths whose entry changed.
    fn replay(&mut self, bytes: &[u8]) -> Vec<VaultPath> {
        let mut changed = Vec::new();
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let Ok(record) = serde_json::from_slice::<Record>(line) else {
                continue;
            };
            self.records += 1;
            if self.apply(record.path.clone(), record.entry) {
                changed.push(record.path);
            }
        }
        changed
    }

    /// The one way entries change, so the listing can follow. Returns
    /// whether the entry is different from before.
    fn apply(&mut self, path: VaultPath, entry: Option<Entry>) -> bool {
        let old = match entry {
            Some(e) => self.entries.insert(path.clone(), e),
            None => self.entries.remove(&path),
        };
        if let Some(listing) = &mut self.listing {
            listing.update(&self.entries, &path, old.as_ref());
        }
        self.entries.get(&path) != old.as_ref()
    }

    /// Catches up with what other processes appended (or a compaction they
    /// made) and returns the paths whose entry changed. Must be called with
    /// the vault lock held: a record without its newline can then only be the
    /// remains of a crashed writer, and is cut off.
    pub(crate) fn refresh(&mut self) -> io::Result<Vec<VaultPath>> {
        let meta = match fs::metadata(&self.log) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let gone: Vec<VaultPath> = self.entries.keys().cloned().collect();
                self.entries.clear();
                self.listing = None;
                (self.inode, self.offset, self.records) = (0, 0, 0);
                return Ok(gone);
            }
            Err(e) => return Err(e),
        };
        if meta.ino() != self.inode || meta.len() < self.offset {
            let before = std::mem::take(&mut self.entries);
            self.reload()?;
            self.cut_torn_tail()?;
            return Ok(diff(&before, &self.entries));
        }
        if meta.len() == self.offset {
            return Ok(Vec::new());
        }
        let mut file = fs::File::open(&self.log)?;
        file.seek(SeekFrom::Start(self.offset))?;
        let mut tail = Vec::new();
        file.read_to_end(&mut tail)?;
        let complete = tail.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        tail.truncate(complete);
        let mut changed = self.replay(&tail);
        self.offset += tail.len() as u64;
        self.cut_torn_tail()?;
        changed.sort();
        changed.dedup();
        Ok(changed)
    }

    fn cut_torn_tail(&mut self) -> io::Result<()> {
        let len = fs::metadata(&self.log).map_or(0, |m| m.len());
        if len > self.offset {
            OpenOptions::new()
                .write(true)
                .open(&self.log)?
                .set_len(self.offset)?;
        }
        Ok(())
    }

    pub(crate) fn get(&self, path: &VaultPath) -> Option<&Entry> {
        self.entries.get(path)
    }

    pub(crate) fn entries(&self) -> &BTreeMap<VaultPath, Entry> {
        &self.entries
    }

    pub(crate) fn listing(&mut self) -> &Listing {
        self.listing
            .get_or_insert_with(|| Listing::build(&self.entries))
    }

    /// `path` and everything below it.
    pub(crate) fn subtree<'a>(
        &'a self,
        path: &'a VaultPath,
    ) -> impl Iterator<Item = (&'a VaultPath, &'a Entry)> {
        self.entries
            .range(path.clone()..)
            .take_while(move |(p, _)| p.starts_with(path))
    }

    /// Updates the in-memory view at once; [`Manifest::persist`] writes the
    /// records out when the change is committed.
    pub(crate) fn set(&mut self, path: VaultPath, entry: Option<Entry>) {
        self.apply(path, entry);
    }

    /// Appends the records of a committed change (the lock is held, so the
    /// log ends where this process last read it) and compacts the log when it
    /// has grown to several times the number of entries.
    pub(crate) fn persist(&mut self, paths: &[VaultPath]) -> io::Result<()> {
        if paths.is_empty() {
            return Ok(());
        }
        let mut buf = Vec::new();
        for path in paths {
            let record = Record {
                path: path.clone(),
                entry: self.entries.get(path).cloned(),
            };
            serde_json::to_writer(&mut buf, &record)?;
            buf.push(b'\n');
        }
        self.records += paths.len();
        if self.records > 1024 && self.records > 3 * self.entries.len() {
            return self.compact();
        }
        fsutil::append_durable(&self.log, &buf)?;
        self.offset += buf.len() as u64;
        if self.inode == 0 {
            self.inode = fs::metadata(&self.log)?.ino();
        }
        Ok(())
    }

    /// Rewrites the log as one record per entry. Other processes notice the
    /// new inode and reload.
    fn compact(&mut self) -> io::Result<()> {
        let mut buf = Vec::new();
        for (path, entry) in &self.entries {
            let record = Record {
                path: path.clone(),
                entry: Some(entry.clone()),
            };
            serde_json::to_writer(&mut buf, &record)?;
            buf.push(b'\n');
        }
        fsutil::write_atomic(&self.log, &buf)?;
        self.inode = fs::metadata(&self.log)?.ino();
        self.offset = buf.len() as u64;
        self.records = self.entries.len();
        Ok(())
    }
}

fn diff(old: &BTreeMap<VaultPath, Entry>, new: &BTreeMap<VaultPath, Entry>) -> Vec<VaultPath> {
    let mut changed: Vec<VaultPath> = old
        .iter()
        .filter(|(p, e)| new.get(*p) != Some(*e))
        .map(|(p, _)| p.clone())
        .chain(new.keys().filter(|p| !old.contains_key(*p)).cloned())
        .collect();
    changed.sort();
    changed
}
