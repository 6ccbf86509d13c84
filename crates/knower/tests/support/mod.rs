//! What the process-level tests share: running `knower` on a vault, and
//! `knower serve` on a port.
#![allow(dead_code)] // each test file uses its own part

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

pub use knower_testkit::process::{run, succeed};
use serde_json::Value;

/// `knower --vault VAULT`, untouched by the caller's environment.
pub fn knower_command(vault: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_knower"));
    command
        .arg("--vault")
        .arg(vault)
        .env_remove("KNOWER_VAULT")
        .env_remove("KNOWER_LLM")
        .env_remove("KNOWER_TOKEN")
        .env_remove("KNOWER_ADDR")
        .env_remove("BRAVE_API_KEY")
        .env_remove("KNOWER_BRAVE_API_KEY")
        .env_remove("KNOWER_SEARXNG_URL");
    command
}

/// `git ARGS` in `dir`, which must succeed; its output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `knower` with `stdin`; its output, which must be a success.
pub fn knower(vault: &Path, args: &[&str], stdin: &str) -> String {
    let mut command = knower_command(vault);
    command.args(args);
    succeed(command, stdin)
}

/// `knower --json ARGS`, parsed.
pub fn knower_json(vault: &Path, args: &[&str], stdin: &str) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&knower(vault, &all, stdin)).unwrap()
}

/// `knower ARGS` whatever its outcome.
pub fn knower_output(vault: &Path, args: &[&str]) -> Output {
    let mut command = knower_command(vault);
    command.args(args);
    run(command, "")
}

/// `knower ARGS`, which must fail with exit code 1; its standard error.
pub fn knower_fails(vault: &Path, args: &[&str]) -> String {
    let out = knower_output(vault, args);
    assert_eq!(out.status.code(), Some(1), "knower {args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

/// A vault with two projects the offline engine can tell apart.
pub fn two_projects() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    knower(v, &["init"], "");
    for (path, text) in [
        (
            "projects/atlas/description.md",
            "# Atlas\n\nThe mapping service: tiles and the geocoding API on Postgres.\n",
        ),
        (
            "projects/garden/description.md",
            "# Garden\n\nTomatoes, beans, compost and the watering schedule.\n",
        ),
    ] {
        knower(v, &["write", path], text);
    }
    dir
}

/// `knower serve` in the foreground; killed when dropped.
pub struct Served {
    pub child: Child,
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn serve(vault: &Path, addr: &str, token: Option<&str>) -> Served {
    let mut command = knower_command(vault);
    command.args(["--json", "serve", "--addr", addr]);
    if let Some(token) = token {
        command.env("KNOWER_TOKEN", token);
    }
    serve_command(command)
}

/// `knower … serve` as `command` has it, once it listens.
pub fn serve_command(mut command: Command) -> Served {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let started: Value = serde_json::from_str(&line).expect("serve prints its URL");
    Served {
        url: started["url"]
            .as_str()
            .unwrap()
            .trim_end_matches('/')
            .to_string(),
        child,
    }
}
