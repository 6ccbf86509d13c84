//! The background job of seed 003 for changes Knower did not make: a person
//! editing in another editor, a `git pull`, a file copied in. Such changes are
//! found by the start-up rescan (comparing `stat` with the manifest) or by
//! the watcher (comparing content), then go through the same pipeline as any
//! write: the new version is kept, markdown gets its managed frontmatter, the
//! change is journaled as by `external`, tree.md follows.
//!
//! Knower's own writes never retrigger it: the manifest already holds their
//! hash, so the watcher's echo of them compares equal and nothing is written.

use std::collections::HashSet;
use std::fs::{self, Metadata};
use std::io;

use serde::Serialize;

use crate::blobs::Hash;
use crate::change::Tx;
use crate::error::{Error, Result};
use crate::frontmatter::{self, Stamp, Updated};
use crate::journal::{ChangeRecord, Version};
use crate::manifest::{Entry, EntryKind};
use crate::path::{self, Access, VaultPath};
use crate::time;
use crate::vault::{Author, Changed, State, TREE_MD, Vault};
use crate::walk::walk;

/// What one pass of the background job did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SyncReport {
    /// The journal record of the changes found, if there were any.
    pub change: Option<ChangeRecord>,
    /// Markdown files whose frontmatter was updated.
    pub stamped: Vec<VaultPath>,
    /// Files left untouched, and why.
    pub problems: Vec<(VaultPath, String)>,
}

/// A difference between the disk and what Knower last recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pending {
    pub path: VaultPath,
    /// `added`, `modified` or `removed`.
    pub what: &'static str,
}

impl Vault {
    /// Brings Knower up to date with everything that changed while no Knower
    /// process was watching. Reads only files whose size or modification
    /// time differ from the manifest.
    pub fn rescan(&self) -> Result<SyncReport> {
        self.rescan_with(&mut |_, _| {})
    }

    /// [`Vault::rescan`], calling `progress(done, total)` after each file it
    /// had to read (`total` counts only those).
    pub fn rescan_with(&self, progress: &mut dyn FnMut(usize, usize)) -> Result<SyncReport> {
        let reason = "changed while Knower was not running";
        self.sync(&[VaultPath::root()], reason, true, progress)
    }

    /// The rescan of `init`, journaled as adopting what was already there.
    pub(crate) fn adopt(&self, progress: &mut dyn FnMut(usize, usize)) -> Result<SyncReport> {
        let reason = "already in the folder when the vault was created";
        self.sync(&[VaultPath::root()], reason, true, progress)
    }

    /// Processes paths reported by the watcher: a file is compared by
    /// content, a folder is rescanned, a vanished path is forgotten.
    pub fn sync_paths(&self, paths: &[VaultPath]) -> Result<SyncReport> {
        self.sync(paths, "edited outside Knower", false, &mut |_, _| {})
    }

