//! Errors of the index, each with what to do about it.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Vault(#[from] knower_vault::Error),
    #[error("search index: {0}")]
    Index(#[from] tantivy::TantivyError),
    #[error("query: {0}")]
    BadQuery(String),
    #[error("model at {path}: {message}")]
    Model { path: PathBuf, message: String },
    #[error("no embedding model: {0}")]
    NoModel(String),
    #[error("{path}: {message}")]
    Config { path: String, message: String },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Error::Vault(e) => e.hint(),
            Error::Index(_) => Some("`knower reindex` rebuilds the index from the notes"),
            Error::BadQuery(_) => Some(
                "scope is project:NAME or a folder inside the vault; words, \"phrases\", prefix*, -excluded",
            ),
            Error::Model { .. } => Some(
                "a model folder holds config.json, tokenizer.json and model.safetensors (set KNOWER_MODEL or [search] model in knower.toml)",
            ),
            Error::NoModel(_) => Some(
                "to add one, set KNOWER_MODEL (or [search] model in knower.toml) to a model folder with config.json, tokenizer.json and model.safetensors, or run once with access to huggingface.co",
            ),
            Error::Config { .. } => Some("see README.md, section Configuration"),
            Error::Io { .. } => None,
        }
    }

    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let context = context.into();
        move |source| Error::Io { context, source }
    }
}
