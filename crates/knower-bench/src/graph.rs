//! The knowledge graph kept as notes (`knower-graph`): how long the memory
//! server's calls take on a graph of N entities, against the baseline of
//! reading the same notes' bytes straight from disk (what any store of one
//! note per entity must at least do per call).
//!
//!     cargo run --release -p knower-bench -- graph [--entities N] [--rounds N]

use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_graph::{Entity, Graph, ObservationAddition, Relation};
use knower_vault::{Author, Vault};

use crate::{ms, option};

pub fn run(args: &[String]) -> Result<(), String> {
    let entities: usize = option(args, "--entities", 1000)?;
    let rounds: usize = option(args, "--rounds", 21)?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (vault, _) =
        Vault::init(dir.path(), &Author::new("bench", "init")).map_err(|e| e.to_string())?;
    let graph = Graph::new(Arc::new(vault));
    let author = Author::new("bench", "graph");
    let name = |i: usize| format!("Entity {i}");
    let started = Instant::now();
    for chunk in (0..entities).collect::<Vec<_>>().chunks(100) {
        let batch = chunk
            .iter()
            .map(|&i| Entity {
                name: name(i),
                entity_type: if i % 2 == 0 { "person" } else { "project" }.into(),
                observations: vec![format!("observation {i} about topic {}", i % 37)],
            })
            .collect();
        graph
            .create_entities(batch, &author)
            .map_err(|e| e.to_string())?;
    }
    let relations = (1..entities)
        .map(|i| Relation {
            from: name(i),
            to: name(i / 2),
            relation_type: "reports_to".into(),
        })
        .collect();
    graph
        .create_relations(relations, &author)
        .map_err(|e| e.to_string())?;
    let built = started.elapsed();

    let folder = dir.path().join("graph");
    let mut baseline = Vec::new();
    let mut read = Vec::new();
    let mut search = Vec::new();
    let mut open = Vec::new();
    let mut add = Vec::new();
    for round in 0..rounds {
        baseline.push(timed(|| {
            let mut bytes = 0;
            for entry in std::fs::read_dir(&folder).expect("graph/ exists") {
                bytes += std::fs::read(entry.expect("an entry").path())
                    .expect("readable")
                    .len();
            }
            assert!(bytes > 0);
        }));
        read.push(timed(|| {
            assert_eq!(graph.read_graph().expect("read").entities.len(), entities);
        }));
        search.push(timed(|| {
            assert!(
                !graph
                    .search_nodes("TOPIC 7")
                    .expect("search")
                    .entities
                    .is_empty()
            );
        }));
        open.push(timed(|| {
            graph.open_nodes(&[name(round)]).expect("open");
        }));
        add.push(timed(|| {
            graph
                .add_observations(
                    vec![ObservationAddition {
                        entity_name: name(round),
                        contents: vec![format!("seen in round {round}")],
                    }],
                    &author,
                )
                .expect("add");
        }));
    }
    let base = median(&mut baseline);
    println!(
        "graph: {entities} entities, {} relations, built in {} (100 entities per create_entities call)\n",
        entities - 1,
        ms(built)
    );
    println!("| call | median | × reading the notes' bytes |");
    println!("|---|---|---|");
    println!(
        "| read the {entities} notes' bytes (baseline) | {} | 1.0 |",
        ms(base)
    );
    for (label, samples) in [
        ("read_graph", &mut read),
        ("search_nodes", &mut search),
        ("open_nodes (one)", &mut open),
        ("add_observations (one, journaled)", &mut add),
    ] {
        let m = median(samples);
        println!(
            "| {label} | {} | {:.1} |",
            ms(m),
            m.as_secs_f64() / base.as_secs_f64()
        );
    }
    Ok(())
}

fn timed(work: impl FnOnce()) -> Duration {
    let started = Instant::now();
    work();
    started.elapsed()
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}
