//! [`App`]: what every route is given — the service, and where the server
//! listens. Routes import this; it imports no route.

use std::net::SocketAddr;
use std::sync::Arc;

use knower_service::Service;
use knower_vault::Vault;

pub struct App {
    pub service: Arc<Service>,
    pub address: SocketAddr,
}

impl App {
    pub fn vault(&self) -> &Arc<Vault> {
        self.service.vault()
    }
}
