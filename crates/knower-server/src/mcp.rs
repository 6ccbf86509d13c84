//! `/mcp`: Knower's MCP service (`knower_mcp`) over streamable HTTP, with
//! `update` going through this server's durable queue like `POST /update`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use knower_agents::Payload;
use knower_mcp::{CancellationToken, Knower, Updates};
use serde_json::{Value, json};

use crate::server::App;

struct Queued(Arc<App>);

impl Updates for Queued {
    fn submit(
        &self,
        text: String,
        inbox_ref: Option<String>,
    ) -> Pin<Box<dyn Future<Output = Result<Value, String>> + Send + '_>> {
        Box::pin(async move {
            let payload = Payload {
                inbox_ref,
                ..Payload::text(text)
            };
            let id = self.0.accept_update(payload).await.map_err(|e| e.detail)?;
            Ok(json!({"status": "accepted", "id": id}))
        })
    }
}

pub type Service = knower_mcp::HttpService;

/// The service to mount, and the token that ends its sessions.
pub fn service(app: &Arc<App>) -> (Service, CancellationToken) {
    let knower = Knower::new(
        app.vault.clone(),
        app.index.clone(),
        app.agents.clone(),
        Arc::new(Queued(app.clone())),
    );
    knower_mcp::http_service(knower)
}
