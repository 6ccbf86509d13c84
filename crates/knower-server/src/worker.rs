//! The update worker: one thread that runs the queued updates one at a
//! time, in order, with the update agent.
//!
//! The agent reads and writes the vault synchronously and talks to a model
//! asynchronously, so it gets a thread and a single-threaded runtime of its
//! own instead of a place on the server's event loop.

use std::sync::Arc;
use std::thread::JoinHandle;

use knower_agents::{Agents, Outcome, Resume};
use knower_vault::Vault;

use crate::queue::{Finished, Job, Queue};

pub fn spawn(queue: Arc<Queue>, agents: Arc<Agents>, vault: Arc<Vault>) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name("knower-updates".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a single-threaded runtime can always be built");
            while let Some(next) = queue.next() {
                let outcome = match next {
                    Ok(job) => run(&queue, &agents, &vault, &runtime, job),
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

fn run(
    queue: &Queue,
    agents: &Agents,
    vault: &Vault,
    runtime: &tokio::runtime::Runtime,
    job: Job,
) -> Result<(), crate::queue::QueueError> {
    if job.interrupted {
        // The previous process stopped while this update ran: the journal
        // tells whether it finished; if not, its changes are undone first.
        match knower_agents::resume(vault, &job.run_id) {
            Ok(Resume::Finished { summary, changed }) => {
                return queue.finish(
                    &job.id,
                    Finished {
                        outcome: "done".into(),
                        summary,
                        changed_files: changed,
                        inbox_id: None,
                    },
                );
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
    match runtime.block_on(agents.update(job.payload)) {
        Ok(report) if report.outcome == Outcome::Failed => {
            let mut error = report
                .error
                .clone()
                .unwrap_or_else(|| "the update failed".into());
            if let Some(inbox_id) = &report.inbox_id {
                error.push_str(&format!(" (the update is kept in inbox/{inbox_id}/)"));
            }
            queue.fail(&job.id, &error)
        }
        Ok(report) => queue.finish(
            &job.id,
            Finished {
                outcome: serde_json::to_value(report.outcome)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                summary: report.summary,
                changed_files: report.changed,
                inbox_id: report.inbox_id,
            },
        ),
        Err(e) => queue.fail(&job.id, &e.to_string()),
    }
}
