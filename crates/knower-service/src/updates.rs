//! [`UpdateLog`]: the updates sent to a vault and what became of them, from
//! wherever they are kept — this process's queue, the running server's, or
//! the queue on disk when no server runs (reading it needs neither the
//! index nor the agents).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use knower_vault::INTERNAL_DIR;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::queue::{Queue, Update};

pub struct UpdateLog {
    root: PathBuf,
    /// This process's queue, when it runs one.
    queue: Option<Arc<Queue>>,
}

enum Keeper {
    Here(Arc<Queue>),
    Server(Client),
}

impl UpdateLog {
    /// The updates of the vault at `root`, as another process sees them.
    pub fn of(root: &Path) -> UpdateLog {
        UpdateLog {
            root: root.to_path_buf(),
            queue: None,
        }
    }

    pub(crate) fn here(root: &Path, queue: Arc<Queue>) -> UpdateLog {
        UpdateLog {
            root: root.to_path_buf(),
            queue: Some(queue),
        }
    }

    fn keeper(&self) -> Result<Keeper> {
        if let Some(queue) = &self.queue {
            return Ok(Keeper::Here(queue.clone()));
        }
        match Client::find(&self.root) {
            Some(client) => Ok(Keeper::Server(client)),
            None => Ok(Keeper::Here(Queue::open(&self.root.join(INTERNAL_DIR))?)),
        }
    }

    /// The most recent updates, newest first.
    pub async fn recent(&self, limit: usize) -> Result<Vec<Update>> {
        match self.keeper()? {
            Keeper::Here(queue) => Ok(queue.recent(limit)),
            Keeper::Server(client) => client.recent(limit).await,
        }
    }

    pub async fn get(&self, id: &str) -> Result<Update> {
        match self.keeper()? {
            Keeper::Here(queue) => queue
                .get(id)
                .ok_or_else(|| Error::NotFound(format!("there is no update {id}"))),
            Keeper::Server(client) => client.update(id).await,
        }
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
