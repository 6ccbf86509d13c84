use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// git failed, in its own words.
    #[error("{0}")]
    Git(String),
    /// The vault or the sync's settings are not as a sync needs them.
    #[error("{0}")]
    Invalid(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Vault(#[from] knower_vault::Error),
    #[error(transparent)]
    Agents(#[from] knower_agents::Error),
}

impl Error {
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            what: what.into(),
            source,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
