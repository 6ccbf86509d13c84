//! Issue 4's targets for the offline engine: routing accuracy on a labelled
//! set (≥ 85% correct, ≤ 5% filed confidently in the wrong place) and the
//! latency of one offline update on a 1,000-note vault (p50 < 50 ms).
//!
//! The sets are `knower-agents/tests/routing/`: a vault of six projects and
//! `notes.tsv`, each update labelled with the file a person would file it in,
//! or `inbox` when a person could not tell either. `--model` measures a
//! model on them instead (see `agents/model.rs`).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_agents::{Agents, Engine, Facts, Outcome, Payload, Router, Rules, Settings, kind_of};
use knower_index::Index;
use knower_vault::{Author, Position, Vault};

use crate::{Rng, ms, option, quantile};

mod model;
mod sets;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../knower-agents/tests/routing"
);

pub fn run(args: &[String]) -> Result<(), String> {
    let notes: usize = option(args, "--notes", 1000)?;
    let updates: usize = option(args, "--updates", 60)?;
    // `--verbose` prints each miss with its reasoning; `--every`, each
    // decision (a right one as well), for studying what a rule would change.
    let every = args.iter().any(|a| a == "--every");
    let verbose = every || args.iter().any(|a| a == "--verbose");
    // `--sets notes,sequence4`: only the sets whose file names hold one of
    // these (a set still held out is then not shown by accident).
    let only: String = option(args, "--sets", String::new())?;
    // `--model real|env`: the model's routing beside the offline engine's.
    let model: String = option(args, "--model", String::new())?;
    if !model.is_empty() {
        let sets = match only.as_str() {
            "" => vec!["notes", "holdout"],
            some => some.split(',').collect(),
        };
        return model::run(&model, &sets, verbose);
    }
    let sets = sets::all();
    let chosen = |file: &str| only.is_empty() || only.split(',').any(|part| file.contains(part));
    for (file, about, run) in sets.into_iter().filter(|(file, ..)| chosen(file)) {
        let decided = routing(&file, run)?;
        report(&file, about, &decided, verbose, every);
    }
    kinds(
        "kinds.tsv",
        "held out: written before the kind rules' third round",
    )?;
    kinds(
        "kinds2.tsv",
        "held out: written after sequence29, before the kind rules' fourth round",
    )?;
    kinds(
        "kinds3.tsv",
        "held out: written after sequence31, before the kind rules' fifth round",
    )?;
    latency(notes, updates)
}

/// The (label, text) lines of a labelled set, comments and blank lines
/// skipped.
fn labelled(file: &str) -> Result<Vec<(String, String)>, String> {
    let set = std::fs::read_to_string(Path::new(FIXTURE).join(file)).map_err(|e| e.to_string())?;
    set.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let (label, text) = line.split_once('\t').ok_or(format!("bad line: {line}"))?;
            Ok((label.to_string(), text.to_string()))
        })
        .collect()
}

/// How often the kind rules give an update the kind a person would
/// (`kinds.tsv`: held out, labelled task, event, preference or note),
/// with every miss.
fn kinds(file: &str, about: &str) -> Result<(), String> {
    let mut total = 0;
    let mut misses = Vec::new();
    for (label, text) in labelled(file)? {
        let text = text.as_str();
        let got = format!("{:?}", kind_of(text)).to_lowercase();
        total += 1;
        if got != label {
            misses.push(format!("MISS {label:<10} got {got:<10} {text}"));
        }
    }
    println!("\n### Kinds, `{file}` ({about}): {total} updates\n");
    println!("| measure | result |\n|---|---|");
    println!(
        "| the kind a person would give | {:.1}% ({}/{total}) |\n",
        100.0 * (total - misses.len()) as f64 / total.max(1) as f64,
        total - misses.len()
    );
    for miss in misses {
        println!("{miss}");
    }
    Ok(())
}

/// How a set's updates meet the vault.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    /// Each is routed on the fixture as it is (nothing is filed).
    Alone,
    /// Each is filed by the offline agent in a fresh copy, in order, so the
    /// later ones meet a vault the earlier ones grew.
    InSequence,
}

/// One update of a set: its label, where it went, how sure the engine was.
struct Decided {
    label: String,
    got: String,
    confidence: f32,
    text: String,
    reasoning: String,
}

