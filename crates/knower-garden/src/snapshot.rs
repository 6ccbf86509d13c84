//! The daily snapshot: the garden as the reference memory server's graph
//! (`{"entities": […], "relations": […]}`, what its `read_graph` returns),
//! so `knower graph import` or any memory-server client reads it. Topic,
//! Fact and Source entities; CONTAINS, FROM, CONTRADICTS, SUPPORTS and
//! RELATED_TO relations. One file a day, the newest `keep_snapshots` kept.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::GardenError;
use crate::extract::content_words;
use crate::garden::Garden;
use crate::model::{Source, Status, Topic};
use crate::store::{self, SNAPSHOTS};

/// Writes today's snapshot and rotates the old ones; returns its path.
pub fn take(garden: &Garden) -> Result<String, GardenError> {
    let vault = garden.vault();
    let (topics, _) = store::topics(vault);
    let graph = graph(&topics, &store::sources(vault));
    let path = format!("{SNAPSHOTS}/{}.json", garden.today());
    let mut text = serde_json::to_string_pretty(&graph).expect("a graph serialises");
    text.push('\n');
    let author = store::author("garden snapshot (the garden as a memory graph)");
    vault.write(&path, &text, &author)?;
    let mut dated: Vec<String> = store::files(vault, SNAPSHOTS, ".json")
        .into_iter()
        .filter(|p| {
            let name = p.rsplit('/').next().unwrap_or("");
            name.strip_suffix(".json")
                .is_some_and(|d| d.parse::<jiff::civil::Date>().is_ok())
        })
        .collect();
    dated.sort();
    let keep = garden.settings().keep_snapshots.max(1);
    if dated.len() > keep {
        let old = dated.len() - keep;
        let author = store::author(format!("rotate garden snapshots (keep the newest {keep})"));
        vault.batch(&author, |batch| {
            for path in &dated[..old] {
                batch.delete(path)?;
            }
            Ok(())
        })?;
    }
    Ok(path)
}

/// A memory-graph name: one line, no `|`, `[[` or `]]`.
fn name(text: &str) -> String {
    let flat = crate::model::one_line(text)
        .replace('|', "/")
        .replace("[[", "[")
        .replace("]]", "]");
    if flat.is_empty() {
        "(unnamed)".into()
    } else {
        flat
    }
}

/// The reference server's entity and relation, with its JSON names. (The
/// gardener writes them; `knower-graph` reads them — features do not use
/// one another, the format is what they share.)
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    pub name: String,
    pub entity_type: String,
    pub observations: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Relation {
    pub from: String,
    pub to: String,
    pub relation_type: String,
}

#[derive(Serialize)]
pub struct Graph {
    pub entities: Vec<Entity>,
    pub relations: Vec<Relation>,
}

pub fn graph(topics: &[Topic], sources: &HashMap<String, Source>) -> Graph {
    let mut entities = Vec::new();
    let mut relations = Vec::new();
    let relation = |from: &str, to: &str, kind: &str| Relation {
        from: from.to_string(),
        to: to.to_string(),
        relation_type: kind.to_string(),
    };
    let mut source_names: BTreeMap<&str, String> = BTreeMap::new();
    for source in sources.values() {
        source_names.insert(source.slug.as_str(), name(&source.url));
    }
    let mut sorted: Vec<&Source> = sources.values().collect();
    sorted.sort_by(|a, b| a.slug.cmp(&b.slug));
    for source in sorted {
        entities.push(Entity {
            name: source_names[source.slug.as_str()].clone(),
            entity_type: "Source".into(),
            observations: vec![
                format!("title: {}", crate::model::one_line(&source.title)),
                format!("url: {}", source.url),
                format!("credibility: {}", source.credibility.name()),
                format!("fetched_at: {}", source.fetched_at),
            ],
        });
    }
    let topic_names: BTreeMap<&str, String> = topics
        .iter()
        .map(|t| (t.slug.as_str(), name(&t.name)))
        .collect();
    for topic in topics {
        let topic_name = &topic_names[topic.slug.as_str()];
        let mut observations = vec![
            format!("priority: {}", topic.priority),
            format!("freshness_days: {}", topic.freshness_days),
            format!(
                "last_tended: {}",
                if topic.last_tended.is_empty() {
                    "never"
                } else {
                    &topic.last_tended
                }
            ),
        ];
        observations.extend(topic.queries.iter().map(|q| format!("query: {q}")));
        observations.extend(topic.feeds.iter().map(|f| format!("feed: {f}")));
        entities.push(Entity {
            name: topic_name.clone(),
            entity_type: "Topic".into(),
            observations,
        });
        for fact in &topic.facts {
            let mut observations = vec![
                crate::model::one_line(&fact.statement),
                format!("status: {}", fact.status.name()),
                format!("confidence: {:.2}", fact.confidence),
                format!("discovered_at: {}", fact.found),
            ];
            if let Some(reason) = &fact.rejected {
                observations.push(format!("archived because: {reason}"));
            }
            entities.push(Entity {
                name: fact.id.clone(),
                entity_type: "Fact".into(),
                observations,
            });
            relations.push(relation(topic_name, &fact.id, "CONTAINS"));
            if let Some(source) = fact
                .source
                .as_ref()
                .and_then(|s| source_names.get(s.as_str()))
            {
                relations.push(relation(&fact.id, source, "FROM"));
            }
            for other in &fact.contradicts {
                if topic.fact(other).is_some() {
                    relations.push(relation(&fact.id, other, "CONTRADICTS"));
                }
            }
        }
        relations.extend(
            supports(topic)
                .into_iter()
                .map(|(a, b)| relation(&a, &b, "SUPPORTS")),
        );
    }
    for (a, b) in crate::cycle::related(topics) {
        relations.push(relation(
            &topic_names[a.as_str()],
            &topic_names[b.as_str()],
            "RELATED_TO",
        ));
    }
    Graph {
        entities,
        relations,
    }
}

/// Facts of a topic (not archived) that say the same numbers about the
/// same thing from different sources: one supports the other. Compared
/// within groups of equal numbers only, so a large topic stays cheap.
fn supports(topic: &Topic) -> Vec<(String, String)> {
    let mut groups: BTreeMap<Vec<String>, Vec<&crate::model::Fact>> = BTreeMap::new();
    for fact in topic
        .facts
        .iter()
        .filter(|f| f.status != Status::Archived && f.contradicts.is_empty())
    {
        let mut numbers: Vec<String> = fact
            .statement
            .split(|c: char| !c.is_alphanumeric() && c != '.')
            .map(|w| w.trim_matches('.').to_lowercase())
            .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
            .collect();
        if numbers.is_empty() {
            continue;
        }
        numbers.sort();
        numbers.dedup();
        groups.entry(numbers).or_default().push(fact);
    }
    let mut out = Vec::new();
    for facts in groups.values().filter(|g| g.len() > 1 && g.len() <= 50) {
        for (k, a) in facts.iter().enumerate() {
            let aw = content_words(&a.statement);
            for b in &facts[k + 1..] {
                if a.source == b.source {
                    continue;
                }
                let bw = content_words(&b.statement);
                let shared =
                    aw.intersection(&bw).count() as f64 / aw.len().min(bw.len()).max(1) as f64;
                if shared >= 0.6 {
                    out.push((b.id.clone(), a.id.clone()));
                }
            }
        }
    }
    out
}
