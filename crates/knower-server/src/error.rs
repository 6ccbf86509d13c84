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
