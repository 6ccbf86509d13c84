//! Reading the files people have: Claude Code transcripts, the ChatGPT
//! and Claude.ai data exports, Knower's own chat log, and plain text. Each
//! becomes [`Conversation`]s with their speakers. A malformed record skips
//! that record with a warning, never the whole file; a file in no known
//! format is an error naming it.

mod chatgpt;
mod claude_ai;
mod claude_code;
mod codex;
mod exports;
mod gemini;
mod knower_chat;
mod noise;
mod text;

use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::conversation::Conversation;

/// What reading one file gave.
#[derive(Debug, Default)]
pub struct Read {
    pub conversations: Vec<Conversation>,
    /// Records skipped, each with its line or place and why.
    pub warnings: Vec<String>,
    /// The SHA-256 of the file's bytes as they were read (reclaim deletes
    /// a file only if it still has them).
    pub sha256: String,
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

/// The longest line of a `.jsonl` file that is read: a longer one (an
/// inlined image, a pasted dump) is skipped with a warning, so that one
/// record never holds more than this in memory.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;
/// The largest `.md`/`.txt` file read as one conversation.
pub const MAX_TEXT_BYTES: u64 = 16 * 1024 * 1024;

/// Reads the file at `path` in the format it is in. Only regular files are
/// read (a device, FIFO or socket is refused before it is opened), and
/// memory stays flat: `.jsonl` is read a line at a time, exports a
/// conversation at a time, and each conversation keeps at most
/// [`crate::conversation::KEPT_BYTES`] of text.
pub fn read(path: &Path) -> Result<Read, FormatError> {
    let mut conversations = Vec::new();
    let mut read = each(path, &mut |c| conversations.push(c))?;
    read.conversations = conversations;
    Ok(read)
}

/// Reads the file at `path` as [`read`] does, handing each conversation to
/// `each` as soon as it is read (an export's conversations one by one) and
/// keeping none: what comes back has the warnings and the file's hash.
pub fn each(path: &Path, each: &mut dyn FnMut(Conversation)) -> Result<Read, FormatError> {
    let mut read = whole(path, each)?;
    for conversation in read.conversations.drain(..) {
        each(conversation);
    }
    Ok(read)
}

fn whole(path: &Path, each: &mut dyn FnMut(Conversation)) -> Result<Read, FormatError> {
    let name = path.display().to_string();
    let unreadable = |detail: String| FormatError::Unreadable {
        path: name.clone(),
        detail,
    };
    let file = open(path).map_err(unreadable)?;
    let ext = extension(path);
    match ext.as_str() {
        "jsonl" => {
            let kind = sniff_jsonl(path, file).map_err(&unreadable)?;
            let file = open(path).map_err(&unreadable)?;
            let mut lines = Lines::new(path, file);
            let mut read = match kind {
                Jsonl::Empty => Read::default(),
                Jsonl::KnowerChat => knower_chat::read(path, &mut lines),
                Jsonl::ClaudeCode => claude_code::read(path, &mut lines),
                Jsonl::Codex => codex::read(path, &mut lines),
                Jsonl::Gemini => gemini::read_jsonl(path, &mut lines),
                Jsonl::Unknown(detail) => {
                    return Err(FormatError::Unknown { path: name, detail });
                }
            };
            if let Some(e) = lines.error.take() {
                return Err(unreadable(e));
            }
            let mut warnings = std::mem::take(&mut lines.warnings);
            warnings.append(&mut read.warnings);
            read.warnings = warnings;
            read.sha256 = lines.digest();
            Ok(read)
        }
        "md" | "markdown" | "txt" => {
            let size = file.metadata().map(|m| m.len()).unwrap_or(0);
            if size > MAX_TEXT_BYTES {
                return Err(unreadable(format!(
                    "{} MB of text is more than one conversation (Knower reads .md and .txt \
                     files up to {} MB)",
                    size / (1024 * 1024),
                    MAX_TEXT_BYTES / (1024 * 1024)
                )));
            }
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut { file }, &mut bytes)
                .map_err(|e| unreadable(e.to_string()))?;
            let text = std::str::from_utf8(&bytes).map_err(|e| {
                unreadable(format!(
                    "not UTF-8 text (first invalid byte at offset {})",
                    e.valid_up_to()
                ))
            })?;
            let mut read = text::read(path, text);
            read.sha256 = crate::sha256(&bytes);
            Ok(read)
        }
        "json" => exports::read(path, file, each),
        other => Err(FormatError::Unknown {
            path: name,
            detail: format!(
                "files ending in .{other} are not conversations Knower can read (it reads \
                 Claude Code, Codex CLI and Gemini CLI sessions, ChatGPT and Claude.ai \
                 conversations.json, Knower's chat log, and .md/.txt)"
            ),
        }),
    }
}

/// Opens a regular file; anything else is refused before it is opened, so
/// that a FIFO cannot hang the harvest and `/dev/zero` cannot fill memory.
fn open(path: &Path) -> Result<std::fs::File, String> {
    let regular = |meta: &std::fs::Metadata| {
        if meta.is_file() {
            Ok(())
        } else {
            Err(format!(
                "not a regular file ({}); Knower reads conversations from files only",
                kind_of(meta)
            ))
        }
    };
    regular(&std::fs::metadata(path).map_err(|e| e.to_string())?)?;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    // It may have been swapped between the look and the open.
    regular(&file.metadata().map_err(|e| e.to_string())?)?;
    Ok(file)
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a file"
    }
}

