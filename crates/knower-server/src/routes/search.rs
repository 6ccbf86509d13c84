//! `POST /search`: the search agent's answer, run at once (never queued),
//! alongside whatever update is running.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use knower_agents::Answer;
use knower_index::Mode;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::render::markdown_to_html;
use crate::server::App;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    query: String,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

/// The agent's answer, and its markdown rendered and sanitised for the UI.
#[derive(Serialize)]
pub struct Rendered {
    #[serde(flatten)]
    answer: Answer,
    html: String,
}

pub async fn search(
    State(app): State<Arc<App>>,
    body: Result<Json<SearchRequest>, JsonRejection>,
) -> Result<Json<Rendered>, ApiError> {
    let Json(request) =
        body.map_err(|e| ApiError::new(e.status(), "invalid_json", e.body_text()))?;
    let mode: Mode = request
        .mode
        .as_deref()
        .unwrap_or("fast")
        .parse()
        .map_err(ApiError::bad_request)?;
    let scope = request.scope.filter(|s| !s.trim().is_empty());
    // The agents read the vault and the index synchronously: a blocking
    // thread keeps the server's event loop free.
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        if mode != Mode::Fast {
            app.prepare_vectors();
        }
        runtime.block_on(
            app.agents
                .ask_within(&request.query, mode, scope.as_deref()),
        )
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
    .map(|answer| {
        let html = markdown_to_html(&answer.markdown);
        Json(Rendered { answer, html })
    })
    .map_err(ApiError::from)
}
