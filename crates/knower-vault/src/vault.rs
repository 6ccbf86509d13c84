//! [`Vault`]: the one door to the files of a vault.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;

use crate::beneath::Beneath;
use crate::blobs::BlobStore;
use crate::change::{Current, Tx};
use crate::error::{Error, Result};
use crate::intent::Intent;
use crate::journal::{self, ChangeRecord, Journal, Version};
use crate::lock::VaultLock;
use crate::manifest::{EntryKind, Manifest};
use crate::path::{self, Access, VaultPath};
use crate::starter;
use crate::text::{self, Position};
use crate::tree::{self, TreeNode};

/// The generated listing at the root of every vault.
pub const TREE_MD: &str = "tree.md";
/// Knower's own folder inside the vault: derived and operational state.
pub const INTERNAL_DIR: &str = ".knower";
/// Version of the layout of `.knower/`, so a future Knower can migrate it.
const FORMAT: &str = "1";

/// Who makes a change and why; both are recorded in the journal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Author {
    /// `cli`, `user`, `agent`, `gardener`, `external`…
    pub actor: String,
    pub reason: String,
}

impl Author {
    pub fn new(actor: impl Into<String>, reason: impl Into<String>) -> Author {
        Author {
            actor: actor.into(),
            reason: reason.into(),
        }
    }
}

/// A path whose state changed, as announced to listeners (the index, live
/// events): files and folders, including changes made by other processes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    pub path: VaultPath,
    pub removed: bool,
}

type Listener = Arc<dyn Fn(&[Changed]) + Send + Sync>;

pub(crate) struct State {
    pub(crate) manifest: Manifest,
    pub(crate) journal: Journal,
    /// tree.md's body as last written or verified, to skip identical rewrites.
    pub(crate) tree_body: Option<String>,
}

/// An open vault. All reads and writes of the user's files go through it; it
/// is `Send + Sync`, and any number of `Vault`s in any number of processes
/// may share one folder.
pub struct Vault {
    root: PathBuf,
    /// Every file operation on the user's files goes through this.
    pub(crate) beneath: Beneath,
    lock: VaultLock,
    pub(crate) intent: Intent,
    pub(crate) blobs: BlobStore,
    journal_path: PathBuf,
    state: Mutex<State>,
    listeners: Mutex<Vec<Listener>>,
}

/// What `init` did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct InitReport {
    pub created: Vec<VaultPath>,
    pub kept: Vec<VaultPath>,
    /// Files that were already in the folder and are now known to Knower.
    pub adopted: usize,
}

/// An item of the vault's folder that Knower leaves alone ([`Vault::untouched`]).
#[derive(Clone, Debug, Serialize)]
pub struct Untouched {
    pub path: String,
    pub why: String,
}

/// Totals for `knower status`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    pub files: u64,
    pub folders: u64,
    pub tokens: u64,
    pub bytes: u64,
    /// Files the background job leaves alone, and why.
    pub problems: Vec<(VaultPath, String)>,
    pub last_change: Option<u64>,
}

impl Vault {
    /// Creates a vault at `root` (the folder may already hold notes): the
    /// starter files and folders of seed 003 that are missing, and Knower's
    /// internal folder. Existing files are never overwritten; they are
    /// adopted (recorded, and given frontmatter like any new file).
    pub fn init(root: &Path, author: &Author) -> Result<(Vault, InitReport)> {
        Vault::init_with(root, author, &mut |_, _| {})
    }

