//! Issue 3's speed targets, on a generated vault of 10,000 notes of ~300
//! words: BM25 full index < 10 s; fast query p50 < 5 ms; deep < 50 ms
//! (query embedding included); a changed file searchable < 100 ms after the
//! write; RSS < 500 MB with the model loaded; embedding throughput.

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_index::chunk::chunk_note;
use knower_index::embed::{self, Embedder};
use knower_index::{Index, Mode, SearchConfig, SearchOptions};
use knower_vault::{Author, Vault};

use crate::{Rng, ms, quantile};

/// A vocabulary of made-up words with a Zipf-like frequency, so posting
/// lists have realistic lengths (a few very common words, a long tail).
struct Words(Vec<String>);

impl Words {
    fn new(count: usize) -> Words {
        const SYLLABLES: &[&str] = &[
            "ka", "lo", "mi", "ra", "te", "su", "ven", "dor", "pal", "quin", "bre", "sto", "nix",
            "gal", "ter", "mo", "ash", "fen", "ril", "tow",
        ];
        let mut rng = Rng::new(3);
        let words = (0..count)
            .map(|_| {
                let n = 2 + rng.below(2);
                (0..n)
                    .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
                    .collect()
            })
            .collect();
        Words(words)
    }

    /// Rank drawn log-uniformly: word r is about 1/r as frequent as word 1.
    fn pick(&self, rng: &mut Rng) -> &str {
        let u = rng.below(1_000_000) as f64 / 1_000_000.0;
        let rank = ((self.0.len() as f64).powf(u) as usize).clamp(1, self.0.len());
        &self.0[rank - 1]
    }
}

fn note(words: &Words, rng: &mut Rng, i: usize) -> String {
    let mut text = format!("# Note {i} {}\n\n", words.pick(rng));
    for w in 0..300 {
        if w % 100 == 0 && w > 0 {
            text.push_str(&format!(
                "\n\n## {} {}\n\n",
                words.pick(rng),
                words.pick(rng)
            ));
        }
        text.push_str(words.pick(rng));
        text.push(if w % 20 == 19 { '\n' } else { ' ' });
    }
    text.push('\n');
    text
}

