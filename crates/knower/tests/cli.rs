//! The real `knower` binary on temporary vaults.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

mod support;
use support::{knower_command as knower, knower_fails as fails, knower_json as json, run};

fn ok(vault: &Path, args: &[&str], stdin: &str) -> String {
    support::knower(vault, args, stdin)
}

fn new_vault() -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new().unwrap();
    let vault = dir.path().join("vault");
    ok(&vault, &["init"], "");
    (dir, vault)
}

fn body(text: &str) -> String {
    text.split_once("\n---\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}

#[test]
fn a_tour_of_the_commands() {
    let (_dir, vault) = new_vault();
    let created = json(
        &vault,
        &["write", "projects/acme/state.md", "-m", "first note"],
        "Launch in March.\n",
    );
    assert_eq!(created["actor"], "cli");
    assert_eq!(created["reason"], "first note");
    assert_eq!(created["files"][1]["path"], "projects/acme/state.md");

    let read = json(&vault, &["read", "projects/acme/state.md"], "");
    assert_eq!(read["frontmatter"]["tokens"], 5);
    assert!(
        read["content"]
            .as_str()
            .unwrap()
            .ends_with("---\nLaunch in March.\n")
    );

    ok(
        &vault,
        &[
            "edit",
            "projects/acme/state.md",
            "--old",
            "March",
            "--new",
            "April",
        ],
        "",
    );
    ok(
        &vault,
        &["append", "changelog.md", "--top"],
        "- today: launch moved to April\n",
    );
    assert!(
        body(&ok(&vault, &["read", "changelog.md"], ""))
            .starts_with("# Changelog\n\n- today: launch moved")
    );
    ok(&vault, &["mv", "projects/acme", "projects/acme-corp"], "");
    ok(&vault, &["rm", "tasks.md"], "");

    let tree = json(&vault, &["tree"], "");
    let names: Vec<&str> = tree["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "bucket",
            "inbox",
            "projects",
            "changelog.md",
            "overview.md",
            "profile.md"
        ]
    );
    let human = ok(&vault, &["tree", "projects", "--depth", "1"], "");
    assert_eq!(
        human,
        "projects/ · 1 file · 5 tokens\n- acme-corp/ · 1 file · 5 tokens\n"
    );

    let log = json(&vault, &["log", "--limit", "2"], "");
    assert_eq!(log.as_array().unwrap().len(), 2);
    assert_eq!(log[0]["reason"], "knower rm tasks.md");
    let removal = log[0]["id"].as_u64().unwrap().to_string();
    let undo = json(&vault, &["undo", &removal, "-m", "still needed"], "");
    let expected = format!("undo change {removal} (knower rm tasks.md): still needed");
    assert_eq!(undo["reason"], expected.as_str());
    assert!(ok(&vault, &["read", "tasks.md"], "").contains("# Tasks"));
    let filtered = json(&vault, &["log", "--path", "projects/acme-corp"], "");
    assert_eq!(filtered.as_array().unwrap().len(), 1);

    let status = json(&vault, &["status"], "");
    assert_eq!(status["files"], 5);
    assert_eq!(status["pending"].as_array().unwrap().len(), 0);
    assert!(ok(&vault, &["status"], "").contains("problems  none"));
}

#[test]
fn errors_are_one_line_with_a_hint_and_exit_1() {
    let (_dir, vault) = new_vault();
    let err = fails(&vault, &["read", "nope.md"]);
    assert_eq!(
        err,
        "error: nope.md does not exist (`knower tree` lists what the vault holds)\n"
    );
    let err = fails(&vault, &["write", "../outside.md"]);
    assert!(
        err.starts_with("error: invalid path \"../outside.md\": `..` is not allowed"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    let err = fails(
        &vault,
        &["edit", "overview.md", "--old", "not there", "--new", "x"],
    );
    assert!(err.contains("not found in overview.md"), "{err}");

    let mut cmd = knower(&vault);
    cmd.args(["--json", "read", "nope.md"]);
    let out = run(cmd, "");
    let value: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(value["error"], "nope.md does not exist");

    let mut cmd = knower(&vault);
    cmd.args(["write"]);
    assert_eq!(run(cmd, "").status.code(), Some(2), "usage errors exit 2");
    // Under --json a usage error is JSON too, still exit 2.
    let mut cmd = knower(&vault);
    cmd.args(["--json", "frobnicate"]);
    let out = run(cmd, "");
    assert_eq!(out.status.code(), Some(2));
    let value: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert!(
        value["error"].as_str().unwrap().contains("frobnicate"),
        "{value}"
    );
    assert!(value["hint"].as_str().unwrap().contains("Usage"), "{value}");
    // A query or question that starts with `-` is text, not a flag.
    ok(&vault, &["search", "-dash experimental papers"], "");
    ok(&vault, &["search", "-n", "3", "-dash", "tasks"], "");
    ok(&vault, &["ask", "-why", "tasks?"], "");
    // …and the flags after it still count.
    let everywhere = json(&vault, &["search", "-dash", "tasks"], "");
    assert!(!everywhere.as_array().unwrap().is_empty(), "{everywhere}");
    let scoped = json(
        &vault,
        &["search", "-dash", "tasks", "--scope", "projects"],
        "",
    );
    assert_eq!(
        scoped,
        serde_json::json!([]),
        "the scope was taken for words"
    );

    let mut cmd = knower(&vault);
    cmd.args(["write", "x.md"]);
    let out = run_bytes(cmd, b"\xff\xfe");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid UTF-8"));
}

fn run_bytes(mut cmd: Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_vault_is_found_by_flag_then_environment_then_home() {
    let dir = TempDir::new().unwrap();
    let (flag, env, home) = (
        dir.path().join("flag"),
        dir.path().join("env"),
        dir.path().join("home"),
    );
    fs::create_dir_all(&home).unwrap();
    let bin = env!("CARGO_BIN_EXE_knower");
    let init = |args: &[&str], envs: &[(&str, &Path)]| {
        let mut cmd = Command::new(bin);
        cmd.args(args).env_remove("KNOWER_VAULT");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        assert!(run(cmd, "").status.success());
    };
    init(
        &["--vault", flag.to_str().unwrap(), "init"],
        &[("KNOWER_VAULT", &env), ("HOME", &home)],
    );
    assert!(flag.join("overview.md").exists() && !env.exists());
    init(&["init"], &[("KNOWER_VAULT", &env), ("HOME", &home)]);
    assert!(env.join("overview.md").exists());
    init(&["init"], &[("HOME", &home)]);
    assert!(home.join("knower/overview.md").exists());
    // With the vault in the environment, a usage line does not ask for it.
    let usage = Command::new(bin)
        .arg("search")
        .env("KNOWER_VAULT", &env)
        .output()
        .unwrap();
    let usage = String::from_utf8_lossy(&usage.stderr);
    assert!(usage.contains("Usage: knower search <QUERY>"), "{usage}");
    assert!(!usage.contains("--vault"), "{usage}");

    let err = fails(&dir.path().join("missing"), &["tree"]);
    assert!(
        err.contains("is not a Knower vault") && err.contains("knower init"),
        "{err}"
    );
}

#[test]
fn init_twice_keeps_the_users_files() {
    let (_dir, vault) = new_vault();
    fs::write(vault.join("overview.md"), "mine\n").unwrap();
    let out = ok(&vault, &["init"], "");
    assert!(out.contains("kept"), "{out}");
    assert_eq!(
        body(&fs::read_to_string(vault.join("overview.md")).unwrap()),
        "mine\n"
    );
}

#[test]
fn edits_made_while_knower_was_not_running_are_processed_at_start() {
    let (_dir, vault) = new_vault();
    fs::write(vault.join("bucket/by-hand.md"), "typed in vim\n").unwrap();
    fs::write(vault.join("broken.md"), "---\nkey: [\n---\nbody\n").unwrap();
    fs::write(vault.join("latin1.md"), b"caf\xe9\n").unwrap();

    let status = json(&vault, &["status"], "");
    assert_eq!(status["pending"].as_array().unwrap().len(), 3, "{status}");

    let mut cmd = knower(&vault);
    cmd.arg("tree");
    let out = run(cmd, "");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("note: 3 paths changed outside Knower were processed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: broken.md: malformed frontmatter"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: latin1.md: not valid UTF-8"),
        "{stderr}"
    );

    let text = fs::read_to_string(vault.join("bucket/by-hand.md")).unwrap();
    assert!(
        text.starts_with("---\ncreated: ") && text.contains("tokens: 4\n"),
        "{text}"
    );
    assert!(
        fs::read_to_string(vault.join("tree.md"))
            .unwrap()
            .contains("by-hand.md · 4 tokens")
    );
    assert_eq!(
        fs::read_to_string(vault.join("broken.md")).unwrap(),
        "---\nkey: [\n---\nbody\n"
    );
    assert_eq!(fs::read(vault.join("latin1.md")).unwrap(), b"caf\xe9\n");
    let status = json(&vault, &["status"], "");
    assert_eq!(status["pending"].as_array().unwrap().len(), 0);
    assert_eq!(status["problems"].as_array().unwrap().len(), 2);
    let err = fails(&vault, &["read", "latin1.md"]);
    assert!(
        err.contains("not valid UTF-8 text (first invalid byte at offset 3)"),
        "{err}"
    );
}

#[test]
fn two_processes_writing_at_once_lose_nothing() {
    let (_dir, vault) = new_vault();
    let writers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|name| {
            let vault = vault.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    ok(&vault, &["append", "shared.md"], &format!("{name}{i}\n"));
                    ok(
                        &vault,
                        &["write", &format!("bucket/{name}{i}.md")],
                        "own file\n",
                    );
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let shared = body(&fs::read_to_string(vault.join("shared.md")).unwrap());
    assert_eq!(shared.lines().count(), 50, "{shared}");
    for name in ["a", "b"] {
        for i in 0..25 {
            assert!(
                shared.lines().any(|l| l == format!("{name}{i}")),
                "{name}{i} lost"
            );
            assert!(vault.join(format!("bucket/{name}{i}.md")).exists());
        }
    }
    let tree = fs::read_to_string(vault.join("tree.md")).unwrap();
    assert!(
        tree.contains("**55 files"),
        "tree.md lists every file: {tree}"
    );
    let log = json(&vault, &["log", "--limit", "1000"], "");
    assert_eq!(log.as_array().unwrap().len(), 101, "init + 100 changes");
}

#[test]
fn a_process_killed_mid_write_leaves_old_or_new_content() {
    let (_dir, vault) = new_vault();
    let size = 4 << 20;
    let version = |n: usize| char::from(b'a' + (n % 26) as u8).to_string().repeat(size) + "\n";
    // How long one write takes here, to kill before, during and after it.
    let started = Instant::now();
    ok(&vault, &["write", "big.md"], &version(0));
    let full = started.elapsed();
    let mut versions_seen = std::collections::BTreeSet::new();
    for round in 1..=24 {
        let mut cmd = knower(&vault);
        cmd.args(["write", "big.md"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child: Child = cmd.spawn().unwrap();
        let content = version(round);
        let mut stdin = child.stdin.take().unwrap();
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(content.as_bytes());
        });
        // Kill at varying moments, from 0 to 2 times a whole write.
        std::thread::sleep(full.mul_f64((round % 9) as f64 / 4.0));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let _ = feeder.join();

        let text = fs::read_to_string(vault.join("big.md")).unwrap();
        let b = body(&text);
        assert_eq!(b.len(), size + 1, "round {round}: partial file");
        let first = b.as_bytes()[0];
        assert!(
            b.bytes().take(size).all(|c| c == first),
            "round {round}: mixed content"
        );
        versions_seen.insert(first);
    }
    // The vault is consistent afterwards: every command works, the next
    // command processes whatever the killed ones left half-recorded, and no
    // temporary file survives.
    ok(&vault, &["status"], "");
    ok(&vault, &["write", "after.md"], "still fine\n");
    assert!(
        json(&vault, &["status"], "")["pending"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let leftovers = temp_files(&vault);
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let log = json(&vault, &["log", "--limit", "1000"], "");
    let ids: Vec<u64> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert!(
        ids.windows(2).all(|w| w[0] == w[1] + 1),
        "ids stay unique and dense: {ids:?}"
    );
    assert!(
        versions_seen.len() > 1,
        "some writes completed: {versions_seen:?}"
    );
}

#[test]
fn a_process_killed_while_adopting_a_folder_leaves_every_note_whole() {
    let dir = TempDir::new().unwrap();
    let vault = dir.path().join("vault");
    let original = |i: usize| format!("# Note {i}\n\nWhat note {i} says, in full.\n");
    let notes = 300;
    let fill = || {
        let _ = fs::remove_dir_all(&vault);
        for i in 0..notes {
            let folder = vault.join(format!("area{}", i % 20));
            fs::create_dir_all(&folder).unwrap();
            fs::write(folder.join(format!("n{i}.md")), original(i)).unwrap();
        }
    };
    fill();
    let started = Instant::now();
    ok(&vault, &["init"], "");
    let full = started.elapsed();
    for round in 0..6 {
        fill();
        let mut child = knower(&vault)
            .arg("init")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(full.mul_f64(round as f64 / 5.0));
        child.kill().unwrap();
        child.wait().unwrap();
        // Each note is as it was or as adopted (with frontmatter), never
        // empty or cut.
        let check = || {
            for i in 0..notes {
                let path = vault.join(format!("area{}/n{i}.md", i % 20));
                let text = fs::read_to_string(&path).unwrap();
                let b = if text.starts_with("---\n") {
                    body(&text)
                } else {
                    text.clone()
                };
                assert_eq!(b, original(i), "round {round}: {}", path.display());
            }
        };
        check();
        // The next command records what the killed one had done (recovery
        // takes files as they are) and clears its debris.
        ok(&vault, &["init"], "");
        check();
        let leftovers = temp_files(&vault);
        assert!(leftovers.is_empty(), "round {round}: {leftovers:?}");
        assert!(
            json(&vault, &["status"], "")["pending"]
                .as_array()
                .unwrap()
                .is_empty()
        );
    }
}

/// Temporary files of atomic writes anywhere below `dir`, `.knower/` included.
fn temp_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            found.extend(temp_files(&entry.path()));
        } else if entry
            .file_name()
            .to_string_lossy()
            .starts_with(".knower-tmp")
        {
            found.push(entry.path());
        }
    }
    found
}

#[test]
fn watch_keeps_up_with_an_editor() {
    let dir = TempDir::new().unwrap();
    let vault = dir.path().join("vault");
    let mut watch = knower(&vault)
        .arg("watch")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let wait_for = |what: &str, check: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !check() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_for("the vault", &|| vault.join("tree.md").exists());
    // `watch` created the vault; wait until it watches, then save like an
    // editor does: write a temporary file and rename it over the note.
    std::thread::sleep(Duration::from_millis(500));
    let note = vault.join("projects/plan.md");
    fs::create_dir_all(note.parent().unwrap()).unwrap();
    fs::write(vault.join("projects/.plan.md.swp"), "editor swap").unwrap();
    fs::write(
        vault.join("projects/plan.tmp"),
        "Ship the beta on Friday.\n",
    )
    .unwrap();
    fs::rename(vault.join("projects/plan.tmp"), &note).unwrap();
    wait_for("the frontmatter", &|| {
        fs::read_to_string(&note).is_ok_and(|t| t.starts_with("---\n") && t.contains("tokens: 7\n"))
    });
    wait_for("tree.md", &|| {
        fs::read_to_string(vault.join("tree.md")).is_ok_and(|t| t.contains("plan.md · 7 tokens"))
    });
    watch.kill().unwrap();
    watch.wait().unwrap();
    let tree = fs::read_to_string(vault.join("tree.md")).unwrap();
    assert!(
        !tree.contains("swp") && !tree.contains("plan.tmp"),
        "{tree}"
    );
}

#[test]
fn an_empty_note_is_indexed_like_any_other() {
    let (_dir, vault) = new_vault();
    ok(&vault, &["reindex"], "");
    let before = json(&vault, &["status"], "")["index"]["files"]
        .as_u64()
        .unwrap();
    fs::write(vault.join("empty.md"), "").unwrap();
    fs::write(vault.join("blank.md"), "\n\n").unwrap();
    ok(&vault, &["reindex"], "");
    let status = json(&vault, &["status"], "");
    assert_eq!(
        status["index"]["files_pending"],
        serde_json::json!([]),
        "{status}"
    );
    assert_eq!(
        status["index"]["files"].as_u64().unwrap(),
        before + 2,
        "{status}"
    );
    assert!(ok(&vault, &["status"], "").contains("keywords up to date"));
}

#[test]
fn status_lists_links_and_special_files_among_what_is_left_untouched() {
    let (dir, vault) = new_vault();
    let outside = dir.path().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("secret.md"), "not the vault's").unwrap();
    std::os::unix::fs::symlink(&outside, vault.join("away")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.md"), vault.join("notes.md")).unwrap();
    std::os::unix::fs::symlink("tasks.md", vault.join("also-tasks.md")).unwrap();
    fs::create_dir(vault.join(".git")).unwrap();
    std::os::unix::fs::symlink(&outside, vault.join(".git/hidden-link")).unwrap();

    let status = json(&vault, &["status"], "");
    let untouched = status["untouched"].as_array().unwrap();
    let paths: Vec<&str> = untouched
        .iter()
        .map(|u| u["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["also-tasks.md", "away", "notes.md"], "{status}");
    assert!(
        untouched[1]["why"]
            .as_str()
            .unwrap()
            .contains("outside the vault")
    );
    assert!(
        untouched[0]["why"]
            .as_str()
            .unwrap()
            .contains("read through")
    );
    let text = ok(&vault, &["status"], "");
    assert!(text.contains("3 left untouched"), "{text}");
    assert!(text.contains("away: a link to"), "{text}");
}

#[test]
fn help_lists_the_commands_people_use_most_first() {
    let out = Command::new(env!("CARGO_BIN_EXE_knower"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.split_whitespace().next())
        .take(5)
        .collect();
    assert_eq!(
        commands,
        ["update", "ask", "search", "inbox", "serve"],
        "{help}"
    );
}

#[test]
fn output_into_a_pipe_closed_early_ends_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let (_dir, v) = new_vault();
    let long = "A line of a long note that fills more than a pipe holds.\n".repeat(20_000);
    ok(&v, &["write", "long.md"], &long);
    let mut child = knower(&v)
        .args(["read", "long.md"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reader is gone, as `head` goes once it has its lines.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
}

#[test]
fn endless_standard_input_is_refused_at_its_cap_with_the_cap_named() {
    let (_dir, vault) = new_vault();
    for (args, cap) in [
        (vec!["update"], "an update may hold (1 MiB at most)"),
        (
            vec!["write", "notes/zero.md"],
            "a note may hold (64 MiB at most)",
        ),
    ] {
        let started = std::time::Instant::now();
        let out = support::knower_command(&vault)
            .args(&args)
            .stdin(std::fs::File::open("/dev/zero").unwrap())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains(cap), "{args:?}: {said}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{args:?}"
        );
    }
    assert!(!vault.join("notes/zero.md").exists());
}
