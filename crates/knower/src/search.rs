//! The search commands: `search`, `reindex`, and the index's part of
//! `status`, over the knower-index crate.

use std::io::IsTerminal;
use std::sync::Arc;

use knower_index::{Hit, Index, IndexStatus, Mode, SearchOptions};
use knower_vault::Vault;

use crate::cli::ModeArg;
use crate::commands::{Failure, Outcome, print_json, progress_bar};

/// Opens the vault's index and subscribes it to the vault's changes.
pub fn open_index(vault: &Arc<Vault>) -> Result<Arc<Index>, Failure> {
    Ok(Index::open(vault.clone())?)
}

/// Brings the index up to date with the files, with a progress bar when
/// that takes a while (the first time, or after a rebuild).
pub fn catch_up(index: &Index, json: bool) -> Outcome {
    let report = index.catch_up(&mut progress_bar("indexing notes for search", json))?;
    if !json && report.rebuilt {
        eprintln!(
            "note: the search index was damaged or of another version; rebuilt it from the notes"
        );
    }
    Ok(())
}

/// Problems the index met while following changes (it repairs itself at
/// the next catch-up, but the user should know).
pub fn warn_problems(index: &Index) {
    for problem in index.take_problems() {
        eprintln!("warning: search index: {problem}");
    }
}

/// The search mode asked for; for a mode that uses vectors, the passages
/// written since the last embedding pass get theirs first, so the search
/// sees the vault as it is.
pub fn prepare(index: &Index, mode: ModeArg, json: bool) -> Result<Mode, Failure> {
    let mode = match mode {
        ModeArg::Fast => Mode::Fast,
        ModeArg::Deep => Mode::Deep,
        ModeArg::Vector => Mode::Vector,
    };
    index.prepare(mode, &mut progress_bar("embedding new passages", json))?;
    Ok(mode)
}

pub fn search(
    index: &Index,
    query: &str,
    mode: ModeArg,
    scope: Option<String>,
    limit: usize,
    explain: bool,
    json: bool,
) -> Outcome {
    let mode = prepare(index, mode, json)?;
    let options = SearchOptions { mode, scope, limit };
    let mut results = index.search(query, &options)?;
    if let Some(notice) = &results.notice {
        eprintln!("note: {notice}");
    }
    if !explain {
        for hit in &mut results.hits {
            hit.explain = None;
        }
    }
    if json {
        return print_json(&results.hits);
    }
    if results.hits.is_empty() {
        println!("no passage matches");
        return Ok(());
    }
    let terminal = std::io::stdout().is_terminal();
    for (rank, hit) in results.hits.iter().enumerate() {
        print_hit(rank + 1, hit, terminal, explain);
    }
    Ok(())
}

fn print_hit(rank: usize, hit: &Hit, terminal: bool, explain: bool) {
    let (bold, plain) = if terminal {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("", "")
    };
    let heading = if hit.heading.is_empty() {
        String::new()
    } else {
        format!("  {}", hit.heading)
    };
    println!(
        "{rank:>2}. {bold}{}:{}{plain}{heading}",
        hit.path, hit.line_start
    );
    println!("    {}", marked(hit, terminal));
    if explain && let Some(t) = &hit.explain {
        let rank_of = |r: Option<usize>, s: Option<f32>, what: &str| match (r, s) {
            (Some(r), Some(s)) => format!("{what} #{r} ({s:.3})"),
            (None, Some(s)) => format!("{what} beyond the candidates ({s:.3})"),
            _ => format!("{what} —"),
        };
        println!(
            "    {} · {} · fused {:.3}",
            rank_of(t.bm25_rank, t.bm25_score, "bm25"),
            rank_of(t.vector_rank, t.cosine, "vector"),
            t.fused
        );
    } else if explain {
        println!("    score {:.3}", hit.score);
    }
}

/// The snippet on one line, matched terms in bold (or `«…»` off a
/// terminal, which cannot be confused with markdown's own `**`).
fn marked(hit: &Hit, terminal: bool) -> String {
    let (open, close) = if terminal {
        ("\x1b[1;4m", "\x1b[0m")
    } else {
        ("«", "»")
    };
    let mut out = String::new();
    let mut at = 0;
    for range in &hit.marks {
        if range.start < at || range.end > hit.snippet.len() {
            continue;
        }
        out.push_str(&hit.snippet[at..range.start]);
        out.push_str(open);
        out.push_str(&hit.snippet[range.clone()]);
        out.push_str(close);
        at = range.end;
    }
    out.push_str(&hit.snippet[at..]);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub fn reindex(index: &Index, json: bool) -> Outcome {
    let files = index.reindex(&mut progress_bar("indexing notes", json))?;
    let embedded = match index.load_model() {
        Ok(()) => Some(index.embed_pending(&mut progress_bar("embedding passages", json))?),
        Err(why) => {
            if !json {
                eprintln!("note: no vectors (deep search will use BM25 only): {why}");
            }
            None
        }
    };
    let status = index.status()?;
    if json {
        return print_json(&serde_json::json!({
            "files": files,
            "chunks": status.chunks,
            "embedded": embedded,
        }));
    }
    match embedded {
        Some(n) => println!(
            "indexed {files} notes ({} passages); {n} passages embedded, the others kept their vectors",
            status.chunks
        ),
        None => println!("indexed {files} notes ({} passages)", status.chunks),
    }
    Ok(())
}

pub fn print_status(status: &IndexStatus) {
    println!(
        "search    {} notes · {} passages indexed",
        status.files, status.chunks
    );
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
}
