//! The person's side of the garden: seed 001's inbox.
//!
//! - `garden/inbox/approvals.json` and `rejections.json` hold decisions, a
//!   list of fact ids (`["g1a2b3c4d"]`) or of objects (`{"id": "g…",
//!   "reason": "outdated blog"}`). Processing the inbox applies the new
//!   ones and stamps each with `applied` and its result, so the files stay
//!   the audit trail and nothing is applied twice. Pressing Approve (CLI,
//!   web, MCP) adds a decision to the file and processes the inbox: one
//!   path, the same effect as editing the file by hand.
//! - Approving a candidate confirms it; approving a disputed fact confirms
//!   it and archives the facts it contradicts ("superseded"). Rejecting
//!   archives with the reason; a disputed fact left contradicting only
//!   archived facts becomes a candidate again. Nothing is deleted.
//! - `garden/inbox/requests.md`: one request a list item. `topic: NAME`
//!   adds a topic; anything else is a question, added as a query to the
//!   topic it is about (or as a new topic). Processed items are ticked
//!   (`- [x] … → what was done`).
//! - The review: disputed facts first, then candidates, numbered; the
//!   numbers shown last are kept (`.knower/garden/review.json`) so
//!   `approve 3` means the 3 the person saw.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use knower_vault::Vault;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::GardenError;
use crate::extract::content_words;
use crate::model::{Credibility, Fact, Source, Status, TOPICS, Topic, valid_id};
use crate::store::{self, APPROVALS, REJECTIONS, REQUESTS};

/// One decision read from an inbox file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When it was made (RFC 3339), when the surface that made it knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// When the gardener applied it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied: Option<String>,
    /// What applying it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

/// What processing the inbox did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InboxReport {
    pub approved: Vec<String>,
    pub rejected: Vec<String>,
    /// Decisions that could not be applied, with why.
    pub refused: Vec<String>,
    /// Requests handled, with what was done.
    pub requests: Vec<String>,
}

impl InboxReport {
    pub fn is_empty(&self) -> bool {
        self.approved.is_empty()
            && self.rejected.is_empty()
            && self.refused.is_empty()
            && self.requests.is_empty()
    }
}

pub fn read_decisions(vault: &Vault, path: &str) -> Result<Vec<Decision>, GardenError> {
    let Some(value) = store::read_json(vault, path)? else {
        return Ok(vec![]);
    };
    let Value::Array(items) = value else {
        return Err(GardenError::Invalid(format!(
            "{path} must be a JSON list of fact ids or of {{\"id\": …}} objects"
        )));
    };
    items
        .into_iter()
        .map(|item| match item {
            Value::String(id) => Ok(Decision {
                id,
                reason: None,
                at: None,
                applied: None,
                result: None,
            }),
            other => serde_json::from_value(other).map_err(|e| {
                GardenError::Invalid(format!(
                    "{path}: a decision is a fact id or {{\"id\": …, \"reason\": …}} ({e})"
                ))
            }),
        })
        .collect()
}

fn render_decisions(decisions: &[Decision]) -> String {
    let mut text = serde_json::to_string_pretty(decisions).expect("decisions serialise");
    text.push('\n');
    text
}

/// Adds decisions to an inbox file (as Approve and Reject do).
pub fn add_decisions(
    vault: &Vault,
    path: &str,
    ids: &[String],
    reason: Option<&str>,
    now: &str,
) -> Result<(), GardenError> {
    let what = if path == APPROVALS {
        "approve"
    } else {
        "reject"
    };
    let author = store::author(format!("{what} {}", ids.join(", ")));
    let mut failure = None;
    vault.batch(&author, |batch| {
        let current = batch.read(path)?.unwrap_or_default();
        let mut decisions = if current.trim().is_empty() {
            vec![]
        } else {
            match serde_json::from_str::<Value>(&current) {
                Ok(Value::Array(items)) => items
                    .into_iter()
                    .filter_map(|item| match item {
                        Value::String(id) => Some(Decision {
                            id,
                            reason: None,
                            at: None,
                            applied: None,
                            result: None,
                        }),
                        other => serde_json::from_value(other).ok(),
                    })
                    .collect(),
                _ => {
                    failure = Some(GardenError::Invalid(format!(
                        "{path} is not a JSON list; fix it and try again"
                    )));
                    return Ok(());
                }
            }
        };
        for id in ids {
            decisions.push(Decision {
                id: id.clone(),
                reason: reason.map(str::to_string),
                at: Some(now.to_string()),
                applied: None,
                result: None,
            });
        }
        batch.write(path, &render_decisions(&decisions))
    })?;
    failure.map_or(Ok(()), Err)
}

