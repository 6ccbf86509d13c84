//! `knower-bench harvest`: LoCoMo's conversations (272 sessions) as the
//! harvest's sources, with the offline engine.
//!
//! - the dry run's time over all sessions, and offline harvest throughput;
//! - how much of LoCoMo's question evidence survives into the knowledge
//!   files: for each question, the harvested items of its conversation are
//!   ranked by the question as search does (BM25 passages of
//!   `knowledge/*.md`), 1,000 and 2,000 tokens are filled, and an evidence
//!   turn counts as represented when half of its content words are in what
//!   was filled; the same against searching the raw sessions;
//! - the digest's regeneration time with 10,000 items.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_harvest::{Harvester, Options};
use knower_index::{Index, Mode, SearchOptions};
use knower_vault::{Author, Vault};

use crate::locomo::{self, fill};

pub fn run(args: &[String]) -> Result<(), String> {
    let real: Vec<String> = args
        .windows(2)
        .filter(|w| w[0] == "--real")
        .map(|w| w[1].clone())
        .collect();
    if let Some(at) = args.iter().position(|a| a == "--rss-of") {
        let path = args.get(at + 1).ok_or("--rss-of needs a file")?;
        return crate::harvest_big::measure(Path::new(path), args.iter().any(|a| a == "--apply"));
    }
    if args.iter().any(|a| a == "--big") {
        return crate::harvest_big::run(crate::option(args, "--big", 200)?);
    }
    if !real.is_empty() {
        return crate::harvest_real::run(&real, args.iter().any(|a| a == "--verbose"));
    }
    let data = crate::data_dir(args)?;
    let items: usize = crate::option(args, "--items", 10_000)?;
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let work = temp.path();
    let locomo = locomo::load(&data.join("locomo/locomo10.json"))?;
    let (conversations, questions) = (&locomo.conversations, &locomo.questions);
    let sessions: usize = conversations.iter().map(|c| c.sessions.len()).sum();
    eprintln!(
        "LoCoMo: {} conversations, {sessions} sessions, {} questions",
        conversations.len(),
        questions.len()
    );

    // The sources: one text file a session, `Speaker: text` a line.
    let sources = work.join("sources");
    for c in conversations {
        for s in &c.sessions {
            let path = sources
                .join(&c.id)
                .join(format!("{}-session-{:02}.md", c.id, s.n));
            std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
            std::fs::write(&path, s.text()).map_err(|e| e.to_string())?;
        }
    }

    // The dry run over everything, three times.
    let dry_vault = vault(&work.join("dry"))?;
    let mut dry = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        let report = Harvester::new(dry_vault.clone(), None)
            .run(
                std::slice::from_ref(&sources),
                Options::default(),
                &mut |_, _| {},
            )
            .map_err(|e| e.to_string())?;
        dry.push(started.elapsed());
        assert_eq!(report.tally.to_harvest, sessions);
    }

    // The harvest, each conversation into a vault of its own (so each
    // question searches its own conversation's knowledge).
    let mut harvest_time = Duration::ZERO;
    let mut knowledge: Vec<(String, Arc<Index>, usize)> = Vec::new();
    let mut added = 0;
    for c in conversations {
        let v = vault(&work.join("knowledge").join(&c.id))?;
        let started = Instant::now();
        let report = Harvester::new(v.clone(), None)
            .run(
                &[sources.join(&c.id)],
                Options {
                    apply: true,
                    ..Options::default()
                },
                &mut |_, _| {},
            )
            .map_err(|e| e.to_string())?;
        harvest_time += started.elapsed();
        added += report.items.total();
        let tokens: usize = knower_harvest::knowledge::CATEGORIES
            .iter()
            .map(|(path, _)| v.read(path).map(|t| t.len().div_ceil(4)).unwrap_or(0))
            .sum();
        let index = Index::open(v).map_err(|e| e.to_string())?;
        index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
        knowledge.push((c.id.clone(), index, tokens));
    }
    // All sessions into one vault, as a user harvests a folder of them.
    let one_vault = vault(&work.join("one"))?;
    let started = Instant::now();
    let one = Harvester::new(one_vault, None)
        .run(
            std::slice::from_ref(&sources),
            Options {
                apply: true,
                ..Options::default()
            },
            &mut |_, _| {},
        )
        .map_err(|e| e.to_string())?;
    let one_time = started.elapsed();
    assert_eq!(one.harvested, sessions);
    let raw_tokens: usize = conversations
        .iter()
        .flat_map(|c| &c.sessions)
        .map(|s| s.text().len().div_ceil(4))
        .sum();
    let kept_tokens: usize = knowledge.iter().map(|(_, _, t)| t).sum();

    // The raw sessions, searched the same way.
    let raw_vault = vault(&work.join("raw"))?;
    let author = Author::new("bench", "LoCoMo session");
    for c in conversations {
        for s in &c.sessions {
            raw_vault
                .write(
                    &format!("{}/session-{:02}.md", c.id, s.n),
                    &s.text(),
                    &author,
                )
                .map_err(|e| e.to_string())?;
        }
    }
    let raw = Index::open(raw_vault).map_err(|e| e.to_string())?;
    raw.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;

    let mut recall = [[0.0f64; 2]; 2];
    for q in questions {
        let harvested = &knowledge
            .iter()
            .find(|(id, _, _)| *id == q.conversation)
            .expect("each question's conversation is harvested")
            .1;
        let ranked = [
            passages(harvested, &q.text, None)?,
            passages(&raw, &q.text, Some(&q.conversation))?,
        ];
        for (side, hits) in ranked.iter().enumerate() {
            for (b, budget) in [1000usize, 2000].into_iter().enumerate() {
                recall[side][b] += locomo::recall(&locomo, q, &fill(hits, budget));
            }
        }
    }
    let n = questions.len() as f64;

    // The digest from 10,000 items.
    let big = vault(&work.join("digest"))?;
    let per_file = items / 5;
    let author = Author::new("bench", "many items");
    for (path, template) in knower_harvest::knowledge::CATEGORIES {
        let mut text = template.to_string();
        let section_at = text.find("## Done").unwrap_or(text.len());
        let mut bullets = String::new();
        for i in 0..per_file {
            bullets.push_str(&format!(
                "- Item {i} of {path}: the service on port {} answers in {} ms [from: bench, 2026-11-23]\n",
                8000 + i,
                i % 97
            ));
        }
        text.insert_str(section_at, &format!("{bullets}\n"));
        big.write(path, &text, &author).map_err(|e| e.to_string())?;
    }
    let mut regenerations = Vec::new();
    let mut reads = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        big.batch(&author, knower_harvest::knowledge::regenerate)
            .map_err(|e| e.to_string())?;
        regenerations.push(started.elapsed());
        // Baseline: reading the five category files.
        let started = Instant::now();
        for (path, _) in knower_harvest::knowledge::CATEGORIES {
            let _ = big.read(path).map_err(|e| e.to_string())?;
        }
        reads.push(started.elapsed());
    }
    let digest_bytes = std::fs::metadata(big.root().join("knowledge/digest.md"))
        .map(|m| m.len())
        .unwrap_or(0);

    println!(
        "\n### Harvest (offline engine) on LoCoMo: {} conversations, {sessions} sessions, {} questions of categories 1–4\n",
        conversations.len(),
        questions.len()
    );
    println!("| measure | value |");
    println!("|---|---|");
    println!(
        "| dry run over {sessions} sessions (median of 3) | {} |",
        crate::ms(crate::quantile(&mut dry, 0.5))
    );
    println!(
        "| harvest --apply | {:.1} s, {:.1} sessions/s |",
        harvest_time.as_secs_f64(),
        sessions as f64 / harvest_time.as_secs_f64()
    );
    println!(
        "| harvest --apply, all {sessions} sessions into one vault | {:.1} s, {:.1} sessions/s |",
        one_time.as_secs_f64(),
        sessions as f64 / one_time.as_secs_f64()
    );
    println!(
        "| items kept | {added} ({kept_tokens} tokens of knowledge from {raw_tokens} tokens of sessions, {:.1}%) |",
        100.0 * kept_tokens as f64 / raw_tokens as f64
    );
    println!(
        "| digest from {} items (median of 5) | {} ({} B), reading the 5 files: {} |",
        per_file * 5,
        crate::ms(crate::quantile(&mut regenerations, 0.5)),
        digest_bytes,
        crate::ms(crate::quantile(&mut reads, 0.5))
    );
    println!("\n| evidence represented | @1000 tokens | @2000 tokens |");
    println!("|---|---|---|");
    println!(
        "| harvested knowledge, ranked by search | {:.3} | {:.3} |",
        recall[0][0] / n,
        recall[0][1] / n
    );
    println!(
        "| raw sessions, ranked by search (baseline) | {:.3} | {:.3} |",
        recall[1][0] / n,
        recall[1][1] / n
    );
    Ok(())
}

pub(crate) fn vault(dir: &Path) -> Result<Arc<Vault>, String> {
    let (vault, _) = Vault::init(dir, &Author::new("bench", "init")).map_err(|e| e.to_string())?;
    Ok(Arc::new(vault))
}

/// The passages search ranks for `question` (fast mode, BM25).
fn passages(index: &Index, question: &str, scope: Option<&str>) -> Result<Vec<String>, String> {
    let results = index
        .search(
            question,
            &SearchOptions {
                mode: Mode::Fast,
                scope: scope.map(str::to_string),
                limit: 60,
            },
        )
        .map_err(|e| e.to_string())?;
    Ok(results.hits.into_iter().map(|h| h.text).collect())
}
