//! `knower-bench harvest --real DIR [--real DIR]…`: real conversation files
//! (kept outside the repository) harvested by the offline engine, each into
//! a vault of its own, and scored against the hand-written key beside them
//! (`DIR/key.json`: for each file, the items a careful person would keep —
//! the categories they belong in and words that identify them — and
//! strings that are noise if they appear in any kept item).
//!
//! For each set: files read (and refused), records skipped, key items found
//! in a right category and in any category, noise strings kept, items kept
//! in all, and conversations per second.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use knower_harvest::{Harvester, Options};
use knower_vault::Vault;
use serde::Deserialize;

#[derive(Deserialize)]
struct Key {
    files: BTreeMap<String, FileKey>,
}

#[derive(Deserialize)]
struct FileKey {
    items: Vec<KeyItem>,
    #[serde(default)]
    noise: Vec<String>,
}

#[derive(Deserialize)]
struct KeyItem {
    category: Vec<String>,
    all: Vec<String>,
}

/// The kept items of a vault, by category (`files` for per-file notes).
fn kept(vault: &Vault) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (category, note) in [
        ("facts", "knowledge/facts.md"),
        ("decisions", "knowledge/decisions.md"),
        ("questions", "knowledge/questions.md"),
        ("playbooks", "knowledge/playbooks.md"),
        ("tasks", "knowledge/tasks.md"),
    ] {
        if let Ok(text) = vault.read(note) {
            bullets(&text, category, &mut out);
        }
    }
    let files = vault.root().join("knowledge/files");
    for entry in std::fs::read_dir(files).into_iter().flatten().flatten() {
        if let Ok(text) = std::fs::read_to_string(entry.path()) {
            let heading = text.lines().next().unwrap_or("").to_string();
            for line in text.lines().filter(|l| l.starts_with("- ")) {
                out.push(("files".into(), format!("{heading} {line}").to_lowercase()));
            }
        }
    }
    out
}

fn bullets(text: &str, category: &str, out: &mut Vec<(String, String)>) {
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("- ") {
            if let Some(item) = current.take() {
                out.push((category.into(), item));
            }
            current = Some(line.to_lowercase());
        } else if line.starts_with("  ") && current.is_some() {
            current.as_mut().unwrap().push_str(&line.to_lowercase());
        } else if let Some(item) = current.take() {
            out.push((category.into(), item));
        }
    }
    if let Some(item) = current {
        out.push((category.into(), item));
    }
}

fn plain(text: &str) -> String {
    text.chars().filter(|c| !matches!(c, '*' | '`')).collect()
}

#[derive(Default)]
struct Score {
    files: usize,
    read: usize,
    skipped_records: usize,
    key: usize,
    right: usize,
    any: usize,
    noise: usize,
    noise_kept: usize,
    items: usize,
    conversations: usize,
    seconds: f64,
}

pub fn run(dirs: &[String], verbose: bool) -> Result<(), String> {
    println!(
        "| set | files read | records skipped | key items in a right category | in any \
         category | noise kept | items kept | conversations/s |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for dir in dirs {
        let dir = Path::new(dir);
        let key: Key = serde_json::from_str(
            &std::fs::read_to_string(dir.join("key.json")).map_err(|e| e.to_string())?,
        )
        .map_err(|e| format!("{}: {e}", dir.join("key.json").display()))?;
        let mut score = Score::default();
        for (file, expected) in &key.files {
            let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
            let vault = crate::harvest::vault(temp.path())?;
            let started = Instant::now();
            let report = Harvester::new(vault.clone(), None)
                .run(
                    &[dir.join(file)],
                    Options {
                        apply: true,
                        ..Options::default()
                    },
                    &mut |_, _| {},
                )
                .map_err(|e| e.to_string())?;
            score.seconds += started.elapsed().as_secs_f64();
            score.files += 1;
            score.read += usize::from(report.unreadable.is_empty());
            score.skipped_records += report.warnings.len();
            score.conversations += report.harvested;
            let items = kept(&vault);
            score.items += items.len();
            for item in &expected.items {
                score.key += 1;
                let matches = |text: &String| item.all.iter().all(|w| text.contains(w.as_str()));
                let right = items
                    .iter()
                    .any(|(c, t)| item.category.contains(c) && matches(t));
                let any = items.iter().any(|(_, t)| matches(t));
                score.right += usize::from(right);
                score.any += usize::from(any);
                if verbose && !right {
                    println!(
                        "  {file}: {} {:?} {}",
                        if any { "wrong category" } else { "missed" },
                        item.all,
                        item.category.join("|")
                    );
                }
            }
            for noise in &expected.noise {
                score.noise += 1;
                // Emphasis and code marks are the note's, not the words'.
                let noise = plain(&noise.to_lowercase());
                let kept = items.iter().any(|(_, t)| plain(t).contains(&noise));
                score.noise_kept += usize::from(kept);
                if verbose && kept {
                    println!("  {file}: noise kept: {noise}");
                }
            }
            if verbose {
                for (c, t) in &items {
                    println!("    [{c}] {}", t.chars().take(160).collect::<String>());
                }
            }
        }
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        println!(
            "| {} | {} of {} | {} | {}/{} ({:.0}%) | {}/{} ({:.0}%) | {}/{} ({:.0}%) | {} | {:.1} |",
            dir.file_name().unwrap_or_default().to_string_lossy(),
            score.read,
            score.files,
            score.skipped_records,
            score.right,
            score.key,
            pct(score.right, score.key),
            score.any,
            score.key,
            pct(score.any, score.key),
            score.noise_kept,
            score.noise,
            pct(score.noise_kept, score.noise),
            score.items,
            score.conversations as f64 / score.seconds.max(1e-9),
        );
    }
    Ok(())
}
