//! Gemini CLI: sessions it records (`~/.gemini/tmp/<project>/chats/
//! session-*.json`, an object `{sessionId, projectHash, startTime,
//! messages}` whose messages have a `type` — `user`, `gemini`, `info`,
//! `error` — a `timestamp` and `content`, a string or `[{text}]`; newer
//! versions write the same as `.jsonl`, the session's fields on the first
//! line and a message a line) and the checkpoints `/chat save` writes
//! (`checkpoint-<tag>.json`, the model's history: `[{role: user|model,
//! parts: [{text} | {functionCall} | {functionResponse}]}]`). Only what
//! the user and the model said is read: tool calls and their responses,
//! thoughts, the CLI's `info`/`error` lines and the setup context it opens
//! a checkpoint's history with are not.

use std::path::Path;

use serde_json::{Map, Value};

use super::{Read, day_of, day_of_record, headline, noise, record, stem};
use crate::conversation::{Conversation, Format, Kept};

/// A `.jsonl` record of a Gemini CLI session: its first line (with
/// `projectHash`) or a message of type `gemini`.
pub fn is_record(record: &Value) -> bool {
    record.get("projectHash").is_some()
        || record.get("type").and_then(Value::as_str) == Some("gemini")
}

/// A `.json` session: an object with `messages` and the session's id.
pub fn is_session(object: &Value) -> bool {
    object.get("messages").is_some_and(Value::is_array)
        && (object.get("sessionId").is_some() || object.get("projectHash").is_some())
}

pub fn read_session(path: &Path, session: &Value, read: &mut Read) {
    let mut kept = Kept::default();
    for message in session["messages"].as_array().into_iter().flatten() {
        message_into(message, &mut kept);
    }
    push(path, session, kept, read);
}

pub fn read_jsonl(path: &Path, lines: &mut dyn Iterator<Item = (usize, String)>) -> Read {
    let mut read = Read::default();
    let mut kept = Kept::default();
    let mut meta = Value::Object(Map::new());
    for (n, line) in lines {
        let Some(record) = record(path, n, &line, &mut read) else {
            continue;
        };
        if record.get("projectHash").is_some() || record.get("sessionId").is_some() {
            meta = record;
        } else {
            message_into(&record, &mut kept);
        }
    }
    push(path, &meta, kept, &mut read);
    read
}

fn message_into(message: &Value, kept: &mut Kept) {
    let speaker = match message.get("type").and_then(Value::as_str) {
        Some("user") => "User",
        Some("gemini" | "model" | "assistant") => "Assistant",
        _ => return,
    };
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts_text(parts),
        _ => return,
    };
    let day = day_of_record(message);
    let id = message
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string);
    kept.say(speaker, &noise::said(&text), id, day);
}

/// The context the CLI opens every history with, as a user turn, and the
/// model's acknowledgement of it: the tool's setup, not the conversation.
const SETUP: &str = "This is the Gemini CLI. We are setting up the context";
const SETUP_ACK: &str = "Got it. Thanks for the context!";

/// One element of a checkpoint's history.
pub fn checkpoint_turn(content: &Value, kept: &mut Kept) {
    let speaker = match content.get("role").and_then(Value::as_str) {
        Some("user") => "User",
        Some("model") => "Assistant",
        _ => return,
    };
    let parts = content.get("parts").and_then(Value::as_array);
    let text = parts_text(parts.map_or(&[][..], Vec::as_slice));
    if text.starts_with(SETUP) || text.trim() == SETUP_ACK {
        return;
    }
    kept.say(speaker, &noise::said(&text), None, None);
}

pub fn push_checkpoint(path: &Path, kept: Kept, read: &mut Read) {
    push(path, &Value::Null, kept, read);
}

/// The text parts of a message (a thought part is the model's working).
fn parts_text(parts: &[Value]) -> String {
    parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

fn push(path: &Path, meta: &Value, kept: Kept, read: &mut Read) {
    if kept.turns.is_empty() && kept.omitted == 0 {
        return;
    }
    let date = meta
        .get("startTime")
        .and_then(Value::as_str)
        .and_then(day_of)
        .or_else(|| kept.turns.iter().find_map(|t| t.day.clone()));
    let name = kept
        .turns
        .iter()
        .find(|t| t.speaker == "User")
        .map(|t| headline(&t.text, 60))
        .unwrap_or_else(|| stem(path));
    read.conversations.push(Conversation {
        name,
        date,
        source: path.to_path_buf(),
        key: None,
        format: Format::Gemini,
        turns: kept.turns,
        omitted: kept.omitted,
        folder: None,
    });
}