    fn sync(
        &self,
        bases: &[VaultPath],
        reason: &str,
        whole: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<SyncReport> {
        let author = Author::new("external", reason);
        let (mut report, record) = self.change(&author, Vec::new(), |tx| {
            if whole {
                tx.check_tree = true;
                tx.batched = true;
                tx.vault.blobs.remove_debris();
            } else {
                tx.keep_behind_links = true;
            }
            let mut report = SyncReport::default();
            for base in bases {
                tx.sync_path(base, &mut report, progress)?;
            }
            Ok(report)
        })?;
        report.change = record;
        Ok(report)
    }

    /// Lets another program change the user's files — `git merge` bringing
    /// another machine's changes — and records what it changed as one
    /// change by `author`. `outside` runs under the vault lock (no Knower
    /// writer, and no watcher's stamping, can interleave) and with the
    /// change noted in the write-ahead intent, so a crash part-way leaves
    /// what it wrote to be journaled under `author` by the next process.
    /// It returns its result and the paths it may have changed; each is
    /// compared with what Knower knew, and a removed file's emptied folders
    /// are forgotten with it. Arrived notes keep the `updated` they carry.
    pub fn arrive<T>(
        &self,
        author: &Author,
        outside: impl FnOnce() -> (T, Vec<VaultPath>),
    ) -> Result<(T, SyncReport)> {
        let (out, record) = self.change(author, Vec::new(), |tx| {
            tx.before_writing()?;
            let (value, paths) = outside();
            tx.arrived = true;
            // Many files at once: their copies made durable by one sync of
            // the file system, not one each.
            tx.batched = true;
            let mut report = SyncReport::default();
            let mut seen = HashSet::new();
            for path in &paths {
                let mut gone = vec![path.clone()];
                gone.extend(
                    path.ancestors()
                        .filter(|folder| !tx.vault.root().join(folder.as_str()).exists()),
                );
                for p in gone {
                    if seen.insert(p.clone()) {
                        tx.sync_path(&p, &mut report, &mut |_, _| {})?;
                    }
                }
            }
            Ok((value, report))
        })?;
        let (value, mut report) = out;
        report.change = record;
        Ok((value, report))
    }

    /// Called with the lock held: when the last writer died half-way through
    /// a change (its intent note is still there), brings what it had written
    /// into the journal under its own author — so that, for example, an
    /// interrupted update finds its partial changes and can undo them —
    /// or, if its record made it into the journal, brings the manifest up to
    /// date without a second record. Edits made by others while no Knower
    /// process was watching are credited to that change too: the disk alone
    /// cannot tell them apart.
    pub(crate) fn recover(&self, state: &mut State) -> Result<Vec<Changed>> {
        let Some(note) = self
            .intent
            .left_over()
            .map_err(Error::io("reading the note of the change in progress"))?
        else {
            return Ok(Vec::new());
        };
        let committed = state.journal.next_id() > note.record;
        let author = Author::new(
            note.actor,
            format!("{} (interrupted; recorded after the crash)", note.reason),
        );
        let mut tx = Tx::new(self, state, &author, note.undoes).recovery(!committed);
        tx.check_tree = true;
        let mut report = SyncReport::default();
        let walked = tx.sync_path(&VaultPath::root(), &mut report, &mut |_, _| {});
        let (_, events) = tx.commit()?;
        walked?;
        self.intent
            .clear()
            .map_err(Error::io("clearing the note of the change in progress"))?;
        Ok(events)
    }

    /// What the next rescan would process, without processing it.
    pub fn pending(&self) -> Result<Vec<Pending>> {
        self.with_lock(|state| {
            let mut pending = Vec::new();
            let mut seen = HashSet::new();
            let found = walk(self.root(), &VaultPath::root());
            for (p, file_type, meta) in found.entries {
                let known = state.manifest.get(&p);
                let what = match (known, file_type) {
                    (None, _) => Some("added"),
                    (Some(e), EntryKind::File) if !e.same_stat(&meta) => Some("modified"),
                    (Some(e), kind) if e.kind != kind => Some("modified"),
                    _ => None,
                };
                if let Some(what) = what {
                    pending.push(Pending {
                        path: p.clone(),
                        what,
                    });
                }
                seen.insert(p);
            }
            // An unlistable folder is not a removed one.
            let complete = found.errors.is_empty();
            for path in state.manifest.entries().keys() {
                if complete && !seen.contains(path) {
                    pending.push(Pending {
                        path: path.clone(),
                        what: "removed",
                    });
                }
            }
            pending.sort_by(|a, b| a.path.cmp(&b.path));
            Ok(pending)
        })
    }
}

/// Whether `path`, or a folder above it, is a symbolic link on disk.
fn behind_a_link(root: &std::path::Path, path: &VaultPath) -> bool {
    let mut at = path.on_disk(root);
    while at.starts_with(root) && at != root {
        if fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return true;
        }
        if !at.pop() {
            break;
        }
    }
    false
}

