//! What the gardener leaves for the person (seed 001's outbox and log):
//!
//! - `garden/outbox/candidates/<date>.md`: the candidates each cycle of
//!   that day added;
//! - `garden/outbox/digest.md`: everything waiting for review, numbered as
//!   `knower garden review` numbers it;
//! - `garden/outbox/alerts.md`: contradictions (both facts, both sources),
//!   contradictions across topics, suggested topics, what failed;
//! - `garden/outbox/weekly/<year>-W<week>.md`: the week's summary, written
//!   by the first cycle of the next week;
//! - `garden/logs/activity.md`: one section per cycle.
//!
//! Each is rewritten whole or appended under a heading naming the cycle,
//! so a resumed cycle never writes twice.

use std::collections::BTreeMap;

use jiff::civil::Date;

use crate::GardenError;
use crate::cycle::{Cycle, State};
use crate::garden::Garden;
use crate::model::{Source, Status, one_line};
use crate::review::{self, Item};
use crate::store::{self, ACTIVITY, ALERTS, CANDIDATES, DIGEST, WEEKLY};

pub fn prepare(
    garden: &Garden,
    state: &mut State,
    cycle: &Cycle,
) -> Result<Vec<String>, GardenError> {
    let vault = garden.vault();
    let author = store::author(format!("garden cycle {}: the outbox", cycle.id));
    let mut written = Vec::new();
    let (topics, _) = store::topics(vault);
    let sources = store::sources(vault);
    let names: BTreeMap<&str, &str> = topics
        .iter()
        .map(|t| (t.slug.as_str(), t.name.as_str()))
        .collect();

    // This cycle's candidates, under the day's file.
    if cycle.added() > 0 {
        let path = format!("{CANDIDATES}/{}.md", garden.today());
        let heading = format!("## Cycle {}", cycle.id);
        let current = vault.read(&path).unwrap_or_default();
        if !current.contains(&heading) {
            let mut section = format!("{heading}\n\n");
            for tended in cycle.tended.iter().filter(|t| !t.added.is_empty()) {
                let Some(topic) = topics.iter().find(|t| t.slug == tended.topic) else {
                    continue;
                };
                section.push_str(&format!("### {}\n\n", topic.name));
                for fact in tended.added.iter().filter_map(|id| topic.fact(id)) {
                    section.push_str(&fact_line(fact, &sources));
                }
                section.push('\n');
            }
            let text = if current.is_empty() {
                format!("# Garden candidates of {}\n\n{section}", garden.today())
            } else {
                format!("{}\n\n{section}", current.trim_end())
            };
            vault.write(&path, &text, &author)?;
            written.push(path);
        }
    }

    // The digest: what waits, as numbered for approve / reject.
    let mut items = review::review(&topics, &sources);
    review::number(vault, &mut items)?;
    vault.write(DIGEST, &digest(&items, &cycle.id), &author)?;
    written.push(DIGEST.to_string());

    // Alerts.
    vault.write(ALERTS, &alerts(&items, cycle, &names), &author)?;
    written.push(ALERTS.to_string());

    // The weekly summary, on the weekly boundary.
    let started: jiff::Timestamp = cycle.id.parse().unwrap_or_else(|_| garden.now());
    let this_week = week_of(started.to_zoned(jiff::tz::TimeZone::UTC).date());
    if let Some(previous) = state.week.clone()
        && previous != this_week
    {
        let path = format!("{WEEKLY}/{previous}.md");
        vault.write(&path, &weekly(garden, &previous)?, &author)?;
        written.push(path);
    }
    state.week = Some(this_week);
    Ok(written)
}

/// `2026-W48`.
pub fn week_of(date: Date) -> String {
    let week = date.iso_week_date();
    format!("{}-W{:02}", week.year(), week.week())
}

fn fact_line(
    fact: &crate::model::Fact,
    sources: &std::collections::HashMap<String, Source>,
) -> String {
    let source = fact
        .source
        .as_ref()
        .and_then(|s| sources.get(s))
        .map(|s| {
            format!(
                " — [{}](../../sources/{}.md) ({})",
                one_line(&s.title),
                s.slug,
                s.credibility.name()
            )
        })
        .unwrap_or_default();
    format!(
        "- {} `{}` · confidence {:.2}{source}\n",
        one_line(&fact.statement),
        fact.id,
        fact.confidence
    )
}

