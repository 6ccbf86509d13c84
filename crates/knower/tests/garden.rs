//! `knower garden` as a person runs it, on a temporary vault against a
//! scripted web on 127.0.0.1 (Brave's wire format): the commands, a
//! `kill -9` in the middle of a cycle, and `knower serve`'s schedule.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

mod support;
use support::{knower, knower_command, knower_fails, knower_json};

use knower_testkit::web::{Answer, BRAVE_PATH, Listed, ScriptedWeb, article, tokio_site};
use serde_json::Value;

/// Three topics with more to search and read than one cycle may: each
/// has two queries, and each query lists four pages with one fact each.
fn busy_web() -> ScriptedWeb {
    let web = ScriptedWeb::start();
    for (topic, facts) in [
        (
            "tokio",
            [
                "Tokio 1.40 was released in September 2024 with new runtime metrics.",
                "Tokio 1.41 added a task dump feature for async runtime debugging.",
                "The Tokio runtime scheduler uses work stealing across worker threads.",
                "Tokio 1.42 made the current thread runtime faster for small async tasks.",
            ],
        ),
        (
            "uv",
            [
                "The uv package manager 0.4 added Python project workspaces in August 2024.",
                "The uv package manager resolves Python packages ten times faster than pip.",
                "The uv Python manager can install Python versions without pyenv.",
                "The uv package lock file records every Python package for all platforms.",
            ],
        ),
        (
            "wasm",
            [
                "WebAssembly 2.0 became a W3C candidate recommendation in 2024.",
                "WebAssembly garbage collection shipped in Chrome 119 for managed languages.",
                "The WebAssembly component model defines interfaces with the WIT language.",
                "WebAssembly tail calls shipped in Firefox 121 for functional languages.",
            ],
        ),
    ] {
        let mut listed = Vec::new();
        for (k, fact) in facts.iter().enumerate() {
            let path = format!("/{topic}/{k}");
            web.page(
                &path,
                Answer::html(&article(&format!("{topic} {k}"), &[fact])),
            );
            listed.push(Listed {
                title: format!("{topic} news {k}"),
                url: path,
                snippet: fact.to_string(),
                ..Listed::default()
            });
        }
        web.results(&format!("{topic} release"), listed.clone());
        web.results(&format!("{topic} news"), listed);
    }
    web
}

/// A vault whose `[garden]` searches the scripted web.
fn garden_vault(web: &ScriptedWeb) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    knower(dir.path(), &["init"], "");
    let config = dir.path().join("knower.toml");
    let mut toml = std::fs::read_to_string(&config).unwrap_or_default();
    toml.push_str(&format!(
        "\n[garden]\nbrave_url = \"{}\"\ntimeout_secs = 3\n",
        web.url(BRAVE_PATH)
    ));
    std::fs::write(&config, toml).unwrap();
    dir
}

fn garden(vault: &Path, args: &[&str]) -> String {
    let mut command = knower_command(vault);
    command
        .env("KNOWER_BRAVE_API_KEY", "test-key")
        .arg("garden")
        .args(args);
    support::succeed(command, "")
}

fn garden_json(vault: &Path, args: &[&str]) -> Value {
    let mut command = knower_command(vault);
    command
        .env("KNOWER_BRAVE_API_KEY", "test-key")
        .args(["--json", "garden"])
        .args(args);
    serde_json::from_str(&support::succeed(command, "")).unwrap()
}

fn add_three(vault: &Path) {
    for (key, name, priority) in [
        ("tokio", "tokio", "5"),
        ("uv", "uv package manager", "4"),
        ("wasm", "WebAssembly", "3"),
    ] {
        garden(
            vault,
            &[
                "add",
                name,
                "--priority",
                priority,
                "--query",
                &format!("{key} release"),
                "--query",
                &format!("{key} news"),
            ],
        );
    }
}

/// Every fact id in the topic notes, checked to be unique.
fn fact_ids(vault: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    for entry in std::fs::read_dir(vault.join("garden/topics")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines().filter(|l| l.starts_with("- ")) {
            if let Some(at) = line.find(" `g") {
                ids.push(line[at + 2..at + 11].to_string());
            }
        }
    }
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "a fact written twice: {ids:?}");
    ids
}