/// Applies the inbox's new decisions and requests as one change.
pub fn process(vault: &Vault, now: &str) -> Result<InboxReport, GardenError> {
    let approvals = read_decisions(vault, APPROVALS)?;
    let rejections = read_decisions(vault, REJECTIONS)?;
    let requests = vault.read(REQUESTS).unwrap_or_default();
    let pending_requests = pending_requests(&requests);
    if approvals
        .iter()
        .chain(&rejections)
        .all(|d| d.applied.is_some())
        && pending_requests.is_empty()
    {
        return Ok(InboxReport::default());
    }
    let mut report = InboxReport::default();
    let author = store::author("process the garden's inbox (approvals, rejections, requests)");
    vault.batch(&author, |batch| {
        let mut topics: BTreeMap<String, (String, Topic)> = BTreeMap::new();
        for path in batch.files_under(TOPICS)? {
            let path = path.as_str().to_string();
            let Some(slug) = path
                .strip_prefix(&format!("{TOPICS}/"))
                .and_then(|p| p.strip_suffix(".md"))
            else {
                continue;
            };
            if slug.contains('/') {
                continue;
            }
            if let Some(text) = batch.read(&path)?
                && let Ok(topic) = Topic::parse(slug, &text)
            {
                topics.insert(slug.to_string(), (text, topic));
            }
        }
        let mut approvals = approvals.clone();
        let mut rejections = rejections.clone();
        for decision in approvals.iter_mut().filter(|d| d.applied.is_none()) {
            let result = approve(&mut topics, &decision.id);
            decision.applied = Some(now.to_string());
            match result {
                Ok(done) => {
                    report.approved.push(decision.id.clone());
                    decision.result = Some(done);
                }
                Err(why) => {
                    report
                        .refused
                        .push(format!("approve {}: {why}", decision.id));
                    decision.result = Some(format!("not applied: {why}"));
                }
            }
        }
        for decision in rejections.iter_mut().filter(|d| d.applied.is_none()) {
            let reason = decision
                .reason
                .clone()
                .unwrap_or_else(|| "rejected".to_string());
            let result = reject(&mut topics, &decision.id, &reason);
            decision.applied = Some(now.to_string());
            match result {
                Ok(done) => {
                    report.rejected.push(decision.id.clone());
                    decision.result = Some(done);
                }
                Err(why) => {
                    report
                        .refused
                        .push(format!("reject {}: {why}", decision.id));
                    decision.result = Some(format!("not applied: {why}"));
                }
            }
        }
        let mut new_topics = Vec::new();
        let ticked = tick_requests(&requests, |request| {
            let done = handle_request(&mut topics, &mut new_topics, request);
            report.requests.push(format!("{request} → {done}"));
            done
        });
        for (slug, (before, topic)) in &topics {
            let rendered = topic.render();
            if &rendered != before {
                batch.write(&format!("{TOPICS}/{slug}.md"), &rendered)?;
            }
        }
        for topic in &new_topics {
            batch.write(&topic.path(), &topic.render())?;
        }
        if approvals.iter().any(|d| d.applied.as_deref() == Some(now)) {
            batch.write(APPROVALS, &render_decisions(&approvals))?;
        }
        if rejections.iter().any(|d| d.applied.as_deref() == Some(now)) {
            batch.write(REJECTIONS, &render_decisions(&rejections))?;
        }
        if ticked != requests {
            batch.write(REQUESTS, &ticked)?;
        }
        Ok(())
    })?;
    Ok(report)
}

type Topics = BTreeMap<String, (String, Topic)>;

