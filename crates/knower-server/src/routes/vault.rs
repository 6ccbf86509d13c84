//! Reading the vault: its tree, a file (raw and rendered), the inbox, and
//! the server's health. Every path goes through the vault's confinement.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use knower_agents::InboxItem;
use knower_vault::{TreeNode, frontmatter};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::app::App;
use crate::error::ApiError;
use crate::render::markdown_to_html;

#[derive(Deserialize)]
pub struct TreeQuery {
    #[serde(default)]
    path: String,
    #[serde(default)]
    depth: Option<usize>,
}

pub async fn tree(
    State(app): State<Arc<App>>,
    Query(query): Query<TreeQuery>,
) -> Result<Json<TreeNode>, ApiError> {
    Ok(Json(app.service.tree(&query.path, query.depth)?))
}

#[derive(Deserialize)]
pub struct PathQuery {
    path: String,
}

#[derive(Serialize)]
pub struct File {
    path: String,
    /// The whole file as stored, frontmatter included.
    markdown: String,
    /// The frontmatter's YAML, when there is some.
    #[serde(skip_serializing_if = "Option::is_none")]
    frontmatter: Option<String>,
    /// The body rendered and sanitised.
    html: String,
    /// The line of the file where the body starts (1-based), so a client
    /// can map a cited line to the rendered text.
    body_line: usize,
}

pub async fn file(
    State(app): State<Arc<App>>,
    Query(query): Query<PathQuery>,
) -> Result<Json<File>, ApiError> {
    let markdown = app.service.read(&query.path)?;
    let (yaml, body) = match frontmatter::split(&markdown) {
        Ok(split) => (
            split.frontmatter.map(|block| block.yaml.to_string()),
            split.body,
        ),
        // Malformed frontmatter: show the whole text rather than guess.
        Err(_) => (None, markdown.as_str()),
    };
    let body_line = markdown[..markdown.len() - body.len()]
        .matches('\n')
        .count()
        + 1;
    let html = markdown_to_html(body);
    Ok(Json(File {
        path: query.path,
        frontmatter: yaml,
        html,
        body_line,
        markdown,
    }))
}

/// Any file's bytes (attached images for the UI). Served as a download
/// unless it is an image, never sniffed, never able to run script.
pub async fn raw(
    State(app): State<Arc<App>>,
    Query(query): Query<PathQuery>,
) -> Result<impl IntoResponse, ApiError> {
    let bytes = app.service.read_bytes(&query.path)?;
    let extension = query
        .path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let image = knower_agents::image_type(&query.path);
    let (content_type, disposition) = match image {
        Some(media) => (media, "inline"),
        None if extension == "md" || extension == "txt" => ("text/plain; charset=utf-8", "inline"),
        None => ("application/octet-stream", "attachment"),
    };
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_DISPOSITION, disposition),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; sandbox",
            ),
        ],
        bytes,
    ))
}

pub async fn inbox(State(app): State<Arc<App>>) -> Result<Json<Vec<InboxItem>>, ApiError> {
    Ok(Json(app.service.inbox()?))
}

pub async fn health(State(app): State<Arc<App>>) -> Json<Value> {
    let (queued, running) = app.service.queue_depth();
    // Reads the index from disk: not on the event loop.
    let service = app.service.clone();
    let index = knower_service::blocking(move || service.index_status())
        .await
        .ok();
    Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "vault": app.service.root(),
        "pid": std::process::id(),
        "address": app.address,
        "engine": app.service.engine_label(),
        "queue": {"queued": queued, "running": running},
        "index": index.map(|s| json!({
            "files": s.files,
            "files_pending": s.files_pending.len(),
            "vectors_pending": s.vectors_pending,
        })),
        "uptime_seconds": app.service.uptime().as_secs(),
    }))
}
