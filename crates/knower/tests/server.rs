//! The server as separate processes: `start`, `status`, `update` through
//! the server, `stop`; and `kill -9` in the middle of a queue.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod support;
use knower_testkit::files::walk_visible;
use support::{knower_output as knower, serve};

fn ok(vault: &Path, args: &[&str]) -> String {
    support::knower(vault, args, "")
}

/// A loopback address with a free port, for a server started in the
/// background.
fn free_addr() -> String {
    format!("127.0.0.1:{}", knower_testkit::process::free_port())
}

fn runtime() -> tokio::runtime::Runtime {
    knower_llm::install_tls_provider();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn get(url: &str) -> Value {
    runtime().block_on(async { reqwest::get(url).await.unwrap().json().await.unwrap() })
}

#[test]
fn start_status_update_through_the_server_and_stop() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    ok(v, &["init"]);
    let addr = free_addr();
    let out = ok(v, &["start", "--addr", &addr]);
    assert!(out.contains(&format!("http://{addr}")), "{out}");
    let failed = knower(v, &["start", "--addr", &addr]);
    assert!(!failed.status.success(), "a second server on one vault");
    let status: Value = serde_json::from_str(&ok(v, &["--json", "status"])).unwrap();
    assert_eq!(status["server"]["running"], true, "{status}");
    assert_eq!(status["server"]["queue"]["queued"], 0, "{status}");

    // The CLI's update joins the server's queue.
    let update: Value =
        serde_json::from_str(&ok(v, &["--json", "update", "Buy a new watering can"])).unwrap();
    assert_eq!(update["state"], "done", "{update}");
    let id = update["id"].as_str().unwrap();
    let seen = get(&format!("http://{addr}/updates/{id}"));
    assert_eq!(seen["id"], id);
    let listed = ok(v, &["updates"]);
    assert!(listed.contains(id), "{listed}");
    assert!(
        std::fs::read_to_string(v.join("tasks.md"))
            .unwrap()
            .contains("Buy a new watering can")
    );

    // The server's output (its log when started in the background) has one
    // line per update, as a web server logs its requests.
    let log = std::fs::read_to_string(knower_service::log_path(v).unwrap()).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains(id))
        .unwrap_or_else(|| panic!("no line for {id} in {log}"));
    assert!(
        line.contains(" filed: filed “Buy a new watering can”"),
        "{line}"
    );

    let out = ok(v, &["stop"]);
    assert!(out.contains("stopped"), "{out}");
    let status: Value = serde_json::from_str(&ok(v, &["--json", "status"])).unwrap();
    assert_eq!(status["server"]["running"], false, "{status}");
    // Without a server, the queue is still readable.
    let listed = ok(v, &["updates", "show", id]);
    assert!(listed.contains("done"), "{listed}");
    assert_eq!(
        ok(v, &["vault"]).trim(),
        v.canonicalize().unwrap().to_str().unwrap()
    );
}

