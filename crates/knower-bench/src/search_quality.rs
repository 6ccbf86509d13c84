//! Issue 3's quality targets: Hit@1/Hit@3 on QMD's evaluation set, and
//! evidence recall on LoCoMo at 1,000 and 2,000 tokens, for fast,
//! vector-only and deep search (and, with `--sweep`, for other fusions).
//! Issue 19's note-level measures: nDCG@10 of the notes `search_notes`
//! returns, over LoCoMo's sessions and over its session summaries.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_index::{Fusion, Fusions, Index, Mode, SearchOptions};
use knower_vault::{Author, Vault};
use serde_json::Value;

/// What to run: which modes, whether to sweep fusions, the passage size.
pub(crate) struct Plan {
    pub modes: Vec<Mode>,
    pub sweep: bool,
    pub chunk_chars: Option<usize>,
}

/// The modes compared, with the fusions deep mode uses: the defaults, and
/// with `--sweep` each candidate fusion for passages and notes alike.
pub(crate) fn variants(plan: &Plan) -> Vec<(String, Mode, Fusions)> {
    let sweep = plan.sweep;
    let mut v = vec![
        ("fast".to_string(), Mode::Fast, Fusions::default()),
        ("vector".to_string(), Mode::Vector, Fusions::default()),
        ("deep".to_string(), Mode::Deep, Fusions::default()),
    ];
    v.retain(|(_, mode, _)| plan.modes.contains(mode));
    if sweep {
        v.push((
            "deep, RRF k=60 equal".into(),
            Mode::Deep,
            Fusions::both(Fusion::Rrf {
                k: 60.0,
                bm25_weight: 0.5,
            }),
        ));
        v.push((
            "deep, RRF k=60 bm25 0.7".into(),
            Mode::Deep,
            Fusions::both(Fusion::Rrf {
                k: 60.0,
                bm25_weight: 0.7,
            }),
        ));
        for w in [0.4, 0.5, 0.6, 0.7] {
            for floor in [0.0, 0.2] {
                v.push((
                    format!("deep, scores bm25 {w} floor {floor}"),
                    Mode::Deep,
                    Fusions::both(Fusion::Scores {
                        bm25_weight: w,
                        cosine_floor: floor,
                    }),
                ));
            }
        }
    }
    v
}

pub(crate) fn open(dir: &Path, plan: &Plan) -> Result<(Arc<Vault>, Arc<Index>), String> {
    let author = Author::new("bench", "benchmark");
    let (vault, _) = Vault::init(dir, &author).map_err(|e| e.to_string())?;
    let vault = Arc::new(vault);
    if let Some(chars) = plan.chunk_chars {
        vault
            .write(
                "knower.toml",
                &format!("[search]\nchunk_chars = {chars}\n"),
                &author,
            )
            .map_err(|e| e.to_string())?;
    }
    let index = Index::open(vault.clone()).map_err(|e| e.to_string())?;
    Ok((vault, index))
}

