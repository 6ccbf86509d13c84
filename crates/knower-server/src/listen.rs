//! Accepting connections within bounds. A client that opens connections and
//! sends nothing, or declares a body and never sends it, must not hold the
//! server: at most [`MAX_CONNECTIONS`] are served at once (more wait in the
//! kernel's queue), headers must arrive within [`HEADER_TIMEOUT`] — also
//! the next request's on a kept-alive connection — and a body may not stall
//! for longer than [`BODY_STALL_TIMEOUT`] (`routes::router` applies that
//! one). Long-lived responses (`/sse`, MCP streams) are not bounded: they
//! are the server's to end.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// Connections served at once: far more than one person's tabs, tools and
/// live streams, far fewer than the process's file descriptors.
pub const MAX_CONNECTIONS: usize = 256;
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
pub const BODY_STALL_TIMEOUT: Duration = Duration::from_secs(10);
/// How long requests in flight may take to finish once the server stops.
const GRACE: Duration = Duration::from_secs(5);

pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            () = &mut shutdown => break,
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
        };
        let stream = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors, or a connection reset before it was
                // taken: wait a moment rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let service = router
            .clone()
            .map_request(|request: hyper::Request<Incoming>| request.map(Body::new));
        let connection = graceful
            .watch(http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)));
        tokio::spawn(async move {
            let _ = connection.await;
            drop(slot);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(GRACE, graceful.shutdown()).await;
    Ok(())
}
