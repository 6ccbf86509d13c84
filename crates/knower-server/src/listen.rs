//! Accepting connections within bounds. A client that opens connections and
//! sends nothing, or trickles a body a byte at a time, must not hold the
//! server, nor keep its owner from seeing that it is up:
//!
//! - at most [`MAX_CONNECTIONS`] are served at once; past them a small
//!   [`RESERVE`] serves only `/health` and the web UI's page and assets
//!   (headers within [`RESERVE_HEADER_TIMEOUT`]; anything else is answered
//!   503 with `Retry-After` at once), and past that a connection is
//!   answered 503 with `Retry-After` and closed, never left waiting;
//! - headers must arrive within [`HEADER_TIMEOUT`] (also the next
//!   request's on a kept-alive connection);
//! - a body may not stall for longer than [`BODY_STALL_TIMEOUT`]
//!   (`routes::router` applies that one) nor take longer than
//!   [`BODY_DEADLINE`] in all, however it trickles (both answered 408).
//!
//! Long-lived responses (`/sse`, MCP streams) are not bounded: they are the
//! server's to end.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::response::IntoResponse;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// Connections served at once: far more than one person's tabs, tools and
/// live streams, far fewer than the process's file descriptors.
pub const MAX_CONNECTIONS: usize = 256;
/// Connections beyond those, kept for `/health` and the UI.
pub const RESERVE: usize = 32;
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// A reserve connection's headers: `/health` and a page ask at once.
pub const RESERVE_HEADER_TIMEOUT: Duration = Duration::from_secs(1);
pub const BODY_STALL_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest a request's body may take to arrive, in all (64 MiB of
/// attachments at half a megabyte a second).
pub const BODY_DEADLINE: Duration = Duration::from_secs(120);
/// What a refused connection is told to wait before it tries again.
pub const RETRY_AFTER_SECS: u64 = 5;
/// How long requests in flight may take to finish once the server stops.
const GRACE: Duration = Duration::from_secs(5);

pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let reserve = Arc::new(Semaphore::new(RESERVE));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let mut reserved_http = hyper::server::conn::http1::Builder::new();
    reserved_http
        .timer(TokioTimer::new())
        .header_read_timeout(RESERVE_HEADER_TIMEOUT)
        .keep_alive(false);
    tokio::pin!(shutdown);
    loop {
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
        let (slot, builder, only_health) = match slots.clone().try_acquire_owned() {
            Ok(slot) => (slot, &http, false),
            Err(_) => match reserve.clone().try_acquire_owned() {
                Ok(slot) => (slot, &reserved_http, true),
                Err(_) => {
                    tokio::spawn(refuse(stream));
                    continue;
                }
            },
        };
        let router = router.clone();
        let service = tower::service_fn(move |request: hyper::Request<Incoming>| {
            let router = router.clone();
            async move {
                if only_health && !health_or_ui(&request) {
                    return Ok(busy().into_response());
                }
                let request = request.map(|body| Body::new(Deadline::new(body, BODY_DEADLINE)));
                router.oneshot(request).await
            }
        });
        let connection = graceful.watch(
            builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)),
        );
        tokio::spawn(async move {
            let _ = connection.await;
            drop(slot);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(GRACE, graceful.shutdown()).await;
    Ok(())
}

/// What the reserve serves: `/health`, the UI's page and its assets.
fn health_or_ui(request: &hyper::Request<Incoming>) -> bool {
    let path = request.uri().path();
    request.method() == hyper::Method::GET
        && (path == "/health" || path == "/" || path.starts_with("/assets/"))
}

/// 503 with `Retry-After`, for a request the server has no room for now.
fn busy() -> impl IntoResponse {
    (
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        [
            (
                axum::http::header::RETRY_AFTER,
                RETRY_AFTER_SECS.to_string(),
            ),
            (axum::http::header::CONNECTION, "close".to_string()),
        ],
        axum::Json(serde_json::json!({
            "error": "busy",
            "detail": format!("the server is serving as many connections as it can; try again in {RETRY_AFTER_SECS} s"),
        })),
    )
}

/// Answers a connection there is no room for with 503 and closes it,
/// without reading it (the request may never come).
async fn refuse(mut stream: tokio::net::TcpStream) {
    let body = format!(
        "{{\"error\":\"busy\",\"detail\":\"the server is serving as many connections as it can; try again in {RETRY_AFTER_SECS} s\"}}"
    );
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: {RETRY_AFTER_SECS}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

/// A request body with a deadline for all of it: a client trickling a
/// byte every few seconds (which never trips the stall timeout) is cut off
/// once the deadline passes.
pub struct Deadline<B> {
    body: B,
    sleep: Pin<Box<tokio::time::Sleep>>,
}

impl<B> Deadline<B> {
    pub fn new(body: B, within: Duration) -> Deadline<B> {
        Deadline {
            body,
            sleep: Box::pin(tokio::time::sleep(within)),
        }
    }
}

/// The error of a body that passed [`BODY_DEADLINE`].
#[derive(Debug)]
pub struct DeadlinePassed;

impl std::fmt::Display for DeadlinePassed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the body took longer than {} s to arrive",
            BODY_DEADLINE.as_secs()
        )
    }
}

impl std::error::Error for DeadlinePassed {}

impl<B> HttpBody for Deadline<B>
where
    B: HttpBody + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Data = B::Data;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        if this.sleep.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(Box::new(DeadlinePassed))));
        }
        Pin::new(&mut this.body)
            .poll_frame(cx)
            .map(|frame| frame.map(|f| f.map_err(Into::into)))
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body that trickles: a byte whenever asked, after a pause.
    struct Trickle(Pin<Box<tokio::time::Sleep>>);

    impl HttpBody for Trickle {
        type Data = axum::body::Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
            if self.0.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.0 = Box::pin(tokio::time::sleep(Duration::from_millis(10)));
            Poll::Ready(Some(Ok(Frame::data(axum::body::Bytes::from_static(b"x")))))
        }
    }

    #[test]
    fn a_body_that_trickles_is_cut_off_at_its_deadline() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let trickle = Trickle(Box::pin(tokio::time::sleep(Duration::ZERO)));
            let mut body = Deadline::new(trickle, Duration::from_millis(200));
            let started = std::time::Instant::now();
            let mut bytes = 0;
            let error = loop {
                let frame = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await;
                match frame {
                    Some(Ok(_)) => bytes += 1,
                    Some(Err(e)) => break e,
                    None => panic!("a trickle does not end"),
                }
            };
            assert!(error.is::<DeadlinePassed>(), "{error}");
            assert!(bytes > 5, "bytes kept arriving: {bytes}");
            assert!(started.elapsed() < Duration::from_secs(2));
        });
    }
}
