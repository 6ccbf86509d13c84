//! [`Chat`]: one exchange at a time — context, answer (streamed), the log
//! line, the interpretation, the artifacts — and what users do with their
//! memory (list, correct, forget).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use knower_agents::{Agents, Source};
use knower_index::Index;
use knower_llm::Usage;
use knower_llm::chat::{ChatMessage, ChatRequest};
use knower_vault::{Author, INTERNAL_DIR, Vault};
use serde::Serialize;

use crate::artifact::{self, Artifact, Kind, Status};
use crate::context::{self, Context, ContextReport};
use crate::interpret::{self, Action, Interpretation};
use crate::log::{self, LOG, Record};
use crate::offline;
use crate::settings::Settings;
use crate::store;

/// The actor the journal records for the chat's changes to artifacts.
pub const ACTOR: &str = "chat";
pub const PROMPT: &str = "chat";
pub const INTERPRET_PROMPT: &str = "chat-interpret";
pub const BUILT_IN_PROMPT: &str = include_str!("../prompts/chat.md");
pub const BUILT_IN_INTERPRET_PROMPT: &str = include_str!("../prompts/chat-interpret.md");
/// How the offline engine names itself.
pub const OFFLINE: &str = "offline engine";
/// Exchanges looked at again after a crash, at most.
const RECOVER: usize = 50;

