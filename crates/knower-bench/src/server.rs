//! `knower-bench server`: the HTTP server under load (issue 5's targets).
//!
//! - `POST /update` acknowledgement latency at 50 concurrent clients, fsync
//!   included (target p99 < 20 ms), and acknowledgements per second; the
//!   baseline is one bare `fsync` of a small append on the same disk.
//! - `POST /search` (fast mode) latency idle, and under that load.
//! - `/sse` delay after a write: through the API (the vault's listeners)
//!   and from an editor's save (the watcher); target < 200 ms.
//! - `GET /api/tree`, which the web UI reloads after each batch of changes;
//!   the baseline is building the same JSON in process.
//! - Resident memory of the process serving, idle.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_index::Index;
use knower_server::{Server, ServerConfig};
use knower_vault::{Author, Vault};
use serde_json::json;

use crate::option;

pub fn run(args: &[String]) -> Result<(), String> {
    let clients: usize = option(args, "--clients", 50)?;
    let per_client: usize = option(args, "--per-client", 40)?;
    let notes: usize = option(args, "--notes", 300)?;
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let root = temp.path().join("vault");
    let author = Author::new("bench", "fixture");
    let (vault, _) = Vault::init(&root, &author).map_err(|e| e.to_string())?;
    for i in 0..notes {
        let project = ["atlas", "garden", "kitchen", "travel", "music"][i % 5];
        vault
            .write(
                &format!("projects/{project}/note-{i:04}.md"),
                &format!("# Note {i}\n\nAbout {project}: item {i}, tomatoes, tiles and trains.\n"),
                &author,
            )
            .map_err(|e| e.to_string())?;
    }
    let vault = Arc::new(vault);
    let index = Index::open(vault.clone()).map_err(|e| e.to_string())?;
    index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;

    let fsync = fsync_baseline(&root.join(".knower"), 300)?;
    knower_llm::install_tls_provider();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = runtime
        .block_on(Server::start(
            vault.clone(),
            index,
            ServerConfig {
                addr: "127.0.0.1:0".parse().expect("an address"),
                token: None,
            },
        ))
        .map_err(|e| e.to_string())?;
    let address = server.address();
    runtime.spawn(server.run(async {
        let _ = stopped.await;
    }));
    std::thread::sleep(Duration::from_millis(300));
    let rss_idle = rss_kib();

    let client = reqwest::Client::new();
    let base = format!("http://{address}");
    let search_idle = runtime.block_on(searches(&client, &base, 50, None));

    // The load: `clients` tasks, each sending its updates one after another.
    let started = Instant::now();
    let loading = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let (acks, search_loaded) = runtime.block_on(async {
        let search = {
            let (client, base, loading) = (client.clone(), base.clone(), loading.clone());
            tokio::spawn(async move { searches(&client, &base, usize::MAX, Some(loading)).await })
        };
        let mut tasks = tokio::task::JoinSet::new();
        for c in 0..clients {
            let client = client.clone();
            let url = format!("{base}/update");
            tasks.spawn(async move {
                let mut latencies = Vec::with_capacity(per_client);
                for i in 0..per_client {
                    let text = format!("Client {c} update {i}: the garden tomatoes need water");
                    let sent = Instant::now();
                    let response = client
                        .post(&url)
                        .json(&json!({ "text": text }))
                        .send()
                        .await
                        .expect("the server answers");
                    assert_eq!(response.status().as_u16(), 202);
                    latencies.push(sent.elapsed());
                }
                latencies
            });
        }
        let mut all = Vec::new();
        while let Some(latencies) = tasks.join_next().await {
            all.extend(latencies.expect("a client task"));
        }
        loading.store(false, std::sync::atomic::Ordering::Relaxed);
        (all, search.await.expect("the search task"))
    });
    let wall = started.elapsed();
    let total = acks.len();

    // The worker drains the queue (the offline engine files each update).
    let drained = Instant::now();
    runtime.block_on(async {
        loop {
            let health: serde_json::Value = client
                .get(format!("{base}/health"))
                .send()
                .await
                .expect("health")
                .json()
                .await
                .expect("json");
            if health["queue"]["queued"] == 0 && health["queue"]["running"] == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let drain = drained.elapsed();

    // The web UI reloads the whole tree after each batch of changes.
    let (tree_http, tree_bytes) = runtime.block_on(async {
        let mut samples = Vec::new();
        let mut size = 0;
        for _ in 0..31 {
            let sent = Instant::now();
            let body = client
                .get(format!("{base}/api/tree"))
                .send()
                .await
                .expect("the server answers")
                .bytes()
                .await
                .expect("a body");
            samples.push(sent.elapsed());
            size = body.len();
        }
        (samples, size)
    });
    let tree_direct: Vec<Duration> = (0..31)
        .map(|_| {
            let started = Instant::now();
            let tree = vault.tree("", None).expect("the tree");
            let json = serde_json::to_vec(&tree).expect("serialises");
            std::hint::black_box(json);
            started.elapsed()
        })
        .collect();
    let files = vault.stats().map_err(|e| e.to_string())?.files;

    let api_delay = sse_delays(address, 20, |i| {
        vault
            .write(
                &format!("sse/api-{i}.md"),
                "# A note written through Knower\n",
                &author,
            )
            .map(|_| format!("sse/api-{i}.md"))
            .map_err(|e| e.to_string())
    })?;
    let editor_delay = sse_delays(address, 20, |i| {
        let path = format!("sse/editor-{i}.md");
        std::fs::create_dir_all(root.join("sse")).map_err(|e| e.to_string())?;
        std::fs::write(root.join(&path), "# Saved by an editor\n").map_err(|e| e.to_string())?;
        Ok(path)
    })?;
    let _ = stop.send(());

    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0);
    println!("## Server (`cargo run --release -p knower-bench -- server`)\n");
    println!(
        "{notes} notes; {clients} concurrent clients × {per_client} updates = {total} acknowledgements; the offline engine.\n"
    );
    println!("| measure | p50 | p99 | max | ratio to baseline (p50) |");
    println!("|---|---|---|---|---|");
    let row = |name: &str, samples: &[Duration], baseline: Option<Duration>| {
        let (p50, p99, max) = percentiles(samples);
        let ratio = baseline.map_or("—".to_string(), |b| {
            format!("{:.1}×", p50.as_secs_f64() / b.as_secs_f64())
        });
        println!(
            "| {name} | {} | {} | {} | {ratio} |",
            ms(p50),
            ms(p99),
            ms(max)
        );
    };
    let fsync_p50 = percentiles(&fsync).0;
    row(
        "baseline: append + fsync of one line, same disk",
        &fsync,
        None,
    );
    row(
        &format!("`POST /update` acknowledgement, {clients} clients"),
        &acks,
        Some(fsync_p50),
    );
    let search_p50 = percentiles(&search_idle).0;
    row("`POST /search` fast, idle", &search_idle, None);
    row(
        "`POST /search` fast, during the update load",
        &search_loaded,
        Some(search_p50),
    );
    row(
        "`/sse` delay after a write through Knower",
        &api_delay,
        None,
    );
    row(
        "`/sse` delay after an editor's save (watcher)",
        &editor_delay,
        None,
    );
    row(
        "baseline: `Vault::tree` + JSON, in process",
        &tree_direct,
        None,
    );
    row(
        &format!(
            "`GET /api/tree` (the UI's reload), {files} files, {:.0} KB",
            tree_bytes as f64 / 1024.0
        ),
        &tree_http,
        Some(percentiles(&tree_direct).0),
    );
    println!();
    println!(
        "- acknowledgements per second: **{:.0}** ({total} in {:.2} s)",
        total as f64 / wall.as_secs_f64(),
        wall.as_secs_f64()
    );
    println!(
        "- the worker then filed the backlog at {:.0} updates/s ({:.1} s after the load)",
        total as f64 / (wall + drain).as_secs_f64(),
        drain.as_secs_f64()
    );
    println!(
        "- resident memory of the process serving, idle: **{:.1} MiB** (this benchmark process, which hosts the server)",
        rss_idle as f64 / 1024.0
    );
    Ok(())
}

fn percentiles(samples: &[Duration]) -> (Duration, Duration, Duration) {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99), sorted[sorted.len() - 1])
}

