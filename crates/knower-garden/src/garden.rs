//! [`Garden`]: the gardener of one vault — its topics, the review, the
//! cycle, the figures.

use std::sync::Arc;

use jiff::{Timestamp, ToSpan};
use knower_index::Index;
use knower_llm::Llm;
use knower_vault::Vault;
use serde::Serialize;

use crate::GardenError;
use crate::model::{Status, Topic};
use crate::review::{self, InboxReport, Review};
use crate::settings::{Provider, Settings};
use crate::store::{self, APPROVALS, REJECTIONS};
use crate::web::Web;

/// How the gardener's extraction prompt is named: `prompts/garden-extract.md`
/// overrides it.
pub const PROMPT: &str = "garden-extract";
pub const BUILT_IN_PROMPT: &str = include_str!("../prompts/garden-extract.md");

pub struct Garden {
    pub(crate) vault: Arc<Vault>,
    pub(crate) index: Option<Arc<Index>>,
    pub(crate) llm: Option<Arc<Llm>>,
    pub(crate) settings: Settings,
    pub(crate) provider: Result<Provider, String>,
    pub(crate) web: Web,
    /// A fixed "now" (tests of cooling and of the weekly boundary).
    clock: Option<Timestamp>,
}

/// A topic as `knower garden add` makes it.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct NewTopic {
    pub name: String,
    #[serde(default)]
    pub priority: Option<u8>,
    #[serde(default)]
    pub freshness_days: Option<u32>,
    #[serde(default)]
    pub queries: Vec<String>,
    #[serde(default)]
    pub feeds: Vec<String>,
}

/// A topic as the garden sees it when it assesses: what needs attention.
#[derive(Clone, Debug, Serialize)]
pub struct Assessment {
    pub slug: String,
    pub name: String,
    pub priority: u8,
    pub freshness_days: u32,
    pub last_tended: String,
    /// Days since it was last tended (none: never).
    pub age_days: Option<f64>,
    pub stale: bool,
    pub sparse: bool,
    /// Open contradictions.
    pub disputed: usize,
    /// Tended too recently to be tended again before this time.
    pub cooling_until: Option<String>,
    /// priority × staleness: the order topics are tended in.
    pub score: f64,
    pub confirmed: usize,
    pub candidates: usize,
    pub archived: usize,
    pub queries: Vec<String>,
    pub feeds: Vec<String>,
}

impl Assessment {
    pub fn needs_attention(&self) -> bool {
        self.stale || self.sparse || self.disputed > 0
    }
}

/// `knower garden list`.
#[derive(Clone, Debug, Serialize)]
pub struct Listing {
    pub topics: Vec<Assessment>,
    pub unreadable: Vec<store::Unreadable>,
    pub next_wake: Option<String>,
    /// A cycle that was interrupted and will be resumed.
    pub interrupted: Option<String>,
    pub search: String,
    /// What failed in the last cycle (a search provider's answer, a feed,
    /// a page), so a broken provider is seen where topics are listed.
    pub last_errors: Vec<String>,
}

impl Garden {
    /// The gardener of `vault`, with `[garden]` from its `knower.toml` and
    /// the search provider the environment's keys choose.
    pub fn open(
        vault: Arc<Vault>,
        index: Option<Arc<Index>>,
        llm: Option<Arc<Llm>>,
    ) -> Result<Garden, GardenError> {
        let toml = vault.read("knower.toml").unwrap_or_default();
        // A mistake in `[garden]` must not stop the rest of Knower: the
        // gardener keeps its default bounds, searches nothing, and says
        // why in `list`, `run` and the cycle's errors.
        let (settings, provider) = match Settings::parse(&toml) {
            Ok(settings) => {
                let provider = settings.provider(&|key| std::env::var(key).ok());
                (settings, provider)
            }
            Err(e) => (Settings::default(), Err(e)),
        };
        Ok(Garden::with(vault, index, llm, settings, provider))
    }

    pub fn with(
        vault: Arc<Vault>,
        index: Option<Arc<Index>>,
        llm: Option<Arc<Llm>>,
        settings: Settings,
        provider: Result<Provider, String>,
    ) -> Garden {
        let web = Web::new(&settings, provider.as_ref().ok());
        Garden {
            vault,
            index,
            llm,
            settings,
            provider,
            web,
            clock: None,
        }
    }

