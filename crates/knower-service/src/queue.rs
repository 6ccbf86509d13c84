//! The durable update queue.
//!
//! An accepted update is a record appended to `.knower/queue/log.jsonl`
//! (its attachments are files under `.knower/queue/files/<id>/`, written
//! and synced first), and so is each change of its state: running, done,
//! failed, retried. The log is the queue: replaying it gives every update's
//! state and the order in which the pending ones run.
//!
//! One thread, the committer, owns the log. It takes every record waiting
//! at once, appends them, syncs once, and only then answers the callers
//! (group commit): fifty clients acknowledged together cost one fsync, not
//! fifty, and the order of the log is the order of acknowledgement. A crash
//! can tear only the last line, which was never acknowledged; opening the
//! log cuts it off.
//!
//! Why a log rather than a file per update or an embedded database: one
//! append and one fsync per batch is the cheapest durable write there is;
//! order comes free; and the format is JSON lines a person can read. The
//! log is rewritten (compacted) when it grows, keeping what is pending,
//! what failed, and the most recent finished updates.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, mpsc};

use knower_agents::{Attachment, Outcome, Payload, UpdateReport};
use knower_llm::Usage;
use serde::{Deserialize, Serialize};

/// The queue's folder, under the vault's `.knower/`.
pub const DIR: &str = "queue";
const LOG: &str = "log.jsonl";
const FILES: &str = "files";
const LOCK: &str = "lock";
/// More waiting updates than this are refused (503) rather than queued.
pub const MAX_PENDING: usize = 10_000;
/// The log is compacted when it grows past this…
const COMPACT_BYTES: u64 = 16 << 20;
/// …keeping this many finished (done) updates, besides pending and failed ones.
const KEEP_DONE: usize = 500;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Queued,
    Running,
    Done,
    Failed,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Queued => "queued",
            State::Running => "running",
            State::Done => "done",
            State::Failed => "failed",
        }
    }
}

/// An update as `GET /updates/{id}` shows it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Update {
    pub id: String,
    pub state: State,
    /// The opening of the update's text.
    pub headline: String,
    pub accepted_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// 1 for the first run; more after retries.
    pub attempt: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inbox_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_files: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inbox_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The journal change that took the update back, once it is undone
    /// (read from the journal, not kept in the queue's log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undone_by: Option<u64>,
    #[serde(default, flatten)]
    pub details: Details,
}

impl Update {
    /// What a client is told of an update it sent: `accepted` while it
    /// waits or runs, then `done` or `failed`; `undone` once taken back.
    pub fn status(&self) -> &'static str {
        match self.state {
            _ if self.undone_by.is_some() => "undone",
            State::Queued | State::Running => "accepted",
            State::Done => "done",
            State::Failed => "failed",
        }
    }

    /// The update `report` describes, run at once by the agent (no queue):
    /// accepted, started and finished now.
    pub fn ran(report: UpdateReport, headline: String, inbox_ref: Option<String>) -> Update {
        let at = now();
        let failed = report.outcome == Outcome::Failed;
        let finished = Finished::from(report.clone());
        Update {
            id: report.id,
            state: if failed { State::Failed } else { State::Done },
            headline,
            accepted_at: at.clone(),
            started_at: Some(at.clone()),
            finished_at: Some(at),
            attempt: 1,
            inbox_ref,
            outcome: Some(finished.outcome),
            summary: Some(finished.summary),
            changed_files: Some(finished.changed_files),
            inbox_id: finished.inbox_id,
            error: report.error,
            undone_by: None,
            details: finished.details,
        }
    }
}

/// How an update ended, as the worker records it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Finished {
    pub outcome: Outcome,
    pub summary: String,
    pub changed_files: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbox_id: Option<String>,
    #[serde(default, flatten)]
    pub details: Details,
}

