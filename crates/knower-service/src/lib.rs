//! Knower's service layer: **one way in** for every surface.
//!
//! The CLI, the HTTP server and both MCP transports call [`Service`] to
//! send an update, answer the inbox, ask a question or search. It alone
//! decides how an update runs — into this process's durable [`queue`]
//! (`knower serve`), into the queue of a server running on the vault (over
//! HTTP, with [`Client`]), or through the agent at once — and every way
//! returns the same [`Update`]. Its methods are async and keep the blocking
//! work (vault, index, agents) off the caller's event loop.
//!
//! The pieces: [`queue`] (the durable update queue), `worker` (runs it),
//! [`events`] (live events with replay, for `/sse`), [`api`] (the HTTP
//! API's types, shared by `knower-server`'s routes and [`Client`]), `run`
//! (where a running server says it is).

pub mod api;
mod client;
mod error;
pub mod events;
pub mod queue;
mod run;
mod service;
mod updates;
mod worker;

pub use api::{Details, State, Update};
pub use client::{Client, token};
pub use error::{Error, Kind, Result};
pub use events::Events;
pub use queue::{Queue, QueueError};
pub use run::{RunFile, RunInfo, alive, log_path, running};
pub use service::{
    ChatOutcome, MAX_KEY_CHARS, Question, Service, Serving, Wait, blocking, check_key, prompts,
    sync_status,
};
pub use updates::UpdateLog;
