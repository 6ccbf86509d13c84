//! The HTTP routes, one module per concern. Handlers translate requests
//! into calls on the vault, the index, the agents and the queue; they hold
//! no logic of their own.

mod chat;
mod garden;
mod journal;
mod knowledge;
mod search;
mod sse;
mod sync;
mod updates;
mod vault;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use tower_http::timeout::RequestBodyTimeoutLayer;

use crate::app::App;
use crate::assets;
use crate::error::ApiError;
use crate::guard::{self, Guard};

/// JSON bodies (an update's text is at most 1 MiB).
pub const MAX_JSON_BYTES: usize = 2 << 20;
/// Multipart bodies: text and attached files.
pub const MAX_MULTIPART_BYTES: usize = 64 << 20;

/// Answers a JSON-RPC request to `/mcp` whose `id` is `null` with an error
/// carrying that `null` (the MCP SDK would answer it without an id); every
/// other request passes through with its body as it came.
async fn mcp_null_id(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    if request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    // As much as the largest body the server takes: MCP tools carry up to
    // 4 MiB of content and refuse more themselves, with their own words.
    let bytes = match axum::body::to_bytes(body, MAX_MULTIPART_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!(
                    "an MCP message is at most {} MiB",
                    MAX_MULTIPART_BYTES >> 20
                ),
            )
            .into_response();
        }
    };
    if let Ok(message) = serde_json::from_slice::<serde_json::Value>(&bytes)
        && knower_mcp::has_null_id(&message)
    {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(knower_mcp::null_id_error()),
        )
            .into_response();
    }
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
}

pub fn router(app: Arc<App>, guard: Arc<Guard>, mcp: knower_mcp::HttpService) -> Router {
    Router::new()
        .route_service(
            "/mcp",
            tower::ServiceBuilder::new()
                .layer(axum::middleware::from_fn(mcp_null_id))
                .service(mcp),
        )
        .route("/", get(ui))
        .route("/assets/{name}", get(asset))
        .route(
            "/update",
            post(updates::accept).layer(DefaultBodyLimit::max(MAX_MULTIPART_BYTES)),
        )
        .route("/updates", get(updates::list))
        .route("/updates/{id}", get(updates::show))
        .route("/updates/{id}/retry", post(updates::retry))
        .route("/updates/{id}/undo", post(updates::undo))
        .route("/search", post(search::search))
        .route("/chat", post(chat::chat))
        .route("/api/chat", get(chat::overview))
        .route("/api/chat/artifacts/{id}", post(chat::correct))
        .route("/api/chat/artifacts/{id}/forget", post(chat::forget))
        .route("/sse", get(sse::stream))
        .route("/api/tree", get(vault::tree))
        .route("/api/file", get(vault::file))
        .route("/api/raw", get(vault::raw))
        .route("/api/inbox", get(vault::inbox))
        .route("/api/log", get(journal::log))
        .route("/api/undo", post(journal::undo))
        .route("/api/knowledge", get(knowledge::overview))
        .route(
            "/api/knowledge/digest/delete",
            post(knowledge::delete_digest),
        )
        .route("/api/garden", get(garden::overview))
        .route("/api/garden/topics", post(garden::add_topic))
        .route("/api/garden/approve", post(garden::approve))
        .route("/api/garden/reject", post(garden::reject))
        .route("/api/garden/run", post(garden::run))
        .route("/api/sync", get(sync::status).post(sync::run))
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
        .layer(RequestBodyTimeoutLayer::new(
            crate::listen::BODY_STALL_TIMEOUT,
        ))
        .layer(axum::middleware::from_fn(declared_length))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(app)
}

/// A body declared larger than its route takes is refused before a byte of
/// it is read, rather than read up to the limit (or waited for); a client
/// still sending would otherwise see its connection closed mid-body instead
/// of the answer.
async fn declared_length(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    // MCP messages and multipart updates (text and files) take the larger
    // limit; every other body is JSON.
    let multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/"));
    let (limit, what) = match request.uri().path() {
        "/mcp" => (MAX_MULTIPART_BYTES, "an MCP message"),
        "/update" if multipart => (MAX_MULTIPART_BYTES, "a multipart update"),
        _ => (MAX_JSON_BYTES, "a JSON body"),
    };
    match declared {
        Some(length) if length > limit as u64 => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!(
                "the body declares {length} bytes; {what} is at most {} MiB",
                limit >> 20
            ),
        )
        .into_response(),
        _ => next.run(request).await,
    }
}

/// The web UI's page.
async fn ui() -> impl IntoResponse {
    (
        [
            (
                header::CONTENT_SECURITY_POLICY,
                assets::CONTENT_SECURITY_POLICY,
            ),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Html(assets::INDEX),
    )
}

/// The UI's scripts, styles and icon. `no-cache`: the browser revalidates,
/// so a new binary's UI is picked up at the next load.
async fn asset(Path(name): Path<String>) -> Response {
    match assets::find(&name) {
        Some(asset) => (
            [
                (header::CONTENT_TYPE, asset.content_type),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            asset.body,
        )
            .into_response(),
        None => ApiError::not_found(format!("there is no asset {name}")).into_response(),
    }
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
