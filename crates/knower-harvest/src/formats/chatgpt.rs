//! The ChatGPT data export's `conversations.json`: a list of
//! conversations, each a tree of messages (`mapping`: node id → `{message,
//! parent, children}`) whose `current_node` is the branch the user last
//! saw. The harvest follows that branch from the root: edited and
//! regenerated turns the user left behind are not part of it.

use std::path::Path;

use serde_json::Value;

use super::{Read, day_of_epoch, headline};
use crate::conversation::{Conversation, Format, Turn};

/// Reads the `i`th conversation of the export into `read`.
pub fn read_one(path: &Path, i: usize, conversation: &Value, read: &mut Read) {
    {
        let key = conversation
            .get("conversation_id")
            .or_else(|| conversation.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("{i}"));
        let Some(mapping) = conversation.get("mapping").and_then(Value::as_object) else {
            read.warnings.push(format!(
                "{}: conversation {key} skipped: it has no `mapping`",
                path.display()
            ));
            return;
        };
        // The current branch, from its leaf up to the root.
        let mut branch = Vec::new();
        let mut node = conversation
            .get("current_node")
            .and_then(Value::as_str)
            .map(str::to_string);
        while let Some(id) = node {
            if branch.len() > mapping.len() {
                read.warnings.push(format!(
                    "{}: conversation {key}: its message tree has a cycle; read what came before it",
                    path.display()
                ));
                break;
            }
            let Some(entry) = mapping.get(&id) else { break };
            branch.push((id.clone(), entry));
            node = entry
                .get("parent")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        branch.reverse();
        let mut turns = Vec::new();
        for (id, entry) in branch {
            let Some(message) = entry.get("message").filter(|m| m.is_object()) else {
                continue;
            };
            let hidden = message
                .pointer("/metadata/is_visually_hidden_from_conversation")
                .and_then(Value::as_bool)
                == Some(true);
            let speaker = match message.pointer("/author/role").and_then(Value::as_str) {
                Some("user") => "User",
                Some("assistant") => "Assistant",
                _ => continue,
            };
            // Code the model sent to a tool (`recipient: python`) and what
            // came back are its working, not the conversation.
            let to_a_tool = message
                .get("recipient")
                .and_then(Value::as_str)
                .is_some_and(|r| r != "all");
            if hidden || to_a_tool {
                continue;
            }
            let text = content_text(message.get("content"));
            if text.trim().is_empty() {
                continue;
            }
            turns.push(Turn {
                speaker: speaker.into(),
                text,
                id: Some(id),
                ran: None,
                day: message
                    .get("create_time")
                    .and_then(Value::as_f64)
                    .and_then(day_of_epoch),
            });
        }
        if turns.is_empty() {
            return;
        }
        let name = conversation
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| headline(&turns[0].text, 60));
        read.conversations.push(Conversation {
            name,
            date: conversation
                .get("create_time")
                .and_then(Value::as_f64)
                .and_then(day_of_epoch),
            source: path.to_path_buf(),
            key: Some(key),
            format: Format::ChatGpt,
            turns,
            omitted: 0,
            folder: None,
        });
    }
}

/// The readable text of a message's `content`: `text` and
/// `multimodal_text` parts that are strings (images are objects), code as a
/// fenced block; reasoning and browsing records are left out.
fn content_text(content: Option<&Value>) -> String {
    let Some(content) = content else {
        return String::new();
    };
    match content.get("content_type").and_then(Value::as_str) {
        Some("text" | "multimodal_text") => content
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("\n"),
        Some("code") => content
            .get("text")
            .and_then(Value::as_str)
            .map(|code| format!("```\n{code}\n```"))
            .unwrap_or_default(),
        _ => String::new(),
    }
}