    /// [`Vault::init`], calling `progress(done, total)` while it adopts the
    /// files already in the folder.
    pub fn init_with(
        root: &Path,
        author: &Author,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(Vault, InitReport)> {
        fs::create_dir_all(root).map_err(Error::io(format!("creating {}", root.display())))?;
        let internal = root.join(INTERNAL_DIR);
        fs::create_dir_all(&internal)
            .map_err(Error::io(format!("creating {}", internal.display())))?;
        for (name, content) in [
            (
                ".gitignore",
                "# Knower's derived and operational state\n*\n",
            ),
            ("format", FORMAT),
        ] {
            let file = internal.join(name);
            if !file.exists() {
                fs::write(&file, content)
                    .map_err(Error::io(format!("writing {}", file.display())))?;
            }
        }
        let vault = Vault::open(root)?;
        let adopted = vault.adopt(progress)?.change.map_or(0, |c| c.files.len());
        let (report, _) = vault.change(author, Vec::new(), |tx| {
            let mut report = InitReport {
                adopted,
                ..InitReport::default()
            };
            for folder in starter::FOLDERS {
                let p = VaultPath::parse(folder).expect("valid");
                if tx.version(&p)? == Version::Absent {
                    tx.make_folder(&p)?;
                    report.created.push(p);
                } else {
                    report.kept.push(p);
                }
            }
            for (name, content) in starter::files() {
                let p = VaultPath::parse(name).expect("valid");
                if tx.version(&p)? != Version::Absent {
                    report.kept.push(p);
                    continue;
                }
                let bytes = tx.prepare(&p, &content, None)?.expect("new content");
                tx.put(&p, bytes)?;
                report.created.push(p);
            }
            Ok(report)
        })?;
        Ok((vault, report))
    }

    /// Opens an existing vault (a folder with a `.knower/` inside).
    pub fn open(root: &Path) -> Result<Vault> {
        let not_a_vault = || Error::NotAVault {
            path: root.to_path_buf(),
        };
        let root = fs::canonicalize(root).map_err(|_| not_a_vault())?;
        let internal = root.join(INTERNAL_DIR);
        if !internal.is_dir() {
            return Err(not_a_vault());
        }
        if let Ok(format) = fs::read_to_string(internal.join("format"))
            && format.trim() != FORMAT
        {
            return Err(Error::Refused(format!(
                "{} was made by a different version of Knower (format {}; this one reads {FORMAT})",
                root.display(),
                format.trim()
            )));
        }
        let objects = internal.join("journal").join("objects");
        let blobs = BlobStore::open(objects).map_err(Error::io("opening the journal's store"))?;
        let lock =
            VaultLock::open(&internal.join("lock")).map_err(Error::io("opening the vault lock"))?;
        let intent = Intent::open(&internal.join("intent"))
            .map_err(Error::io("opening the note of the change in progress"))?;
        let manifest = Manifest::load(internal.join("manifest.jsonl"))
            .map_err(Error::io("reading the manifest"))?;
        let journal_path = internal.join("journal").join("changes.jsonl");
        let beneath = Beneath::open(&root).map_err(Error::io("opening the vault's folder"))?;
        Ok(Vault {
            beneath,
            lock,
            intent,
            blobs,
            state: Mutex::new(State {
                manifest,
                journal: Journal::new(journal_path.clone()),
                tree_body: None,
            }),
            journal_path,
            listeners: Mutex::new(Vec::new()),
            root,
        })
    }

    /// The canonical path of the vault folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Calls `listener` after every committed change — this process's, and
    /// other processes' as this one catches up with them — with the paths it
    /// changed. It runs on the writer's thread once the vault is unlocked, so
    /// it may call back into the vault; keep it quick (send to a channel).
    /// Events name paths, not contents: a consumer reads the current content,
    /// so two writers' events arriving in either order leave it correct.
    pub fn subscribe(&self, listener: impl Fn(&[Changed]) + Send + Sync + 'static) {
        lock(&self.listeners).push(Arc::new(listener));
    }

    // ---- reading -------------------------------------------------------

    /// A text file, whole, frontmatter included.
    pub fn read(&self, path: &str) -> Result<String> {
        let bytes = self.read_bytes(path)?;
        String::from_utf8(bytes).map_err(|e| Error::NotUtf8 {
            path: path.to_string(),
            offset: e.utf8_error().valid_up_to(),
        })
    }

    pub fn read_bytes(&self, path: &str) -> Result<Vec<u8>> {
        let p = VaultPath::parse(path)?;
        let disk = path::resolve(&self.root, &p, Access::Read)?;
        // A link inside the vault is read where it leads, by descriptor.
        let real = VaultPath::from_disk(&self.root, &disk).ok_or_else(|| Error::OutsideVault {
            path: p.to_string(),
        })?;
        match self.beneath.metadata(&real) {
            Ok(Some(m)) if m.is_dir() => Err(Error::IsAFolder {
                path: p.to_string(),
            }),
            Ok(Some(_)) => self
                .beneath
                .read(&real)
                .map_err(Error::io(format!("reading {p}"))),
            Ok(None) | Err(_) => Err(Error::NotFound {
                path: p.to_string(),
            }),
        }
    }

    /// The tree below `path` with token counts, down to `depth` levels.
    pub fn tree(&self, path: &str, depth: Option<usize>) -> Result<TreeNode> {
        let p = VaultPath::parse(path)?;
        let state = lock(&self.state);
        tree::build(state.manifest.entries(), &p, depth).ok_or_else(|| Error::NotFound {
            path: p.to_string(),
        })
    }

    /// Every file and folder Knower knows, in tree order.
    pub fn entries(&self) -> Vec<(VaultPath, crate::Entry)> {
        let state = lock(&self.state);
        state
            .manifest
            .entries()
            .iter()
            .map(|(p, e)| (p.clone(), e.clone()))
            .collect()
    }

    pub fn stats(&self) -> Result<Stats> {
        self.with_lock(|state| {
            let mut stats = Stats::default();
            for (path, entry) in state.manifest.entries() {
                match entry.kind {
                    EntryKind::Folder => stats.folders += 1,
                    EntryKind::File => {
                        stats.files += 1;
                        stats.tokens += entry.tokens.unwrap_or(0);
                        stats.bytes += entry.size;
                    }
                }
                if let Some(problem) = &entry.problem {
                    stats.problems.push((path.clone(), problem.clone()));
                }
            }
            stats.last_change = state.journal.next_id().checked_sub(1).filter(|&id| id > 0);
            Ok(stats)
        })
    }

    /// What lies in the vault's folder that Knower leaves alone and a person
    /// may not expect it to: symbolic links (never followed for a change,
    /// and never read when they lead outside), special files, names that
    /// are not UTF-8. Hidden files and folders (`.git`, an editor's
    /// settings) are left alone by design and not listed.
    pub fn untouched(&self) -> Vec<Untouched> {
        let found = crate::walk::walk(&self.root, &VaultPath::root());
        let mut untouched = Vec::new();
        for item in found.foreign {
            let shown = item.strip_prefix(&self.root).unwrap_or(&item);
            if shown
                .components()
                .any(|c| crate::walk::is_hidden(c.as_os_str()))
            {
                continue;
            }
            let why = match fs::symlink_metadata(&item) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let target = fs::read_link(&item)
                        .map(|t| t.display().to_string())
                        .unwrap_or_else(|_| "?".into());
                    let inside = fs::canonicalize(&item)
                        .ok()
                        .and_then(|real| VaultPath::from_disk(&self.root, &real))
                        .is_some();
                    if inside {
                        format!("a link to {target}: read through, never written through")
                    } else {
                        format!("a link to {target}, outside the vault: neither read nor changed")
                    }
                }
                Ok(meta) if !meta.is_file() && !meta.is_dir() => {
                    "a special file (a pipe, socket or device): not a note".to_string()
                }
                _ => "a name that is not UTF-8: not part of the vault".to_string(),
            };
            untouched.push(Untouched {
                path: shown.to_string_lossy().into_owned(),
                why,
            });
        }
        untouched
    }

    /// The journal, oldest first. Read with the lock held, after recovery,
    /// so that it also shows what a change that died half-way had written.
    pub fn log(&self) -> Result<Vec<ChangeRecord>> {
        self.with_lock(|_| {
            journal::read_all(&self.journal_path).map_err(Error::io("reading the journal"))
        })
    }

    // ---- the eight operations' writes ------------------------------------

    /// Creates or replaces a file. Returns the journal record, or `None`
    /// when the content was already there.
    pub fn write(
        &self,
        path: &str,
        content: &str,
        author: &Author,
    ) -> Result<Option<ChangeRecord>> {
        let p = writable(path)?;
        self.change(author, Vec::new(), |tx| write_in(tx, &p, content))
            .map(|(_, record)| record)
    }

    /// Creates or replaces a file with raw bytes (an image, an attached
    /// file), stored exactly as given. Markdown goes through [`Vault::write`],
    /// which keeps its frontmatter.
    pub fn write_bytes(
        &self,
        path: &str,
        bytes: &[u8],
        author: &Author,
    ) -> Result<Option<ChangeRecord>> {
        let p = writable(path)?;
        self.change(author, Vec::new(), |tx| write_bytes_in(tx, &p, bytes))
            .map(|(_, record)| record)
    }

    /// Replaces `old` with `new` where `old` occurs exactly once in the
    /// body (a markdown note's frontmatter is never edited this way).
    pub fn edit(
        &self,
        path: &str,
        old: &str,
        new: &str,
        author: &Author,
    ) -> Result<Option<ChangeRecord>> {
        let p = writable(path)?;
        if old.is_empty() {
            return Err(Error::Refused("the text to replace is empty".into()));
        }
        self.change(author, Vec::new(), |tx| {
            let (bytes, text) = existing_text(tx, &p)?;
            let edited = match text::replace_once(&text, old, new, p.is_markdown()) {
                text::Replaced::Done(edited) => edited,
                text::Replaced::Absent {
                    in_frontmatter: false,
                } => {
                    return Err(Error::TextNotFound {
                        path: p.to_string(),
                    });
                }
                text::Replaced::Absent {
                    in_frontmatter: true,
                } => {
                    return Err(Error::Refused(format!(
                        "the text to replace is only in the frontmatter of {p}, and edit changes the body only \
                         (Knower keeps created, updated and tokens itself; rewrite the note to change other keys)"
                    )));
                }
                text::Replaced::Ambiguous(count) => {
                    return Err(Error::Refused(format!(
                        "the text to replace occurs {count} times in {p}; include more of the text around it so that it occurs once"
                    )));
                }
            };
            if let Some(out) = tx.prepare(&p, &edited, Some(&bytes))? {
                tx.put(&p, out)?;
            }
            Ok(())
        })
        .map(|(_, record)| record)
    }

    /// Adds a block at the top (below frontmatter and title) or bottom of a
    /// file, creating it if needed.
    pub fn append(
        &self,
        path: &str,
        content: &str,
        position: Position,
        author: &Author,
    ) -> Result<Option<ChangeRecord>> {
        let p = writable(path)?;
        self.change(author, Vec::new(), |tx| {
            append_in(tx, &p, content, position)
        })
        .map(|(_, record)| record)
    }

    /// Appends `line` (and a line break) to the append-only log at `path`
    /// — the chat log — in place: one `write`, synced, so a reader sees the
    /// whole record or none of it. Logs are not notes (markdown is refused)
    /// and are never rewritten, so an append keeps no earlier version and
    /// makes no journal record (there is nothing to undo); the manifest and
    /// listeners follow as for any change.
    pub fn append_record(&self, path: &str, line: &str) -> Result<()> {
        let p = appendable(path)?;
        if p.is_markdown() {
            return Err(Error::Refused(format!(
                "{p} is a note: records are appended to logs (.jsonl), notes are edited"
            )));
        }
        if line.contains('\n') {
            return Err(Error::Refused("a record is one line".into()));
        }
        let author = Author::new("knower", format!("append to {p}"));
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.change_unjournaled(&author, |tx| tx.append_record(&p, &bytes))
    }

    /// Deletes a file, or a folder and everything in it.
    pub fn delete(&self, path: &str, author: &Author) -> Result<Option<ChangeRecord>> {
        let p = writable(path)?;
        self.change(author, Vec::new(), |tx| tx.remove(&p))
            .map(|(_, record)| record)
    }

    /// Moves a file or folder. When `to` is an existing folder, the item
    /// moves into it under its own name.
    pub fn rename(&self, from: &str, to: &str, author: &Author) -> Result<Option<ChangeRecord>> {
        let from = writable(from)?;
        let mut to = writable(to)?;
        self.change(author, Vec::new(), |tx| {
            if tx.version(&to)? == Version::Folder {
                to = to.child(from.name())?;
            }
            if to == from {
                return Ok(());
            }
            if to.starts_with(&from) {
                return Err(Error::Refused(format!("cannot move {from} into itself")));
            }
            if to.as_str() == TREE_MD {
                return Err(Error::Generated {
                    path: to.to_string(),
                });
            }
            tx.rename(&from, &to)
        })
        .map(|(_, record)| record)
    }

    /// Restores every path of change `id` to its state before it, as a new
    /// journaled change whose reason names the undone change, followed by
    /// `author.reason` when it is not empty. Refused when a path has changed since (unless
    /// `force`), because that would silently discard the newer content —
    /// which, with `force`, is itself kept in the journal and can be restored.
    pub fn undo(&self, id: u64, author: &Author, force: bool) -> Result<Option<ChangeRecord>> {
        let history = self.log()?;
        let target = find_change(&history, id)?;
        let mut reason = format!("undo change {id} ({})", target.reason);
        if !author.reason.is_empty() {
            reason = format!("{reason}: {}", author.reason);
        }
        let author = Author::new(author.actor.clone(), reason);
        self.undo_from(&history, &[id], &author, force)
    }

    /// Undoes changes `ids` (the newest first) as one journaled change
    /// with `author`'s reason: what one user action made in several changes
    /// (an update whose agent wrote step by step) is taken back as one.
    /// Each change's own lines are reverted where later changes edited the
    /// same file elsewhere, as `git revert` does; refused when those very
    /// lines changed since (unless `force`).
    pub fn undo_all(
        &self,
        ids: &[u64],
        author: &Author,
        force: bool,
    ) -> Result<Option<ChangeRecord>> {
        self.undo_from(&self.log()?, ids, author, force)
    }

    fn undo_from(
        &self,
        history: &[ChangeRecord],
        ids: &[u64],
        author: &Author,
        force: bool,
    ) -> Result<Option<ChangeRecord>> {
        let mut targets = Vec::with_capacity(ids.len());
        for &id in ids {
            let target = find_change(history, id)?;
            if !force && let Some(by) = history.iter().find(|r| r.undoes.contains(&id)) {
                return Err(Error::UndoConflict {
                    id,
                    detail: format!("it was already undone by change {}", by.id),
                });
            }
            targets.push(target);
        }
        let later = |id: u64, path: &VaultPath| {
            history
                .iter()
                .filter(|r| r.id > id && r.files.iter().any(|f| &f.path == path))
                .map(|r| r.id)
                .next_back()
        };
        self.change(author, ids.to_vec(), |tx| {
            for target in &targets {
                undo_in(tx, target, force, |path| later(target.id, path))?;
            }
            Ok(())
        })
        .map(|(_, record)| record)
    }

    // ---- the pipeline ----------------------------------------------------

    /// Runs `body` as one change: under the vault lock, after catching up
    /// with other processes, committing (journal, manifest, tree.md) even if
    /// `body` fails part-way, then telling listeners.
    pub(crate) fn change<T>(
        &self,
        author: &Author,
        undoes: Vec<u64>,
        body: impl FnOnce(&mut Tx) -> Result<T>,
    ) -> Result<(T, Option<ChangeRecord>)> {
        let (result, record, events) = {
            let mut state = lock(&self.state);
            let _guard = self
                .lock
                .acquire()
                .map_err(Error::io("locking the vault"))?;
            let mut events = self.catch_up(&mut state)?;
            let mut tx = Tx::new(self, &mut state, author, undoes);
            let result = body(&mut tx);
            let (record, more) = tx.commit()?;
            events.extend(more);
            (result, record, events)
        };
        self.announce(&events);
        result.map(|value| (value, record))
    }

    /// A change that writes no journal record (appends to logs): locked,
    /// caught up, the manifest and listeners told.
    fn change_unjournaled(
        &self,
        author: &Author,
        body: impl FnOnce(&mut Tx) -> Result<()>,
    ) -> Result<()> {
        let (result, events) = {
            let mut state = lock(&self.state);
            let _guard = self
                .lock
                .acquire()
                .map_err(Error::io("locking the vault"))?;
            let mut events = self.catch_up(&mut state)?;
            let mut tx = Tx::new(self, &mut state, author, Vec::new()).unjournaled();
            let result = body(&mut tx);
            let (_, more) = tx.commit()?;
            events.extend(more);
            (result, events)
        };
        self.announce(&events);
        result
    }

    /// What a process killed in the middle of a change leaves behind: `body`
    /// writes, and the change is never committed (no journal record, no
    /// manifest, intent note left set). The lock is released as a dead
    /// process's would be. This `Vault`'s memory is then ahead of the disk:
    /// tests open a new one, like the next process.
    #[cfg(test)]
    pub(crate) fn die_mid_change(&self, author: &Author, body: impl FnOnce(&mut Tx) -> Result<()>) {
        let mut state = lock(&self.state);
        let _guard = self.lock.acquire().unwrap();
        self.catch_up(&mut state).unwrap();
        let mut tx = Tx::new(self, &mut state, author, Vec::new());
        body(&mut tx).unwrap();
        std::mem::forget(tx);
    }

    /// Runs `body` with the state current and the lock held, writing nothing.
    pub(crate) fn with_lock<T>(&self, body: impl FnOnce(&State) -> Result<T>) -> Result<T> {
        let (result, events) = {
            let mut state = lock(&self.state);
            let _guard = self
                .lock
                .acquire()
                .map_err(Error::io("locking the vault"))?;
            let events = self.catch_up(&mut state)?;
            (body(&state), events)
        };
        self.announce(&events);
        result
    }

    /// Replays what other processes appended to the manifest and journal,
    /// and records what a change that died half-way had written.
    fn catch_up(&self, state: &mut State) -> Result<Vec<Changed>> {
        let changed = state
            .manifest
            .refresh()
            .map_err(Error::io("reading the manifest"))?;
        state
            .journal
            .refresh()
            .map_err(Error::io("reading the journal"))?;
        if !changed.is_empty() {
            // The other process rewrote tree.md; look at the disk next time.
            state.tree_body = None;
        }
        let mut events: Vec<Changed> = changed
            .into_iter()
            .map(|path| Changed {
                removed: state.manifest.get(&path).is_none(),
                path,
            })
            .collect();
        events.extend(self.recover(state)?);
        Ok(events)
    }

    fn announce(&self, events: &[Changed]) {
        if events.is_empty() {
            return;
        }
        let listeners: Vec<Listener> = lock(&self.listeners).clone();
        for listener in listeners {
            listener(events);
        }
    }
}

