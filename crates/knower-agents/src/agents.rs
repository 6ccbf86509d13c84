//! [`Agents`]: the update agent and the search agent of a vault, run by an
//! LLM when one is configured and by the offline engine otherwise.
//!
//! The API is synchronous: the agents read and write the vault as they go,
//! which blocks, and a model's answers are awaited on the model's own I/O
//! runtime ([`knower_llm::Llm::chat_blocking`]). Call them from a thread
//! that may block (the worker, the CLI, `spawn_blocking`).

use std::sync::Arc;

use knower_index::{Index, Mode};
use knower_llm::{Llm, LlmConfig};
use knower_vault::Vault;

use crate::error::{Error, Result};
use crate::inbox::{self, InboxItem};
use crate::offline;
use crate::payload::Payload;
use crate::prompts::{self, Prompt};
use crate::report::{Answer, OFFLINE, Outcome, UpdateReport};
use crate::settings::Settings;

const CONFIG_FILE: &str = "knower.toml";

pub enum Engine {
    Offline,
    Llm(Arc<Llm>),
}

pub struct Agents {
    pub(crate) vault: Arc<Vault>,
    pub(crate) index: Arc<Index>,
    pub(crate) engine: Engine,
    pub(crate) settings: Settings,
    /// A fixed "now" for every date the agents write, when set (see [`Agents::at`]).
    clock: Option<jiff::Timestamp>,
}

impl Agents {
    /// The agents of a vault, with the engine `knower.toml` and the
    /// environment configure.
    pub fn open(vault: Arc<Vault>, index: Arc<Index>) -> Result<Agents> {
        let toml = match vault.read(CONFIG_FILE) {
            Ok(text) => text,
            Err(knower_vault::Error::NotFound { .. }) => String::new(),
            Err(e) => return Err(e.into()),
        };
        let settings = Settings::parse(&toml)?;
        let engine = match LlmConfig::load(&toml)? {
            Some(config) => Engine::Llm(Arc::new(Llm::new(config)?)),
            None => Engine::Offline,
        };
        Ok(Agents::new(vault, index, engine, settings))
    }

    pub fn new(vault: Arc<Vault>, index: Arc<Index>, engine: Engine, settings: Settings) -> Agents {
        Agents {
            vault,
            index,
            engine,
            settings,
            clock: None,
        }
    }

    /// These agents with a fixed clock: every date they write into the
    /// vault is this one's. Filed lines carry their date, and the date is
    /// part of the text that is searched and embedded, so a benchmark that
    /// must give the same figures on any day pins it here.
    pub fn at(mut self, now: jiff::Timestamp) -> Agents {
        self.clock = Some(now);
        self
    }

    fn clock(&self) -> jiff::Zoned {
        match self.clock {
            Some(now) => now.to_zoned(jiff::tz::TimeZone::system()),
            None => jiff::Zoned::now(),
        }
    }

    /// The day filed lines are dated with, `2026-11-29`.
    pub(crate) fn today(&self) -> String {
        self.clock().strftime("%Y-%m-%d").to_string()
    }

    /// The minute an update is received, `2026-11-29 14:03`.
    pub(crate) fn now_text(&self) -> String {
        self.clock().strftime("%Y-%m-%d %H:%M").to_string()
    }

    /// The model, when one is configured (other features use it too).
    pub fn llm(&self) -> Option<Arc<Llm>> {
        match &self.engine {
            Engine::Offline => None,
            Engine::Llm(llm) => Some(llm.clone()),
        }
    }

    /// `offline engine`, or the model as `provider:model`.
    pub fn engine_label(&self) -> String {
        match &self.engine {
            Engine::Offline => OFFLINE.into(),
            Engine::Llm(llm) => llm.label(),
        }
    }

    pub fn prompts(&self) -> Vec<Prompt> {
        prompts::all(&self.vault)
    }

    pub fn inbox(&self) -> Result<Vec<InboxItem>> {
        inbox::list(&self.vault)
    }

    pub fn inbox_item(&self, id: &str) -> Result<InboxItem> {
        inbox::load(&self.vault, id)
    }

