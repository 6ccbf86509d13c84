//! One sync: the user's files committed, the remote's changes fetched and
//! merged, the merge's conflicts resolved (or kept for the user), the
//! result pushed. Its steps, and why they are in this order:
//!
//! 1. finish an interrupted sync (`.knower/sync/running` left behind):
//!    stale git locks removed, a half-done merge aborted — everything local
//!    was committed before any merge began, so aborting loses nothing;
//! 2. the vault rescanned, so edits made outside Knower are stamped and
//!    journaled before they are committed;
//! 3. `git fetch` (network; no lock held);
//! 4. under the vault lock ([`Vault::arrive`]): commit what changed here,
//!    merge, resolve conflicted paths (`merge.rs`), commit the merge; the
//!    files it changed enter the journal as a change by "sync from
//!    REMOTE", keeping the `updated` they carry, so the index follows, the
//!    UI lights them up and `knower undo` takes them back;
//! 5. an inbox item per real conflict (`knower_agents::conflict`),
//!    committed too;
//! 6. `git push`; a push refused because the remote moved meanwhile goes
//!    back to 3 (five times at most).

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use knower_agents::conflict::{self, Conflict, What};
use knower_vault::{Author, INTERNAL_DIR, TREE_MD, Vault, VaultPath};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::git::Git;
use crate::merge::{self, Merging};
use crate::settings::Settings;

/// Names Knower never commits: its own folder, the derived tree.md (each
/// machine regenerates it), and debris of atomic writes.
const EXCLUDED: [&str; 3] = ["/.knower/", "/tree.md", ".knower-tmp-*"];
/// The trailer naming the machine a commit was made on.
const HOST_TRAILER: &str = "Knower-Host";
/// Pushes tried when others keep pushing first (each after a fetch and a
/// merge, and a pause that grows and differs per process, so that
/// machines racing each other stop colliding).
const ATTEMPTS: usize = 5;

/// What one sync did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// The remote, as the journal names it ("sync from REMOTE").
    pub remote: String,
    pub branch: String,
    /// Paths of this machine's changes committed.
    pub committed: usize,
    /// Paths the remote's changes touched here.
    pub received: Vec<String>,
    /// The journal record of the received changes.
    pub change: Option<u64>,
    /// The inbox items made for real conflicts.
    pub conflicts: Vec<String>,
    pub pushed: bool,
    /// The remote had no copy of the branch yet.
    pub first_push: bool,
    /// An interrupted sync was finished first.
    pub resumed: bool,
    pub seconds: f64,
}

/// The last sync, as `.knower/sync/state.json` keeps it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Last {
    pub at: String,
    pub ok: bool,
    pub error: Option<String>,
    pub committed: usize,
    pub received: usize,
    pub conflicts: usize,
    pub pushed: bool,
}

/// Where the vault stands against its remote.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Status {
    /// A remote is configured (or the repository has one).
    pub configured: bool,
    pub remote: Option<String>,
    pub branch: Option<String>,
    pub last: Option<Last>,
    /// Commits here the remote has not seen, and the reverse (as of the
    /// last fetch).
    pub ahead: usize,
    pub behind: usize,
    /// Paths changed here since the last commit.
    pub local_changes: usize,
    /// Sync conflicts waiting in the inbox.
    pub conflicts_waiting: usize,
    /// A sync is running now.
    pub running: bool,
    /// Why the status could not be read fully.
    pub problem: Option<String>,
}

/// The sync of one vault.
pub struct Sync {
    vault: Arc<Vault>,
    git: Git,
    dir: PathBuf,
    settings: Settings,
    machine: String,
}

/// The remote as the repository knows it.
struct Remote {
    /// The git remote's name.
    name: String,
    /// How the journal names it: the configured URL, else the name.
    label: String,
    branch: String,
}