#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Vault(#[from] knower_vault::Error),
    #[error(transparent)]
    Agents(#[from] knower_agents::Error),
    #[error(transparent)]
    Llm(#[from] knower_llm::LlmError),
    #[error("{0}")]
    Io(String),
}

/// What an exchange did to the memory.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "change", rename_all = "lowercase")]
pub enum Change {
    Created { artifact: Artifact },
    Resolved { artifact: Artifact },
    Archived { artifact: Artifact },
}

/// One exchange, as the surfaces show it.
#[derive(Clone, Debug, Serialize)]
pub struct Exchange {
    pub id: String,
    pub session: String,
    pub at: String,
    pub user: String,
    pub assistant: String,
    pub engine: String,
    pub cancelled: bool,
    pub context: ContextReport,
    pub changes: Vec<Change>,
    /// The interpreter failed (twice invalid, model down): the exchange is
    /// logged, the memory unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interpretation_error: Option<String>,
    /// The vault notes the answer cites (checked: they exist).
    pub citations: Vec<Source>,
    /// "Remember that …": what to send to the update agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remember: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

pub struct Chat {
    vault: Arc<Vault>,
    index: Arc<Index>,
    agents: Arc<Agents>,
    settings: Settings,
    /// Recovery runs before this process's first exchange: afterwards each
    /// exchange is interpreted as it is logged.
    recovered: std::sync::Once,
    /// When expiry last looked (seconds since the epoch): once an hour is
    /// plenty for a rule counted in days.
    expired_at: std::sync::atomic::AtomicI64,
}

impl Chat {
    /// The chat of a vault, with `[chat]` from its `knower.toml` and the
    /// agents' engine (a model, or the offline engine).
    pub fn open(
        vault: Arc<Vault>,
        index: Arc<Index>,
        agents: Arc<Agents>,
    ) -> Result<Chat, ChatError> {
        let toml = vault.read("knower.toml").unwrap_or_default();
        let settings = Settings::parse(&toml).map_err(ChatError::Invalid)?;
        Ok(Chat::with(vault, index, agents, settings))
    }

    pub fn with(
        vault: Arc<Vault>,
        index: Arc<Index>,
        agents: Arc<Agents>,
        settings: Settings,
    ) -> Chat {
        Chat {
            vault,
            index,
            agents,
            settings,
            recovered: std::sync::Once::new(),
            expired_at: std::sync::atomic::AtomicI64::new(i64::MIN),
        }
    }

    pub fn engine(&self) -> String {
        self.agents.engine_label()
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Every exchange of the log, in order.
    pub fn records(&self) -> Vec<Record> {
        self.vault
            .read(LOG)
            .map(|text| log::parse(&text))
            .unwrap_or_default()
    }

    /// The session the last exchange belongs to (`--resume`).
    pub fn last_session(&self) -> Option<String> {
        self.records().pop().map(|r| r.session)
    }

    /// The exchanges of `session`, the last `n`.
    pub fn history(&self, session: &str, n: usize) -> Vec<Record> {
        log::last(&self.records(), session, n)
    }

    /// The artifacts, and the notes that are not readable as artifacts.
    pub fn artifacts(&self) -> (Vec<Artifact>, Vec<String>) {
        store::all(&self.vault)
    }

    pub fn artifact(&self, id: &str) -> Option<Artifact> {
        store::get(&self.vault, id)
    }

    /// The context the chat would build for `message` in `session` now.
    pub fn context_for(&self, session: &str, message: &str) -> Context {
        let (artifacts, _) = store::all(&self.vault);
        self.context_with(&artifacts, session, message)
    }

    /// [`Chat::context_for`] with the artifacts already read.
    fn context_with(&self, artifacts: &[Artifact], session: &str, message: &str) -> Context {
        let prompt = knower_agents::prompt(&self.vault, PROMPT, BUILT_IN_PROMPT).text;
        context::build(
            &self.vault,
            &self.index,
            &self.settings,
            &prompt,
            artifacts,
            &self.records(),
            session,
            message,
        )
    }

    /// One exchange: the context of `message`, the answer (each piece to
    /// `on_text` as it arrives; `cancel` stops it), the log line, then the
    /// interpretation applied to the artifacts.
    pub fn exchange(
        &self,
        session: &str,
        message: &str,
        cancel: &AtomicBool,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Exchange, ChatError> {
        if message.trim().is_empty() {
            return Err(ChatError::Invalid("the message is empty".into()));
        }
        self.housekeeping()?;
        // Read once: the context and the offline reply both need them.
        let (artifacts, _) = store::all(&self.vault);
        let context = self.context_with(&artifacts, session, message);
        let mut usage = Usage::default();
        let (answer, cancelled) = match self.agents.llm() {
            Some(llm) => {
                let mut request = ChatRequest::from_system(context.system.clone());
                for past in &context.history {
                    request = request
                        .append_message(ChatMessage::user(past.user.clone()))
                        .append_message(ChatMessage::assistant(past.assistant.clone()));
                }
                request = request.append_message(ChatMessage::user(context.message.clone()));
                let mut streamed = llm.stream_blocking(&request, cancel, on_text)?;
                usage += streamed.usage;
                let empty = |s: &knower_llm::Streamed| !s.cancelled && s.text.trim().is_empty();
                // Blank text already shown stays part of what is kept, so
                // the log holds exactly what was streamed.
                let mut shown = String::new();
                if empty(&streamed) {
                    // An empty reply is not a reply: asked once more, then
                    // the offline engine answers, and says why.
                    shown.push_str(&streamed.text);
                    streamed = llm.stream_blocking(&request, cancel, on_text)?;
                    usage += streamed.usage;
                }
                if empty(&streamed) {
                    shown.push_str(&streamed.text);
                    let reply = format!(
                        "_The model's reply was empty twice; this is the {OFFLINE}'s._\n\n{}",
                        offline::reply(
                            &self.vault,
                            &self.agents,
                            &artifacts,
                            &context,
                            &context.message,
                        )?
                    );
                    on_text(&reply);
                    shown.push_str(&reply);
                    (shown, false)
                } else {
                    shown.push_str(&streamed.text);
                    (shown, streamed.cancelled)
                }
            }
            None => {
                let answer = match remember(message) {
                    Some(text) => {
                        format!("_{OFFLINE}:_ sent to the update agent to file: “{text}”.")
                    }
                    None => offline::reply(
                        &self.vault,
                        &self.agents,
                        &artifacts,
                        &context,
                        &context.message,
                    )?,
                };
                on_text(&answer);
                (answer, false)
            }
        };
        let record = Record {
            id: log::new_id(),
            at: jiff::Timestamp::now().to_string(),
            session: session.to_string(),
            user: message.to_string(),
            assistant: answer,
            engine: self.engine(),
            context: context.artifacts.clone(),
            cancelled,
        };
        self.finish(record, context.report, usage)
    }

    /// An exchange that already happened elsewhere (an import, a replay):
    /// logged and interpreted as if it had been said here.
    pub fn record(
        &self,
        session: &str,
        user: &str,
        assistant: &str,
    ) -> Result<Exchange, ChatError> {
        let context = self.context_for(session, user);
        let record = Record {
            id: log::new_id(),
            at: jiff::Timestamp::now().to_string(),
            session: session.to_string(),
            user: user.to_string(),
            assistant: assistant.to_string(),
            engine: "recorded".into(),
            context: context.artifacts.clone(),
            cancelled: false,
        };
        self.finish(record, context.report, Usage::default())
    }

    /// Logs the exchange (synced: it is permanent from here), then
    /// interprets it.
    fn finish(
        &self,
        record: Record,
        report: ContextReport,
        mut usage: Usage,
    ) -> Result<Exchange, ChatError> {
        let line = serde_json::to_string(&record).expect("records serialise");
        self.vault.append_record(LOG, &line)?;
        let mut exchange = Exchange {
            id: record.id.clone(),
            session: record.session.clone(),
            at: record.at.clone(),
            user: record.user.clone(),
            assistant: record.assistant.clone(),
            engine: record.engine.clone(),
            cancelled: record.cancelled,
            context: report,
            changes: vec![],
            interpretation_error: None,
            citations: knower_agents::citations(&self.vault, &record.assistant),
            remember: remember(&record.user),
            usage: None,
        };
        match self.interpret(&record, &mut usage) {
            Ok(changes) => exchange.changes = changes,
            Err(ChatError::Invalid(why)) => exchange.interpretation_error = Some(why),
            Err(other) => return Err(other),
        }
        if self.agents.llm().is_some() {
            exchange.usage = Some(usage);
        }
        Ok(exchange)
    }

    /// Interprets a logged exchange and applies what it concluded, as one
    /// vault change. Safe to run twice for one exchange (after a crash): the
    /// artifacts it makes have ids derived from it, and a reference is
    /// counted once.
    fn interpret(&self, record: &Record, usage: &mut Usage) -> Result<Vec<Change>, ChatError> {
        if record.cancelled {
            self.mark_interpreted(&record.id)?;
            return Ok(vec![]);
        }
        let (artifacts, _) = store::all(&self.vault);
        let open = store::open_efforts(&artifacts);
        let interpretation: Result<Interpretation, String> = match self.agents.llm() {
            Some(llm) => {
                let prompt =
                    knower_agents::prompt(&self.vault, INTERPRET_PROMPT, BUILT_IN_INTERPRET_PROMPT)
                        .text;
                interpret::with_model(&llm, &prompt, record, &open, usage)
            }
            // What the user asked to remember goes to the update agent.
            None if remember(&record.user).is_some() => Ok(Interpretation::default()),
            None => Ok(offline::interpret(&record.user, &artifacts)),
        };
        let interpretation = match interpretation {
            Ok(i) => i,
            Err(why) => {
                // Logged, kept out of the memory; not tried again.
                self.mark_interpreted(&record.id)?;
                return Err(ChatError::Invalid(format!(
                    "the exchange is kept in the log, but the memory could not be updated: {why}"
                )));
            }
        };
        let author = Author::new(ACTOR, format!("chat exchange {}", record.id));
        let (changes, _) = self.vault.batch(&author, |batch| {
            let mut changes = Vec::new();
            let mut created = 0;
            for action in &interpretation.actions {
                match action {
                    Action::Create {
                        kind,
                        summary,
                        tags,
                        expires,
                    } => {
                        let id = artifact::id_for(*kind, &record.id, created);
                        created += 1;
                        let artifact = Artifact {
                            id,
                            kind: *kind,
                            status: if *kind == Kind::Effort {
                                Status::Open
                            } else {
                                Status::Active
                            },
                            summary: artifact::one_line(summary),
                            resolution: None,
                            tags: tags
                                .iter()
                                .map(|t| artifact::one_line(t).to_lowercase())
                                .filter(|t| !t.is_empty())
                                .take(8)
                                .collect(),
                            created: record.at.clone(),
                            last_referenced: record.at.clone(),
                            ref_count: 0,
                            expires: *expires && *kind != Kind::Effort,
                            exchange: record.id.clone(),
                            resolved_by: None,
                            links: vec![],
                        };
                        store::write_in(batch, &artifact)?;
                        changes.push(Change::Created { artifact });
                    }
                    Action::Resolve { effort, resolution } => {
                        // The open effort itself gets the resolution (seed 004:
                        // linking, never a second effort).
                        if let Some(mut artifact) = store::read_in(batch, effort)?
                            && artifact.kind == Kind::Effort
                        {
                            artifact.status = Status::Resolved;
                            artifact.resolution = Some(artifact::one_line(resolution));
                            artifact.resolved_by = Some(record.id.clone());
                            artifact.last_referenced = record.at.clone();
                            store::write_in(batch, &artifact)?;
                            changes.push(Change::Resolved { artifact });
                        }
                    }
                }
            }
            // What was in the context was referenced (counted once per
            // exchange, even when this runs again after a crash).
            let touched: HashSet<String> = changes
                .iter()
                .map(|c| match c {
                    Change::Created { artifact }
                    | Change::Resolved { artifact }
                    | Change::Archived { artifact } => artifact.id.clone(),
                })
                .collect();
            for id in &record.context {
                if touched.contains(id) {
                    continue;
                }
                if let Some(mut artifact) = store::read_in(batch, id)?
                    && artifact.last_referenced < record.at
                {
                    artifact.ref_count += 1;
                    artifact.last_referenced = record.at.clone();
                    store::write_in(batch, &artifact)?;
                }
            }
            Ok(changes)
        })?;
        self.mark_interpreted(&record.id)?;
        Ok(changes)
    }

    /// Before an exchange: what a stopped process logged but did not
    /// interpret (once a process), and expiry (once an hour).
    fn housekeeping(&self) -> Result<(), ChatError> {
        let mut recovered = Ok(0);
        self.recovered.call_once(|| recovered = self.recover());
        recovered?;
        let now = jiff::Timestamp::now().as_second();
        let last = self.expired_at.load(std::sync::atomic::Ordering::Relaxed);
        if now.saturating_sub(last) >= 3600 {
            self.expired_at
                .store(now, std::sync::atomic::Ordering::Relaxed);
            self.expire()?;
        }
        Ok(())
    }

    /// Exchanges logged but not interpreted (the process stopped between
    /// the two) are interpreted now.
    pub fn recover(&self) -> Result<usize, ChatError> {
        let done = self.interpreted()?;
        let records = self.records();
        let start = records.len().saturating_sub(RECOVER);
        let mut count = 0;
        for record in &records[start..] {
            if !done.contains(&record.id) {
                let mut usage = Usage::default();
                match self.interpret(record, &mut usage) {
                    Ok(_) | Err(ChatError::Invalid(_)) => count += 1,
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(count)
    }

    /// Facts and events that may expire and were not referenced for
    /// `expire_after_days` are archived (kept, out of every context).
    pub fn expire(&self) -> Result<Vec<Change>, ChatError> {
        let (artifacts, _) = store::all(&self.vault);
        let limit = jiff::Timestamp::now()
            .checked_sub(jiff::SignedDuration::from_hours(
                24 * self.settings.expire_after_days as i64,
            ))
            .map(|t| t.to_string())
            .unwrap_or_default();
        let stale: Vec<Artifact> = artifacts
            .into_iter()
            .filter(|a| a.expires && a.status == Status::Active && a.last_referenced < limit)
            .collect();
        if stale.is_empty() {
            return Ok(vec![]);
        }
        let author = Author::new(
            ACTOR,
            format!(
                "archived {} facts and events unreferenced for {} days",
                stale.len(),
                self.settings.expire_after_days
            ),
        );
        let (changes, _) = self.vault.batch(&author, |batch| {
            let mut changes = Vec::new();
            for mut artifact in stale {
                artifact.status = Status::Archived;
                store::write_in(batch, &artifact)?;
                changes.push(Change::Archived { artifact });
            }
            Ok(changes)
        })?;
        Ok(changes)
    }

    /// A person's correction of an artifact: its summary, its status (an
    /// effort reopened or resolved, a fact archived or brought back), its
    /// resolution.
    pub fn correct(&self, id: &str, correction: Correction) -> Result<Artifact, ChatError> {
        let author = Author::new("user", format!("corrected artifact {id}"));
        let (artifact, _) = self.vault.batch(&author, |batch| {
            let Some(mut artifact) = store::read_in(batch, id)? else {
                return Ok(None);
            };
            if let Some(summary) = &correction.summary {
                artifact.summary = artifact::one_line(summary);
            }
            if let Some(status) = correction.status {
                artifact.status = status;
            }
            if let Some(resolution) = &correction.resolution {
                artifact.resolution =
                    Some(artifact::one_line(resolution)).filter(|r| !r.is_empty());
            }
            store::write_in(batch, &artifact)?;
            Ok(Some(artifact))
        })?;
        let artifact =
            artifact.ok_or_else(|| ChatError::Invalid(format!("there is no artifact {id}")))?;
        let fits = match artifact.kind {
            Kind::Effort => matches!(artifact.status, Status::Open | Status::Resolved),
            _ => matches!(artifact.status, Status::Active | Status::Archived),
        };
        if !fits {
            return Err(ChatError::Invalid(format!(
                "{} is {}: an effort is open or resolved, a fact or event active or archived",
                artifact.id,
                artifact.kind.name()
            )));
        }
        Ok(artifact)
    }

    /// Forgets an artifact: its note is deleted (journaled, so `knower
    /// undo` brings it back). The chat log keeps what was said.
    pub fn forget(&self, id: &str) -> Result<Artifact, ChatError> {
        let artifact = self
            .artifact(id)
            .ok_or_else(|| ChatError::Invalid(format!("there is no artifact {id}")))?;
        self.vault.delete(
            &artifact::path_of(id),
            &Author::new(
                "user",
                format!("forget {} “{}”", artifact.kind.name(), artifact.summary),
            ),
        )?;
        Ok(artifact)
    }

    fn state_dir(&self) -> PathBuf {
        self.vault.root().join(INTERNAL_DIR).join("chat")
    }

    /// Ids of the exchanges already interpreted (the chat's own folder
    /// under `.knower/`: operational, rebuilt by interpreting again).
    fn interpreted(&self) -> Result<HashSet<String>, ChatError> {
        match std::fs::read_to_string(self.state_dir().join("interpreted")) {
            Ok(text) => Ok(text.lines().map(str::to_string).collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HashSet::new()),
            Err(e) => Err(ChatError::Io(format!("reading the chat's state: {e}"))),
        }
    }

    fn mark_interpreted(&self, id: &str) -> Result<(), ChatError> {
        use std::io::Write;
        let dir = self.state_dir();
        std::fs::create_dir_all(&dir).map_err(|e| ChatError::Io(e.to_string()))?;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("interpreted"))
            .map_err(|e| ChatError::Io(e.to_string()))?;
        file.write_all(format!("{id}\n").as_bytes())
            .and_then(|()| file.sync_data())
            .map_err(|e| ChatError::Io(format!("writing the chat's state: {e}")))
    }
}

/// What a person changes of an artifact.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct Correction {
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub status: Option<Status>,
    #[serde(default)]
    pub resolution: Option<String>,
}

/// "remember that …", "remember: …": what the user asks to have filed.
pub fn remember(message: &str) -> Option<String> {
    let text = message.trim();
    let lower = text.to_lowercase();
    for opening in [
        "remember that ",
        "remember: ",
        "please remember that ",
        "note that ",
    ] {
        if lower.starts_with(opening) {
            let rest = text[opening.len()..].trim();
            return (!rest.is_empty()).then(|| rest.to_string());
        }
    }
    None
}