pub(crate) fn prepare(index: &Index, plan: &Plan) -> Result<(), String> {
    index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
    if plan.modes == [Mode::Fast] {
        return Ok(());
    }
    let started = Instant::now();
    let n = index
        .embed_pending(&mut |_, _| {})
        .map_err(|e| format!("{e} (set KNOWER_MODEL to the model folder)"))?;
    eprintln!(
        "  embedded {n} chunks in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

// ---- qmd_eval ---------------------------------------------------------------

pub(crate) fn qmd(data: &Path, work: &Path, plan: &Plan) -> Result<(), String> {
    let (vault, index) = open(&work.join("qmd"), plan)?;
    let author = Author::new("bench", "qmd_eval note");
    let docs = data.join("eval-docs");
    for entry in std::fs::read_dir(&docs).map_err(|e| format!("{}: {e}", docs.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(entry.path()).map_err(|e| e.to_string())?;
        vault
            .write(&format!("notes/{name}"), &text, &author)
            .map_err(|e| e.to_string())?;
    }
    prepare(&index, plan)?;
    let queries: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(data.join("eval_queries.json")).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    // The 25 harder, paraphrased queries (`expected_doc` rather than `expectedDoc`).
    let research: Vec<Value> = std::fs::read_to_string(data.join("eval-deep-research.jsonl"))
        .map_err(|e| e.to_string())?
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    println!(
        "\n### qmd_eval: Hit@1 / Hit@3 by difficulty ({} queries of eval_queries.json; {} of eval-deep-research.jsonl)\n",
        queries.len(),
        research.len()
    );
    let difficulties = [
        "easy",
        "medium",
        "hard",
        "fusion",
        "overall",
        "deep-research",
    ];
    println!(
        "| mode | {} |",
        difficulties.map(|d| format!("{d} H@1 / H@3")).join(" | ")
    );
    println!("|---|{}", "---|".repeat(difficulties.len()));
    for (name, mode, fusions) in variants(plan) {
        index.set_fusions(fusions);
        let mut by: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
        let sets = [
            (&queries, "expectedDoc", false),
            (&research, "expected_doc", true),
        ];
        for (set, key, is_research) in sets {
            for q in set.iter() {
                let text = q["query"].as_str().unwrap_or_default();
                let expected = q[key].as_str().unwrap_or_default();
                let difficulty = q["difficulty"].as_str().unwrap_or("other");
                let results = index
                    .search(
                        text,
                        &SearchOptions {
                            mode,
                            scope: None,
                            limit: 30,
                        },
                    )
                    .map_err(|e| e.to_string())?;
                let mut files: Vec<&str> = Vec::new();
                for hit in &results.hits {
                    if !files.contains(&hit.path.as_str()) {
                        files.push(&hit.path);
                    }
                }
                let rank = files.iter().position(|f| f.contains(expected));
                let keys: &[&str] = if is_research {
                    &["deep-research"]
                } else {
                    &[difficulty, "overall"]
                };
                for key in keys {
                    let e = by.entry(key).or_default();
                    e.0 += 1;
                    e.1 += usize::from(rank == Some(0));
                    e.2 += usize::from(rank.is_some_and(|r| r < 3));
                }
            }
        }
        let cell = |key: &str| {
            by.get(key).map_or("–".to_string(), |(n, h1, h3)| {
                format!(
                    "{:.2} / {:.2}",
                    *h1 as f64 / *n as f64,
                    *h3 as f64 / *n as f64
                )
            })
        };
        println!("| {name} | {} |", difficulties.map(cell).join(" | "));
    }
    Ok(())
}

// ---- LoCoMo -----------------------------------------------------------------

struct Question {
    conversation: String,
    text: String,
    evidence: Vec<String>,
    category: u64,
    /// Whether the question belongs to the last five conversations, which
    /// are held out of any tuning of note ranking (fixed before the first
    /// measurement of it).
    held_out: bool,
}

/// The notes relevant to a question, each with its gain: 1 for a binary
/// judgement, more for a more useful note where the judges graded them
/// (Cranfield).
pub(crate) type Gains = HashMap<String, f64>;

/// Every note of `notes` relevant with a gain of 1.
pub(crate) fn binary(notes: impl IntoIterator<Item = String>) -> Gains {
    notes.into_iter().map(|n| (n, 1.0)).collect()
}

/// nDCG@10 of a ranked list of notes: the gains found, each discounted by
/// its rank, over the best order of the relevant notes' gains.
fn ndcg_at_10(ranked: &[String], gains: &Gains) -> f64 {
    let discount = |i: usize| 1.0 / ((i + 2) as f64).log2();
    let dcg: f64 = ranked
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, p)| gains.get(p).copied().unwrap_or(0.0) * discount(i))
        .sum();
    let mut best: Vec<f64> = gains.values().copied().filter(|g| *g > 0.0).collect();
    best.sort_by(|a, b| b.total_cmp(a));
    let ideal: f64 = best
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, g)| g * discount(i))
        .sum();
    if ideal == 0.0 { 0.0 } else { dcg / ideal }
}