impl Sync {
    pub fn new(vault: Arc<Vault>) -> Result<Sync> {
        let settings = Settings::of(&vault).map_err(Error::Invalid)?;
        let machine = settings.machine();
        let root = vault.root().to_path_buf();
        Ok(Sync {
            git: Git::new(&root).with_identity_for(&machine),
            dir: root.join(INTERNAL_DIR).join("sync"),
            vault,
            settings,
            machine,
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Runs one sync; `progress` hears each step. One sync at a time per
    /// vault, across processes: a second one waits for the first.
    pub fn run(&self, progress: &mut dyn FnMut(&str)) -> Result<Report> {
        std::fs::create_dir_all(&self.dir).map_err(|e| Error::io("making .knower/sync", e))?;
        let lock = File::create(self.dir.join("lock"))
            .map_err(|e| Error::io("opening the sync lock", e))?;
        lock.lock().map_err(|e| Error::io("locking the sync", e))?;
        let started = Instant::now();
        let result = self.run_locked(progress);
        let last = match &result {
            Ok(report) => Last {
                at: knower_vault::journal_now(),
                ok: true,
                error: None,
                committed: report.committed,
                received: report.received.len(),
                conflicts: report.conflicts.len(),
                pushed: report.pushed,
            },
            Err(e) => Last {
                at: knower_vault::journal_now(),
                ok: false,
                error: Some(e.to_string()),
                ..Last::default()
            },
        };
        let state = serde_json::to_vec_pretty(&last).expect("the state serialises");
        let _ = knower_vault::write_atomic(&self.dir.join("state.json"), &state);
        let _ = std::fs::remove_file(self.dir.join("running"));
        result.map(|mut report| {
            report.seconds = started.elapsed().as_secs_f64();
            report
        })
    }

    fn run_locked(&self, progress: &mut dyn FnMut(&str)) -> Result<Report> {
        let resumed = self.finish_interrupted()?;
        std::fs::write(self.dir.join("running"), std::process::id().to_string())
            .map_err(|e| Error::io("noting the sync in progress", e))?;
        let mut remote = self.prepare_repository()?;
        let mut report = Report {
            remote: remote.label.clone(),
            branch: remote.branch.clone(),
            resumed,
            ..Report::default()
        };
        progress("looking for changes made outside Knower");
        self.vault.rescan()?;
        report
            .conflicts
            .extend(self.file_pending_conflicts(&remote)?);
        for attempt in 0..ATTEMPTS {
            progress(&format!("fetching from {}", remote.label));
            self.git.run(&["fetch", "--quiet", &remote.name])?;
            if attempt == 0 {
                remote.branch = self.branch_to_follow(&remote)?;
                report.branch = remote.branch.clone();
            }
            let upstream = format!("refs/remotes/{}/{}", remote.name, remote.branch);
            let known_upstream = self.rev(&upstream)?;
            if attempt == 0 {
                report.first_push = known_upstream.is_none();
            }
            progress("merging");
            let merged = self.commit_and_merge(&remote, known_upstream.as_deref())?;
            report.committed += merged.committed;
            report.received.extend(merged.received);
            report.change = merged.change.or(report.change);
            let filed = self.file_pending_conflicts(&remote)?;
            if !filed.is_empty() {
                self.commit_local()?;
            }
            report.conflicts.extend(filed);
            let head = self.rev("HEAD")?;
            if head.is_none() {
                break; // an empty vault has nothing to push
            }
            if known_upstream.is_some() && head == known_upstream {
                report.pushed = false;
                break;
            }
            progress(&format!("pushing to {}", remote.label));
            let refspec = format!("HEAD:refs/heads/{}", remote.branch);
            let out = self
                .git
                .output(&["push", "--quiet", &remote.name, &refspec])?;
            if out.status.success() {
                report.pushed = true;
                let _ = self.git.ok(&[
                    "branch",
                    "--set-upstream-to",
                    &format!("{}/{}", remote.name, remote.branch),
                ]);
                break;
            }
            let said = String::from_utf8_lossy(&out.stderr);
            let moved = said.contains("rejected") || said.contains("fetch first");
            if !moved || attempt + 1 == ATTEMPTS {
                let why = if moved {
                    format!("others pushed first {ATTEMPTS} times; sync again")
                } else {
                    said.trim().lines().take(4).collect::<Vec<_>>().join(" / ")
                };
                return Err(Error::Git(format!(
                    "`git push` to {} failed: {why}",
                    remote.label
                )));
            }
            let jitter = u64::from(std::process::id() % 97) + 50;
            std::thread::sleep(std::time::Duration::from_millis(
                jitter * (attempt as u64 + 1),
            ));
        }
        report.received.sort();
        report.received.dedup();
        Ok(report)
    }

    /// The commit a revision names, if it exists.
    fn rev(&self, name: &str) -> Result<Option<String>> {
        let out = self.git.output(&[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{name}^{{commit}}"),
        ])?;
        Ok(out
            .status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string()))
    }

    fn git_dir(&self) -> PathBuf {
        self.vault.root().join(".git")
    }

    /// A sync killed part-way: its locks removed, its merge aborted (the
    /// files it had written journaled back as they were).
    fn finish_interrupted(&self) -> Result<bool> {
        let git_dir = self.git_dir();
        let interrupted = self.dir.join("running").exists();
        let merging = git_dir.join("MERGE_HEAD").exists();
        if !interrupted {
            if merging {
                return Err(Error::Invalid(
                    "a merge started outside Knower is in progress in the vault's repository: \
                     finish it (`git commit`) or abort it (`git merge --abort`), then sync"
                        .into(),
                ));
            }
            return Ok(false);
        }
        remove_stale_locks(&git_dir);
        if merging {
            let author = Author::new(
                self.actor_for(None),
                "taking back a merge a killed sync left half-done",
            );
            self.vault.arrive(&author, || {
                let paths = self.changed_since("HEAD");
                self.abandon_merge();
                ((), paths)
            })?;
            if self.git_dir().join("MERGE_HEAD").exists() {
                return Err(Error::Git(
                    "a merge a killed sync left could not be taken back: run `git merge --abort` \
                     in the vault, then sync"
                        .into(),
                ));
            }
        }
        Ok(true)
    }

    /// The journal's actor for changes from the remote.
    fn actor_for(&self, remote: Option<&Remote>) -> String {
        let label = remote.map(|r| r.label.clone()).unwrap_or_else(|| {
            self.settings
                .remote
                .clone()
                .unwrap_or_else(|| "the remote".into())
        });
        format!("sync from {label}")
    }

    /// The repository made ready: created if the vault has none (an
    /// existing one keeps its history), Knower's own files excluded, the
    /// remote known.
    fn prepare_repository(&self) -> Result<Remote> {
        let root = self.vault.root();
        if !root.join(".git").exists() && self.settings.remote.is_none() {
            return Err(no_remote());
        }
        if !root.join(".git").exists() {
            let inside = self.git.output(&["rev-parse", "--show-toplevel"])?;
            if inside.status.success() {
                let top = String::from_utf8_lossy(&inside.stdout).trim().to_string();
                return Err(Error::Invalid(format!(
                    "the vault is inside the git repository at {top}; a synced vault must be a \
                     repository's top folder (move the vault out, or sync that repository with git)"
                )));
            }
            self.git
                .run(&["init", "--quiet", "--initial-branch=main"])?;
        }
        self.exclude_own_files()?;
        if self.git.ok(&["ls-files", "--error-unmatch", TREE_MD])? {
            self.git.run(&["rm", "--cached", "--quiet", TREE_MD])?;
        }
        let branch = self
            .git
            .run(&["symbolic-ref", "--short", "-q", "HEAD"])
            .map_err(|_| {
                Error::Invalid(
                    "the vault's repository is not on a branch (detached HEAD): `git switch` to \
                     one, then sync"
                        .into(),
                )
            })?
            .trim()
            .to_string();
        let remotes = self.remotes()?;
        let (name, label) = match &self.settings.remote {
            Some(wanted) if remotes.contains(wanted) => (wanted.clone(), wanted.clone()),
            Some(url) => {
                let existing = remotes.iter().find(|name| {
                    self.git
                        .run(&["remote", "get-url", name])
                        .is_ok_and(|u| u.trim() == url)
                });
                let name = match existing {
                    Some(name) => name.clone(),
                    None => {
                        let name = if remotes.is_empty() {
                            "origin"
                        } else {
                            "knower"
                        };
                        if remotes.iter().any(|r| r == name) {
                            self.git.run(&["remote", "set-url", name, url])?;
                        } else {
                            self.git.run(&["remote", "add", name, url])?;
                        }
                        name.to_string()
                    }
                };
                (name, url.clone())
            }
            None => match remotes.as_slice() {
                [] => return Err(no_remote()),
                [only] => (only.clone(), only.clone()),
                _ if remotes.iter().any(|r| r == "origin") => ("origin".into(), "origin".into()),
                _ => {
                    return Err(Error::Invalid(format!(
                        "the vault's repository has several remotes ({}): name one as `remote` \
                         under [sync] in knower.toml",
                        remotes.join(", ")
                    )));
                }
            },
        };
        Ok(Remote {
            name,
            label,
            branch,
        })
    }

    /// The repository's remotes, by name.
    fn remotes(&self) -> Result<Vec<String>> {
        Ok(self
            .git
            .run(&["remote"])?
            .lines()
            .map(str::to_string)
            .collect())
    }

    /// The branch to sync: the current one; but a repository with no
    /// commit yet (a fresh vault, or a clone of a repository whose default
    /// branch is missing) takes the remote's branch of the same name, else
    /// its `main`, else its only branch.
    fn branch_to_follow(&self, remote: &Remote) -> Result<String> {
        if self.rev("HEAD")?.is_some() {
            return Ok(remote.branch.clone());
        }
        let prefix = format!("refs/remotes/{}/", remote.name);
        let branches: Vec<String> = self
            .git
            .run(&["for-each-ref", "--format=%(refname)", &prefix])?
            .lines()
            .filter_map(|r| r.strip_prefix(&prefix))
            .filter(|b| *b != "HEAD")
            .map(str::to_string)
            .collect();
        let chosen = if branches.contains(&remote.branch) {
            remote.branch.clone()
        } else if branches.iter().any(|b| b == "main") {
            "main".to_string()
        } else if let [only] = branches.as_slice() {
            only.clone()
        } else {
            remote.branch.clone()
        };
        if chosen != remote.branch {
            self.git
                .run(&["symbolic-ref", "HEAD", &format!("refs/heads/{chosen}")])?;
        }
        Ok(chosen)
    }

    /// `.git/info/exclude` (this repository's own ignore list, never
    /// committed) names what Knower keeps out of the repository.
    fn exclude_own_files(&self) -> Result<()> {
        let path = self.git_dir().join("info").join("exclude");
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        let missing: Vec<&str> = EXCLUDED
            .iter()
            .copied()
            .filter(|p| !current.lines().any(|l| l.trim() == *p))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let mut text = current;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("# Knower's own files: per machine, never synced\n");
        for p in missing {
            text.push_str(p);
            text.push('\n');
        }
        std::fs::create_dir_all(path.parent().expect("info has a parent"))
            .and_then(|_| std::fs::write(&path, text))
            .map_err(|e| Error::io("writing .git/info/exclude", e))
    }

    /// Paths that differ between `commit` and the working tree, untracked
    /// files included (every path when `commit` does not exist).
    fn changed_since(&self, commit: &str) -> Vec<VaultPath> {
        let mut names: Vec<String> = if self.rev(commit).ok().flatten().is_some() {
            self.git
                .records(&["diff", "--name-only", "--no-renames", "-z", commit])
                .unwrap_or_default()
        } else {
            self.git.records(&["ls-files", "-z"]).unwrap_or_default()
        };
        names.extend(
            self.git
                .records(&["ls-files", "--others", "--exclude-standard", "-z"])
                .unwrap_or_default(),
        );
        let mut paths: Vec<VaultPath> = names
            .iter()
            .filter_map(|n| VaultPath::parse(n).ok())
            .collect();
        paths.sort();
        paths.dedup();
        paths
    }

    /// Paths that differ between two commits.
    fn changed_between(&self, from: &str, to: &str) -> Vec<VaultPath> {
        if self.rev(from).ok().flatten() == self.rev(to).ok().flatten() {
            return vec![];
        }
        self.git
            .records(&["diff", "--name-only", "--no-renames", "-z", from, to])
            .unwrap_or_default()
            .iter()
            .filter_map(|n| VaultPath::parse(n).ok())
            .collect()
    }

    /// Step 4, under the vault lock.
    fn commit_and_merge(&self, remote: &Remote, upstream: Option<&str>) -> Result<Merged> {
        let author = Author::new(self.actor_for(Some(remote)), "merged the remote's changes");
        let before = std::cell::RefCell::new(None);
        let (result, report) = self.vault.arrive(&author, || {
            let result = self.commit_local().and_then(|committed| {
                *before.borrow_mut() = self.rev("HEAD")?;
                let conflicts = match upstream {
                    Some(upstream) => self.merge(remote, upstream)?,
                    None => vec![],
                };
                Ok((committed, conflicts))
            });
            let base = before.borrow().clone();
            let paths = match (&result, base) {
                // The merge is committed: compare two trees, not the disk.
                (Ok(_), Some(base)) => self.changed_between(&base, "HEAD"),
                (Ok(_), None) => self.changed_since("HEAD"),
                // A merge that failed part-way is taken back (everything
                // local was committed before it); what it had touched is
                // compared with what Knower knew, and equal again.
                (Err(_), Some(base)) => {
                    let touched = self.changed_since(&base);
                    self.abandon_merge();
                    touched
                }
                (Err(_), None) => vec![],
            };
            (result, paths)
        })?;
        let (committed, _conflicts) = result?;
        let received = report
            .change
            .as_ref()
            .map(|c| c.files.iter().map(|f| f.path.to_string()).collect())
            .unwrap_or_default();
        Ok(Merged {
            committed,
            received,
            change: report.change.map(|c| c.id),
        })
    }

    /// Takes back a merge in progress, with the conflicts it had noted.
    fn abandon_merge(&self) {
        if self.git_dir().join("MERGE_HEAD").exists() {
            let aborted = self.git.run(&["merge", "--abort"]);
            if aborted.is_err() {
                let _ = self.git.run(&["reset", "--merge"]);
            }
        }
        let _ = std::fs::remove_file(self.dir.join("pending.json"));
    }

    /// Commits every change of the user's files; returns how many paths.
    fn commit_local(&self) -> Result<usize> {
        self.git.run(&["add", "--all"])?;
        let staged =
            self.git
                .records(&["diff", "--cached", "--name-only", "--no-renames", "-z"])?;
        if staged.is_empty() {
            return Ok(0);
        }
        let message = self.message(
            &format!(
                "{} change{}",
                staged.len(),
                if staged.len() == 1 { "" } else { "s" }
            ),
            &staged,
        );
        self.git
            .run(&["commit", "--quiet", "--no-verify", "-m", &message])?;
        Ok(staged.len())
    }

    fn message(&self, what: &str, paths: &[String]) -> String {
        let mut message = format!("knower sync on {}: {what}\n\n", self.machine);
        for path in paths.iter().take(20) {
            message.push_str(&format!("- {path}\n"));
        }
        if paths.len() > 20 {
            message.push_str(&format!("- and {} more\n", paths.len() - 20));
        }
        message.push_str(&format!("\n{HOST_TRAILER}: {}\n", self.machine));
        message
    }

    /// Merges the fetched branch; the conflicted paths resolved and the
    /// real conflicts kept in `pending.json` for step 5 before the merge
    /// is committed.
    fn merge(&self, remote: &Remote, upstream: &str) -> Result<Vec<Conflict>> {
        if self.rev("HEAD")?.is_some()
            && self
                .git
                .ok(&["merge-base", "--is-ancestor", upstream, "HEAD"])?
        {
            return Ok(vec![]); // nothing new there
        }
        // `.knower/` is each machine's own (journal, index, locks): a
        // remote that carries one must not overwrite ours.
        let foreign = self
            .git
            .run(&["ls-tree", "--name-only", upstream, "--", INTERNAL_DIR])?;
        if !foreign.trim().is_empty() {
            return Err(Error::Invalid(format!(
                "{} holds a `{INTERNAL_DIR}/` folder, which is each machine's own; nothing was \
                 merged. Remove it from the remote (`git rm -r --cached {INTERNAL_DIR}` there) \
                 and sync again",
                remote.label
            )));
        }
        let message = self.message(&format!("merge {}", remote.label), &[]);
        // A clean merge commits at once; a conflicted one stops, and is
        // committed below once every path is resolved.
        let out = self.git.output(&[
            "merge",
            "--quiet",
            "--no-edit",
            "--no-verify",
            "--allow-unrelated-histories",
            "-m",
            &message,
            upstream,
        ])?;
        let unmerged = self.unmerged()?;
        if !out.status.success() && unmerged.is_empty() {
            let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
            self.abandon_merge();
            return Err(Error::Git(format!("`git merge` failed: {said}")));
        }
        let mut conflicts = Vec::new();
        if unmerged.is_empty() {
            return Ok(conflicts);
        }
        let sides = self.sides(remote, upstream);
        for (path, stages) in unmerged {
            if let Some(conflict) = self.resolve(&path, &stages, &sides, upstream)? {
                conflicts.push(conflict);
            }
        }
        if !conflicts.is_empty() {
            let pending = serde_json::to_vec_pretty(&conflicts).expect("conflicts serialise");
            knower_vault::write_atomic(&self.dir.join("pending.json"), &pending)
                .map_err(|e| Error::io("keeping the conflicts to file", e))?;
        }
        if self.git_dir().join("MERGE_HEAD").exists() {
            self.git
                .run(&["commit", "--quiet", "--no-verify", "--no-edit"])?;
        }
        Ok(conflicts)
    }

    /// The two sides' names: this machine, and the machine of the remote's
    /// last commit (its trailer), else the remote.
    fn sides(&self, remote: &Remote, upstream: &str) -> [String; 2] {
        let format = format!("--format=%(trailers:key={HOST_TRAILER},valueonly,separator=%x2C)");
        let there = self
            .git
            .run(&["log", "-1", &format, upstream])
            .ok()
            .and_then(|s| {
                s.trim()
                    .split(',')
                    .next()
                    .map(str::trim)
                    .map(str::to_string)
            })
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| remote.name.clone());
        if there == self.machine {
            [
                format!("{} (here)", self.machine),
                format!("{there} (remote)"),
            ]
        } else {
            [self.machine.clone(), there]
        }
    }

    /// The conflicted paths and their stages (1 base, 2 ours, 3 theirs).
    fn unmerged(&self) -> Result<BTreeMap<String, [Option<String>; 3]>> {
        let mut out: BTreeMap<String, [Option<String>; 3]> = BTreeMap::new();
        for record in self.git.records(&["ls-files", "--unmerged", "-z"])? {
            let Some((meta, path)) = record.split_once('\t') else {
                continue;
            };
            let fields: Vec<&str> = meta.split_whitespace().collect();
            if let [_, oid, stage] = fields.as_slice()
                && let Ok(stage) = stage.parse::<usize>()
                && (1..=3).contains(&stage)
            {
                out.entry(path.to_string()).or_default()[stage - 1] = Some(oid.to_string());
            }
        }
        Ok(out)
    }

    /// Settles one conflicted path in the working tree and the index;
    /// returns the conflict the user must decide, if any.
    fn resolve(
        &self,
        path: &str,
        stages: &[Option<String>; 3],
        sides: &[String; 2],
        upstream: &str,
    ) -> Result<Option<Conflict>> {
        // A hidden file (`.obsidian/…`, `.gitignore`) is synced but not
        // Knower's to edit: never merged, both sides kept for the user.
        let in_vault = VaultPath::parse(path).is_ok();
        let file = self.confined(path)?;
        let blob = |n: usize| -> Result<Option<Vec<u8>>> {
            match &stages[n] {
                Some(oid) => self.git.show(oid),
                None => Ok(None),
            }
        };
        let (base, ours, theirs) = (blob(0)?, blob(1)?, blob(2)?);
        let id = conflict_id(path, stages, upstream);
        let made = |what: What| Conflict {
            path: path.to_string(),
            id: id.clone(),
            sides: sides.clone(),
            what,
        };
        let conflict = match (ours, theirs) {
            (Some(ours), Some(theirs)) => {
                let base = base.unwrap_or_default();
                let texts = (
                    std::str::from_utf8(&base),
                    std::str::from_utf8(&ours),
                    std::str::from_utf8(&theirs),
                );
                let merged = match texts {
                    (Ok(b), Ok(o), Ok(t)) if in_vault => {
                        let scratch = self.dir.join("scratch");
                        let m = Merging {
                            git: &self.git,
                            scratch: &scratch,
                            id: &id,
                            sides,
                        };
                        merge::merge(&m, path, b, o, t)?
                    }
                    _ => None,
                };
                match merged {
                    Some(merged) => {
                        write(&file, merged.text.as_bytes())?;
                        merged.conflict.map(made)
                    }
                    // Not a note, or not text: ours in place, theirs beside.
                    None => {
                        write(&file, &ours)?;
                        let copy = copy_path(path, &sides[1]);
                        write(&self.confined(&copy)?, &theirs)?;
                        self.git.run(&["add", "--", &copy])?;
                        Some(made(if in_vault {
                            What::Copied { copy }
                        } else {
                            What::Hidden { copy: Some(copy) }
                        }))
                    }
                }
            }
            (Some(ours), None) => {
                write(&file, &ours)?;
                Some(made(if in_vault {
                    What::Deleted { deleted_by: 1 }
                } else {
                    What::Hidden { copy: None }
                }))
            }
            (None, Some(theirs)) => {
                write(&file, &theirs)?;
                Some(made(if in_vault {
                    What::Deleted { deleted_by: 0 }
                } else {
                    What::Hidden { copy: None }
                }))
            }
            (None, None) => {
                let _ = std::fs::remove_file(&file);
                self.git.run(&["rm", "--cached", "--quiet", "--", path])?;
                return Ok(None);
            }
        };
        self.git.run(&["add", "--", path])?;
        Ok(conflict)
    }

    /// Where a path from the repository is on disk: relative, without `..`
    /// or `.`, outside `.git/` and `.knower/`, with no symbolic link on the
    /// way. (Hidden names are allowed: a vault's repository may hold an
    /// editor's settings.)
    fn confined(&self, path: &str) -> Result<PathBuf> {
        let parts: Vec<&str> = path.split('/').collect();
        let refused = path.starts_with('/')
            || path.chars().any(char::is_control)
            || parts
                .iter()
                .any(|p| p.is_empty() || *p == "." || *p == "..")
            || matches!(parts.first(), Some(&".git") | Some(&INTERNAL_DIR));
        if refused {
            return Err(Error::Invalid(format!(
                "the remote sent `{path}`, which the sync does not write"
            )));
        }
        let root = self.vault.root();
        let mut at = root.to_path_buf();
        for part in parts {
            at.push(part);
            if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(Error::Invalid(format!(
                    "`{path}` goes through a symbolic link; the sync does not write there"
                )));
            }
        }
        Ok(at)
    }

