//! The agents' commands over the service: `update`, `ask`, `inbox` (list,
//! show, reply), `updates` (list, show, retry) and `prompts`.

use std::path::PathBuf;

use knower_agents::{Attachment, Outcome as Filed, Payload, PromptSource};
use knower_service::{Question, State, Update, UpdateLog, Wait};
use knower_vault::frontmatter;

use crate::cli::{ModeArg, UpdatesAction};
use crate::context::{Context, block_on};
use crate::output::{Failure, Outcome, failure, print_json, stdin_text, waiting_on};
use crate::search::embed_with_progress;

/// The text (from the argument or standard input) and files of an update.
fn read_update(text: Option<String>, files: &[PathBuf]) -> Result<Payload, Failure> {
    let text = match text {
        Some(t) if t != "-" => t,
        _ => stdin_text(knower_agents::MAX_TEXT_BYTES, "an update")?,
    };
    let mut attachments = Vec::new();
    for file in files {
        let bytes = std::fs::read(file)
            .map_err(|e| failure(format!("cannot read {}: {e}", file.display()), None))?;
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
        attachments.push(Attachment::new(
            name.as_deref().unwrap_or("attachment"),
            bytes,
        ));
    }
    Ok(Payload {
        attachments,
        ..Payload::text(text)
    })
}

pub fn update(
    ctx: &Context,
    text: Option<String>,
    files: &[PathBuf],
    inbox_ref: Option<String>,
    no_wait: bool,
) -> Outcome {
    let payload = Payload {
        inbox_ref,
        ..read_update(text, files)?
    };
    send(ctx, payload, no_wait)
}

pub fn reply(ctx: &Context, id: &str, answer: String) -> Outcome {
    let payload = Payload {
        inbox_ref: Some(id.to_string()),
        ..Payload::text(answer)
    };
    send(ctx, payload, false)
}

/// Sends an update through the service (the running server's queue, or
/// the agent at once) and shows what became of it.
fn send(ctx: &Context, payload: Payload, no_wait: bool) -> Outcome {
    let service = ctx.service()?;
    let wait = if no_wait {
        Wait::Accepted
    } else {
        Wait::Finished
    };
    let waiting = waiting_on(&service.engine_label(), ctx.json || no_wait);
    let update = block_on(service.update(payload, wait));
    if let Some(spinner) = waiting {
        spinner.finish_and_clear();
    }
    let update = update?;
    for problem in service.take_index_problems() {
        eprintln!("warning: search index: {problem}");
    }
    if matches!(update.state, State::Queued | State::Running) {
        if ctx.json {
            return print_json(&serde_json::json!({"status": "accepted", "id": update.id}));
        }
        let at = knower_service::running(service.root())
            .map(|info| format!(" at {}", info.url))
            .unwrap_or_default();
        println!("{} is queued on the server{at}", update.id);
        println!("  follow it with `knower updates show {}`", update.id);
        return Ok(());
    }
    if ctx.json {
        let mut value = serde_json::to_value(&update).map_err(|e| failure(e.to_string(), None))?;
        // Scripts written when `knower update` printed the agent's report
        // read the changed paths as `changed`.
        value["changed"] = value["changed_files"].clone();
        print_json(&value)?;
    } else {
        print_update(&update);
    }
    if update.state == State::Failed {
        let hint = match &update.inbox_id {
            Some(_) => "the update is kept in the inbox; nothing is lost".to_string(),
            None => format!("its text is kept: `knower updates retry {}`", update.id),
        };
        return Err(failure(
            update
                .error
                .clone()
                .unwrap_or_else(|| "the update failed".into()),
            Some(&hint),
        ));
    }
    Ok(())
}

/// What became of an update, the same whichever way it ran.
fn print_update(update: &Update) {
    match &update.summary {
        Some(summary) => println!("{summary}"),
        None => println!("{}  {}", update.id, update.state.name()),
    }
    // The summary names where the update went; the other paths follow.
    let summary = update.summary.as_deref().unwrap_or("");
    for path in update.changed_files.iter().flatten() {
        if !summary.contains(path.as_str()) {
            println!("  changed {path}");
        }
    }
    if let Some(reasoning) = &update.details.reasoning {
        // The conclusion; the rules and scores behind it are in the inbox
        // item's review and the update's JSON.
        println!("  why: {}", knower_agents::conclusion(reasoning).0);
    }
    if update.outcome == Some(Filed::Inbox)
        && let Some(id) = &update.inbox_id
    {
        let code = knower_agents::inbox_code(id);
        println!(
            "  see `knower inbox show {code}`; answer with `knower inbox reply {code} ANSWER`"
        );
    }
    if let Some(usage) = &update.details.usage {
        println!("  {} model calls, {}", usage.calls, usage.describe());
    }
    if let Some(error) = &update.error {
        println!("  error: {error}");
    }
    for warning in &update.details.warnings {
        eprintln!("warning: refused {warning}");
    }
}