/// The review as a note.
pub fn digest(items: &[Item], cycle: &str) -> String {
    let mut out = format!(
        "# Garden digest\n\nWaiting for review after the cycle of {cycle}: {} item(s). Approve or reject with \
         `knower garden approve N…` / `knower garden reject N… --reason \"…\"`, in the web UI's Garden view, or \
         by adding ids to `garden/inbox/approvals.json` / `rejections.json`.\n",
        items.len()
    );
    let mut topic = "";
    for item in items {
        if item.topic != topic {
            topic = &item.topic;
            out.push_str(&format!("\n## {}\n\n", item.topic_name));
        }
        let source = item
            .source
            .as_ref()
            .map(|s| {
                format!(
                    " · [{}](../sources/{}.md) ({})",
                    one_line(&s.title),
                    s.slug,
                    s.credibility.name()
                )
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "{}. {} `{}` · {} · confidence {:.2}{source}\n",
            item.number,
            one_line(&item.fact.statement),
            item.fact.id,
            item.fact.status.name(),
            item.fact.confidence
        ));
        for (other, _) in &item.contradicts {
            out.push_str(&format!(
                "   - contradicts: {} `{}` ({})\n",
                one_line(&other.statement),
                other.id,
                other.status.name()
            ));
        }
    }
    out
}

fn alerts(items: &[Item], cycle: &Cycle, names: &BTreeMap<&str, &str>) -> String {
    let mut out = format!("# Garden alerts\n\nAfter the cycle of {}.\n", cycle.id);
    let disputed: Vec<&Item> = items
        .iter()
        .filter(|i| i.fact.status == Status::Disputed)
        .collect();
    out.push_str(&format!("\n## {}\n\n", review::CONTRADICTIONS_SECTION));
    if disputed.is_empty() {
        out.push_str("None.\n");
    }
    let cite = |s: &Option<Source>| {
        s.as_ref()
            .map(|s| {
                format!(
                    "[{}](../sources/{}.md) ({}, {})",
                    one_line(&s.title),
                    s.slug,
                    s.url,
                    s.credibility.name()
                )
            })
            .unwrap_or_else(|| "no source".into())
    };
    for item in disputed {
        out.push_str(&format!("### {}. {}\n\n", item.number, item.topic_name));
        out.push_str(&format!(
            "- new: {} `{}` — {}\n",
            one_line(&item.fact.statement),
            item.fact.id,
            cite(&item.source)
        ));
        for (other, source) in &item.contradicts {
            out.push_str(&format!(
                "- known ({}): {} `{}` — {}\n",
                other.status.name(),
                one_line(&other.statement),
                other.id,
                cite(source)
            ));
        }
        out.push_str(&format!(
            "\nApprove {} to keep the new fact (the known one is archived), or reject it to keep the known one.\n\n",
            item.number
        ));
    }
    if !cycle.synthesis.cross_contradictions.is_empty() {
        out.push_str("\n## Across topics\n\n");
        for (new, known) in &cycle.synthesis.cross_contradictions {
            out.push_str(&format!(
                "- `{new}` contradicts `{known}` of another topic\n"
            ));
        }
    }
    if !cycle.synthesis.suggested_topics.is_empty() {
        out.push_str("\n## Suggested topics\n\nNames that keep coming up in your facts. Add one with `knower garden add NAME`, or ignore it.\n\n");
        for name in &cycle.synthesis.suggested_topics {
            out.push_str(&format!("- {name}\n"));
        }
    }
    if !cycle.synthesis.related.is_empty() {
        out.push_str("\n## Connections\n\n");
        for (a, b) in &cycle.synthesis.related {
            out.push_str(&format!(
                "- {} speaks of {}\n",
                names.get(a.as_str()).unwrap_or(&a.as_str()),
                names.get(b.as_str()).unwrap_or(&b.as_str())
            ));
        }
    }
    let failures: Vec<String> = cycle
        .searches
        .iter()
        .filter_map(|s| {
            s.error
                .as_ref()
                .map(|e| format!("search {:?}: {e}", s.query))
        })
        .chain(
            cycle
                .fetches
                .iter()
                .filter_map(|f| f.error.as_ref().map(|e| format!("fetch {}: {e}", f.url))),
        )
        .chain(cycle.errors.iter().cloned())
        .collect();
    if !failures.is_empty() || !cycle.skipped.is_empty() {
        out.push_str("\n## This cycle\n\n");
        for line in failures.iter().chain(&cycle.skipped) {
            out.push_str(&format!("- {}\n", one_line(line)));
        }
    }
    out
}

