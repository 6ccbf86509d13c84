//! [`Service`]: what every surface calls to send an update, answer the
//! inbox, ask a question or search — the one place that decides how an
//! update runs.

mod chat;
mod garden;
mod sync;

pub use chat::ChatOutcome;
pub use sync::sync_status;

use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use knower_agents::{Agents, Answer, INBOX, InboxItem, Payload, Prompt};
use knower_chat::Chat;
use knower_garden::Garden;
use knower_graph::Graph;
use knower_index::{Index, Mode, Results, SearchOptions};
use knower_vault::{INTERNAL_DIR, Vault};
use serde_json::json;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::events::Events;
use crate::queue::{Queue, QueueError, State, Update};
use crate::updates::UpdateLog;
use crate::worker;

/// How long a stopping server waits for the running update to finish
/// before leaving it to the next start (which resumes it).
const STOP_GRACE: Duration = Duration::from_secs(10);
/// How often an update waited for in this process is looked at.
const POLL: Duration = Duration::from_millis(50);

/// Knower's features for one vault, as the surfaces (CLI, HTTP, MCP) call
/// them. Cheap to share behind an `Arc`; its methods are async and do
/// their blocking work off the caller's event loop.
pub struct Service {
    vault: Arc<Vault>,
    index: Arc<Index>,
    agents: Arc<Agents>,
    events: Arc<Events>,
    /// Present when this process owns the vault's update queue (`knower
    /// serve`); otherwise updates go to a server running on the vault, or
    /// run here at once.
    queue: Option<Arc<Queue>>,
    /// The chat over the same vault, index and engine.
    chat: Chat,
    /// The gardener of the vault's topics.
    garden: Arc<Garden>,
    /// The knowledge graph, kept as notes under `graph/`.
    graph: Graph,
    /// The background embedder, started by the first search with vectors
    /// in a serving process.
    embedder: OnceLock<()>,
    started: Instant,
}

/// Whether [`Service::update`] returns as soon as the update is accepted
/// (durably queued) or once it has run. An update that runs in this
/// process (no server) has always run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    Accepted,
    Finished,
}

/// A question for the search agent.
#[derive(Clone, Debug)]
pub struct Question {
    pub text: String,
    pub mode: Mode,
    /// `project:NAME` or a folder (or file) of the vault.
    pub scope: Option<String>,
}

/// A service that runs the vault's queue, with its worker, and the
/// gardener's schedule.
pub struct Serving {
    pub service: Arc<Service>,
    worker: JoinHandle<()>,
    stopping: Arc<std::sync::atomic::AtomicBool>,
}

impl Service {
    /// The service of a process that does not own the vault's queue (the
    /// CLI, `knower mcp`): an update joins the queue of a server running on
    /// the vault, else the agent files it at once. The index should have
    /// caught up with the vault.
    pub fn local(vault: Arc<Vault>, index: Arc<Index>) -> Result<Service> {
        let agents = Arc::new(Agents::open(vault.clone(), index.clone())?);
        Service::with(vault, index, agents, None)
    }

    /// The service of `knower serve`: it owns the vault's durable queue and
    /// runs its updates one at a time on a worker thread, and announces
    /// changes of files, of the inbox and of updates on [`Service::events`].
    pub fn serve(vault: Arc<Vault>, index: Arc<Index>) -> Result<Serving> {
        let queue = Queue::open(&vault.root().join(INTERNAL_DIR))?;
        let agents = Arc::new(Agents::open(vault.clone(), index.clone())?);
        let service = Arc::new(Service::with(
            vault.clone(),
            index,
            agents.clone(),
            Some(queue.clone()),
        )?);
        let events = service.events.clone();
        queue.observe(Box::new(move |update| {
            events.emit(
                "update_status",
                json!({
                    "id": update.id, "state": update.state, "summary": update.summary,
                    "error": update.error, "changed_files": update.changed_files,
                    "outcome": update.outcome, "inbox_id": update.inbox_id,
                    "inbox_ref": update.inbox_ref, "attempt": update.attempt,
                }),
            );
        }));
        follow_vault(&vault, &service.events);
        let worker = worker::spawn(queue, agents, vault);
        let stopping = Arc::new(std::sync::atomic::AtomicBool::new(false));
        garden::schedule_garden(&service, stopping.clone());
        sync::schedule_sync(&service, stopping.clone());
        Ok(Serving {
            service,
            worker,
            stopping,
        })
    }

