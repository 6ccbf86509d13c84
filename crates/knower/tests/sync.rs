//! `knower sync` against a bare repository on this machine, as three
//! machines would use it (issue 74): updates, edits, task lists and
//! harvests on every side, interleaved with syncs, converge to identical
//! user files with nothing lost and every real conflict in the inbox; a
//! sync killed (kill -9 of its process group, git included) at random
//! points is completed by the next one.

mod support;

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{git, knower_command, serve_command, succeed};

/// One machine: a vault and the name it syncs under.
struct Machine {
    vault: PathBuf,
    name: &'static str,
}

impl Machine {
    fn command(&self) -> Command {
        let mut command = knower_command(&self.vault);
        command.env("KNOWER_MACHINE", self.name);
        command
    }

    fn run(&self, args: &[&str], stdin: &str) -> String {
        let mut command = self.command();
        command.args(args);
        succeed(command, stdin)
    }

    fn sync(&self) -> Value {
        serde_json::from_str(&self.run(&["--json", "sync"], "")).unwrap()
    }

    /// `knower sync`, which must be refused (exit code 1); its stderr.
    fn sync_refused(&self) -> String {
        let mut command = self.command();
        command.arg("sync");
        let out = support::run(command, "");
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}: sync should be refused",
            self.name
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    }

    /// A sync that may give up because other machines kept pushing first
    /// (false then; the next sync sends it), and must not fail otherwise.
    fn try_sync(&self) -> bool {
        let mut command = self.command();
        command.args(["--json", "sync"]);
        let out = support::run(command, "");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() || said.contains("pushed first"),
            "{}: sync failed: {said}",
            self.name
        );
        out.status.success()
    }
}

/// Actions on each machine in the convergence test.
const ACTIONS: usize = 200;

/// A bare repository and the first machine, whose vault is pushed to it;
/// the others join as the README says: clone, `knower init`, sync.
fn machines(dir: &Path, names: &[&'static str]) -> Vec<Machine> {
    let remote = dir.join("remote.git");
    git(
        dir,
        &[
            "init",
            "--quiet",
            "--bare",
            "--initial-branch=main",
            "remote.git",
        ],
    );
    let mut out = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let machine = Machine {
            vault: dir.join(name),
            name,
        };
        if i == 0 {
            machine.run(&["init"], "");
            machine.run(
                &["write", "knower.toml"],
                &format!("[sync]\nremote = \"{}\"\n", remote.display()),
            );
        } else {
            git(dir, &["clone", "--quiet", remote.to_str().unwrap(), name]);
            machine.run(&["init"], "");
        }
        let report = machine.sync();
        assert!(report["pushed"] == true || i > 0, "{report}");
        out.push(machine);
    }
    out
}

/// Every user file (not .git, .knower or the derived tree.md) and its
/// bytes.
fn user_files(vault: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(vault).into_iter().filter_entry(|e| {
        let name = e.file_name().to_string_lossy();
        e.depth() == 0 || !(name == ".git" || name == ".knower")
    }) {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(vault)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel != "tree.md" {
            out.insert(rel, std::fs::read(entry.path()).unwrap());
        }
    }
    out
}

/// Syncs every machine in turn until a whole round sends and receives
/// nothing; then their user files must be identical.
fn converge(machines: &[Machine]) -> BTreeMap<String, Vec<u8>> {
    for round in 0..6 {
        let mut quiet = true;
        for m in machines {
            let report = m.sync();
            quiet &= report["committed"] == 0 && report["received"].as_array().unwrap().is_empty();
        }
        if quiet && round > 0 {
            let first = user_files(&machines[0].vault);
            for m in &machines[1..] {
                let other = user_files(&m.vault);
                let differ: Vec<&String> = first
                    .keys()
                    .chain(other.keys())
                    .filter(|k| first.get(*k) != other.get(*k))
                    .collect();
                assert!(
                    differ.is_empty(),
                    "{} differs from {}: {differ:?}",
                    m.name,
                    machines[0].name
                );
            }
            return first;
        }
    }
    panic!("the machines did not converge in 6 rounds");
}

/// Every action's words are somewhere in the vault.
fn assert_nothing_lost(files: &BTreeMap<String, Vec<u8>>, marks: &[String]) {
    let all: String = files
        .values()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    let lost: Vec<&String> = marks.iter().filter(|m| !all.contains(m.as_str())).collect();
    assert!(lost.is_empty(), "lost: {lost:?}");
}