fn locate<'a>(topics: &'a mut Topics, id: &str) -> Option<(&'a mut Topic, usize)> {
    topics.values_mut().find_map(|(_, topic)| {
        let at = topic.facts.iter().position(|f| f.id == id)?;
        Some((topic, at))
    })
}

fn approve(topics: &mut Topics, id: &str) -> Result<String, String> {
    if !valid_id(id) {
        return Err(format!("{id:?} is not a fact id (g and 8 hex digits)"));
    }
    let (topic, at) = locate(topics, id).ok_or("no topic holds this fact")?;
    let was = topic.facts[at].status;
    if was == Status::Confirmed {
        return Ok("already confirmed".into());
    }
    topic.facts[at].status = Status::Confirmed;
    topic.facts[at].rejected = None;
    let contradicted = topic.facts[at].contradicts.clone();
    let mut superseded = Vec::new();
    for other in topic
        .facts
        .iter_mut()
        .filter(|f| contradicted.contains(&f.id) && f.status != Status::Archived)
    {
        other.status = Status::Archived;
        other.rejected = Some(format!("superseded by {id}"));
        superseded.push(other.id.clone());
    }
    reopen_disputes(topic);
    Ok(match superseded.is_empty() {
        true => format!("confirmed (was {})", was.name()),
        false => format!(
            "confirmed; archived {} it contradicted",
            superseded.join(", ")
        ),
    })
}

fn reject(topics: &mut Topics, id: &str, reason: &str) -> Result<String, String> {
    if !valid_id(id) {
        return Err(format!("{id:?} is not a fact id (g and 8 hex digits)"));
    }
    let (topic, at) = locate(topics, id).ok_or("no topic holds this fact")?;
    let was = topic.facts[at].status;
    if was == Status::Archived {
        return Ok("already archived".into());
    }
    topic.facts[at].status = Status::Archived;
    topic.facts[at].rejected = Some(reason.to_string());
    reopen_disputes(topic);
    Ok(format!("archived (was {}): {reason}", was.name()))
}

/// A disputed fact whose every contradicted fact is archived is no longer
/// disputed: it goes back to the candidates.
fn reopen_disputes(topic: &mut Topic) {
    let archived: BTreeSet<String> = topic
        .facts
        .iter()
        .filter(|f| f.status == Status::Archived)
        .map(|f| f.id.clone())
        .collect();
    for fact in topic
        .facts
        .iter_mut()
        .filter(|f| f.status == Status::Disputed)
    {
        let open = fact.contradicts.iter().any(|id| !archived.contains(id));
        if !open {
            fact.status = Status::Candidate;
        }
    }
}

/// The requests not yet handled: list items not ticked.
fn pending_requests(text: &str) -> Vec<String> {
    text.lines().filter_map(request_of).collect()
}

fn request_of(line: &str) -> Option<String> {
    let item = line
        .trim_start()
        .strip_prefix("- ")
        .or_else(|| line.trim_start().strip_prefix("* "))?;
    if item.starts_with("[x]") || item.starts_with("[X]") {
        return None;
    }
    let item = item.strip_prefix("[ ]").unwrap_or(item).trim();
    (!item.is_empty()).then(|| item.to_string())
}

