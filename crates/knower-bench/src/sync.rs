//! Issue 74's target: a sync of a 10,000-note vault with 10 changed notes
//! (10 here, 10 from another machine) in < 1 s; the first push of the
//! 10,000 notes is reported. The baseline, in the same run: the same
//! exchange done by hand with git on a plain clone (`git add -A`, commit,
//! `git pull --no-rebase`, push), which is the least a sync through git
//! can cost.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_sync::Sync;
use knower_vault::{Author, Vault};

use crate::vault::{generate, note};
use crate::{Rng, ms, option, quantile};

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let files: usize = option(args, "--files", 10_000)?;
    let rounds: usize = option(args, "--rounds", 7)?;
    let changed: usize = option(args, "--changed", 10)?;
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let root = temp.path();
    git(
        root,
        &[
            "init",
            "--quiet",
            "--bare",
            "--initial-branch=main",
            "remote.git",
        ],
    )?;
    let remote = root.join("remote.git");

    eprintln!("generating {files} notes …");
    let here_dir = root.join("here");
    let paths = generate(&here_dir, files)?;
    std::fs::write(
        here_dir.join("knower.toml"),
        format!("[sync]\nremote = \"{}\"\n", remote.display()),
    )
    .map_err(|e| e.to_string())?;
    let author = Author::new("bench", "benchmark");
    let (here, _) = Vault::init(&here_dir, &author).map_err(|e| e.to_string())?;
    let here = Arc::new(here);
    // SAFETY: set before any thread of ours reads the environment.
    unsafe { std::env::set_var("KNOWER_MACHINE", "bench") };

    // The first push's baseline: the same notes pushed by hand.
    let by_hand = root.join("by-hand");
    git(
        root,
        &[
            "init",
            "--quiet",
            "--bare",
            "--initial-branch=main",
            "by-hand.git",
        ],
    )?;
    git(
        root,
        &[
            "clone",
            "--quiet",
            root.join("by-hand.git").to_str().unwrap(),
            "by-hand",
        ],
    )?;
    for path in &paths {
        let to = by_hand.join(path);
        std::fs::create_dir_all(to.parent().expect("a parent")).map_err(|e| e.to_string())?;
        std::fs::copy(here_dir.join(path), to).map_err(|e| e.to_string())?;
    }
    let started = Instant::now();
    git(&by_hand, &["add", "-A"])?;
    git(
        &by_hand,
        &[
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@example.com",
            "commit",
            "--quiet",
            "-m",
            "all",
        ],
    )?;
    git(&by_hand, &["push", "--quiet", "origin", "HEAD:main"])?;
    let first_by_hand = started.elapsed();

    let started = Instant::now();
    let first = sync(&here)?;
    let first_push = started.elapsed();
    eprintln!(
        "first push of {} paths in {}",
        first.committed,
        ms(first_push)
    );

    // The other machine joins as the README says: clone, init, sync.
    let there_dir = root.join("there");
    git(
        root,
        &["clone", "--quiet", remote.to_str().unwrap(), "there"],
    )?;
    let started = Instant::now();
    let (there, _) = Vault::init(&there_dir, &author).map_err(|e| e.to_string())?;
    let there = Arc::new(there);
    sync(&there)?;
    let join = started.elapsed();
    eprintln!(
        "the second machine cloned, adopted and synced in {}",
        ms(join)
    );

    // A plain clone for the baseline.
    git(
        root,
        &["clone", "--quiet", remote.to_str().unwrap(), "plain"],
    )?;
    let plain = root.join("plain");
    git(&plain, &["config", "user.name", "bench"])?;
    git(&plain, &["config", "user.email", "bench@example.com"])?;

    let mut rng = Rng::new(11);
    let (mut knower, mut baseline) = (Vec::new(), Vec::new());
    let mut received = 0;
    let mut steps: Vec<(String, Vec<Duration>)> = Vec::new();
    for round in 0..rounds {
        // The other machine's changes, pushed.
        for i in 0..changed {
            let path = &paths[rng.below(paths.len())];
            there
                .write(path, &note(&mut rng, 100_000 + round * 100 + i), &author)
                .map_err(|e| e.to_string())?;
        }
        sync(&there)?;
        // Ours, then the measured sync: commit 10, merge 10, push.
        for i in 0..changed {
            let path = &paths[rng.below(paths.len())];
            here.write(path, &note(&mut rng, 200_000 + round * 100 + i), &author)
                .map_err(|e| e.to_string())?;
        }
        let started = Instant::now();
        let mut marks: Vec<(String, Instant)> = Vec::new();
        let report = Sync::new(here.clone())
            .and_then(|s| s.run(&mut |step| marks.push((step.to_string(), Instant::now()))))
            .map_err(|e| e.to_string())?;
        let ended = Instant::now();
        knower.push(ended - started);
        for (i, (step, at)) in marks.iter().enumerate() {
            let next = marks.get(i + 1).map_or(ended, |(_, t)| *t);
            let name = step.split(" from ").next().unwrap_or(step);
            let name = name.split(" to ").next().unwrap_or(name).to_string();
            match steps.iter_mut().find(|(n, _)| *n == name) {
                Some((_, times)) => times.push(next - *at),
                None => steps.push((name, vec![next - *at])),
            }
        }
        received += report.received.len();

        // The baseline: the same exchange by hand on the plain clone.
        for i in 0..changed {
            let path = &paths[rng.below(paths.len())];
            std::fs::write(plain.join(path), note(&mut rng, 300_000 + round * 100 + i))
                .map_err(|e| e.to_string())?;
        }
        let started = Instant::now();
        git(&plain, &["add", "-A"])?;
        git(&plain, &["commit", "--quiet", "-m", "by hand"])?;
        git(&plain, &["pull", "--quiet", "--no-rebase", "--no-edit"])?;
        git(&plain, &["push", "--quiet"])?;
        baseline.push(started.elapsed());
    }
    let (k50, b50) = (quantile(&mut knower, 0.5), quantile(&mut baseline, 0.5));
    println!("| measure ({files} notes) | value |");
    println!("|---|---|");
    println!(
        "| first push of {} paths | {} |",
        first.committed,
        ms(first_push)
    );
    println!(
        "| baseline: the same notes added, committed and pushed by hand | {} |",
        ms(first_by_hand)
    );
    println!(
        "| second machine: clone + init + first sync | {} |",
        ms(join)
    );
    println!(
        "| sync, {changed} changed here + {changed} from the remote, median of {rounds} (max) | {} ({}) |",
        ms(k50),
        ms(*knower.iter().max().unwrap_or(&Duration::ZERO))
    );
    println!(
        "| baseline: git add/commit/pull/push by hand, median | {} |",
        ms(b50)
    );
    println!(
        "| ratio sync / baseline | {:.2} |",
        k50.as_secs_f64() / b50.as_secs_f64().max(1e-9)
    );
    println!("| paths received over the rounds | {received} |");
    for (step, times) in &mut steps {
        println!(
            "| of which: {step}, median | {} |",
            ms(quantile(times, 0.5))
        );
    }
    println!(
        "\ntarget: a sync with {changed} changed notes < 1 s: {}",
        if k50 < Duration::from_secs(1) {
            "met"
        } else {
            "NOT met"
        }
    );
    Ok(())
}

fn sync(vault: &Arc<Vault>) -> Result<knower_sync::Report, String> {
    Sync::new(vault.clone())
        .and_then(|s| s.run(&mut |_| {}))
        .map_err(|e| e.to_string())
}

fn git(dir: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