/// The conflict ids whose markers are in the notes, and those the inbox
/// holds items for.
fn conflicts(files: &BTreeMap<String, Vec<u8>>) -> (Vec<String>, Vec<String>) {
    let mut marked = Vec::new();
    let mut filed = Vec::new();
    for (path, bytes) in files {
        let text = String::from_utf8_lossy(bytes);
        if path.starts_with("inbox/") && path.ends_with("review.md") {
            if let Some(line) = text.lines().find(|l| l.starts_with("conflict: ")) {
                filed.push(line["conflict: ".len()..].trim_matches('"').to_string());
            }
            continue;
        }
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("<!-- knower:conflict ")
                && rest.contains(" end -->")
            {
                marked.push(rest.split_whitespace().next().unwrap().to_string());
            }
        }
    }
    marked.sort();
    marked.dedup();
    filed.sort();
    filed.dedup();
    (marked, filed)
}

fn body(note: &str) -> &str {
    note.splitn(3, "---\n").nth(2).unwrap_or(note)
}

/// A small deterministic generator: the test is the same on every run.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Everything a machine does to its vault: an update, a task, an edit of
/// its own note or of one every machine edits, a harvest. Returns the
/// words that must survive (a line another machine may rewrite later
/// need not).
fn act(m: &Machine, dice: &mut Dice, i: usize, sources: &Path) -> Option<String> {
    let mark = format!("S{i:03}{}", m.name);
    match dice.roll(6) {
        0 => {
            let texts = [
                "Remember to renew the passport before the trip",
                "The Atlas tiles server now runs on Postgres 16",
                "Idea: a reading list for the winter",
                "Met Ana about the garden watering schedule",
            ];
            let text = format!("{} ({mark})", texts[dice.roll(4) as usize]);
            m.run(&["update", &text], "");
        }
        1 => {
            m.run(&["append", "tasks.md"], &format!("- [ ] task {mark}\n"));
        }
        2 => {
            m.run(
                &["append", &format!("notes/{}.md", m.name)],
                &format!("line {mark}\n"),
            );
        }
        3 | 4 => {
            // The note every machine edits: its first line rewritten (a
            // real conflict when two machines do it between syncs) or a
            // line added at its end.
            let path = "notes/shared.md";
            if dice.roll(2) == 0 {
                let body = m.run(&["read", path], "");
                if body.contains("Status:") {
                    let old = body
                        .lines()
                        .find(|l| l.starts_with("Status:"))
                        .unwrap()
                        .to_string();
                    m.run(
                        &[
                            "edit",
                            path,
                            "--old",
                            &old,
                            "--new",
                            &format!("Status: {mark}"),
                        ],
                        "",
                    );
                    return None;
                }
            }
            m.run(&["append", path], &format!("Seen by {mark}\n"));
        }
        _ => {
            let file = sources.join(format!("conversation-{mark}.md"));
            std::fs::write(
                &file,
                format!(
                    "Ana: Server {mark} in Frankfurt runs Postgres 16 since March 2024.\n\
                     Ben: Remember to rotate the keys of server {mark}.\n"
                ),
            )
            .unwrap();
            m.run(&["harvest", "--apply", file.to_str().unwrap()], "");
        }
    }
    Some(mark)
}