    /// Step 5: an inbox item for each conflict kept in `pending.json`, the
    /// items committed with the rest.
    fn file_pending_conflicts(&self, remote: &Remote) -> Result<Vec<String>> {
        let pending = self.dir.join("pending.json");
        let Ok(bytes) = std::fs::read(&pending) else {
            return Ok(vec![]);
        };
        let conflicts: Vec<Conflict> = serde_json::from_slice(&bytes).unwrap_or_default();
        let author = Author::new(self.actor_for(Some(remote)), "conflicts for you to decide");
        let day = jiff::Zoned::now().strftime("%Y-%m-%d").to_string();
        let (ids, _) = self.vault.batch(&author, |batch| {
            let mut ids = Vec::new();
            for conflict in &conflicts {
                if let Some(id) = conflict::create(batch, conflict, &day)? {
                    ids.push(id);
                }
            }
            Ok(ids)
        })?;
        let _ = std::fs::remove_file(&pending);
        Ok(ids)
    }

    /// Where the vault stands (reads git and the inbox; no network).
    pub fn status(&self) -> Status {
        let mut status = Status {
            last: std::fs::read(self.dir.join("state.json"))
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok()),
            running: self.running(),
            conflicts_waiting: conflicts_waiting(&self.vault),
            ..Status::default()
        };
        if !self.git_dir().exists() {
            status.configured = self.settings.remote.is_some();
            status.remote = self.settings.remote.clone();
            return status;
        }
        let remotes = self.remotes().unwrap_or_default();
        status.configured = self.settings.remote.is_some() || !remotes.is_empty();
        status.remote = self.settings.remote.clone().or_else(|| {
            remotes
                .iter()
                .find(|r| *r == "origin")
                .or(remotes.first())
                .cloned()
        });
        status.branch = self
            .git
            .run(&["symbolic-ref", "--short", "-q", "HEAD"])
            .ok()
            .map(|b| b.trim().to_string());
        if let Ok(text) = self.git.run(&["status", "--porcelain", "-z"]) {
            status.local_changes = text.split('\0').filter(|r| r.len() > 3).count();
        }
        if let Ok(counts) =
            self.git
                .run(&["rev-list", "--left-right", "--count", "HEAD...@{upstream}"])
        {
            let mut n = counts.split_whitespace().map(|n| n.parse().unwrap_or(0));
            status.ahead = n.next().unwrap_or(0);
            status.behind = n.next().unwrap_or(0);
        } else if let Ok(count) = self.git.run(&["rev-list", "--count", "HEAD"]) {
            // Never pushed: every commit is ahead.
            status.ahead = count.trim().parse().unwrap_or(0);
        }
        status
    }

    fn running(&self) -> bool {
        let Ok(lock) = File::open(self.dir.join("lock")) else {
            return false;
        };
        match lock.try_lock() {
            Ok(()) => {
                let _ = lock.unlock();
                false
            }
            Err(_) => true,
        }
    }
}

