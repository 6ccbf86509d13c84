//! Knower's own chat log (`chat/log.jsonl` in the vault): one record per
//! exchange, `{"at", "session", "user", "assistant"}`. Each session is a
//! conversation.

use std::path::Path;

use serde_json::Value;

use super::{Read, day_of};
use crate::conversation::{Conversation, Format, Turn};

pub fn is_record(record: &Value) -> bool {
    record.get("session").is_some()
        && record.get("user").is_some()
        && record.get("assistant").is_some()
}

pub fn read(path: &Path, lines: &mut dyn Iterator<Item = (usize, String)>) -> Read {
    let mut read = Read::default();
    let mut sessions: Vec<Conversation> = Vec::new();
    for (n, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let record: Value = match serde_json::from_str(&line) {
            Ok(value) if is_record(&value) => value,
            Ok(_) => {
                read.warnings.push(format!(
                    "{}:{}: skipped a record that is not an exchange",
                    path.display(),
                    n
                ));
                continue;
            }
            Err(e) => {
                read.warnings.push(format!(
                    "{}:{}: skipped a line that is not JSON ({e})",
                    path.display(),
                    n
                ));
                continue;
            }
        };
        let session = record["session"].as_str().unwrap_or("chat").to_string();
        let at = record.get("at").and_then(Value::as_str).unwrap_or("");
        let index = match sessions
            .iter()
            .position(|c| c.key.as_deref() == Some(&session))
        {
            Some(i) => i,
            None => {
                sessions.push(Conversation {
                    name: format!("chat {session}"),
                    date: day_of(at),
                    source: path.to_path_buf(),
                    key: Some(session.clone()),
                    format: Format::KnowerChat,
                    turns: vec![],
                    omitted: 0,
                    folder: None,
                });
                sessions.len() - 1
            }
        };
        let id = record.get("id").and_then(Value::as_str).map(str::to_string);
        for (speaker, field) in [("User", "user"), ("Assistant", "assistant")] {
            if let Some(text) = record.get(field).and_then(Value::as_str) {
                sessions[index].turns.push(Turn {
                    speaker: speaker.into(),
                    text: text.to_string(),
                    id: id.clone(),
                    ran: None,
                    day: day_of(at),
                });
            }
        }
    }
    read.conversations = sessions;
    read
}
