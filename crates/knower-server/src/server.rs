//! Starting and stopping a server on a vault: the queue and its worker,
//! the watcher, the live events, the HTTP listener, and the run file that
//! tells other `knower` processes where the server is.

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use knower_agents::{Agents, INBOX, Payload};
use knower_index::Index;
use knower_vault::{INTERNAL_DIR, Vault, WatchEvent, Watcher};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::error::ApiError;
use crate::events::Events;
use crate::guard::Guard;
use crate::queue::{Queue, QueueError};
use crate::{routes, worker};

/// The address `knower serve` binds by default.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8000";
/// Where a running server writes its address and pid, under `.knower/`.
pub const RUN_FILE: &str = "server.json";
/// How long a stopping server waits for the running update to finish
/// before leaving it to the next start (which resumes it).
const STOP_GRACE: Duration = Duration::from_secs(10);

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub addr: SocketAddr,
    /// `KNOWER_TOKEN`: required for a non-loopback address.
    pub token: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(
        "{addr} is not a loopback address: set KNOWER_TOKEN so that only holders of the token can use the server"
    )]
    TokenRequired { addr: SocketAddr },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Queue(#[from] QueueError),
    #[error(transparent)]
    Agents(#[from] knower_agents::Error),
    #[error(transparent)]
    Vault(#[from] knower_vault::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// What the handlers share.
pub struct App {
    pub vault: Arc<Vault>,
    pub index: Arc<Index>,
    pub agents: Arc<Agents>,
    pub queue: Arc<Queue>,
    pub events: Arc<Events>,
    pub address: SocketAddr,
    pub started: Instant,
    vectors: std::sync::OnceLock<()>,
}

impl App {
    /// Checks an update (its text, its inbox item) and queues it durably;
    /// returns its id. What `POST /update` and MCP's `update` do.
    pub async fn accept_update(&self, payload: Payload) -> Result<String, ApiError> {
        payload.check()?;
        if let Some(reference) = &payload.inbox_ref {
            // Refused now rather than failing later in the queue.
            knower_agents::inbox_item(&self.vault, reference).map_err(|e| match e {
                knower_agents::Error::Invalid(detail) => ApiError::not_found(detail),
                other => other.into(),
            })?;
        }
        Ok(self
            .queue
            .accept(payload.text, payload.inbox_ref, payload.attachments)
            .await?)
    }

    /// Before a search that uses vectors: the passages written since the
    /// last pass get theirs, and from then on an embedder follows changes.
    pub fn prepare_vectors(&self) {
        if self.index.load_model().is_ok() {
            let _ = self.index.embed_pending(&mut |_, _| {});
            self.vectors.get_or_init(|| {
                // Detached: it ends when the index is dropped.
                let _ = self.index.spawn_embedder();
            });
        }
    }
}

/// A server ready to run: bound, its worker and watcher started.
pub struct Server {
    app: Arc<App>,
    listener: tokio::net::TcpListener,
    guard: Arc<Guard>,
    worker: JoinHandle<()>,
    _watcher: Watcher,
    run_file: PathBuf,
}

/// What `.knower/server.json` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunInfo {
    pub pid: u32,
    pub address: SocketAddr,
    pub url: String,
    pub started_at: String,
    pub version: String,
}

impl Server {
    /// Starts everything but the HTTP loop, which [`Server::run`] runs.
    /// The vault should have been rescanned and the index caught up.
    pub async fn start(
        vault: Arc<Vault>,
        index: Arc<Index>,
        config: ServerConfig,
    ) -> Result<Server, ServeError> {
        if !config.addr.ip().is_loopback() && config.token.is_none() {
            return Err(ServeError::TokenRequired { addr: config.addr });
        }
        let internal = vault.root().join(INTERNAL_DIR);
        let queue = Queue::open(&internal)?;
        let agents = Arc::new(Agents::open(vault.clone(), index.clone())?);
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|source| ServeError::Bind {
                addr: config.addr,
                source,
            })?;
        let address = listener.local_addr()?;
        let events = Events::new();
        follow_vault(&vault, &events);
        let to_events = events.clone();
        queue.observe(Box::new(move |update| {
            to_events.emit(
                "update_status",
                json!({
                    "id": update.id, "state": update.state, "summary": update.summary,
                    "error": update.error, "changed_files": update.changed_files,
                    "outcome": update.outcome, "inbox_id": update.inbox_id,
                    "inbox_ref": update.inbox_ref, "attempt": update.attempt,
                }),
            );
        }));
        let watcher = vault.watch(|event| {
            if let WatchEvent::Failed(e) = event {
                eprintln!("warning: watching the vault: {e}");
            }
        })?;
        let worker = worker::spawn(queue.clone(), agents.clone(), vault.clone());
        let app = Arc::new(App {
            vault: vault.clone(),
            index,
            agents,
            queue,
            events,
            address,
            started: Instant::now(),
            vectors: std::sync::OnceLock::new(),
        });
        let run_file = internal.join(RUN_FILE);
        let info = RunInfo {
            pid: std::process::id(),
            address,
            url: format!("http://{address}"),
            started_at: jiff::Timestamp::now().to_string(),
            version: env!("CARGO_PKG_VERSION").into(),
        };
        let text = serde_json::to_string_pretty(&info).expect("run info serialises");
        std::fs::write(&run_file, text)?;
        Ok(Server {
            guard: Arc::new(Guard {
                loopback: address.ip().is_loopback(),
                token: config.token,
            }),
            app,
            listener,
            worker,
            _watcher: watcher,
            run_file,
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.app.address
    }

    pub fn app(&self) -> &Arc<App> {
        &self.app
    }

    /// Serves until `shutdown` completes, then stops taking requests, lets
    /// the running update finish (for a while), and closes the queue.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let (mcp, stop_mcp) = crate::mcp::service(&self.app);
        let router = routes::router(self.app.clone(), self.guard.clone(), mcp);
        let served = axum::serve(self.listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                // MCP sessions hold streams open; they end with the server.
                stop_mcp.cancel();
            })
            .await;
        let _ = std::fs::remove_file(&self.run_file);
        let queue = self.app.queue.clone();
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
        served
    }
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

/// The server running on the vault at `root`, if any: its run file names a
/// live process.
pub fn running(root: &Path) -> Option<RunInfo> {
    let text = std::fs::read_to_string(root.join(INTERNAL_DIR).join(RUN_FILE)).ok()?;
    let info: RunInfo = serde_json::from_str(&text).ok()?;
    alive(info.pid).then_some(info)
}

/// Whether process `pid` exists (Linux and other systems with /proc; else
/// assumed alive, and the caller's connection attempt decides).
pub fn alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.exists() || proc.join(pid.to_string()).exists()
}
