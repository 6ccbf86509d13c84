//! `knower harvest`: past conversations into `knowledge/`, through the
//! service.

use std::path::PathBuf;

use knower_harvest::{Class, Options, Report};

use crate::context::{Context, IndexUse, block_on};
use crate::output::{Outcome, failure, print_json, progress_bar};

pub fn harvest(
    ctx: &Context,
    paths: Vec<PathBuf>,
    apply: bool,
    reclaim: bool,
    no_harvest: bool,
) -> Outcome {
    let vault = ctx.vault()?;
    let paths = if paths.is_empty() {
        default_sources(vault.root())?
    } else {
        paths
    };
    // A dry run changes nothing, not even the processing of outside edits.
    let changing = apply || reclaim;
    let (vault, index) = if changing {
        ctx.prepare(vault, IndexUse::Required)?
    } else {
        let index = knower_index::Index::open(vault.clone())?;
        (vault, Some(index))
    };
    let service = knower_service::Service::local(vault, index.expect("an index is open"))?;
    let options = Options {
        apply,
        reclaim,
        no_harvest,
    };
    let bar = progress_bar("harvesting conversations", ctx.json);
    let report = block_on(service.harvest(paths, options, bar))?;
    if ctx.json {
        print_json(&report)?;
    } else {
        print(&report);
    }
    let named_unreadable: Vec<&str> = report
        .unreadable
        .iter()
        .filter(|u| u.given)
        .map(|u| u.error.as_str())
        .collect();
    if let Some(first) = named_unreadable.first() {
        return Err(failure(
            first.to_string(),
            Some(
                "knower harvest reads Claude Code, Codex CLI and Gemini CLI sessions, ChatGPT and Claude.ai conversations.json, Knower's chat log, and .md/.txt files",
            ),
        ));
    }
    if !report.failed.is_empty() {
        return Err(failure(
            format!(
                "{} conversation(s) could not be harvested; they are kept and recorded as harvest-failed",
                report.failed.len()
            ),
            Some("see the errors above; run the harvest again to retry them"),
        ));
    }
    Ok(())
}

/// Where conversations usually are: Claude Code's transcripts, Codex
/// CLI's sessions, the sessions Gemini CLI records per project, and
/// Knower's own chat log.
fn default_sources(root: &std::path::Path) -> Result<Vec<PathBuf>, crate::output::Failure> {
    let mut sources = Vec::new();
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let home = PathBuf::from(home);
        for folder in [".claude/projects", ".codex/sessions"] {
            if home.join(folder).is_dir() {
                sources.push(home.join(folder));
            }
        }
        // Only the chats: Gemini CLI keeps other files beside them.
        let gemini = std::fs::read_dir(home.join(".gemini/tmp"))
            .into_iter()
            .flatten();
        let mut chats: Vec<PathBuf> = gemini
            .flatten()
            .map(|project| project.path().join("chats"))
            .filter(|chats| chats.is_dir())
            .collect();
        chats.sort();
        sources.extend(chats);
    }
    let chat = root.join(knower_chat::LOG);
    if chat.is_file() {
        sources.push(chat);
    }
    if sources.is_empty() {
        return Err(failure(
            "no source given, and there is neither ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp/*/chats nor a chat log in the vault",
            Some(
                "name the conversation files or folders to harvest, e.g. a ChatGPT export's conversations.json",
            ),
        ));
    }
    Ok(sources)
}

fn print(report: &Report) {
    let t = &report.tally;
    println!(
        "{} files · {} conversations: {} to harvest, {} already harvested, {} too large, {} empty, {} unreadable files ({})",
        report.sources,
        report.conversations.len(),
        t.to_harvest,
        t.already_harvested,
        t.too_large,
        t.empty,
        t.unreadable,
        report.engine
    );
    for c in report
        .conversations
        .iter()
        .filter(|c| c.class == Class::ToHarvest)
        .take(if report.applied { 0 } else { 30 })
    {
        println!("  {:>8}  {}  ({})", human(c.bytes), c.name, c.path);
    }
    if !report.applied {
        println!(
            "to harvest: {} (~{} input tokens, ~{} model calls)",
            human(report.bytes),
            report.estimated_input_tokens,
            report.estimated_model_calls
        );
    }
    for u in &report.unreadable {
        eprintln!("{}: {}", if u.given { "error" } else { "skipped" }, u.error);
    }
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if report.applied {
        let i = &report.items;
        println!(
            "harvested {} conversations: facts {}, decisions {}, tasks done {}, tasks open {}, questions {}, playbooks {}, file notes {}",
            report.harvested,
            i.facts,
            i.decisions,
            i.tasks_done,
            i.tasks_open,
            i.questions,
            i.playbooks,
            i.files
        );
        for f in &report.failed {
            eprintln!("failed: {} ({}): {}", f.name, f.path, f.error);
        }
        if let Some(usage) = &report.usage {
            println!("{} model calls, {}", usage.calls, usage.describe());
        }
    }
    if !report.reclaimed.is_empty() {
        println!(
            "reclaimed {} files ({})",
            report.reclaimed.len(),
            human(report.reclaimed_bytes as usize)
        );
    }
    match report.digest_bytes {
        Some(bytes) => println!("digest: knowledge/digest.md ({bytes} bytes of 4096)"),
        None if report.applied => println!("digest: none (nothing to show)"),
        None => {}
    }
    if report.applied || !report.reclaimed.is_empty() {
        println!("ledger: {}", report.ledger);
    } else {
        println!("dry run; pass --apply to harvest (and --reclaim to delete what was harvested)");
    }
}

fn human(bytes: usize) -> String {
    knower_vault::human_size(bytes as u64)
}