fn tick_requests(text: &str, mut handle: impl FnMut(&str) -> String) -> String {
    let mut out = String::new();
    for line in text.lines() {
        match request_of(line) {
            Some(request) => {
                let done = handle(&request);
                out.push_str(&format!("- [x] {request} → {done}\n"));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

fn handle_request(topics: &mut Topics, new_topics: &mut Vec<Topic>, request: &str) -> String {
    let lower = request.to_lowercase();
    if let Some(name) = lower.strip_prefix("topic:").map(|_| request[6..].trim()) {
        let topic = Topic::new(name, 3, 7);
        if topic.slug.is_empty() {
            return "not done: a topic needs a name".into();
        }
        if topics.contains_key(&topic.slug) || new_topics.iter().any(|t| t.slug == topic.slug) {
            return format!("topic {} already exists", topic.slug);
        }
        let done = format!("added the topic {}", topic.slug);
        new_topics.push(topic);
        return done;
    }
    // A question: a query of the topic it is most about.
    let words = content_words(request);
    let best = topics
        .values_mut()
        .map(|(_, t)| {
            let mut wanted = content_words(&t.name);
            for q in &t.queries {
                wanted.extend(content_words(q));
            }
            (wanted.intersection(&words).count(), t)
        })
        .filter(|(shared, _)| *shared > 0)
        .max_by_key(|(shared, _)| *shared);
    match best {
        Some((_, topic)) => {
            if !topic
                .queries
                .iter()
                .any(|q| q.eq_ignore_ascii_case(request))
            {
                topic.queries.push(crate::model::one_line(request));
            }
            format!("a query of the topic {}", topic.slug)
        }
        None => {
            let mut topic = Topic::new(request, 3, 7);
            if topic.slug.is_empty() {
                return "not done: nothing to search for".into();
            }
            topic.slug.truncate(
                topic
                    .slug
                    .char_indices()
                    .nth(60)
                    .map_or(topic.slug.len(), |(i, _)| i),
            );
            topic.queries.push(crate::model::one_line(request));
            let done = format!("a new topic {}", topic.slug);
            new_topics.push(topic);
            done
        }
    }
}

/// One thing for the person to decide.
#[derive(Clone, Debug, Serialize)]
pub struct Item {
    pub number: usize,
    pub topic: String,
    pub topic_name: String,
    pub fact: Fact,
    pub source: Option<Source>,
    /// For a disputed fact: the facts it contradicts, with their sources.
    pub contradicts: Vec<(Fact, Option<Source>)>,
}

/// Everything waiting for the person, numbered.
#[derive(Clone, Debug, Serialize)]
pub struct Review {
    pub items: Vec<Item>,
    /// Decisions in the inbox files not yet applied.
    pub pending_decisions: usize,
    /// The last cycle's alerts other than the contradictions (which are
    /// items): what failed, contradictions across topics, suggested topics,
    /// connections — each `section: line`, from `garden/outbox/alerts.md`.
    pub alerts: Vec<String>,
}

/// The alerts of `alerts.md` that are not review items, as `section: line`.
pub fn alerts(text: &str) -> Vec<String> {
    let mut section = "";
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading.trim();
        } else if let Some(item) = line.strip_prefix("- ")
            && !section.is_empty()
            && section != CONTRADICTIONS_SECTION
        {
            out.push(format!("{section}: {}", item.trim()));
        }
    }
    out
}

/// The heading under which `alerts.md` lists the contradictions (they are
/// review items of their own).
pub const CONTRADICTIONS_SECTION: &str = "Contradictions to resolve";

/// The review as it stands, disputed facts first (they need a decision
/// most), then candidates; by topic priority, then confidence.
pub fn review(topics: &[Topic], sources: &HashMap<String, Source>) -> Vec<Item> {
    let mut items = Vec::new();
    let mut ordered: Vec<&Topic> = topics.iter().collect();
    ordered.sort_by(|a, b| b.priority.cmp(&a.priority).then(a.slug.cmp(&b.slug)));
    // Notes are hand-editable: what a terminal or a page would run is
    // taken out of what is shown.
    let shown = |text: &str| crate::readable::clean(text);
    let shown_fact = |f: &Fact| Fact {
        statement: shown(&f.statement),
        ..f.clone()
    };
    let source_of = |f: &Fact| {
        f.source
            .as_ref()
            .and_then(|s| sources.get(s))
            .map(|s| Source {
                title: shown(&s.title),
                url: shown(&s.url),
                ..s.clone()
            })
    };
    for status in [Status::Disputed, Status::Candidate] {
        for topic in &ordered {
            let mut facts: Vec<&Fact> = topic.facts.iter().filter(|f| f.status == status).collect();
            facts.sort_by(|a, b| b.confidence.total_cmp(&a.confidence).then(a.id.cmp(&b.id)));
            for fact in facts {
                let contradicts = fact
                    .contradicts
                    .iter()
                    .filter_map(|id| topic.fact(id))
                    .map(|other| (shown_fact(other), source_of(other)))
                    .collect();
                items.push(Item {
                    number: items.len() + 1,
                    topic: topic.slug.clone(),
                    topic_name: shown(&topic.name),
                    fact: shown_fact(fact),
                    source: source_of(fact),
                    contradicts,
                });
            }
        }
    }
    items
}

/// Where the numbers last shown are kept.
pub fn numbers_path(vault: &Vault) -> std::path::PathBuf {
    vault
        .root()
        .join(knower_vault::INTERNAL_DIR)
        .join("garden")
        .join("review.json")
}

/// The numbers shown, kept in `.knower/garden/review.json`.
#[derive(Default, Serialize, Deserialize)]
struct Numbers {
    /// The number the next new item gets.
    next: usize,
    /// Numbers of the items waiting, to their fact ids.
    ids: BTreeMap<usize, String>,
}

fn load_numbers(vault: &Vault) -> Numbers {
    let Ok(bytes) = std::fs::read(numbers_path(vault)) else {
        return Numbers::default();
    };
    if let Ok(numbers) = serde_json::from_slice::<Numbers>(&bytes) {
        return numbers;
    }
    // The earlier form: the plain map of the last listing.
    let ids: BTreeMap<usize, String> = serde_json::from_slice::<BTreeMap<String, String>>(&bytes)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(n, id)| Some((n.parse().ok()?, id)))
        .collect();
    Numbers {
        next: ids.keys().max().map_or(1, |n| n + 1),
        ids,
    }
}

/// Numbers that do not move under the person: an item keeps the number it
/// was first shown with for as long as it waits, whichever surface or
/// cycle lists it; a new item takes the next number; a number is not
/// given again until nothing waits. So `approve 2` typed from any listing
/// means the fact that listing showed as 2, or is refused once it is
/// decided.
pub fn number(vault: &Vault, items: &mut [Item]) -> Result<(), GardenError> {
    let saved = load_numbers(vault);
    let mut numbers = Numbers::default();
    if !items.is_empty() {
        let by_id: HashMap<&str, usize> =
            saved.ids.iter().map(|(n, id)| (id.as_str(), *n)).collect();
        let mut next = saved.next.max(saved.ids.keys().max().map_or(1, |n| n + 1));
        for item in items.iter_mut() {
            item.number = match by_id.get(item.fact.id.as_str()) {
                Some(&n) => n,
                None => {
                    next += 1;
                    next - 1
                }
            };
            numbers.ids.insert(item.number, item.fact.id.clone());
        }
        numbers.next = next;
    }
    let path = numbers_path(vault);
    std::fs::create_dir_all(path.parent().expect("a parent"))
        .map_err(|e| GardenError::Io(e.to_string()))?;
    let bytes = serde_json::to_vec(&numbers).expect("numbers serialise");
    knower_vault::write_atomic(&path, &bytes).map_err(|e| GardenError::Io(e.to_string()))
}

/// Fact ids for what the person typed: ids as they are, numbers as the
/// review shows them.
pub fn resolve(vault: &Vault, refs: &[String]) -> Result<Vec<String>, GardenError> {
    let saved = load_numbers(vault);
    let mut ids = Vec::new();
    for reference in refs {
        let reference = reference.trim().trim_start_matches('#');
        if valid_id(reference) {
            ids.push(reference.to_string());
            continue;
        }
        let number: usize = reference.parse().map_err(|_| {
            GardenError::Invalid(format!(
                "{reference:?} is neither a review number nor a fact id (g and 8 hex digits)"
            ))
        })?;
        ids.push(saved.ids.get(&number).cloned().ok_or_else(|| {
            GardenError::Invalid(format!(
                "nothing waits as number {number} (decided already, or never shown; see `knower garden review`)"
            ))
        })?);
    }
    Ok(ids)
}

/// Per domain, facts approved and rejected: what a source has earned.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Reputation {
    pub by_domain: BTreeMap<String, (usize, usize)>,
}

