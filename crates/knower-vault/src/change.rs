//! The write pipeline. Every change to the vault — an agent's write, a CLI
//! command, an undo, the background job reacting to an edit made elsewhere —
//! runs as one [`Tx`] while the vault lock is held:
//!
//! 1. catch up with what other processes did (manifest and journal tails);
//! 2. before its first write, the change notes who makes it in the
//!    write-ahead intent (see `intent.rs`); each file operation keeps the
//!    content it replaces in the blob store, writes atomically, and updates
//!    the manifest entry;
//! 3. on commit — also when the operation failed half-way, so the record
//!    matches the disk — one journal record lists every path's before and
//!    after version, the manifest records are appended, and tree.md is
//!    regenerated from the manifest, and the intent is cleared;
//! 4. once the lock is released, listeners hear which paths changed.

use std::collections::HashMap;
use std::io;

use crate::beneath::Staged;
use crate::blobs::Hash;
use crate::error::{Error, Result};
use crate::frontmatter::{self, Stamp, Updated};
use crate::intent::Note;
use crate::journal::{ChangeRecord, FileChange, Version};
use crate::manifest::{Entry, EntryKind};
use crate::path::{self, Access, VaultPath};
use crate::time;
use crate::vault::{Author, Changed, State, TREE_MD, Vault};
use crate::walk::walk;

/// What is at a path when an operation looks at it.
pub(crate) enum Current {
    Absent,
    Folder,
    File(Vec<u8>),
}

pub(crate) struct Tx<'a> {
    pub(crate) vault: &'a Vault,
    pub(crate) state: &'a mut State,
    author: Author,
    undoes: Vec<u64>,
    /// False for recovery's repair of a change whose record is already in
    /// the journal: the manifest catches up, the journal says it already.
    journaled: bool,
    /// Recording what a change that died had written: its files are taken
    /// as they are (not stamped like an outside edit), so recovery itself
    /// writes nothing.
    pub(crate) recovering: bool,
    /// Recording files another copy of the vault sent (a sync): they keep
    /// the `updated` they arrived with, which their writer stamped; only
    /// what is missing or derived (`tokens`) is filled in.
    pub(crate) arrived: bool,
    /// The intent note is set: this change has written, or is writing.
    intent_set: bool,
    /// One timestamp for the whole change.
    now: String,
    /// The version of each path as this change has seen or left it.
    known: HashMap<VaultPath, Version>,
    files: Vec<FileChange>,
    file_index: HashMap<VaultPath, usize>,
    /// Paths whose manifest entry changed.
    touched: Vec<VaultPath>,
    /// tree.md must be checked even if no entry changed (it was edited, or
    /// this is a rescan).
    pub(crate) check_tree: bool,
    /// Durability in bulk (adopting a folder, a whole rescan): files are
    /// staged beside their place unsynced; before any goes into place one
    /// sync of the file system makes every staged file and kept copy
    /// durable, and a second one the renames. A crash before the first
    /// leaves the old files and some debris; after it, each file is old or
    /// new, as with a sync per file — at two syncs instead of ~6 per file.
    pub(crate) batched: bool,
    /// A sync of paths the watcher reported: what lies behind a symbolic
    /// link that has taken a folder's place is kept as it was (the folder
    /// may be back a moment later) rather than journaled as gone; a whole
    /// rescan settles it.
    pub(crate) keep_behind_links: bool,
    staged: HashMap<VaultPath, Staged>,
}

