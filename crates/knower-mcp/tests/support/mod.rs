//! A vault with Knower's MCP service on it, and rmcp's client connected
//! over an in-memory pipe.
#![allow(dead_code)]

use std::sync::Arc;

use knower_agents::{Agents, Engine, Settings};
use knower_index::Index;
use knower_mcp::Knower;
use knower_service::Service;
use knower_vault::{Author, Vault, WatchEvent, Watcher};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};

pub use knower_testkit::mcp::Watching;

pub type Client = RunningService<RoleClient, Watching>;

/// A new vault, its service (offline engine, whatever the environment
/// says), and a watcher, as `knower mcp` has.
pub struct Fixture {
    pub vault: Arc<Vault>,
    pub service: Arc<Service>,
    pub knower: Knower,
    _watcher: Watcher,
    /// Last, so the folder goes after everything that watches it.
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        Fixture::with_settings(None)
    }

    /// A fixture whose vault's `knower.toml` is `settings`, written before
    /// the service reads it.
    pub fn with_settings(settings: Option<&str>) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let (vault, _) = Vault::init(dir.path(), &Author::new("test", "init")).unwrap();
        if let Some(settings) = settings {
            vault
                .write("knower.toml", settings, &Author::new("test", "settings"))
                .unwrap();
        }
        let vault = Arc::new(vault);
        let index = Index::open(vault.clone()).unwrap();
        index.catch_up(&mut |_, _| {}).unwrap();
        let watcher = vault
            .watch(|event| {
                if let WatchEvent::Failed(e) = event {
                    eprintln!("watching the vault: {e}");
                }
            })
            .unwrap();
        let agents = Agents::new(
            vault.clone(),
            index.clone(),
            Engine::Offline,
            Settings::default(),
        );
        let service =
            Arc::new(Service::with(vault.clone(), index, Arc::new(agents), None).unwrap());
        Fixture {
            dir,
            knower: Knower::new(service.clone()),
            service,
            vault,
            _watcher: watcher,
        }
    }

    /// One end of a pipe whose other end a new session of the service serves.
    pub fn transport(&self) -> tokio::io::DuplexStream {
        let (client, server) = tokio::io::duplex(1 << 20);
        let session = self.knower.session();
        tokio::spawn(async move {
            if let Ok(running) = session.serve(server).await {
                let _ = running.waiting().await;
            }
        });
        client
    }

    /// A change made by another writer on the vault (as another process
    /// would: its own `Vault`), which this one hears of through its watcher.
    pub fn elsewhere(&self, path: &str, text: &str) {
        let other = Vault::open(self.dir.path()).unwrap();
        other
            .write(path, text, &Author::new("test", "another writer"))
            .unwrap();
    }
}

/// A fixture and a client connected to it.
pub async fn session() -> (Fixture, Client) {
    session_with(None).await
}

pub async fn session_with(settings: Option<&str>) -> (Fixture, Client) {
    let fx = Fixture::with_settings(settings);
    let client = Watching::default()
        .serve(fx.transport())
        .await
        .expect("the MCP session starts");
    (fx, client)
}