    /// A service over agents made elsewhere (tests, benchmarks).
    pub fn with(
        vault: Arc<Vault>,
        index: Arc<Index>,
        agents: Arc<Agents>,
        queue: Option<Arc<Queue>>,
    ) -> Result<Service> {
        let chat = Chat::open(vault.clone(), index.clone(), agents.clone())?;
        let garden = Arc::new(Garden::open(
            vault.clone(),
            Some(index.clone()),
            agents.llm(),
        )?);
        Ok(Service {
            graph: Graph::new(vault.clone()),
            vault,
            index,
            agents,
            chat,
            garden,
            events: Events::new(),
            queue,
            embedder: OnceLock::new(),
            started: Instant::now(),
        })
    }

    /// The knowledge graph of the vault (the MCP memory tools, `knower
    /// graph`).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The search index's state (files indexed and pending, vectors to
    /// compute), read from disk: call it off an event loop.
    pub fn index_status(&self) -> Result<knower_index::IndexStatus> {
        Ok(self.index.status()?)
    }

    /// Gives vectors to the passages written since the last pass, before a
    /// search in `mode` that uses them (the search would do it too);
    /// `progress` hears how far it got.
    pub fn prepare_search(&self, mode: Mode, progress: &mut dyn FnMut(usize, usize)) -> Result<()> {
        Ok(self.index.prepare(mode, progress)?)
    }

    /// The index's problems since the last call (a file it could not
    /// read, a model that failed), each said once.
    pub fn take_index_problems(&self) -> Vec<String> {
        self.index.take_problems()
    }

    /// The vault's folder.
    pub fn root(&self) -> &std::path::Path {
        self.vault.root()
    }

    /// A folder of the vault as a tree with token counts, `depth` levels
    /// deep.
    pub fn tree(&self, path: &str, depth: Option<usize>) -> Result<knower_vault::TreeNode> {
        Ok(self.vault.tree(path, depth)?)
    }

    /// A note's text.
    pub fn read(&self, path: &str) -> Result<String> {
        Ok(self.vault.read(path)?)
    }

    /// A file's bytes (an attachment, an image).
    pub fn read_bytes(&self, path: &str) -> Result<Vec<u8>> {
        Ok(self.vault.read_bytes(path)?)
    }

    /// The journal: every change, oldest first. Reads the disk.
    pub fn journal(&self) -> Result<Vec<knower_vault::ChangeRecord>> {
        Ok(self.vault.log()?)
    }

    /// Undoes change `id` as a new change by `author` (see
    /// [`Vault::undo`]). Writes the disk.
    pub fn undo(
        &self,
        id: u64,
        author: &knower_vault::Author,
        force: bool,
    ) -> Result<Option<knower_vault::ChangeRecord>> {
        Ok(self.vault.undo(id, author, force)?)
    }

    /// Every file of the vault Knower knows, with what it knows of it.
    pub fn entries(&self) -> Vec<(knower_vault::VaultPath, knower_vault::Entry)> {
        self.vault.entries()
    }

    /// Hears every change to the vault's files (paths, not contents).
    pub fn subscribe(&self, listener: impl Fn(&[knower_vault::Changed]) + Send + Sync + 'static) {
        self.vault.subscribe(listener)
    }

