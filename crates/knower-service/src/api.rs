//! The server's HTTP API as types: what the routes of `knower-server`
//! read and answer, and what [`crate::Client`] sends and reads back. One
//! definition for both ends, so they cannot drift apart.

use serde::{Deserialize, Serialize};

pub use crate::queue::{Details, State, Update};

/// `POST /update` as JSON (multipart carries the same fields, plus files).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateRequest {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbox_ref: Option<String>,
}

/// `202` to `POST /update` and `POST /updates/{id}/retry`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Accepted {
    /// Always `accepted`.
    pub status: String,
    pub id: String,
}

impl Accepted {
    pub fn new(id: String) -> Accepted {
        Accepted {
            status: "accepted".into(),
            id,
        }
    }
}

/// `POST /search`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    pub query: String,
    /// `fast` (default), `deep` or `vector`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// `project:NAME` or a folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// Every error the API answers, with a 4xx or 5xx status.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ErrorBody {
    /// A stable code: `invalid`, `not_found`, `refused`, `unavailable`…
    pub error: String,
    /// A sentence for people.
    pub detail: String,
}
