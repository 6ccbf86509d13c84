//! The cycle, seed 001's eight steps: wake → inbox → assess → tend →
//! synthesize → outbox → snapshot → log (and the next wake time).
//!
//! Its progress is kept in `.knower/garden/state.json`, written before
//! every request leaves and after every step, so a cycle killed at any
//! moment resumes where it stopped:
//!
//! - a search or a fetch is recorded as spent *before* it is sent: after a
//!   kill it counts against the bounds and is not sent again;
//! - a topic's new facts are recorded (write-ahead) before they are
//!   written to its note, and written by id: after a kill they are written
//!   once, and count once against the bound on candidates;
//! - the outbox, the snapshot and the activity log are rewritten or
//!   appended idempotently.
//!
//! Bounds that hold whatever happens: `max_searches`, `max_fetches` and
//! `max_candidates` per cycle, `cooling_hours` between two tendings of a
//! topic, and no confirmed fact ever deleted (a cycle only adds facts and
//! raises confidences).

use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::path::PathBuf;

use jiff::{Timestamp, ToSpan};
use knower_vault::Vault;
use serde::{Deserialize, Serialize};

use crate::claims;
use crate::extract::{self, Found};
use crate::garden::{Assessment, BUILT_IN_PROMPT, Garden, PROMPT};
use crate::model::{Credibility, Fact, Source, Status, Topic, one_line};
use crate::readable;
use crate::review::{InboxReport, Reputation};
use crate::search::{self, Hit};
use crate::settings::Provider;
use crate::store;
use crate::web::Kind;
use crate::{GardenError, outbox, snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    Wake,
    Inbox,
    Assess,
    Tend,
    Synthesize,
    Outbox,
    Snapshot,
    Log,
}

impl Step {
    pub const ALL: [Step; 8] = [
        Step::Wake,
        Step::Inbox,
        Step::Assess,
        Step::Tend,
        Step::Synthesize,
        Step::Outbox,
        Step::Snapshot,
        Step::Log,
    ];
}

/// What `knower garden run` asks for.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Tend this topic only (its cooling still holds).
    pub topic: Option<String>,
    /// Run by the schedule: the next wake time moves on.
    pub scheduled: bool,
}

/// What a cycle announces as it goes (the server's `/sse`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Progress {
    Step {
        step: Step,
        cycle: String,
    },
    Searched {
        topic: String,
        query: String,
        hits: usize,
        error: Option<String>,
    },
    Fetched {
        topic: String,
        url: String,
        error: Option<String>,
    },
    /// A feed read for its links.
    FeedRead {
        topic: String,
        url: String,
        entries: usize,
        error: Option<String>,
    },
    Candidates {
        topic: String,
        added: Vec<String>,
        disputed: Vec<String>,
    },
}

/// The garden's durable state between and during cycles.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct State {
    /// When the next scheduled cycle is due (RFC 3339).
    #[serde(default)]
    pub next_wake: Option<String>,
    /// The cycle under way (or interrupted).
    #[serde(default)]
    pub current: Option<Cycle>,
    /// The last finished cycle.
    #[serde(default)]
    pub last: Option<Cycle>,
    #[serde(default)]
    pub totals: Totals,
    /// The ISO week of the last cycle (`2026-W48`): a cycle in a later week
    /// writes the weekly summary of this one.
    #[serde(default)]
    pub week: Option<String>,
    /// By topic, pages read whose candidates are still to be proposed.
    #[serde(default)]
    pub unread: std::collections::BTreeMap<String, Vec<Unread>>,
}

/// Since the garden began.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Totals {
    pub cycles: usize,
    pub searches: usize,
    pub fetches: usize,
    pub candidates: usize,
}

/// One cycle: its plan, what it spent, what it did. The report of `knower
/// garden run`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Cycle {
    /// When it started (RFC 3339): its id.
    pub id: String,
    #[serde(default)]
    pub only: Option<String>,
    #[serde(default)]
    pub scheduled: bool,
    /// The steps finished.
    #[serde(default)]
    pub done: Vec<Step>,
    #[serde(default)]
    pub inbox: InboxReport,
    #[serde(default)]
    pub plan: Vec<Planned>,
    /// Topics that needed attention but were not tended, with why.
    #[serde(default)]
    pub skipped: Vec<String>,
    #[serde(default)]
    pub searches: Vec<Searched>,
    /// Feeds read for their links (they discover pages, as searches do;
    /// they are not the page budget).
    #[serde(default)]
    pub feeds: Vec<FeedRead>,
    #[serde(default)]
    pub fetches: Vec<Fetched>,
    /// A topic's new facts, recorded before they are written.
    #[serde(default)]
    pub pending: Option<PendingWrite>,
    #[serde(default)]
    pub tended: Vec<Tended>,
    #[serde(default)]
    pub synthesis: Synthesis,
    #[serde(default)]
    pub outbox: Vec<String>,
    #[serde(default)]
    pub snapshot: Option<String>,
    #[serde(default)]
    pub errors: Vec<String>,
    /// How many times it was resumed after an interruption.
    #[serde(default)]
    pub resumed: usize,
    #[serde(default)]
    pub finished: Option<String>,
    #[serde(default)]
    pub next_wake: Option<String>,
}

