use std::time::Duration;

pub type Result<T, E = LlmError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The configuration names no usable provider, model or key.
    #[error("LLM configuration: {0}")]
    Config(String),
    /// The provider answered with an error status (after the retries a 429
    /// or 5xx gets).
    #[error("{provider} answered HTTP {status}: {body}")]
    Status {
        provider: String,
        status: u16,
        body: String,
    },
    #[error("{provider} did not answer within {after:?}")]
    Timeout { provider: String, after: Duration },
    /// No HTTP answer at all: connection refused, reset, DNS, TLS.
    #[error("{provider} could not be reached: {detail}")]
    Transport { provider: String, detail: String },
    /// An answer that is not the protocol's (not JSON, missing fields).
    #[error("{provider} sent a reply Knower cannot read: {detail}")]
    Protocol { provider: String, detail: String },
    /// The model's output could not be used, even after a corrective retry.
    #[error("model output invalid after {attempts} attempts: {detail}")]
    InvalidOutput { attempts: usize, detail: String },
}

impl LlmError {
    /// Whether trying the same request again may succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            LlmError::Status { status, .. } => *status == 429 || *status >= 500,
            LlmError::Timeout { .. } | LlmError::Transport { .. } => true,
            LlmError::Config(_) | LlmError::Protocol { .. } | LlmError::InvalidOutput { .. } => {
                false
            }
        }
    }
}