/// The formats a `.jsonl` file can be in.
enum Jsonl {
    Empty,
    KnowerChat,
    ClaudeCode,
    Codex,
    Gemini,
    Unknown(String),
}

/// How many records are looked at to tell a `.jsonl` file's format.
const SNIFF_RECORDS: usize = 2_000;

/// Tells a `.jsonl` file's format from its first records: Knower's chat log
/// by its first record; a Codex CLI rollout, a Gemini CLI session or a
/// Claude Code session by any record of theirs.
fn sniff_jsonl(path: &Path, file: std::fs::File) -> Result<Jsonl, String> {
    let mut lines = Lines::new(path, file);
    let mut objects = 0;
    let mut any = false;
    for (_, line) in lines.by_ref().take(SNIFF_RECORDS) {
        any |= !line.trim().is_empty();
        let Ok(record) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if !record.is_object() {
            continue;
        }
        objects += 1;
        if objects == 1 && knower_chat::is_record(&record) {
            return Ok(Jsonl::KnowerChat);
        }
        if codex::is_record(&record) {
            return Ok(Jsonl::Codex);
        }
        if gemini::is_record(&record) {
            return Ok(Jsonl::Gemini);
        }
        if claude_code::is_record(&record) {
            return Ok(Jsonl::ClaudeCode);
        }
    }
    if let Some(e) = lines.error {
        return Err(e);
    }
    Ok(match (any, objects) {
        (false, _) => Jsonl::Empty,
        (true, 0) => Jsonl::Unknown("no line of it is a JSON object".into()),
        _ => Jsonl::Unknown(
            "JSON lines, but not a conversation Knower reads (a Claude Code, Codex CLI or \
             Gemini CLI session, or Knower's chat log)"
                .into(),
        ),
    })
}

/// A `.jsonl` file's lines, numbered from 1, read a buffer at a time. A
/// line that is not UTF-8 or longer than [`MAX_LINE_BYTES`] is skipped and
/// named in `warnings` (a damaged record costs that record, not the
/// file's others); a read error ends the lines and is kept in `error`.
pub struct Lines {
    path: std::path::PathBuf,
    input: std::io::BufReader<std::fs::File>,
    n: usize,
    hasher: Sha256,
    pub warnings: Vec<String>,
    pub error: Option<String>,
}

impl Lines {
    fn new(path: &Path, file: std::fs::File) -> Lines {
        Lines {
            path: path.to_path_buf(),
            input: std::io::BufReader::with_capacity(64 * 1024, file),
            n: 0,
            hasher: Sha256::new(),
            warnings: Vec::new(),
            error: None,
        }
    }

    /// The SHA-256 of every byte read.
    fn digest(&self) -> String {
        crate::conversation::hex(&self.hasher.clone().finalize())
    }

    /// The next line's bytes (without its newline), `None` at the end; a
    /// line past the cap comes back as its length alone.
    fn next_bytes(&mut self) -> Option<Result<Vec<u8>, usize>> {
        use std::io::BufRead;
        let mut line = Vec::new();
        let mut length = 0usize;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.error = Some(e.to_string());
                    return None;
                }
            };
            if chunk.is_empty() {
                if length == 0 {
                    return None;
                }
                return Some(if length > MAX_LINE_BYTES {
                    Err(length)
                } else {
                    Ok(line)
                });
            }
            let (part, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => (&chunk[..at], Some(at + 1)),
                None => (chunk, None),
            };
            length += part.len();
            if length <= MAX_LINE_BYTES {
                line.extend_from_slice(part);
            } else {
                line = Vec::new();
            }
            let used = end.unwrap_or(chunk.len());
            self.hasher.update(&chunk[..used]);
            self.input.consume(used);
            if end.is_some() {
                return Some(if length > MAX_LINE_BYTES {
                    Err(length)
                } else {
                    Ok(line)
                });
            }
        }
    }
}

impl Iterator for Lines {
    type Item = (usize, String);

    fn next(&mut self) -> Option<(usize, String)> {
        loop {
            let bytes = self.next_bytes()?;
            self.n += 1;
            match bytes {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(line) => return Some((self.n, line)),
                    Err(e) => self.warnings.push(format!(
                        "{}:{}: skipped a line that is not UTF-8 text (first invalid byte at \
                         column {})",
                        self.path.display(),
                        self.n,
                        e.utf8_error().valid_up_to() + 1
                    )),
                },
                Err(length) => self.warnings.push(format!(
                    "{}:{}: skipped a line of {} MB (lines over {} MB are not read)",
                    self.path.display(),
                    self.n,
                    length / (1024 * 1024),
                    MAX_LINE_BYTES / (1024 * 1024)
                )),
            }
        }
    }
}

/// A line as JSON, or a warning naming it.
pub(crate) fn record(path: &Path, n: usize, line: &str, read: &mut Read) -> Option<Value> {
    if line.trim().is_empty() {
        return None;
    }
    match serde_json::from_str(line) {
        Ok(value) => Some(value),
        Err(e) => {
            read.warnings.push(format!(
                "{}:{n}: skipped a line that is not JSON ({e})",
                path.display()
            ));
            None
        }
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

/// The day of a record's `timestamp` (Claude Code's, Codex's and Gemini
/// CLI's records all carry one).
pub(crate) fn day_of_record(record: &Value) -> Option<String> {
    record
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(day_of)
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
        .map(|s| crate::knowledge::escaped(&s.to_string_lossy()))
        .unwrap_or_else(|| "conversation".into())
}
