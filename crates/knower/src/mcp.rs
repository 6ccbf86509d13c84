//! `knower mcp`: Knower's MCP service on stdin/stdout; and `knower graph
//! import|export`, the knowledge graph as the reference memory server's
//! `memory.jsonl`.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use knower_graph::jsonl;
use knower_mcp::Knower;
use knower_vault::{Author, WatchEvent};

use crate::cli::GraphAction;
use crate::context::{ACTOR, Context, IndexUse};
use crate::output::{Failure, Outcome, failure, print_json};

pub fn serve(ctx: &Context) -> Outcome {
    // Standard output is the protocol's: nothing else is printed there.
    let quiet = Context::new(Some(ctx.location()?), true);
    let vault = quiet.vault_or_new("knower mcp")?;
    let (vault, index) = quiet.prepare(vault, IndexUse::Required)?;
    let index = index.expect("a required index is open");
    // Changes made elsewhere (an editor, the CLI, a server) reach the index
    // and the resources' subscribers.
    let _watcher = vault
        .watch(|event| {
            if let WatchEvent::Failed(e) = event {
                eprintln!("warning: watching the vault: {e}");
            }
        })
        .map_err(|e| failure(format!("cannot watch the vault: {e}"), None))?;
    let service = Arc::new(knower_service::Service::local(vault, index)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| failure(format!("cannot start the runtime: {e}"), None))?;
    let served = runtime.block_on(knower_mcp::serve_stdio(Knower::new(service)));
    // Blocking work still running (a long search) must not keep the
    // process alive once the client has gone.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served.map_err(|e| failure(e, None))
}

pub fn graph(ctx: &Context, action: GraphAction) -> Outcome {
    let json = ctx.json;
    let service = ctx.service()?;
    let graph = service.graph();
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

fn read_input(file: &Path) -> Result<String, Failure> {
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
