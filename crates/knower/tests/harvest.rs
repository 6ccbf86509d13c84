//! `knower harvest` as a process: the dry run changes nothing (hashes of the
//! vault and of the sources before and after), and a harvest killed with
//! SIGKILL half-way finishes at the next run with no item twice and a
//! ledger that matches the files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod support;
use support::{knower, knower_command, knower_json};

fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".knower") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// `n` conversations, each with a fact of its own and one they all share.
fn conversations(dir: &Path, n: usize) -> PathBuf {
    let sources = dir.join("sources");
    std::fs::create_dir_all(&sources).unwrap();
    for i in 0..n {
        std::fs::write(
            sources.join(format!("meeting-{i:03}.md")),
            format!(
                "Ana: Server {i} in Frankfurt runs Postgres 16 since March 2024.\n\
                 Ben: The shared cluster Atlas has 3 nodes in Frankfurt since May 2025.\n\
                 Ana: Remember to rotate the keys of server {i}.\n\
                 Ben: ok\n"
            ),
        )
        .unwrap();
    }
    sources
}

#[test]
fn a_dry_run_changes_neither_the_vault_nor_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    knower(&vault, &["init"], "");
    let sources = conversations(dir.path(), 3);
    let before = (files(&vault), files(&sources));
    let report = knower_json(&vault, &["harvest", sources.to_str().unwrap()], "");
    assert_eq!(report["applied"], false);
    assert_eq!(report["tally"]["to_harvest"], 3);
    let text = knower(&vault, &["harvest", sources.to_str().unwrap()], "");
    assert!(text.contains("dry run; pass --apply"), "{text}");
    assert_eq!((files(&vault), files(&sources)), before);

    // An unknown file named by the user is an error naming it.
    let odd = dir.path().join("notes.pdf");
    std::fs::write(&odd, b"%PDF-1.7").unwrap();
    let out = knower_command(&vault)
        .args(["harvest", odd.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("notes.pdf"));
}

#[test]
fn a_harvest_killed_half_way_finishes_at_the_next_run_with_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    knower(&vault, &["init"], "");
    let n = 120;
    let sources = conversations(dir.path(), n);
    let mut child = knower_command(&vault)
        .args(["harvest", "--apply", sources.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ledger = vault.join("knowledge/ledger.json");
    let started = Instant::now();
    loop {
        let entries = std::fs::read_to_string(&ledger)
            .map(|t| t.matches("\"status\"").count())
            .unwrap_or(0);
        if entries >= 10 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the harvest did not start"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the harvest ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done_before = std::fs::read_to_string(&ledger)
        .unwrap()
        .matches("\"status\"")
        .count();
    assert!(done_before < n, "killed half-way: {done_before} of {n}");

    let report = knower_json(
        &vault,
        &["harvest", "--apply", sources.to_str().unwrap()],
        "",
    );
    assert_eq!(
        report["tally"]["already_harvested"].as_u64().unwrap()
            + report["harvested"].as_u64().unwrap(),
        n as u64,
        "{report}"
    );
    let facts = std::fs::read_to_string(vault.join("knowledge/facts.md")).unwrap();
    assert_eq!(
        facts
            .matches("The shared cluster Atlas has 3 nodes")
            .count(),
        1,
        "the shared fact once"
    );
    for i in 0..n {
        assert_eq!(
            facts
                .matches(&format!("Server {i} in Frankfurt runs"))
                .count(),
            1,
            "server {i}'s fact once"
        );
    }
    let tasks = std::fs::read_to_string(vault.join("knowledge/tasks.md")).unwrap();
    assert_eq!(
        tasks
            .matches("Remember to rotate the keys of server 7.")
            .count(),
        1
    );
    let ledger: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&ledger).unwrap()).unwrap();
    let entries = ledger["entries"].as_object().unwrap();
    assert_eq!(entries.len(), n);
    assert!(entries.values().all(|e| e["status"] == "harvested"));
    // The journal explains every change, the killed one included.
    let log = knower_json(&vault, &["log", "-n", "1000"], "");
    assert!(
        log.as_array()
            .unwrap()
            .iter()
            .all(|r| r["actor"] != "external"),
        "{log}"
    );
}

#[test]
fn the_chat_log_is_a_source_to_read_never_to_reclaim() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    knower(&vault, &["init"], "");
    knower(
        &vault,
        &[
            "chat",
            "We decided to keep weekly rotations for the on-call in 2027.",
        ],
        "",
    );
    // No path: the vault's chat log is among the usual places (HOME has no
    // ~/.claude here).
    let mut command = knower_command(&vault);
    command
        .env("HOME", dir.path())
        .args(["--json", "harvest", "--apply", "--reclaim"]);
    let report: serde_json::Value = serde_json::from_str(&support::succeed(command, "")).unwrap();
    assert_eq!(report["harvested"], 1, "{report}");
    assert!(report["reclaimed"].as_array().unwrap().is_empty());
    assert!(
        vault.join("chat/log.jsonl").exists(),
        "the chat log is permanent"
    );
    let decisions = std::fs::read_to_string(vault.join("knowledge/decisions.md")).unwrap();
    assert!(
        decisions.contains("We decided to keep weekly rotations"),
        "{decisions}"
    );
}

#[test]
fn with_no_path_codex_and_gemini_sessions_are_read_where_they_live() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    knower(&vault, &["init"], "");
    let formats =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../knower-harvest/tests/formats");
    let home = dir.path().join("home");
    let codex = home.join(".codex/sessions/2026/03/02");
    let chats = home.join(".gemini/tmp/4f1c0e9a/chats");
    std::fs::create_dir_all(&codex).unwrap();
    std::fs::create_dir_all(&chats).unwrap();
    for (from, to) in [
        (
            "codex/rollout-2026-03-02T09-14-05-019c4e2a-7b1d-7c40-9a55-3f0e8d2b6a11.jsonl",
            codex.join("rollout-2026-03-02T09-14-05-019c4e2a-7b1d-7c40-9a55-3f0e8d2b6a11.jsonl"),
        ),
        (
            "gemini/session-2026-04-28T01-00-9c90babd.json",
            chats.join("session-2026-04-28T01-00-9c90babd.json"),
        ),
    ] {
        std::fs::copy(formats.join(from), to).unwrap();
    }
    // Gemini CLI keeps other files beside its chats: they are not read.
    std::fs::write(
        home.join(".gemini/tmp/4f1c0e9a/logs.json"),
        "[{\"sessionId\": \"x\"}]",
    )
    .unwrap();
    let mut command = knower_command(&vault);
    command.env("HOME", &home).args(["--json", "harvest"]);
    let report: serde_json::Value = serde_json::from_str(&support::succeed(command, "")).unwrap();
    let formats: Vec<&str> = report["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["codex", "gemini"], "{report}");
    assert!(
        report["unreadable"].as_array().unwrap().is_empty(),
        "{report}"
    );
}