    /// This garden with a fixed clock.
    pub fn at(mut self, now: Timestamp) -> Garden {
        self.clock = Some(now);
        self
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn vault(&self) -> &Arc<Vault> {
        &self.vault
    }

    pub(crate) fn now(&self) -> Timestamp {
        self.clock.unwrap_or_else(Timestamp::now)
    }

    pub(crate) fn now_text(&self) -> String {
        self.now()
            .round(jiff::Unit::Second)
            .unwrap_or(self.now())
            .to_string()
    }

    pub(crate) fn today(&self) -> String {
        self.now()
            .to_zoned(jiff::tz::TimeZone::UTC)
            .date()
            .to_string()
    }

    /// `brave`, `searxng at URL`, or why there is none.
    pub fn search_label(&self) -> String {
        match &self.provider {
            Ok(Provider::Brave { .. }) => "Brave Search".into(),
            Ok(Provider::Searxng { url }) => format!("SearxNG at {url}"),
            Ok(Provider::None) => {
                "none (feeds only: set BRAVE_API_KEY or [garden] searxng_url to search)".into()
            }
            Err(e) => format!("misconfigured: {e}"),
        }
    }

    /// Whether a search provider is configured (without one, only feeds are read).
    pub fn can_search(&self) -> bool {
        matches!(
            self.provider,
            Ok(Provider::Brave { .. } | Provider::Searxng { .. })
        )
    }

    /// Adds a topic (`garden/topics/<slug>.md`).
    pub fn add_topic(&self, new: NewTopic) -> Result<Topic, GardenError> {
        let name = new.name.trim();
        let mut topic = Topic::new(
            name,
            new.priority.unwrap_or(3),
            new.freshness_days.unwrap_or(7),
        );
        if topic.slug.is_empty() {
            return Err(GardenError::Invalid(
                "a topic needs a name with letters or digits".into(),
            ));
        }
        if let Some(p) = new.priority
            && !(1..=5).contains(&p)
        {
            return Err(GardenError::Invalid(format!("priority is 1 to 5, not {p}")));
        }
        if new.freshness_days == Some(0) {
            return Err(GardenError::Invalid("freshness is at least 1 day".into()));
        }
        if let Some((cut, _)) = topic.slug.char_indices().nth(80) {
            topic.slug.truncate(cut);
        }
        for feed in &new.feeds {
            match reqwest::Url::parse(feed) {
                Ok(url) if matches!(url.scheme(), "http" | "https") => {}
                _ => {
                    return Err(GardenError::Invalid(format!(
                        "the feed {feed:?} is not an http(s) URL"
                    )));
                }
            }
        }
        topic.queries = new
            .queries
            .iter()
            .map(|q| crate::model::one_line(q))
            .filter(|q| !q.is_empty())
            .collect();
        topic.feeds = new.feeds;
        let path = topic.path();
        let author = store::author(format!("add the garden topic {:?}", topic.name));
        let mut exists = false;
        self.vault.batch(&author, |batch| {
            if batch.read(&path)?.is_some() {
                exists = true;
                return Ok(());
            }
            batch.write(&path, &topic.render())
        })?;
        if exists {
            return Err(GardenError::Invalid(format!(
                "the topic {} already exists ({path})",
                topic.slug
            )));
        }
        Ok(topic)
    }

    /// Every topic, assessed.
    pub fn list(&self) -> Result<Listing, GardenError> {
        let (topics, unreadable) = store::topics(&self.vault);
        let state = crate::cycle::State::load(&self.vault);
        Ok(Listing {
            topics: topics.iter().map(|t| self.assess(t)).collect(),
            unreadable,
            next_wake: state.next_wake.clone(),
            interrupted: state.current.as_ref().map(|c| c.id.clone()),
            search: self.search_label(),
            last_errors: state.last.map(|c| c.errors).unwrap_or_default(),
        })
    }

    pub(crate) fn assess(&self, topic: &Topic) -> Assessment {
        let now = self.now();
        let tended = topic.last_tended.parse::<Timestamp>().ok();
        let age_days = tended.map(|t| (now.as_second() - t.as_second()) as f64 / 86_400.0);
        let stale = age_days.is_none_or(|age| age >= topic.freshness_days as f64);
        let confirmed = topic.count(Status::Confirmed);
        let sparse = confirmed < self.settings.sparse_below;
        let disputed = topic.count(Status::Disputed);
        let cooling_until = tended
            .map(|t| t + (self.settings.cooling_hours as i64).hours())
            .filter(|until| *until > now)
            .map(|until| until.to_string());
        let staleness = match age_days {
            None => 2.0,
            Some(age) => age / topic.freshness_days as f64,
        };
        let staleness = if sparse || disputed > 0 {
            staleness.max(0.5)
        } else {
            staleness
        };
        Assessment {
            slug: topic.slug.clone(),
            name: topic.name.clone(),
            priority: topic.priority,
            freshness_days: topic.freshness_days,
            last_tended: topic.last_tended.clone(),
            age_days: age_days.map(|a| (a * 10.0).round() / 10.0),
            stale,
            sparse,
            disputed,
            cooling_until,
            score: ((topic.priority as f64 * staleness) * 100.0).round() / 100.0,
            confirmed,
            candidates: topic.count(Status::Candidate),
            archived: topic.count(Status::Archived),
            queries: topic.queries.clone(),
            feeds: topic.feeds.clone(),
        }
    }

    /// Applies the inbox's new decisions and requests.
    pub fn process_inbox(&self) -> Result<InboxReport, GardenError> {
        review::process(&self.vault, &self.now_text())
    }

    /// What waits for the person, numbered (the numbers are kept for
    /// `approve` and `reject`). The inbox is processed first, so a decision
    /// written in its files shows at once.
    pub fn review(&self) -> Result<Review, GardenError> {
        self.waiting()
    }

    /// The review, numbered as every surface numbers it ([`review::number`]).
    pub fn waiting(&self) -> Result<Review, GardenError> {
        self.process_inbox()?;
        let (topics, _) = store::topics(&self.vault);
        let mut items = review::review(&topics, &store::sources(&self.vault));
        review::number(&self.vault, &mut items)?;
        let pending = review::read_decisions(&self.vault, APPROVALS)?
            .into_iter()
            .chain(review::read_decisions(&self.vault, REJECTIONS)?)
            .filter(|d| d.applied.is_none())
            .count();
        Ok(Review {
            items,
            pending_decisions: pending,
            alerts: review::alerts(&self.vault.read(store::ALERTS).unwrap_or_default()),
        })
    }

    /// Approves facts by review number or id: written to
    /// `garden/inbox/approvals.json`, then the inbox is processed.
    pub fn approve(&self, refs: &[String]) -> Result<InboxReport, GardenError> {
        let ids = review::resolve(&self.vault, refs)?;
        review::add_decisions(&self.vault, APPROVALS, &ids, None, &self.now_text())?;
        self.process_inbox()
    }

    /// Rejects facts by review number or id, with the reason (kept in
    /// `garden/inbox/rejections.json` and on the archived fact).
    pub fn reject(&self, refs: &[String], reason: &str) -> Result<InboxReport, GardenError> {
        let reason = crate::model::one_line(reason);
        if reason.is_empty() {
            return Err(GardenError::Invalid(
                "a rejection needs its reason: why the fact is wrong, kept with it".into(),
            ));
        }
        let ids = review::resolve(&self.vault, refs)?;
        review::add_decisions(
            &self.vault,
            REJECTIONS,
            &ids,
            Some(&reason),
            &self.now_text(),
        )?;
        self.process_inbox()
    }

    /// When the next scheduled cycle is due (none: one is due now).
    pub fn next_wake(&self) -> Option<Timestamp> {
        crate::cycle::State::load(&self.vault)
            .next_wake
            .and_then(|t| t.parse().ok())
    }

    /// Whether a scheduled cycle should run now: one was interrupted, or
    /// the next wake time has come, or none was ever run and there are
    /// topics.
    pub fn due(&self) -> bool {
        let state = crate::cycle::State::load(&self.vault);
        if state.current.is_some() {
            return true;
        }
        match state.next_wake.and_then(|t| t.parse::<Timestamp>().ok()) {
            Some(at) => at <= self.now(),
            None => !store::files(&self.vault, crate::model::TOPICS, ".md").is_empty(),
        }
    }
}