#[test]
fn kill_9_mid_queue_then_restart_runs_every_acknowledged_update_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    ok(v, &["init"]);
    let mut served = serve(v, "127.0.0.1:0", None);
    let url = served.url.clone();
    let count = 150;
    let runtime = runtime();
    let ids: Vec<String> = runtime.block_on(async {
        let client = reqwest::Client::new();
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..count {
            let client = client.clone();
            let url = format!("{url}/update");
            tasks.spawn(async move {
                let text = format!(
                    "A thought worth keeping for later, about the weather and the sea, marker zq{i:03}x"
                );
                let response = client
                    .post(url)
                    .json(&json!({ "text": text }))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status().as_u16(), 202);
                let body: Value = response.json().await.unwrap();
                body["id"].as_str().unwrap().to_string()
            });
        }
        let mut ids = Vec::new();
        while let Some(id) = tasks.join_next().await {
            ids.push(id.unwrap());
        }
        ids
    });
    // Let the worker get going, then kill it without warning.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let health = get(&format!("{url}/health"));
        let updates = get(&format!("{url}/updates?limit=1000"));
        let done = updates
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| u["state"] == "done")
            .count();
        if done >= 5 {
            assert!(health["queue"]["queued"].as_u64().unwrap() > 0, "{health}");
            break;
        }
        assert!(Instant::now() < deadline, "nothing was processed");
        std::thread::sleep(Duration::from_millis(5));
    }
    served.child.kill().unwrap(); // SIGKILL
    served.child.wait().unwrap();

    let mut served = serve(v, "127.0.0.1:0", None);
    let url = served.url.clone();
    let deadline = Instant::now() + Duration::from_secs(120);
    for id in &ids {
        loop {
            let update = get(&format!("{url}/updates/{id}"));
            if update["state"] == "done" {
                break;
            }
            assert_ne!(update["state"], "failed", "{update}");
            assert!(Instant::now() < deadline, "{id} never finished: {update}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    served.child.kill().unwrap();
    served.child.wait().unwrap();

    // Exactly once: one changelog entry per update, and each text in the
    // vault once (filed, or waiting in the inbox).
    let changelog = std::fs::read_to_string(v.join("changelog.md")).unwrap();
    for id in &ids {
        assert_eq!(changelog.matches(&format!("[{id}]")).count(), 1, "{id}");
    }
    let mut texts = String::new();
    for entry in walk_visible(v) {
        let name = entry.file_name().unwrap().to_str().unwrap();
        if name.ends_with(".md") && !["changelog.md", "tree.md", "review.md"].contains(&name) {
            texts.push_str(&std::fs::read_to_string(&entry).unwrap());
        }
    }
    for i in 0..count {
        let marker = format!("zq{i:03}x");
        assert_eq!(texts.matches(&marker).count(), 1, "{marker}");
    }
}

#[test]
fn visualize_starts_the_server_if_needed_and_opens_the_ui() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("vault");
    let opened = dir.path().join("opened.txt");
    // A browser that notes the address it was asked to open.
    let browser = dir.path().join("browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\necho \"$1\" >> {}\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        &browser,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let addr = free_addr();
    let visualize = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_knower"))
            .arg("--vault")
            .arg(&v)
            .args(["--json", "visualize", "--addr", &addr])
            .env("BROWSER", &browser)
            .env_remove("KNOWER_TOKEN")
            .env_remove("KNOWER_LLM")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let first = visualize();
    assert_eq!(first["started"], true, "{first}");
    assert_eq!(first["opened"], true, "{first}");
    assert!(get(&format!("http://{addr}/health")).is_object());
    let second = visualize();
    assert_eq!(
        second["started"], false,
        "the running server is used: {second}"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let seen = loop {
        let seen = std::fs::read_to_string(&opened).unwrap_or_default();
        if seen.lines().count() >= 2 || std::time::Instant::now() > deadline {
            break seen;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let url = format!("http://{addr}/");
    assert_eq!(
        seen.lines().collect::<Vec<_>>(),
        [url.as_str(), url.as_str()]
    );
    ok(&v, &["stop"]);
}

#[test]
fn a_weak_token_off_loopback_is_refused_before_anything_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("new-vault");
    for command in ["serve", "start"] {
        for weak in ["a", " ", "hunter2hunter2"] {
            let mut knower = support::knower_command(&vault);
            knower
                .env("KNOWER_TOKEN", weak)
                .args([command, "--addr", "0.0.0.0:0"]);
            let out = support::run(knower, "");
            assert!(!out.status.success(), "{command} with {weak:?}");
            let said = String::from_utf8_lossy(&out.stderr);
            assert!(
                said.contains("KNOWER_TOKEN is too weak")
                    && said.contains("at least 128 are needed"),
                "{said}"
            );
            assert!(!vault.exists(), "nothing is made: {command} with {weak:?}");
        }
    }
}
