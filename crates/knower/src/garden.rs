//! `knower garden`: the gardener's topics, cycle, review and figures,
//! through the service.

use knower_garden::{Assessment, Cycle, Item, NewTopic, Plan, Progress, RunOptions, Stats, Status};

use crate::cli::GardenAction;
use crate::context::{Context, block_on};
use crate::output::{Outcome, failure, print_json};

pub fn garden(ctx: &Context, action: GardenAction) -> Outcome {
    let service = ctx.service()?;
    let json = ctx.json;
    match action {
        GardenAction::Add {
            name,
            priority,
            freshness,
            queries,
            feeds,
        } => {
            let topic = service.garden_add_topic(NewTopic {
                name: name.join(" "),
                priority: Some(priority),
                freshness_days: Some(freshness),
                queries,
                feeds,
            })?;
            if json {
                return print_json(&topic);
            }
            println!("added the topic {:?} ({})", topic.name, topic.path());
            if topic.feeds.is_empty() && !service.garden_can_search() {
                eprintln!(
                    "note: no search provider and no feed: this topic has nothing to read yet (add --feed, or set BRAVE_API_KEY or [garden] searxng_url)"
                );
            }
            Ok(())
        }
        GardenAction::List => {
            let listing = service.garden_topics()?;
            if json {
                return print_json(&listing);
            }
            if listing.topics.is_empty() {
                println!("no topics yet: knower garden add NAME [--query Q] [--feed URL]");
            }
            for topic in &listing.topics {
                print_topic(topic);
            }
            for bad in &listing.unreadable {
                eprintln!("warning: {}: {}; left untouched", bad.path, bad.error);
            }
            println!("search: {}", listing.search);
            for error in &listing.last_errors {
                println!("last cycle: {error}");
            }
            match (&listing.interrupted, &listing.next_wake) {
                (Some(id), _) => {
                    println!("the cycle of {id} was interrupted; it resumes with the next run")
                }
                (None, Some(next)) => println!("next scheduled cycle: {next} (under knower serve)"),
                (None, None) => println!("no cycle has run yet"),
            }
            Ok(())
        }
        GardenAction::Run { topic, dry_run } => {
            let options = RunOptions {
                topic,
                scheduled: false,
            };
            if dry_run {
                let plan = service.garden_plan(&options)?;
                return if json {
                    print_json(&plan)
                } else {
                    print_plan(&plan)
                };
            }
            let quiet = json;
            let cycle = block_on(service.garden_run(options, move |p| {
                if !quiet {
                    print_progress(p);
                }
            }))?;
            if json {
                return print_json(&cycle);
            }
            print_cycle(&cycle);
            Ok(())
        }
        GardenAction::Review => {
            let review = service.garden_review()?;
            if json {
                return print_json(&review);
            }
            if review.items.is_empty() {
                println!("nothing to review");
            }
            let mut topic = "";
            for item in &review.items {
                if item.topic != topic {
                    topic = &item.topic;
                    println!("\n{}", item.topic_name);
                }
                print_item(item);
            }
            if !review.items.is_empty() {
                println!(
                    "\napprove with `knower garden approve N…`, reject with `knower garden reject N… --reason \"…\"`"
                );
            }
            if !review.alerts.is_empty() {
                println!("\nalerts (garden/outbox/alerts.md):");
                for alert in &review.alerts {
                    println!("  - {alert}");
                }
            }
            Ok(())
        }
        GardenAction::Approve { refs } => {
            let report = service.garden_approve(&refs)?;
            decided(json, &report)
        }
        GardenAction::Reject { refs, reason } => {
            let report = service.garden_reject(&refs, &reason)?;
            decided(json, &report)
        }
        GardenAction::Stats => {
            let stats = service.garden_stats()?;
            if json {
                return print_json(&stats);
            }
            print_stats(&stats);
            Ok(())
        }
    }
}

fn decided(json: bool, report: &knower_garden::InboxReport) -> Outcome {
    if json {
        print_json(report)?;
    } else {
        for id in &report.approved {
            println!("approved {id}");
        }
        for id in &report.rejected {
            println!("rejected {id}");
        }
        for line in &report.requests {
            println!("request: {line}");
        }
    }
    match report.refused.first() {
        Some(first) => Err(failure(
            first.clone(),
            Some("see `knower garden review` for what can be decided"),
        )),
        None => Ok(()),
    }
}

fn print_topic(t: &Assessment) {
    let mut flags = Vec::new();
    if t.stale {
        flags.push("stale".to_string());
    }
    if t.sparse {
        flags.push("sparse".to_string());
    }
    if t.disputed > 0 {
        flags.push(format!("{} disputed", t.disputed));
    }
    if let Some(until) = &t.cooling_until {
        flags.push(format!("cooling until {until}"));
    }
    let tended = match t.age_days {
        Some(days) => format!("tended {days:.1} days ago"),
        None => "never tended".into(),
    };
    println!(
        "{}  priority {}  {tended} (fresh for {} days)  {} confirmed, {} candidates, {} archived{}",
        t.name,
        t.priority,
        t.freshness_days,
        t.confirmed,
        t.candidates,
        t.archived,
        if flags.is_empty() {
            String::new()
        } else {
            format!("  [{}]", flags.join(", "))
        }
    );
}