#[test]
fn three_machines_converge_with_nothing_lost_and_conflicts_in_the_inbox() {
    let dir = tempfile::tempdir().unwrap();
    let machines = machines(dir.path(), &["laptop", "desktop", "office"]);
    machines[0].run(
        &["write", "notes/shared.md"],
        "# Shared\n\nStatus: started\n\n",
    );
    for m in &machines {
        m.sync();
    }
    let sources = dir.path().join("sources");
    std::fs::create_dir_all(&sources).unwrap();
    // The three machines work at once, each syncing after one action in
    // four, so pushes race and some are refused and tried again.
    let started = Instant::now();
    let (marks, busy) = std::thread::scope(|scope| {
        let workers: Vec<_> = machines
            .iter()
            .enumerate()
            .map(|(n, m)| {
                let sources = &sources;
                scope.spawn(move || {
                    let mut dice = Dice(0x5eed_1234_abcd + n as u64 * 7919);
                    let (mut marks, mut busy) = (Vec::new(), 0);
                    for i in 0..ACTIONS {
                        marks.extend(act(m, &mut dice, i, sources));
                        if dice.roll(4) == 0 && !m.try_sync() {
                            busy += 1;
                        }
                    }
                    (marks, busy)
                })
            })
            .collect();
        workers
            .into_iter()
            .fold((Vec::new(), 0), |(mut all, busy), w| {
                let (marks, refused) = w.join().unwrap();
                all.extend(marks);
                (all, busy + refused)
            })
    });
    let files = converge(&machines);
    eprintln!(
        "{ACTIONS} actions on each of 3 machines at once, and their syncs, in {:.0?} \
         ({busy} syncs gave up: others kept pushing first)",
        started.elapsed()
    );

    assert_nothing_lost(&files, &marks);

    // Every real conflict is waiting in the inbox, and there were some.
    let (marked, filed) = conflicts(&files);
    assert!(!marked.is_empty(), "the test made no real conflict");
    eprintln!("{} real conflicts, each with its inbox item", marked.len());
    for id in &marked {
        assert!(filed.contains(id), "conflict {id} has no inbox item");
    }
    // Derived files stay per machine; settings stay valid TOML.
    assert!(!files.contains_key("tree.md"));
    let toml_text = String::from_utf8(files["knower.toml"].clone()).unwrap();
    assert!(toml_text.parse::<toml::Table>().is_ok(), "{toml_text}");
    // The journal says where remote changes came from.
    let log = machines[1].run(&["log", "--limit", "400"], "");
    assert!(log.contains("sync from"), "{log}");

    // Answering a conflict is one journaled change that undo takes back.
    let items: Value = serde_json::from_str(&machines[1].run(&["--json", "inbox"], "")).unwrap();
    let item = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"].as_str().unwrap().contains("sync-conflict"))
        .unwrap();
    let code = item["code"].as_str().unwrap();
    let review = std::fs::read_to_string(
        machines[1]
            .vault
            .join(item["folder"].as_str().unwrap())
            .join("review.md"),
    )
    .unwrap();
    let answered_id = review
        .lines()
        .find_map(|l| l.strip_prefix("conflict: "))
        .unwrap()
        .trim_matches('"')
        .to_string();
    let before = std::fs::read_to_string(machines[1].vault.join("notes/shared.md")).unwrap();
    let answered: Value =
        serde_json::from_str(&machines[1].run(&["--json", "inbox", "reply", code, "both"], ""))
            .unwrap();
    assert_eq!(answered["outcome"], "resolved", "{answered}");
    let after = std::fs::read_to_string(machines[1].vault.join("notes/shared.md")).unwrap();
    assert_ne!(before, after);
    let files = converge(&machines);
    let (marked_after, filed_after) = conflicts(&files);
    assert!(
        !marked_after.contains(&answered_id),
        "{answered_id} still marked"
    );
    assert!(
        !filed_after.contains(&answered_id),
        "{answered_id} still in the inbox"
    );
    let undo = machines[1].run(&["--json", "undo", answered["id"].as_str().unwrap()], "");
    assert!(undo.contains("\"id\""), "{undo}");
    let undone = std::fs::read_to_string(machines[1].vault.join("notes/shared.md")).unwrap();
    // (`updated` says when the undo was made.)
    assert_eq!(
        body(&undone),
        body(&before),
        "undo brings the conflict back"
    );
}

#[test]
fn a_sync_killed_at_random_points_is_completed_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let machines = machines(dir.path(), &["laptop", "desktop"]);
    let (a, b) = (&machines[0], &machines[1]);
    let mut dice = Dice(0x00de_adbe_ef77);
    let mut marks = Vec::new();
    // How long a sync with something to merge takes here.
    b.run(&["append", "tasks.md"], "- [ ] warm up\n");
    b.sync();
    a.run(&["append", "notes/a.md"], "warm up\n");
    let t = Instant::now();
    a.sync();
    let typical = t.elapsed().as_millis() as u64;
    for round in 0..20 {
        for (m, side) in [(a, "a"), (b, "b")] {
            let mark = format!("K{round:02}{side}");
            m.run(&["append", "tasks.md"], &format!("- [ ] {mark}\n"));
            m.run(
                &["append", &format!("notes/{side}.md")],
                &format!("{mark}\n"),
            );
            m.run(
                &["write", &format!("notes/{side}-{round}.md")],
                &format!("{mark} own\n"),
            );
            marks.push(mark);
        }
        b.sync();
        let mut child = a
            .command()
            .arg("sync")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let delay = dice.roll(typical * 12 / 10 + 1);
        std::thread::sleep(Duration::from_millis(delay));
        // The whole group, git included, as a power cut would.
        kill_group(child.id());
        let _ = child.wait();
        let report = a.sync();
        assert!(report["branch"] == "main", "round {round}: {report}");
    }
    let files = converge(&machines);
    assert_nothing_lost(&files, &marks);
    // The repository itself is whole.
    git(&a.vault, &["fsck", "--no-progress"]);
    let status = a.run(&["--json", "status"], "");
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["sync"]["last"]["ok"], true, "{status}");
    assert_eq!(status["sync"]["local_changes"], 0, "{status}");
}