pub(crate) fn locomo(
    file: &Path,
    work: &Path,
    plan: &Plan,
    limit: Option<usize>,
) -> Result<(), String> {
    let data: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?,
    )
    .map_err(|e| e.to_string())?;
    let (vault, index) = open(&work.join("locomo"), plan)?;
    let author = Author::new("bench", "LoCoMo session");
    let mut questions = Vec::new();
    let mut notes = 0;
    for (nth, sample) in data.iter().enumerate() {
        let held_out = nth >= 5;
        let id = sample["sample_id"].as_str().unwrap_or("conv").to_string();
        let conv = &sample["conversation"];
        let a = conv["speaker_a"].as_str().unwrap_or("A");
        let b = conv["speaker_b"].as_str().unwrap_or("B");
        for n in 1.. {
            let Some(turns) = conv[format!("session_{n}")].as_array() else {
                break;
            };
            let date = conv[format!("session_{n}_date_time")]
                .as_str()
                .unwrap_or("");
            let mut note = format!("# Conversation between {a} and {b}, session {n} ({date})\n\n");
            for turn in turns {
                let mut line = format!(
                    "[{}] {}: {}",
                    turn["dia_id"].as_str().unwrap_or(""),
                    turn["speaker"].as_str().unwrap_or(""),
                    turn["text"].as_str().unwrap_or("")
                );
                if let Some(caption) = turn["blip_caption"].as_str() {
                    line.push_str(&format!(" [shares a photo: {caption}]"));
                }
                note.push_str(line.trim());
                note.push('\n');
            }
            vault
                .write(&format!("locomo/{id}/session-{n:02}.md"), &note, &author)
                .map_err(|e| e.to_string())?;
            notes += 1;
        }
        for qa in sample["qa"].as_array().into_iter().flatten() {
            let category = qa["category"].as_u64().unwrap_or(0);
            if !(1..=4).contains(&category) {
                continue;
            }
            let evidence = crate::locomo::evidence(qa);
            if evidence.is_empty() {
                continue;
            }
            questions.push(Question {
                conversation: id.clone(),
                text: qa["question"].as_str().unwrap_or_default().to_string(),
                evidence,
                category,
                held_out,
            });
        }
    }
    if let Some(limit) = limit {
        questions.truncate(limit);
    }
    eprintln!(
        "LoCoMo: {notes} session notes, {} questions",
        questions.len()
    );
    prepare(&index, plan)?;

    println!(
        "\n### LoCoMo evidence recall ({} questions of categories 1–4; LoCoMo's own category numbers: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop)\n",
        questions.len()
    );
    println!(
        "| mode | @1000 | @2000 | @1000, conv 1–5 / 6–10 (held out) | cat 1 @1000 | cat 2 @1000 | cat 3 @1000 | cat 4 @1000 | query p50 | sessions nDCG@10, conv 1–5 / 6–10 (held out) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (name, mode, fusions) in variants(plan) {
        index.set_fusions(fusions);
        let mut sums: BTreeMap<(u64, usize), f64> = BTreeMap::new();
        let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
        let mut times = Vec::new();
        let mut sessions = [(0.0, 0usize); 2];
        for q in &questions {
            let options = SearchOptions {
                mode,
                scope: Some(format!("locomo/{}", q.conversation)),
                limit: 10,
            };
            let notes = index
                .search_notes(&q.text, &options)
                .map_err(|e| e.to_string())?;
            let ranked: Vec<String> = notes.hits.into_iter().map(|h| h.path).collect();
            let relevant = binary(
                q.evidence
                    .iter()
                    .filter_map(|e| crate::locomo::session_of(e))
                    .map(|n| format!("locomo/{}/session-{n:02}.md", q.conversation)),
            );
            let part = &mut sessions[q.held_out as usize];
            part.0 += ndcg_at_10(&ranked, &relevant);
            part.1 += 1;
            let started = Instant::now();
            let results = index
                .search(
                    &q.text,
                    &SearchOptions {
                        mode,
                        scope: Some(format!("locomo/{}", q.conversation)),
                        limit: 60,
                    },
                )
                .map_err(|e| e.to_string())?;
            times.push(started.elapsed());
            // Categories 1–4, 0 for all, and 10 / 11 for the tuning and
            // held-out halves.
            let half = 10 + u64::from(q.held_out);
            for key in [q.category, 0, half] {
                *counts.entry(key).or_default() += 1;
            }
            for budget in [1000usize, 2000] {
                let mut used = 0;
                let mut found: HashSet<&str> = HashSet::new();
                for hit in &results.hits {
                    let tokens = hit.text.chars().count().div_ceil(4);
                    if used + tokens > budget {
                        break;
                    }
                    used += tokens;
                    for e in &q.evidence {
                        if hit.text.contains(&format!("[{e}]")) {
                            found.insert(e);
                        }
                    }
                }
                let recall = found.len() as f64 / q.evidence.len() as f64;
                for key in [q.category, 0, half] {
                    *sums.entry((key, budget)).or_default() += recall;
                }
            }
        }
        let r = |cat: u64, budget: usize| {
            format!(
                "{:.3}",
                sums.get(&(cat, budget)).copied().unwrap_or(0.0)
                    / counts.get(&cat).copied().unwrap_or(1).max(1) as f64
            )
        };
        let ndcg = |(sum, n): (f64, usize)| format!("{:.3}", sum / n.max(1) as f64);
        println!(
            "| {name} | {} | {} | {} / {} | {} | {} | {} | {} | {} | {} / {} |",
            r(0, 1000),
            r(0, 2000),
            r(10, 1000),
            r(11, 1000),
            r(1, 1000),
            r(2, 1000),
            r(3, 1000),
            r(4, 1000),
            crate::ms(crate::quantile(&mut times, 0.5)),
            ndcg(sessions[0]),
            ndcg(sessions[1])
        );
    }
    Ok(())
}

