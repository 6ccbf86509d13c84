//! The `knower` binary: the command line over the Knower crates. It holds
//! no logic of its own beyond finding the vault and presenting results:
//! `main` dispatches each command once to the module that presents it.

mod chat;
mod cli;
mod context;
mod garden;
mod harvest;
mod mcp;
mod notes;
mod output;
mod search;
mod server;
mod status;
mod sync;
mod updates;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command, InboxAction};
use crate::context::Context;
use crate::output::Outcome;

/// `knower ask … | head` ends when `head` has read enough, as Unix tools
/// do, instead of panicking on the closed pipe (Rust ignores SIGPIPE, so
/// every later print would fail). The server keeps ignoring it: its log
/// lines must not stop it. Sockets are unaffected (written with
/// MSG_NOSIGNAL).
fn die_quietly_on_a_closed_pipe() {
    // SAFETY: restoring a signal's default action, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(cli::hyphen_text(std::env::args_os().collect())) {
        Ok(cli) => cli,
        Err(e) => return output::usage_error(e),
    };
    if !matches!(cli.command, Command::Serve { .. }) {
        die_quietly_on_a_closed_pipe();
    }
    let json = cli.json;
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            output::report(&e, json);
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Outcome {
    let ctx = Context::new(cli.vault, cli.json);
    match cli.command {
        Command::Init { path } => notes::init(&ctx, path),
        Command::Watch => notes::watch(&ctx),
        Command::Tree { path, depth } => notes::tree(&ctx, &path, depth),
        Command::Read { path } => notes::read(&ctx, &path),
        Command::Write { path, why } => notes::write(&ctx, &path, why),
        Command::Append { path, top, why } => notes::append(&ctx, &path, top, why),
        Command::Edit {
            path,
            old,
            new,
            why,
        } => notes::edit(&ctx, &path, &old, &new, why),
        Command::Mv { from, to, why } => notes::mv(&ctx, &from, &to, why),
        Command::Rm { path, why } => notes::rm(&ctx, &path, why),
        Command::Undo { id, force, why } => notes::undo(&ctx, &id, force, why),
        Command::Log { limit, path } => notes::log(&ctx, limit, path.as_deref()),
        Command::Status => status::status(&ctx),
        Command::Sync => sync::sync(&ctx),
        Command::Search {
            query,
            mode,
            scope,
            limit,
            notes,
            explain,
        } => search::search(&ctx, &query.join(" "), mode, scope, limit, notes, explain),
        Command::Reindex => search::reindex(&ctx),
        Command::Update {
            text,
            files,
            inbox_ref,
            no_wait,
        } => updates::update(&ctx, text, &files, inbox_ref, no_wait),
        Command::Ask {
            question,
            mode,
            scope,
        } => updates::ask(&ctx, &question.join(" "), mode, scope),
        Command::Inbox { action: None } => updates::inbox(&ctx),
        Command::Inbox {
            action: Some(InboxAction::Show { id }),
        } => updates::inbox_show(&ctx, &id),
        Command::Inbox {
            action: Some(InboxAction::Reply { id, answer }),
        } => updates::reply(&ctx, &id, answer.join(" ")),
        Command::Updates { action, limit } => updates::updates(&ctx, action, limit),
        Command::Prompts { name } => updates::prompts(&ctx, name),
        Command::Garden { action } => garden::garden(&ctx, action),
        Command::Chat {
            message,
            resume,
            session,
        } => chat::chat(&ctx, message.join(" "), resume, session),
        Command::Harvest {
            paths,
            apply,
            reclaim,
            no_harvest,
        } => harvest::harvest(&ctx, paths, apply, reclaim, no_harvest),
        Command::Serve { listen } => server::serve(&ctx, listen.addr),
        Command::Start { listen } => server::start(&ctx, listen.addr),
        Command::Stop => server::stop(&ctx),
        Command::Visualize { listen } => server::visualize(&ctx, listen.addr),
        Command::Vault => server::show_vault(&ctx),
        Command::Mcp => mcp::serve(&ctx),
        Command::Graph { action } => mcp::graph(&ctx, action),
    }
}
