//! The gardener through the service: its topics, a cycle (announced on
//! the events), the review and the figures, and its schedule in a serving
//! process.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use knower_garden::{
    Cycle, Garden, InboxReport, Listing, NewTopic, Plan, Progress, Review, RunOptions, Stats, Topic,
};
use serde_json::json;

use super::{Service, blocking};
use crate::error::{Error, Result};
use crate::events::Events;

impl Service {
    /// Runs a garden cycle now (or finishes an interrupted one), announcing
    /// its progress on [`Service::events`] and to `progress`. One cycle at a
    /// time per vault, across processes: another one running is
    /// [`Kind::Unavailable`](crate::Kind).
    pub async fn garden_run(
        &self,
        options: RunOptions,
        progress: impl FnMut(&Progress) + Send + 'static,
    ) -> Result<Cycle> {
        let garden = self.garden.clone();
        let events = self.events.clone();
        blocking(move || run_garden(&garden, &events, options, progress)).await
    }

    /// What a cycle would search and fetch, without doing it.
    pub fn garden_plan(&self, options: &RunOptions) -> Result<Plan> {
        Ok(self.garden.plan(options)?)
    }

    /// The topics, the search provider, the last errors and the next wake.
    pub fn garden_topics(&self) -> Result<Listing> {
        Ok(self.garden.list()?)
    }

    /// Adds a topic for the gardener to keep fresh.
    pub fn garden_add_topic(&self, new: NewTopic) -> Result<Topic> {
        Ok(self.garden.add_topic(new)?)
    }

    /// Whether a search provider is configured (else only feeds are read).
    pub fn garden_can_search(&self) -> bool {
        self.garden.can_search()
    }

    /// What waits for the user's decision, numbered as every surface
    /// numbers it (decisions written in the inbox files are applied first).
    pub fn garden_review(&self) -> Result<Review> {
        Ok(self.garden.review()?)
    }

    /// Approves facts by id or by the last review's number.
    pub fn garden_approve(&self, refs: &[String]) -> Result<InboxReport> {
        Ok(self.garden.approve(refs)?)
    }

    /// Rejects facts by id or by the last review's number, with a reason.
    pub fn garden_reject(&self, refs: &[String], reason: &str) -> Result<InboxReport> {
        Ok(self.garden.reject(refs, reason)?)
    }

    /// The gardener's figures.
    pub fn garden_stats(&self) -> Result<Stats> {
        Ok(self.garden.stats()?)
    }
}

/// One garden cycle, its progress announced as `garden_progress` events
/// and its new facts as `garden_candidates`.
fn run_garden(
    garden: &Garden,
    events: &Events,
    options: RunOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<Cycle> {
    let cycle = garden.run(options, &mut |p| {
        if let Progress::Candidates {
            topic,
            added,
            disputed,
        } = &p
            && !added.is_empty()
        {
            events.emit(
                "garden_candidates",
                json!({"topic": topic, "added": added, "disputed": disputed}),
            );
        }
        // A provider, feed or page that failed is said at once, not only
        // in the cycle's report.
        let failed = match &p {
            Progress::Searched {
                topic,
                query,
                error: Some(error),
                ..
            } => Some(json!({"topic": topic, "search": query, "error": error})),
            Progress::FeedRead {
                topic,
                url,
                error: Some(error),
                ..
            }
            | Progress::Fetched {
                topic,
                url,
                error: Some(error),
            } => Some(json!({"topic": topic, "url": url, "error": error})),
            _ => None,
        };
        if let Some(failed) = failed {
            events.emit("garden_error", failed);
        }
        events.emit("garden_progress", &p);
        progress(&p);
    })?;
    events.emit(
        "garden_cycle",
        json!({
            "id": cycle.id, "added": cycle.added(), "searches": cycle.searches.len(),
            "fetches": cycle.fetches.len(), "next_wake": cycle.next_wake,
        }),
    );
    Ok(cycle)
}

/// How often the schedule looks whether a cycle is due.
const GARDEN_TICK: Duration = Duration::from_secs(30);

/// The gardener's schedule in a serving process: a cycle whenever one is
/// due (the next wake time is on disk, so a restart neither skips nor
/// repeats one; an interrupted cycle is due at once).
pub(super) fn schedule_garden(service: &Arc<Service>, stopping: Arc<AtomicBool>) {
    let garden = service.garden.clone();
    let events = service.events.clone();
    let _ = std::thread::Builder::new()
        .name("knower-garden".into())
        .spawn(move || {
            use std::sync::atomic::Ordering;
            let tick = std::env::var("KNOWER_GARDEN_TICK_MS")
                .ok()
                .and_then(|ms| ms.parse().ok())
                .map_or(GARDEN_TICK, Duration::from_millis);
            while !stopping.load(Ordering::SeqCst) {
                if garden.due() {
                    let options = RunOptions {
                        scheduled: true,
                        ..RunOptions::default()
                    };
                    match run_garden(&garden, &events, options, |_| {}) {
                        // Another process (`knower garden run`) has it.
                        Ok(_) | Err(Error::Garden(knower_garden::GardenError::Busy)) => {}
                        Err(e) => events.emit("garden_error", json!({"error": e.to_string()})),
                    }
                }
                let deadline = Instant::now() + tick;
                while Instant::now() < deadline && !stopping.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
        });
}
