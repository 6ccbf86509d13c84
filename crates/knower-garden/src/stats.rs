//! Seed 001's success metrics, from the garden itself: coverage (facts per
//! topic), freshness (fact age against what each topic asks), accuracy
//! (approval rate), efficiency (facts confirmed per search query) and
//! engagement (how often the person reviews).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::GardenError;
use crate::cycle::State;
use crate::garden::Garden;
use crate::model::Status;
use crate::review;
use crate::store::{self, APPROVALS, REJECTIONS};

#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    pub topics: usize,
    pub coverage: Coverage,
    pub freshness: Freshness,
    pub accuracy: Accuracy,
    pub efficiency: Efficiency,
    pub engagement: Engagement,
}

#[derive(Clone, Debug, Serialize)]
pub struct Coverage {
    pub confirmed: usize,
    pub candidates: usize,
    pub disputed: usize,
    pub archived: usize,
    pub confirmed_per_topic: f64,
    /// Topics with fewer confirmed facts than `sparse_below`.
    pub sparse_topics: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Freshness {
    /// Topics tended within their `freshness_days`.
    pub fresh_topics: usize,
    pub stale_topics: usize,
    /// Mean age in days of confirmed facts (since found).
    pub confirmed_age_days: Option<f64>,
    /// That age over the topic's freshness_days, averaged over topics
    /// (above 1: older than the person wants).
    pub age_over_freshness: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Accuracy {
    pub approved: usize,
    pub rejected: usize,
    pub approval_rate: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Efficiency {
    pub cycles: usize,
    pub searches: usize,
    pub fetches: usize,
    pub candidates_found: usize,
    /// Confirmed facts that came from the web (they have a source).
    pub confirmed_from_web: usize,
    pub confirmed_per_search: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Engagement {
    /// Days with at least one decision, in the last 30.
    pub review_days_last_30: usize,
    pub last_review: Option<String>,
    /// Candidates and disputed facts waiting.
    pub waiting: usize,
}

fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

impl Garden {
    pub fn stats(&self) -> Result<Stats, GardenError> {
        let (topics, _) = store::topics(&self.vault);
        let state = State::load(&self.vault);
        let count = |s: Status| topics.iter().map(|t| t.count(s)).sum::<usize>();
        let assessed: Vec<_> = topics.iter().map(|t| self.assess(t)).collect();
        let today: jiff::civil::Date = self.today().parse().expect("today is a date");
        let age = |found: &str| {
            found
                .parse::<jiff::civil::Date>()
                .ok()
                .map(|d| (today - d).get_days() as f64)
        };
        let mut ages = Vec::new();
        let mut ratios = Vec::new();
        for topic in &topics {
            let topic_ages: Vec<f64> = topic
                .facts
                .iter()
                .filter(|f| f.status == Status::Confirmed)
                .filter_map(|f| age(&f.found))
                .collect();
            if !topic_ages.is_empty() {
                let mean = topic_ages.iter().sum::<f64>() / topic_ages.len() as f64;
                ratios.push(mean / topic.freshness_days as f64);
            }
            ages.extend(topic_ages);
        }
        let mean =
            |v: &[f64]| (!v.is_empty()).then(|| round(v.iter().sum::<f64>() / v.len() as f64));
        let decisions: Vec<review::Decision> = review::read_decisions(&self.vault, APPROVALS)?
            .into_iter()
            .chain(review::read_decisions(&self.vault, REJECTIONS)?)
            .collect();
        let applied = |path: &str| -> Result<usize, GardenError> {
            Ok(review::read_decisions(&self.vault, path)?
                .iter()
                .filter(|d| {
                    d.applied.is_some()
                        && !d.result.as_deref().unwrap_or("").starts_with("not applied")
                })
                .count())
        };
        let (approved, rejected) = (applied(APPROVALS)?, applied(REJECTIONS)?);
        let days: BTreeSet<String> = decisions
            .iter()
            .filter_map(|d| d.at.as_deref().or(d.applied.as_deref()))
            .filter_map(|t| t.get(..10))
            .filter(|d| age(d).is_some_and(|a| a < 30.0))
            .map(str::to_string)
            .collect();
        let last_review = decisions
            .iter()
            .filter_map(|d| d.at.clone().or_else(|| d.applied.clone()))
            .max();
        let confirmed_from_web = topics
            .iter()
            .flat_map(|t| &t.facts)
            .filter(|f| f.status == Status::Confirmed && f.source.is_some())
            .count();
        Ok(Stats {
            topics: topics.len(),
            coverage: Coverage {
                confirmed: count(Status::Confirmed),
                candidates: count(Status::Candidate),
                disputed: count(Status::Disputed),
                archived: count(Status::Archived),
                confirmed_per_topic: if topics.is_empty() {
                    0.0
                } else {
                    round(count(Status::Confirmed) as f64 / topics.len() as f64)
                },
                sparse_topics: assessed.iter().filter(|a| a.sparse).count(),
            },
            freshness: Freshness {
                fresh_topics: assessed.iter().filter(|a| !a.stale).count(),
                stale_topics: assessed.iter().filter(|a| a.stale).count(),
                confirmed_age_days: mean(&ages),
                age_over_freshness: mean(&ratios),
            },
            accuracy: Accuracy {
                approved,
                rejected,
                approval_rate: (approved + rejected > 0)
                    .then(|| round(approved as f64 / (approved + rejected) as f64)),
            },
            efficiency: Efficiency {
                cycles: state.totals.cycles,
                searches: state.totals.searches,
                fetches: state.totals.fetches,
                candidates_found: state.totals.candidates,
                confirmed_from_web,
                confirmed_per_search: (state.totals.searches > 0)
                    .then(|| round(confirmed_from_web as f64 / state.totals.searches as f64)),
            },
            engagement: Engagement {
                review_days_last_30: days.len(),
                last_review,
                waiting: count(Status::Candidate) + count(Status::Disputed),
            },
        })
    }
}
