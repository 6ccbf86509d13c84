pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Vault(#[from] knower_vault::Error),
    #[error(transparent)]
    Index(#[from] knower_index::Error),
    #[error(transparent)]
    Llm(#[from] knower_llm::LlmError),
    /// The request itself is unusable (empty, too large, unknown inbox item…).
    #[error("{0}")]
    Invalid(String),
    /// `knower.toml`'s `[agents]` section.
    #[error("knower.toml: {0}")]
    Config(String),
}