/// The summary of the week `week` (`2026-W47`): facts found, decisions.
fn weekly(garden: &Garden, week: &str) -> Result<String, GardenError> {
    let vault = garden.vault();
    let (topics, _) = store::topics(vault);
    let in_week = |date: &str| {
        date.get(..10)
            .and_then(|d| d.parse::<Date>().ok())
            .is_some_and(|d| week_of(d) == week)
    };
    let mut out = format!("# Garden week {week}\n\n");
    let mut found = 0;
    let mut body = String::new();
    for topic in &topics {
        let facts: Vec<_> = topic.facts.iter().filter(|f| in_week(&f.found)).collect();
        if facts.is_empty() {
            continue;
        }
        found += facts.len();
        body.push_str(&format!("## {}\n\n", topic.name));
        for status in Status::ALL {
            let n = facts.iter().filter(|f| f.status == status).count();
            if n > 0 {
                body.push_str(&format!("- {n} {} now\n", status.name()));
            }
        }
        for fact in facts.iter().filter(|f| f.status == Status::Confirmed) {
            body.push_str(&format!(
                "- confirmed: {} `{}`\n",
                one_line(&fact.statement),
                fact.id
            ));
        }
        body.push('\n');
    }
    let decided = |path: &str| -> Result<usize, GardenError> {
        Ok(review::read_decisions(vault, path)?
            .iter()
            .filter(|d| d.applied.as_deref().is_some_and(in_week))
            .count())
    };
    out.push_str(&format!(
        "{found} fact(s) found; {} approval(s) and {} rejection(s) applied.\n\n{body}",
        decided(store::APPROVALS)?,
        decided(store::REJECTIONS)?
    ));
    out.push_str("Acknowledge it by reading it: nothing else is asked of you.\n");
    Ok(out)
}

/// Appends the cycle's section to `garden/logs/activity.md` (once).
pub fn log(garden: &Garden, cycle: &Cycle) -> Result<(), GardenError> {
    let vault = garden.vault();
    let heading = format!("## Cycle {}", cycle.id);
    if vault.read(ACTIVITY).unwrap_or_default().contains(&heading) {
        return Ok(());
    }
    let mut section = format!("{heading}\n\n");
    if cycle.resumed > 0 {
        section.push_str(&format!(
            "- resumed {} time(s) after an interruption\n",
            cycle.resumed
        ));
    }
    let inbox = &cycle.inbox;
    section.push_str(&format!(
        "- inbox: {} approved, {} rejected, {} request(s), {} refused\n",
        inbox.approved.len(),
        inbox.rejected.len(),
        inbox.requests.len(),
        inbox.refused.len()
    ));
    for t in &cycle.tended {
        section.push_str(&format!(
            "- tended {}: {} new ({} disputed), {} met again, {} left out by the bound{}\n",
            t.topic,
            t.added.len(),
            t.disputed.len(),
            t.reinforced.len(),
            t.over_bound,
            t.note
                .as_ref()
                .map(|n| format!(" — {n}"))
                .unwrap_or_default()
        ));
    }
    for s in &cycle.searches {
        section.push_str(&format!(
            "- searched {:?} for {}: {}\n",
            s.query,
            s.topic,
            match (&s.hits, &s.error) {
                (Some(h), _) => format!("{} result(s)", h.len()),
                (None, Some(e)) => one_line(e),
                _ => "no answer".into(),
            }
        ));
    }
    for f in &cycle.fetches {
        section.push_str(&format!(
            "- fetched {} for {}: {}\n",
            f.url,
            f.topic,
            match (&f.source, &f.error) {
                (Some(s), _) => format!("kept as [[garden/sources/{s}]]"),
                (None, Some(e)) => one_line(e),
                _ => "no answer".into(),
            }
        ));
    }
    for s in &cycle.skipped {
        section.push_str(&format!("- not tended: {}\n", one_line(s)));
    }
    for e in &cycle.errors {
        section.push_str(&format!("- error: {}\n", one_line(e)));
    }
    section.push_str(&format!(
        "- spent {} of {} searches, {} of {} fetches; {} of {} candidates\n",
        cycle.searches.len(),
        garden.settings().max_searches,
        cycle.fetches.len(),
        garden.settings().max_fetches,
        cycle.added(),
        garden.settings().max_candidates
    ));
    if let Some(next) = &cycle.next_wake {
        section.push_str(&format!("- next wake: {next}\n"));
    }
    let author = store::author(format!("garden cycle {}: the activity log", cycle.id));
    if vault.read(ACTIVITY).unwrap_or_default().trim().is_empty() {
        vault.write(
            ACTIVITY,
            &format!("# Garden activity\n\n{section}"),
            &author,
        )?;
    } else {
        vault.append(ACTIVITY, &section, knower_vault::Position::Bottom, &author)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_are_iso_weeks() {
        assert_eq!(week_of(jiff::civil::date(2026, 11, 23)), "2026-W48");
        assert_eq!(week_of(jiff::civil::date(2027, 1, 1)), "2026-W53");
    }
}
