//! `knower mcp` driven by the MCP Inspector's CLI (npm
//! `@modelcontextprotocol/inspector`, the reference TypeScript SDK's
//! client): the tools are listed, a graph call and a resource read work,
//! and a path outside the vault is a tool error.
//!
//! `.ci/run` installs the Inspector into `target/mcp-inspector/`; set
//! `KNOWER_MCP_INSPECTOR` to use another copy, or `KNOWER_SKIP_INSPECTOR=1`
//! to skip these tests where Node.js cannot be had.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn inspector() -> Option<PathBuf> {
    let found = std::env::var_os("KNOWER_MCP_INSPECTOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/mcp-inspector/node_modules/.bin/mcp-inspector")
        });
    if found.is_file() {
        return Some(found);
    }
    if std::env::var_os("KNOWER_SKIP_INSPECTOR").is_some() {
        eprintln!("skipped: no MCP Inspector, and KNOWER_SKIP_INSPECTOR is set");
        return None;
    }
    panic!(
        "the MCP Inspector is not at {}: `npm install --prefix target/mcp-inspector @modelcontextprotocol/inspector@0.15.0` \
         (KNOWER_SKIP_INSPECTOR=1 skips these tests)",
        found.display()
    );
}

/// One Inspector CLI call against `knower mcp` on `vault`; its JSON output.
fn inspect(inspector: &Path, vault: &Path, args: &[&str]) -> Value {
    let out = Command::new(inspector)
        .arg("--cli")
        .arg(env!("CARGO_BIN_EXE_knower"))
        .arg("--vault")
        .arg(vault)
        .arg("mcp")
        .args(args)
        .env_remove("KNOWER_LLM")
        .output()
        .expect("the Inspector runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "inspector {args:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn the_inspector_lists_calls_and_reads() {
    let Some(inspector) = inspector() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let listed = inspect(&inspector, dir.path(), &["--method", "tools/list"]);
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for name in [
        "update",
        "search",
        "write",
        "create_entities",
        "read_graph",
        "open_nodes",
    ] {
        assert!(names.contains(&name), "{name} not in {names:?}");
    }

    let created = inspect(
        &inspector,
        dir.path(),
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "create_entities",
            "--tool-arg",
            r#"entities=[{"name":"Alice","entityType":"person","observations":["likes tea"]}]"#,
        ],
    );
    assert_eq!(created["isError"], false, "{created}");
    assert_eq!(created["structuredContent"]["entities"][0]["name"], "Alice");

    let found = inspect(
        &inspector,
        dir.path(),
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "search_nodes",
            "--tool-arg",
            "query=TEA",
        ],
    );
    assert_eq!(
        found["structuredContent"]["entities"][0]["name"], "Alice",
        "{found}"
    );

    let graph = inspect(
        &inspector,
        dir.path(),
        &["--method", "resources/read", "--uri", "knower://graph"],
    );
    assert!(
        graph["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("likes tea")
    );

    let outside = inspect(
        &inspector,
        dir.path(),
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "read",
            "--tool-arg",
            "path=../../etc/passwd",
        ],
    );
    assert_eq!(outside["isError"], true, "{outside}");
    assert!(
        outside["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("inside the vault")
    );
}
