//! `knower search`, `reindex` and `status` as separate processes on one
//! vault, and the first-use download of the model from a Hugging Face hub
//! (a scripted one on 127.0.0.1 that speaks the hub's protocol).

mod support;
use knower_testkit::files::walk;
use knower_testkit::{cross_encoder, model};
use support::{run as run_with, succeed};

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tempfile::TempDir;

/// `knower` with a controlled environment: no model unless given, and a
/// Hugging Face cache of its own.
fn knower(vault: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_knower"));
    cmd.arg("--vault")
        .arg(vault)
        .env_remove("KNOWER_VAULT")
        .env_remove("KNOWER_MODEL")
        .env_remove("KNOWER_RERANK_MODEL")
        .env_remove("HF_HUB_OFFLINE")
        .env("HF_HOME", home.join("hf"))
        // Nothing listens there: a download attempt fails at once.
        .env("HF_ENDPOINT", "http://127.0.0.1:9");
    cmd
}

fn with_env(mut cmd: Command, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Command {
    cmd.env(key, value);
    cmd
}

fn run(mut cmd: Command, args: &[&str]) -> Output {
    cmd.args(args);
    run_with(cmd, "")
}

fn ok(mut cmd: Command, args: &[&str]) -> String {
    cmd.args(args);
    succeed(cmd, "")
}

/// `knower write PATH` with `text` on standard input.
fn try_write(vault: &Path, home: &Path, path: &str, text: &str) -> Output {
    let mut command = knower(vault, home);
    command.args(["write", path]);
    run_with(command, text)
}

fn write(vault: &Path, home: &Path, path: &str, text: &str) {
    assert!(try_write(vault, home, path, text).status.success());
}

fn setup() -> (TempDir, PathBuf, PathBuf) {
    let dir = TempDir::new().unwrap();
    let vault = dir.path().join("vault");
    let home = dir.path().to_path_buf();
    ok(knower(&vault, &home), &["init"]);
    write(
        &vault,
        &home,
        "projects/alpha/state.md",
        "# Alpha\n\n## Risks\n\nThe parse_config function breaks on v1.2.3.\n",
    );
    write(
        &vault,
        &home,
        "bucket/pets.md",
        "# Pets\n\nThe kitten sleeps on the sofa all afternoon.\n",
    );
    (dir, vault, home)
}

fn hits(out: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn search_finds_what_other_processes_wrote() {
    let (_d, vault, home) = setup();
    let out = ok(knower(&vault, &home), &["--json", "search", "parse_config"]);
    let found = hits(&out);
    assert_eq!(found.len(), 1);
    let hit = found[0].as_object().unwrap();
    let mut keys: Vec<&str> = hit.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "heading",
            "line_end",
            "line_start",
            "path",
            "score",
            "snippet",
            "title"
        ]
    );
    assert_eq!(hit["path"], "projects/alpha/state.md");
    assert_eq!(hit["heading"], "Alpha › Risks");
    let text = std::fs::read_to_string(vault.join("projects/alpha/state.md")).unwrap();
    let line = hit["line_start"].as_u64().unwrap() as usize;
    assert_eq!(text.lines().nth(line - 1), Some("## Risks"));

    // Human output: ranked path:line, heading, marked snippet.
    let human = ok(knower(&vault, &home), &["search", "kitten", "sofa"]);
    assert!(human.starts_with(" 1. bucket/pets.md:"), "{human}");
    assert!(
        human.contains("«kitten»") && human.contains("«sofa»"),
        "{human}"
    );

    // An edit made in an editor while no Knower runs.
    std::fs::write(vault.join("bucket/pets.md"), "# Pets\n\nA parrot now.\n").unwrap();
    let out = ok(knower(&vault, &home), &["--json", "search", "parrot"]);
    assert_eq!(hits(&out)[0]["path"], "bucket/pets.md");
    // --notes counts notes: each once.
    let out = ok(
        knower(&vault, &home),
        &["--json", "search", "parrot", "-n", "5", "--notes"],
    );
    let found = hits(&out);
    let paths: Vec<&str> = found.iter().map(|h| h["path"].as_str().unwrap()).collect();
    let mut unique = paths.clone();
    unique.sort();
    unique.dedup();
    assert!(!paths.is_empty(), "{out}");
    assert_eq!(unique.len(), paths.len(), "{out}");
    let out = ok(knower(&vault, &home), &["--json", "search", "kitten"]);
    assert!(hits(&out).is_empty(), "{out}");
    // Scope.
    let out = ok(
        knower(&vault, &home),
        &["--json", "search", "parse_config", "--scope", "bucket"],
    );
    assert!(hits(&out).is_empty());
    let out = ok(
        knower(&vault, &home),
        &[
            "--json",
            "search",
            "parse_config",
            "--scope",
            "project:alpha",
        ],
    );
    assert_eq!(hits(&out).len(), 1);
    // A scope outside the vault is refused, with a hint.
    let out = run(knower(&vault, &home), &["search", "x", "--scope", "../etc"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("scope is project:NAME"));
}

#[test]
fn a_damaged_index_is_rebuilt_and_status_reports_pending_work() {
    let (_d, vault, home) = setup();
    let status: Value =
        serde_json::from_str(&ok(knower(&vault, &home), &["--json", "status"])).unwrap();
    // The two notes and the starter tasks.md and changelog.md.
    assert_eq!(status["index"]["files"], 4);
    assert!(
        status["index"]["files_pending"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(status["index"]["vectors_pending"].is_null());
    assert!(status["index"]["model_problem"].is_string());

    std::fs::write(vault.join("bucket/new.md"), "# New\n\nunindexed words\n").unwrap();
    let status: Value =
        serde_json::from_str(&ok(knower(&vault, &home), &["--json", "status"])).unwrap();
    // status reports; it does not process.
    assert_eq!(status["pending"].as_array().unwrap().len(), 1);

    let bm25 = vault.join(".knower/index/bm25");
    for entry in std::fs::read_dir(&bm25).unwrap().flatten() {
        if entry.file_name().to_string_lossy().ends_with(".idx") {
            std::fs::write(entry.path(), b"garbage").unwrap();
        }
    }
    let out = run(knower(&vault, &home), &["search", "unindexed"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("rebuilt it from the notes"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("bucket/new.md"));

    let out = ok(knower(&vault, &home), &["reindex"]);
    assert!(out.contains("indexed 5 notes"), "{out}");
}

#[test]
fn without_a_model_deep_falls_back_and_vector_fails() {
    let (_d, vault, home) = setup();
    let out = run(
        knower(&vault, &home),
        &["search", "--mode", "deep", "kitten"],
    );
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("deep search matched words only").count(),
        1,
        "{stderr}"
    );
    // Said on its own line, in a person's words, with the way to add one.
    let note = stderr
        .lines()
        .find(|l| l.starts_with("note: deep search"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(note.contains("no embedding model is installed"), "{note}");
    assert!(note.contains("to add one, set KNOWER_MODEL"), "{note}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("bucket/pets.md"));
    let out = run(
        knower(&vault, &home),
        &["search", "--mode", "vector", "kitten"],
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn deep_search_with_a_configured_model_explains_its_ranking() {
    let (_d, vault, home) = setup();
    let model = model::model_dir();
    let out = ok(
        with_env(knower(&vault, &home), "KNOWER_MODEL", &model),
        &[
            "--json",
            "search",
            "--mode",
            "deep",
            "--explain",
            "young cat napping on a couch",
        ],
    );
    let found = hits(&out);
    assert_eq!(found[0]["path"], "bucket/pets.md");
    let explain = &found[0]["explain"];
    assert_eq!(explain["vector_rank"], 1);
    assert!(explain["fused"].as_f64().unwrap() > 0.0);
    let human = ok(
        with_env(knower(&vault, &home), "KNOWER_MODEL", &model),
        &[
            "search",
            "--mode",
            "deep",
            "--explain",
            "young cat napping on a couch",
        ],
    );
    assert!(human.contains("vector #1"), "{human}");
    let status: Value = serde_json::from_str(&ok(
        with_env(knower(&vault, &home), "KNOWER_MODEL", &model),
        &["--json", "status"],
    ))
    .unwrap();
    assert_eq!(status["index"]["vectors_pending"], 0);
}

/// A scripted Hugging Face hub: `GET /{repo}/resolve/{revision}/{file}`
/// with a `Range` header, answered with `206`, `ETag`, `X-Repo-Commit` and
/// `Content-Range`, as huggingface.co does. Returns the files it served.
fn scripted_hub(model: PathBuf) -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let (served, log) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            reader.read_line(&mut request).unwrap();
            let mut range: Option<(u64, Option<u64>)> = None;
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap() == 0 || header.trim().is_empty() {
                    break;
                }
                if let Some(value) = header.to_lowercase().strip_prefix("range: bytes=") {
                    let (start, end) = value.trim().split_once('-').unwrap();
                    range = Some((start.parse().unwrap(), end.parse().ok()));
                }
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
            // The file's path in the repository: "config.json",
            // "1_Pooling/config.json".
            let file = path
                .split("/resolve/main/")
                .nth(1)
                .unwrap_or("")
                .to_string();
            let mut stream = stream;
            let Ok(bytes) = std::fs::read(model.join(&file)) else {
                let _ = stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
                continue;
            };
            let (range_start, end) = match range {
                Some((start, Some(end))) => (start, end.min(bytes.len() as u64 - 1)),
                Some((start, None)) => (start, bytes.len() as u64 - 1),
                None => (0, bytes.len() as u64 - 1),
            };
            // hf-hub asks for bytes=0-0 first (metadata), then for the rest.
            if range == Some((0, Some(0))) {
                let _ = served.send(path.clone());
            }
            let body = &bytes[range_start as usize..=end as usize];
            let head = format!(
                "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {range_start}-{end}/{}\r\nETag: \"{}-{}\"\r\nX-Repo-Commit: 0123456789abcdef0123456789abcdef01234567\r\nConnection: close\r\n\r\n",
                body.len(),
                bytes.len(),
                file,
                bytes.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body);
        }
    });
    (address, log)
}

#[test]
fn the_model_is_downloaded_from_the_hub_on_first_use() {
    let (_d, vault, home) = setup();
    let (hub, served) = scripted_hub(model::model_dir());
    let out = knower(&vault, &home)
        .env("HF_ENDPOINT", &hub)
        .args([
            "--json",
            "search",
            "--mode",
            "deep",
            "young cat napping on a couch",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        hits(&String::from_utf8(out.stdout).unwrap())[0]["path"],
        "bucket/pets.md"
    );
    let requested: Vec<String> = served.try_iter().collect();
    // The three files it needs, and how the model is pooled.
    for file in [
        "config.json",
        "tokenizer.json",
        "model.safetensors",
        "1_Pooling/config.json",
    ] {
        assert!(
            requested
                .iter()
                .any(|p| p
                    == &format!("/sentence-transformers/all-MiniLM-L6-v2/resolve/main/{file}")),
            "{requested:?}"
        );
    }
    // Afterwards it comes from the cache: the hub is not asked again.
    let out = ok(
        with_env(knower(&vault, &home), "HF_ENDPOINT", &hub),
        &["--json", "search", "--mode", "deep", "kitten"],
    );
    assert_eq!(hits(&out)[0]["path"], "bucket/pets.md");
    assert_eq!(served.try_iter().count(), 0);
    let mut cached = 0;
    for entry in walk(&home.join("hf")) {
        let mut f = std::fs::File::open(&entry).unwrap();
        let mut b = Vec::new();
        f.read_to_end(&mut b).unwrap();
        if entry.ends_with("model.safetensors") {
            assert_eq!(
                b.len() as u64,
                std::fs::metadata(model::model_dir().join("model.safetensors"))
                    .unwrap()
                    .len()
            );
            cached += 1;
        }
    }
    assert_eq!(cached, 1);
}

#[test]
fn a_broken_knower_toml_blocks_search_but_never_a_change() {
    let (_d, vault, home) = setup();
    std::fs::write(vault.join("knower.toml"), "[search]\nexlude = []\n").unwrap();
    let out = try_write(&vault, &home, "bucket/more.md", "# Saffron\n");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("search index not updated"));
    assert!(vault.join("bucket/more.md").exists());

    let out = run(knower(&vault, &home), &["search", "saffron"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("knower.toml"));

    // Fixed: the index catches up with what it missed.
    std::fs::write(vault.join("knower.toml"), "[search]\n").unwrap();
    let out = ok(knower(&vault, &home), &["--json", "search", "saffron"]);
    assert_eq!(hits(&out)[0]["path"], "bucket/more.md");
}

/// A cross-encoder named by `KNOWER_RERANK_MODEL` orders deep search's hits
/// by its probability, and `status` says it is at hand; one that cannot be
/// found is said on stderr, and deep search still answers in fused order.
#[test]
fn deep_search_is_reranked_by_a_configured_cross_encoder() {
    let (_d, vault, home) = setup();
    let model = model::model_dir();
    let query = "young cat napping on a couch";
    let deep = |reranker: &Path| {
        let cmd = with_env(knower(&vault, &home), "KNOWER_MODEL", &model);
        with_env(cmd, "KNOWER_RERANK_MODEL", reranker)
    };
    let reranker = cross_encoder::cross_encoder_dir();
    let out = run(
        deep(&reranker),
        &["--json", "search", "--mode", "deep", query],
    );
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found = hits(&String::from_utf8(out.stdout).unwrap());
    assert!(found.len() >= 2);
    let scores: Vec<f64> = found.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(
        scores.iter().all(|s| *s > 0.0 && *s < 1.0),
        "probabilities: {scores:?}"
    );
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let status = ok(deep(&reranker), &["status"]);
    assert!(status.contains("deep search reranked by"), "{status}");

    let missing = Path::new("/no/such/cross-encoder");
    let out = run(
        deep(missing),
        &["--json", "search", "--mode", "deep", query],
    );
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("deep search is not reranked"), "{said}");
    let kept = hits(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(kept[0]["path"], "bucket/pets.md");
    let status = ok(deep(missing), &["status"]);
    assert!(status.contains("no reranker at hand"), "{status}");
}
