//! Codex CLI sessions: `~/.codex/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl`.
//! Each line is `{timestamp, type, payload}`: `session_meta` (the
//! session's `id`, `cwd`, `timestamp`), `response_item` (a `message` with
//! `role` and `input_text`/`output_text` blocks, or a `function_call`,
//! `local_shell_call`, `custom_tool_call`, their outputs, `reasoning`),
//! `event_msg` (the same turns again as `user_message`/`agent_message`,
//! token counts), `turn_context`, `compacted`. The conversation is the
//! `response_item` messages; the context Codex injects as user messages
//! (`<environment_context>`, `<user_instructions>`, AGENTS.md) is the
//! tool's, not the user's. A shell call is kept with whether its output
//! says it worked. Older rollouts put the items at the top level, without
//! `payload`; both are read.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::{Read, day_of, day_of_record, headline, noise, record, stem};
use crate::conversation::{Conversation, Format, Kept, Ran, Turn};

/// The record types of a rollout.
const TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

pub fn is_record(record: &Value) -> bool {
    record
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| TYPES.contains(&t))
        && record.get("payload").is_some()
}

pub fn read(path: &Path, lines: &mut dyn Iterator<Item = (usize, String)>) -> Read {
    let mut read = Read::default();
    let mut kept = Kept::default();
    let mut folder = None;
    let mut first_day = None;
    // call id → the turn of the command it ran.
    let mut pending: HashMap<String, usize> = HashMap::new();
    for (n, line) in lines {
        let Some(record) = record(path, n, &line, &mut read) else {
            continue;
        };
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let item = match record.get("payload") {
            Some(payload) if kind == "response_item" => payload,
            Some(payload) if kind == "session_meta" => {
                folder = payload
                    .get("cwd")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                first_day = first_day.or_else(|| {
                    payload
                        .get("timestamp")
                        .and_then(Value::as_str)
                        .and_then(day_of)
                });
                continue;
            }
            Some(_) => continue,
            // An older rollout: the item is the record.
            None => &record,
        };
        let day = day_of_record(&record);
        if first_day.is_none() {
            first_day = day.clone();
        }
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                let speaker = match item.get("role").and_then(Value::as_str) {
                    Some("user") => "User",
                    Some("assistant") => "Assistant",
                    _ => continue,
                };
                let text: Vec<&str> = item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|b| {
                        matches!(
                            b.get("type").and_then(Value::as_str),
                            Some("input_text" | "output_text" | "text")
                        )
                    })
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect();
                let said = noise::said(&text.join("\n"));
                if said.starts_with("# AGENTS.md") {
                    continue;
                }
                kept.say(speaker, &said, None, day);
            }
            Some("function_call" | "local_shell_call" | "custom_tool_call") => {
                let Some(command) = shell_command(item) else {
                    continue;
                };
                let turn = Turn {
                    speaker: "Assistant".into(),
                    text: String::new(),
                    id: None,
                    ran: Some(Ran { command, ok: false }),
                    day,
                };
                if let (Some(at), Some(call)) = (kept.push(turn), call_id(item)) {
                    pending.insert(call, at);
                }
            }
            Some(
                "function_call_output" | "local_shell_call_output" | "custom_tool_call_output",
            ) => {
                if let Some(&at) = call_id(item).and_then(|id| pending.get(&id))
                    && let Some(ran) = kept.turns.get_mut(at).and_then(|t| t.ran.as_mut())
                {
                    ran.ok = worked(item.get("output"));
                }
            }
            _ => {}
        }
    }
    if kept.turns.is_empty() && kept.omitted == 0 {
        return read;
    }
    let name = kept
        .turns
        .iter()
        .find(|t| t.speaker == "User" && !t.text.trim().is_empty())
        .map(|t| headline(&t.text, 60))
        .unwrap_or_else(|| stem(path));
    read.conversations.push(Conversation {
        name,
        date: first_day,
        source: path.to_path_buf(),
        key: None,
        format: Format::Codex,
        turns: kept.turns,
        omitted: kept.omitted,
        folder,
    });
    read
}

fn call_id(item: &Value) -> Option<String> {
    item.get("call_id")
        .or_else(|| item.get("id"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The shell command of a tool call: `shell`'s `command` (a list of
/// arguments, `bash -lc "…"` unwrapped, or a string), a local shell
/// call's `action.command`.
fn shell_command(item: &Value) -> Option<String> {
    let arguments: Value = match item.get("arguments") {
        Some(Value::String(json)) => serde_json::from_str(json).ok()?,
        Some(other) => other.clone(),
        None => item.get("action").cloned()?,
    };
    let name = item.get("name").and_then(Value::as_str).unwrap_or("shell");
    if !matches!(
        name,
        "shell" | "shell_command" | "exec_command" | "local_shell" | "container.exec"
    ) {
        return None;
    }
    let command = arguments.get("command").or_else(|| arguments.get("cmd"))?;
    match command {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let parts: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            match parts.as_slice() {
                [shell, flag, script] if shell.ends_with("sh") && flag.starts_with('-') => {
                    Some(script.to_string())
                }
                _ => Some(parts.join(" ")),
            }
        }
        _ => None,
    }
}

/// Whether a call's output says it worked: an exit code of 0 where it
/// says one.
fn worked(output: Option<&Value>) -> bool {
    let text = match output {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => return false,
    };
    if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(&text)
        && let Some(code) = o.get("metadata").and_then(|m| m.get("exit_code"))
    {
        return code.as_i64() == Some(0);
    }
    text.contains("Exit code: 0") || text.contains("\"exit_code\":0")
}
