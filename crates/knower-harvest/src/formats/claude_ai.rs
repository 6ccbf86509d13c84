//! The Claude.ai data export's `conversations.json`: a list of
//! conversations (`uuid`, `name`, `created_at`, `chat_messages`), each
//! message with its `sender` (`human` or `assistant`) and its `text` (or
//! `content` blocks). Where messages name their parent and the
//! conversation its `current_leaf_message_uuid`, that branch is followed.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::{Read, day_of, headline};
use crate::conversation::{Conversation, Format, Turn};

/// Reads the `i`th conversation of the export into `read`.
pub fn read_one(path: &Path, i: usize, conversation: &Value, read: &mut Read) {
    {
        let key = conversation
            .get("uuid")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("{i}"));
        let Some(messages) = conversation.get("chat_messages").and_then(Value::as_array) else {
            read.warnings.push(format!(
                "{}: conversation {key} skipped: it has no `chat_messages`",
                path.display()
            ));
            return;
        };
        let mut turns = Vec::new();
        for message in branch(conversation, messages) {
            let speaker = match message.get("sender").and_then(Value::as_str) {
                Some("human" | "user") => "User",
                Some("assistant") => "Assistant",
                _ => continue,
            };
            let text = message_text(message);
            if text.trim().is_empty() {
                continue;
            }
            turns.push(Turn {
                speaker: speaker.into(),
                text,
                id: message
                    .get("uuid")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                ran: None,
                day: message
                    .get("created_at")
                    .and_then(Value::as_str)
                    .and_then(day_of),
            });
        }
        if turns.is_empty() {
            return;
        }
        let name = conversation
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.trim().is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| headline(&turns[0].text, 60));
        read.conversations.push(Conversation {
            name,
            date: conversation
                .get("created_at")
                .and_then(Value::as_str)
                .and_then(day_of),
            source: path.to_path_buf(),
            key: Some(key),
            format: Format::ClaudeAi,
            turns,
            omitted: 0,
            folder: None,
        });
    }
}

/// The messages on the current branch, in order; all of them when the
/// export does not say which branch is current.
fn branch<'a>(conversation: &'a Value, messages: &'a [Value]) -> Vec<&'a Value> {
    let leaf = conversation
        .get("current_leaf_message_uuid")
        .and_then(Value::as_str);
    let by_id: HashMap<&str, &Value> = messages
        .iter()
        .filter_map(|m| Some((m.get("uuid")?.as_str()?, m)))
        .collect();
    let Some(mut at) = leaf.and_then(|leaf| by_id.get(leaf).copied()) else {
        return messages.iter().collect();
    };
    let mut chain = vec![at];
    while let Some(parent) = at
        .get("parent_message_uuid")
        .and_then(Value::as_str)
        .and_then(|p| by_id.get(p).copied())
    {
        if chain.len() > messages.len() {
            break;
        }
        chain.push(parent);
        at = parent;
    }
    chain.reverse();
    chain
}

/// What a message says: its `text` content blocks when it has them (the
/// flat `text` field puts the model's thinking before its answer), else
/// its `text`.
fn message_text(message: &Value) -> String {
    let blocks: Vec<&str> = message
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    if blocks.iter().any(|b| !b.trim().is_empty()) {
        return blocks.join("\n");
    }
    message
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}
