//! Resources: every text file of the vault (`knower://vault/<path>`) and
//! the knowledge graph as JSON (`knower://graph`). A client can subscribe
//! to any of them, with the 2026 `subscriptions/listen` or the older
//! `resources/subscribe`; a change to the file (for the graph: to a note
//! in `graph/`) sends `notifications/resources/updated`, whoever made it.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use knower_graph::Graph;
use knower_service::Service;
use knower_vault::{EntryKind, VaultPath};
use rmcp::model::{
    ReadResourceResult, Resource, ResourceContents, ResourceUpdatedNotificationParam,
};
use rmcp::service::SubscriptionContext;
use rmcp::{ErrorData, Peer, RoleServer};
use tokio::sync::broadcast;

pub const GRAPH_URI: &str = "knower://graph";
pub const VAULT_URI_PREFIX: &str = "knower://vault/";

/// Files the vault lists as resources: text a model can read.
fn is_text(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [
        ".md",
        ".markdown",
        ".txt",
        ".json",
        ".yaml",
        ".yml",
        ".csv",
        ".toml",
    ]
    .iter()
    .any(|ext| lower.ends_with(ext))
}

pub fn vault_uri(path: &str) -> String {
    let mut uri = String::from(VAULT_URI_PREFIX);
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(byte as char)
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri
}

/// The vault path a `knower://vault/` URI names, decoded.
fn vault_path(uri: &str) -> Option<String> {
    let encoded = uri.strip_prefix(VAULT_URI_PREFIX)?;
    let mut bytes = Vec::with_capacity(encoded.len());
    let mut rest = encoded.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'%' && tail.len() >= 2 {
            let hex = std::str::from_utf8(&tail[..2]).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(first);
            rest = tail;
        }
    }
    let path = String::from_utf8(bytes).ok()?;
    VaultPath::parse(&path).ok().filter(|p| !p.is_root())?;
    Some(path)
}

pub fn is_known(uri: &str) -> bool {
    uri == GRAPH_URI || vault_path(uri).is_some()
}

pub fn list(service: &Service) -> Vec<Resource> {
    let mut graph = Resource::new(GRAPH_URI, "knowledge-graph");
    graph.title = Some("Knowledge graph".into());
    graph.description = Some(
        "Every entity, observation and relation kept in graph/, as the memory server's read_graph returns them"
            .into(),
    );
    graph.mime_type = Some("application/json".into());
    let mut out = vec![graph];
    for (path, entry) in service.entries() {
        if entry.kind != EntryKind::File || !is_text(path.as_str()) {
            continue;
        }
        let mut resource = Resource::new(vault_uri(path.as_str()), path.as_str());
        resource.mime_type = Some(mime(path.as_str()).into());
        resource.size = Some(entry.size);
        out.push(resource);
    }
    out
}

fn mime(path: &str) -> &'static str {
    if path.ends_with(".md") || path.ends_with(".markdown") {
        "text/markdown"
    } else if path.ends_with(".json") {
        "application/json"
    } else {
        "text/plain"
    }
}

pub fn read(service: &Service, graph: &Graph, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    if uri == GRAPH_URI {
        let whole = graph
            .read_graph()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let text = serde_json::to_string_pretty(&whole).expect("the graph serialises");
        return Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, uri).with_mime_type("application/json"),
        ]));
    }
    let missing = || ErrorData::resource_not_found(format!("there is no resource {uri}"), None);
    let path = vault_path(uri).ok_or_else(missing)?;
    let text = service.read(&path).map_err(|e| match e {
        knower_service::Error::Vault(knower_vault::Error::NotFound { .. }) => missing(),
        other => ErrorData::invalid_params(other.to_string(), None),
    })?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type(mime(&path)),
    ]))
}

/// The resources a change to `path` updates.
fn affected(path: &str) -> Vec<String> {
    let mut uris = vec![vault_uri(path)];
    if path.starts_with(&format!("{}/", knower_graph::FOLDER)) {
        uris.push(GRAPH_URI.to_string());
    }
    uris
}