/// The fixture vault a set belongs to: the `vault` folder beside it.
fn fixture_of(file: &str) -> std::path::PathBuf {
    let set = Path::new(FIXTURE).join(file);
    set.parent().unwrap().join("vault")
}

fn fixture_vault(dir: &Path, root: &Path) -> Result<(Arc<Vault>, Arc<Index>), String> {
    let author = Author::new("bench", "routing fixture");
    let (vault, _) = Vault::init(dir, &author).map_err(|e| e.to_string())?;
    for (path, text) in knower_testkit::files::texts(root) {
        vault
            .write(&path, &text, &author)
            .map_err(|e| e.to_string())?;
    }
    let vault = Arc::new(vault);
    let index = Index::open(vault.clone()).map_err(|e| e.to_string())?;
    index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
    Ok((vault, index))
}

/// The moment every routing run files at. Filed lines carry their date and
/// the model embeds it with them, so without one fixed day a run with
/// meaning could differ from the same build's run on another day.
const ROUTING_CLOCK: &str = "2026-06-15T12:00:00Z";

fn routing(file: &str, run: Run) -> Result<Vec<Decided>, String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let (vault, index) = fixture_vault(temp.path(), &fixture_of(file))?;
    let agents = Agents::new(
        vault.clone(),
        index.clone(),
        Engine::Offline,
        Settings::default(),
    )
    .at(ROUTING_CLOCK.parse().expect("a timestamp"));
    let mut decided = Vec::new();
    for (label, text) in labelled(file)? {
        let text = text.as_str();
        let (got, confidence, reasoning) = match run {
            Run::Alone => {
                let facts = Facts::gather(&vault, &index, text).map_err(|e| e.to_string())?;
                let decision = Rules
                    .route(&facts, &Payload::text(text))
                    .map_err(|e| e.to_string())?;
                (
                    decision.destination.unwrap_or_else(|| "inbox".into()),
                    decision.confidence.unwrap_or_default(),
                    decision.reasoning,
                )
            }
            Run::InSequence => {
                let report = agents
                    .update(Payload::text(text))
                    .map_err(|e| e.to_string())?;
                let got = match report.outcome {
                    Outcome::Filed => report.changed.first().cloned().unwrap_or_default(),
                    _ => "inbox".to_string(),
                };
                (
                    got,
                    report.confidence.unwrap_or(0.0),
                    report.reasoning.unwrap_or_default(),
                )
            }
        };
        decided.push(Decided {
            label: label.to_string(),
            got,
            confidence,
            text: text.to_string(),
            reasoning,
        });
    }
    Ok(decided)
}

fn report(file: &str, about: &str, decided: &[Decided], verbose: bool, every: bool) {
    let n = decided.len();
    let count = |f: &dyn Fn(&Decided) -> bool| decided.iter().filter(|d| f(d)).count();
    let correct = count(&|d| d.got == d.label);
    let wrong = count(&|d| d.got != d.label && d.got != "inbox");
    let to_inbox = count(&|d| d.got == "inbox");
    let inbox_expected = count(&|d| d.label == "inbox");
    let folder = |p: &str| {
        p.rsplit_once('/')
            .map(|(f, _)| f.to_string())
            .unwrap_or_default()
    };
    let project_right = count(&|d| d.got != "inbox" && folder(&d.got) == folder(&d.label));
    let share = |k: usize| k as f64 / n as f64;
    let pct = |k: usize| format!("{:.1}%", 100.0 * share(k));
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!("\n### Offline routing, `{file}` ({about}): {n} labelled updates\n");
    println!("| measure | result | target |");
    println!("|---|---|---|");
    println!(
        "| correct destination (exact file, or the inbox) | {} ({correct}/{n}) | ≥ 90%: {} |",
        pct(correct),
        verdict(share(correct) >= 0.90)
    );
    println!(
        "| filed in the wrong place | {} ({wrong}/{n}) | ≤ 5%: {} |",
        pct(wrong),
        verdict(share(wrong) <= 0.05)
    );
    println!(
        "| sent to the inbox | {} (the set expects {}) | |",
        pct(to_inbox),
        pct(inbox_expected)
    );
    println!(
        "| filed in the right folder (any file) | {} | |",
        pct(project_right)
    );
    // Reliability: does the confidence of a filing say how often it is right?
    println!("\n| confidence of a filing | filings | right file | right folder |");
    println!("|---|---|---|---|");
    for (low, high) in [(0.0, 0.6), (0.6, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.01)] {
        let bucket: Vec<&Decided> = decided
            .iter()
            .filter(|d| d.got != "inbox" && d.confidence >= low && d.confidence < high)
            .collect();
        if bucket.is_empty() {
            continue;
        }
        let right = bucket.iter().filter(|d| d.got == d.label).count();
        let near = bucket
            .iter()
            .filter(|d| folder(&d.got) == folder(&d.label))
            .count();
        println!(
            "| {low:.1}–{:.1} | {} | {:.0}% | {:.0}% |",
            high.min(1.0),
            bucket.len(),
            100.0 * right as f64 / bucket.len() as f64,
            100.0 * near as f64 / bucket.len() as f64
        );
    }
    if verbose {
        println!();
        for d in decided.iter().filter(|d| every || d.got != d.label) {
            println!(
                "{} {:<32} got {:<32} {:.2} {}\n     {}",
                if d.got == d.label { "HIT " } else { "MISS" },
                d.label,
                d.got,
                d.confidence,
                d.text,
                d.reasoning
            );
        }
    }
}