/// What the agent told of its run besides the outcome: which engine, why
/// it decided as it did, how sure it was, what it cost, what it was
/// refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Details {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Tool calls the agent made that were refused, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl From<UpdateReport> for Finished {
    fn from(report: UpdateReport) -> Finished {
        Finished {
            outcome: report.outcome,
            summary: report.summary,
            changed_files: report.changed,
            inbox_id: report.inbox_id,
            details: Details {
                engine: Some(report.engine),
                reasoning: report.reasoning,
                confidence: report.confidence,
                usage: report.usage,
                warnings: report
                    .tool_calls
                    .iter()
                    .filter(|call| !call.ok)
                    .map(|call| format!("{}: {}", call.tool, call.error.as_deref().unwrap_or("")))
                    .collect(),
            },
        }
    }
}

/// One line of the log.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Record {
    Accepted {
        id: String,
        at: String,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inbox_ref: Option<String>,
        /// Attachment names; file `i` is `files/<id>/<i>`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        files: Vec<String>,
        /// Set when compaction dropped the text of a finished update.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        headline: Option<String>,
        /// The client's `Idempotency-Key`, so that a retry finds this update.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
    },
    Running {
        id: String,
        at: String,
        attempt: u32,
    },
    Done {
        id: String,
        at: String,
        #[serde(flatten)]
        finished: Finished,
    },
    Failed {
        id: String,
        at: String,
        error: String,
    },
    Retried {
        id: String,
        at: String,
    },
}

/// An update for the worker to run.
pub struct Job {
    pub id: String,
    /// The id its changes carry in the journal: the update's id on the
    /// first attempt, `<id>~<n>` on the n-th, so a retry starts clean.
    pub run_id: String,
    /// It was running when the previous process stopped.
    pub interrupted: bool,
    pub payload: Payload,
}

#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("the update queue is full ({MAX_PENDING} updates waiting); try again later")]
    Full,
    #[error("there is no update {0}")]
    Unknown(String),
    #[error("update {id} is {state}; only a failed update can be retried", state = .state.name())]
    NotFailed { id: String, state: State },
    #[error("another Knower process owns this vault's update queue (is a server running?)")]
    Busy,
    #[error("the update queue's log is damaged at line {line}: {detail}")]
    Damaged { line: usize, detail: String },
    #[error("the update queue could not be written: {0}")]
    Io(#[from] io::Error),
    #[error("the update queue is closed")]
    Closed,
}

struct Entry {
    view: Update,
    text: String,
    files: Vec<String>,
    key: Option<String>,
    /// Place in the pending order.
    pos: u64,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    /// Ids in the order they were accepted.
    order: Vec<String>,
    /// Queued and running updates by their place in line.
    pending: BTreeMap<u64, String>,
    next_pos: u64,
    /// Ids handed out whose record is not committed yet.
    reserved: HashSet<String>,
    /// Idempotency keys → the update that holds them (committed or being
    /// committed), as long as the queue remembers the update.
    keys: HashMap<String, String>,
    log_bytes: u64,
    closed: bool,
}

type Batch = (Vec<Record>, tokio::sync::oneshot::Sender<io::Result<()>>);

/// What reserving an id gave.
enum Reserved {
    New(String),
    /// The update that holds the idempotency key asked with.
    Known(String),
}
/// Told of every committed change of state, in the log's order.
pub type Observer = Box<dyn Fn(&Update) + Send + Sync>;

pub struct Queue {
    dir: PathBuf,
    inner: Arc<Mutex<Inner>>,
    /// Signalled when an update becomes pending or the queue closes.
    ready: Arc<Condvar>,
    commits: Mutex<Option<mpsc::Sender<Batch>>>,
    committer: Mutex<Option<std::thread::JoinHandle<()>>>,
    observer: Mutex<Option<Observer>>,
    /// Held for the queue's lifetime: one owner per vault.
    _lock: File,
}