pub fn ask(ctx: &Context, question: &str, mode: ModeArg, scope: Option<String>) -> Outcome {
    let service = ctx.service()?;
    let mode = mode.into();
    embed_with_progress(&service, mode, ctx.json)?;
    let waiting = waiting_on(&service.engine_label(), ctx.json);
    let answer = block_on(service.ask(Question {
        text: question.to_string(),
        mode,
        scope,
    }));
    if let Some(spinner) = waiting {
        spinner.finish_and_clear();
    }
    let answer = answer?;
    if ctx.json {
        return print_json(&answer);
    }
    println!("{}", answer.markdown.trim_end());
    if let Some(usage) = &answer.usage {
        eprintln!(
            "({}: {} model calls, {})",
            answer.engine,
            usage.calls,
            usage.describe()
        );
    }
    Ok(())
}

pub fn inbox(ctx: &Context) -> Outcome {
    // Through the service, as HTTP and MCP list it.
    let items = ctx.service()?.inbox()?;
    if ctx.json {
        return print_json(&items);
    }
    if items.is_empty() {
        println!("the inbox is empty");
        return Ok(());
    }
    println!(
        "{} item{} waiting for your answer:",
        items.len(),
        if items.len() == 1 { "" } else { "s" }
    );
    for item in &items {
        println!("  {}  {}", item.code, item.title);
    }
    println!("see one with `knower inbox show CODE`; answer with `knower inbox reply CODE ANSWER`");
    Ok(())
}

pub fn inbox_show(ctx: &Context, id: &str) -> Outcome {
    let item = ctx.service()?.inbox_item(id)?;
    if ctx.json {
        return print_json(&serde_json::json!({
            "id": item.id, "code": item.code, "folder": item.folder, "title": item.title, "options": item.options,
            "attachments": item.attachments, "review": item.review, "text": item.text,
        }));
    }
    let body = frontmatter::split(&item.review)
        .map(|s| s.body)
        .unwrap_or(&item.review);
    println!("{}", body.trim_end());
    Ok(())
}

pub fn updates(ctx: &Context, action: Option<UpdatesAction>, limit: usize) -> Outcome {
    let log = UpdateLog::of(ctx.vault()?.clone());
    match action {
        None => {
            let list = block_on(log.recent(limit))?;
            if ctx.json {
                return print_json(&list);
            }
            if list.is_empty() {
                println!("no updates yet");
            }
            for update in &list {
                println!(
                    "{}  {:<7}  {}",
                    update.id,
                    state_name(update),
                    update.summary.as_deref().unwrap_or(&update.headline)
                );
            }
            Ok(())
        }
        Some(UpdatesAction::Show { id }) => {
            let update = block_on(log.get(&id))?;
            if ctx.json {
                return print_json(&update);
            }
            println!("{}  {}", update.id, state_name(&update));
            println!("  {}", update.headline);
            if let Some(by) = update.undone_by {
                println!("  undone by change {by}");
            }
            print_update(&update);
            if update.state == State::Failed {
                println!("  retry with `knower updates retry {}`", update.id);
            }
            Ok(())
        }
        Some(UpdatesAction::Undo { id, force }) => undo(ctx, &id, force),
        Some(UpdatesAction::Retry { id }) => {
            let running = block_on(log.retry(&id))?;
            if ctx.json {
                return print_json(&serde_json::json!({"status": "accepted", "id": id}));
            }
            if running {
                println!("{id} is queued again");
            } else {
                println!("{id} is queued again; it runs when the server starts (`knower start`)");
            }
            Ok(())
        }
    }
}

/// The state as the list shows it: `undone` once taken back.
fn state_name(update: &Update) -> &'static str {
    match update.undone_by {
        Some(_) => "undone",
        None => update.state.name(),
    }
}

/// Takes back everything update `id` changed.
pub fn undo(ctx: &Context, id: &str, force: bool) -> Outcome {
    let log = UpdateLog::of(ctx.vault()?.clone());
    let record = block_on(log.undo(id, "cli", force))?;
    if ctx.json {
        return print_json(&record);
    }
    println!("undid {id} as change {}", record.id);
    for file in &record.files {
        println!("  {} {}", file.letter(), file.path);
    }
    Ok(())
}

pub fn prompts(ctx: &Context, name: Option<String>) -> Outcome {
    let prompts = knower_service::prompts(&*ctx.vault()?);
    if let Some(name) = name {
        let prompt = prompts.iter().find(|p| p.name == name).ok_or_else(|| {
            let names: Vec<&str> = prompts.iter().map(|p| p.name).collect();
            failure(
                format!(
                    "there is no prompt named `{name}` (the prompts are: {})",
                    names.join(", ")
                ),
                None,
            )
        })?;
        if ctx.json {
            return print_json(prompt);
        }
        println!("{}", prompt.text);
        return Ok(());
    }
    if ctx.json {
        return print_json(&prompts);
    }
    for p in &prompts {
        let source = match &p.source {
            PromptSource::BuiltIn => format!("built in (override with prompts/{}.md)", p.name),
            PromptSource::Vault(path) => format!("from the vault: {path}"),
        };
        println!("{:<22} {source}", p.name);
    }
    Ok(())
}
