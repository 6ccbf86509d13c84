//! An MCP client that remembers which resources the server said were
//! updated (also used by the binary's MCP tests).

use std::sync::Arc;

use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};
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