/// The vault's changes, for every session, and this session's legacy
/// `resources/subscribe` subscriptions.
#[derive(Clone)]
pub struct Changes {
    sender: broadcast::Sender<Arc<Vec<String>>>,
    session: Arc<Mutex<Session>>,
}

#[derive(Default)]
struct Session {
    peer: Option<Peer<RoleServer>>,
    uris: BTreeSet<String>,
    forwarding: bool,
}

impl Changes {
    pub fn follow(service: &Service) -> Changes {
        let (sender, _) = broadcast::channel(256);
        let to_sessions = sender.clone();
        service.subscribe(move |changed| {
            let paths = changed
                .iter()
                .map(|c| c.path.as_str().to_string())
                .collect();
            let _ = to_sessions.send(Arc::new(paths));
        });
        Changes {
            sender,
            session: Arc::default(),
        }
    }

    /// The same changes, for a new session with no subscriptions.
    pub fn for_session(&self) -> Changes {
        Changes {
            sender: self.sender.clone(),
            session: Arc::default(),
        }
    }

    pub fn subscribe(&self, uri: String, peer: Peer<RoleServer>) {
        let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        session.uris.insert(uri);
        session.peer = Some(peer);
        if session.forwarding {
            return;
        }
        session.forwarding = true;
        let mut receiver = self.sender.subscribe();
        let state = self.session.clone();
        tokio::spawn(async move {
            loop {
                let paths = match receiver.recv().await {
                    Ok(paths) => paths,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                let (peer, uris) = {
                    let session = state.lock().unwrap_or_else(|e| e.into_inner());
                    (session.peer.clone(), session.uris.clone())
                };
                let Some(peer) = peer else { return };
                for uri in updated(&paths, &uris) {
                    if peer
                        .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                        .await
                        .is_err()
                    {
                        // The session is gone.
                        return;
                    }
                }
            }
        });
    }

    pub fn unsubscribe(&self, uri: &str, _peer: &Peer<RoleServer>) {
        let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        session.uris.remove(uri);
    }

    /// One `subscriptions/listen` stream, until the client cancels it.
    pub async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let wanted: BTreeSet<String> = context
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default()
            .into_iter()
            .collect();
        let mut receiver = self.sender.subscribe();
        loop {
            tokio::select! {
                _ = context.cancelled() => return Ok(()),
                received = receiver.recv() => {
                    let paths = match received {
                        Ok(paths) => paths,
                        Err(broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(broadcast::error::RecvError::Closed) => return Ok(()),
                    };
                    for uri in updated(&paths, &wanted) {
                        if context.sink().notify_resource_updated(uri).await.is_err() {
                            return Ok(());
                        }
                    }
                }
            }
        }
    }
}

/// The subscribed URIs that the changed paths update, each once.
fn updated(paths: &[String], subscribed: &BTreeSet<String>) -> BTreeSet<String> {
    paths
        .iter()
        .flat_map(|path| affected(path))
        .filter(|uri| subscribed.contains(uri))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_and_stay_in_the_vault() {
        let uri = vault_uri("projects/a b/ünï.md");
        assert_eq!(uri, "knower://vault/projects/a%20b/%C3%BCn%C3%AF.md");
        assert_eq!(vault_path(&uri).as_deref(), Some("projects/a b/ünï.md"));
        for outside in [
            "knower://vault/../etc/passwd",
            "knower://vault/%2E%2E/secret",
            "knower://vault//etc/passwd",
            "knower://vault/",
            "file:///etc/passwd",
        ] {
            assert!(!is_known(outside), "{outside}");
        }
        assert!(is_known(GRAPH_URI));
        assert_eq!(
            affected("graph/alice.md"),
            ["knower://vault/graph/alice.md", GRAPH_URI]
        );
    }
}
