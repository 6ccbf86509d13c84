//! `knower mcp`: Knower's MCP service on stdin/stdout; and `knower graph
//! import|export`, the knowledge graph as the reference memory server's
//! `memory.jsonl`.

use std::future::Future;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use knower_agents::{Agents, Payload};
use knower_graph::{Graph, jsonl};
use knower_mcp::{Knower, Updates};
use knower_vault::{Author, Vault, WatchEvent};
use serde_json::{Value, json};

use crate::cli::GraphAction;
use crate::commands::{ACTOR, Outcome, failure, print_json};
use crate::server::Remote;

/// `update` from an MCP client: through the queue of a server running on
/// the vault, else filed at once by the agent, as `knower update` does.
struct Direct {
    root: PathBuf,
    agents: Arc<Agents>,
}

impl Updates for Direct {
    fn submit(
        &self,
        text: String,
        inbox_ref: Option<String>,
    ) -> Pin<Box<dyn Future<Output = Result<Value, String>> + Send + '_>> {
        Box::pin(async move {
            let root = self.root.clone();
            let agents = self.agents.clone();
            let runtime = tokio::runtime::Handle::current();
            tokio::task::spawn_blocking(move || match Remote::find(&root) {
                Some(remote) => {
                    let id = remote
                        .submit(text, inbox_ref, vec![])
                        .map_err(|e| e.message)?;
                    Ok(json!({"status": "accepted", "id": id}))
                }
                None => {
                    let payload = Payload {
                        inbox_ref,
                        ..Payload::text(text)
                    };
                    let report = runtime
                        .block_on(agents.update(payload))
                        .map_err(|e| e.to_string())?;
                    let mut value = serde_json::to_value(report).map_err(|e| e.to_string())?;
                    value["status"] = json!("done");
                    Ok(value)
                }
            })
            .await
            .map_err(|e| format!("the update stopped: {e}"))?
        })
    }
}

pub fn serve(vault: Arc<Vault>) -> Outcome {
    let index = crate::search::open_index(&vault)?;
    index.catch_up(&mut |_, _| {})?;
    let agents = Arc::new(Agents::open(vault.clone(), index.clone())?);
    // Changes made elsewhere (an editor, the CLI, a server) reach the index
    // and the resources' subscribers.
    let _watcher = vault
        .watch(|event| {
            if let WatchEvent::Failed(e) = event {
                eprintln!("warning: watching the vault: {e}");
            }
        })
        .map_err(|e| failure(format!("cannot watch the vault: {e}"), None))?;
    let updates = Arc::new(Direct {
        root: vault.root().to_path_buf(),
        agents: agents.clone(),
    });
    let knower = Knower::new(vault, index, agents, updates);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| failure(format!("cannot start the runtime: {e}"), None))?;
    let served = runtime.block_on(knower_mcp::serve_stdio(knower));
    // Blocking work still running (a long search) must not keep the
    // process alive once the client has gone.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served.map_err(|e| failure(e, None))
}

pub fn graph(vault: Arc<Vault>, action: GraphAction, json: bool) -> Outcome {
    let graph = Graph::new(vault);
    match action {
        GraphAction::Import { file } => {
            let text = read_input(&file)?;
            let parsed = jsonl::parse(&text).map_err(|e| {
                failure(
                    format!("{} is not a memory.jsonl: {e}", file.display()),
                    Some("each line is {\"type\":\"entity\",…} or {\"type\":\"relation\",…}"),
                )
            })?;
            let author = Author::new(ACTOR, format!("knower graph import {}", file.display()));
            let report = graph
                .import(parsed, &author)
                .map_err(|e| failure(e.to_string(), None))?;
            if json {
                return print_json(&report);
            }
            println!(
                "imported {} entities, {} observations and {} relations into graph/",
                report.entities, report.observations, report.relations
            );
            for skipped in &report.skipped_relations {
                eprintln!(
                    "skipped: {} {} {} (no such entity)",
                    skipped.from, skipped.relation_type, skipped.to
                );
            }
            Ok(())
        }
        GraphAction::Export { output } => {
            let whole = graph
                .read_graph()
                .map_err(|e| failure(e.to_string(), None))?;
            let text = jsonl::render(&whole);
            match output {
                Some(path) => std::fs::write(&path, text)
                    .map_err(|e| failure(format!("cannot write {}: {e}", path.display()), None)),
                None => {
                    print!("{text}");
                    Ok(())
                }
            }
        }
    }
}

fn read_input(file: &Path) -> Result<String, crate::commands::Failure> {
    if file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| failure(format!("cannot read standard input: {e}"), None))?;
        return Ok(text);
    }
    std::fs::read_to_string(file)
        .map_err(|e| failure(format!("cannot read {}: {e}", file.display()), None))
}
