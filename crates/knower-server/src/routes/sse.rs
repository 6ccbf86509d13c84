//! `GET /sse`: the live events, with what a reconnecting client missed.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use futures_util::stream::{self, StreamExt};
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;

use crate::app::App;
use knower_service::events;

/// How often an idle stream carries a heartbeat comment, so proxies and
/// clients can tell a quiet server from a dead connection.
const HEARTBEAT: Duration = Duration::from_secs(15);

#[derive(Deserialize)]
pub struct SseQuery {
    /// For clients that cannot set `Last-Event-ID`.
    #[serde(default)]
    last_event_id: Option<u64>,
}

pub async fn stream(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(query): Query<SseQuery>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let last = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .or(query.last_event_id);
    let subscription = app.service.events().subscribe(last);
    let gap = subscription.gap.then(resync);
    let backlog = stream::iter(
        gap.into_iter()
            .chain(subscription.missed.iter().map(|e| to_sse(e)))
            .map(Ok)
            .collect::<Vec<_>>(),
    );
    let live = stream::unfold(subscription.live, |mut receiver| async move {
        let event = match receiver.recv().await {
            Ok(event) => to_sse(&event),
            // This client fell too far behind: it must reload.
            Err(RecvError::Lagged(_)) => resync(),
            Err(RecvError::Closed) => return None,
        };
        Some((Ok(event), receiver))
    });
    Sse::new(backlog.chain(live)).keep_alive(KeepAlive::new().interval(HEARTBEAT).text("heartbeat"))
}

fn to_sse(event: &events::Event) -> Event {
    Event::default()
        .id(event.id.to_string())
        .event(event.name)
        .data(&event.data)
}

fn resync() -> Event {
    Event::default()
        .event("resync")
        .data(r#"{"reason":"events were missed; reload the tree, the inbox and the open file"}"#)
}
