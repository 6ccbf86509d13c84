//! Reading the files people have: Claude Code transcripts, the ChatGPT
//! and Claude.ai data exports, Knower's own chat log, and plain text. Each
//! becomes [`Conversation`]s with their speakers. A malformed record skips
//! that record with a warning, never the whole file; a file in no known
//! format is an error naming it.

mod chatgpt;
mod claude_ai;
mod claude_code;
mod knower_chat;
mod text;

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;

use crate::conversation::Conversation;

/// What reading one file gave.
#[derive(Debug, Default)]
pub struct Read {
    pub conversations: Vec<Conversation>,
    /// Records skipped, each with its line or place and why.
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("{path}: {detail}")]
    Unknown { path: String, detail: String },
    #[error("{path}: {detail}")]
    Unreadable { path: String, detail: String },
}

/// Whether a folder walk should look at this file at all.
pub fn looks_like_a_source(path: &Path) -> bool {
    matches!(
        extension(path).as_str(),
        "jsonl" | "json" | "md" | "markdown" | "txt"
    )
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Reads `bytes` (the content of `path`) in the format it is in.
pub fn read(path: &Path, bytes: &[u8]) -> Result<Read, FormatError> {
    let name = path.display().to_string();
    let ext = extension(path);
    if ext == "jsonl" {
        let (text, mut warnings) = jsonl_text(path, bytes);
        let mut read = read_jsonl(path, &text)?;
        warnings.append(&mut read.warnings);
        read.warnings = warnings;
        return Ok(read);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| FormatError::Unreadable {
        path: name.clone(),
        detail: format!(
            "not UTF-8 text (first invalid byte at offset {})",
            e.valid_up_to()
        ),
    })?;
    match ext.as_str() {
        "md" | "markdown" | "txt" => Ok(text::read(path, text)),
        "json" => {
            let value: Value = serde_json::from_str(text).map_err(|e| FormatError::Unknown {
                path: name.clone(),
                detail: format!("not JSON ({e})"),
            })?;
            let first = value.as_array().and_then(|a| a.first());
            match first {
                Some(c) if c.get("mapping").is_some() => Ok(chatgpt::read(path, &value)),
                Some(c) if c.get("chat_messages").is_some() => Ok(claude_ai::read(path, &value)),
                Some(_) => Err(FormatError::Unknown {
                    path: name,
                    detail: "a JSON list, but neither a ChatGPT export (conversations with \
                             `mapping`) nor a Claude.ai export (conversations with \
                             `chat_messages`)"
                        .into(),
                }),
                None if value.as_array().is_some() => Ok(Read::default()),
                None => Err(FormatError::Unknown {
                    path: name,
                    detail: "JSON, but not a list of conversations (the ChatGPT and Claude.ai \
                             exports' conversations.json)"
                        .into(),
                }),
            }
        }
        other => Err(FormatError::Unknown {
            path: name,
            detail: format!(
                "files ending in .{other} are not conversations Knower can read (it reads \
                 Claude Code .jsonl transcripts, ChatGPT and Claude.ai conversations.json, \
                 Knower's chat log, and .md/.txt)"
            ),
        }),
    }
}

/// A `.jsonl` file's text, with each line that is not UTF-8 left empty
/// (so that the others keep their numbers) and named in a warning: a
/// damaged record costs that record, as a line that is not JSON does, not
/// the file's other records.
fn jsonl_text<'a>(path: &Path, bytes: &'a [u8]) -> (Cow<'a, str>, Vec<String>) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (Cow::Borrowed(text), Vec::new());
    }
    let mut text = String::with_capacity(bytes.len());
    let mut warnings = Vec::new();
    for (n, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        match std::str::from_utf8(line) {
            Ok(line) => text.push_str(line),
            Err(e) => {
                warnings.push(format!(
                    "{}:{}: skipped a line that is not UTF-8 text (first invalid byte at column {})",
                    path.display(),
                    n + 1,
                    e.valid_up_to() + 1
                ));
                text.push('\n');
            }
        }
    }
    (Cow::Owned(text), warnings)
}

/// A `.jsonl` file: a Claude Code transcript or Knower's chat log, told
/// apart by their first well-formed record.
fn read_jsonl(path: &Path, text: &str) -> Result<Read, FormatError> {
    let first = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|v| v.is_object());
    match first {
        None if text.trim().is_empty() => Ok(Read::default()),
        None => Err(FormatError::Unknown {
            path: path.display().to_string(),
            detail: "no line of it is a JSON object".into(),
        }),
        Some(record) if knower_chat::is_record(&record) => Ok(knower_chat::read(path, text)),
        // A Claude Code session is known by any of its records, not only
        // by its first.
        Some(_)
            if text
                .lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .any(|record| claude_code::is_record(&record)) =>
        {
            Ok(claude_code::read(path, text))
        }
        Some(_) => Err(FormatError::Unknown {
            path: path.display().to_string(),
            detail: "JSON lines, but neither a Claude Code transcript (records with `type` and \
                     `message`) nor Knower's chat log"
                .into(),
        }),
    }
}

/// The day of an ISO 8601 timestamp (`2025-05-26T07:27:40Z` → `2025-05-26`).
pub(crate) fn day_of(timestamp: &str) -> Option<String> {
    let day = timestamp.get(..10)?;
    let ok = day.len() == 10
        && day.as_bytes()[4] == b'-'
        && day.as_bytes()[7] == b'-'
        && day
            .chars()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    ok.then(|| day.to_string())
}

/// The day of seconds since the epoch (ChatGPT's `create_time`).
pub(crate) fn day_of_epoch(seconds: f64) -> Option<String> {
    if !seconds.is_finite() {
        return None;
    }
    let timestamp = jiff::Timestamp::from_second(seconds as i64).ok()?;
    Some(timestamp.strftime("%Y-%m-%d").to_string())
}

/// The first words of a text, for a name.
pub(crate) fn headline(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => {
            let cut = &flat[..i];
            let cut = cut.rsplit_once(' ').map_or(cut, |(head, _)| head);
            format!("{cut}…")
        }
        None => flat,
    }
}

/// The file's name without its extension.
pub(crate) fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "conversation".into())
}