/// A path the write operations may change: not the root, not tree.md.
/// Append-only logs of the vault: only [`Vault::append_record`] writes
/// them. Neither they nor a folder holding them can be rewritten, deleted
/// or moved by Knower (a person can, with their own tools).
pub const APPEND_ONLY: [&str; 1] = ["chat/log.jsonl"];

pub(crate) fn writable(path: &str) -> Result<VaultPath> {
    let p = appendable(path)?;
    if let Some(log) = APPEND_ONLY
        .iter()
        .find(|log| **log == p.as_str() || log.starts_with(&format!("{p}/")))
    {
        return Err(Error::Refused(format!(
            "{log} is an append-only log: Knower adds to it and never rewrites, moves or deletes it"
        )));
    }
    Ok(p)
}

/// A path changes may name: not the root, not tree.md.
fn appendable(path: &str) -> Result<VaultPath> {
    let p = VaultPath::parse(path)?;
    if p.is_root() {
        return Err(Error::Refused(
            "the vault root itself cannot be changed".into(),
        ));
    }
    if p.as_str() == TREE_MD {
        return Err(Error::Generated {
            path: p.to_string(),
        });
    }
    Ok(p)
}

/// The bytes and text of an existing text file.
/// [`Vault::write`] within a change (also a [`crate::Batch`]'s).
pub(crate) fn write_in(tx: &mut Tx, p: &VaultPath, content: &str) -> Result<()> {
    let previous = match tx.read(p)? {
        Current::Folder => {
            return Err(Error::IsAFolder {
                path: p.to_string(),
            });
        }
        Current::File(bytes) => Some(bytes),
        Current::Absent => None,
    };
    if let Some(bytes) = tx.prepare(p, content, previous.as_deref())? {
        tx.put(p, bytes)?;
    }
    Ok(())
}

