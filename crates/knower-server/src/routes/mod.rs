//! The HTTP routes, one module per concern. Handlers translate requests
//! into calls on the vault, the index, the agents and the queue; they hold
//! no logic of their own.

mod search;
mod sse;
mod updates;
mod vault;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse};
use axum::routing::{get, post};

use crate::error::ApiError;
use crate::guard::{self, Guard};
use crate::server::App;

/// JSON bodies (an update's text is at most 1 MiB).
pub const MAX_JSON_BYTES: usize = 2 << 20;
/// Multipart bodies: text and attached files.
pub const MAX_MULTIPART_BYTES: usize = 64 << 20;

pub fn router(app: Arc<App>, guard: Arc<Guard>) -> Router {
    Router::new()
        .route("/", get(ui))
        .route(
            "/update",
            post(updates::accept).layer(DefaultBodyLimit::max(MAX_MULTIPART_BYTES)),
        )
        .route("/updates", get(updates::list))
        .route("/updates/{id}", get(updates::show))
        .route("/updates/{id}/retry", post(updates::retry))
        .route("/search", post(search::search))
        .route("/sse", get(sse::stream))
        .route("/api/tree", get(vault::tree))
        .route("/api/file", get(vault::file))
        .route("/api/raw", get(vault::raw))
        .route("/api/inbox", get(vault::inbox))
        .route("/health", get(vault::health))
        .fallback(|| async { ApiError::not_found("there is no such route") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "this route does not take that method",
            )
        })
        .layer(DefaultBodyLimit::max(MAX_JSON_BYTES))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(app)
}

/// The web UI's page. The UI itself is a later piece of work; until then
/// the page says what the server offers.
async fn ui() -> impl IntoResponse {
    (
        [(
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
        )],
        Html(include_str!("../../assets/index.html")),
    )
}

async fn security_headers(mut response: axum::response::Response) -> axum::response::Response {
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}
