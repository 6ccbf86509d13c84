//! `knower sync`: the vault synced through git, through the service.

use knower_sync::{Report, Status};

use crate::context::{Context, block_on};
use crate::output::{Outcome, print_json};

pub fn sync(ctx: &Context) -> Outcome {
    let service = ctx.service()?;
    let json = ctx.json;
    let report = block_on(service.sync(move |step| {
        if !json {
            eprintln!("sync: {step}");
        }
    }))?;
    if json {
        return print_json(&report);
    }
    print_report(&report);
    Ok(())
}

fn print_report(report: &Report) {
    println!(
        "synced with {} ({}) in {:.1} s{}",
        report.remote,
        report.branch,
        report.seconds,
        if report.resumed {
            ", after finishing the sync that was interrupted"
        } else {
            ""
        }
    );
    let sent = match (report.committed, report.pushed, report.first_push) {
        (_, true, true) => format!(
            "{} paths committed; first push of the vault",
            report.committed
        ),
        (0, true, _) => "pushed".to_string(),
        (n, true, _) => format!("{n} paths committed and pushed"),
        (0, false, _) => "nothing new here".to_string(),
        (n, false, _) => format!("{n} paths committed"),
    };
    println!("  sent      {sent}");
    match (report.received.len(), report.change) {
        (0, _) => println!("  received  nothing new"),
        (n, Some(id)) => {
            println!("  received  {n} paths (change {id}: `knower undo {id}` takes them back)")
        }
        (n, None) => println!("  received  {n} paths"),
    }
    if !report.conflicts.is_empty() {
        println!(
            "  conflicts {} waiting in the inbox, both versions kept (`knower inbox`):",
            report.conflicts.len()
        );
        for id in &report.conflicts {
            println!("            {id}");
        }
    }
}

/// `knower status`'s line about the sync.
pub fn print_status(status: &Status) {
    if !status.configured {
        println!("sync      not set up (`remote` under [sync] in knower.toml, then `knower sync`)");
        return;
    }
    let last = match &status.last {
        None => "never synced".to_string(),
        Some(last) if last.ok => format!("last sync {}", last.at),
        Some(last) => format!(
            "last sync {} FAILED: {}",
            last.at,
            last.error.as_deref().unwrap_or("")
        ),
    };
    println!(
        "sync      {} · {last}{}",
        status.remote.as_deref().unwrap_or("?"),
        if status.running {
            " · syncing now"
        } else {
            ""
        }
    );
    println!(
        "          {} ahead, {} behind (as of the last fetch) · {} paths changed since · {} conflicts waiting",
        status.ahead, status.behind, status.local_changes, status.conflicts_waiting
    );
    if let Some(problem) = &status.problem {
        println!("          {problem}");
    }
}
