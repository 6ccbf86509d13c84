//! Issue 75: what a model does on the routing sets, beside the offline
//! engine in the same run. Each update is filed by the agents in sequence
//! on a fresh copy of the fixture (as a user's would be), once by the model
//! and once by the offline engine, and each is timed.
//!
//! The model is the one `KNOWER_LLM` (and `KNOWER_LLM_BASE_URL`) name, or
//! with `--model real` the real small model the tests run
//! (`knower_testkit::real_llm`: llama-cpp-python's server with Gemma 3
//! 270M, installed into `target/real-llm/` on first use).

use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_agents::{Agents, Engine, Outcome, Payload, Settings};
use knower_llm::{Llm, LlmConfig};

use super::{ROUTING_CLOCK, fixture_of, fixture_vault, labelled};
use crate::quantile;

/// How one update ended.
struct Ended {
    label: String,
    /// The file it was filed in, `inbox`, or `failed`.
    got: String,
    took: Duration,
}

pub fn run(which: &str, sets: &[&str], verbose: bool) -> Result<(), String> {
    // Kept alive for the run: the server stops when it is dropped.
    let (llm, _server) = match which {
        "real" => {
            let server = knower_testkit::real_llm::start();
            let config = LlmConfig::resolve(
                &format!(
                    "[llm]\nprovider = \"llamacpp\"\nmodel = \"gemma-3-270m\"\nbase_url = \"{}\"\n",
                    server.base_url
                ),
                &|_| None,
            )
            .map_err(|e| e.to_string())?
            .ok_or("no model")?;
            (config, Some(server))
        }
        "env" => {
            let config = LlmConfig::load("").map_err(|e| e.to_string())?.ok_or(
                "--model env: set KNOWER_LLM (and KNOWER_LLM_BASE_URL for a local server)",
            )?;
            (config, None)
        }
        other => return Err(format!("--model {other}: say `real` or `env`")),
    };
    let llm = Arc::new(Llm::new(llm).map_err(|e| e.to_string())?);
    for set in sets {
        let file = format!("{set}.tsv");
        let by_model = file_all(&file, Engine::Llm(llm.clone()))?;
        let offline = file_all(&file, Engine::Offline)?;
        println!(
            "\n### Routing by a model, `{file}`: {} updates, each filed in sequence\n",
            by_model.len()
        );
        println!("| engine | right | wrong place | inbox | failed | median per update |");
        println!("|---|---|---|---|---|---|");
        for (engine, ended) in [
            (llm.label(), &by_model),
            ("offline engine".into(), &offline),
        ] {
            row(&engine, ended);
        }
        if verbose {
            for (m, o) in by_model.iter().zip(&offline) {
                let mark = if m.got == m.label { "HIT " } else { "MISS" };
                println!(
                    "{mark} {:<30} model {:<30} offline {}",
                    m.label, m.got, o.got
                );
            }
        }
    }
    Ok(())
}

/// Files every update of `file` in order with `engine`.
fn file_all(file: &str, engine: Engine) -> Result<Vec<Ended>, String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let (vault, index) = fixture_vault(temp.path(), &fixture_of(file))?;
    let agents = Agents::new(vault, index, engine, Settings::default())
        .at(ROUTING_CLOCK.parse().expect("a timestamp"));
    let mut ended = Vec::new();
    for (label, text) in labelled(file)? {
        let started = Instant::now();
        let report = agents.update(Payload::text(text));
        let took = started.elapsed();
        let got = match report {
            Ok(report) => match report.outcome {
                Outcome::Filed => report.changed.first().cloned().unwrap_or_default(),
                Outcome::Failed => "failed".to_string(),
                _ => "inbox".to_string(),
            },
            Err(_) => "failed".to_string(),
        };
        ended.push(Ended { label, got, took });
    }
    Ok(ended)
}

fn row(engine: &str, ended: &[Ended]) {
    let n = ended.len().max(1);
    let count = |f: &dyn Fn(&Ended) -> bool| ended.iter().filter(|e| f(e)).count();
    let right = count(&|e| e.got == e.label);
    let failed = count(&|e| e.got == "failed");
    let inbox = count(&|e| e.got == "inbox");
    let wrong = count(&|e| e.got != e.label && e.got != "inbox" && e.got != "failed");
    let pct = |k: usize| format!("{:.1}% ({k})", 100.0 * k as f64 / n as f64);
    let mut times: Vec<Duration> = ended.iter().map(|e| e.took).collect();
    let median = quantile(&mut times, 0.5);
    println!(
        "| {engine} | {} | {} | {} | {} | {:.2} s |",
        pct(right),
        pct(wrong),
        pct(inbox),
        pct(failed),
        median.as_secs_f64()
    );
}
