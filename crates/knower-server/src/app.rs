//! [`App`]: what every route is given — the service, and where the server
//! listens. Routes import this; it imports no route.

use std::net::SocketAddr;
use std::sync::Arc;

use knower_service::Service;

pub struct App {
    pub service: Arc<Service>,
    pub address: SocketAddr,
}