/// A question, the notes relevant to it, and whether it is held out.
pub(crate) type NoteQuestion = (String, Gains, bool);

/// Searches each question for its ten best notes: the nDCG@10 sums and
/// counts of the tuning part `[0]` and the held-out part `[1]`, and the
/// median query time.
pub(crate) fn rank_notes(
    index: &Index,
    mode: Mode,
    questions: &[NoteQuestion],
) -> Result<([(f64, usize); 2], Duration), String> {
    let mut sums = [(0.0, 0usize); 2];
    let mut times = Vec::new();
    for (question, relevant, held_out) in questions {
        let started = Instant::now();
        let options = SearchOptions {
            mode,
            scope: None,
            limit: 10,
        };
        let results = index
            .search_notes(question, &options)
            .map_err(|e| e.to_string())?;
        times.push(started.elapsed());
        let ranked: Vec<String> = results.hits.into_iter().map(|h| h.path).collect();
        let part = &mut sums[*held_out as usize];
        part.0 += ndcg_at_10(&ranked, relevant);
        part.1 += 1;
    }
    Ok((sums, crate::quantile(&mut times, 0.5)))
}

// ---- LoCoMo session summaries -------------------------------------------------

/// Notes the length of abstracts, found by whole questions: LoCoMo's 272
/// session summaries, each a note without a heading (so its file name is
/// its title), and its questions, whose relevant notes are the summaries
/// of the sessions holding their evidence. What a reader asking for "the
/// 10 best notes" gets, as nDCG@10 — the shape of the abstract collections
/// (Cranfield, Vaswani) others measure Knower on, from data we have.
pub(crate) fn locomo_summaries(file: &Path, work: &Path, plan: &Plan) -> Result<(), String> {
    let data: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?,
    )
    .map_err(|e| e.to_string())?;
    let (vault, index) = open(&work.join("locomo-summaries"), plan)?;
    let author = Author::new("bench", "LoCoMo session summary");
    let mut questions: Vec<NoteQuestion> = Vec::new();
    for (nth, sample) in data.iter().enumerate() {
        let id = sample["sample_id"].as_str().unwrap_or("conv").to_string();
        let note = |n: usize| format!("summaries/{id}/session-{n:02}.md");
        for (key, summary) in sample["session_summary"].as_object().into_iter().flatten() {
            let Some(n) = key
                .strip_prefix("session_")
                .and_then(|k| k.strip_suffix("_summary"))
                .and_then(|k| k.parse::<usize>().ok())
            else {
                continue;
            };
            vault
                .write(&note(n), summary.as_str().unwrap_or_default(), &author)
                .map_err(|e| e.to_string())?;
        }
        for qa in sample["qa"].as_array().into_iter().flatten() {
            if !(1..=4).contains(&qa["category"].as_u64().unwrap_or(0)) {
                continue;
            }
            let relevant = binary(
                crate::locomo::evidence(qa)
                    .iter()
                    .filter_map(|e| crate::locomo::session_of(e))
                    .map(note),
            );
            if !relevant.is_empty() {
                let question = qa["question"].as_str().unwrap_or_default().to_string();
                questions.push((question, relevant, nth >= 5));
            }
        }
    }
    prepare(&index, plan)?;
    println!(
        "\n### LoCoMo session summaries as notes ({} questions over 272 notes; nDCG@10 of notes)\n",
        questions.len()
    );
    println!("| mode | conv 1–5 | conv 6–10 (held out) | query p50 |");
    println!("|---|---|---|---|");
    for (name, mode, fusions) in variants(plan) {
        index.set_fusions(fusions);
        let (sums, p50) = rank_notes(&index, mode, &questions)?;
        let ndcg = |(sum, n): (f64, usize)| format!("{:.3}", sum / n.max(1) as f64);
        println!(
            "| {name} | {} | {} | {} |",
            ndcg(sums[0]),
            ndcg(sums[1]),
            crate::ms(p50)
        );
    }
    Ok(())
}
