//! The `knower` binary: the command line over the Knower crates. It holds no
//! logic of its own beyond finding the vault and presenting results.

mod agents;
mod cli;
mod commands;
mod mcp;
mod search;
mod server;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let json = cli.json;
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report(&e, json);
            ExitCode::from(1)
        }
    }
}

/// One line on stderr: what went wrong and, when there is something to do
/// about it, what.
fn report(error: &commands::Failure, json: bool) {
    if json {
        let value = serde_json::json!({"error": error.message, "hint": error.hint});
        eprintln!("{value}");
        return;
    }
    match &error.hint {
        Some(hint) => eprintln!("error: {} ({hint})", error.message),
        None => eprintln!("error: {}", error.message),
    }
}