struct Merged {
    committed: usize,
    received: Vec<String>,
    change: Option<u64>,
}

fn no_remote() -> Error {
    Error::Invalid(
        "no remote to sync with: set `remote` under [sync] in knower.toml \
         (e.g. remote = \"git@github.com:me/notes.git\")"
            .into(),
    )
}

/// Sync conflicts waiting in the inbox.
pub fn conflicts_waiting(vault: &Vault) -> usize {
    knower_agents::inbox_list(vault)
        .map(|items| items.iter().filter(|i| conflict::of(i).is_some()).count())
        .unwrap_or(0)
}

/// Lock files a killed git leaves behind; only called when the sync that
/// ran git is known to have died.
fn remove_stale_locks(git_dir: &Path) {
    for name in [
        "index.lock",
        "HEAD.lock",
        "ORIG_HEAD.lock",
        "config.lock",
        "packed-refs.lock",
        "MERGE_HEAD.lock",
    ] {
        let _ = std::fs::remove_file(git_dir.join(name));
    }
    let refs = git_dir.join("refs");
    let mut stack = vec![refs];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "lock") {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io("making a folder", e))?;
    }
    std::fs::write(path, bytes).map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

/// Where the other side's copy of a binary file goes: beside it.
fn copy_path(path: &str, side: &str) -> String {
    let (folder, name) = match path.rsplit_once('/') {
        Some((folder, name)) => (format!("{folder}/"), name),
        None => (String::new(), path),
    };
    let side = knower_vault::slug(side);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{folder}{stem}.from-{side}.{ext}"),
        _ => format!("{folder}{name}.from-{side}"),
    }
}

/// Names a conflict's markers: the same on a retry of the same merge.
fn conflict_id(path: &str, stages: &[Option<String>; 3], upstream: &str) -> String {
    let key = format!("{path}\0{stages:?}\0{upstream}");
    knower_vault::Hash::of(key.as_bytes()).to_string()[..6].to_string()
}
