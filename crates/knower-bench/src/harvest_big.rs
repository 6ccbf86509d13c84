//! `knower-bench harvest --big MB`: the harvest's memory on large inputs.
//! A Claude Code transcript of MB megabytes (a session's records over and
//! over: prompts, answers, shell calls with long outputs, progress records)
//! and a ChatGPT export of the same size (many conversations) are written
//! to a temporary folder; each is harvested (dry run, then `--apply`) by a
//! child process of this benchmark, which reports its peak resident memory
//! (`VmHWM`) and time.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use knower_harvest::{Harvester, Options};
use serde_json::json;

pub fn run(megabytes: usize) -> Result<(), String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let transcript = temp.path().join("0b1d2c3e-big-session.jsonl");
    let export = temp.path().join("conversations.json");
    let started = Instant::now();
    write_transcript(&transcript, megabytes).map_err(|e| e.to_string())?;
    write_export(&export, megabytes).map_err(|e| e.to_string())?;
    eprintln!(
        "wrote the inputs in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!("| input | size | peak RSS, dry run | peak RSS, --apply | --apply time |");
    println!("|---|---|---|---|---|");
    for (label, path) in [
        ("Claude Code transcript", &transcript),
        ("ChatGPT export", &export),
    ] {
        let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
        let dry = child(path, false)?;
        let applied = child(path, true)?;
        println!(
            "| {label} | {} MB | {} MB | {} MB | {:.1} s |",
            size / (1024 * 1024),
            dry.0 / 1024,
            applied.0 / 1024,
            applied.1
        );
    }
    Ok(())
}

/// Runs the harvest of `path` in a child process; its peak RSS (KB) and
/// seconds.
fn child(path: &Path, apply: bool) -> Result<(u64, f64), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut command = std::process::Command::new(exe);
    command.args(["harvest", "--rss-of"]).arg(path);
    if apply {
        command.arg("--apply");
    }
    let out = command.output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "the child failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut parts = text.split_whitespace();
    let rss = parts.next().and_then(|p| p.parse().ok()).ok_or("no RSS")?;
    let secs = parts.next().and_then(|p| p.parse().ok()).ok_or("no time")?;
    Ok((rss, secs))
}

/// In the child: harvest `path` into a temporary vault, print peak RSS (KB)
/// and seconds.
pub fn measure(path: &Path, apply: bool) -> Result<(), String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let vault = crate::harvest::vault(temp.path())?;
    let started = Instant::now();
    let report = Harvester::new(vault, None)
        .run(
            &[path.to_path_buf()],
            Options {
                apply,
                ..Options::default()
            },
            &mut |_, _| {},
        )
        .map_err(|e| e.to_string())?;
    if !report.unreadable.is_empty() {
        return Err(format!("{:?}", report.unreadable));
    }
    let status = std::fs::read_to_string("/proc/self/status").map_err(|e| e.to_string())?;
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .unwrap_or("0");
    println!("{peak} {:.2}", started.elapsed().as_secs_f64());
    Ok(())
}

fn write_transcript(path: &Path, megabytes: usize) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let limit = (megabytes * 1024 * 1024) as u64;
    let mut written = 0u64;
    let output: String = (0..400)
        .map(|i| format!("test geocoder::pool::case_{i} ... ok\n"))
        .collect();
    let mut n = 0usize;
    while written < limit {
        let id = |k: &str| format!("{k}-{n:08}");
        let records = [
            json!({"type": "user", "uuid": id("u"), "sessionId": "big", "cwd": "/home/ana/src/atlas",
                   "timestamp": "2026-10-02T10:00:00.000Z",
                   "message": {"role": "user", "content": format!("Round {n}: the geocoder still times out under load; the pool is set to {} connections. What next?", n % 40)}}),
            json!({"type": "progress", "sessionId": "big", "data": {"type": "hook_progress", "output": "x".repeat(2000)}}),
            json!({"type": "assistant", "uuid": id("a"), "sessionId": "big", "timestamp": "2026-10-02T10:00:05.000Z",
                   "message": {"role": "assistant", "content": [
                       {"type": "text", "text": format!("Round {n}: the staging cluster has {} nodes; raising the pool to 32 connections fixes the timeouts in the load test.", n % 9 + 2)},
                       {"type": "tool_use", "id": id("t"), "name": "Bash", "input": {"command": "cargo test -p geocoder --release"}}]}}),
            json!({"type": "user", "uuid": id("r"), "sessionId": "big", "timestamp": "2026-10-02T10:00:09.000Z",
                   "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id("t"), "content": output, "is_error": false}]}}),
        ];
        for record in records {
            let line = format!("{record}\n");
            out.write_all(line.as_bytes())?;
            written += line.len() as u64;
        }
        n += 1;
    }
    out.flush()
}

fn write_export(path: &Path, megabytes: usize) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let limit = (megabytes * 1024 * 1024) as u64;
    let mut written = 1u64;
    out.write_all(b"[")?;
    let mut n = 0usize;
    while written < limit {
        let mut mapping = serde_json::Map::new();
        let mut parent: Option<String> = None;
        for turn in 0..20 {
            let id = format!("c{n}-m{turn}");
            let role = if turn % 2 == 0 { "user" } else { "assistant" };
            let text = format!(
                "Conversation {n}, turn {turn}: we decided to keep Postgres 16 for the geocoder and the staging cluster has {} nodes. {}",
                turn % 9 + 2,
                "More words about the geocoder and its pool. ".repeat(20)
            );
            mapping.insert(id.clone(), json!({"id": id, "parent": parent, "children": [],
                "message": {"id": id, "author": {"role": role}, "create_time": 1759996800.0,
                            "content": {"content_type": "text", "parts": [text]}, "recipient": "all"}}));
            parent = Some(id);
        }
        let conversation = json!({"title": format!("Geocoder {n}"), "create_time": 1759996800.0,
            "conversation_id": format!("c{n}"), "current_node": parent, "mapping": mapping});
        let text = format!("{}{conversation}", if n == 0 { "" } else { "," });
        out.write_all(text.as_bytes())?;
        written += text.len() as u64;
        n += 1;
    }
    out.write_all(b"]")?;
    out.flush()
}
