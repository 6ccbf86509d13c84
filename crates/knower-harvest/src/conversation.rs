//! One conversation as the harvest reads it: who said what, in order,
//! whatever format it came from.

use sha2::{Digest, Sha256};

/// One turn of a conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// `User`, `Assistant`, a person's name, or `Text` for a plain file.
    pub speaker: String,
    pub text: String,
    /// The turn's own id in its source, when it has one (LoCoMo's
    /// `D1:3`, a message uuid), so extracted items can say where they came
    /// from.
    pub id: Option<String>,
    /// A shell command this turn ran, with whether it worked (Claude Code's
    /// Bash tool calls and their results).
    pub ran: Option<Ran>,
    /// The day it was said (`YYYY-MM-DD`), when the source says.
    pub day: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ran {
    pub command: String,
    pub ok: bool,
}

impl Turn {
    pub fn said(speaker: &str, text: impl Into<String>) -> Turn {
        Turn {
            speaker: speaker.to_string(),
            text: text.into(),
            id: None,
            ran: None,
            day: None,
        }
    }
}

/// A conversation from one source file (an export holds many).
#[derive(Clone, Debug)]
pub struct Conversation {
    /// What provenance calls it: a title, a session's summary, a file name.
    pub name: String,
    /// The day it happened (`YYYY-MM-DD`), when the source says.
    pub date: Option<String>,
    /// The file it came from.
    pub source: std::path::PathBuf,
    /// Which conversation of the file (an export's id), if the file holds
    /// several.
    pub key: Option<String>,
    pub format: Format,
    pub turns: Vec<Turn>,
    /// Bytes of turns read but not kept: a conversation past
    /// [`KEPT_BYTES`] is too large to harvest whole, and its reader keeps
    /// memory flat by counting the rest instead of holding it.
    pub omitted: usize,
    /// The folder the conversation was held in (a coding agent's working
    /// directory), when the source says: it names the project.
    pub folder: Option<String>,
}

/// The most text of one conversation a reader holds (just past the
/// harvest's cap, so that a conversation over it is known to be).
pub const KEPT_BYTES: usize = crate::model::MAX_HARVEST_SOURCE_BYTES + 1;

/// Turns as a reader gathers them: consecutive text of one speaker is one
/// turn, and past [`KEPT_BYTES`] text is counted, not kept.
#[derive(Debug, Default)]
pub struct Kept {
    pub turns: Vec<Turn>,
    bytes: usize,
    pub omitted: usize,
}

impl Kept {
    /// Adds what `speaker` said, to their last turn if they spoke last.
    pub fn say(&mut self, speaker: &str, text: &str, id: Option<String>, day: Option<String>) {
        if text.trim().is_empty() {
            return;
        }
        if self.bytes + text.len() > KEPT_BYTES {
            self.omitted += text.len();
            return;
        }
        self.bytes += text.len();
        match self.turns.last_mut() {
            Some(last) if last.speaker == speaker && last.ran.is_none() => {
                last.text.push_str("\n\n");
                last.text.push_str(text);
            }
            _ => self.turns.push(Turn {
                speaker: speaker.to_string(),
                text: text.to_string(),
                id,
                ran: None,
                day,
            }),
        }
    }

    /// Adds a turn as it is (a command run); returns its index.
    pub fn push(&mut self, turn: Turn) -> Option<usize> {
        let size = turn.text.len() + turn.ran.as_ref().map_or(0, |r| r.command.len());
        if self.bytes + size > KEPT_BYTES {
            self.omitted += size;
            return None;
        }
        self.bytes += size;
        self.turns.push(turn);
        Some(self.turns.len() - 1)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    ClaudeCode,
    ChatGpt,
    ClaudeAi,
    Codex,
    Gemini,
    KnowerChat,
    Text,
}

impl Format {
    pub fn label(self) -> &'static str {
        match self {
            Format::ClaudeCode => "Claude Code transcript",
            Format::ChatGpt => "ChatGPT export",
            Format::ClaudeAi => "Claude.ai export",
            Format::Codex => "Codex CLI session",
            Format::Gemini => "Gemini CLI session",
            Format::KnowerChat => "Knower chat log",
            Format::Text => "text",
        }
    }
}

impl Conversation {
    /// The conversation as one text with its speakers: what the model
    /// reads, what the ledger hashes.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for turn in &self.turns {
            if let Some(ran) = &turn.ran {
                out.push_str(&format!(
                    "{}: ran `{}` ({})\n\n",
                    turn.speaker,
                    ran.command,
                    if ran.ok { "it worked" } else { "it failed" }
                ));
            }
            if !turn.text.trim().is_empty() {
                out.push_str(&format!("{}: {}\n\n", turn.speaker, turn.text.trim()));
            }
        }
        out
    }

    /// Its size (the text kept and the bytes past what was kept) and its
    /// digest, from one rendering of its text. The digest is the SHA-256 of
    /// [`Conversation::text`] (and of how much was not kept), in hex: the
    /// ledger's key, so the same content met again (another copy, another
    /// path) costs nothing.
    pub fn measure(&self) -> (usize, String) {
        let text = self.text();
        let mut hasher = Sha256::new();
        hasher.update(text.as_bytes());
        if self.omitted > 0 {
            hasher.update(format!("[and {} bytes more]", self.omitted).as_bytes());
        }
        (text.len() + self.omitted, hex(&hasher.finalize()))
    }

    /// Where it came from, as the ledger records it.
    pub fn location(&self) -> String {
        match &self.key {
            Some(key) => format!("{}#{key}", self.source.display()),
            None => self.source.display().to_string(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.omitted == 0
            && self
                .turns
                .iter()
                .all(|t| t.text.trim().is_empty() && t.ran.is_none())
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
