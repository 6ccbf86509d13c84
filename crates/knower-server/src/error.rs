//! Every error the API returns: a status and JSON `{error, detail}`, where
//! `error` is a stable machine-readable code and `detail` a sentence for
//! people.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub detail: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            detail: detail.into(),
        }
    }

    pub fn bad_request(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", detail)
    }

    pub fn not_found(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", detail)
    }

    pub fn internal(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", detail)
    }
}

/// True when a body's error is its stall timeout
/// (`listen::BODY_STALL_TIMEOUT`) or its deadline (`listen::BODY_DEADLINE`).
pub fn stalled(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if e.is::<tower_http::timeout::TimeoutError>() || e.is::<crate::listen::DeadlinePassed>() {
            return true;
        }
        source = e.source();
    }
    false
}

/// The answer to a body that was too slow to arrive.
pub fn body_stalled() -> ApiError {
    ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "body_stalled",
        format!(
            "the body stopped arriving for {} s, or took more than {} s in all, before its declared end; send it whole",
            crate::listen::BODY_STALL_TIMEOUT.as_secs(),
            crate::listen::BODY_DEADLINE.as_secs()
        ),
    )
}

/// A JSON body refused by axum's extractor, in Knower's words: too large
/// (naming the limit), too slow, or not the JSON the route takes.
impl From<axum::extract::rejection::JsonRejection> for ApiError {
    fn from(e: axum::extract::rejection::JsonRejection) -> ApiError {
        if stalled(&e) {
            return body_stalled();
        }
        match e.status() {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!(
                    "a JSON body is at most {} MiB",
                    crate::routes::MAX_JSON_BYTES >> 20
                ),
            ),
            status => ApiError::new(status, "invalid_json", e.body_text()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(json!({"error": self.code, "detail": self.detail}));
        (self.status, body).into_response()
    }
}

impl From<knower_vault::Error> for ApiError {
    fn from(e: knower_vault::Error) -> ApiError {
        use knower_vault::Error as E;
        let (status, code) = match &e {
            E::NotFound { .. } | E::UnknownChange { .. } => (StatusCode::NOT_FOUND, "not_found"),
            E::InvalidPath { .. } | E::OutsideVault { .. } | E::Symlink { .. } => {
                (StatusCode::BAD_REQUEST, "invalid_path")
            }
            E::IsAFolder { .. } | E::NotAFolder { .. } | E::NotUtf8 { .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "unreadable")
            }
            E::AlreadyExists { .. }
            | E::MalformedFrontmatter { .. }
            | E::Generated { .. }
            | E::TextNotFound { .. }
            | E::Refused(_)
            | E::UndoConflict { .. } => (StatusCode::CONFLICT, "refused"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        ApiError::new(status, code, e.to_string())
    }
}

impl From<knower_service::Error> for ApiError {
    fn from(e: knower_service::Error) -> ApiError {
        use knower_service::{Error as E, Kind};
        match e {
            // The vault's own mistakes keep the vault routes' codes.
            E::Vault(v) | E::Agents(knower_agents::Error::Vault(v)) => v.into(),
            E::Agents(knower_agents::Error::Invalid(detail)) => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", detail)
            }
            other => {
                let detail = other.to_string();
                let (status, code) = match other.kind() {
                    Kind::Invalid => (StatusCode::BAD_REQUEST, "bad_request"),
                    Kind::NotFound => (StatusCode::NOT_FOUND, "not_found"),
                    Kind::Conflict => (StatusCode::CONFLICT, "conflict"),
                    Kind::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
                    Kind::Upstream => (StatusCode::BAD_GATEWAY, "agent_failed"),
                    Kind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
                };
                ApiError::new(status, code, detail)
            }
        }
    }
}
