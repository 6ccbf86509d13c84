//! The MCP client side of tests: a handler for rmcp's client that
//! remembers which resources the server said were updated.

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CallToolResult, ResourceUpdatedNotificationParam};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;
use tokio::sync::{Mutex, Notify};

/// A client that remembers which resources the server said were updated.
#[derive(Clone, Default)]
pub struct Watching {
    pub updated: Arc<Mutex<Vec<String>>>,
    pub heard: Arc<Notify>,
}

impl ClientHandler for Watching {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().await.push(params.uri);
        self.heard.notify_waiters();
    }
}

/// A client session whose handler is `H`.
pub type Session<H> = rmcp::service::RunningService<RoleClient, H>;

/// Calls `tool` with `arguments` (a JSON object); a protocol error fails
/// the test.
pub async fn call<H: ClientHandler>(
    client: &Session<H>,
    tool: &str,
    arguments: Value,
) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// A successful call's structured result.
pub async fn ok<H: ClientHandler>(client: &Session<H>, tool: &str, arguments: Value) -> Value {
    let result = call(client, tool, arguments.clone()).await;
    assert_ne!(
        result.is_error,
        Some(true),
        "{tool} {arguments} failed: {:?}",
        result.content
    );
    result.structured_content.unwrap_or(Value::Null)
}

/// A refused call's message (a tool error the caller's model reads).
pub async fn refused<H: ClientHandler>(
    client: &Session<H>,
    tool: &str,
    arguments: Value,
) -> String {
    let result = call(client, tool, arguments.clone()).await;
    assert_eq!(
        result.is_error,
        Some(true),
        "{tool} {arguments} should fail: {:?}",
        result.structured_content
    );
    serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}