fn print_item(item: &Item) {
    let source = item
        .source
        .as_ref()
        .map(|s| {
            format!(
                "\n      from {} ({}, {} credibility)",
                s.title,
                s.url,
                s.credibility.name()
            )
        })
        .unwrap_or_default();
    let kind = if item.fact.status == Status::Disputed {
        "CONTRADICTION "
    } else {
        ""
    };
    println!(
        "  {:>3}. {kind}{}  [{} · confidence {:.2}]{source}",
        item.number, item.fact.statement, item.fact.id, item.fact.confidence
    );
    for (other, source) in &item.contradicts {
        println!(
            "       contradicts {} ({}): {}{}",
            other.id,
            other.status.name(),
            other.statement,
            source
                .as_ref()
                .map(|s| format!(" — {}", s.url))
                .unwrap_or_default()
        );
    }
}

fn print_plan(plan: &Plan) -> Outcome {
    println!("dry run: nothing is searched, fetched or written");
    println!("search: {}", plan.search);
    if plan.pending_decisions > 0 {
        println!(
            "the inbox holds {} decision(s) to apply",
            plan.pending_decisions
        );
    }
    if plan.topics.is_empty() {
        println!("no topic needs tending now");
    }
    for work in &plan.topics {
        println!("{}:", work.topic);
        for q in &work.searches {
            println!("  would search {q:?}");
        }
        for f in &work.feeds {
            println!("  would read the feed {f} for its links");
        }
        if work.result_fetches > 0 {
            println!(
                "  would fetch up to {} of the newest pages found",
                work.result_fetches
            );
        }
    }
    for s in &plan.skipped {
        println!("not now: {s}");
    }
    println!(
        "bounds: {} searches, {} fetches, {} new candidates a cycle",
        plan.max_searches, plan.max_fetches, plan.max_candidates
    );
    Ok(())
}

fn print_progress(p: &Progress) {
    match p {
        Progress::Step { .. } => {}
        Progress::Searched {
            topic,
            query,
            hits,
            error,
        } => match error {
            Some(e) => eprintln!("{topic}: search {query:?} failed: {e}"),
            None => eprintln!("{topic}: searched {query:?}: {hits} result(s)"),
        },
        Progress::FeedRead {
            topic,
            url,
            entries,
            error,
        } => match error {
            Some(e) => eprintln!("{topic}: could not read the feed {url}: {e}"),
            None => eprintln!("{topic}: read the feed {url}: {entries} link(s)"),
        },
        Progress::Fetched { topic, url, error } => match error {
            Some(e) => eprintln!("{topic}: could not read {url}: {e}"),
            None => eprintln!("{topic}: read {url}"),
        },
        Progress::Candidates {
            topic,
            added,
            disputed,
        } => {
            eprintln!(
                "{topic}: {} new candidate(s), {} contradicting known facts",
                added.len(),
                disputed.len()
            )
        }
    }
}

fn print_cycle(cycle: &Cycle) {
    if cycle.resumed > 0 {
        println!("finished the interrupted cycle of {}", cycle.id);
    }
    let inbox = &cycle.inbox;
    if !inbox.is_empty() {
        println!(
            "inbox: {} approved, {} rejected, {} request(s)",
            inbox.approved.len(),
            inbox.rejected.len(),
            inbox.requests.len()
        );
    }
    for t in &cycle.tended {
        println!(
            "{}: {} new candidate(s) ({} contradicting), {} met again{}",
            t.topic,
            t.added.len(),
            t.disputed.len(),
            t.reinforced.len(),
            t.note
                .as_ref()
                .map(|n| format!(" — {n}"))
                .unwrap_or_default()
        );
    }
    for s in &cycle.skipped {
        println!("not tended: {s}");
    }
    for e in &cycle.errors {
        println!("error: {e}");
    }
    println!(
        "{} search(es), {} fetch(es), {} new candidate(s); review with `knower garden review`",
        cycle.searches.len(),
        cycle.fetches.len(),
        cycle.added()
    );
}

fn print_stats(s: &Stats) {
    let opt = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v}"));
    println!("topics: {}", s.topics);
    println!(
        "coverage: {} confirmed ({} a topic), {} candidates, {} disputed, {} archived; {} sparse topic(s)",
        s.coverage.confirmed,
        s.coverage.confirmed_per_topic,
        s.coverage.candidates,
        s.coverage.disputed,
        s.coverage.archived,
        s.coverage.sparse_topics
    );
    println!(
        "freshness: {} fresh, {} stale topic(s); confirmed facts {} days old on average ({} of the freshness wanted)",
        s.freshness.fresh_topics,
        s.freshness.stale_topics,
        opt(s.freshness.confirmed_age_days),
        opt(s.freshness.age_over_freshness)
    );
    println!(
        "accuracy: {} approved, {} rejected (approval rate {})",
        s.accuracy.approved,
        s.accuracy.rejected,
        opt(s.accuracy.approval_rate)
    );
    println!(
        "efficiency: {} cycle(s), {} searches, {} fetches, {} candidates; {} confirmed from the web ({} per search)",
        s.efficiency.cycles,
        s.efficiency.searches,
        s.efficiency.fetches,
        s.efficiency.candidates_found,
        s.efficiency.confirmed_from_web,
        opt(s.efficiency.confirmed_per_search)
    );
    println!(
        "engagement: reviews on {} of the last 30 days, last {}; {} waiting",
        s.engagement.review_days_last_30,
        s.engagement.last_review.as_deref().unwrap_or("never"),
        s.engagement.waiting
    );
}