impl Cycle {
    pub fn added(&self) -> usize {
        self.tended.iter().map(|t| t.added.len()).sum::<usize>()
            + self.pending.as_ref().map_or(0, |p| p.facts.len())
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Planned {
    pub slug: String,
    pub name: String,
    pub score: f64,
    pub queries: Vec<String>,
    pub feeds: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Searched {
    pub topic: String,
    pub query: String,
    /// `None` until the provider answered.
    pub hits: Option<Vec<Hit>>,
    pub error: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FeedRead {
    pub topic: String,
    pub url: String,
    /// The feed's entries as links (`None` until it answered).
    pub entries: Option<Vec<Hit>>,
    pub error: Option<String>,
}

/// A page read earlier whose candidates the bound on candidates left
/// for a later cycle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unread {
    pub url: String,
    pub source: String,
    pub credibility: Credibility,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fetched {
    pub topic: String,
    pub url: String,
    /// Kept for cycles recorded before feeds were read for links (then a
    /// feed was fetched as a page); always `false` now.
    pub feed: bool,
    /// The source note written (its slug).
    pub source: Option<String>,
    pub credibility: Option<Credibility>,
    pub error: Option<String>,
    /// `false` while the request is out.
    pub done: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Tended {
    pub topic: String,
    pub added: Vec<String>,
    pub disputed: Vec<String>,
    /// Facts met again from another source: their confidence rose.
    pub reinforced: Vec<String>,
    pub duplicates: usize,
    /// Found but left out by the bound on candidates.
    pub over_bound: usize,
    pub note: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PendingWrite {
    pub tended: Tended,
    /// Pages with candidates left over by the bound, for the next cycle.
    #[serde(default)]
    pub unread: Vec<Unread>,
    pub facts: Vec<Fact>,
    /// New confidences of facts met again.
    pub confidences: Vec<(String, f64)>,
    pub tended_at: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Synthesis {
    /// Topics whose facts speak of another topic.
    pub related: Vec<(String, String)>,
    /// A fact added this cycle that contradicts a fact of another topic.
    pub cross_contradictions: Vec<(String, String)>,
    /// Names that keep coming up in facts and are not topics yet.
    pub suggested_topics: Vec<String>,
}

impl State {
    pub fn path(vault: &Vault) -> PathBuf {
        dir(vault).join("state.json")
    }

    /// The state on disk; a missing or unreadable one is a fresh start
    /// (the garden itself is in the vault: nothing is lost with it).
    pub fn load(vault: &Vault) -> State {
        std::fs::read(State::path(vault))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    pub fn save(&self, vault: &Vault) -> Result<(), GardenError> {
        let path = State::path(vault);
        std::fs::create_dir_all(dir(vault)).map_err(|e| GardenError::Io(e.to_string()))?;
        let bytes = serde_json::to_vec_pretty(self).expect("the state serialises");
        knower_vault::write_atomic(&path, &bytes)
            .map_err(|e| GardenError::Io(format!("writing {}: {e}", path.display())))
    }
}

fn dir(vault: &Vault) -> PathBuf {
    vault.root().join(knower_vault::INTERNAL_DIR).join("garden")
}

/// One cycle at a time per vault, across processes.
struct CycleLock(#[allow(dead_code)] File);

fn lock(vault: &Vault) -> Result<CycleLock, GardenError> {
    std::fs::create_dir_all(dir(vault)).map_err(|e| GardenError::Io(e.to_string()))?;
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir(vault).join("lock"))
        .map_err(|e| GardenError::Io(e.to_string()))?;
    match file.try_lock() {
        Ok(()) => Ok(CycleLock(file)),
        Err(std::fs::TryLockError::WouldBlock) => Err(GardenError::Busy),
        Err(std::fs::TryLockError::Error(e)) => Err(GardenError::Io(e.to_string())),
    }
}

/// The topics to tend, those left with why, and every topic assessed.
type Chosen = (Vec<Planned>, Vec<String>, Vec<Assessment>);

/// What a dry run would do.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    pub assessed: Vec<Assessment>,
    pub topics: Vec<PlannedWork>,
    pub skipped: Vec<String>,
    pub pending_decisions: usize,
    pub search: String,
    pub max_searches: usize,
    pub max_fetches: usize,
    pub max_candidates: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlannedWork {
    pub topic: String,
    pub searches: Vec<String>,
    /// Feeds read for their links.
    pub feeds: Vec<String>,
    /// Pages (linked from the feeds, or search results) read, at most.
    pub result_fetches: usize,
}

impl Garden {
    /// What a cycle would search and fetch now, without doing it.
    pub fn plan(&self, options: &RunOptions) -> Result<Plan, GardenError> {
        let state = State::load(&self.vault);
        let (chosen, skipped, assessed) = self.choose(options.topic.as_deref())?;
        let searching = matches!(
            self.provider,
            Ok(Provider::Brave { .. } | Provider::Searxng { .. })
        );
        let mut searches_left = self.settings.max_searches;
        let mut fetches_left = self.settings.max_fetches;
        let mut topics = Vec::new();
        for (k, planned) in chosen.iter().enumerate() {
            let left = chosen.len() - k;
            let search_share = if searching {
                searches_left.div_ceil(left)
            } else {
                0
            };
            let searches: Vec<String> = formulate(planned, state.totals.cycles)
                .into_iter()
                .take(search_share)
                .collect();
            searches_left -= searches.len();
            let fetch_share = fetches_left.div_ceil(left);
            let feeds: Vec<String> = planned.feeds.clone();
            let result_fetches = if searches.is_empty() && feeds.is_empty() {
                0
            } else {
                fetch_share
            };
            fetches_left -= result_fetches;
            topics.push(PlannedWork {
                topic: planned.slug.clone(),
                searches,
                feeds,
                result_fetches,
            });
        }
        let pending = crate::review::read_decisions(&self.vault, store::APPROVALS)?
            .into_iter()
            .chain(crate::review::read_decisions(
                &self.vault,
                store::REJECTIONS,
            )?)
            .filter(|d| d.applied.is_none())
            .count();
        Ok(Plan {
            assessed,
            topics,
            skipped,
            pending_decisions: pending,
            search: self.search_label(),
            max_searches: self.settings.max_searches,
            max_fetches: self.settings.max_fetches,
            max_candidates: self.settings.max_candidates,
        })
    }

    /// The topics a cycle tends, in order; those needing attention it
    /// leaves, with why; every topic assessed.
    fn choose(&self, only: Option<&str>) -> Result<Chosen, GardenError> {
        let (topics, _) = store::topics(&self.vault);
        let mut assessed: Vec<Assessment> = topics.iter().map(|t| self.assess(t)).collect();
        assessed.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.slug.cmp(&b.slug)));
        let planned = |a: &Assessment| Planned {
            slug: a.slug.clone(),
            name: a.name.clone(),
            score: a.score,
            queries: a.queries.clone(),
            feeds: a.feeds.clone(),
        };
        let mut chosen = Vec::new();
        let mut skipped = Vec::new();
        if let Some(only) = only {
            let topic = store::find_topic(&self.vault, only)?;
            let a = assessed
                .iter()
                .find(|a| a.slug == topic.slug)
                .expect("assessed");
            match &a.cooling_until {
                Some(until) => skipped.push(format!(
                    "{}: cooling until {until} (tended less than {} hours ago)",
                    a.slug, self.settings.cooling_hours
                )),
                None => chosen.push(planned(a)),
            }
            return Ok((chosen, skipped, assessed));
        }
        for a in assessed.iter().filter(|a| a.needs_attention()) {
            if let Some(until) = &a.cooling_until {
                skipped.push(format!("{}: cooling until {until}", a.slug));
            } else if chosen.len() >= self.settings.topics_per_cycle {
                skipped.push(format!(
                    "{}: beyond the {} topics a cycle tends",
                    a.slug, self.settings.topics_per_cycle
                ));
            } else {
                chosen.push(planned(a));
            }
        }
        Ok((chosen, skipped, assessed))
    }

    /// Runs a cycle — or finishes the one that was interrupted.
    pub fn run(
        &self,
        options: RunOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Cycle, GardenError> {
        let _lock = lock(&self.vault)?;
        let mut state = State::load(&self.vault);
        let mut cycle = match state.current.take() {
            Some(mut interrupted) => {
                interrupted.resumed += 1;
                interrupted
            }
            None => Cycle {
                id: self.now_text(),
                only: options.topic.clone(),
                scheduled: options.scheduled,
                ..Cycle::default()
            },
        };
        for step in Step::ALL {
            if cycle.done.contains(&step) {
                continue;
            }
            progress(Progress::Step {
                step,
                cycle: cycle.id.clone(),
            });
            match step {
                Step::Wake => {}
                Step::Inbox => cycle.inbox = self.process_inbox()?,
                Step::Assess => {
                    let (chosen, skipped, _) = self.choose(cycle.only.as_deref())?;
                    cycle.plan = chosen;
                    cycle.skipped = skipped;
                }
                Step::Tend => self.tend(&mut state, &mut cycle, progress)?,
                Step::Synthesize => cycle.synthesis = self.synthesize(&cycle),
                Step::Outbox => cycle.outbox = outbox::prepare(self, &mut state, &cycle)?,
                Step::Snapshot => cycle.snapshot = Some(snapshot::take(self)?),
                Step::Log => {
                    let now = self.now();
                    let every = (self.settings.every_hours.max(1) as i64).hours();
                    let started: Timestamp = cycle.id.parse().unwrap_or(now);
                    if cycle.scheduled || state.next_wake.is_none() {
                        let mut next = started + every;
                        if next <= now {
                            next = now + every;
                        }
                        state.next_wake = Some(next.to_string());
                    }
                    cycle.finished = Some(self.now_text());
                    cycle.next_wake = state.next_wake.clone();
                    outbox::log(self, &cycle)?;
                    state.totals.cycles += 1;
                    state.totals.searches += cycle.searches.len();
                    state.totals.fetches += cycle.fetches.len();
                    state.totals.candidates += cycle.added();
                }
            }
            cycle.done.push(step);
            if step == Step::Log {
                state.current = None;
                state.last = Some(cycle.clone());
            } else {
                state.current = Some(cycle.clone());
            }
            state.save(&self.vault)?;
        }
        Ok(cycle)
    }

    fn tend(
        &self,
        state: &mut State,
        cycle: &mut Cycle,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), GardenError> {
        // A topic's facts recorded but maybe not written when the cycle stopped.
        if let Some(pending) = cycle.pending.clone() {
            self.write_pending(&pending)?;
            state
                .unread
                .insert(pending.tended.topic.clone(), pending.unread);
            cycle.tended.push(pending.tended);
            cycle.pending = None;
            self.save(state, cycle)?;
        }
        // A request out when the cycle stopped: spent, not sent again.
        for s in cycle
            .searches
            .iter_mut()
            .filter(|s| s.hits.is_none() && s.error.is_none())
        {
            s.error = Some("interrupted (the search counts against the bound)".into());
        }
        for f in cycle.fetches.iter_mut().filter(|f| !f.done) {
            f.done = true;
            f.error = Some("interrupted (the fetch counts against the bound)".into());
        }
        for f in cycle
            .feeds
            .iter_mut()
            .filter(|f| f.entries.is_none() && f.error.is_none())
        {
            f.error = Some("interrupted (the read counts against the bound)".into());
        }
        let provider = match &self.provider {
            Ok(p) => p.clone(),
            Err(e) => {
                if !cycle.errors.contains(e) {
                    cycle.errors.push(e.clone());
                }
                Provider::None
            }
        };
        let (topics, _) = store::topics(&self.vault);
        let sources = store::sources(&self.vault);
        let reputation = Reputation::learn(&topics, &sources);
        let plan = cycle.plan.clone();
        for (k, planned) in plan.iter().enumerate() {
            if cycle.tended.iter().any(|t| t.topic == planned.slug) {
                continue;
            }
            let left = plan.len() - k;
            let Ok(topic) = store::topic(&self.vault, &planned.slug) else {
                cycle
                    .skipped
                    .push(format!("{}: its note is gone or unreadable", planned.slug));
                continue;
            };
            // Search.
            let share = self
                .settings
                .max_searches
                .saturating_sub(cycle.searches.len())
                .div_ceil(left);
            if provider != Provider::None {
                let queries: Vec<String> = formulate(planned, state.totals.cycles);
                let mut done_here = cycle
                    .searches
                    .iter()
                    .filter(|s| s.topic == planned.slug)
                    .count();
                for query in queries {
                    if done_here >= share || cycle.searches.len() >= self.settings.max_searches {
                        break;
                    }
                    if cycle
                        .searches
                        .iter()
                        .any(|s| s.topic == planned.slug && s.query == query)
                    {
                        continue;
                    }
                    cycle.searches.push(Searched {
                        topic: planned.slug.clone(),
                        query: query.clone(),
                        hits: None,
                        error: None,
                    });
                    self.save(state, cycle)?;
                    let answer = search::search(
                        &self.web,
                        &provider,
                        &query,
                        self.settings.results_per_search,
                    );
                    let last = cycle.searches.last_mut().expect("just pushed");
                    match answer {
                        Ok(hits) => last.hits = Some(hits),
                        Err(e) => {
                            let said = format!("search {query:?} failed: {e}");
                            last.error = Some(e.to_string());
                            cycle.errors.push(said);
                        }
                    }
                    let last = cycle.searches.last().expect("just pushed");
                    progress(Progress::Searched {
                        topic: planned.slug.clone(),
                        query,
                        hits: last.hits.as_ref().map_or(0, Vec::len),
                        error: last.error.clone(),
                    });
                    done_here += 1;
                    self.save(state, cycle)?;
                }
            }
            // Discover: the topic's feeds, read for their links.
            for url in &topic.feeds {
                if cycle.feeds.len() >= self.settings.max_feeds {
                    break;
                }
                if cycle
                    .feeds
                    .iter()
                    .any(|f| f.topic == planned.slug && &f.url == url)
                {
                    continue;
                }
                cycle.feeds.push(FeedRead {
                    topic: planned.slug.clone(),
                    url: url.clone(),
                    entries: None,
                    error: None,
                });
                self.save(state, cycle)?;
                let read = self.read_feed(url);
                let last = cycle.feeds.last_mut().expect("just pushed");
                match read {
                    Ok(entries) => last.entries = Some(entries),
                    Err(e) => {
                        last.error = Some(e.clone());
                        cycle.errors.push(format!("feed {url}: {e}"));
                    }
                }
                let last = cycle.feeds.last().expect("just pushed");
                progress(Progress::FeedRead {
                    topic: planned.slug.clone(),
                    url: url.clone(),
                    entries: last.entries.as_ref().map_or(0, Vec::len),
                    error: last.error.clone(),
                });
                self.save(state, cycle)?;
            }
            // Fetch: the most promising pages found, newest first.
            let share = self
                .settings
                .max_fetches
                .saturating_sub(cycle.fetches.len())
                .div_ceil(left);
            let targets = self.targets(&topic, cycle, &sources, &reputation);
            let already = cycle
                .fetches
                .iter()
                .filter(|f| f.topic == planned.slug)
                .count();
            for (done_here, (url, from_feed)) in (already..).zip(targets) {
                if done_here >= share || cycle.fetches.len() >= self.settings.max_fetches {
                    break;
                }
                cycle.fetches.push(Fetched {
                    topic: planned.slug.clone(),
                    url: url.clone(),
                    feed: false,
                    source: None,
                    credibility: None,
                    error: None,
                    done: false,
                });
                self.save(state, cycle)?;
                // A page the topic's own feed links to is as credible as
                // the feed the person chose.
                let credibility = match (from_feed, reputation.credibility(&url)) {
                    (true, Credibility::Medium) => Credibility::High,
                    (_, earned) => earned,
                };
                let fetched = self.fetch_source(&url, credibility);
                let last = cycle.fetches.last_mut().expect("just pushed");
                last.done = true;
                match fetched {
                    Ok(slug) => {
                        last.source = Some(slug);
                        last.credibility = Some(credibility);
                    }
                    Err(e) => last.error = Some(e),
                }
                progress(Progress::Fetched {
                    topic: planned.slug.clone(),
                    url,
                    error: last.error.clone(),
                });
                self.save(state, cycle)?;
            }
            // Extract, compare, add.
            let share = self
                .settings
                .max_candidates
                .saturating_sub(cycle.added())
                .div_ceil(left);
            let mut errors = Vec::new();
            let unread = state.unread.get(&planned.slug).cloned().unwrap_or_default();
            let pending = self.extract(&topic, cycle, &unread, share, &mut errors);
            cycle.errors.extend(errors);
            cycle.pending = Some(pending.clone());
            self.save(state, cycle)?;
            self.write_pending(&pending)?;
            state
                .unread
                .insert(planned.slug.clone(), pending.unread.clone());
            progress(Progress::Candidates {
                topic: planned.slug.clone(),
                added: pending.tended.added.clone(),
                disputed: pending.tended.disputed.clone(),
            });
            cycle.tended.push(pending.tended);
            cycle.pending = None;
            self.save(state, cycle)?;
        }
        Ok(())
    }

    fn save(&self, state: &mut State, cycle: &Cycle) -> Result<(), GardenError> {
        state.current = Some(cycle.clone());
        state.save(&self.vault)
    }

    /// What to fetch for a topic, best first: the pages its feeds link to
    /// and the search results, newest first (by the version they name, then
    /// by their date: a page of a release newer than the topic knows, or
    /// dated since it was last tended, before older ones), those about the
    /// topic before the rest, then by their domain's reputation. Pages read
    /// within the topic's freshness are not read again; addresses the
    /// gardener may not reach are left out before any budget is spent.
    fn targets(
        &self,
        topic: &Topic,
        cycle: &Cycle,
        sources: &HashMap<String, Source>,
        reputation: &Reputation,
    ) -> Vec<(String, bool)> {
        let fetched: BTreeSet<&str> = cycle.fetches.iter().map(|f| f.url.as_str()).collect();
        let now = self.now();
        let fresh = |url: &str| {
            sources.get(&store::source_slug(url)).is_some_and(|s| {
                s.fetched_at.parse::<Timestamp>().is_ok_and(|at| {
                    (now.as_second() - at.as_second()) < topic.freshness_days as i64 * 86_400
                })
            })
        };
        let mut wanted = extract::content_words(&topic.name);
        for q in &topic.queries {
            wanted.extend(extract::content_words(q));
        }
        let from_feeds = cycle
            .feeds
            .iter()
            .filter(|f| f.topic == topic.slug)
            .flat_map(|f| f.entries.iter().flatten())
            .map(|hit| (hit, true));
        let from_searches = cycle
            .searches
            .iter()
            .filter(|s| s.topic == topic.slug)
            .flat_map(|s| s.hits.iter().flatten())
            .map(|hit| (hit, false));
        let mut ranked: Vec<(Promise, String, bool)> = Vec::new();
        for (hit, from_feed) in from_feeds.chain(from_searches) {
            let url = hit.url.trim().to_string();
            if !(url.starts_with("http://") || url.starts_with("https://"))
                || fetched.contains(url.as_str())
                || fresh(&url)
                || ranked.iter().any(|(_, u, _)| *u == url)
                || self.web.reachable(&url).is_err()
            {
                continue;
            }
            let words = extract::content_words(&format!("{} {} {}", hit.title, hit.snippet, url));
            let about = if from_feed {
                1.0
            } else {
                wanted.iter().filter(|w| words.contains(*w)).count() as f64
                    / wanted.len().max(1) as f64
            };
            let named = format!("{} {}", hit.title, url);
            let promise = Promise {
                about: about > 0.0,
                version: claims::versions_in(&named)
                    .iter()
                    .map(|v| claims::version_key(v))
                    .max(),
                date: hit.published.clone().or_else(|| {
                    claims::dates_in(&format!("{} {}", hit.title, hit.snippet))
                        .into_iter()
                        .map(|d| d.value)
                        .max()
                }),
                weight: reputation.share(&url) * (1.0 + about),
            };
            ranked.push((promise, url, from_feed));
        }
        ranked.sort_by(|a, b| b.0.cmp(&a.0));
        ranked.into_iter().map(|(_, u, feed)| (u, feed)).collect()
    }

    /// A feed's entries as links, newest first by their dates.
    fn read_feed(&self, url: &str) -> Result<Vec<Hit>, String> {
        let page = self.web.fetch(url).map_err(|e| e.to_string())?;
        if page.kind != Kind::Feed {
            return Err("not a feed (RSS, Atom or JSON Feed)".into());
        }
        let read = readable::read(&page)?;
        let mut entries: Vec<Hit> = read
            .entries
            .into_iter()
            .filter(|e| !e.url.is_empty())
            .take(MAX_FEED_ENTRIES)
            .map(|e| Hit {
                title: one_line(&e.title),
                url: e.url,
                snippet: one_line(&e.text),
                published: e.published,
            })
            .collect();
        entries.sort_by(|a, b| b.published.cmp(&a.published));
        Ok(entries)
    }

    /// Fetches a page and keeps its readable text as a source note, with
    /// what was flagged on it in a section of its own.
    fn fetch_source(&self, url: &str, credibility: Credibility) -> Result<String, String> {
        let page = self.web.fetch(url).map_err(|e| e.to_string())?;
        if page.kind == Kind::Feed {
            return Err(format!(
                "{url} is a feed: add it to the topic (--feed) and its links are followed"
            ));
        }
        let read = readable::read(&page)?;
        if read.text.trim().is_empty() {
            return Err(format!("{url}: nothing readable on the page"));
        }
        let mut text = bounded(&read.text, 200_000);
        if !read.flagged.is_empty() {
            text.push_str(&format!(
                "\n\n{}\n\nText on the page that is not a statement about its topic: it sat in hidden markup, \
                 or speaks to its reader or an assistant. Kept as evidence; never proposed as a fact.\n\n",
                extract::FLAGGED_SECTION
            ));
            for flagged in read.flagged.iter().take(50) {
                text.push_str(&format!(
                    "- ({}) {}\n",
                    flagged.why,
                    knower_agents::text::bounded_line(&flagged.text, 400)
                ));
            }
        }
        let source = Source {
            slug: store::source_slug(url),
            url: url.to_string(),
            title: if read.title.trim().is_empty() {
                url.to_string()
            } else {
                one_line(&read.title)
            },
            fetched_at: self.now_text(),
            credibility,
        };
        let author = store::author(format!("keep the page {url} as a garden source"));
        self.vault
            .write(&source.path(), &source.render(&text), &author)
            .map_err(|e| e.to_string())?;
        Ok(source.slug)
    }

    /// A topic's new candidates from the pages fetched for it this cycle
    /// and those left over from earlier ones: extracted, told apart from
    /// what the topic holds, checked for contradictions, at most `share`.
    fn extract(
        &self,
        topic: &Topic,
        cycle: &Cycle,
        unread: &[Unread],
        share: usize,
        errors: &mut Vec<String>,
    ) -> PendingWrite {
        let mut working = topic.clone();
        let mut tended = Tended {
            topic: topic.slug.clone(),
            ..Tended::default()
        };
        let mut confidences: Vec<(String, f64)> = Vec::new();
        let mut facts: Vec<Fact> = Vec::new();
        let mut found: Vec<(Found, String)> = Vec::new();
        let prompt = self
            .llm
            .as_ref()
            .map(|_| knower_agents::prompt(&self.vault, PROMPT, BUILT_IN_PROMPT).text);
        let fetched_now = cycle
            .fetches
            .iter()
            .filter(|f| f.topic == topic.slug)
            .filter_map(|f| {
                Some(Unread {
                    url: f.url.clone(),
                    source: f.source.clone()?,
                    credibility: f.credibility?,
                })
            });
        let mut pages: Vec<Unread> = Vec::new();
        for page in fetched_now.chain(unread.iter().cloned()) {
            if !pages.iter().any(|p| p.source == page.source) {
                pages.push(page);
            }
        }
        for page in &pages {
            let Some((source, text)) = store::source_page(&self.vault, &page.source) else {
                continue;
            };
            let title = source.map(|s| s.title).unwrap_or_default();
            let offline = || extract::offline(topic, &title, &text, page.credibility.weight());
            let from_page = match (&self.llm, &prompt) {
                (Some(llm), Some(prompt)) => {
                    match extract::with_model(
                        llm,
                        prompt,
                        topic,
                        &title,
                        extract::readable_part(&text),
                        page.credibility,
                    ) {
                        Ok(found) => found,
                        Err(e) => {
                            errors.push(format!("{}: the model's extraction failed ({e}); the offline engine read the page", page.url));
                            offline()
                        }
                    }
                }
                _ => offline(),
            };
            found.extend(from_page.into_iter().map(|f| (f, page.source.clone())));
        }
        found.sort_by(|a, b| b.0.confidence.total_cmp(&a.0.confidence));
        let today = self.today();
        let mut left: Vec<Unread> = Vec::new();
        for (candidate, source) in found {
            let statement = one_line(&candidate.statement);
            if statement.is_empty() {
                continue;
            }
            let id = Fact::id_for(&topic.slug, &statement);
            let same = working
                .fact(&id)
                .or_else(|| extract::duplicate(&working, &statement))
                .map(|f| (f.id.clone(), f.source.clone(), f.status, f.confidence));
            if let Some((same_id, same_source, status, confidence)) = same {
                tended.duplicates += 1;
                if status != Status::Archived
                    && same_source.as_deref() != Some(source.as_str())
                    && !tended.reinforced.contains(&same_id)
                {
                    let raised = extract::clamp(confidence + 0.05);
                    confidences.push((same_id.clone(), raised));
                    tended.reinforced.push(same_id);
                }
                continue;
            }
            if facts.len() >= share {
                tended.over_bound += 1;
                if let Some(page) = pages.iter().find(|p| p.source == source)
                    && !left.contains(page)
                {
                    left.push(page.clone());
                }
                continue;
            }
            let contradicts = self.contradictions(&working, &statement, errors);
            let status = if contradicts.is_empty() {
                Status::Candidate
            } else {
                Status::Disputed
            };
            let fact = Fact {
                id: id.clone(),
                statement,
                status,
                confidence: extract::clamp(candidate.confidence),
                found: today.clone(),
                source: Some(source),
                contradicts,
                rejected: None,
            };
            if status == Status::Disputed {
                tended.disputed.push(id.clone());
            }
            tended.added.push(id);
            working.facts.push(fact.clone());
            facts.push(fact);
        }
        if cycle.fetches.iter().all(|f| f.topic != topic.slug) {
            tended.note = Some(match &self.provider {
                Ok(Provider::None) if topic.feeds.is_empty() => {
                    "nothing to read: no search provider and no feeds (add --feed, or set BRAVE_API_KEY or [garden] searxng_url)".into()
                }
                _ => "nothing new to read (no results, or all read within the topic's freshness)".into(),
            });
        }
        PendingWrite {
            tended,
            unread: left,
            facts,
            confidences,
            tended_at: self.now_text(),
        }
    }

    /// The facts `statement` contradicts: the model's judgement against
    /// the topic's nearest facts, or the offline rule.
    fn contradictions(
        &self,
        topic: &Topic,
        statement: &str,
        errors: &mut Vec<String>,
    ) -> Vec<String> {
        let Some(llm) = &self.llm else {
            return extract::contradictions(topic, statement);
        };
        let nearest = self.nearest(topic, statement);
        match extract::judge_with_model(llm, statement, &nearest) {
            Ok(ids) => ids,
            Err(e) => {
                errors.push(format!(
                    "the model's contradiction check failed ({e}); the offline rule decided"
                ));
                extract::contradictions(topic, statement)
            }
        }
    }

    /// Up to five of the topic's facts (not archived) nearest to
    /// `statement`: found with the index in the topic's note, then by
    /// shared words.
    fn nearest<'t>(&self, topic: &'t Topic, statement: &str) -> Vec<&'t Fact> {
        let mut ids: Vec<String> = Vec::new();
        if let Some(index) = &self.index {
            let options = knower_index::SearchOptions {
                scope: Some(topic.path()),
                limit: 5,
                ..Default::default()
            };
            if let Ok(results) = index.search(statement, &options) {
                for hit in results.hits {
                    ids.extend(ids_in(&hit.text));
                }
            }
        }
        let words = extract::content_words(statement);
        let mut by_words: Vec<(usize, &Fact)> = topic
            .facts
            .iter()
            .map(|f| {
                (
                    extract::content_words(&f.statement)
                        .intersection(&words)
                        .count(),
                    f,
                )
            })
            .filter(|(shared, _)| *shared > 0)
            .collect();
        by_words.sort_by_key(|(shared, _)| std::cmp::Reverse(*shared));
        ids.extend(by_words.into_iter().map(|(_, f)| f.id.clone()));
        let mut out: Vec<&Fact> = Vec::new();
        for id in ids {
            if let Some(f) = topic.fact(&id)
                && f.status != Status::Archived
                && !out.iter().any(|o| o.id == f.id)
            {
                out.push(f);
            }
            if out.len() == 5 {
                break;
            }
        }
        out
    }

    /// Writes a topic's new facts (those not there yet, by id), raised
    /// confidences and `last_tended`: idempotent, so a resumed cycle
    /// writes them once.
    fn write_pending(&self, pending: &PendingWrite) -> Result<(), GardenError> {
        let slug = &pending.tended.topic;
        let author = store::author(format!(
            "garden cycle: {} new candidate(s) for {slug}{}",
            pending.facts.len(),
            if pending.tended.disputed.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} contradicting known facts",
                    pending.tended.disputed.len()
                )
            }
        ));
        store::change_topic(&self.vault, slug, &author, |topic| {
            for fact in &pending.facts {
                if topic.fact(&fact.id).is_none() {
                    topic.facts.push(fact.clone());
                }
            }
            for (id, confidence) in &pending.confidences {
                if let Some(f) = topic.facts.iter_mut().find(|f| &f.id == id) {
                    f.confidence = f.confidence.max(*confidence);
                }
            }
            topic.last_tended = pending.tended_at.clone();
            Ok(())
        })
    }

    /// Cross-topic links, contradictions across topics, suggested topics.
    fn synthesize(&self, cycle: &Cycle) -> Synthesis {
        let (topics, _) = store::topics(&self.vault);
        let related = related(&topics);
        let mut cross = Vec::new();
        for tended in &cycle.tended {
            let Some(own) = topics.iter().find(|t| t.slug == tended.topic) else {
                continue;
            };
            for id in &tended.added {
                let Some(fact) = own.fact(id) else { continue };
                for other in topics.iter().filter(|t| t.slug != own.slug) {
                    for contradicted in extract::contradictions(other, &fact.statement) {
                        cross.push((id.clone(), contradicted));
                    }
                }
            }
        }
        Synthesis {
            related,
            cross_contradictions: cross,
            suggested_topics: suggest(&topics),
        }
    }
}

/// Entries of one feed considered, at most.
const MAX_FEED_ENTRIES: usize = 50;

/// How promising a page is to read, compared in this order.
#[derive(Debug, PartialEq, PartialOrd)]
struct Promise {
    /// Its title or snippet names the topic (a feed's entries all do).
    about: bool,
    /// The newest version its title or address names.
    version: Option<Vec<u64>>,
    /// Its date (`YYYY-MM-DD`), from the provider or the feed, or named.
    date: Option<String>,
    weight: f64,
}

impl Promise {
    fn cmp(&self, other: &Promise) -> std::cmp::Ordering {
        self.partial_cmp(other).unwrap_or(std::cmp::Ordering::Equal)
    }
}

/// The queries a topic is searched with this cycle: its own queries,
/// taken in turn from cycle to cycle (so each gets its turn), or its name.
pub fn formulate(planned: &Planned, cycles: usize) -> Vec<String> {
    if planned.queries.is_empty() {
        return vec![planned.name.clone()];
    }
    let n = planned.queries.len();
    (0..n)
        .map(|k| planned.queries[(cycles + k) % n].clone())
        .collect()
}

/// Topic pairs where one's facts name the other (all of the other's name
/// words in one fact).
pub fn related(topics: &[Topic]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for a in topics {
        let facts: Vec<_> = a
            .facts
            .iter()
            .filter(|f| f.status != Status::Archived)
            .map(|f| extract::content_words(&f.statement))
            .collect();
        for b in topics.iter().filter(|b| b.slug != a.slug) {
            let name = extract::content_words(&b.name);
            if !name.is_empty() && facts.iter().any(|words| name.is_subset(words)) {
                out.push((a.slug.clone(), b.slug.clone()));
            }
        }
    }
    out
}

/// Capitalised names met in at least three facts from at least two
/// sources, that are no topic's name words: the best three.
fn suggest(topics: &[Topic]) -> Vec<String> {
    let known: BTreeSet<String> = topics
        .iter()
        .flat_map(|t| extract::content_words(&t.name))
        .collect();
    let mut seen: HashMap<String, (usize, BTreeSet<String>)> = HashMap::new();
    for fact in topics
        .iter()
        .flat_map(|t| &t.facts)
        .filter(|f| f.status != Status::Archived)
    {
        let mut names = BTreeSet::new();
        for word in fact.statement.split_whitespace().skip(1) {
            let word = word.trim_matches(|c: char| !c.is_alphanumeric());
            if word.len() > 2
                && word.chars().next().is_some_and(char::is_uppercase)
                && !known.contains(&word.to_lowercase())
            {
                names.insert(word.to_string());
            }
        }
        for name in names {
            let entry = seen.entry(name).or_default();
            entry.0 += 1;
            entry.1.insert(fact.source.clone().unwrap_or_default());
        }
    }
    let mut ranked: Vec<(usize, String)> = seen
        .into_iter()
        .filter(|(_, (count, sources))| *count >= 3 && sources.len() >= 2)
        .map(|(name, (count, _))| (count, name))
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked.into_iter().take(3).map(|(_, name)| name).collect()
}

/// Fact ids written in a passage of a topic note.
fn ids_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("`g") {
        let candidate = rest[at + 1..].get(..9).unwrap_or("");
        if crate::model::valid_id(candidate) && rest[at + 1..].get(9..10) == Some("`") {
            out.push(candidate.to_string());
        }
        rest = &rest[at + 2..];
    }
    out
}

fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}\n\n(The page goes on; Knower kept its first {max} bytes.)",
        &text[..cut]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_take_turns_from_cycle_to_cycle() {
        let planned = Planned {
            slug: "t".into(),
            name: "T".into(),
            score: 1.0,
            queries: vec!["a".into(), "b".into(), "c".into()],
            feeds: vec![],
        };
        assert_eq!(formulate(&planned, 0), vec!["a", "b", "c"]);
        assert_eq!(formulate(&planned, 1), vec!["b", "c", "a"]);
        let unnamed = Planned {
            queries: vec![],
            ..planned
        };
        assert_eq!(formulate(&unnamed, 5), vec!["T"]);
    }

    #[test]
    fn ids_are_read_from_a_topic_passage() {
        assert_eq!(
            ids_in("- Tokio 1.40 `g1a2b3c4d` · confidence 0.8\n- x `gzz` `g00000001`"),
            vec!["g1a2b3c4d".to_string(), "g00000001".to_string()]
        );
    }
}
