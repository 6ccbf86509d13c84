//! Knower's HTTP server (seed 003's core service): the routes of the HTTP
//! API over [`knower_service::Service`], live events on `/sse`, the MCP
//! service at `/mcp`, and the web UI.
//!
//! Start at [`Server::start`]. The pieces: `app` (what routes share),
//! `routes` (one module per concern), `guard` (Host, Origin, fetch
//! metadata, token), `listen` (the accept loop and its bounds),
//! [`render`] (safe HTML), `assets` (the web UI, compiled in). The queue,
//! its worker and the events live in `knower-service`.

mod app;
mod assets;
mod error;
mod guard;
mod listen;
pub mod render;
mod routes;
mod server;

pub use app::App;
pub use listen::{
    BODY_DEADLINE, BODY_STALL_TIMEOUT, HEADER_TIMEOUT, MAX_CONNECTIONS, RESERVE,
    RESERVE_HEADER_TIMEOUT, RETRY_AFTER_SECS,
};
pub use routes::{MAX_JSON_BYTES, MAX_MULTIPART_BYTES};
pub use server::{
    DEFAULT_ADDR, MIN_TOKEN_BITS, ServeError, Server, ServerConfig, check_access, token_bits,
};
