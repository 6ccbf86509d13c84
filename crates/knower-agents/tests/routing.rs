//! Every labelled routing set decides as recorded: each update's
//! destination (or `inbox`), the rule that decided and the confidence are
//! compared with the set's `decided.tsv`. A change to the rules that moves
//! a decision fails here and shows which; when the move is the point (a
//! gain measured with `knower-bench agents` on a set written before the
//! change), record the new decisions with
//!
//! ```text
//! UPDATE_EXPECT=1 cargo test -p knower-agents --test routing
//! ```
//!
//! and the diff of the `decided.tsv` files shows what changed
//! (`ROUTING_SETS=sequence12/,notes` runs only those sets). The sets are
//! `tests/routing/`: `notes.tsv` and `holdout.tsv`, routed one by one on
//! `vault/` as it is, and each `sequenceN/sequenceN.tsv`, filed one after
//! another into a copy of its own `vault/`. Routing here goes by words
//! alone (no embedding model), as on a machine without one.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use knower_agents::{Agents, Engine, Facts, Outcome, Payload, Router, Rules, Settings};
use knower_index::Index;
use knower_vault::{Author, Vault};

const SETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/routing");
/// The moment every routing run files at: filed lines carry their date.
const CLOCK: &str = "2026-06-15T12:00:00Z";

fn main() {
    // Words alone: a model in this machine's cache would otherwise weigh
    // meaning, and the decisions would depend on the machine. (Set before
    // any thread starts.)
    unsafe { std::env::set_var("KNOWER_MODEL", "/nonexistent/words-only") };
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    // `ROUTING_SETS=sequence12/,notes` runs only the sets whose path holds
    // one of these.
    let only = std::env::var("ROUTING_SETS").unwrap_or_default();
    let sets: Vec<Set> = sets()
        .into_iter()
        .filter(|set| {
            let path = set.updates.to_string_lossy();
            only.is_empty() || only.split(',').any(|part| path.contains(part))
        })
        .collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(set) = sets.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(failure) = check(set, update) {
                        failures.lock().unwrap().push(failure);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    println!(
        "routing: {} sets, {} decide otherwise than recorded",
        sets.len(),
        failures.len()
    );
    if !failures.is_empty() {
        for failure in &failures {
            eprintln!("{failure}\n");
        }
        eprintln!(
            "If the new decisions are the point, record them: UPDATE_EXPECT=1 cargo test -p knower-agents --test routing"
        );
        std::process::exit(1);
    }
}

/// A labelled set: its updates, the vault they meet, how, and where its
/// decisions are recorded.
struct Set {
    updates: PathBuf,
    vault: PathBuf,
    in_sequence: bool,
    decided: PathBuf,
}

fn sets() -> Vec<Set> {
    let root = Path::new(SETS);
    let mut sets: Vec<Set> = ["notes", "holdout"]
        .into_iter()
        .map(|name| Set {
            updates: root.join(format!("{name}.tsv")),
            vault: root.join("vault"),
            in_sequence: false,
            decided: root.join(format!("{name}.decided.tsv")),
        })
        .collect();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("tests/routing")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("sequence")
        })
        .collect();
    folders.sort();
    for folder in folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        sets.push(Set {
            updates: folder.join(format!("{name}.tsv")),
            vault: folder.join("vault"),
            in_sequence: true,
            decided: folder.join("decided.tsv"),
        });
    }
    sets
}

/// Routes a set and compares (or, with `update`, records) its decisions.
fn check(set: &Set, update: bool) -> Result<(), String> {
    let got = decide(set).map_err(|e| format!("{}: {e}", set.updates.display()))?;
    if update {
        std::fs::write(&set.decided, &got).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let want = std::fs::read_to_string(&set.decided).unwrap_or_default();
    if got == want {
        return Ok(());
    }
    let mut differences = Vec::new();
    let (got_lines, want_lines): (Vec<&str>, Vec<&str>) =
        (got.lines().collect(), want.lines().collect());
    for i in 0..got_lines.len().max(want_lines.len()) {
        let (g, w) = (got_lines.get(i), want_lines.get(i));
        if g != w {
            differences.push(format!(
                "  recorded: {}\n  now:      {}",
                w.unwrap_or(&"(nothing)"),
                g.unwrap_or(&"(nothing)")
            ));
        }
    }
    Err(format!(
        "{} decides otherwise than {}:\n{}",
        set.updates.display(),
        set.decided.display(),
        differences.join("\n")
    ))
}

/// One line a decision: where it went, by which rule, how sure, the text.
fn decide(set: &Set) -> Result<String, String> {
    let temp = scratch()?;
    let (vault, index) = fixture(temp.path(), &set.vault)?;
    let agents = Agents::new(
        vault.clone(),
        index.clone(),
        Engine::Offline,
        Settings::default(),
    )
    .at(CLOCK.parse().expect("a timestamp"));
    let text = std::fs::read_to_string(&set.updates).map_err(|e| e.to_string())?;
    let mut out =
        String::from("# destination\trule\tconfidence\ttext (recorded by tests/routing.rs)\n");
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (_, text) = line.split_once('\t').ok_or(format!("no label: {line}"))?;
        let (destination, rule, confidence) = if set.in_sequence {
            let report = agents
                .update(Payload::text(text))
                .map_err(|e| e.to_string())?;
            let destination = match report.outcome {
                Outcome::Filed => report.changed.first().cloned().unwrap_or_default(),
                _ => "inbox".to_string(),
            };
            (
                destination,
                report.rule.unwrap_or_default(),
                report.confidence,
            )
        } else {
            let facts = Facts::gather(&vault, &index, text).map_err(|e| e.to_string())?;
            let decision = Rules
                .route(&facts, &Payload::text(text))
                .map_err(|e| e.to_string())?;
            (
                decision.destination.unwrap_or_else(|| "inbox".into()),
                decision.rule.to_string(),
                decision.confidence,
            )
        };
        let confidence = confidence.map_or("-".to_string(), |c| format!("{c:.2}"));
        out.push_str(&format!("{destination}\t{rule}\t{confidence}\t{text}\n"));
    }
    Ok(out)
}

/// A scratch folder in memory where there is one: the sets write a few
/// thousand notes, each made durable, which a disk makes slow.
fn scratch() -> Result<tempfile::TempDir, String> {
    let shm = Path::new("/dev/shm");
    let builder = tempfile::Builder::new();
    if shm.is_dir()
        && let Ok(dir) = builder.tempdir_in(shm)
    {
        return Ok(dir);
    }
    builder.tempdir().map_err(|e| e.to_string())
}

/// A vault in `dir` holding the files of `fixture`, indexed.
fn fixture(dir: &Path, fixture: &Path) -> Result<(Arc<Vault>, Arc<Index>), String> {
    let author = Author::new("test", "routing fixture");
    let (vault, _) = Vault::init(dir, &author).map_err(|e| e.to_string())?;
    for (path, text) in knower_testkit::files::texts(fixture) {
        vault
            .write(&path, &text, &author)
            .map_err(|e| e.to_string())?;
    }
    let vault = Arc::new(vault);
    let index = Index::open(vault.clone()).map_err(|e| e.to_string())?;
    index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
    Ok((vault, index))
}
