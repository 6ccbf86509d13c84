//! `knower status`: the vault, what is pending, the search index, the
//! server, and the files left untouched.

use std::sync::Arc;

use knower_index::{Index, IndexStatus};
use knower_service::Client;
use knower_vault::human_size;
use serde_json::Value;

use crate::context::{Context, block_on};
use crate::output::{Outcome, print_json};

pub fn status(ctx: &Context) -> Outcome {
    let vault = ctx.vault()?;
    let stats = vault.stats()?;
    let pending = vault.pending()?;
    let untouched = vault.untouched();
    let index = Index::open(Arc::clone(&vault))?.status()?;
    let server = server(vault.root());
    let sync = knower_service::sync_status(&vault);
    if ctx.json {
        return print_json(&serde_json::json!({
            "root": vault.root(),
            "server": server,
            "files": stats.files,
            "folders": stats.folders,
            "tokens": stats.tokens,
            "bytes": stats.bytes,
            "last_change": stats.last_change,
            "pending": pending,
            "index": index,
            "problems": stats.problems.iter().map(|(p, why)| serde_json::json!({"path": p, "problem": why})).collect::<Vec<_>>(),
            "untouched": untouched,
            "sync": sync,
        }));
    }
    println!("vault     {}", vault.root().display());
    println!(
        "files     {} in {} folders · {} tokens · {}",
        stats.files,
        stats.folders,
        stats.tokens,
        human_size(stats.bytes)
    );
    match stats.last_change {
        Some(id) => println!("journal   {id} changes recorded (`knower log`)"),
        None => println!("journal   empty"),
    }
    if pending.is_empty() {
        println!("pending   nothing");
    } else {
        println!(
            "pending   {} changed outside Knower, processed by the next command or `knower watch`:",
            pending.len()
        );
        for p in pending.iter().take(20) {
            println!("            {} {}", p.what, p.path);
        }
        if pending.len() > 20 {
            println!("            … and {} more", pending.len() - 20);
        }
    }
    print_index(&index);
    print_server(&server);
    crate::sync::print_status(&sync);
    if stats.problems.is_empty() && untouched.is_empty() {
        println!("problems  none");
    } else {
        println!(
            "problems  {} left untouched:",
            stats.problems.len() + untouched.len()
        );
        for (path, problem) in &stats.problems {
            println!("            {path}: {problem}");
        }
        for item in &untouched {
            println!("            {}: {}", item.path, item.why);
        }
    }
    Ok(())
}

/// The server's part: whether one runs, and what its health says.
fn server(root: &std::path::Path) -> Value {
    let Some(client) = Client::find(root) else {
        return serde_json::json!({"running": false});
    };
    let info = client.info().clone();
    match block_on(client.health()) {
        Ok(health) => {
            serde_json::json!({"running": true, "url": info.url, "pid": info.pid, "queue": health["queue"], "engine": health["engine"]})
        }
        Err(e) => {
            serde_json::json!({"running": true, "url": info.url, "pid": info.pid, "problem": e.to_string()})
        }
    }
}

fn print_server(server: &Value) {
    if server["running"] != true {
        println!("server    not running (`knower start`)");
        return;
    }
    let url = server["url"].as_str().unwrap_or("");
    match server.get("problem") {
        Some(problem) => println!(
            "server    {url} (pid {}) is not answering: {}",
            server["pid"],
            problem.as_str().unwrap_or("")
        ),
        None => println!(
            "server    {url} (pid {}) · {} queued, {} running · {}",
            server["pid"],
            server["queue"]["queued"],
            server["queue"]["running"],
            server["engine"].as_str().unwrap_or("")
        ),
    }
}

fn print_index(status: &IndexStatus) {
    println!(
        "search    {} notes · {} passages indexed",
        status.files, status.chunks
    );
    if !status.languages.is_empty() {
        let languages: Vec<String> = status
            .languages
            .iter()
            .map(|l| format!("{} {}", l.name, l.passages))
            .collect();
        println!("          passages in {}", languages.join(" · "));
    }
    if status.files_pending.is_empty() {
        println!("          keywords up to date");
    } else {
        println!(
            "          {} notes to index (done by the next command or `knower watch`)",
            status.files_pending.len()
        );
    }
    match (&status.model, status.vectors_pending) {
        (Some(model), Some(0)) => println!("          vectors up to date ({model})"),
        (Some(model), Some(n)) => {
            println!(
                "          {n} passages to embed ({model}; `knower watch` or a deep search does it)"
            )
        }
        _ => println!(
            "          no embedding model at hand; deep search uses keywords ({})",
            status.model_problem.as_deref().unwrap_or("unknown")
        ),
    }
    match (&status.reranker, &status.reranker_problem) {
        (Some(dir), _) => println!("          deep search reranked by {dir}"),
        (None, Some(why)) => println!(
            "          no reranker at hand ({why}); the first deep search fetches it if it can"
        ),
        (None, None) => {}
    }
}
