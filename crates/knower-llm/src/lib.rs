//! Knower's LLM layer: one [`Llm`] that talks to any OpenAI-compatible
//! endpoint (OpenAI, OpenRouter, Ollama, llama.cpp, vLLM, LM Studio) or to
//! Anthropic's Messages API, with native tool calls, image inputs, timeouts,
//! retries with backoff on 429/5xx and token usage; and [`structured`], the
//! contract for model output that must parse into a type: two attempts, the
//! second with a corrective message, then a reported failure.
//!
//! The wire protocols are genai's; this crate decides *which* endpoint, how
//! long to wait, when to retry, and what counts as valid output.

mod client;
mod config;
mod error;
mod schema;
mod structured;

pub use client::{Llm, Reply, Shape, Streamed, Usage, error_chain, install_tls_provider};
pub use config::{LlmConfig, Protocol, Provider};
pub use error::{LlmError, Result};
pub use schema::{is_plain, plain, plain_schema};
pub use structured::{
    MAX_ATTEMPTS, complete_cut_off, corrective_message, parse_json_reply, parse_reply, structured,
    structured_as,
};

/// The conversation types, re-exported so that callers need no direct
/// dependency on genai.
pub mod chat {
    pub use genai::chat::{
        Binary, ChatMessage, ChatRequest, ContentPart, MessageContent, Tool, ToolCall, ToolChoice,
        ToolResponse,
    };
}
