//! The sync over MCP: where the vault stands against its remote, and a
//! sync now (it reaches the remote the user configured, as `knower sync`
//! does).

use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use serde_json::json;

use crate::{Knower, answer};

#[tool_router(router = sync_tools, vis = "pub(crate)")]
impl Knower {
    /// Where the user's vault stands against its git remote: whether sync
    /// is set up, the last sync (when, whether it failed and why), commits
    /// ahead and behind as of the last fetch, paths changed since the last
    /// commit, and sync conflicts waiting in the inbox.
    #[tool(
        name = "sync_status",
        annotations(title = "Sync status", read_only_hint = true, open_world_hint = false)
    )]
    async fn sync_status(&self) -> Result<CallToolResult, ErrorData> {
        let service = self.service.clone();
        answer(
            knower_service::blocking(move || service.sync_status())
                .await
                .map(|status| json!(status))
                .map_err(|e| e.to_string()),
        )
    }

    /// Syncs the user's vault with its git remote now: commits the vault's
    /// changes, merges the other machines' and pushes. Real conflicts keep
    /// both versions and wait in the inbox (`inbox`). Answers what was
    /// sent, received and left for the user.
    #[tool(
        name = "sync",
        annotations(
            title = "Sync the vault",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn sync(&self) -> Result<CallToolResult, ErrorData> {
        answer(
            self.service
                .sync(|_| {})
                .await
                .map(|report| json!(report))
                .map_err(|e| e.to_string()),
        )
    }
}