/// [`Vault::write_bytes`] within a change.
pub(crate) fn write_bytes_in(tx: &mut Tx, p: &VaultPath, bytes: &[u8]) -> Result<()> {
    if p.is_markdown() {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| Error::Refused(format!("{p} is markdown but not UTF-8 text")))?;
        return write_in(tx, p, text);
    }
    match tx.read(p)? {
        Current::Folder => {
            return Err(Error::IsAFolder {
                path: p.to_string(),
            });
        }
        Current::File(previous) if previous == bytes => return Ok(()),
        _ => {}
    }
    tx.put(p, bytes.to_vec())
}

/// [`Vault::append`] within a change.
pub(crate) fn append_in(
    tx: &mut Tx,
    p: &VaultPath,
    content: &str,
    position: Position,
) -> Result<()> {
    let (bytes, text) = match tx.read(p)? {
        Current::Absent => (None, String::new()),
        _ => {
            let (bytes, text) = existing_text(tx, p)?;
            (Some(bytes), text)
        }
    };
    let appended = text::append(&text, content, position, p.is_markdown());
    if let Some(out) = tx.prepare(p, &appended, bytes.as_deref())? {
        tx.put(p, out)?;
    }
    Ok(())
}

fn existing_text(tx: &mut Tx, p: &VaultPath) -> Result<(Vec<u8>, String)> {
    match tx.read(p)? {
        Current::Absent => Err(Error::NotFound {
            path: p.to_string(),
        }),
        Current::Folder => Err(Error::IsAFolder {
            path: p.to_string(),
        }),
        Current::File(bytes) => match String::from_utf8(bytes.clone()) {
            Ok(text) => Ok((bytes, text)),
            Err(e) => Err(Error::NotUtf8 {
                path: p.to_string(),
                offset: e.utf8_error().valid_up_to(),
            }),
        },
    }
}

