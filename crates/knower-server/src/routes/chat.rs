//! The chat over HTTP: `POST /chat` answers with server-sent events (the
//! reply's pieces as they arrive, then the whole exchange with what it
//! changed); `GET /api/chat` the session's exchanges and the artifacts;
//! `POST /api/chat/artifacts/{id}` corrects one, `…/forget` forgets it.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use futures_util::stream;
use knower_chat::{Artifact, Correction, Record};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::app::App;
use crate::error::ApiError;
use crate::render::markdown_to_html;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatRequest {
    message: String,
    /// The session to continue (a new one when absent).
    #[serde(default)]
    session: Option<String>,
}

enum Piece {
    Text(String),
    Done(serde_json::Value),
    Failed(ApiError),
}

pub async fn chat(
    State(app): State<Arc<App>>,
    body: Result<Json<ChatRequest>, JsonRejection>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let Json(request) = body.map_err(ApiError::from)?;
    if request.message.trim().is_empty() {
        return Err(ApiError::bad_request("the message is empty"));
    }
    let session = request
        .session
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(knower_chat::log::new_session);
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<Piece>();
    // A client that goes away stops the reply.
    let cancel = Arc::new(AtomicBool::new(false));
    let pieces = sender.clone();
    let stop = cancel.clone();
    let service = app.service.clone();
    let message = request.message;
    let for_session = session.clone();
    tokio::spawn(async move {
        let outcome = service
            .chat_exchange(for_session, message, cancel, move |text| {
                if pieces.send(Piece::Text(text.to_string())).is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
            })
            .await;
        let _ = sender.send(match outcome {
            Ok(outcome) => {
                let html = markdown_to_html(&outcome.exchange.assistant);
                let mut value = serde_json::to_value(&outcome).unwrap_or_default();
                value["html"] = json!(html);
                Piece::Done(value)
            }
            Err(e) => Piece::Failed(e.into()),
        });
    });
    let start = Event::default()
        .event("session")
        .data(json!({"session": session}).to_string());
    let events = stream::unfold(receiver, |mut receiver| async move {
        let piece = receiver.recv().await?;
        let event = match piece {
            Piece::Text(text) => Event::default()
                .event("delta")
                .data(json!({"text": text}).to_string()),
            Piece::Done(value) => Event::default().event("done").data(value.to_string()),
            Piece::Failed(e) => Event::default()
                .event("error")
                .data(json!({"error": e.code, "detail": e.detail}).to_string()),
        };
        Some((Ok(event), receiver))
    });
    let all = futures_util::StreamExt::chain(stream::iter([Ok(start)]), events);
    Ok(Sse::new(all).keep_alive(KeepAlive::default()))
}

#[derive(Deserialize)]
pub struct HistoryQuery {
    #[serde(default)]
    session: Option<String>,
    #[serde(default = "default_limit")]
    limit: usize,
}

fn default_limit() -> usize {
    50
}

#[derive(Serialize)]
pub struct Overview {
    /// The session shown (the last one when none was asked for).
    session: Option<String>,
    exchanges: Vec<Shown>,
    artifacts: Vec<Artifact>,
    /// Notes in chat/artifacts/ that are not readable as artifacts.
    problems: Vec<String>,
    engine: String,
}

#[derive(Serialize)]
pub struct Shown {
    #[serde(flatten)]
    record: Record,
    html: String,
}

pub async fn overview(
    State(app): State<Arc<App>>,
    Query(query): Query<HistoryQuery>,
) -> Result<Json<Overview>, ApiError> {
    let service = app.service.clone();
    let overview = knower_service::blocking(move || {
        let session = query
            .session
            .filter(|s| !s.is_empty())
            .or_else(|| service.chat_last_session());
        let exchanges = match &session {
            Some(session) => service
                .chat_history(session, query.limit.min(500))
                .into_iter()
                .map(|record| Shown {
                    html: markdown_to_html(&record.assistant),
                    record,
                })
                .collect(),
            None => vec![],
        };
        let (artifacts, problems) = service.chat_artifacts();
        Ok(Overview {
            session,
            exchanges,
            artifacts,
            problems,
            engine: service.chat_engine(),
        })
    })
    .await?;
    Ok(Json(overview))
}

pub async fn correct(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Result<Json<Correction>, JsonRejection>,
) -> Result<Json<Artifact>, ApiError> {
    let Json(correction) = body.map_err(ApiError::from)?;
    let service = app.service.clone();
    let artifact = knower_service::blocking(move || service.chat_correct(&id, correction)).await?;
    Ok(Json(artifact))
}

pub async fn forget(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Artifact>, ApiError> {
    let service = app.service.clone();
    let artifact = knower_service::blocking(move || service.chat_forget(&id)).await?;
    Ok(Json(artifact))
}
