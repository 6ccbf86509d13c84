//! Knower's benchmarks. Each subcommand measures one layer against the
//! targets of its issue and prints a markdown table for BENCHMARKS.md.
//! Every figure comes with a baseline measured in the same run, because the
//! machines are noisy: compare the ratios, not the absolute numbers.
//!
//!     cargo run --release -p knower-bench -- vault [--files N] [--writes N] [--dir PATH]

mod vault;

use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("vault") => vault::run(&args[1..]),
        _ => Err("usage: knower-bench vault [--files N] [--writes N] [--dir PATH]".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
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
