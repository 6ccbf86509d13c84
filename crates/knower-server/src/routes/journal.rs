//! The journal: every change to the vault, newest first, and undoing one.

use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Query, State};
use knower_vault::{Author, ChangeRecord};
use serde::{Deserialize, Serialize};

use crate::app::App;
use crate::error::ApiError;

#[derive(Deserialize)]
pub struct LogQuery {
    #[serde(default = "default_limit")]
    limit: usize,
    /// Only changes older than this id (the next page).
    #[serde(default)]
    before: Option<u64>,
}

fn default_limit() -> usize {
    100
}

/// A change as the UI lists it: which files, and whether each was added,
/// modified or deleted (the hashes stay in the journal).
#[derive(Serialize)]
pub struct Change {
    id: u64,
    at: String,
    actor: String,
    reason: String,
    files: Vec<ChangedFile>,
    /// One id (a number) or, for an undone update, several (a list).
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        with = "knower_vault::one_or_many"
    )]
    undoes: Vec<u64>,
}

#[derive(Serialize)]
struct ChangedFile {
    path: String,
    /// `A`, `M` or `D`.
    change: char,
}

impl From<ChangeRecord> for Change {
    fn from(record: ChangeRecord) -> Change {
        Change {
            id: record.id,
            at: record.at,
            actor: record.actor,
            reason: record.reason,
            files: record
                .files
                .iter()
                .map(|f| ChangedFile {
                    path: f.path.to_string(),
                    change: f.letter(),
                })
                .collect(),
            undoes: record.undoes,
        }
    }
}

pub async fn log(
    State(app): State<Arc<App>>,
    Query(query): Query<LogQuery>,
) -> Result<Json<Vec<Change>>, ApiError> {
    let service = app.service.clone();
    let history = knower_service::blocking(move || service.journal()).await?;
    let before = query.before.unwrap_or(u64::MAX);
    Ok(Json(
        history
            .into_iter()
            .rev()
            .filter(|record| record.id < before)
            .take(query.limit.clamp(1, 1000))
            .map(Change::from)
            .collect(),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoRequest {
    id: u64,
    /// Undo even though a file has changed since (the newer content stays
    /// in the journal and can itself be restored).
    #[serde(default)]
    force: bool,
}

/// Undoes one change, as a new journaled change. 409 when a file has
/// changed since and `force` is not set; 200 with `null` when there was
/// nothing left to undo.
pub async fn undo(
    State(app): State<Arc<App>>,
    body: Result<Json<UndoRequest>, JsonRejection>,
) -> Result<Json<Option<Change>>, ApiError> {
    let Json(request) = body.map_err(ApiError::from)?;
    let service = app.service.clone();
    let author = Author::new("user", "from the web UI");
    let record =
        knower_service::blocking(move || service.undo(request.id, &author, request.force)).await?;
    Ok(Json(record.map(Change::from)))
}
