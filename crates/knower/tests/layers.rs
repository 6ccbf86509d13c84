//! The architecture's invariants that a machine can check (ARCHITECTURE.md,
//! "Architecture invariants" and "How to add a feature"):
//!
//! - every crate depends only on the layers below it (no upward or
//!   sideways dependency between Knower's crates);
//! - the surfaces (the CLI, the HTTP routes, the MCP tools) are thin: they
//!   reach the agents, the queue and searches only through
//!   `knower_service::Service`.
//!
//! Run alone with `cargo test -p knower --test layers`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each crate's layer; a crate may depend on crates of lower layers only.
/// Features may also use the agents (the search agent's answer, the model
/// tools), which are the first feature every other one builds on.
const LAYERS: &[(&str, u8)] = &[
    ("knower-vault", 0),
    ("knower-llm", 0),
    // What the tests share; it depends on no Knower crate.
    ("knower-testkit", 0),
    ("knower-index", 1),
    ("knower-agents", 2),
    ("knower-graph", 3),
    ("knower-harvest", 3),
    ("knower-chat", 3),
    ("knower-garden", 3),
    ("knower-sync", 3),
    ("knower-service", 4),
    ("knower-mcp", 5),
    ("knower-server", 6),
    ("knower", 7),
    // The benchmarks measure every layer.
    ("knower-bench", 8),
];

/// Features: they sit between the agents and the service, and never use
/// one another.
const FEATURES: &[&str] = &[
    "knower-graph",
    "knower-harvest",
    "knower-chat",
    "knower-garden",
    "knower-sync",
];

/// The surface code, and what it must not name: the service is the way to
/// the agents, the queue, searches, the knowledge graph and the inbox.
/// (The index and the vault are out of reach by type: `Service` hands
/// neither out.)
const SURFACES: &[&str] = &[
    "crates/knower/src",
    "crates/knower-server/src/routes",
    "crates/knower-mcp/src",
];
const ONLY_THROUGH_THE_SERVICE: &[&str] = &[
    "Agents::",
    "Queue::",
    ".ask_within(",
    "index.search(",
    "knower_agents::resume",
    "Client::new(info).submit",
    "Graph::new(",
    "knower_agents::inbox_list",
    "knower_agents::inbox_item",
    "Sync::new(",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn layer(name: &str) -> u8 {
    LAYERS
        .iter()
        .find(|(crate_name, _)| *crate_name == name)
        .unwrap_or_else(|| panic!("{name} has no layer in tests/layers.rs: give it one"))
        .1
}

/// Every crate of the workspace and the Knower crates it depends on
/// (normal dependencies; tests may use anything).
fn dependencies() -> BTreeMap<String, Vec<String>> {
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        let name = parsed["package"]["name"].as_str().unwrap().to_string();
        let deps = parsed
            .get("dependencies")
            .and_then(|d| d.as_table())
            .map(|d| {
                d.keys()
                    .filter(|k| k.starts_with("knower"))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        all.insert(name, deps);
    }
    all
}

#[test]
fn crates_depend_only_on_the_layers_below() {
    let mut wrong = Vec::new();
    for (name, deps) in dependencies() {
        for dep in deps {
            let upward = layer(&dep) >= layer(&name);
            let sideways = FEATURES.contains(&name.as_str()) && FEATURES.contains(&dep.as_str());
            if upward || sideways {
                wrong.push(format!("{name} → {dep}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "dependencies against the layers: {wrong:?}"
    );
}

#[test]
fn surfaces_reach_the_agents_the_queue_and_searches_through_the_service() {
    let mut found = Vec::new();
    for folder in SURFACES {
        for entry in std::fs::read_dir(root().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for banned in ONLY_THROUGH_THE_SERVICE {
                    if code.contains(banned) {
                        found.push(format!("{}:{}: {banned}", path.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "surface code that bypasses the service: {found:#?}"
    );
}

/// The chat log is permanent: the only code that writes it is the vault's
/// append (`Vault::append_record`, which appends in place), and the vault
/// refuses every other operation on it (`knower-vault`'s `APPEND_ONLY`,
/// tested there). Here: no source names the log with a call that could
/// rewrite, move or delete it.
#[test]
fn nothing_but_the_append_touches_the_chat_log() {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let src = entry.unwrap().path().join("src");
        let mut stack = vec![src];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    let names_log = line.contains("chat/log.jsonl")
                        || line.contains("LOG,")
                        || line.contains("(LOG)")
                        || line.contains("::LOG");
                    let changes = [
                        ".write(",
                        ".delete(",
                        ".rename(",
                        ".edit(",
                        "remove_file",
                        "set_len",
                        "truncate",
                        "File::create",
                        ".append(LOG",
                    ]
                    .iter()
                    .any(|call| line.contains(call));
                    if names_log && changes {
                        found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "code that could rewrite the chat log: {found:#?}"
    );
}
