//! The update worker: one thread that runs the queued updates one at a
//! time, in order, with the update agent (whose API blocks: it reads and
//! writes the vault as it goes).

use std::sync::Arc;
use std::thread::JoinHandle;

use knower_agents::{Agents, INBOX, Outcome, Resume};
use knower_vault::Vault;

use crate::queue::{Details, Finished, Job, Queue, QueueError};

pub fn spawn(queue: Arc<Queue>, agents: Arc<Agents>, vault: Arc<Vault>) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name("knower-updates".into())
        .spawn(move || {
            while let Some(next) = queue.next() {
                let outcome = match next {
                    Ok(job) => run(&queue, &agents, &vault, job),
                    Err((id, e)) => {
                        queue.fail(&id, &format!("its stored payload is unreadable: {e}"))
                    }
                };
                if let Err(e) = outcome {
                    // The queue could not record a state: the update stays
                    // pending in the log and runs again (or is found finished
                    // in the journal) at the next start.
                    eprintln!("error: the update queue: {e}; stopping the worker");
                    break;
                }
            }
        })
        .expect("the worker thread starts")
}

/// Runs update `id` of `queue` at once, in this thread: the update of a
/// process that holds the queue for it alone (no server runs).
pub fn run_one(queue: &Queue, agents: &Agents, vault: &Vault, id: &str) -> crate::Result<()> {
    let outcome = match queue.job(id) {
        Some(Ok(job)) => run(queue, agents, vault, job),
        Some(Err((id, e))) => queue.fail(&id, &format!("its stored payload is unreadable: {e}")),
        None => Err(QueueError::Unknown(id.to_string())),
    };
    Ok(outcome?)
}

fn run(queue: &Queue, agents: &Agents, vault: &Vault, job: Job) -> Result<(), QueueError> {
    if job.interrupted {
        // The previous process stopped while this update ran: the journal
        // tells whether it finished; if not, its changes are undone first.
        match knower_agents::resume(vault, &job.run_id) {
            Ok(Resume::Finished { summary, changed }) => {
                return queue.finish(&job.id, resumed(&job, summary, changed));
            }
            Ok(Resume::RolledBack { .. }) => {}
            Err(e) => {
                return queue.fail(
                    &job.id,
                    &format!(
                        "interrupted, and its partial changes could not be rolled back ({e}); \
                         see `knower log` before retrying"
                    ),
                );
            }
        }
    }
    queue.start(&job)?;
    match agents.update(job.payload) {
        Ok(report) if report.outcome == Outcome::Failed => {
            let mut error = report
                .error
                .clone()
                .unwrap_or_else(|| "the update failed".into());
            if let Some(inbox_id) = &report.inbox_id {
                error.push_str(&format!(" (the update is kept in {INBOX}/{inbox_id}/)"));
            }
            queue.fail(&job.id, &error)
        }
        Ok(report) => queue.finish(&job.id, report.into()),
        Err(e) => queue.fail(&job.id, &e.to_string()),
    }
}

/// An update the journal shows finished before the process stopped: its
/// outcome is read from what it changed (an inbox item it made, or the
/// inbox item it answered).
fn resumed(job: &Job, summary: String, changed: Vec<String>) -> Finished {
    let prefix = format!("{INBOX}/");
    let inbox_id = changed
        .iter()
        .find_map(|path| path.strip_prefix(&prefix))
        .map(|rest| rest.split('/').next().unwrap_or(rest).to_string());
    let outcome = match (&job.payload.inbox_ref, &inbox_id) {
        (Some(_), _) => Outcome::Resolved,
        (None, Some(_)) => Outcome::Inbox,
        (None, None) => Outcome::Filed,
    };
    Finished {
        outcome,
        summary,
        changed_files: changed,
        inbox_id: inbox_id.or_else(|| job.payload.inbox_ref.clone()),
        details: Details::default(),
    }
}
