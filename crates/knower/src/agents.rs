//! The agent commands: `update`, `ask`, `inbox` and `prompts`, over the
//! knower-agents crate.

use std::path::PathBuf;
use std::sync::Arc;

use knower_agents::{Agents, Attachment, Outcome as UpdateOutcome, Payload, PromptSource};
use knower_index::Index;
use knower_vault::{Vault, frontmatter};

use crate::cli::ModeArg;
use crate::commands::{Failure, Outcome, failure, print_json, stdin_text};
use crate::server::Remote;

impl From<knower_agents::Error> for Failure {
    fn from(e: knower_agents::Error) -> Failure {
        let hint = match &e {
            knower_agents::Error::Llm(knower_llm::LlmError::Config(_)) => {
                Some("set KNOWER_LLM=provider:model (or `off`), or fix [llm] in knower.toml")
            }
            knower_agents::Error::Vault(v) => v.hint(),
            _ => None,
        };
        failure(e.to_string(), hint)
    }
}

fn open(vault: &Arc<Vault>, index: &Arc<Index>) -> Result<Agents, Failure> {
    Ok(Agents::open(vault.clone(), index.clone())?)
}

pub(crate) fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a single-threaded runtime can always be built")
        .block_on(future)
}

/// The text (from the argument or standard input) and files of an update.
fn read_update(
    text: Option<String>,
    files: &[PathBuf],
) -> Result<(String, Vec<Attachment>), Failure> {
    let text = match text {
        Some(t) if t != "-" => t,
        _ => stdin_text()?,
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
    Ok((text, attachments))
}

/// An update sent to the server running on the vault, so that it joins
/// the queue instead of racing it; waits for it unless `no_wait`.
pub fn update_remote(
    remote: &Remote,
    text: Option<String>,
    files: &[PathBuf],
    inbox_ref: Option<String>,
    no_wait: bool,
    json: bool,
) -> Outcome {
    let (text, attachments) = read_update(text, files)?;
    let id = remote.submit(text, inbox_ref, attachments)?;
    if no_wait {
        if json {
            return print_json(&serde_json::json!({"status": "accepted", "id": id}));
        }
        println!("{id} is queued on the server at {}", remote.url());
        println!("  follow it with `knower updates show {id}`");
        return Ok(());
    }
    let update = remote.wait(&id)?;
    if json {
        print_json(&update)?;
    } else {
        crate::server::print_update(&update);
    }
    match update.state {
        knower_server::State::Failed => Err(failure(
            update.error.unwrap_or_else(|| "the update failed".into()),
            Some(&format!("its text is kept: `knower updates retry {id}`")),
        )),
        _ => Ok(()),
    }
}

pub fn update(
    vault: &Arc<Vault>,
    index: &Arc<Index>,
    text: Option<String>,
    files: &[PathBuf],
    inbox_ref: Option<String>,
    json: bool,
) -> Outcome {
    let (text, attachments) = read_update(text, files)?;
    let agents = open(vault, index)?;
    let payload = Payload {
        id: None,
        text,
        attachments,
        inbox_ref,
    };
    let report = block_on(agents.update(payload))?;
    crate::search::warn_problems(index);
    if json {
        print_json(&report)?;
    } else {
        println!("{}", report.summary);
        for path in &report.changed {
            println!("  changed {path}");
        }
        if let Some(reasoning) = &report.reasoning {
            println!("  why: {reasoning}");
        }
        if report.outcome == UpdateOutcome::Inbox
            && let Some(id) = &report.inbox_id
        {
            println!(
                "  see `knower inbox show {id}`; answer with `knower inbox reply {id} ANSWER`"
            );
        }
        if let Some(usage) = &report.usage {
            println!(
                "  {} model calls, {} tokens in, {} out",
                usage.calls, usage.input_tokens, usage.output_tokens
            );
        }
        for call in report.tool_calls.iter().filter(|c| !c.ok) {
            eprintln!(
                "warning: refused {}: {}",
                call.tool,
                call.error.as_deref().unwrap_or("")
            );
        }
    }
    if report.outcome == UpdateOutcome::Failed {
        return Err(failure(
            report.error.unwrap_or_else(|| "the update failed".into()),
            report
                .inbox_id
                .as_ref()
                .map(|_| "the update is kept in the inbox; nothing is lost"),
        ));
    }
    Ok(())
}

pub fn ask(
    vault: &Arc<Vault>,
    index: &Arc<Index>,
    question: &str,
    mode: ModeArg,
    scope: Option<String>,
    json: bool,
) -> Outcome {
    let mode = crate::search::prepare(index, mode, json)?;
    let agents = open(vault, index)?;
    let answer = block_on(agents.ask_within(question, mode, scope.as_deref()))?;
    if json {
        return print_json(&answer);
    }
    println!("{}", answer.markdown.trim_end());
    if let Some(usage) = &answer.usage {
        eprintln!(
            "({}: {} model calls, {} tokens in, {} out)",
            answer.engine, usage.calls, usage.input_tokens, usage.output_tokens
        );
    }
    Ok(())
}

pub fn inbox_list(vault: &Vault, json: bool) -> Outcome {
    let items = knower_agents::inbox_list(vault)?;
    if json {
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
        println!("  {}  {}", item.id, item.title);
    }
    println!("see one with `knower inbox show ID`; answer with `knower inbox reply ID ANSWER`");
    Ok(())
}

pub fn inbox_show(vault: &Vault, id: &str, json: bool) -> Outcome {
    let item = knower_agents::inbox_item(vault, id)?;
    if json {
        return print_json(&serde_json::json!({
            "id": item.id, "folder": item.folder, "title": item.title, "options": item.options,
            "attachments": item.attachments, "review": item.review, "text": item.text,
        }));
    }
    let body = frontmatter::split(&item.review)
        .map(|s| s.body)
        .unwrap_or(&item.review);
    println!("{}", body.trim_end());
    Ok(())
}

pub fn prompts(vault: &Vault, name: Option<String>, json: bool) -> Outcome {
    let prompts = knower_agents::prompts(vault);
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
        if json {
            return print_json(prompt);
        }
        println!("{}", prompt.text);
        return Ok(());
    }
    if json {
        return print_json(&prompts);
    }
    for p in &prompts {
        let source = match &p.source {
            PromptSource::BuiltIn => format!("built in (override with prompts/{}.md)", p.name),
            PromptSource::Vault(path) => format!("from the vault: {path}"),
        };
        println!("{:<8} {source}", p.name);
    }
    Ok(())
}