/// For a folder the change created: true unless something not made by the
/// change has appeared in it (undoing would then delete that too).
fn folder_holds_only(tx: &mut Tx, change: &ChangeRecord, folder: &VaultPath) -> Result<bool> {
    let created_here = change
        .files
        .iter()
        .any(|f| &f.path == folder && f.before == Version::Absent && f.after == Version::Folder);
    if !created_here {
        return Ok(true);
    }
    let inside: Vec<VaultPath> = tx
        .state
        .manifest
        .subtree(folder)
        .map(|(p, _)| p.clone())
        .collect();
    Ok(inside.iter().all(|p| {
        change
            .files
            .iter()
            .any(|f| &f.path == p && f.after != Version::Absent)
    }))
}

/// Puts `path` back into `version`.
/// The text of a file changed since the change made it `f.after`, with
/// only that change's own edits taken back ([`crate::revert`]), and the
/// file's current bytes; `None` when that cannot be done (not text, created
/// or deleted by the change, or its lines edited since). A note's
/// frontmatter is left to the pipeline.
fn find_change(history: &[ChangeRecord], id: u64) -> Result<&ChangeRecord> {
    history
        .iter()
        .find(|r| r.id == id)
        .ok_or(Error::UnknownChange { id })
}

/// Takes back `target` within `tx`, which may already have taken back newer
/// changes to the same files.
fn undo_in(
    tx: &mut Tx,
    target: &ChangeRecord,
    force: bool,
    later: impl Fn(&VaultPath) -> Option<u64>,
) -> Result<()> {
    let id = target.id;
    // Files changed since, whose change can still be taken back as a
    // revert (its own lines only), with their text once reverted.
    let mut reverted = std::collections::HashMap::new();
    if !force {
        let mut conflicts = Vec::new();
        for f in &target.files {
            let current = tx.version(&f.path)?;
            if current == f.after && folder_holds_only(tx, target, &f.path)? {
                continue;
            }
            if let Some(text) = revert_file(tx, f, &current)? {
                reverted.insert(f.path.clone(), text);
                continue;
            }
            conflicts.push(match later(&f.path) {
                Some(n) => format!(
                    "{}: the lines this change wrote were changed again by change {n}",
                    f.path
                ),
                None => format!("{}: the lines this change wrote were changed since", f.path),
            });
        }
        if !conflicts.is_empty() {
            return Err(Error::UndoConflict {
                id,
                detail: conflicts.join("; "),
            });
        }
    }
    for f in target.files.iter().rev() {
        match reverted.remove(&f.path) {
            Some((text, current)) => {
                if let Some(out) = tx.prepare(&f.path, &text, Some(&current))? {
                    tx.put(&f.path, out)?;
                }
            }
            None => restore(tx, &f.path, &f.before)?,
        }
    }
    Ok(())
}

