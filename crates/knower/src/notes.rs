//! The vault's own commands: `init`, `watch`, and the eight operations on
//! notes (`tree`, `read`, `write`, `append`, `edit`, `mv`, `rm`), with the
//! journal (`log`, `undo`).

use std::io::{self, Write};
use std::path::PathBuf;

use knower_vault::{
    Author, ChangeRecord, EntryKind, Position, SyncReport, TreeNode, Vault, VaultPath, WatchEvent,
    folder_summary, render_tree,
};

use crate::cli::Why;
use crate::context::{ACTOR, Context, IndexUse, warn_index_problems, warn_problems};
use crate::output::{
    Failure, MAX_STDIN_NOTE_BYTES, Outcome, failure, print_json, progress_bar, stdin_text,
};

pub fn init(ctx: &Context, path: Option<PathBuf>) -> Outcome {
    let path = path.map_or_else(|| ctx.location(), Ok)?;
    let mut progress = progress_bar("adopting the files already in the folder", ctx.json);
    let (vault, report) =
        Vault::init_with(&path, &Author::new(ACTOR, "knower init"), &mut progress)?;
    if ctx.json {
        return print_json(&serde_json::json!({
            "root": vault.root(),
            "created": report.created,
            "kept": report.kept,
            "adopted": report.adopted,
        }));
    }
    println!("vault ready at {}", vault.root().display());
    let list = |paths: &[VaultPath]| {
        paths
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !report.created.is_empty() {
        println!("  created  {}", list(&report.created));
    }
    if !report.kept.is_empty() {
        println!(
            "  kept     {} (already there, left as they were)",
            list(&report.kept)
        );
    }
    if report.adopted > 0 {
        println!("  adopted  {} existing files and folders", report.adopted);
    }
    Ok(())
}

pub fn watch(ctx: &Context) -> Outcome {
    let json = ctx.json;
    let (vault, index) = ctx.prepare(ctx.vault_or_new("knower watch")?, IndexUse::Required)?;
    let index = index.expect("a required index is open");
    // Vectors follow changes in the background, once the model is at hand.
    let _embedder = index.spawn_embedder();
    let watched = index.clone();
    let _watcher = vault.watch(move |event| match event {
        WatchEvent::Synced(report) => {
            print_sync(&report, json);
            warn_index_problems(&watched);
        }
        WatchEvent::Failed(e) => {
            let f = Failure::from(e);
            eprintln!("error: {}", f.message);
        }
    })?;
    if !json {
        let stats = vault.stats()?;
        println!(
            "watching {} ({} files · {} tokens); press Ctrl-C to stop",
            vault.root().display(),
            stats.files,
            stats.tokens
        );
    }
    loop {
        std::thread::park();
    }
}

pub fn tree(ctx: &Context, path: &str, depth: Option<usize>) -> Outcome {
    let (vault, _) = ctx.prepare(ctx.vault()?, IndexUse::None)?;
    let node = vault.tree(path, depth)?;
    if ctx.json {
        return print_json(&node);
    }
    let listing = match node.kind {
        EntryKind::Folder => {
            let name = if node.path.is_root() {
                vault.root().display().to_string()
            } else {
                format!("{}/", node.path)
            };
            println!("{name} · {}", folder_summary(&node));
            render_tree(&node)
        }
        EntryKind::File => render_tree(&TreeNode {
            children: vec![node.clone()],
            ..node
        }),
    };
    print!("{listing}");
    Ok(())
}

pub fn read(ctx: &Context, path: &str) -> Outcome {
    let (vault, _) = ctx.prepare(ctx.vault()?, IndexUse::None)?;
    let content = vault.read(path)?;
    if ctx.json {
        let frontmatter = knower_vault::frontmatter::parse(&content).ok().flatten();
        return print_json(&serde_json::json!({
            "path": VaultPath::parse(path)?,
            "frontmatter": frontmatter,
            "content": content,
        }));
    }
    io::stdout()
        .write_all(content.as_bytes())
        .map_err(|e| failure(format!("writing to stdout: {e}"), None))
}

/// Runs one change on the prepared vault (its index following when it
/// can) and prints it.
fn change(
    ctx: &Context,
    apply: impl FnOnce(&Vault) -> Result<Option<ChangeRecord>, knower_vault::Error>,
) -> Outcome {
    let (vault, index) = ctx.prepare(ctx.vault()?, IndexUse::IfPossible)?;
    let record = apply(&vault);
    if let Some(index) = index {
        warn_index_problems(&index);
    }
    print_change(record?.as_ref(), ctx.json)
}

fn author(why: Why, default: String) -> Author {
    Author::new(ACTOR, why.message.unwrap_or(default))
}

pub fn write(ctx: &Context, path: &str, why: Why) -> Outcome {
    let content = stdin_text(MAX_STDIN_NOTE_BYTES, "a note")?;
    let author = author(why, format!("knower write {path}"));
    change(ctx, |vault| vault.write(path, &content, &author))
}

pub fn append(ctx: &Context, path: &str, top: bool, why: Why) -> Outcome {
    let content = stdin_text(MAX_STDIN_NOTE_BYTES, "a note")?;
    let position = if top { Position::Top } else { Position::Bottom };
    let author = author(why, format!("knower append {path}"));
    change(ctx, |vault| vault.append(path, &content, position, &author))
}

pub fn edit(ctx: &Context, path: &str, old: &str, new: &str, why: Why) -> Outcome {
    let author = author(why, format!("knower edit {path}"));
    change(ctx, |vault| vault.edit(path, old, new, &author))
}

pub fn mv(ctx: &Context, from: &str, to: &str, why: Why) -> Outcome {
    let author = author(why, format!("knower mv {from} {to}"));
    change(ctx, |vault| vault.rename(from, to, &author))
}

pub fn rm(ctx: &Context, path: &str, why: Why) -> Outcome {
    let author = author(why, format!("knower rm {path}"));
    change(ctx, |vault| vault.delete(path, &author))
}

/// `id` is a change's number or an update's id.
pub fn undo(ctx: &Context, id: &str, force: bool, why: Why) -> Outcome {
    let Ok(change_id) = id.parse::<u64>() else {
        if id.starts_with("update-") {
            return crate::updates::undo(ctx, id, force);
        }
        return Err(failure(
            format!("`{id}` is neither a change number nor an update id"),
            Some("`knower log` lists the changes, `knower updates` the updates"),
        ));
    };
    // The journal names the undone change; a reason is added only if given.
    let author = author(why, String::new());
    change(ctx, |vault| vault.undo(change_id, &author, force))
}

pub fn log(ctx: &Context, limit: usize, path: Option<&str>) -> Outcome {
    let vault = ctx.vault()?;
    let filter = path.map(VaultPath::parse).transpose()?;
    let records: Vec<ChangeRecord> = vault
        .log()?
        .into_iter()
        .rev()
        .filter(|r| {
            filter
                .as_ref()
                .is_none_or(|p| r.files.iter().any(|f| f.path.starts_with(p)))
        })
        .take(limit)
        .collect();
    if ctx.json {
        return print_json(&records);
    }
    if records.is_empty() {
        println!("no changes recorded");
    }
    for record in &records {
        print_record(record);
    }
    Ok(())
}

fn print_change(record: Option<&ChangeRecord>, json: bool) -> Outcome {
    if json {
        return print_json(&record);
    }
    match record {
        Some(record) => print_record(record),
        None => println!("nothing to change"),
    }
    Ok(())
}

fn print_record(record: &ChangeRecord) {
    let when = record.at.get(..19).unwrap_or(&record.at).replace('T', " ");
    let undoes = match record.undoes.as_slice() {
        [] => String::new(),
        ids => format!(
            " (undoes {})",
            ids.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    println!(
        "{:>4}  {when}  {:<8}  {}{undoes}",
        record.id, record.actor, record.reason
    );
    for file in &record.files {
        println!("        {} {}", file.letter(), file.path);
    }
}

fn print_sync(report: &SyncReport, json: bool) {
    if report.change.is_none() && report.problems.is_empty() {
        return;
    }
    if json {
        // A stream: one object per line.
        if let Ok(line) = serde_json::to_string(report) {
            println!("{line}");
        }
        return;
    }
    if let Some(change) = &report.change {
        print_record(change);
    }
    warn_problems(report);
}