impl Reputation {
    /// Learned from the facts themselves: a confirmed fact is an approval
    /// of its source's domain, one archived with a reason (not superseded)
    /// a rejection.
    pub fn learn(topics: &[Topic], sources: &HashMap<String, Source>) -> Reputation {
        let mut by_domain: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for fact in topics.iter().flat_map(|t| &t.facts) {
            let Some(source) = fact.source.as_ref().and_then(|s| sources.get(s)) else {
                continue;
            };
            let entry = by_domain.entry(store::domain(&source.url)).or_default();
            match (fact.status, &fact.rejected) {
                (Status::Confirmed, _) => entry.0 += 1,
                (Status::Archived, Some(reason)) if !reason.starts_with("superseded") => {
                    entry.1 += 1
                }
                _ => {}
            }
        }
        Reputation { by_domain }
    }

    /// A domain's credibility: the share of its facts approved (with one
    /// approval and one rejection assumed, so a domain starts at medium),
    /// high from 70%, low under 35%.
    pub fn credibility(&self, url: &str) -> Credibility {
        let (approved, rejected) = self
            .by_domain
            .get(&store::domain(url))
            .copied()
            .unwrap_or_default();
        let share = (approved as f64 + 1.0) / ((approved + rejected) as f64 + 2.0);
        if share >= 0.7 {
            Credibility::High
        } else if share < 0.35 {
            Credibility::Low
        } else {
            Credibility::Medium
        }
    }