    /// Writes a note as `author`: one journaled change (`None` when the
    /// content was already so).
    pub fn write(
        &self,
        path: &str,
        content: &str,
        author: &knower_vault::Author,
    ) -> Result<Option<knower_vault::ChangeRecord>> {
        Ok(self.vault.write(path, content, author)?)
    }

    /// Replaces `old` by `new` in a note, as `author`.
    pub fn edit(
        &self,
        path: &str,
        old: &str,
        new: &str,
        author: &knower_vault::Author,
    ) -> Result<Option<knower_vault::ChangeRecord>> {
        Ok(self.vault.edit(path, old, new, author)?)
    }

    /// Adds `content` to a note at `position`, as `author`.
    pub fn append(
        &self,
        path: &str,
        content: &str,
        position: knower_vault::Position,
        author: &knower_vault::Author,
    ) -> Result<Option<knower_vault::ChangeRecord>> {
        Ok(self.vault.append(path, content, position, author)?)
    }

    /// Deletes a file or folder, as `author` (kept in the journal).
    pub fn delete(
        &self,
        path: &str,
        author: &knower_vault::Author,
    ) -> Result<Option<knower_vault::ChangeRecord>> {
        Ok(self.vault.delete(path, author)?)
    }

    /// Moves a file or folder, as `author`.
    pub fn rename(
        &self,
        from: &str,
        to: &str,
        author: &knower_vault::Author,
    ) -> Result<Option<knower_vault::ChangeRecord>> {
        Ok(self.vault.rename(from, to, author)?)
    }

    pub fn events(&self) -> &Arc<Events> {
        &self.events
    }

    /// `offline engine`, or the model as `provider:model`.
    pub fn engine_label(&self) -> String {
        self.agents.engine_label()
    }

    /// Every prompt in effect: the agents', and each feature's.
    pub fn prompts(&self) -> Vec<Prompt> {
        prompts(&self.vault)
    }

    /// Harvests the conversations at `paths` into `knowledge/` (a dry run
    /// unless `options.apply`), with the model when one is configured.
    /// `progress` hears (done, total) conversations.
    pub async fn harvest(
        &self,
        paths: Vec<std::path::PathBuf>,
        options: knower_harvest::Options,
        mut progress: impl FnMut(usize, usize) + Send + 'static,
    ) -> Result<knower_harvest::Report> {
        let harvester = knower_harvest::Harvester::new(self.vault.clone(), self.agents.llm());
        blocking(move || {
            harvester
                .run(&paths, options, &mut progress)
                .map_err(Error::from)
        })
        .await
    }

    /// The knowledge folder as the UI shows it: the category files, the
    /// digest and the ledger.
    pub fn knowledge(&self) -> Result<knower_harvest::Overview> {
        Ok(knower_harvest::overview(&self.vault)?)
    }

    /// Deletes `knowledge/digest.md` (journaled, undoable): no knowledge
    /// block reaches any agent until the next harvest makes it again.
    pub fn delete_digest(&self, actor: &str) -> Result<bool> {
        Ok(knower_harvest::delete_digest(&self.vault, actor)?)
    }

    /// How long this service has run.
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// Updates waiting and running in this process's queue (none without one).
    pub fn queue_depth(&self) -> (usize, usize) {
        self.queue.as_ref().map_or((0, 0), |queue| queue.depth())
    }

    /// Sends an update: into this process's queue, else into the queue of
    /// the server running on the vault, else to the agent at once. The same
    /// [`Update`] comes back whichever way it went.
    pub async fn update(&self, payload: Payload, wait: Wait) -> Result<Update> {
        self.update_keyed(payload, wait, None).await
    }

