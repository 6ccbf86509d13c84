//! Claude Code transcripts: `~/.claude/projects/<project>/<session>.jsonl`,
//! one JSON record per line. `user` and `assistant` records carry a
//! `message` (`content` a string, or blocks: `text`, `tool_use`,
//! `tool_result`, `thinking`); `summary`, `ai-title` and `custom-title`
//! records name the session; `cwd` is its working folder. Sub-agent
//! records (`isSidechain`), meta records (`isMeta`: skill prompts, caveats),
//! compaction summaries (`isCompactSummary`), tool results and the tool's
//! own wrapped messages ([`super::noise`]) are left out; a Bash tool call
//! is kept with whether its result was an error, so commands that worked
//! can become playbooks. Record types it does not use are skipped, so
//! the types a newer Claude Code adds cost nothing.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::{Read, day_of_record, headline, noise, record, stem};
use crate::conversation::{Conversation, Format, Kept, Ran, Turn};

/// Whether a record is one of a Claude Code session's. Sessions open with
/// whatever record the version writing them puts first (`permission-mode`,
/// `progress`, `file-history-snapshot`, `summary`…) and add types over
/// time, so a session is known by any record of it: a turn (`user` or
/// `assistant` with a `message`), or a typed record carrying the
/// session's `sessionId`, or one of the types it has long written.
pub fn is_record(record: &Value) -> bool {
    let kind = record.get("type").and_then(Value::as_str);
    match kind {
        Some("user" | "assistant") => record.get("message").is_some(),
        Some("summary" | "system" | "queue-operation" | "file-history-snapshot") => true,
        Some(_) => record.get("sessionId").and_then(Value::as_str).is_some(),
        None => false,
    }
}

pub fn read(path: &Path, lines: &mut dyn Iterator<Item = (usize, String)>) -> Read {
    let mut read = Read::default();
    let mut kept = Kept::default();
    let mut summary = None;
    let mut custom_title = None;
    let mut ai_title = None;
    let mut first_day = None;
    let mut folder = None;
    // tool_use id → the turn of the command it ran.
    let mut pending: HashMap<String, usize> = HashMap::new();
    for (n, line) in lines {
        let Some(record) = record(path, n, &line, &mut read) else {
            continue;
        };
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let text_of = |key: &str| {
            record
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        };
        // The session's names, the last of each kind winning: the title
        // the person gave, the one Claude Code made, a summary.
        match kind {
            "summary" => summary = text_of("summary").or(summary),
            "custom-title" => custom_title = text_of("customTitle").or(custom_title),
            "ai-title" => ai_title = text_of("aiTitle").or_else(|| text_of("title")).or(ai_title),
            _ => {}
        }
        if kind != "user" && kind != "assistant" {
            continue;
        }
        let flag = |key: &str| record.get(key).and_then(Value::as_bool) == Some(true);
        if flag("isSidechain") || flag("isMeta") || flag("isCompactSummary") {
            continue;
        }
        let Some(message) = record.get("message") else {
            read.warnings.push(format!(
                "{}:{n}: skipped a {kind} record without a message",
                path.display()
            ));
            continue;
        };
        let day = day_of_record(&record);
        if first_day.is_none() {
            first_day = day.clone();
        }
        if folder.is_none() {
            folder = text_of("cwd");
        }
        let speaker = if kind == "user" { "User" } else { "Assistant" };
        let id = record
            .get("uuid")
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut said = String::new();
        let mut ran = Vec::new();
        match message.get("content") {
            Some(Value::String(text)) => said.push_str(text),
            Some(Value::Array(blocks)) => {
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            if let Some(text) = block.get("text").and_then(Value::as_str) {
                                if !said.is_empty() {
                                    said.push('\n');
                                }
                                said.push_str(text);
                            }
                        }
                        Some("tool_use") => {
                            let command = block
                                .get("input")
                                .and_then(|i| i.get("command"))
                                .and_then(Value::as_str);
                            let is_shell =
                                block.get("name").and_then(Value::as_str) == Some("Bash");
                            if let (true, Some(command), Some(tool_id)) =
                                (is_shell, command, block.get("id").and_then(Value::as_str))
                            {
                                ran.push((tool_id.to_string(), command.to_string()));
                            }
                        }
                        Some("tool_result") => {
                            let tool_id = block.get("tool_use_id").and_then(Value::as_str);
                            let failed =
                                block.get("is_error").and_then(Value::as_bool) == Some(true);
                            if let Some(&turn) = tool_id.and_then(|id| pending.get(id))
                                && let Some(run) =
                                    kept.turns.get_mut(turn).and_then(|t| t.ran.as_mut())
                            {
                                run.ok = !failed;
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {
                read.warnings.push(format!(
                    "{}:{n}: skipped a {kind} record whose content is neither text nor blocks",
                    path.display()
                ));
                continue;
            }
        }
        for (tool_id, command) in ran {
            // Each command is its own turn, so its result can be attached.
            let turn = Turn {
                speaker: speaker.to_string(),
                text: String::new(),
                id: id.clone(),
                ran: Some(Ran { command, ok: false }),
                day: day.clone(),
            };
            if let Some(at) = kept.push(turn) {
                pending.insert(tool_id, at);
            }
        }
        kept.say(speaker, &noise::said(&said), id, day);
    }
    if kept.turns.is_empty() && kept.omitted == 0 {
        return read;
    }
    let name = custom_title
        .or(ai_title)
        .or(summary)
        .map(|n| headline(&n, 80))
        .or_else(|| {
            kept.turns
                .iter()
                .find(|t| t.speaker == "User" && !t.text.trim().is_empty())
                .map(|t| headline(&t.text, 60))
        })
        .unwrap_or_else(|| stem(path));
    read.conversations.push(Conversation {
        name,
        date: first_day,
        source: path.to_path_buf(),
        key: None,
        format: Format::ClaudeCode,
        turns: kept.turns,
        omitted: kept.omitted,
        folder,
    });
    read
}