impl Tx<'_> {
    fn sync_path(
        &mut self,
        base: &VaultPath,
        report: &mut SyncReport,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<()> {
        if base.as_str() == TREE_MD {
            // Someone touched the generated file: compare it with the manifest.
            self.state.tree_body = None;
            self.check_tree = true;
            return Ok(());
        }
        // A path through a symbolic link is not part of the vault.
        let meta = path::resolve(self.vault.root(), base, Access::Write)
            .ok()
            .and_then(|_| self.vault.beneath.metadata(base).ok().flatten());
        match meta {
            Some(m) if m.is_file() => self.sync_file(base, &m, report),
            Some(m) if m.is_dir() => self.sync_folder(base, report, progress),
            _ if self.keep_behind_links && behind_a_link(self.vault.root(), base) => {
                report.problems.push((
                    base.clone(),
                    "is behind a symbolic link now; what Knower knew there is kept until it is a \
                     folder again or the next rescan"
                        .into(),
                ));
                Ok(())
            }
            _ => {
                self.forget(base, &HashSet::new());
                Ok(())
            }
        }
    }

    fn sync_folder(
        &mut self,
        base: &VaultPath,
        report: &mut SyncReport,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<()> {
        let mut seen = HashSet::new();
        if !base.is_root() {
            seen.insert(base.clone());
            self.know_folder(base);
        }
        let found = walk(self.vault.root(), base);
        // Left by a crash; with the lock held no write can be in flight.
        for temp in found.temps {
            let _ = fs::remove_file(temp);
        }
        // A link that took a folder's place keeps what the folder held, as
        // above.
        if self.keep_behind_links {
            for link in &found.foreign {
                let is_link = fs::symlink_metadata(link).is_ok_and(|m| m.file_type().is_symlink());
                if let (true, Some(path)) = (is_link, VaultPath::from_disk(self.vault.root(), link))
                {
                    seen.extend(self.state.manifest.subtree(&path).map(|(p, _)| p.clone()));
                }
            }
        }
        // Folders first (the walk lists a folder before its contents), then
        // the files whose size or time moved, which are the slow part.
        let mut to_read = Vec::new();
        for (p, kind, meta) in found.entries {
            match kind {
                EntryKind::Folder => self.know_folder(&p),
                EntryKind::File
                    if self
                        .state
                        .manifest
                        .get(&p)
                        .is_some_and(|e| e.same_stat(&meta)) => {}
                EntryKind::File => to_read.push((p.clone(), meta)),
            }
            seen.insert(p);
        }
        let total = to_read.len();
        for (done, (p, meta)) in to_read.into_iter().enumerate() {
            self.sync_file(&p, &meta, report)?;
            progress(done + 1, total);
        }
        // What could not be listed is not gone: forget nothing this time.
        match found.errors.first() {
            None => self.forget(base, &seen),
            Some(error) => report.problems.push((
                base.clone(),
                format!("could not be listed completely: {error}"),
            )),
        }
        Ok(())
    }

    fn know_folder(&mut self, path: &VaultPath) {
        match self.state.manifest.get(path).map(|e| e.kind) {
            Some(EntryKind::Folder) => {}
            Some(EntryKind::File) => {
                let before = Version::from(self.state.manifest.get(path).expect("checked"));
                self.record(path, before, Version::Folder, Some(Entry::folder()));
            }
            None => self.record(
                path,
                Version::Absent,
                Version::Folder,
                Some(Entry::folder()),
            ),
        }
    }

    /// Records as removed whatever the manifest holds at or below `base` that
    /// is not in `seen`.
    fn forget(&mut self, base: &VaultPath, seen: &HashSet<VaultPath>) {
        let gone: Vec<(VaultPath, Version)> = self
            .state
            .manifest
            .subtree(base)
            .filter(|(p, _)| !seen.contains(*p))
            .map(|(p, e)| (p.clone(), Version::from(e)))
            .collect();
        for (path, before) in gone.into_iter().rev() {
            self.record(&path, before, Version::Absent, None);
        }
    }

    /// Compares a file with what the manifest knows by content, and brings
    /// a version Knower did not write into the pipeline.
    fn sync_file(
        &mut self,
        path: &VaultPath,
        meta: &Metadata,
        report: &mut SyncReport,
    ) -> Result<()> {
        let known = self.state.manifest.get(path).cloned();
        let bytes = match self.vault.beneath.read(path) {
            Ok(b) => b,
            // Gone again already: the watcher will report the removal.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => {
                report
                    .problems
                    .push((path.clone(), format!("cannot be read: {e}")));
                return Ok(());
            }
        };
        let hash = Hash::of(&bytes);
        if let Some(known) = known.as_ref().filter(|e| e.hash == Some(hash)) {
            if !known.same_stat(meta) {
                let entry = Entry {
                    size: meta.len(),
                    mtime_ns: crate::manifest::mtime_ns(meta),
                    ..known.clone()
                };
                self.note(path, Some(entry));
            }
            return Ok(());
        }

        // A new file may sit in folders made at the same time, whose own
        // events have not been handled: record them first, outermost first.
        if known.is_none() {
            let ancestors: Vec<VaultPath> = path.ancestors().collect();
            for folder in ancestors.iter().rev() {
                if self.state.manifest.get(folder).is_none() {
                    self.know_folder(folder);
                }
            }
        }

        // A version Knower did not write: keep it before anything else.
        self.keep(&hash, &bytes)
            .map_err(Error::io(format!("keeping the new version of {path}")))?;
        let before = known.as_ref().map_or(Version::Absent, Version::from);
        if !self.recovering
            && let Some(stamped) = self.stamp_external(path, &bytes, meta, known.is_some())
            && self.unchanged_since(path, meta)
        {
            self.store(path, before, stamped)?;
            report.stamped.push(path.clone());
            return Ok(());
        }
        let meta = self
            .vault
            .beneath
            .existing(path)
            .map_err(Error::io(format!("reading {path}")))?;
        let entry = Entry::file(path, &bytes, hash, &meta);
        if let Some(problem) = &entry.problem {
            report.problems.push((path.clone(), problem.clone()));
        }
        self.record(path, before, Version::File(hash), Some(entry));
        Ok(())
    }

    /// True when the file still has the size and time it had when it was
    /// read: an editor that saved again meanwhile must not have its save
    /// overwritten (its own event will bring the new content).
    fn unchanged_since(&self, path: &VaultPath, meta: &Metadata) -> bool {
        self.vault
            .beneath
            .metadata(path)
            .ok()
            .flatten()
            .is_some_and(|now| {
                now.len() == meta.len()
                    && crate::manifest::mtime_ns(&now) == crate::manifest::mtime_ns(meta)
            })
    }

    /// The markdown text with its managed fields set, when that differs from
    /// what is on disk. An edit is stamped with the time it was saved; a file
    /// seen for the first time keeps the `updated` it already has. Text whose
    /// frontmatter cannot be stamped safely is left as it is (the manifest
    /// entry records the problem).
    fn stamp_external(
        &self,
        path: &VaultPath,
        bytes: &[u8],
        meta: &Metadata,
        known: bool,
    ) -> Option<Vec<u8>> {
        if !path.is_markdown() {
            return None;
        }
        let text = std::str::from_utf8(bytes).ok()?;
        let saved = meta
            .modified()
            .map(time::frontmatter_at)
            .unwrap_or_else(|_| self.now().to_string());
        let stamp = Stamp {
            created: &saved,
            updated: if known && !self.arrived {
                Updated::Set(&saved)
            } else {
                Updated::IfMissing(&saved)
            },
        };
        frontmatter::stamp(text, stamp)
            .ok()
            .filter(|out| out.as_bytes() != bytes)
            .map(String::into_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::FileChange;

    fn vault() -> (tempfile::TempDir, Vault) {
        let dir = tempfile::tempdir().unwrap();
        let (vault, _) = Vault::init(dir.path(), &Author::new("test", "init")).unwrap();
        (dir, vault)
    }

    fn letters(files: &[FileChange]) -> Vec<(char, &str)> {
        let mut out: Vec<_> = files
            .iter()
            .map(|f| (f.letter(), f.path.as_str()))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn arrivals_keep_their_updated_and_are_journaled_under_their_author() {
        let (dir, vault) = vault();
        let text = "---\ncreated: 2020-01-01T00:00:00\nupdated: 2021-02-03T04:05:06\ntokens: 1\n---\nhello\n";
        let author = Author::new("sync from origin", "merged");
        let ((), report) = vault
            .arrive(&author, || {
                fs::create_dir_all(dir.path().join("notes")).unwrap();
                fs::write(dir.path().join("notes/n.md"), text).unwrap();
                ((), vec![VaultPath::parse("notes/n.md").unwrap()])
            })
            .unwrap();
        let change = report.change.unwrap();
        assert_eq!(change.actor, "sync from origin");
        assert_eq!(
            letters(&change.files),
            [('A', "notes"), ('A', "notes/n.md")]
        );
        let now = fs::read_to_string(dir.path().join("notes/n.md")).unwrap();
        // Its own `updated` is kept; the derived count is corrected.
        assert!(
            now.contains("updated: 2021-02-03T04:05:06\ntokens: 2\n"),
            "{now}"
        );

        // A removal takes the folder it emptied with it.
        let ((), report) = vault
            .arrive(&author, || {
                fs::remove_dir_all(dir.path().join("notes")).unwrap();
                ((), vec![VaultPath::parse("notes/n.md").unwrap()])
            })
            .unwrap();
        let files = report.change.unwrap().files;
        assert_eq!(letters(&files), [('D', "notes"), ('D', "notes/n.md")]);
    }

    #[test]
    fn what_a_change_that_died_had_written_is_journaled_as_its_own_and_undoable() {
        let (dir, vault) = vault();
        let root = dir.path();
        let original = vault
            .write("notes/a.md", "first", &Author::new("test", "setup"))
            .unwrap();
        assert!(original.is_some());
        let a_before = std::fs::read_to_string(root.join("notes/a.md")).unwrap();
        let before = vault.log().unwrap().len();

        let author = Author::new("agent", "u1: filing a thought");
        vault.die_mid_change(&author, |tx| {
            let b = VaultPath::parse("ideas/b.md").unwrap();
            let bytes = tx.prepare(&b, "a thought", None)?.unwrap();
            tx.put(&b, bytes)?;
            let a = VaultPath::parse("notes/a.md").unwrap();
            let current = std::fs::read(root.join("notes/a.md")).unwrap();
            let bytes = tx.prepare(&a, "first, then more", Some(&current))?.unwrap();
            tx.put(&a, bytes)
        });
        drop(vault);

        // The next process: the log shows the interrupted change, credited
        // to its author, with the reason it gave first.
        let next = Vault::open(root).unwrap();
        let log = next.log().unwrap();
        assert_eq!(log.len(), before + 1, "{log:#?}");
        let recovered = log.last().unwrap();
        assert_eq!(recovered.actor, "agent");
        assert!(
            recovered.reason.starts_with("u1: filing a thought"),
            "{}",
            recovered.reason
        );
        assert_eq!(
            letters(&recovered.files),
            [('A', "ideas"), ('A', "ideas/b.md"), ('M', "notes/a.md")]
        );
        assert!(
            next.read("tree.md").unwrap().contains("b.md"),
            "tree.md follows"
        );
        // Nothing is left for a rescan to credit to `external`.
        assert!(next.rescan().unwrap().change.is_none());
        assert_eq!(next.log().unwrap().len(), before + 1, "recovered once");

        next.undo(recovered.id, &Author::new("test", "roll back"), false)
            .unwrap();
        assert!(!root.join("ideas/b.md").exists());
        // An undo stamps `updated` with its own time, which may be a second
        // later: the body and `created` are what come back.
        let a_after = std::fs::read_to_string(root.join("notes/a.md")).unwrap();
        let created = |text: &str| {
            let fields = crate::frontmatter::parse(text).unwrap().unwrap();
            crate::frontmatter::scalar(&fields, "created")
        };
        assert_eq!(
            crate::frontmatter::split(&a_after).unwrap().body,
            crate::frontmatter::split(&a_before).unwrap().body
        );
        assert!(created(&a_before).is_some());
        assert_eq!(created(&a_after), created(&a_before));
    }

    #[test]
    fn a_change_that_died_after_its_journal_record_gets_no_second_one() {
        let (dir, vault) = vault();
        let root = dir.path();
        let manifest = root.join(".knower/manifest.jsonl");
        let manifest_before = std::fs::read(&manifest).unwrap();
        let author = Author::new("agent", "u2: filing");
        let record = vault.write("x.md", "text", &author).unwrap().unwrap();
        drop(vault);
        // The state of a kill between the journal's append and the
        // manifest's: the record is there, the manifest and note are not.
        std::fs::write(&manifest, manifest_before).unwrap();
        let intent = crate::intent::Intent::open(&root.join(".knower/intent")).unwrap();
        intent
            .set(&crate::intent::Note {
                actor: author.actor.clone(),
                reason: author.reason.clone(),
                undoes: Vec::new(),
                record: record.id,
            })
            .unwrap();

        let next = Vault::open(root).unwrap();
        let log = next.log().unwrap();
        assert_eq!(log.last().unwrap(), &record, "no second record");
        assert!(next.entries().iter().any(|(p, _)| p.as_str() == "x.md"));
        assert!(
            next.rescan().unwrap().change.is_none(),
            "the manifest caught up"
        );
        assert_eq!(intent.left_over().unwrap(), None);
    }

    #[test]
    fn a_finished_change_leaves_no_note() {
        let (dir, vault) = vault();
        vault
            .write("x.md", "text", &Author::new("test", "w"))
            .unwrap();
        let intent = crate::intent::Intent::open(&dir.path().join(".knower/intent")).unwrap();
        assert_eq!(intent.left_over().unwrap(), None);
    }
}