const WORDS: &[&str] = &[
    "meeting", "budget", "review", "design", "schedule", "draft", "notes", "idea", "plan",
    "release", "feedback", "report", "summary", "question", "result", "change", "issue",
    "estimate", "deadline", "contract", "invoice", "supplier", "sample", "measure", "test",
    "version", "option", "decision", "risk", "status", "update", "priority", "detail",
];

fn latency(notes: usize, updates: usize) -> Result<(), String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let (vault, index) = fixture_vault(temp.path(), &Path::new(FIXTURE).join("vault"))?;
    let author = Author::new("bench", "filler");
    let projects = ["atlas", "garden", "thesis", "house", "band", "japan-trip"];
    let mut rng = Rng::new(4);
    let existing = vault.entries().len();
    for i in 0..notes.saturating_sub(existing) {
        let project = projects[i % projects.len()];
        let words: Vec<&str> = (0..80).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        let text = format!("# Note {i}\n\n{project} {}\n", words.join(" "));
        vault
            .write(
                &format!("projects/{project}/notes/note-{i}.md"),
                &text,
                &author,
            )
            .map_err(|e| e.to_string())?;
    }
    let files = vault.entries().len();
    let agents = Agents::new(
        vault.clone(),
        index.clone(),
        Engine::Offline,
        Settings::default(),
    );
    let texts = [
        "Remember to order more compost for the garden beds",
        "The geocoding API beta latency improved after the index change",
        "Interesting article about the history of typography",
        "I prefer meeting notes as bullet lists",
    ];
    let (mut update_times, mut write_times) = (Vec::new(), Vec::new());
    for i in 0..updates {
        let text = format!("{} ({i})", texts[i % texts.len()]);
        let started = Instant::now();
        agents
            .update(Payload::text(text.clone()))
            .map_err(|e| e.to_string())?;
        update_times.push(started.elapsed());
        // Baseline: the one append an update makes, alone.
        let started = Instant::now();
        vault
            .append(
                "bucket/baseline.md",
                &format!("- {text}\n"),
                Position::Bottom,
                &author,
            )
            .map_err(|e| e.to_string())?;
        write_times.push(started.elapsed());
    }
    let (p50, p95) = (
        quantile(&mut update_times, 0.5),
        quantile(&mut update_times, 0.95),
    );
    let base = quantile(&mut write_times, 0.5);
    println!("\n### Offline update latency: {updates} updates on a vault of {files} files\n");
    println!("| measure | result | baseline (one append through the pipeline) | ratio | target |");
    println!("|---|---|---|---|---|");
    println!(
        "| offline update (route + write + changelog), p50 | {} | {} | {:.1}× | < 50 ms: {} |",
        ms(p50),
        ms(base),
        p50.as_secs_f64() / base.as_secs_f64().max(1e-9),
        if p50 < Duration::from_millis(50) {
            "met"
        } else {
            "MISSED"
        }
    );
    println!("| offline update, p95 | {} | | | |", ms(p95));
    Ok(())
}
