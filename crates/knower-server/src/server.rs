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
        "{addr} is not a loopback address: set KNOWER_TOKEN (at least {MIN_TOKEN_BITS} bits, e.g. `openssl rand -hex 32`) so that only holders of the token can use the server"
    )]
    TokenRequired { addr: SocketAddr },
    #[error(
        "KNOWER_TOKEN is too weak for {addr}, a non-loopback address: it holds about {bits} bits where at least {MIN_TOKEN_BITS} are needed; use a long random token, for example KNOWER_TOKEN={suggestion}"
    )]
    WeakToken {
        addr: SocketAddr,
        bits: u32,
        suggestion: String,
    },
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

/// The least a token must hold, in bits, to guard a non-loopback address.
pub const MIN_TOKEN_BITS: u32 = 128;

/// Whether a server may listen on `addr` with `token`: on a loopback
/// address anything goes; on any other a token is required, and a strong
/// one. Callers check before they create anything (`knower serve` on a
/// new vault refuses a weak token with nothing made).
pub fn check_access(addr: SocketAddr, token: Option<&str>) -> Result<(), ServeError> {
    if addr.ip().is_loopback() {
        return Ok(());
    }
    let Some(token) = token else {
        return Err(ServeError::TokenRequired { addr });
    };
    let bits = token_bits(token);
    if bits < MIN_TOKEN_BITS {
        return Err(ServeError::WeakToken {
            addr,
            bits,
            suggestion: suggested_token(),
        });
    }
    Ok(())
}

/// What a token holds, estimated as a guesser would: the alphabet its
/// characters come from (lower case, upper case, digits, other), over at
/// most twice as many characters as it has distinct ones (`aaaa…` is not
/// long, it is one letter), spaces and control characters counting for
/// nothing.
pub fn token_bits(token: &str) -> u32 {
    let chars: Vec<char> = token
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect();
    let distinct = chars.iter().collect::<std::collections::HashSet<_>>().len();
    let alphabet: u32 = [
        (chars.iter().any(char::is_ascii_lowercase), 26),
        (chars.iter().any(char::is_ascii_uppercase), 26),
        (chars.iter().any(char::is_ascii_digit), 10),
        (chars.iter().any(|c| !c.is_ascii_alphanumeric()), 33),
    ]
    .iter()
    .filter(|(present, _)| *present)
    .map(|(_, n)| n)
    .sum();
    if alphabet == 0 {
        return 0;
    }
    let length = chars.len().min(2 * distinct) as f64;
    (length * f64::from(alphabet).log2()) as u32
}

/// 32 random bytes in hex (256 bits), for the message that refuses a weak
/// token.
fn suggested_token() -> String {
    let mut bytes = [0u8; 32];
    match getrandom::fill(&mut bytes) {
        Ok(()) => bytes.iter().map(|b| format!("{b:02x}")).collect(),
        Err(_) => "$(openssl rand -hex 32)".into(),
    }
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
        check_access(config.addr, config.token.as_deref())?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_off_loopback_must_hold_128_bits() {
        let public: SocketAddr = "0.0.0.0:8000".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:8000".parse().unwrap();
        for weak in [
            "a",
            " ",
            "secret",
            "correct horse",
            &"a".repeat(64),
            "0123456789abcdef",
        ] {
            assert!(
                matches!(
                    check_access(public, Some(weak)),
                    Err(ServeError::WeakToken { .. })
                ),
                "{weak:?} is weak"
            );
        }
        // 16 random bytes, in hex or base64, are enough.
        for strong in [
            "3f9a1c7e5b2d8f4061a9c3e7b5d2f8a4",
            "q3Zr7K1xPb9mN2vT8wLc5Q",
            &suggested_token(),
        ] {
            assert!(
                check_access(public, Some(strong)).is_ok(),
                "{strong:?} is strong"
            );
        }
        assert!(matches!(
            check_access(public, None),
            Err(ServeError::TokenRequired { .. })
        ));
        assert!(check_access(local, None).is_ok() && check_access(local, Some("a")).is_ok());
        let refused = check_access(public, Some("a")).unwrap_err().to_string();
        assert!(refused.contains("at least 128"), "{refused}");
        assert!(
            refused.contains("KNOWER_TOKEN="),
            "a token is suggested: {refused}"
        );
    }
}
