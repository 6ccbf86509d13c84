//! The sync through git: where the vault stands, and a sync now.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use crate::app::App;
use crate::error::ApiError;

/// Where the vault stands against its remote: last sync, ahead, behind,
/// conflicts waiting.
pub async fn status(State(app): State<Arc<App>>) -> Result<Json<Value>, ApiError> {
    let service = app.service.clone();
    let status = knower_service::blocking(move || service.sync_status()).await?;
    Ok(Json(json!(status)))
}

/// Syncs now and answers with the report when it ends (a client that
/// leaves does not stop it; `/sse` carries its steps as `sync` events).
pub async fn run(State(app): State<Arc<App>>) -> Result<Json<Value>, ApiError> {
    let service = app.service.clone();
    let report = tokio::spawn(async move { service.sync(|_| {}).await })
        .await
        .map_err(|e| ApiError::internal(e.to_string()))??;
    Ok(Json(json!(report)))
}