/// What one durable append costs on this disk.
fn fsync_baseline(dir: &std::path::Path, count: usize) -> Result<Vec<Duration>, String> {
    let path = dir.join("bench-fsync");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let started = Instant::now();
        writeln!(file, "{{\"op\":\"bench\",\"n\":{i}}}").map_err(|e| e.to_string())?;
        file.sync_data().map_err(|e| e.to_string())?;
        out.push(started.elapsed());
    }
    let _ = std::fs::remove_file(path);
    Ok(out)
}

/// Fast searches, `count` of them or until `until` turns false.
async fn searches(
    client: &reqwest::Client,
    base: &str,
    count: usize,
    until: Option<Arc<std::sync::atomic::AtomicBool>>,
) -> Vec<Duration> {
    let mut out = Vec::new();
    for i in 0..count {
        if until
            .as_ref()
            .is_some_and(|u| !u.load(std::sync::atomic::Ordering::Relaxed))
        {
            break;
        }
        let query = ["where do the tomatoes grow?", "tiles and trains", "item 42"][i % 3];
        let sent = Instant::now();
        let response = client
            .post(format!("{base}/search"))
            .json(&json!({ "query": query }))
            .send()
            .await
            .expect("the server answers");
        assert_eq!(response.status().as_u16(), 200);
        let _ = response.bytes().await;
        out.push(sent.elapsed());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    out
}

/// Delays between a write and its `file_changed` event, `count` times.
fn sse_delays(
    address: SocketAddr,
    count: usize,
    mut write: impl FnMut(usize) -> Result<String, String>,
) -> Result<Vec<Duration>, String> {
    let mut stream = TcpStream::connect(address).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    let mut out = Vec::new();
    for i in 0..count {
        std::thread::sleep(Duration::from_millis(50));
        let started = Instant::now();
        let path = write(i)?;
        let needle = format!("\"path\":\"{path}\"");
        let mut line = String::new();
        loop {
            line.clear();
            reader
                .read_line(&mut line)
                .map_err(|e| format!("no event for {path}: {e}"))?;
            if line.contains(&needle) {
                break;
            }
        }
        out.push(started.elapsed());
    }
    Ok(out)
}

/// This process's resident memory, in KiB (Linux).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
