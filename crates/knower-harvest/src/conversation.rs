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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    ClaudeCode,
    ChatGpt,
    ClaudeAi,
    KnowerChat,
    Text,
}

impl Format {
    pub fn label(self) -> &'static str {
        match self {
            Format::ClaudeCode => "Claude Code transcript",
            Format::ChatGpt => "ChatGPT export",
            Format::ClaudeAi => "Claude.ai export",
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

    /// SHA-256 of [`Conversation::text`], in hex: the ledger's key, so the
    /// same content met again (another copy, another path) costs nothing.
    pub fn digest(&self) -> String {
        hex(&Sha256::digest(self.text().as_bytes()))
    }

    /// Where it came from, as the ledger records it.
    pub fn location(&self) -> String {
        match &self.key {
            Some(key) => format!("{}#{key}", self.source.display()),
            None => self.source.display().to_string(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.turns
            .iter()
            .all(|t| t.text.trim().is_empty() && t.ran.is_none())
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
