//! What can go wrong when a surface calls the service, sorted by whose
//! mistake it is ([`Kind`]), so that HTTP answers a status that means
//! something, MCP a tool error, and the CLI a line with a hint.

use crate::queue::QueueError;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request cannot be done as asked; the sentence says what to change.
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Vault(#[from] knower_vault::Error),
    #[error(transparent)]
    Index(#[from] knower_index::Error),
    #[error(transparent)]
    Agents(#[from] knower_agents::Error),
    #[error(transparent)]
    Queue(#[from] QueueError),
    #[error(transparent)]
    Harvest(#[from] knower_harvest::HarvestError),
    #[error(transparent)]
    Chat(#[from] knower_chat::ChatError),
    #[error(transparent)]
    Garden(#[from] knower_garden::GardenError),
    #[error(transparent)]
    Sync(#[from] knower_sync::Error),
    /// The server running on the vault refused or failed the request.
    #[error("{message}")]
    Remote {
        message: String,
        hint: Option<String>,
        kind: Kind,
    },
    #[error("{0}")]
    Internal(String),
}

/// Whose mistake, or what kind of trouble.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The caller's: a bad argument, an empty text, a path outside the vault.
    Invalid,
    NotFound,
    /// Refused by the vault's rules (a file changed since, text not found).
    Conflict,
    /// Busy or stopped: try again later.
    Unavailable,
    /// The model (or the server the CLI talks to) failed.
    Upstream,
    Internal,
}

impl Error {
    pub fn kind(&self) -> Kind {
        match self {
            Error::Invalid(_) => Kind::Invalid,
            Error::NotFound(_) => Kind::NotFound,
            Error::Vault(e) => vault_kind(e),
            Error::Index(e) => index_kind(e),
            Error::Agents(e) => match e {
                knower_agents::Error::Vault(v) => vault_kind(v),
                knower_agents::Error::Index(i) => index_kind(i),
                knower_agents::Error::Invalid(_) => Kind::Invalid,
                knower_agents::Error::Config(_) => Kind::Internal,
                knower_agents::Error::Llm(_) => Kind::Upstream,
            },
            Error::Queue(e) => match e {
                QueueError::Full | QueueError::Closed | QueueError::Busy => Kind::Unavailable,
                QueueError::Unknown(_) => Kind::NotFound,
                QueueError::NotFailed { .. } => Kind::Conflict,
                QueueError::Damaged { .. } | QueueError::Io(_) => Kind::Internal,
            },
            Error::Harvest(knower_harvest::HarvestError::Invalid(_)) => Kind::Invalid,
            Error::Harvest(knower_harvest::HarvestError::Vault(v)) => vault_kind(v),
            Error::Chat(e) => match e {
                knower_chat::ChatError::Invalid(_) => Kind::Invalid,
                knower_chat::ChatError::Vault(v) => vault_kind(v),
                knower_chat::ChatError::Agents(knower_agents::Error::Invalid(_)) => Kind::Invalid,
                knower_chat::ChatError::Agents(knower_agents::Error::Llm(_))
                | knower_chat::ChatError::Llm(_) => Kind::Upstream,
                _ => Kind::Internal,
            },
            Error::Garden(e) => match e {
                knower_garden::GardenError::Invalid(_) => Kind::Invalid,
                knower_garden::GardenError::Busy => Kind::Unavailable,
                knower_garden::GardenError::Io(_) => Kind::Internal,
                knower_garden::GardenError::Vault(v) => vault_kind(v),
            },
            Error::Sync(e) => match e {
                knower_sync::Error::Invalid(_) => Kind::Invalid,
                // The remote, or git reaching it, failed.
                knower_sync::Error::Git(_) => Kind::Upstream,
                knower_sync::Error::Vault(v) => vault_kind(v),
                _ => Kind::Internal,
            },
            Error::Remote { kind, .. } => *kind,
            Error::Internal(_) => Kind::Internal,
        }
    }

    /// What the person who asked can do about it, when there is something.
    pub fn hint(&self) -> Option<String> {
        let hint = match self {
            Error::Vault(e) => e.hint(),
            Error::Index(e) => e.hint(),
            Error::Agents(knower_agents::Error::Llm(knower_llm::LlmError::Config(_))) => {
                Some("set KNOWER_LLM=provider:model (or `off`), or fix [llm] in knower.toml")
            }
            Error::Agents(knower_agents::Error::Vault(v)) => v.hint(),
            Error::Harvest(knower_harvest::HarvestError::Vault(v)) => v.hint(),
            Error::Garden(knower_garden::GardenError::Vault(v)) => v.hint(),
            Error::Garden(knower_garden::GardenError::Busy) => {
                Some("wait for it to finish (`knower garden list` says when the last one ran)")
            }
            Error::Agents(knower_agents::Error::Index(i)) => i.hint(),
            Error::Sync(knower_sync::Error::Git(_)) => Some(
                "the sync runs the `git` program: check the remote with `git -C VAULT fetch`; \
                 nothing was lost, the next `knower sync` picks up where this one stopped",
            ),
            Error::Remote { hint, .. } => return hint.clone(),
            _ => None,
        };
        hint.map(str::to_string)
    }
}

fn vault_kind(e: &knower_vault::Error) -> Kind {
    use knower_vault::Error as E;
    match e {
        E::NotFound { .. } | E::UnknownChange { .. } => Kind::NotFound,
        E::InvalidPath { .. }
        | E::OutsideVault { .. }
        | E::Symlink { .. }
        | E::IsAFolder { .. }
        | E::NotAFolder { .. }
        | E::NotUtf8 { .. } => Kind::Invalid,
        E::AlreadyExists { .. }
        | E::MalformedFrontmatter { .. }
        | E::Generated { .. }
        | E::TextNotFound { .. }
        | E::Refused(_)
        | E::UndoConflict { .. } => Kind::Conflict,
        _ => Kind::Internal,
    }
}

fn index_kind(e: &knower_index::Error) -> Kind {
    use knower_index::Error as E;
    match e {
        E::Vault(v) => vault_kind(v),
        E::BadQuery(_) => Kind::Invalid,
        _ => Kind::Internal,
    }
}
