//! Issue 4's targets for the offline engine: routing accuracy on a labelled
//! set (≥ 85% correct, ≤ 5% filed confidently in the wrong place) and the
//! latency of one offline update on a 1,000-note vault (p50 < 50 ms).
//!
//! The set is `fixtures/routing/`: a vault of six projects and
//! `notes.tsv`, each update labelled with the file a person would file it in,
//! or `inbox` when a person could not tell either.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_agents::{Agents, Engine, Payload, Settings};
use knower_index::Index;
use knower_vault::{Author, Position, Vault};

use crate::{Rng, ms, option, quantile};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/routing");

pub fn run(args: &[String]) -> Result<(), String> {
    let notes: usize = option(args, "--notes", 1000)?;
    let updates: usize = option(args, "--updates", 60)?;
    let verbose = args.iter().any(|a| a == "--verbose");
    routing("notes.tsv", "the set the rules were tuned on", verbose)?;
    routing(
        "holdout.tsv",
        "held out: written after tuning, never tuned on",
        verbose,
    )?;
    latency(notes, updates)
}

fn fixture_vault(dir: &Path) -> Result<(Arc<Vault>, Arc<Index>), String> {
    let author = Author::new("bench", "routing fixture");
    let (vault, _) = Vault::init(dir, &author).map_err(|e| e.to_string())?;
    let root = Path::new(FIXTURE).join("vault");
    for entry in walk(&root)? {
        let rel = entry
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&entry).map_err(|e| e.to_string())?;
        vault
            .write(&rel, &text, &author)
            .map_err(|e| e.to_string())?;
    }
    let vault = Arc::new(vault);
    let index = Index::open(vault.clone()).map_err(|e| e.to_string())?;
    index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
    Ok((vault, index))
}

fn walk(dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            out.extend(walk(&path)?);
        } else {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

fn routing(file: &str, about: &str, verbose: bool) -> Result<(), String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let (vault, index) = fixture_vault(temp.path())?;
    let set = std::fs::read_to_string(Path::new(FIXTURE).join(file)).map_err(|e| e.to_string())?;
    let cases: Vec<(&str, &str)> = set
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_once('\t').ok_or(format!("bad line: {l}")))
        .collect::<Result<_, _>>()?;
    let (mut correct, mut to_inbox, mut wrong, mut inbox_expected) = (0, 0, 0, 0);
    let mut project_right = 0;
    for (label, text) in &cases {
        let decision = knower_agents::route(&vault, &index, text).map_err(|e| e.to_string())?;
        let got = decision
            .destination
            .clone()
            .unwrap_or_else(|| "inbox".into());
        inbox_expected += usize::from(*label == "inbox");
        to_inbox += usize::from(got == "inbox");
        let folder = |p: &str| {
            p.rsplit_once('/')
                .map(|(f, _)| f.to_string())
                .unwrap_or_default()
        };
        if got == *label {
            correct += 1;
        } else if got != "inbox" {
            wrong += 1;
        }
        if got != "inbox" && folder(&got) == folder(label) {
            project_right += 1;
        }
        if verbose && got != *label {
            println!(
                "MISS {label:<32} got {got:<32} {:.2} {text}\n     {}",
                decision.confidence, decision.reasoning
            );
        }
    }
    let n = cases.len() as f64;
    let pct = |k: usize| format!("{:.1}%", 100.0 * k as f64 / n);
    println!(
        "\n### Offline routing, `{file}` ({about}): {} labelled updates over 6 projects\n",
        cases.len()
    );
    println!("| measure | result | target |");
    println!("|---|---|---|");
    println!(
        "| correct destination (exact file, or the inbox) | {} ({correct}/{}) | ≥ 85%: {} |",
        pct(correct),
        cases.len(),
        if correct as f64 / n >= 0.85 {
            "met"
        } else {
            "MISSED"
        }
    );
    println!(
        "| filed in the wrong place | {} ({wrong}/{}) | ≤ 5%: {} |",
        pct(wrong),
        cases.len(),
        if wrong as f64 / n <= 0.05 {
            "met"
        } else {
            "MISSED"
        }
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
    Ok(())
}

const WORDS: &[&str] = &[
    "meeting", "budget", "review", "design", "schedule", "draft", "notes", "idea", "plan",
    "release", "feedback", "report", "summary", "question", "result", "change", "issue",
    "estimate", "deadline", "contract", "invoice", "supplier", "sample", "measure", "test",
    "version", "option", "decision", "risk", "status", "update", "priority", "detail",
];

fn latency(notes: usize, updates: usize) -> Result<(), String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let (vault, index) = fixture_vault(temp.path())?;
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
