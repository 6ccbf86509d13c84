//! What each command does: find the vault, call the vault library, print.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use knower_index::Index;
use knower_vault::{
    Author, ChangeRecord, EntryKind, Error, Position, SyncReport, TreeNode, Vault, VaultPath,
    WatchEvent, folder_summary, human_size, render_tree,
};
use serde::Serialize;

use crate::agents;
use crate::cli::{Cli, Command, InboxAction, Why};
use crate::search;
use crate::server::{self, Remote};

/// A failed command: one line of explanation and possibly what to do.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub hint: Option<String>,
}

impl From<knower_index::Error> for Failure {
    fn from(e: knower_index::Error) -> Failure {
        Failure {
            hint: e.hint().map(str::to_string),
            message: e.to_string(),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure {
            hint: e.hint().map(str::to_string),
            message: e.to_string(),
        }
    }
}

pub(crate) fn failure(message: impl Into<String>, hint: Option<&str>) -> Failure {
    Failure {
        message: message.into(),
        hint: hint.map(str::to_string),
    }
}

pub(crate) type Outcome = Result<(), Failure>;

/// The actor the journal records for changes made from the command line.
pub(crate) const ACTOR: &str = "cli";

pub fn run(cli: Cli) -> Outcome {
    let json = cli.json;
    let location = || vault_location(cli.vault.clone());
    match cli.command {
        Command::Init { path } => init(&path.map_or_else(location, Ok)?, json),
        Command::Watch => watch(&location()?, json),
        Command::Serve { listen } => {
            let vault = Arc::new(open_or_create(&location()?, "knower serve", json)?);
            let report = vault.rescan_with(&mut progress_bar(
                "processing files changed outside Knower",
                json,
            ))?;
            announce_rescan(&report, json);
            server::serve(vault, listen.addr, json)
        }
        Command::Mcp => {
            // Standard output is the protocol's: nothing else is printed there.
            let vault = Arc::new(open_or_create(&location()?, "knower mcp", true)?);
            vault.rescan()?;
            crate::mcp::serve(vault)
        }
        Command::Graph { action } => {
            crate::mcp::graph(Arc::new(Vault::open(&location()?)?), action, json)
        }
        Command::Start { listen } => {
            let vault = open_or_create(&location()?, "knower start", json)?;
            server::start(vault.root(), listen.addr, json)
        }
        Command::Stop => server::stop(Vault::open(&location()?)?.root(), json),
        Command::Vault => server::show_vault(Vault::open(&location()?)?.root(), json),
        Command::Updates { action, limit } => {
            server::updates(Vault::open(&location()?)?.root(), action, limit, json)
        }
        Command::Status => status(&Arc::new(Vault::open(&location()?)?), json),
        Command::Log { limit, path } => {
            log(&Vault::open(&location()?)?, limit, path.as_deref(), json)
        }
        Command::Prompts { name } => agents::prompts(&Vault::open(&location()?)?, name, json),
        Command::Inbox {
            action: None | Some(InboxAction::Show { .. }),
        } => {
            let vault = Vault::open(&location()?)?;
            match cli.command {
                Command::Inbox {
                    action: Some(InboxAction::Show { id }),
                } => agents::inbox_show(&vault, &id, json),
                _ => agents::inbox_list(&vault, json),
            }
        }
        command => {
            let vault = Arc::new(Vault::open(&location()?)?);
            // A server on this vault queues updates: join its queue.
            let remote = match &command {
                Command::Update { .. }
                | Command::Inbox {
                    action: Some(InboxAction::Reply { .. }),
                } => Remote::find(vault.root()),
                _ => None,
            };
            if let Some(remote) = remote {
                return match command {
                    Command::Update {
                        text,
                        files,
                        inbox_ref,
                        no_wait,
                    } => agents::update_remote(&remote, text, &files, inbox_ref, no_wait, json),
                    Command::Inbox {
                        action: Some(InboxAction::Reply { id, answer }),
                    } => agents::update_remote(
                        &remote,
                        Some(answer.join(" ")),
                        &[],
                        Some(id),
                        false,
                        json,
                    ),
                    _ => unreachable!("only updates go to the server"),
                };
            }
            // Reading needs no index; changing and searching keep it fresh.
            // A change is never blocked by the index (it catches up later).
            let searching = matches!(
                command,
                Command::Search { .. }
                    | Command::Reindex
                    | Command::Update { .. }
                    | Command::Ask { .. }
                    | Command::Inbox { .. }
            );
            let index = match command {
                Command::Tree { .. } | Command::Read { .. } => None,
                _ if searching => Some(search::open_index(&vault)?),
                _ => search::open_index(&vault).inspect_err(warn_index).ok(),
            };
            // Whatever changed while Knower was not running is processed
            // first, so every command sees (and journals against) the truth.
            let report = vault.rescan_with(&mut progress_bar(
                "processing files changed outside Knower",
                json,
            ))?;
            announce_rescan(&report, json);
            if let Some(index) = &index {
                match search::catch_up(index, json) {
                    Err(e) if !searching => warn_index(&e),
                    caught => caught?,
                }
            }
            match (command, index) {
                (
                    Command::Search {
                        query,
                        mode,
                        scope,
                        limit,
                        explain,
                    },
                    Some(index),
                ) => search::search(&index, &query.join(" "), mode, scope, limit, explain, json),
                (Command::Reindex, Some(index)) => search::reindex(&index, json),
                (
                    Command::Update {
                        text,
                        files,
                        inbox_ref,
                        ..
                    },
                    Some(index),
                ) => agents::update(&vault, &index, text, &files, inbox_ref, json),
                (
                    Command::Inbox {
                        action: Some(InboxAction::Reply { id, answer }),
                    },
                    Some(index),
                ) => agents::update(&vault, &index, Some(answer.join(" ")), &[], Some(id), json),
                (
                    Command::Ask {
                        question,
                        mode,
                        scope,
                    },
                    Some(index),
                ) => agents::ask(&vault, &index, &question.join(" "), mode, scope, json),
                (command, index) => {
                    let outcome = edit_or_read(&vault, command, json);
                    if let Some(index) = index {
                        search::warn_problems(&index);
                    }
                    outcome
                }
            }
        }
    }
}

/// A change goes ahead when the index cannot follow; the next command that
/// can open it catches up.
fn warn_index(e: &Failure) {
    match &e.hint {
        Some(hint) => eprintln!("warning: search index not updated: {} ({hint})", e.message),
        None => eprintln!("warning: search index not updated: {}", e.message),
    }
}

/// `--vault` or `$KNOWER_VAULT` (clap reads both), else `~/knower`.
fn vault_location(given: Option<PathBuf>) -> Result<PathBuf, Failure> {
    if let Some(path) = given {
        return Ok(path);
    }
    match std::env::var_os("HOME") {
        Some(home) if !home.is_empty() => Ok(Path::new(&home).join("knower")),
        _ => Err(failure(
            "no vault given and $HOME is not set",
            Some("pass --vault PATH or set KNOWER_VAULT"),
        )),
    }
}

fn edit_or_read(vault: &Vault, command: Command, json: bool) -> Outcome {
    let author =
        |why: &Why, default: String| Author::new(ACTOR, why.message.clone().unwrap_or(default));
    let record = match command {
        Command::Tree { path, depth } => return tree(vault, &path, depth, json),
        Command::Read { path } => return read(vault, &path, json),
        Command::Write { path, why } => {
            let content = stdin_text()?;
            vault.write(
                &path,
                &content,
                &author(&why, format!("knower write {path}")),
            )?
        }
        Command::Append { path, top, why } => {
            let content = stdin_text()?;
            let position = if top { Position::Top } else { Position::Bottom };
            vault.append(
                &path,
                &content,
                position,
                &author(&why, format!("knower append {path}")),
            )?
        }
        Command::Edit {
            path,
            old,
            new,
            why,
        } => vault.edit(
            &path,
            &old,
            &new,
            &author(&why, format!("knower edit {path}")),
        )?,
        Command::Mv { from, to, why } => {
            vault.rename(&from, &to, &author(&why, format!("knower mv {from} {to}")))?
        }
        Command::Rm { path, why } => {
            vault.delete(&path, &author(&why, format!("knower rm {path}")))?
        }
        // The journal names the undone change; a reason is added only if given.
        Command::Undo { id, force, why } => vault.undo(id, &author(&why, String::new()), force)?,
        Command::Init { .. }
        | Command::Watch
        | Command::Serve { .. }
        | Command::Mcp
        | Command::Graph { .. }
        | Command::Start { .. }
        | Command::Stop
        | Command::Vault
        | Command::Updates { .. }
        | Command::Status
        | Command::Log { .. }
        | Command::Search { .. }
        | Command::Reindex
        | Command::Update { .. }
        | Command::Ask { .. }
        | Command::Inbox { .. }
        | Command::Prompts { .. } => {
            unreachable!("handled before")
        }
    };
    print_change(record.as_ref(), json)
}

fn init(path: &Path, json: bool) -> Outcome {
    let mut progress = progress_bar("adopting the files already in the folder", json);
    let (vault, report) =
        Vault::init_with(path, &Author::new(ACTOR, "knower init"), &mut progress)?;
    if json {
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

/// The vault at `path`, created first when there is none (for the
/// commands that keep running: `watch`, `serve`, `start`).
fn open_or_create(path: &Path, command: &str, json: bool) -> Result<Vault, Failure> {
    match Vault::open(path) {
        Ok(vault) => Ok(vault),
        Err(Error::NotAVault { .. }) => {
            let (vault, _) = Vault::init(
                path,
                &Author::new(ACTOR, format!("{command}: create the vault")),
            )?;
            if !json {
                println!("created a new vault at {}", vault.root().display());
            }
            Ok(vault)
        }
        Err(e) => Err(e.into()),
    }
}

fn watch(path: &Path, json: bool) -> Outcome {
    let vault = Arc::new(open_or_create(path, "knower watch", json)?);
    let index = search::open_index(&vault)?;
    let report = vault.rescan_with(&mut progress_bar(
        "processing files changed outside Knower",
        json,
    ))?;
    announce_rescan(&report, json);
    search::catch_up(&index, json)?;
    // Vectors follow changes in the background, once the model is at hand.
    let _embedder = index.spawn_embedder();
    let watched = index.clone();
    let _watcher = vault.watch(move |event| match event {
        WatchEvent::Synced(report) => {
            print_sync(&report, json);
            search::warn_problems(&watched);
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

fn status(vault: &Arc<Vault>, json: bool) -> Outcome {
    let stats = vault.stats()?;
    let pending = vault.pending()?;
    let index = Index::open(vault.clone())?.status()?;
    let server = server::status(vault.root());
    if json {
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
    search::print_status(&index);
    server::print_status(&server);
    if stats.problems.is_empty() {
        println!("problems  none");
    } else {
        println!("problems  {} files left untouched:", stats.problems.len());
        for (path, problem) in &stats.problems {
            println!("            {path}: {problem}");
        }
    }
    Ok(())
}

fn log(vault: &Vault, limit: usize, path: Option<&str>, json: bool) -> Outcome {
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
    if json {
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

fn tree(vault: &Vault, path: &str, depth: Option<usize>, json: bool) -> Outcome {
    let node = vault.tree(path, depth)?;
    if json {
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

fn read(vault: &Vault, path: &str, json: bool) -> Outcome {
    let content = vault.read(path)?;
    if json {
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

pub(crate) fn stdin_text() -> Result<String, Failure> {
    let mut bytes = Vec::new();
    io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| failure(format!("reading standard input: {e}"), None))?;
    String::from_utf8(bytes).map_err(|e| {
        failure(
            format!(
                "standard input is not valid UTF-8 text (first invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
            Some("Knower writes text files only"),
        )
    })
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
    let undoes = record
        .undoes
        .map(|id| format!(" (undoes {id})"))
        .unwrap_or_default();
    println!(
        "{:>4}  {when}  {:<8}  {}{undoes}",
        record.id, record.actor, record.reason
    );
    for file in &record.files {
        println!("        {} {}", file.letter(), file.path);
    }
}

/// After a rescan, a note on stderr (stdout stays the command's output).
fn announce_rescan(report: &SyncReport, json: bool) {
    if json {
        return;
    }
    if let Some(change) = &report.change {
        eprintln!(
            "note: {} paths changed outside Knower were processed (change {})",
            change.files.len(),
            change.id
        );
    }
    warn_problems(report);
}

fn warn_problems(report: &SyncReport) {
    for (path, problem) in &report.problems {
        eprintln!("warning: {path}: {problem}; left untouched");
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

/// A progress callback for long passes over the vault: a bar on stderr,
/// drawn only on a terminal, without `--json`, and for enough files that the
/// wait is noticeable.
pub(crate) fn progress_bar(message: &'static str, json: bool) -> impl FnMut(usize, usize) {
    const WORTH_A_BAR: usize = 200;
    let mut bar: Option<ProgressBar> = None;
    move |done, total| {
        if json || total < WORTH_A_BAR {
            return;
        }
        let bar = bar.get_or_insert_with(|| {
            let style = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta} left)")
                .expect("a valid template")
                .progress_chars("=> ");
            ProgressBar::new(total as u64)
                .with_style(style)
                .with_message(message)
        });
        bar.set_position(done as u64);
        if done == total {
            bar.finish_and_clear();
        }
    }
}

pub(crate) fn print_json(value: &impl Serialize) -> Outcome {
    let text = serde_json::to_string_pretty(value).map_err(|e| failure(e.to_string(), None))?;
    println!("{text}");
    Ok(())
}
