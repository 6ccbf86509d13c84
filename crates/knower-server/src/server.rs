//! Starting and stopping a server on a vault: the service with its queue
//! and worker, the watcher, the HTTP listener with `/mcp` mounted, and the
//! run file that tells other `knower` processes where the server is.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use knower_index::Index;
use knower_service::{RunFile, Serving};
use knower_vault::{Vault, WatchEvent, Watcher};

use crate::app::App;
use crate::guard::Guard;
use crate::listen;
use crate::routes;

/// The address `knower serve` binds by default.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8000";

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
    Service(#[from] knower_service::Error),
    #[error(transparent)]
    Vault(#[from] knower_vault::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// A server ready to run: bound, its worker and watcher started.
pub struct Server {
    app: Arc<App>,
    serving: Serving,
    listener: tokio::net::TcpListener,
    guard: Arc<Guard>,
    _watcher: Watcher,
    run_file: RunFile,
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
        let serving = knower_service::Service::serve(vault.clone(), index)?;
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|source| ServeError::Bind {
                addr: config.addr,
                source,
            })?;
        let address = listener.local_addr()?;
        let watcher = vault.watch(|event| {
            if let WatchEvent::Failed(e) = event {
                eprintln!("warning: watching the vault: {e}");
            }
        })?;
        let app = Arc::new(App {
            service: serving.service.clone(),
            address,
        });
        let run_file = RunFile::create(vault.root(), address)?;
        Ok(Server {
            guard: Arc::new(Guard {
                loopback: address.ip().is_loopback(),
                token: config.token,
            }),
            app,
            serving,
            listener,
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
        let (mcp, stop_mcp) =
            knower_mcp::http_service(knower_mcp::Knower::new(self.app.service.clone()));
        let router = routes::router(self.app.clone(), self.guard.clone(), mcp);
        let served = listen::serve(self.listener, router, async move {
            shutdown.await;
            // MCP sessions hold streams open; they end with the server.
            stop_mcp.cancel();
        })
        .await;
        self.run_file.remove();
        self.serving.shutdown().await;
        served
    }
}
