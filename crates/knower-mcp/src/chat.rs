//! The chat over MCP: one message to Knower's chat, which answers from
//! what earlier conversations concluded and the vault, and records what
//! this exchange concludes.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Knower, answer};

#[derive(Deserialize, JsonSchema)]
pub struct ChatArgs {
    /// What to say to Knower, in natural language. "remember that …" also
    /// files the rest in the vault.
    message: String,
    /// The conversation to continue (the `session` of an earlier answer);
    /// a new one when absent.
    #[serde(default)]
    session: Option<String>,
}

#[tool_router(router = chat_tools, vis = "pub(crate)")]
impl Knower {
    /// Talk with Knower's chat, which remembers by conclusions: it answers
    /// from the efforts, facts and events earlier conversations concluded
    /// and from the user's notes (citing `path:line`), and records what this
    /// exchange concludes (an effort opened or resolved, a fact, an event;
    /// listed in `changes`). Pass the returned `session` to continue the
    /// conversation. Use `search` for a one-off question about the notes,
    /// `update` to file information.
    #[tool(
        name = "chat",
        annotations(
            title = "Chat with memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn chat(
        &self,
        Parameters(args): Parameters<ChatArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if args.message.trim().is_empty() {
            return answer(Err("the message is empty".into()));
        }
        let session = args
            .session
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(knower_chat::log::new_session);
        let outcome = self
            .service
            .chat_exchange(
                session,
                args.message,
                Arc::new(AtomicBool::new(false)),
                |_| {},
            )
            .await;
        answer(
            outcome
                .map_err(|e| e.to_string())
                .and_then(|o| serde_json::to_value(o).map_err(|e| e.to_string())),
        )
    }
}
