//! Knower as an MCP server, with the official Rust SDK (`rmcp`).
//!
//! [`Knower`] is one MCP service: Knower's own tools ([`tools`]: `update`,
//! `search`, and the vault's `tree`, `read`, `search_vault`, `write`,
//! `edit`, `append`, `delete`, `move`), the reference memory server's nine
//! knowledge-graph tools ([`memory`]), the features' tools (`harvest`,
//! `chat`, and the gardener's `garden_*`), and resources ([`resources`]: every
//! note, and the graph, which clients can subscribe to). `knower mcp`
//! serves it over stdio ([`serve_stdio`]); `knower serve` mounts
//! [`http_service`] at `/mcp` (streamable HTTP).
//!
//! `update`, `search` and `search_vault` go through
//! [`knower_service::Service`], which decides how an update runs (the
//! server's durable queue, or the agent at once); the vault's tools call
//! the vault's own operations.

mod chat;
mod garden;
mod harvest;
mod memory;
mod resources;
mod stdio;
mod sync;
mod tools;

use std::sync::Arc;

use knower_agents::tools::args::MAX_CONTENT_BYTES;
use knower_graph::Graph;
use knower_service::Service;
use knower_vault::Author;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, tool_handler};
use serde_json::Value;
pub use tokio_util::sync::CancellationToken;

pub use resources::{GRAPH_URI, VAULT_URI_PREFIX};
pub use stdio::{MAX_STDIO_MESSAGE_BYTES, has_null_id, null_id_error, serve_lines, serve_stdio};

/// Knower's MCP service for one vault. Cheap to clone: one per session.
#[derive(Clone)]
pub struct Knower {
    service: Arc<Service>,
    graph: Graph,
    changes: resources::Changes,
    tool_router: ToolRouter<Knower>,
}

impl Knower {
    pub fn new(service: Arc<Service>) -> Knower {
        let changes = resources::Changes::follow(&service);
        Knower {
            graph: service.graph().clone(),
            service,
            changes,
            tool_router: Knower::knower_tools()
                + Knower::memory_tools()
                + Knower::harvest_tools()
                + Knower::chat_tools()
                + Knower::garden_tools()
                + Knower::sync_tools(),
        }
    }

    /// A copy for a new session: the same vault, its own subscriptions.
    pub fn session(&self) -> Knower {
        Knower {
            changes: self.changes.for_session(),
            ..self.clone()
        }
    }

    /// Who a change made through MCP is by, and why.
    fn author(&self, tool: &str, reason: Option<String>) -> Author {
        let reason = reason
            .filter(|r| !r.trim().is_empty())
            .unwrap_or_else(|| format!("{tool} through MCP"));
        Author::new("mcp", reason)
    }
}

/// A tower service answering MCP's streamable HTTP.
pub type HttpService = StreamableHttpService<Knower, LocalSessionManager>;

/// The streamable HTTP endpoint, one [`Knower`] per session, and what
/// ends its sessions at shutdown. `knower serve` mounts it at `/mcp`
/// behind its own Host, Origin and token checks, so the SDK's Host list is
/// not used twice (off loopback it would refuse every client).
pub fn http_service(knower: Knower) -> (HttpService, CancellationToken) {
    let stop = CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_cancellation_token(stop.child_token());
    // Past the tools' own limit, so a big call gets their clear error;
    // beyond this, 413.
    config.max_request_body_bytes = 2 * MAX_CONTENT_BYTES + (64 << 10);
    let service =
        StreamableHttpService::new(move || Ok(knower.session()), Default::default(), config);
    (service, stop)
}

/// Runs blocking vault or index work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    knower_service::blocking(move || work().map_err(knower_service::Error::Invalid))
        .await
        .map_err(|e| e.to_string())
}

/// A tool's answer: the JSON as text (what every client shows) and as
/// structured content.
fn structured(value: Value) -> CallToolResult {
    let text = serde_json::to_string_pretty(&value).expect("JSON serialises");
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// A failure the caller's model should read (not a protocol error).
fn failed(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// A tool's outcome as MCP answers it: `shown` turns a success into the
/// result, a failure becomes a tool error the model reads.
fn result<T>(
    outcome: Result<T, String>,
    shown: impl FnOnce(T) -> CallToolResult,
) -> Result<CallToolResult, ErrorData> {
    Ok(match outcome {
        Ok(value) => shown(value),
        Err(message) => failed(message),
    })
}

fn answer(outcome: Result<Value, String>) -> Result<CallToolResult, ErrorData> {
    result(outcome, structured)
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Knower {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
        .with_server_info(Implementation::new("knower", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Knower is the user's personal memory: a vault of markdown notes. Use `search` to ask \
             it a question (answers cite path:line), `update` to give it information to file, and \
             the vault tools to read and change notes directly; every change is journaled and can \
             be undone. The knowledge-graph tools (create_entities, add_observations, \
             create_relations, search_nodes, open_nodes, read_graph…) keep entities as notes in \
             graph/. `harvest` turns the user's past conversations (Claude Code, Codex, Gemini \
             CLI, ChatGPT and Claude.ai exports) into facts, decisions, questions, playbooks and tasks in \
             knowledge/. `chat` is a conversation that remembers what earlier ones concluded.",
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::list(
            &self.service,
        )))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let (service, graph) = (self.service.clone(), self.graph.clone());
        let uri = request.uri.clone();
        let read = tokio::task::spawn_blocking(move || resources::read(&service, &graph, &uri))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        read.map(Into::into)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            uris.iter()
                .filter(|uri| resources::is_known(uri))
                .cloned()
                .collect()
        });
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.changes.listen(context).await
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !resources::is_known(&request.uri) {
            return Err(ErrorData::resource_not_found(
                format!("there is no resource {}", request.uri),
                None,
            ));
        }
        self.changes.subscribe(request.uri, context.peer);
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.changes.unsubscribe(&request.uri, &context.peer);
        Ok(())
    }
}
