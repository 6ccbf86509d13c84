//! Knower's search index: markdown-aware chunks, BM25 with tantivy,
//! sentence embeddings with candle, and their fusion.
//!
//! The index reads the vault only through [`knower_vault::Vault`] and
//! writes only below `.knower/index/`; it is derived data, rebuilt from the
//! notes whenever it is missing or unreadable.

pub mod analyzer;
mod bm25;
pub mod chunk;
pub mod config;
pub mod embed;
mod encoder;
mod error;
pub mod fusion;
mod index;
pub mod language;
pub mod query;
pub mod rerank;
mod vectors;

pub use config::SearchConfig;
pub use error::{Error, Result};
pub use fusion::{Candidate, Fusion, Fusions, KeepOrder, Rerank, Trace};
pub use index::{CatchUp, Hit, Index, IndexStatus, LanguageCount, Mode, Results, SearchOptions};
