//! `POST /search`: the search agent's answer, run at once (never queued),
//! alongside whatever update is running.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use knower_agents::Answer;
use knower_index::Mode;
use knower_service::Question;
use knower_service::api::SearchRequest;
use serde::Serialize;

use crate::app::App;
use crate::error::ApiError;
use crate::render::markdown_to_html;

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
    let Json(request) = body.map_err(ApiError::from)?;
    let mode: Mode = request
        .mode
        .as_deref()
        .unwrap_or("fast")
        .parse()
        .map_err(ApiError::bad_request)?;
    let question = Question {
        text: request.query,
        mode,
        scope: request.scope.filter(|s| !s.trim().is_empty()),
    };
    let answer = app.service.ask(question).await?;
    let html = markdown_to_html(&answer.markdown);
    Ok(Json(Rendered { answer, html }))
}