#[test]
fn a_person_adds_topics_runs_a_cycle_within_its_bounds_and_reviews() {
    let web = busy_web();
    let dir = garden_vault(&web);
    let v = dir.path();
    add_three(v);
    let refused = knower_fails(v, &["garden", "add", "tokio"]);
    assert!(refused.contains("already exists"), "{refused}");
    let refused = knower_fails(v, &["garden", "add", "x", "--feed", "ftp://example.com/f"]);
    assert!(refused.contains("not an http(s) URL"), "{refused}");

    let list = garden(v, &["list"]);
    assert!(list.contains("tokio  priority 5  never tended"), "{list}");
    assert!(list.contains("search: Brave Search"), "{list}");

    // A dry run says what it would do and asks the web nothing.
    let plan = garden(v, &["run", "--dry-run"]);
    assert!(plan.contains("would search \"tokio release\""), "{plan}");
    assert!(
        plan.contains("bounds: 5 searches, 3 fetches, 10 new candidates"),
        "{plan}"
    );
    assert_eq!(web.requests().len(), 0, "a dry run is offline");

    let cycle = garden_json(v, &["run"]);
    assert!(web.searches() <= 5, "{} searches", web.searches());
    assert!(web.fetches() <= 3, "{} fetches", web.fetches());
    assert!(web.fetches() >= 1);
    let added: usize = cycle["tended"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["added"].as_array().unwrap().len())
        .sum();
    assert!((1..=10).contains(&added), "{cycle}");
    assert_eq!(fact_ids(v).len(), added);

    // Review, numbered; approve and reject by number.
    let review = garden(v, &["review"]);
    assert!(review.contains("  1. "), "{review}");
    assert!(review.contains("confidence"), "{review}");
    let numbered = garden_json(v, &["review"]);
    let first = numbered["items"][0]["fact"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let second = numbered["items"][1]["fact"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let approved = garden(v, &["approve", "1"]);
    assert!(
        approved.contains(&format!("approved {first}")),
        "{approved}"
    );
    // The numbers are those the person last saw, not renumbered under them.
    let rejected = garden(v, &["reject", "2", "--reason", "outdated blog"]);
    assert!(
        rejected.contains(&format!("rejected {second}")),
        "{rejected}"
    );
    let refused = knower_fails(v, &["garden", "approve", "99"]);
    assert!(refused.contains("nothing waits as number 99"), "{refused}");

    let stats = garden_json(v, &["stats"]);
    assert_eq!(stats["accuracy"]["approved"], 1, "{stats}");
    assert_eq!(stats["accuracy"]["rejected"], 1, "{stats}");
    assert_eq!(stats["efficiency"]["cycles"], 1, "{stats}");
    let text = garden(v, &["stats"]);
    for metric in [
        "coverage",
        "freshness",
        "accuracy",
        "efficiency",
        "engagement",
    ] {
        assert!(text.contains(metric), "{text}");
    }
    // Every file the seed names, in the vault.
    for path in [
        "garden/inbox/approvals.json",
        "garden/inbox/rejections.json",
        "garden/outbox/digest.md",
        "garden/logs/activity.md",
    ] {
        assert!(v.join(path).is_file(), "{path}");
    }
    // Journaled like every note: the rejection is one undoable change.
    let log = knower_json(v, &["log"], "");
    assert!(
        log.to_string().contains("gardener"),
        "the gardener's changes are in the journal"
    );
}

#[test]
fn a_cycle_killed_mid_fetch_resumes_without_passing_its_bounds() {
    let web = busy_web();
    // Every page is slow: the kill lands while one is being read.
    for topic in ["tokio", "uv", "wasm"] {
        for k in 0..4 {
            let path = format!("/{topic}/{k}");
            web.page(
                &path,
                Answer::html(&article(
                    &format!("{topic} {k}"),
                    &[&format!(
                        "The {topic} project {k} shipped its release with runtime fixes in 2026."
                    )],
                ))
                .after(Duration::from_millis(1500)),
            );
        }
    }
    let dir = garden_vault(&web);
    let v = dir.path();
    add_three(v);
    let mut command = knower_command(v);
    let mut child = command
        .env("KNOWER_BRAVE_API_KEY", "test-key")
        .args(["garden", "run"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while web.fetches() < 2 {
        assert!(Instant::now() < deadline, "the cycle never fetched twice");
        assert!(child.try_wait().unwrap().is_none(), "the cycle ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGKILL in the middle of the second page: no chance to clean up.
    child.kill().unwrap();
    child.wait().unwrap();
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(v.join(".knower/garden/state.json")).unwrap(),
    )
    .unwrap();
    assert!(
        state["current"].is_object(),
        "the kill left a cycle under way: {state}"
    );
    let listing = garden(v, &["list"]);
    assert!(listing.contains("was interrupted"), "{listing}");
    let (searches, fetches) = (web.searches(), web.fetches());
    let cycle = garden_json(v, &["run"]);
    assert_eq!(
        cycle["id"], state["current"]["id"],
        "the same cycle resumes: {cycle}"
    );
    assert!(
        web.fetches() - fetches <= 3 - fetches.min(3),
        "the resumed cycle spent only what was left"
    );
    assert!(web.searches() >= searches);
    // One cycle's bounds hold across the kills.
    assert!(web.searches() <= 5, "{} searches", web.searches());
    assert!(web.fetches() <= 3, "{} fetches", web.fetches());
    let ids = fact_ids(v);
    assert!(ids.len() <= 10, "{ids:?}");
    // The next run is a new cycle, and cooling keeps the tended topics
    // from being searched again at once.
    let searches = web.searches();
    garden(v, &["run"]);
    let tended_again = web.searches() - searches;
    assert!(tended_again <= 5);
    fact_ids(v);
}

#[test]
fn serve_runs_the_cycle_when_due_and_a_restart_does_not_repeat_it() {
    let web = ScriptedWeb::start();
    tokio_site(&web);
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    knower(v, &["init"], "");
    std::fs::write(
        v.join("knower.toml"),
        format!(
            "[garden]\nallow_private_hosts = [\"{}\"]\n",
            web.base_url().trim_start_matches("http://")
        ),
    )
    .unwrap();
    knower(
        v,
        &["garden", "add", "Tokio", "--feed", &web.url("/feed.xml")],
        "",
    );
    let start = || {
        let mut command = knower_command(v);
        command
            .env("KNOWER_GARDEN_TICK_MS", "100")
            .args(["--json", "serve", "--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let started: Value = serde_json::from_str(&line).unwrap();
        let url = started["url"]
            .as_str()
            .unwrap()
            .trim_end_matches('/')
            .to_string();
        (child, url)
    };
    let (mut first, url) = start();
    // Listen for the cycle's events.
    let address = url.trim_start_matches("http://").to_string();
    let mut stream = TcpStream::connect(&address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        stream,
        "GET /sse HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    let mut events = BufReader::new(stream);
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = String::new();
    while !seen.contains("event: garden_cycle") {
        assert!(Instant::now() < deadline, "no cycle announced: {seen}");
        let mut line = String::new();
        if events.read_line(&mut line).unwrap_or(0) == 0 {
            // The cycle may have run before we listened: the state says.
            break;
        }
        seen.push_str(&line);
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while web.count("/feed.xml") == 0 {
        assert!(Instant::now() < deadline, "the schedule never ran");
        std::thread::sleep(Duration::from_millis(50));
    }
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(v.join(".knower/garden/state.json")).unwrap(),
    )
    .unwrap();
    assert!(state["next_wake"].is_string(), "{state}");
    first.kill().unwrap();
    first.wait().unwrap();

    // A restart within the day: the next wake is on disk, nothing repeats.
    let (mut second, _) = start();
    std::thread::sleep(Duration::from_millis(800));
    second.kill().unwrap();
    second.wait().unwrap();
    assert_eq!(web.count("/feed.xml"), 1, "a restart repeated the cycle");
    let listed = garden(v, &["list"]);
    assert!(listed.contains("next scheduled cycle"), "{listed}");
}