    /// Files an update (or, with `inbox_ref`, applies the user's answer to
    /// an inbox item).
    pub fn update(&self, payload: Payload) -> Result<UpdateReport> {
        payload.check()?;
        let id = payload.id.clone().unwrap_or_else(new_update_id);
        let item = match &payload.inbox_ref {
            Some(reference) => Some(inbox::load(&self.vault, reference)?),
            None => None,
        };
        // A sync conflict is settled by the user's word alone, whatever
        // the engine.
        if let Some(item) = &item
            && let Some(conflict) = crate::conflict::of(item)
        {
            let author = crate::recovery::author_of(
                "inbox",
                &id,
                &format!(
                    "answer to sync conflict {}: “{}”",
                    item.id,
                    payload.headline(60)
                ),
            );
            let report = self.report(&id, Outcome::Resolved);
            return crate::conflict::answer(
                &self.vault,
                &author,
                report,
                &payload.text,
                item.clone(),
                conflict,
            );
        }
        match &self.engine {
            Engine::Offline => match item {
                Some(item) => self.offline_answer(&id, &payload, item),
                None => self.offline_update(&id, &payload),
            },
            Engine::Llm(llm) => match item {
                // An exact answer ("2", "project trip", a path, "discard")
                // needs no model to be read.
                Some(item) if self.is_exact_answer(&payload, &item)? => {
                    self.offline_answer(&id, &payload, item)
                }
                Some(item) if self.settings.grounded(llm) => {
                    self.grounded_answer(llm, &id, &payload, item)
                }
                None if self.settings.grounded(llm) => self.grounded_update(llm, &id, &payload),
                item => self.llm_update(llm, &id, &payload, item),
            },
        }
    }

    /// Whether an answer to an inbox item is exact: a few words the
    /// offline engine reads as one place (an option's number, `project
    /// NAME`, a path, `bucket`, `profile`, `tasks`, `discard`, a project's
    /// name). A sentence is left to the model.
    fn is_exact_answer(&self, answer: &Payload, item: &InboxItem) -> Result<bool> {
        const EXACT_WORDS: usize = 3;
        if answer.text.split_whitespace().count() > EXACT_WORDS {
            return Ok(false);
        }
        let kind = offline::kind_of(&item.text);
        Ok(offline::read_answer(&self.vault, &answer.text, &item.options, kind)?.is_some())
    }

    /// Answers a question from the vault.
    pub fn ask(&self, question: &str, mode: Mode) -> Result<Answer> {
        self.ask_within(question, mode, None)
    }

    /// The offline engine's evidence for `question` from the whole vault
    /// (the profile's lines that answer included), leaving out the files
    /// under the `without` folders (the chat gives its own artifacts
    /// separately), at most `passages` of them.
    pub fn evidence(
        &self,
        question: &str,
        without: &[&str],
        passages: usize,
    ) -> Result<offline::Evidence> {
        if question.trim().is_empty() {
            return Err(Error::Invalid("the question is empty".into()));
        }
        let profile = self.vault.read(crate::recovery::PROFILE).ok();
        let within = offline::Within {
            mode: Mode::Fast,
            scope: None,
            without,
            passages,
        };
        offline::evidence(&self.index, profile.as_deref(), question, within)
    }

    /// Answers a question from one part of the vault: `project:NAME` or a
    /// folder (or file).
    pub fn ask_within(&self, question: &str, mode: Mode, scope: Option<&str>) -> Result<Answer> {
        if question.trim().is_empty() {
            return Err(Error::Invalid("the question is empty".into()));
        }
        // A scope outside the vault is the asker's mistake, whichever engine
        // would have used it: refused here, not by a model's failed search.
        if let Some(scope) = scope {
            knower_index::query::Scope::parse(scope)?;
        }
        match &self.engine {
            Engine::Offline => {
                // The profile is not indexed (a model always has it in its
                // context); offline, a question about the user reads it.
                let profile = match scope {
                    None => self.vault.read(crate::recovery::PROFILE).ok(),
                    Some(_) => None,
                };
                offline::answer(&self.index, profile.as_deref(), question, mode, scope)
            }
            Engine::Llm(llm) => self.llm_ask(llm, question, mode, scope),
        }
    }
}

/// `update-20261122-140312-3fa9`: sortable, and unique enough for one person.
pub(crate) fn new_update_id() -> String {
    let now = jiff::Zoned::now();
    let nanos = now.timestamp().subsec_nanosecond() as u32;
    let mix = nanos ^ std::process::id().rotate_left(16);
    format!(
        "update-{}-{:04x}",
        now.strftime("%Y%m%d-%H%M%S"),
        mix & 0xffff
    )
}

impl Agents {
    pub(crate) fn report(&self, id: &str, outcome: Outcome) -> UpdateReport {
        UpdateReport {
            id: id.to_string(),
            engine: self.engine_label(),
            outcome,
            summary: String::new(),
            changed: vec![],
            inbox_id: None,
            confidence: None,
            reasoning: None,
            steps: 0,
            usage: None,
            stopped: None,
            error: None,
            tool_calls: vec![],
            rule: None,
        }
    }
}
