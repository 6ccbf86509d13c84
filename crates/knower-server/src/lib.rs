//! Knower's HTTP server (seed 003's core service): `POST /update` stores
//! an update durably and answers at once; one worker runs the updates in
//! order with the update agent; `POST /search` runs the search agent
//! alongside; `GET /sse` streams what changes; `/api/*` reads the vault.
//!
//! Start at [`Server::start`]. The pieces: [`queue`] (the durable queue),
//! `worker` (runs it), [`events`] (live events with replay), `routes`,
//! `guard` (Host, Origin, token), [`render`] (safe HTML), `assets` (the
//! web UI, compiled in).

mod assets;
mod error;
pub mod events;
mod guard;
mod mcp;
pub mod queue;
pub mod render;
mod routes;
mod server;
mod worker;

pub use queue::{Queue, QueueError, State, Update};
pub use routes::{MAX_JSON_BYTES, MAX_MULTIPART_BYTES};
pub use server::{
    App, DEFAULT_ADDR, RUN_FILE, RunInfo, ServeError, Server, ServerConfig, alive, running,
};
