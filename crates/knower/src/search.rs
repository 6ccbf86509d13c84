//! The search commands: `search` (through the service) and `reindex`
//! (the index's own maintenance).

use std::io::IsTerminal;

use knower_index::{Hit, Mode, SearchOptions};

use crate::cli::ModeArg;
use crate::context::{Context, IndexUse, block_on};
use crate::output::{Failure, Outcome, print_json, progress_bar};

impl From<ModeArg> for Mode {
    fn from(mode: ModeArg) -> Mode {
        match mode {
            ModeArg::Fast => Mode::Fast,
            ModeArg::Deep => Mode::Deep,
            ModeArg::Vector => Mode::Vector,
        }
    }
}

/// Before a search with vectors, the passages written since the last pass
/// get theirs (the search would do it too), with a progress bar for a long
/// wait.
pub fn embed_with_progress(
    service: &knower_service::Service,
    mode: Mode,
    json: bool,
) -> Result<(), Failure> {
    service.prepare_search(mode, &mut progress_bar("embedding new passages", json))?;
    Ok(())
}

pub fn search(
    ctx: &Context,
    query: &str,
    mode: ModeArg,
    scope: Option<String>,
    limit: usize,
    per_note: bool,
    explain: bool,
) -> Outcome {
    let json = ctx.json;
    let service = ctx.service()?;
    let mode = Mode::from(mode);
    embed_with_progress(&service, mode, json)?;
    let options = SearchOptions { mode, scope, limit };
    let mut results = block_on(service.search(query.to_string(), options, per_note))?;
    if let Some(notice) = &results.notice {
        // On a line of its own, whatever a download's progress left on the
        // terminal's current line.
        let fresh_line = if std::io::stderr().is_terminal() {
            "\n"
        } else {
            ""
        };
        eprintln!("{fresh_line}note: {notice}");
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
        let note = t
            .note
            .map(|n| format!(" · its note {n:.3} of the best's"))
            .unwrap_or_default();
        println!(
            "    {} · {}{note} · fused {:.3}",
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

pub fn reindex(ctx: &Context) -> Outcome {
    let json = ctx.json;
    let (_, index) = ctx.prepare(ctx.vault()?, IndexUse::Required)?;
    let index = index.expect("a required index is open");
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
