//! Knower's benchmarks. Each subcommand measures one layer against the
//! targets of its issue and prints a markdown table for BENCHMARKS.md.
//! Every figure comes with a baseline measured in the same run, because the
//! machines are noisy: compare the ratios, not the absolute numbers.
//!
//!     cargo run --release -p knower-bench -- vault [--files N] [--writes N] [--dir PATH]
//!     cargo run --release -p knower-bench -- agents [--notes N] [--updates N] [--verbose] [--every] [--sets NAME,NAME] [--model real|env]
//!     cargo run --release -p knower-bench -- server [--clients N] [--per-client N] [--notes N]
//!     cargo run --release -p knower-bench -- graph [--entities N] [--rounds N]
//!     cargo run --release -p knower-bench -- harvest [--items N] [--data PATH]
//!     cargo run --release -p knower-bench -- chat [--conversations N] [--data PATH]
//!     cargo run --release -p knower-bench -- sync [--files N] [--changed N] [--rounds N]
//!     cargo run --release -p knower-bench -- chat --recall SET [--recall SET]... [--verbose]
//!     cargo run --release -p knower-bench -- search [--only quality|speed] [--sweep]
//!         [--modes fast,vector,deep] [--chunk-chars N] [--files N] [--queries N] [--embed N]
//!         [--questions N] [--embed N] [--data PATH] [--dir PATH] [--smart DIR,DIR]
//!
//! `search` needs the embedding model: KNOWER_MODEL=folder, or the Hugging
//! Face cache. Its data is read from ../shared/bench (or --data).

mod agents;
mod chat;
mod chat_recall;
mod garden;
mod garden_web;
mod graph;
mod harvest;
mod harvest_big;
mod harvest_real;
mod locomo;
mod search_quality;
mod search_smart;
mod search_speed;
mod server;
mod sync;
mod vault;

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("vault") => vault::run(&args[1..]),
        Some("search") => search(&args[1..]),
        Some("agents") => agents::run(&args[1..]),
        Some("server") => server::run(&args[1..]),
        Some("graph") => graph::run(&args[1..]),
        Some("harvest") => harvest::run(&args[1..]),
        Some("chat") if args.iter().any(|a| a == "--recall") => chat_recall::run(&args[1..]),
        Some("chat") => chat::run(&args[1..]),
        Some("garden") => garden::run(&args[1..]),
        Some("sync") => sync::run(&args[1..]),
        _ => Err("usage: knower-bench vault [--files N] [--writes N] [--dir PATH]\n       knower-bench agents [--notes N] [--updates N] [--verbose] [--every] [--sets NAME,NAME] [--model real|env]\n       knower-bench server [--clients N] [--per-client N] [--notes N]\n       knower-bench graph [--entities N] [--rounds N]\n       knower-bench harvest [--items N] [--data PATH] | --real DIR [--real DIR]... [--verbose] | --big MB\n       knower-bench chat [--conversations N] [--data PATH] | --recall SET [--recall SET]... [--verbose]\n       knower-bench garden [--max-cycles N] [--facts N] | [--web DIR]... [--cycles N]\n       knower-bench sync [--files N] [--changed N] [--rounds N]\n       knower-bench search [--only quality|speed] [--sweep] [--modes fast,vector,deep] [--chunk-chars N] [--files N] [--queries N] [--embed N] [--questions N] [--data PATH] [--dir PATH] [--smart DIR,DIR]".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn search(args: &[String]) -> Result<(), String> {
    let only: String = option(args, "--only", String::new())?;
    let sweep = args.iter().any(|a| a == "--sweep");
    let data = data_dir(args)?;
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let work = option(args, "--dir", temp.path().to_path_buf())?.join("search-bench");
    if work.exists() {
        return Err(format!("{} already exists", work.display()));
    }
    if only.is_empty() || only == "quality" {
        let questions: usize = option(args, "--questions", usize::MAX)?;
        let modes: String = option(args, "--modes", "fast,vector,deep".to_string())?;
        let plan = search_quality::Plan {
            modes: modes
                .split(',')
                .map(str::parse::<knower_index::Mode>)
                .collect::<Result<_, _>>()?,
            sweep,
            chunk_chars: args
                .iter()
                .any(|a| a == "--chunk-chars")
                .then(|| option(args, "--chunk-chars", 0))
                .transpose()?,
        };
        let smart: String = option(args, "--smart", String::new())?;
        if !smart.is_empty() {
            // Only the named test collections: they are not in ../shared/bench.
            for dir in smart.split(',') {
                search_smart::run(Path::new(dir), &work, &plan)?;
            }
            return Ok(());
        }
        search_quality::qmd(&data.join("qmd_eval"), &work, &plan)?;
        search_quality::locomo(
            &data.join("locomo/locomo10.json"),
            &work,
            &plan,
            Some(questions),
        )?;
        search_quality::locomo_summaries(&data.join("locomo/locomo10.json"), &work, &plan)?;
    }
    if only.is_empty() || only == "speed" {
        search_speed::run(
            &work,
            option(args, "--files", 10_000)?,
            option(args, "--queries", 200)?,
            option(args, "--embed", 5000)?,
        )?;
    }
    Ok(())
}

/// The external benchmark data: `--data`, else `../shared/bench` beside
/// the repository.
pub(crate) fn data_dir(args: &[String]) -> Result<std::path::PathBuf, String> {
    option(
        args,
        "--data",
        std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/bench"
        )),
    )
}

/// `--name value` from the arguments, parsed.
pub(crate) fn option<T: std::str::FromStr>(
    args: &[String],
    name: &str,
    default: T,
) -> Result<T, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{name} needs a valid value")),
    }
}

/// The `q`-quantile of some durations (sorted in place).
pub(crate) fn quantile(samples: &mut [Duration], q: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * q).round() as usize;
    samples[index]
}

pub(crate) fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

/// A small deterministic generator, so every run benchmarks the same vault.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407))
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}