fn revert_file(
    tx: &mut Tx,
    f: &crate::journal::FileChange,
    current: &Version,
) -> Result<Option<(String, Vec<u8>)>> {
    let (Version::File(before), Version::File(after), Version::File(_)) =
        (&f.before, &f.after, current)
    else {
        return Ok(None);
    };
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).ok();
    let (Some(before), Some(after)) = (
        tx.vault.blobs.get(before).ok().and_then(text),
        tx.vault.blobs.get(after).ok().and_then(text),
    ) else {
        return Ok(None);
    };
    let Current::File(now_bytes) = tx.read(&f.path)? else {
        return Ok(None);
    };
    let Ok(now) = std::str::from_utf8(&now_bytes) else {
        return Ok(None);
    };
    let markdown = f.path.is_markdown();
    let body = |t: &str| -> String {
        match crate::frontmatter::split(t) {
            Ok(split) if markdown => split.body.to_string(),
            _ => t.to_string(),
        }
    };
    let now_body = body(now);
    let head = &now[..now.len() - now_body.len()];
    let reverted = crate::revert::revert(&body(&before), &body(&after), &now_body)
        .map(|reverted| format!("{head}{reverted}"));
    Ok(reverted.map(|text| (text, now_bytes)))
}

fn restore(tx: &mut Tx, path: &VaultPath, version: &Version) -> Result<()> {
    match version {
        Version::Absent => match tx.version(path)? {
            Version::Absent => Ok(()),
            Version::File(_) => tx.remove(path),
            // Leave a folder that still holds something (only possible with force).
            Version::Folder if tx.state.manifest.subtree(path).nth(1).is_some() => Ok(()),
            Version::Folder => tx.remove(path),
        },
        Version::Folder => tx.make_folder(path),
        Version::File(hash) => {
            let bytes = tx.vault.blobs.get(hash).map_err(|e| {
                Error::Refused(format!(
                    "the earlier version of {path} is no longer stored ({e})"
                ))
            })?;
            let current = match tx.read(path)? {
                Current::File(b) => Some(b),
                Current::Folder => {
                    return Err(Error::IsAFolder {
                        path: path.to_string(),
                    });
                }
                Current::Absent => None,
            };
            // Restored notes are stamped as updated now; content Knower cannot
            // stamp (malformed frontmatter, not UTF-8) comes back as it was.
            let out = match std::str::from_utf8(&bytes) {
                Ok(text) => match tx.prepare(path, text, current.as_deref()) {
                    Ok(out) => out,
                    Err(Error::MalformedFrontmatter { .. }) => Some(bytes),
                    Err(e) => return Err(e),
                },
                Err(_) => Some(bytes),
            };
            match out {
                Some(out) => tx.put(path, out),
                None => Ok(()),
            }
        }
    }
}

/// A poisoned mutex only means another thread panicked mid-change; the
/// state is still the best knowledge there is, and the next rescan repairs
/// anything it missed.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