/// `kill -KILL -PGID`: the process group the sync leads.
fn kill_group(pid: u32) {
    Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .status()
        .unwrap();
}

#[test]
fn a_vault_with_history_keeps_it_and_bad_remotes_are_refused_with_nothing_changed() {
    let dir = tempfile::tempdir().unwrap();
    let m = Machine {
        vault: dir.path().join("vault"),
        name: "laptop",
    };
    m.run(&["init"], "");

    // No remote: said plainly, and no repository made.
    assert!(m.sync_refused().contains("no remote to sync with"));
    assert!(!m.vault.join(".git").exists());

    // A vault the user already keeps in git keeps its history.
    git(&m.vault, &["init", "--quiet", "--initial-branch=main"]);
    git(
        &m.vault,
        &[
            "-c",
            "user.name=Me",
            "-c",
            "user.email=me@example.com",
            "commit",
            "--quiet",
            "--allow-empty",
            "-m",
            "my own history",
        ],
    );
    git(
        dir.path(),
        &[
            "init",
            "--quiet",
            "--bare",
            "--initial-branch=main",
            "remote.git",
        ],
    );
    let remote = dir.path().join("remote.git");
    git(
        &m.vault,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    let report = m.sync();
    assert_eq!(report["pushed"], true, "{report}");
    let log = git(&m.vault, &["log", "--format=%s"]);
    assert!(log.contains("my own history"), "{log}");
    assert!(log.contains("knower sync on laptop"), "{log}");
    // Knower's own files never enter the repository.
    let tracked = git(&m.vault, &["ls-files"]);
    assert!(
        !tracked.contains(".knower/") && !tracked.lines().any(|l| l == "tree.md"),
        "{tracked}"
    );

    // A remote that carries a `.knower/` folder is refused before merging.
    let other = dir.path().join("other");
    git(
        dir.path(),
        &["clone", "--quiet", remote.to_str().unwrap(), "other"],
    );
    std::fs::create_dir_all(other.join(".knower")).unwrap();
    std::fs::write(other.join(".knower/journal"), "not yours\n").unwrap();
    git(&other, &["add", "-f", ".knower/journal"]);
    git(
        &other,
        &[
            "-c",
            "user.name=X",
            "-c",
            "user.email=x@example.com",
            "commit",
            "--quiet",
            "-m",
            "bad",
        ],
    );
    git(&other, &["push", "--quiet"]);
    let head = git(&m.vault, &["rev-parse", "HEAD"]);
    let said = m.sync_refused();
    assert!(said.contains("each machine's own"), "{said}");
    assert_eq!(git(&m.vault, &["rev-parse", "HEAD"]), head);
    assert!(
        m.vault.join(".knower/journal").is_dir(),
        "Knower's journal untouched"
    );
    let status: Value = serde_json::from_str(&m.run(&["--json", "status"], "")).unwrap();
    assert_eq!(status["sync"]["last"]["ok"], false, "{status}");

    // A vault inside someone else's repository is refused.
    let outer = dir.path().join("outer");
    std::fs::create_dir_all(&outer).unwrap();
    git(&outer, &["init", "--quiet"]);
    let inner = Machine {
        vault: outer.join("notes"),
        name: "laptop",
    };
    inner.run(&["init"], "");
    inner.run(
        &["write", "knower.toml"],
        "[sync]\nremote = \"/nowhere.git\"\n",
    );
    let said = inner.sync_refused();
    assert!(said.contains("inside the git repository"), "{said}");
}

#[test]
fn a_server_syncs_on_its_schedule_and_announces_what_arrived() {
    let dir = tempfile::tempdir().unwrap();
    let machines = machines(dir.path(), &["laptop", "desktop"]);
    let (a, b) = (&machines[0], &machines[1]);
    a.run(&["append", "knower.toml"], "every_minutes = 1\n");
    a.sync();
    b.sync();
    let mut command = a.command();
    command
        .env("KNOWER_SYNC_EVERY_MS", "300")
        .args(["--json", "serve", "--addr", "127.0.0.1:0"]);
    let server = serve_command(command);
    // The status over HTTP, before anything arrives.
    knower_llm::install_tls_provider();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let url = format!("{}/api/sync", server.url);
    let status: Value =
        runtime.block_on(async { reqwest::get(url).await.unwrap().json().await.unwrap() });
    assert_eq!(status["configured"], true, "{status}");

    b.run(&["write", "notes/from-b.md"], "# Written on the desktop\n");
    b.sync();
    let arrived = a.vault.join("notes/from-b.md");
    let started = Instant::now();
    while !arrived.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the server never synced"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Journaled as coming from the remote, and found by a search.
    let log = a.run(&["log", "--path", "notes/from-b.md"], "");
    assert!(log.contains("sync from"), "{log}");
    let found = a.run(&["search", "desktop"], "");
    assert!(found.contains("notes/from-b.md"), "{found}");
    drop(server);
}

#[test]
fn a_file_that_is_not_a_note_and_a_deleted_note_keep_both_sides_until_answered() {
    let dir = tempfile::tempdir().unwrap();
    let machines = machines(dir.path(), &["laptop", "desktop"]);
    let (a, b) = (&machines[0], &machines[1]);
    a.run(&["write", "notes/old.md"], "# Old\n\nKept for now.\n");
    a.run(&["write", "data/list.txt"], "one\n");
    // An editor's hidden settings travel with the vault too.
    let settings = |m: &Machine, theme: &str| {
        std::fs::create_dir_all(m.vault.join(".obsidian")).unwrap();
        std::fs::write(
            m.vault.join(".obsidian/app.json"),
            format!("{{\"theme\": \"{theme}\"}}\n"),
        )
        .unwrap();
    };
    settings(a, "system");
    a.sync();
    b.sync();
    settings(a, "dark");
    settings(b, "light");

    // Both change the same line of a text file; one deletes a note the
    // other edits.
    a.run(&["write", "data/list.txt"], "one, from the laptop\n");
    a.run(&["rm", "notes/old.md"], "");
    b.run(&["write", "data/list.txt"], "one, from the desktop\n");
    b.run(&["append", "notes/old.md"], "Edited on the desktop.\n");
    a.sync();
    let report = b.sync();
    assert_eq!(report["conflicts"].as_array().unwrap().len(), 3, "{report}");
    // A hidden file is Knower's to keep, not to edit: both sides, by hand.
    assert!(
        std::fs::read_to_string(b.vault.join(".obsidian/app.json"))
            .unwrap()
            .contains("light")
    );
    assert!(
        std::fs::read_to_string(b.vault.join(".obsidian/app.from-laptop.json"))
            .unwrap()
            .contains("dark")
    );
    // No markers in a file that is not a note: each side whole.
    assert_eq!(
        std::fs::read_to_string(b.vault.join("data/list.txt")).unwrap(),
        "one, from the desktop\n"
    );
    assert_eq!(
        std::fs::read_to_string(b.vault.join("data/list.from-laptop.txt")).unwrap(),
        "one, from the laptop\n"
    );
    // The edit survives the deletion, until the user says otherwise.
    assert!(
        std::fs::read_to_string(b.vault.join("notes/old.md"))
            .unwrap()
            .contains("Edited on the desktop.")
    );
    let items: Value = serde_json::from_str(&b.run(&["--json", "inbox"], "")).unwrap();
    let code_of = |what: &str| {
        items
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["title"].as_str().unwrap().contains(what))
            .unwrap_or_else(|| panic!("no item for {what}: {items}"))["code"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (list, old) = (code_of("data/list.txt"), code_of("notes/old.md"));
    let hidden = code_of(".obsidian/app.json");
    let refused = b
        .command()
        .args(["inbox", "reply", &hidden, "2"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("`done`"),
        "{refused:?}"
    );
    std::fs::remove_file(b.vault.join(".obsidian/app.from-laptop.json")).unwrap();
    b.run(&["inbox", "reply", &hidden, "done"], "");
    b.run(&["inbox", "reply", &list, "laptop"], "");
    b.run(&["inbox", "reply", &old, "delete"], "");
    assert_eq!(
        std::fs::read_to_string(b.vault.join("data/list.txt")).unwrap(),
        "one, from the laptop\n"
    );
    assert!(!b.vault.join("data/list.from-laptop.txt").exists());
    assert!(!b.vault.join("notes/old.md").exists());
    let files = converge(&machines);
    assert!(
        !files.keys().any(|k| k.starts_with("inbox/")),
        "{:?}",
        files.keys()
    );
}