impl Queue {
    /// Opens (or creates) the queue of the vault whose `.knower/` folder is
    /// `internal`, replaying its log. Fails with [`QueueError::Busy`] when
    /// another process has it open.
    pub fn open(internal: &Path) -> Result<Arc<Queue>, QueueError> {
        let dir = internal.join(DIR);
        fs::create_dir_all(dir.join(FILES))?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => return Err(QueueError::Busy),
            Err(fs::TryLockError::Error(e)) => return Err(e.into()),
        }
        let mut inner = Inner::default();
        let log_path = dir.join(LOG);
        replay(&log_path, &mut inner)?;
        let queue = Arc::new(Queue {
            dir,
            inner: Arc::new(Mutex::new(inner)),
            ready: Arc::new(Condvar::new()),
            commits: Mutex::new(None),
            committer: Mutex::new(None),
            observer: Mutex::new(None),
            _lock: lock,
        });
        if queue.inner().log_bytes > COMPACT_BYTES {
            queue.compact()?;
        }
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .open(&log_path)?;
        let (sender, receiver) = mpsc::channel::<Batch>();
        let committer = Committer {
            queue: Arc::downgrade(&queue),
            file,
        };
        let thread = std::thread::Builder::new()
            .name("knower-queue".into())
            .spawn(move || committer.run(receiver))?;
        *lock_ignoring_poison(&queue.commits) = Some(sender);
        *lock_ignoring_poison(&queue.committer) = Some(thread);
        Ok(queue)
    }

    /// Calls `observer` after each committed change of an update's state
    /// (from the committer thread, in commit order: keep it quick).
    pub fn observe(&self, observer: Observer) {
        *lock_ignoring_poison(&self.observer) = Some(observer);
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        lock_ignoring_poison(&self.inner)
    }

    /// Stores an update durably and returns its id; when this returns, the
    /// update survives a crash. With a `key` the queue already holds (a
    /// client's retry of a request it never saw answered), nothing is
    /// stored and the id is the first update's.
    pub async fn accept(
        &self,
        text: String,
        inbox_ref: Option<String>,
        attachments: Vec<Attachment>,
        key: Option<String>,
    ) -> Result<String, QueueError> {
        let id = loop {
            match self.reserve(key.as_deref())? {
                Reserved::New(id) => break id,
                Reserved::Known(id) if self.inner().entries.contains_key(&id) => return Ok(id),
                // The first request with this key is being committed.
                Reserved::Known(_) => tokio::time::sleep(std::time::Duration::from_millis(5)).await,
            }
        };
        let outcome = async {
            let mut files = Vec::new();
            if !attachments.is_empty() {
                let folder = self.dir.join(FILES).join(&id);
                files = attachments.iter().map(|a| a.name.clone()).collect();
                tokio::task::spawn_blocking(move || store_files(&folder, &attachments))
                    .await
                    .map_err(|e| io::Error::other(e.to_string()))??;
            }
            let record = Record::Accepted {
                id: id.clone(),
                at: now(),
                text,
                inbox_ref,
                files,
                headline: None,
                key: key.clone(),
            };
            self.send(vec![record])?
                .await
                .map_err(|_| QueueError::Closed)??;
            Ok(())
        }
        .await;
        if let Err(e) = outcome {
            let mut inner = self.inner();
            inner.reserved.remove(&id);
            if let Some(key) = &key {
                inner.keys.remove(key);
            }
            drop(inner);
            let _ = fs::remove_dir_all(self.dir.join(FILES).join(&id));
            return Err(e);
        }
        Ok(id)
    }

    /// A fresh id, unique among the updates this queue knows, held for
    /// `key`; or the update that already holds `key`.
    fn reserve(&self, key: Option<&str>) -> Result<Reserved, QueueError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut inner = self.inner();
        if inner.closed {
            return Err(QueueError::Closed);
        }
        if let Some(id) = key.and_then(|k| inner.keys.get(k)) {
            return Ok(Reserved::Known(id.clone()));
        }
        if inner.pending.len() + inner.reserved.len() >= MAX_PENDING {
            return Err(QueueError::Full);
        }
        loop {
            let now = jiff::Zoned::now();
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let mix = (now.timestamp().subsec_nanosecond() as u64 / 1000)
                .wrapping_add(n.wrapping_mul(0x9E37_79B9))
                & 0xFF_FFFF;
            let id = format!("update-{}-{mix:06x}", now.strftime("%Y%m%d-%H%M%S"));
            if !inner.entries.contains_key(&id) && inner.reserved.insert(id.clone()) {
                if let Some(key) = key {
                    inner.keys.insert(key.to_string(), id.clone());
                }
                return Ok(Reserved::New(id));
            }
        }
    }

    fn send(
        &self,
        records: Vec<Record>,
    ) -> Result<tokio::sync::oneshot::Receiver<io::Result<()>>, QueueError> {
        let (done, receiver) = tokio::sync::oneshot::channel();
        let commits = lock_ignoring_poison(&self.commits);
        let sender = commits.as_ref().ok_or(QueueError::Closed)?;
        sender
            .send((records, done))
            .map_err(|_| QueueError::Closed)?;
        Ok(receiver)
    }

    /// Commits records from a thread that may block (the worker, the CLI).
    fn commit_blocking(&self, records: Vec<Record>) -> Result<(), QueueError> {
        self.send(records)?
            .blocking_recv()
            .map_err(|_| QueueError::Closed)??;
        Ok(())
    }

    /// The next update to run, in acceptance order, waiting for one; `None`
    /// once the queue is closed.
    pub fn next(&self) -> Option<Result<Job, (String, QueueError)>> {
        let mut inner = self.inner();
        loop {
            if inner.closed {
                return None;
            }
            if let Some(id) = inner.pending.values().next().cloned() {
                drop(inner);
                return self.job(&id);
            }
            inner = self.ready.wait(inner).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Update `id` as a job to run, its attachments read back.
    pub(crate) fn job(&self, id: &str) -> Option<Result<Job, (String, QueueError)>> {
        let inner = self.inner();
        let entry = inner.entries.get(id)?;
        let attempt = entry.view.attempt.max(1);
        let interrupted = entry.view.state == State::Running;
        let run_id = if attempt == 1 {
            id.to_string()
        } else {
            format!("{id}~{attempt}")
        };
        let text = entry.text.clone();
        let inbox_ref = entry.view.inbox_ref.clone();
        let names = entry.files.clone();
        drop(inner);
        Some(
            self.load_files(id, &names)
                .map(|attachments| Job {
                    payload: Payload {
                        id: Some(run_id.clone()),
                        text,
                        attachments,
                        inbox_ref,
                    },
                    id: id.to_string(),
                    run_id,
                    interrupted,
                })
                .map_err(|e| (id.to_string(), e.into())),
        )
    }

    fn load_files(&self, id: &str, names: &[String]) -> io::Result<Vec<Attachment>> {
        let folder = self.dir.join(FILES).join(id);
        names
            .iter()
            .enumerate()
            .map(|(i, name)| Ok(Attachment::new(name, fs::read(folder.join(i.to_string()))?)))
            .collect()
    }

    /// Records that `job` starts (a new attempt, unless it resumes one
    /// that was interrupted).
    pub fn start(&self, job: &Job) -> Result<(), QueueError> {
        let attempt = {
            let inner = self.inner();
            let entry = inner
                .entries
                .get(&job.id)
                .ok_or_else(|| QueueError::Unknown(job.id.clone()))?;
            entry.view.attempt.max(1)
        };
        self.commit_blocking(vec![Record::Running {
            id: job.id.clone(),
            at: now(),
            attempt,
        }])
    }

    pub fn finish(&self, id: &str, finished: Finished) -> Result<(), QueueError> {
        self.commit_blocking(vec![Record::Done {
            id: id.to_string(),
            at: now(),
            finished,
        }])?;
        // The agent stored the attachments in the vault (or the inbox).
        let _ = fs::remove_dir_all(self.dir.join(FILES).join(id));
        Ok(())
    }

    pub fn fail(&self, id: &str, error: &str) -> Result<(), QueueError> {
        self.commit_blocking(vec![Record::Failed {
            id: id.to_string(),
            at: now(),
            error: error.to_string(),
        }])
    }

    /// Puts a failed update back at the end of the line, as a new attempt.
    pub fn retry(&self, id: &str) -> Result<(), QueueError> {
        {
            let inner = self.inner();
            let entry = inner
                .entries
                .get(id)
                .ok_or_else(|| QueueError::Unknown(id.to_string()))?;
            if entry.view.state != State::Failed {
                return Err(QueueError::NotFailed {
                    id: id.to_string(),
                    state: entry.view.state,
                });
            }
        }
        self.commit_blocking(vec![Record::Retried {
            id: id.to_string(),
            at: now(),
        }])
    }

    pub fn get(&self, id: &str) -> Option<Update> {
        self.inner().entries.get(id).map(|e| e.view.clone())
    }

    /// The most recent updates, newest first.
    pub fn recent(&self, limit: usize) -> Vec<Update> {
        let inner = self.inner();
        inner
            .order
            .iter()
            .rev()
            .take(limit)
            .map(|id| inner.entries[id].view.clone())
            .collect()
    }

    /// How many updates wait, and how many run (0 or 1).
    pub fn depth(&self) -> (usize, usize) {
        let inner = self.inner();
        let running = inner
            .pending
            .values()
            .filter(|id| inner.entries[*id].view.state == State::Running)
            .count();
        (inner.pending.len() - running, running)
    }

    /// Stops handing out work and accepting updates; what is pending stays
    /// in the log for the next start. States can still be recorded.
    pub fn stop(&self) {
        self.inner().closed = true;
        self.ready.notify_all();
    }

    /// [`Queue::stop`], then ends the committer.
    pub fn close(&self) {
        self.stop();
        drop(lock_ignoring_poison(&self.commits).take());
        if let Some(thread) = lock_ignoring_poison(&self.committer).take() {
            let _ = thread.join();
        }
    }

    /// Rewrites the log with what is worth keeping. Called with no
    /// committer running (at open) or by the committer itself.
    fn compact(&self) -> io::Result<()> {
        let mut inner = self.inner();
        let done: Vec<String> = inner
            .order
            .iter()
            .filter(|id| inner.entries[*id].view.state == State::Done)
            .cloned()
            .collect();
        let dropped: HashSet<String> = done[..done.len().saturating_sub(KEEP_DONE)]
            .iter()
            .cloned()
            .collect();
        let mut text = String::new();
        let mut kept = Vec::new();
        for id in inner.order.iter().filter(|id| !dropped.contains(*id)) {
            let entry = &inner.entries[id];
            for record in snapshot(entry) {
                text.push_str(&serde_json::to_string(&record).map_err(io::Error::other)?);
                text.push('\n');
            }
            kept.push(id.clone());
        }
        let temp = self.dir.join("log.jsonl.tmp");
        let mut file = File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        fs::rename(&temp, self.dir.join(LOG))?;
        File::open(&self.dir)?.sync_all()?;
        for id in &dropped {
            if let Some(key) = inner.entries.get(id).and_then(|e| e.key.clone()) {
                inner.keys.remove(&key);
            }
            inner.entries.remove(id);
            let _ = fs::remove_dir_all(self.dir.join(FILES).join(id));
        }
        inner.order = kept;
        inner.log_bytes = text.len() as u64;
        Ok(())
    }
}

/// The records that recreate an entry as it is now.
fn snapshot(entry: &Entry) -> Vec<Record> {
    let view = &entry.view;
    let id = view.id.clone();
    let finished = view.state == State::Done;
    let mut records = vec![Record::Accepted {
        id: id.clone(),
        at: view.accepted_at.clone(),
        // A finished update's text is in the vault now; its headline stays.
        text: if finished {
            String::new()
        } else {
            entry.text.clone()
        },
        inbox_ref: view.inbox_ref.clone(),
        files: if finished {
            vec![]
        } else {
            entry.files.clone()
        },
        headline: finished.then(|| view.headline.clone()),
        key: entry.key.clone(),
    }];
    let started = view
        .started_at
        .clone()
        .unwrap_or_else(|| view.accepted_at.clone());
    let running = |attempt| Record::Running {
        id: id.clone(),
        at: started.clone(),
        attempt,
    };
    let at = view.finished_at.clone().unwrap_or_else(now);
    match view.state {
        State::Queued if view.attempt > 1 => records.extend([
            // A retried update: its earlier attempt failed.
            running(view.attempt - 1),
            Record::Failed {
                id: id.clone(),
                at: at.clone(),
                error: "retried".into(),
            },
            Record::Retried { id: id.clone(), at },
        ]),
        State::Queued => {}
        State::Running => records.push(running(view.attempt)),
        State::Done => records.extend([
            running(view.attempt),
            Record::Done {
                id: id.clone(),
                at,
                finished: Finished {
                    outcome: view.outcome.unwrap_or(Outcome::Filed),
                    summary: view.summary.clone().unwrap_or_default(),
                    changed_files: view.changed_files.clone().unwrap_or_default(),
                    inbox_id: view.inbox_id.clone(),
                    details: view.details.clone(),
                },
            },
        ]),
        State::Failed => records.extend([
            running(view.attempt),
            Record::Failed {
                id: id.clone(),
                at,
                error: view.error.clone().unwrap_or_default(),
            },
        ]),
    }
    records
}

struct Committer {
    queue: std::sync::Weak<Queue>,
    file: File,
}

impl Committer {
    fn run(mut self, receiver: mpsc::Receiver<Batch>) {
        while let Ok(first) = receiver.recv() {
            let mut batch = vec![first];
            while let Ok(more) = receiver.try_recv() {
                batch.push(more);
            }
            let mut bytes = Vec::new();
            for (records, _) in &batch {
                for record in records {
                    serde_json::to_writer(&mut bytes, record).expect("records serialise");
                    bytes.push(b'\n');
                }
            }
            let written = self
                .file
                .write_all(&bytes)
                .and_then(|()| self.file.sync_data());
            let Some(queue) = self.queue.upgrade() else {
                return;
            };
            match written {
                Ok(()) => {
                    let mut changed = Vec::new();
                    {
                        let mut inner = queue.inner();
                        inner.log_bytes += bytes.len() as u64;
                        for (records, _) in &batch {
                            for record in records {
                                let id = record.id().to_string();
                                inner.apply(record.clone());
                                changed.extend(inner.entries.get(&id).map(|e| e.view.clone()));
                            }
                        }
                    }
                    queue.ready.notify_all();
                    if let Some(observer) = &*lock_ignoring_poison(&queue.observer) {
                        changed.iter().for_each(observer);
                    }
                    for (_, done) in batch {
                        let _ = done.send(Ok(()));
                    }
                    if queue.inner().log_bytes > COMPACT_BYTES {
                        match queue.compact().and_then(|()| self.reopen(&queue)) {
                            Ok(()) => {}
                            Err(e) => eprintln!("warning: compacting the update queue: {e}"),
                        }
                    }
                }
                Err(e) => {
                    // A partial line may have reached the file: cut back to
                    // what was committed, so the next append starts clean.
                    let committed = queue.inner().log_bytes;
                    let _ = self.file.set_len(committed);
                    for (_, done) in batch {
                        let _ = done.send(Err(io::Error::new(e.kind(), e.to_string())));
                    }
                }
            }
        }
    }

    fn reopen(&mut self, queue: &Queue) -> io::Result<()> {
        self.file = OpenOptions::new().append(true).open(queue.dir.join(LOG))?;
        Ok(())
    }
}

impl Record {
    fn id(&self) -> &str {
        match self {
            Record::Accepted { id, .. }
            | Record::Running { id, .. }
            | Record::Done { id, .. }
            | Record::Failed { id, .. }
            | Record::Retried { id, .. } => id,
        }
    }
}

impl Inner {
    fn apply(&mut self, record: Record) {
        match record {
            Record::Accepted {
                id,
                at,
                text,
                inbox_ref,
                files,
                headline,
                key,
            } => {
                let pos = self.next_pos;
                self.next_pos += 1;
                self.reserved.remove(&id);
                if self.entries.contains_key(&id) {
                    return;
                }
                let view = Update {
                    id: id.clone(),
                    state: State::Queued,
                    headline: headline.unwrap_or_else(|| headline_of(&text)),
                    accepted_at: at,
                    started_at: None,
                    finished_at: None,
                    attempt: 0,
                    inbox_ref,
                    outcome: None,
                    summary: None,
                    changed_files: None,
                    inbox_id: None,
                    error: None,
                    undone_by: None,
                    details: Details::default(),
                };
                if let Some(key) = &key {
                    self.keys.insert(key.clone(), id.clone());
                }
                self.entries.insert(
                    id.clone(),
                    Entry {
                        view,
                        text,
                        files,
                        key,
                        pos,
                    },
                );
                self.pending.insert(pos, id.clone());
                self.order.push(id);
            }
            Record::Running { id, at, attempt } => {
                if let Some(entry) = self.entries.get_mut(&id) {
                    entry.view.state = State::Running;
                    entry.view.started_at = Some(at);
                    entry.view.attempt = attempt;
                }
            }
            Record::Done { id, at, finished } => {
                if let Some(entry) = self.entries.get_mut(&id) {
                    let view = &mut entry.view;
                    view.state = State::Done;
                    view.finished_at = Some(at);
                    view.outcome = Some(finished.outcome);
                    view.summary = Some(finished.summary);
                    view.changed_files = Some(finished.changed_files);
                    view.inbox_id = finished.inbox_id;
                    view.details = finished.details;
                    view.error = None;
                    self.pending.remove(&entry.pos);
                }
            }
            Record::Failed { id, at, error } => {
                if let Some(entry) = self.entries.get_mut(&id) {
                    entry.view.state = State::Failed;
                    entry.view.finished_at = Some(at);
                    entry.view.error = Some(error);
                    self.pending.remove(&entry.pos);
                }
            }
            Record::Retried { id, .. } => {
                let pos = self.next_pos;
                self.next_pos += 1;
                if let Some(entry) = self.entries.get_mut(&id) {
                    let view = &mut entry.view;
                    view.state = State::Queued;
                    view.attempt += 1;
                    view.error = None;
                    view.finished_at = None;
                    entry.pos = pos;
                    self.pending.insert(pos, id);
                }
            }
        }
    }
}

/// Reads the log into `inner`. A last line without its newline, or that
/// does not parse, is a write torn by a crash (never acknowledged) and is
/// cut off; a bad line before the last is damage, reported.
fn replay(path: &Path, inner: &mut Inner) -> Result<(), QueueError> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let mut reader = BufReader::new(&mut file);
    let mut good = 0u64;
    let mut line = Vec::new();
    let mut number = 0;
    let mut torn = None;
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        number += 1;
        if torn.is_some() {
            let detail = torn.take().unwrap_or_default();
            return Err(QueueError::Damaged {
                line: number - 1,
                detail,
            });
        }
        let complete = line.ends_with(b"\n");
        match serde_json::from_slice::<Record>(&line) {
            Ok(record) if complete => {
                inner.apply(record);
                good += read as u64;
            }
            Ok(_) => torn = Some("an unfinished last line".to_string()),
            Err(e) => torn = Some(e.to_string()),
        }
    }
    drop(reader);
    if torn.is_some() {
        file.set_len(good)?;
        file.seek(SeekFrom::End(0))?;
        file.sync_all()?;
    }
    inner.log_bytes = good;
    Ok(())
}

fn store_files(folder: &Path, attachments: &[Attachment]) -> io::Result<()> {
    fs::create_dir_all(folder)?;
    for (i, attachment) in attachments.iter().enumerate() {
        let mut file = File::create(folder.join(i.to_string()))?;
        file.write_all(&attachment.bytes)?;
        file.sync_all()?;
    }
    File::open(folder)?.sync_all()?;
    if let Some(parent) = folder.parent() {
        File::open(parent)?.sync_all()?;
    }
    Ok(())
}

fn headline_of(text: &str) -> String {
    Payload::text(text).headline(80)
}

fn now() -> String {
    jiff::Timestamp::now()
        .round(jiff::Unit::Millisecond)
        .unwrap_or_else(|_| jiff::Timestamp::now())
        .to_string()
}

fn lock_ignoring_poison<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests;
