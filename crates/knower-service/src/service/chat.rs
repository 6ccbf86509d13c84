//! The chat through the service: an exchange, the history, the artifacts
//! the chat remembers and the user's corrections to them.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use knower_agents::Payload;
use knower_chat::{Artifact, Correction, Exchange, Record};

use super::{Service, Wait, blocking};
use crate::error::{Error, Result};
use crate::queue::Update;

/// A chat exchange, and the update its "remember that …" became.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ChatOutcome {
    #[serde(flatten)]
    pub exchange: Exchange,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update: Option<Update>,
}

impl Service {
    /// One chat exchange: the answer's pieces go to `on_text` as they
    /// arrive (`cancel` stops it); what the user asked to remember ("remember
    /// that …") is sent as an update, through the queue when a server runs.
    pub async fn chat_exchange(
        self: &Arc<Self>,
        session: String,
        message: String,
        cancel: Arc<AtomicBool>,
        mut on_text: impl FnMut(&str) + Send + 'static,
    ) -> Result<ChatOutcome> {
        let service = self.clone();
        let exchange = blocking(move || {
            service
                .chat
                .exchange(&session, &message, &cancel, &mut on_text)
                .map_err(Error::from)
        })
        .await?;
        let update = match &exchange.remember {
            Some(text) => Some(
                self.update(Payload::text(text.clone()), Wait::Accepted)
                    .await?,
            ),
            None => None,
        };
        Ok(ChatOutcome { exchange, update })
    }

    /// The session the chat last spoke in.
    pub fn chat_last_session(&self) -> Option<String> {
        self.chat.last_session()
    }

    /// A session's last `limit` exchanges, oldest first.
    pub fn chat_history(&self, session: &str, limit: usize) -> Vec<Record> {
        self.chat.history(session, limit)
    }

    /// Every artifact the chat remembers, and the files it could not read.
    pub fn chat_artifacts(&self) -> (Vec<Artifact>, Vec<String>) {
        self.chat.artifacts()
    }

    /// What answers in the chat: the offline engine or the model.
    pub fn chat_engine(&self) -> String {
        self.chat.engine()
    }

    /// The user's correction of an artifact (journaled, undoable).
    pub fn chat_correct(&self, id: &str, correction: Correction) -> Result<Artifact> {
        Ok(self.chat.correct(id, correction)?)
    }

    /// Forgets an artifact (journaled, undoable).
    pub fn chat_forget(&self, id: &str) -> Result<Artifact> {
        Ok(self.chat.forget(id)?)
    }
}