    /// [`Service::update`] with the client's idempotency key: a request sent
    /// again with the same key (its answer was lost) is the first update,
    /// not a second one, as long as the queue remembers it.
    pub async fn update_keyed(
        &self,
        payload: Payload,
        wait: Wait,
        key: Option<String>,
    ) -> Result<Update> {
        payload.check()?;
        if let Some(key) = &key {
            check_key(key)?;
        }
        if let Some(queue) = &self.queue {
            if let Some(reference) = &payload.inbox_ref {
                // Refused now rather than failing later in the queue.
                self.inbox_item(reference)?;
            }
            let id = queue
                .accept(payload.text, payload.inbox_ref, payload.attachments, key)
                .await?;
            loop {
                let update = queue.get(&id).ok_or(Error::NotFound(id.clone()))?;
                if wait == Wait::Accepted || matches!(update.state, State::Done | State::Failed) {
                    return Ok(update);
                }
                tokio::time::sleep(POLL).await;
            }
        }
        if let Some(client) = Client::find(self.vault.root()) {
            let id = client.submit(payload).await?;
            return match wait {
                Wait::Accepted => client.update(&id).await,
                Wait::Finished => client.wait(&id).await,
            };
        }
        // No server runs: this process takes the vault's queue for this one
        // update, so that it is kept and listed like any other.
        let queue = match Queue::open(&self.vault.root().join(INTERNAL_DIR)) {
            Ok(queue) => queue,
            // Another process (a server starting, another update) has the
            // queue: run the update here, unlisted, rather than wait.
            Err(QueueError::Busy) => {
                let headline = payload.headline(80);
                let inbox_ref = payload.inbox_ref.clone();
                let agents = self.agents.clone();
                let report = blocking(move || agents.update(payload).map_err(Error::from)).await?;
                return Ok(Update::ran(report, headline, inbox_ref));
            }
            Err(e) => return Err(e.into()),
        };
        if let Some(reference) = &payload.inbox_ref {
            self.inbox_item(reference)?;
        }
        let outcome = async {
            let id = queue
                .accept(payload.text, payload.inbox_ref, payload.attachments, key)
                .await?;
            // Nobody else would run it: it runs now, whatever `wait` says
            // (unless a key found an update that has run already).
            let waiting = queue
                .get(&id)
                .is_some_and(|u| matches!(u.state, State::Queued | State::Running));
            if waiting {
                let (runner, agents, vault) =
                    (queue.clone(), self.agents.clone(), self.vault.clone());
                let run = id.clone();
                blocking(move || worker::run_one(&runner, &agents, &vault, &run)).await?;
            }
            queue.get(&id).ok_or(Error::NotFound(id))
        }
        .await;
        queue.close();
        outcome
    }

    /// Answers inbox item `id` with `answer` (an option number, a project,
    /// a path, `discard`…): an update that refers to the item.
    pub async fn reply(&self, id: &str, answer: String, wait: Wait) -> Result<Update> {
        let payload = Payload {
            inbox_ref: Some(id.to_string()),
            ..Payload::text(answer)
        };
        self.update(payload, wait).await
    }

    /// The search agent's answer.
    pub async fn ask(&self, question: Question) -> Result<Answer> {
        self.follow_vectors(question.mode);
        let agents = self.agents.clone();
        blocking(move || {
            agents
                .ask_within(&question.text, question.mode, question.scope.as_deref())
                .map_err(Error::from)
        })
        .await
    }

    /// Ranked passages, no answer; with `per_note`, `options.limit` notes,
    /// each with its best passage.
    pub async fn search(
        &self,
        query: String,
        options: SearchOptions,
        per_note: bool,
    ) -> Result<Results> {
        self.follow_vectors(options.mode);
        let index = self.index.clone();
        blocking(move || {
            match per_note {
                true => index.search_notes(&query, &options),
                false => index.search(&query, &options),
            }
            .map_err(Error::from)
        })
        .await
    }

    /// The items waiting in the inbox, oldest first.
    pub fn inbox(&self) -> Result<Vec<InboxItem>> {
        Ok(self.agents.inbox()?)
    }

    pub fn inbox_item(&self, id: &str) -> Result<InboxItem> {
        self.agents.inbox_item(id).map_err(|e| match e {
            knower_agents::Error::Invalid(detail) => Error::NotFound(detail),
            other => other.into(),
        })
    }

