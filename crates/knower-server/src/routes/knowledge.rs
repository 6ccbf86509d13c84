//! The harvest's knowledge folder: `GET /api/knowledge` (the category
//! files, the digest with its size, the ledger) and
//! `POST /api/knowledge/digest/delete` (delete to turn off).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use knower_harvest::Overview;
use serde_json::{Value, json};

use crate::app::App;
use crate::error::ApiError;

pub async fn overview(State(app): State<Arc<App>>) -> Result<Json<Overview>, ApiError> {
    let service = app.service.clone();
    let overview = knower_service::blocking(move || service.knowledge()).await?;
    Ok(Json(overview))
}

/// Deletes `knowledge/digest.md` as the user (journaled, undoable).
pub async fn delete_digest(State(app): State<Arc<App>>) -> Result<Json<Value>, ApiError> {
    let service = app.service.clone();
    let deleted = knower_service::blocking(move || service.delete_digest("user")).await?;
    Ok(Json(json!({"deleted": deleted})))
}