    /// The same share as a number (for ranking what to fetch).
    pub fn share(&self, url: &str) -> f64 {
        let (approved, rejected) = self
            .by_domain
            .get(&store::domain(url))
            .copied()
            .unwrap_or_default();
        (approved as f64 + 1.0) / ((approved + rejected) as f64 + 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(id: &str, status: Status, contradicts: &[&str]) -> Fact {
        Fact {
            id: id.into(),
            statement: format!("statement {id}"),
            status,
            confidence: 0.5,
            found: "2026-11-20".into(),
            source: None,
            contradicts: contradicts.iter().map(|s| s.to_string()).collect(),
            rejected: None,
        }
    }

    fn topics_with(facts: Vec<Fact>) -> Topics {
        let mut t = Topic::new("Rust async", 3, 7);
        t.facts = facts;
        BTreeMap::from([(t.slug.clone(), (String::new(), t))])
    }

    #[test]
    fn approving_a_disputed_fact_archives_what_it_contradicts_and_nothing_is_deleted() {
        let mut topics = topics_with(vec![
            fact("g00000001", Status::Confirmed, &[]),
            fact("g00000002", Status::Disputed, &["g00000001"]),
        ]);
        approve(&mut topics, "g00000002").unwrap();
        let t = &topics.values().next().unwrap().1;
        assert_eq!(t.fact("g00000002").unwrap().status, Status::Confirmed);
        assert_eq!(t.fact("g00000001").unwrap().status, Status::Archived);
        assert_eq!(t.facts.len(), 2);
    }

    #[test]
    fn rejecting_the_old_fact_ends_the_dispute() {
        let mut topics = topics_with(vec![
            fact("g00000001", Status::Confirmed, &[]),
            fact("g00000002", Status::Disputed, &["g00000001"]),
        ]);
        reject(&mut topics, "g00000001", "outdated").unwrap();
        let t = &topics.values().next().unwrap().1;
        assert_eq!(
            t.fact("g00000001").unwrap().rejected.as_deref(),
            Some("outdated")
        );
        assert_eq!(t.fact("g00000002").unwrap().status, Status::Candidate);
        assert!(approve(&mut topics, "gnothex00").is_err());
        assert!(approve(&mut topics, "g0000000f").is_err());
    }

    #[test]
    fn requests_are_ticked_once_handled() {
        let text = "# Requests\n\n- topic: WebAssembly\n- [ ] what changed in tokio releases?\n- [x] done before\nnot a request\n";
        let mut seen = Vec::new();
        let out = tick_requests(text, |r| {
            seen.push(r.to_string());
            "ok".into()
        });
        assert_eq!(
            seen,
            vec!["topic: WebAssembly", "what changed in tokio releases?"]
        );
        assert!(out.contains("- [x] topic: WebAssembly → ok\n"));
        assert!(out.contains("- [x] done before\nnot a request\n"));
        assert!(pending_requests(&out).is_empty());
    }
}