    /// The updates sent to the vault and what became of them.
    pub fn updates(&self) -> UpdateLog {
        match &self.queue {
            Some(queue) => UpdateLog::here(self.vault.clone(), queue.clone()),
            None => UpdateLog::of(self.vault.clone()),
        }
    }

    /// In a serving process, vectors follow changes in the background from
    /// the first search that uses them.
    fn follow_vectors(&self, mode: Mode) {
        if mode != Mode::Fast && self.queue.is_some() && self.index.load_model().is_ok() {
            self.embedder.get_or_init(|| {
                // Detached: it ends when the index is dropped.
                let _ = self.index.spawn_embedder();
            });
        }
    }
}

impl Serving {
    /// Stops taking updates, lets the running one finish (for a while; an
    /// unfinished one resumes at the next start), and closes the queue. A
    /// garden cycle under way is left to resume at the next start.
    pub async fn shutdown(self) {
        self.stopping
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let Some(queue) = self.service.queue.clone() else {
            return;
        };
        queue.stop();
        let worker = self.worker;
        let _ = tokio::task::spawn_blocking(move || {
            let deadline = Instant::now() + STOP_GRACE;
            while !worker.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            if worker.is_finished() {
                let _ = worker.join();
            }
            queue.close();
        })
        .await;
    }
}

/// Every prompt in effect for a vault: the agents', and each feature's
/// (no index or model needed to list them).
pub fn prompts(vault: &Vault) -> Vec<Prompt> {
    let mut prompts = knower_agents::prompts(vault);
    prompts.extend(knower_harvest::prompts(vault));
    prompts.extend(knower_chat::prompts(vault));
    prompts.extend(knower_garden::prompts(vault));
    prompts
}

/// Runs blocking work (the agents, the index, the vault) off the event
/// loop: the one helper the service and its surfaces use for it.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Error::Internal(format!("the operation stopped: {e}")))?
}

/// Turns the vault's changes (this process's, the watcher's, other
/// processes') into `file_changed` and `inbox_updated` events. The vault
/// calls listeners on the writer's thread; a thread of its own does the
/// rest.
fn follow_vault(vault: &Arc<Vault>, events: &Arc<Events>) {
    let (sender, receiver) = std::sync::mpsc::channel::<Vec<knower_vault::Changed>>();
    vault.subscribe(move |changed| {
        let _ = sender.send(changed.to_vec());
    });
    let weak = Arc::downgrade(vault);
    let events = events.clone();
    std::thread::Builder::new()
        .name("knower-events".into())
        .spawn(move || {
            while let Ok(batch) = receiver.recv() {
                let mut inbox = false;
                for change in &batch {
                    inbox |= change.path.as_str() == INBOX
                        || change.path.as_str().starts_with(&format!("{INBOX}/"));
                    events.emit(
                        "file_changed",
                        json!({"path": change.path.as_str(), "removed": change.removed}),
                    );
                }
                if inbox && let Some(vault) = weak.upgrade() {
                    let count = knower_agents::inbox_list(&vault).map_or(0, |items| items.len());
                    events.emit("inbox_updated", json!({"count": count}));
                }
            }
        })
        .expect("the events thread starts");
}

/// The longest idempotency key kept.
pub const MAX_KEY_CHARS: usize = 255;

/// An idempotency key is 1 to 255 visible ASCII characters (a UUID, a
/// hash, a counter: what HTTP clients send as `Idempotency-Key`).
pub fn check_key(key: &str) -> Result<()> {
    let fine =
        !key.is_empty() && key.len() <= MAX_KEY_CHARS && key.bytes().all(|b| b.is_ascii_graphic());
    if fine {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "an idempotency key is 1 to {MAX_KEY_CHARS} visible ASCII characters, without spaces (a UUID will do)"
        )))
    }
}
