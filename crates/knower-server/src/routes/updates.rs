//! `POST /update` and what became of each update.

use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use knower_agents::{Attachment, Payload};
use knower_service::Wait;
use knower_service::api::{Accepted, Update, UpdateRequest};
use serde::Deserialize;

use crate::app::App;
use crate::error::ApiError;
use crate::routes::MAX_JSON_BYTES;
use crate::routes::journal::Change;

/// Takes JSON `{text, inbox_ref?}` or multipart (`text`, `inbox_ref`, and
/// files in any other field), checks it, stores it durably, answers 202;
/// with an `Idempotency-Key` the queue already holds, stores nothing and
/// answers the first update's id.
pub async fn accept(
    State(app): State<Arc<App>>,
    request: Request,
) -> Result<impl IntoResponse, ApiError> {
    // A client that retries a request whose answer it never saw sends the
    // same key, and gets the first update's id.
    let key = match request.headers().get("idempotency-key") {
        None => None,
        Some(value) => Some(
            value
                .to_str()
                .map(str::to_string)
                .map_err(|_| ApiError::bad_request("the Idempotency-Key header is not text"))?,
        ),
    };
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let payload = if content_type.starts_with("multipart/form-data") {
        let multipart = Multipart::from_request(request, &app)
            .await
            .map_err(|e| ApiError::new(e.status(), "bad_multipart", e.body_text()))?;
        read_multipart(multipart).await?
    } else if content_type.starts_with("application/json") {
        // The route admits multipart's size; JSON gets its own, smaller limit.
        let bytes = axum::body::to_bytes(request.into_body(), MAX_JSON_BYTES)
            .await
            .map_err(|e| {
                if crate::error::stalled(&e) {
                    return crate::error::body_stalled();
                }
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "too_large",
                    format!(
                        "a JSON update is at most {MAX_JSON_BYTES} bytes; send files as multipart"
                    ),
                )
            })?;
        let text = utf8_field("the body", bytes)?;
        let body: UpdateRequest = serde_json::from_str(&text).map_err(|e| {
            let status = match e.classify() {
                serde_json::error::Category::Data => StatusCode::UNPROCESSABLE_ENTITY,
                _ => StatusCode::BAD_REQUEST,
            };
            ApiError::new(
                status,
                "invalid_json",
                format!("the body is not a valid update: {e}"),
            )
        })?;
        Payload {
            id: None,
            text: body.text,
            attachments: vec![],
            inbox_ref: body.inbox_ref,
        }
    } else {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send application/json {\"text\": …} or multipart/form-data",
        ));
    };
    let update = app
        .service
        .update_keyed(payload, Wait::Accepted, key)
        .await?;
    Ok((StatusCode::ACCEPTED, Json(Accepted::new(update.id))))
}

async fn read_multipart(mut multipart: Multipart) -> Result<Payload, ApiError> {
    let mut payload = Payload::default();
    let bad = |e: axum::extract::multipart::MultipartError| {
        ApiError::new(e.status(), "bad_multipart", e.body_text())
    };
    while let Some(field) = multipart.next_field().await.map_err(bad)? {
        let name = field.name().unwrap_or("").to_string();
        let file_name = field.file_name().map(str::to_string);
        match (name.as_str(), file_name) {
            ("text", None) => {
                payload.text = utf8_field("`text`", field.bytes().await.map_err(bad)?)?
            }
            ("inbox_ref", None) => {
                let reference = utf8_field("`inbox_ref`", field.bytes().await.map_err(bad)?)?;
                payload.inbox_ref = Some(reference.trim().to_string()).filter(|r| !r.is_empty());
            }
            (_, Some(file_name)) => {
                let bytes = field.bytes().await.map_err(bad)?;
                payload
                    .attachments
                    .push(Attachment::new(&file_name, bytes.to_vec()));
            }
            (other, None) => {
                return Err(ApiError::bad_request(format!(
                    "unknown form field `{other}`: send `text`, `inbox_ref` and files"
                )));
            }
        }
    }
    Ok(payload)
}

/// A form's text field (or a JSON body), refused as JSON with the same bytes would be,
/// rather than taken with replacement characters in place of what was sent.
fn utf8_field(name: &str, bytes: axum::body::Bytes) -> Result<String, ApiError> {
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_utf8",
            format!(
                "{name} is not valid UTF-8 (at byte {}); send text as UTF-8",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[derive(Deserialize)]
pub struct ListQuery {
    #[serde(default = "default_limit")]
    limit: usize,
}

fn default_limit() -> usize {
    50
}

pub async fn list(
    State(app): State<Arc<App>>,
    Query(query): Query<ListQuery>,
) -> Result<Json<Vec<Update>>, ApiError> {
    Ok(Json(
        app.service.updates().recent(query.limit.min(1000)).await?,
    ))
}

pub async fn show(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Update>, ApiError> {
    Ok(Json(app.service.updates().get(&id).await?))
}

pub async fn retry(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, ApiError> {
    app.service.updates().retry(&id).await?;
    Ok((StatusCode::ACCEPTED, Json(Accepted::new(id))))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct UndoUpdate {
    /// Undo even though lines the update wrote were changed since.
    #[serde(default)]
    force: bool,
}

/// Takes back everything update `id` changed, as one journaled change.
/// 409 when lines it wrote were changed since and `force` is not set.
pub async fn undo(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Result<Json<UndoUpdate>, JsonRejection>,
) -> Result<Json<Change>, ApiError> {
    let request = match body {
        Ok(Json(request)) => request,
        // An empty body asks for a plain undo.
        Err(JsonRejection::MissingJsonContentType(_)) => UndoUpdate::default(),
        Err(e) => return Err(e.into()),
    };
    let record = app
        .service
        .updates()
        .undo(&id, "user", request.force)
        .await?;
    Ok(Json(Change::from(record)))
}