pub(crate) fn run(work: &Path, files: usize, queries: usize, embed: usize) -> Result<(), String> {
    let words = Words::new(20_000);
    let dir = work.join("speed");
    eprintln!("generating {files} notes …");
    let mut rng = Rng::new(42);
    let mut texts = Vec::with_capacity(files);
    for i in 0..files {
        let path = dir.join(format!("projects/p{:02}/note-{i:05}.md", i % 100));
        fs::create_dir_all(path.parent().expect("has a parent")).map_err(|e| e.to_string())?;
        let text = note(&words, &mut rng, i);
        fs::write(&path, &text).map_err(|e| e.to_string())?;
        texts.push(text);
    }
    eprintln!("adopting them into a vault (one-off, see the vault benchmark) …");
    let (vault, _) =
        Vault::init(&dir, &Author::new("bench", "benchmark")).map_err(|e| e.to_string())?;
    let vault = Arc::new(vault);

    // Baseline: reading and chunking every note, no index.
    let started = Instant::now();
    let mut chunks = Vec::new();
    for (path, _) in vault.entries() {
        if path.is_markdown() && SearchConfig::default().indexes(&path) {
            let text = vault.read(path.as_str()).map_err(|e| e.to_string())?;
            let note = chunk_note(&text, "n", SearchConfig::default().budget());
            chunks.extend(note.chunks.iter().map(|c| c.embedding_text(&note.title)));
        }
    }
    let chunking = started.elapsed();

    eprintln!("indexing (BM25) …");
    let started = Instant::now();
    let index = Index::open(vault.clone()).map_err(|e| e.to_string())?;
    let report = index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
    let bm25_full = started.elapsed();
    let n_chunks = chunks.len();

    // Embedding throughput, on a sample: one text at a time (the
    // straightforward pass) against length-sorted batches.
    let model = embed::locate(&index.config().model).map_err(|e| e.to_string())?;
    let embedder = Embedder::load(&model).map_err(|e| e.to_string())?;
    let sample: Vec<&str> = chunks
        .iter()
        .step_by((n_chunks / 256).max(1))
        .map(String::as_str)
        .take(256)
        .collect();
    let tokens: usize = embedder
        .token_counts(&sample)
        .map_err(|e| e.to_string())?
        .iter()
        .sum();
    let short: Vec<String> = (0..128)
        .map(|_| {
            (0..20)
                .map(|_| words.pick(&mut rng))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let short: Vec<&str> = short.iter().map(String::as_str).collect();
    let short_tokens: usize = embedder
        .token_counts(&short)
        .map_err(|e| e.to_string())?
        .iter()
        .sum();
    let time = |f: &mut dyn FnMut() -> Result<(), String>| -> Result<Duration, String> {
        let started = Instant::now();
        f()?;
        Ok(started.elapsed())
    };
    let one_by_one = time(&mut || {
        for t in &sample[..64] {
            embedder.embed(&[t]).map_err(|e| e.to_string())?;
        }
        Ok(())
    })? * 4;
    let batched = time(&mut || {
        embedder
            .embed(&sample)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })?;
    let short_one = time(&mut || {
        for t in &short {
            embedder.embed(&[t]).map_err(|e| e.to_string())?;
        }
        Ok(())
    })?;
    let short_batched = time(&mut || {
        embedder
            .embed(&short)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })?;
    drop(embedder);

    let embedded = embed.min(n_chunks);
    eprintln!("embedding {embedded} of {n_chunks} chunks …");
    let started = Instant::now();
    index
        .embed_some(embedded, &mut |_, _| {})
        .map_err(|e| e.to_string())?;
    let embed_full = started.elapsed();

    // Exact vector search over every chunk of the vault: the same dot
    // products and sort as deep mode, on unit vectors, for all n_chunks.
    let dims = 384;
    let mut table = Vec::with_capacity(n_chunks * dims);
    for _ in 0..n_chunks * dims {
        table.push(rng.below(2000) as f32 / 1000.0 - 1.0);
    }
    let query: Vec<f32> = table[..dims].to_vec();
    let mut scans = Vec::new();
    for _ in 0..21 {
        let started = Instant::now();
        let mut scores: Vec<(usize, f32)> = table
            .chunks_exact(dims)
            .enumerate()
            .map(|(i, v)| (i, v.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>()))
            .collect();
        scores.sort_by(|a, b| b.1.total_cmp(&a.1));
        std::hint::black_box(&scores);
        scans.push(started.elapsed());
    }
    drop(table);

    // Start-up of a command: open the index (checksums verified) and catch
    // up with an unchanged vault, against opening the vault alone.
    let (mut reopen, mut vault_open) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let started = Instant::now();
        let v = Arc::new(Vault::open(&dir).map_err(|e| e.to_string())?);
        vault_open.push(started.elapsed());
        let i = Index::open(v).map_err(|e| e.to_string())?;
        let r = i.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
        reopen.push(started.elapsed());
        assert_eq!(r.indexed, 0);
    }

    // Queries: 2–4 words, common and rare.
    let query_texts: Vec<String> = (0..queries)
        .map(|_| {
            let n = 2 + rng.below(3);
            (0..n)
                .map(|_| words.pick(&mut rng))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let latencies = |mode: Mode| -> Result<Vec<Duration>, String> {
        let options = SearchOptions {
            mode,
            scope: None,
            limit: 10,
        };
        query_texts
            .iter()
            .map(|q| {
                let started = Instant::now();
                index.search(q, &options).map_err(|e| e.to_string())?;
                Ok(started.elapsed())
            })
            .collect()
    };
    let mut fast = latencies(Mode::Fast)?;
    // A deep search first embeds whatever has no vector yet (Index::prepare),
    // so it is timed only when every chunk has one; otherwise the first
    // query would embed the rest of the vault.
    let mut deep = if embedded == n_chunks {
        latencies(Mode::Deep)?
    } else {
        Vec::new()
    };

    // Freshness: a write, then a search for a word only the new version has.
    let mut fresh = Vec::new();
    let mut writes = Vec::new();
    let author = Author::new("bench", "freshness");
    for i in 0..30 {
        let path = format!("projects/p{:02}/note-{:05}.md", i % 100, i * 7);
        let marker = format!("freshmarker{i}x");
        let text = format!("{}\n{marker}\n", texts[i * 7]);
        let started = Instant::now();
        vault
            .write(&path, &text, &author)
            .map_err(|e| e.to_string())?;
        writes.push(started.elapsed());
        let hits = index
            .search(&marker, &SearchOptions::default())
            .map_err(|e| e.to_string())?
            .hits;
        fresh.push(started.elapsed());
        if hits.first().map(|h| h.path.as_str()) != Some(path.as_str()) {
            return Err(format!("{marker} was not found right after the write"));
        }
    }
    // The same write with no index listening, as the baseline.
    drop(index);
    let mut bare_writes = Vec::new();
    let bare_vault = Vault::open(&dir).map_err(|e| e.to_string())?;
    for i in 0..30 {
        let path = format!("projects/p{:02}/note-{:05}.md", i % 100, i * 7);
        let started = Instant::now();
        bare_vault
            .write(&path, &format!("{}\nagain {i}\n", texts[i * 7]), &author)
            .map_err(|e| e.to_string())?;
        bare_writes.push(started.elapsed());
    }
    let rss = peak_rss_mb();

    let per_s = |n: usize, d: Duration| n as f64 / d.as_secs_f64();
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!("\n### Search speed: {files} notes, {n_chunks} chunks, {queries} queries\n");
    println!("| measure | value | baseline (same run) | target |");
    println!("|---|---|---|---|");
    println!(
        "| BM25 full index | {} ({:.0} chunks/s) | reading + chunking alone {} | < 10 s: {} |",
        ms(bm25_full),
        per_s(n_chunks, bm25_full),
        ms(chunking),
        verdict(bm25_full < Duration::from_secs(10))
    );
    println!(
        "| embeddings: {embedded} of the {n_chunks} chunks | {} ({:.0} chunks/s; the whole vault ≈ {:.0} min) | | report |",
        ms(embed_full),
        per_s(embedded, embed_full),
        n_chunks as f64 / per_s(embedded, embed_full) / 60.0
    );
    println!(
        "| exact vector scan of all {n_chunks} chunks (dot products + sort), median | {} | | part of deep |",
        ms(quantile(&mut scans, 0.5))
    );
    println!(
        "| embedding 256 chunks ({:.0} word pieces each), batched by length | {:.0} chunks/s, {:.0} tokens/s | one at a time: {:.0} chunks/s ({:.1}× slower) | report |",
        tokens as f64 / sample.len() as f64,
        per_s(sample.len(), batched),
        per_s(tokens, batched),
        per_s(sample.len(), one_by_one),
        one_by_one.as_secs_f64() / batched.as_secs_f64()
    );
    let length = tokens as f64 / sample.len() as f64;
    let shape = EncoderShape::of(&model.dir)?;
    let achieved = per_s(tokens, batched) * shape.flops_per_token(length) / 1e9;
    match cpu_peak_gflops() {
        Some((peak, how)) => println!(
            "| embedding compute ({} layers of width {}: {:.1} MFLOP a token at this length) | {achieved:.0} GFLOP/s, {:.0}% of the f32 peak ({peak:.0} GFLOP/s: {how}) | | ≥ 50%: {} |",
            shape.layers,
            shape.width,
            shape.flops_per_token(length) / 1e6,
            100.0 * achieved / peak,
            if achieved >= 0.5 * peak {
                "met"
            } else {
                "MISSED"
            }
        ),
        None => println!(
            "| embedding compute | {achieved:.0} GFLOP/s (the CPU's peak is unknown here) | | report |"
        ),
    }
    println!(
        "| embedding 128 sentences of {:.0} word pieces, batched | {:.0} sentences/s | one at a time: {:.0} sentences/s | ~100/s straightforward |",
        short_tokens as f64 / short.len() as f64,
        per_s(short.len(), short_batched),
        per_s(short.len(), short_one),
    );
    println!(
        "| fast query p50 / p95 | {} / {} | | p50 < 5 ms: {} |",
        ms(quantile(&mut fast, 0.5)),
        ms(quantile(&mut fast, 0.95)),
        verdict(quantile(&mut fast, 0.5) < Duration::from_millis(5))
    );
    if deep.is_empty() {
        println!(
            "| deep query | not timed: {embedded} of {n_chunks} chunks have vectors (`--embed {n_chunks}` times it) | | |"
        );
    } else {
        println!(
            "| deep query p50 / p95 (query embedding included) | {} / {} | fast p50 {} | p50 < 50 ms: {} |",
            ms(quantile(&mut deep, 0.5)),
            ms(quantile(&mut deep, 0.95)),
            ms(quantile(&mut fast, 0.5)),
            verdict(quantile(&mut deep, 0.5) < Duration::from_millis(50))
        );
    }
    println!(
        "| write → found by BM25, p50 / max | {} / {} | the same write without the index {} | < 100 ms: {} |",
        ms(quantile(&mut fresh, 0.5)),
        ms(quantile(&mut fresh, 1.0)),
        ms(quantile(&mut bare_writes, 0.5)),
        verdict(quantile(&mut fresh, 1.0) < Duration::from_millis(100))
    );
    println!(
        "| write with the index listening, p50 | {} | | |",
        ms(quantile(&mut writes, 0.5))
    );
    println!(
        "| start-up: open vault + index, catch up (unchanged), median | {} | vault alone {} | |",
        ms(quantile(&mut reopen, 0.5)),
        ms(quantile(&mut vault_open, 0.5))
    );
    println!(
        "| peak RSS, model loaded | {rss} MB | | < 500 MB: {} |",
        verdict(rss < 500)
    );
    let _ = report;
    Ok(())
}

/// The process's peak resident set (VmHWM), in MB.
fn peak_rss_mb() -> u64 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

/// The sizes of the model's encoder that its work depends on, from its
/// `config.json` (MiniLM-L6: six layers of width 384, feed-forward 1,536;
/// all-mpnet-base-v2: twelve of 768 and 3,072).
struct EncoderShape {
    layers: usize,
    width: usize,
    feed_forward: usize,
}

impl EncoderShape {
    fn of(dir: &std::path::Path) -> Result<EncoderShape, String> {
        let path = dir.join("config.json");
        let config: serde_json::Value = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or_else(|| format!("{}: not a model configuration", path.display()))?;
        let size = |key: &str| {
            config[key]
                .as_u64()
                .map(|n| n as usize)
                .ok_or_else(|| format!("{}: no {key}", path.display()))
        };
        Ok(EncoderShape {
            layers: size("num_hidden_layers")?,
            width: size("hidden_size")?,
            feed_forward: size("intermediate_size")?,
        })
    }

    /// Floating-point operations of one token in a passage of `length`
    /// tokens: the matrix products (Q, K, V, output, two feed-forward) and
    /// the attention scores and mix. Two per multiply-add.
    fn flops_per_token(&self, length: f64) -> f64 {
        let (layers, d, ff) = (
            self.layers as f64,
            self.width as f64,
            self.feed_forward as f64,
        );
        2.0 * layers * (4.0 * d * d + 2.0 * d * ff + 2.0 * length * d)
    }
}

/// The f32 peak of the cores this process may use, from /proc/cpuinfo:
/// cores × clock × lanes (8 with AVX2, 16 with AVX-512) × 2 for a fused
/// multiply-add × 2 FMA units. An upper bound no real pass reaches.
fn cpu_peak_gflops() -> Option<(f64, String)> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let flags: Vec<&str> = info
        .lines()
        .find(|l| l.starts_with("flags"))?
        .split_whitespace()
        .collect();
    let mhz = info
        .lines()
        .filter(|l| l.starts_with("cpu MHz"))
        .filter_map(|l| l.split(':').nth(1)?.trim().parse::<f64>().ok())
        .fold(0.0, f64::max);
    if mhz <= 0.0 {
        return None;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let (lanes, isa) = if flags.contains(&"avx512f") {
        (16.0, "AVX-512")
    } else if flags.contains(&"avx2") {
        (8.0, "AVX2")
    } else {
        (4.0, "SSE")
    };
    let fma = if flags.contains(&"fma") { 2.0 } else { 1.0 };
    let per_cycle = lanes * fma * 2.0;
    Some((
        cores * mhz / 1000.0 * per_cycle,
        format!(
            "{cores} cores × {:.2} GHz × {per_cycle} ({isa}{})",
            mhz / 1000.0,
            if fma > 1.0 { ", FMA" } else { "" }
        ),
    ))
}
