//! [`UpdateLog`]: the updates sent to a vault and what became of them, from
//! wherever they are kept — this process's queue, the running server's, or
//! the queue on disk when no server runs (reading it needs neither the
//! index nor the agents).

use std::sync::Arc;

use knower_vault::{ChangeRecord, INTERNAL_DIR, Vault};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::queue::{Queue, State, Update};

pub struct UpdateLog {
    vault: Arc<Vault>,
    /// This process's queue, when it runs one.
    queue: Option<Arc<Queue>>,
}

enum Keeper {
    Here(Arc<Queue>),
    Server(Client),
}

impl UpdateLog {
    /// The updates of `vault`, as another process sees them.
    pub fn of(vault: Arc<Vault>) -> UpdateLog {
        UpdateLog { vault, queue: None }
    }

    pub(crate) fn here(vault: Arc<Vault>, queue: Arc<Queue>) -> UpdateLog {
        UpdateLog {
            vault,
            queue: Some(queue),
        }
    }

    fn keeper(&self) -> Result<Keeper> {
        if let Some(queue) = &self.queue {
            return Ok(Keeper::Here(queue.clone()));
        }
        let root = self.vault.root();
        match Client::find(root) {
            Some(client) => Ok(Keeper::Server(client)),
            None => Ok(Keeper::Here(Queue::open(&root.join(INTERNAL_DIR))?)),
        }
    }

    /// The most recent updates, newest first.
    pub async fn recent(&self, limit: usize) -> Result<Vec<Update>> {
        match self.keeper()? {
            Keeper::Here(queue) => self.with_undone(queue.recent(limit)).await,
            Keeper::Server(client) => client.recent(limit).await,
        }
    }

    pub async fn get(&self, id: &str) -> Result<Update> {
        match self.keeper()? {
            Keeper::Here(queue) => {
                let update = queue
                    .get(id)
                    .ok_or_else(|| Error::NotFound(format!("there is no update {id}")))?;
                let mut updates = self.with_undone(vec![update]).await?;
                Ok(updates.remove(0))
            }
            Keeper::Server(client) => client.update(id).await,
        }
    }

    /// Marks the updates the journal shows taken back.
    async fn with_undone(&self, mut updates: Vec<Update>) -> Result<Vec<Update>> {
        if updates.iter().all(|u| u.state != State::Done) {
            return Ok(updates);
        }
        let vault = self.vault.clone();
        let undone = tokio::task::spawn_blocking(move || vault.log())
            .await
            .map_err(|e| Error::Internal(e.to_string()))?
            .map(|journal| knower_agents::undone_updates(&journal))?;
        for update in &mut updates {
            update.undone_by = undone.get(&update.id).copied();
        }
        Ok(updates)
    }

    /// Takes back everything update `id` changed, as one journaled change
    /// (the vault's lock orders it with a running server's changes).
    pub async fn undo(&self, id: &str, actor: &str, force: bool) -> Result<ChangeRecord> {
        let (vault, id, actor) = (self.vault.clone(), id.to_string(), actor.to_string());
        tokio::task::spawn_blocking(move || {
            knower_agents::undo_update(&vault, &id, &actor, force).map_err(Error::from)
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))?
    }

    /// Queues a failed update again (its text and files were kept). With no
    /// server it waits in the queue on disk for the next start; the answer
    /// says whether a queue runs it now.
    pub async fn retry(&self, id: &str) -> Result<bool> {
        match self.keeper()? {
            Keeper::Here(queue) => {
                let id = id.to_string();
                let running = self.queue.is_some();
                tokio::task::spawn_blocking(move || queue.retry(&id))
                    .await
                    .map_err(|e| Error::Internal(e.to_string()))??;
                Ok(running)
            }
            Keeper::Server(client) => client.retry(id).await.map(|()| true),
        }
    }
}
