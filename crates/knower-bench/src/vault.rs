//! Issue 2's targets, on a generated vault of 10,000 notes: one write
//! through the pipeline (write + frontmatter + tree.md) p50 < 5 ms, and the
//! start-up rescan of an unchanged vault < 1 s; issue 15's: adopting the
//! folder in < 10 s, beside what one fsync costs on this disk.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use knower_vault::{Author, Vault};

use crate::{Rng, ms, option, quantile};

const WORDS: &[&str] = &[
    "project",
    "launch",
    "budget",
    "meeting",
    "design",
    "review",
    "customer",
    "deadline",
    "research",
    "draft",
    "release",
    "decision",
    "team",
    "roadmap",
    "feature",
    "question",
    "invoice",
    "travel",
    "garden",
    "reading",
    "kubernetes",
    "postgres",
    "2026-03-14",
    "v2.1.0",
    "retro",
    "hiring",
    "notes",
    "idea",
    "risk",
    "plan",
];

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let files: usize = option(args, "--files", 10_000)?;
    let writes: usize = option(args, "--writes", 300)?;
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let dir = option(args, "--dir", temp.path().to_path_buf())?.join("bench-vault");
    if dir.exists() {
        return Err(format!("{} already exists", dir.display()));
    }

    eprintln!("generating {files} notes in {} …", dir.display());
    let paths = generate(&dir, files)?;
    // The notes of a folder being adopted are on disk already, not waiting
    // in the page cache for the adoption's syncs to write them.
    let _ = std::process::Command::new("sync").status();
    let author = Author::new("bench", "benchmark");

    let started = Instant::now();
    let (vault, report) = Vault::init(&dir, &author).map_err(|e| e.to_string())?;
    let adoption = started.elapsed();
    eprintln!("adopted {} paths in {}", report.adopted, ms(adoption));

    // Writes: the same bytes through the pipeline and through a bare atomic
    // write (temp file, fsync, rename, fsync of the folder), interleaved so
    // both see the same machine conditions.
    let mut rng = Rng::new(7);
    let (mut pipeline, mut raw) = (Vec::with_capacity(writes), Vec::with_capacity(writes));
    // Beside the vault (same file system), not in it: these are not notes.
    let scratch = dir.with_file_name("raw-baseline");
    fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    for i in 0..writes {
        let path = &paths[rng.below(paths.len())];
        let content = note(&mut rng, i);
        let started = Instant::now();
        vault
            .write(path, &content, &author)
            .map_err(|e| e.to_string())?;
        pipeline.push(started.elapsed());

        let target = scratch.join(format!("{}.md", i % 50));
        let started = Instant::now();
        raw_atomic_write(&target, content.as_bytes()).map_err(|e| e.to_string())?;
        raw.push(started.elapsed());
    }
    drop(vault);

    // Start-up: open + rescan of the unchanged vault, against a bare walk
    // that only stats every file.
    let (mut startup, mut walk) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        let started = Instant::now();
        let vault = Vault::open(&dir).map_err(|e| e.to_string())?;
        let report = vault.rescan().map_err(|e| e.to_string())?;
        startup.push(started.elapsed());
        assert!(report.change.is_none(), "the vault was unchanged");

        let started = Instant::now();
        let count = bare_walk(&dir);
        walk.push(started.elapsed());
        assert!(count >= files);
    }

    let (p50, p95, raw50) = (
        quantile(&mut pipeline, 0.5),
        quantile(&mut pipeline, 0.95),
        quantile(&mut raw, 0.5),
    );
    let (start50, walk50) = (quantile(&mut startup, 0.5), quantile(&mut walk, 0.5));
    let ratio = |a: Duration, b: Duration| format!("{:.1}×", a.as_secs_f64() / b.as_secs_f64());
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!(
        "| measure ({files} notes, {writes} writes, medians of 7 start-ups) | value | baseline (same run) | ratio | target |"
    );
    println!("|---|---|---|---|---|");
    println!(
        "| write through the pipeline, p50 | {} | bare atomic write {} | {} | < 5 ms: {} |",
        ms(p50),
        ms(raw50),
        ratio(p50, raw50),
        verdict(p50 < Duration::from_millis(5))
    );
    println!("| write through the pipeline, p95 | {} | | | |", ms(p95));
    println!(
        "| start-up (open + rescan), unchanged vault | {} | walk + stat only {} | {} | < 1 s: {} |",
        ms(start50),
        ms(walk50),
        ratio(start50, walk50),
        verdict(start50 < Duration::from_secs(1))
    );
    let fsync = fsync_cost(&scratch).map_err(|e| e.to_string())?;
    println!(
        "| first adoption of the folder (init) | {} | one fsync {} (≈ {} if each note cost 6) | {} | < 10 s: {} |",
        ms(adoption),
        ms(fsync),
        ms(fsync * 6 * files as u32),
        ratio(adoption, fsync * 6 * files as u32),
        verdict(adoption < Duration::from_secs(10))
    );
    Ok(())
}

/// Writes `count` plain notes (no frontmatter yet) in 100 project folders.
pub(crate) fn generate(dir: &Path, count: usize) -> Result<Vec<String>, String> {
    let mut rng = Rng::new(42);
    let mut paths = Vec::with_capacity(count);
    for i in 0..count {
        let path = format!("projects/p{:02}/note-{i:05}.md", i % 100);
        let file = dir.join(&path);
        fs::create_dir_all(file.parent().expect("has a parent")).map_err(|e| e.to_string())?;
        fs::write(&file, note(&mut rng, i)).map_err(|e| e.to_string())?;
        paths.push(path);
    }
    Ok(paths)
}

/// About 300 words under a title, in short paragraphs.
pub(crate) fn note(rng: &mut Rng, i: usize) -> String {
    let mut text = format!("# Note {i}\n\n");
    for w in 0..300 {
        text.push_str(WORDS[rng.below(WORDS.len())]);
        text.push(if w % 40 == 39 { '\n' } else { ' ' });
        if w % 120 == 119 {
            text.push('\n');
        }
    }
    text.push('\n');
    text
}

/// The median time of a 4 KiB write and its fsync on this disk, so the
/// adoption's figure can be read on any disk.
fn fsync_cost(dir: &Path) -> std::io::Result<Duration> {
    let mut times = Vec::new();
    let mut file = fs::File::create(dir.join("fsync-probe"))?;
    for _ in 0..50 {
        let started = Instant::now();
        file.write_all(&[b'x'; 4096])?;
        file.sync_all()?;
        times.push(started.elapsed());
    }
    Ok(quantile(&mut times, 0.5))
}

fn raw_atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().expect("has a parent");
    let temp = dir.join(".raw-temp");
    let mut file = fs::File::create(&temp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    fs::rename(&temp, path)?;
    fs::File::open(dir)?.sync_all()
}

fn bare_walk(dir: &Path) -> usize {
    let mut stack = vec![dir.to_path_buf()];
    let mut files = 0;
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).into_iter().flatten().flatten() {
            let Ok(meta) = fs::symlink_metadata(entry.path()) else {
                continue;
            };
            if meta.is_dir() && !entry.file_name().to_string_lossy().starts_with('.') {
                stack.push(entry.path());
            } else if meta.is_file() {
                files += 1;
            }
        }
    }
    files
}