impl<'a> Tx<'a> {
    pub(crate) fn new(
        vault: &'a Vault,
        state: &'a mut State,
        author: &Author,
        undoes: Vec<u64>,
    ) -> Tx<'a> {
        Tx {
            vault,
            state,
            author: author.clone(),
            undoes,
            journaled: true,
            recovering: false,
            arrived: false,
            intent_set: false,
            now: time::frontmatter_now(),
            known: HashMap::new(),
            files: Vec::new(),
            file_index: HashMap::new(),
            touched: Vec::new(),
            check_tree: false,
            batched: false,
            keep_behind_links: false,
            staged: HashMap::new(),
        }
    }

    /// Keeps a copy of `bytes` in the blob store: durable at once, or at
    /// the batch's sync.
    pub(crate) fn keep(&self, hash: &Hash, bytes: &[u8]) -> io::Result<()> {
        self.vault.blobs.put(hash, bytes, !self.batched)
    }

    /// Puts the staged files in place (see [`Tx::batched`]).
    fn flush(&mut self) -> Result<()> {
        if self.staged.is_empty() {
            return Ok(());
        }
        let beneath = &self.vault.beneath;
        beneath
            .sync_all()
            .map_err(Error::io("making the new versions durable"))?;
        for (path, staged) in std::mem::take(&mut self.staged) {
            staged
                .put_in_place()
                .map_err(Error::io(format!("writing {path}")))?;
        }
        beneath
            .sync_all()
            .map_err(Error::io("making the renames durable"))
    }

    pub(crate) fn now(&self) -> &str {
        &self.now
    }

    /// A change that keeps no journal record (an append to a log).
    pub(crate) fn unjournaled(mut self) -> Self {
        self.journaled = false;
        self
    }

    /// The change that records what a change that died half-way had
    /// written; `journaled` is false when its record made it into the
    /// journal, and only the manifest has to catch up.
    pub(crate) fn recovery(mut self, journaled: bool) -> Self {
        self.recovering = true;
        self.journaled = journaled;
        self
    }

    /// Called before every write to the vault: the first one notes the
    /// change in the write-ahead intent, so that a crash from here on leaves
    /// a trace of who was writing.
    pub(crate) fn before_writing(&mut self) -> Result<()> {
        if self.intent_set || !self.journaled {
            return Ok(());
        }
        let note = Note {
            actor: self.author.actor.clone(),
            reason: self.author.reason.clone(),
            undoes: self.undoes.clone(),
            record: self.state.journal.next_id(),
        };
        self.vault
            .intent
            .set(&note)
            .map_err(Error::io("noting the change in progress"))?;
        self.intent_set = true;
        Ok(())
    }

    /// Refuses, with a clear error, a path that goes through a link now;
    /// the operation itself then goes by descriptor ([`Beneath`]), which
    /// refuses a link swapped in after this check.
    fn check(&self, path: &VaultPath) -> Result<()> {
        path::resolve(self.vault.root(), path, Access::Write).map(drop)
    }

    /// Reads what is at `path` now. A file's content is put in the blob store
    /// before anything can replace it, so the journal can always restore it —
    /// even an edit made in another editor that Knower has not processed yet.
    pub(crate) fn read(&mut self, path: &VaultPath) -> Result<Current> {
        if self.staged.contains_key(path) {
            self.flush()?;
        }
        self.check(path)?;
        let meta = match self.vault.beneath.metadata(path) {
            Ok(Some(m)) => m,
            Ok(None) => {
                self.known.insert(path.clone(), Version::Absent);
                return Ok(Current::Absent);
            }
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
                return Err(Error::NotAFolder {
                    path: path.to_string(),
                });
            }
            Err(e) => return Err(Error::io(format!("reading {path}"))(e)),
        };
        if meta.is_dir() {
            self.known.insert(path.clone(), Version::Folder);
            return Ok(Current::Folder);
        }
        if !meta.is_file() {
            return Err(Error::Refused(format!("{path} is not a regular file")));
        }
        let bytes = self
            .vault
            .beneath
            .read(path)
            .map_err(Error::io(format!("reading {path}")))?;
        let hash = Hash::of(&bytes);
        self.keep(&hash, &bytes)
            .map_err(Error::io(format!("keeping the current version of {path}")))?;
        self.known.insert(path.clone(), Version::File(hash));
        Ok(Current::File(bytes))
    }

    pub(crate) fn version(&mut self, path: &VaultPath) -> Result<Version> {
        if let Some(v) = self.known.get(path) {
            return Ok(v.clone());
        }
        self.read(path)?;
        Ok(self.known[path].clone())
    }

    /// Creates or replaces the file at `path` with `bytes`, creating its
    /// parent folders.
    pub(crate) fn put(&mut self, path: &VaultPath, bytes: Vec<u8>) -> Result<()> {
        let before = self.version(path)?;
        if before == Version::Folder {
            return Err(Error::IsAFolder {
                path: path.to_string(),
            });
        }
        if let Some(parent) = path.parent() {
            self.make_folder(&parent)?;
        }
        self.store(path, before, bytes)
    }

    /// Writes a file whose previous version is already known.
    pub(crate) fn store(
        &mut self,
        path: &VaultPath,
        before: Version,
        bytes: Vec<u8>,
    ) -> Result<()> {
        self.check(path)?;
        let hash = Hash::of(&bytes);
        self.keep(&hash, &bytes)
            .map_err(Error::io(format!("keeping the new version of {path}")))?;
        self.before_writing()?;
        let written = if self.batched {
            self.vault
                .beneath
                .stage(path, &bytes, false)
                .map(|(staged, meta)| {
                    self.staged.insert(path.clone(), staged);
                    meta
                })
        } else {
            self.vault.beneath.write_atomic(path, &bytes)
        };
        let meta = written.map_err(Error::io(format!("writing {path}")))?;
        let entry = Entry::file(path, &bytes, hash, &meta);
        self.record(path, before, Version::File(hash), Some(entry));
        Ok(())
    }

    /// Adds one line at the end of an append-only log, in place (not a
    /// rewrite): written with one `write` and synced. The manifest learns
    /// the new size and hash, so the background job does not take the
    /// append for an outside edit; no earlier version is kept, because a
    /// log is never rewritten and there is nothing to restore.
    pub(crate) fn append_record(&mut self, path: &VaultPath, line: &[u8]) -> Result<()> {
        if let Some(parent) = path.parent() {
            self.make_folder(&parent)?;
        }
        self.check(path)?;
        match self.vault.beneath.metadata(path) {
            Ok(Some(meta)) if meta.is_dir() => {
                return Err(Error::IsAFolder {
                    path: path.to_string(),
                });
            }
            Ok(Some(meta)) if !meta.is_file() => {
                return Err(Error::Refused(format!("{path} is not a regular file")));
            }
            Ok(_) => {}
            Err(e) => return Err(Error::io(format!("reading {path}"))(e)),
        }
        let (bytes, meta) = self
            .vault
            .beneath
            .append(path, line)
            .map_err(Error::io(format!("appending to {path}")))?;
        let entry = Entry::file(path, &bytes, Hash::of(&bytes), &meta);
        self.note(path, Some(entry));
        Ok(())
    }

    /// Creates `path` and any missing ancestors as folders.
    pub(crate) fn make_folder(&mut self, path: &VaultPath) -> Result<()> {
        if path.is_root() {
            return Ok(());
        }
        match self.version(path)? {
            Version::Folder => {
                // Made outside Knower and not processed yet: the manifest
                // learns of it (the journal does not claim this change made it).
                if self.state.manifest.get(path).is_none() {
                    self.note(path, Some(Entry::folder()));
                }
                Ok(())
            }
            Version::File(_) => Err(Error::NotAFolder {
                path: path.to_string(),
            }),
            Version::Absent => {
                if let Some(parent) = path.parent() {
                    self.make_folder(&parent)?;
                }
                self.check(path)?;
                self.before_writing()?;
                self.vault
                    .beneath
                    .create_folder(path)
                    .map_err(Error::io(format!("creating folder {path}")))?;
                self.record(
                    path,
                    Version::Absent,
                    Version::Folder,
                    Some(Entry::folder()),
                );
                Ok(())
            }
        }
    }

    /// Removes a file, or a folder with everything in it. Every file is kept
    /// in the blob store and journaled first, so the removal can be undone.
    pub(crate) fn remove(&mut self, path: &VaultPath) -> Result<()> {
        match self.version(path)? {
            Version::Absent => Err(Error::NotFound {
                path: path.to_string(),
            }),
            Version::File(hash) => {
                self.check(path)?;
                self.before_writing()?;
                self.vault
                    .beneath
                    .remove_file(path)
                    .map_err(Error::io(format!("removing {path}")))?;
                self.record(path, Version::File(hash), Version::Absent, None);
                Ok(())
            }
            Version::Folder => {
                let contents = self.folder_contents(path, true)?;
                self.check(path)?;
                self.before_writing()?;
                self.vault
                    .beneath
                    .remove_folder(path)
                    .map_err(Error::io(format!("removing {path}")))?;
                // Deepest first, so an undo recreates folders before their files.
                for (p, version) in contents.into_iter().rev() {
                    self.record(&p, version, Version::Absent, None);
                }
                self.record(path, Version::Folder, Version::Absent, None);
                Ok(())
            }
        }
    }

    /// Moves a file or folder; the content is unchanged.
    pub(crate) fn rename(&mut self, from: &VaultPath, to: &VaultPath) -> Result<()> {
        let moved: Vec<(VaultPath, Version)> = match self.version(from)? {
            Version::Absent => {
                return Err(Error::NotFound {
                    path: from.to_string(),
                });
            }
            Version::Folder => {
                let mut all = vec![(from.clone(), Version::Folder)];
                all.extend(self.folder_contents(from, false)?);
                all
            }
            file => vec![(from.clone(), file)],
        };
        if self.version(to)? != Version::Absent {
            return Err(Error::AlreadyExists {
                path: to.to_string(),
            });
        }
        if let Some(parent) = to.parent() {
            self.make_folder(&parent)?;
        }
        self.check(from)?;
        self.check(to)?;
        self.before_writing()?;
        self.vault
            .beneath
            .rename(from, to)
            .map_err(Error::io(format!("moving {from} to {to}")))?;
        for (old, version) in moved {
            let new = old
                .rebase(from, to)
                .expect("moved paths lie under the source");
            let entry = match &version {
                Version::Folder => Entry::folder(),
                _ => {
                    let meta = self
                        .vault
                        .beneath
                        .existing(&new)
                        .map_err(Error::io(format!("reading back {new}")))?;
                    match self.state.manifest.get(&old) {
                        Some(e) if e.hash.map(Version::File).as_ref() == Some(&version) => Entry {
                            mtime_ns: crate::manifest::mtime_ns(&meta),
                            size: meta.len(),
                            ..e.clone()
                        },
                        _ => {
                            let bytes = self
                                .vault
                                .beneath
                                .read(&new)
                                .map_err(Error::io(format!("reading {new}")))?;
                            let hash = Hash::of(&bytes);
                            Entry::file(&new, &bytes, hash, &meta)
                        }
                    }
                }
            };
            self.record(&old, version.clone(), Version::Absent, None);
            self.record(&new, Version::Absent, version, Some(entry));
        }
        Ok(())
    }

    /// Every file and folder below `path` on disk, parents before children,
    /// with their versions (files read, and so kept in the blob store). For
    /// a removal, refused when the folder holds anything Knower could not
    /// restore (a hidden `.git`, a link…): deleting it would lose it for good.
    fn folder_contents(
        &mut self,
        path: &VaultPath,
        removing: bool,
    ) -> Result<Vec<(VaultPath, Version)>> {
        self.check(path)?;
        let found = walk(self.vault.root(), path);
        if let Some(error) = found.errors.first() {
            return Err(Error::Refused(format!(
                "cannot list everything in {path}: {error}"
            )));
        }
        if removing && let Some(first) = found.foreign.first() {
            let shown = first.strip_prefix(self.vault.root()).unwrap_or(first);
            return Err(Error::Refused(format!(
                "{path} holds {} item(s) Knower cannot keep a copy of, such as {} \
                 (hidden files, links, names that are not UTF-8); move or delete them yourself first",
                found.foreign.len(),
                shown.display()
            )));
        }
        let mut contents = Vec::with_capacity(found.entries.len());
        for (p, _, _) in found.entries {
            let version = self.version(&p)?;
            contents.push((p, version));
        }
        Ok(contents)
    }

    /// Notes a path's new state: in the change's file list (merging repeated
    /// changes to one path) and in the manifest.
    pub(crate) fn record(
        &mut self,
        path: &VaultPath,
        before: Version,
        after: Version,
        entry: Option<Entry>,
    ) {
        self.known.insert(path.clone(), after.clone());
        match self.file_index.get(path) {
            Some(&i) => self.files[i].after = after,
            None => {
                self.file_index.insert(path.clone(), self.files.len());
                self.files.push(FileChange {
                    path: path.clone(),
                    before,
                    after,
                });
            }
        }
        self.note(path, entry);
    }

    /// Updates the manifest only: the content is as known, its metadata moved.
    pub(crate) fn note(&mut self, path: &VaultPath, entry: Option<Entry>) {
        self.state.manifest.set(path.clone(), entry);
        self.touched.push(path.clone());
    }

    /// The bytes to store at `path` for new `text`, given the current bytes;
    /// `None` when storing them would change nothing. Markdown gets its
    /// managed frontmatter fields; a rewrite that leaves the frontmatter out
    /// keeps the previous one, so an agent writing only a body does not erase
    /// the user's tags.
    pub(crate) fn prepare(
        &self,
        path: &VaultPath,
        text: &str,
        previous: Option<&[u8]>,
    ) -> Result<Option<Vec<u8>>> {
        if !path.is_markdown() {
            return Ok((previous != Some(text.as_bytes())).then(|| text.as_bytes().to_vec()));
        }
        let malformed = |detail: String| Error::MalformedFrontmatter {
            path: path.to_string(),
            detail,
        };
        let previous = previous.and_then(|b| std::str::from_utf8(b).ok());
        let old_block = previous
            .and_then(|t| frontmatter::split(t).ok())
            .and_then(|s| s.frontmatter)
            .and_then(|b| frontmatter::parse_yaml(b.yaml).ok().map(|map| (b, map)));
        let new_split = frontmatter::split(text).map_err(malformed)?;
        let text = match (&new_split.frontmatter, &old_block) {
            (None, Some((b, _))) => format!("{}{}{}{}", b.open, b.yaml, b.close, text),
            _ => text.to_string(),
        };
        let scalar = |key| {
            old_block
                .as_ref()
                .and_then(|(_, map)| frontmatter::scalar(map, key))
        };
        let created = scalar(frontmatter::CREATED).unwrap_or_else(|| self.now.clone());
        if let (Some(previous), Some(updated)) = (previous, scalar(frontmatter::UPDATED)) {
            let same = Stamp {
                created: &created,
                updated: Updated::Set(&updated),
            };
            if frontmatter::stamp(&text, same).as_deref() == Ok(previous) {
                return Ok(None);
            }
        }
        let stamp = Stamp {
            created: &created,
            updated: Updated::Set(&self.now),
        };
        frontmatter::stamp(&text, stamp)
            .map(|s| Some(s.into_bytes()))
            .map_err(malformed)
    }

    /// Writes the journal record, the manifest records and tree.md, and
    /// returns the record (if anything changed) with the events to announce.
    pub(crate) fn commit(mut self) -> Result<(Option<ChangeRecord>, Vec<Changed>)> {
        // What the record will say was written must be on disk first.
        self.flush()?;
        let files: Vec<FileChange> = std::mem::take(&mut self.files)
            .into_iter()
            .filter(|f| f.before != f.after)
            .collect();
        let record = if files.is_empty() || !self.journaled {
            None
        } else {
            let record = ChangeRecord {
                id: self.state.journal.next_id(),
                at: time::journal_now(),
                actor: self.author.actor.clone(),
                reason: self.author.reason.clone(),
                files,
                undoes: self.undoes.clone(),
            };
            self.state
                .journal
                .append(&record)
                .map_err(Error::io("writing the journal"))?;
            Some(record)
        };
        self.touched.sort();
        self.touched.dedup();
        self.state
            .manifest
            .persist(&self.touched)
            .map_err(Error::io("writing the manifest"))?;
        let mut events: Vec<Changed> = self
            .touched
            .iter()
            .map(|p| Changed {
                path: p.clone(),
                removed: self.state.manifest.get(p).is_none(),
            })
            .collect();
        if (!self.touched.is_empty() || self.check_tree) && self.write_tree_md()? {
            events.push(Changed {
                path: VaultPath::parse(TREE_MD).expect("valid"),
                removed: false,
            });
        }
        if self.intent_set {
            self.vault
                .intent
                .clear()
                .map_err(Error::io("clearing the note of the change in progress"))?;
        }
        Ok((record, events))
    }

    /// Regenerates tree.md from the manifest; returns whether it was written.
    /// The file is rewritten only when its listing changed, so a change that
    /// does not alter what tree.md shows causes no write and no event.
    fn write_tree_md(&mut self) -> Result<bool> {
        let body = self.state.manifest.listing().tree_md();
        if self.state.tree_body.as_deref() == Some(body.as_str()) {
            return Ok(false);
        }
        let tree_md = VaultPath::parse(TREE_MD).expect("a valid path");
        let existing = self
            .vault
            .beneath
            .read(&tree_md)
            .ok()
            .and_then(|b| String::from_utf8(b).ok());
        let existing_split = existing.as_deref().and_then(|t| frontmatter::split(t).ok());
        if existing_split.is_some_and(|s| s.body == body && s.frontmatter.is_some()) {
            self.state.tree_body = Some(body);
            return Ok(false);
        }
        let created = existing_split
            .and_then(|s| s.frontmatter)
            .and_then(|b| frontmatter::parse_yaml(b.yaml).ok())
            .and_then(|map| frontmatter::scalar(&map, frontmatter::CREATED))
            .unwrap_or_else(|| self.now.clone());
        let stamp = Stamp {
            created: &created,
            updated: Updated::Set(&self.now),
        };
        let text = frontmatter::stamp(&body, stamp).expect("tree.md's body has no frontmatter");
        self.vault
            .beneath
            .write_atomic(&tree_md, text.as_bytes())
            .map_err(Error::io("writing tree.md"))?;
        self.state.tree_body = Some(body);
        Ok(true)
    }
}

impl From<&Entry> for Version {
    fn from(entry: &Entry) -> Version {
        match (entry.kind, entry.hash) {
            (EntryKind::Folder, _) => Version::Folder,
            (EntryKind::File, Some(h)) => Version::File(h),
            (EntryKind::File, None) => Version::Absent,
        }
    }
}
