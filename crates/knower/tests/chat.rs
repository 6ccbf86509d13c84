//! `knower chat` as a process: the REPL driven through a pseudo-terminal
//! (expectrl), a reply streamed from a scripted model and stopped with
//! Ctrl-C without ending the session, `--resume`; and kill -9 in the middle
//! of a run of exchanges, which leaves the log with whole exchanges and the
//! artifacts consistent with it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod support;
use support::{knower, knower_command, run};

use expectrl::{ControlCode, Expect, Session};
use knower_testkit::llm::{Protocol, ScriptedServer, Step, openai};
use serde_json::{Value, json};

fn pty(vault: &Path, args: &[&str], env: &[(&str, String)]) -> expectrl::session::OsSession {
    let mut command = Command::new(env!("CARGO_BIN_EXE_knower"));
    command
        .arg("--vault")
        .arg(vault)
        .args(args)
        .env_remove("KNOWER_VAULT")
        .env_remove("KNOWER_LLM")
        .env("TERM", "xterm");
    for (name, value) in env {
        command.env(name, value);
    }
    let mut session = Session::spawn(command).expect("a pseudo-terminal");
    session.set_expect_timeout(Some(Duration::from_secs(20)));
    session
}

/// Types a line at the prompt as a person would: after the line editor
/// has taken the terminal (input typed before that is discarded by it).
fn type_line(p: &mut expectrl::session::OsSession, line: &str) {
    std::thread::sleep(Duration::from_millis(300));
    p.send(line).unwrap();
    p.send("\r").unwrap();
}

/// Presses a control key at the prompt, after the line editor has taken the
/// terminal: between two prompts the terminal is in cooked mode, where the
/// line discipline itself eats Ctrl-D and turns Ctrl-C into a signal.
fn press_at_prompt(p: &mut expectrl::session::OsSession, key: ControlCode) {
    p.expect("you> ").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    p.send(key).unwrap();
}

fn records(vault: &Path) -> Vec<Value> {
    std::fs::read_to_string(vault.join("chat/log.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line of the log is a whole record"))
        .collect()
}

#[test]
fn the_repl_answers_lists_and_stops_a_reply_with_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    knower(v, &["init"], "");
    knower(
        v,
        &["write", "projects/atlas/state.md"],
        "The geocoder runs on Postgres 16.\n",
    );

    // Offline: a question opens an effort; /efforts lists it.
    let mut p = pty(v, &["chat"], &[]);
    p.expect("you> ").unwrap();
    type_line(&mut p, "Which database should the geocoder use?");
    p.expect("offline engine").unwrap();
    p.expect("+ effort").unwrap();
    p.expect("you> ").unwrap();
    type_line(&mut p, "/efforts");
    p.expect("Which database should the geocoder use?").unwrap();
    // Ctrl-C at the prompt does not leave.
    press_at_prompt(&mut p, ControlCode::EndOfText);
    p.expect("Ctrl-D or /quit leaves").unwrap();
    press_at_prompt(&mut p, ControlCode::EndOfTransmission);
    p.expect("knower chat --resume").unwrap();
    assert_eq!(records(v).len(), 1);

    // A model whose answer streams slowly: Ctrl-C stops it, the session goes on.
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::sse(openai::stream(&[
                "The pool ",
                "holds ",
                "ten ",
                "connections ",
                "today.",
            ]))
            .gap(Duration::from_millis(400)),
        ],
    );
    server.push(Step::json(openai::text(r#"{"actions": []}"#)));
    let model = [
        ("KNOWER_LLM", "openai-compatible:scripted".to_string()),
        ("KNOWER_LLM_BASE_URL", server.base_url()),
    ];
    let mut p = pty(v, &["chat", "--resume"], &model);
    p.expect("(1 exchanges so far)").unwrap();
    p.expect("you> ").unwrap();
    type_line(&mut p, "How big is the pool?");
    p.expect("The pool ").unwrap();
    p.send(ControlCode::EndOfText).unwrap();
    p.expect("(stopped)").unwrap();
    p.expect("you> ").unwrap();
    type_line(&mut p, "/quit");
    p.expect("saved").unwrap();
    let log = records(v);
    assert_eq!(log.len(), 2);
    assert_eq!(log[1]["cancelled"], true, "{}", log[1]);
    assert!(
        !log[1]["assistant"].as_str().unwrap().contains("today"),
        "stopped before the end"
    );
    assert_eq!(
        log[1]["session"], log[0]["session"],
        "--resume continues the session"
    );
}

#[test]
fn kill_9_in_the_middle_leaves_whole_exchanges_and_consistent_artifacts() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    knower(v, &["init"], "");
    // Each line is a fact (a name and a number): one artifact each.
    let lines: String = (0..400)
        .map(|i| format!("Server Node{i} in Frankfurt has {} cores.\n", 8 + i))
        .collect();
    let mut child = knower_command(v)
        .args(["chat"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            let _ = stdin.write_all(lines.as_bytes());
        });
    }
    let started = Instant::now();
    while records(v).len() < 10 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the chat did not start"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // The next exchange interprets what the killed one logged.
    knower(v, &["chat", "Who runs the Frankfurt servers?"], "");
    let log = records(v);
    assert!(log.len() < 401, "killed half-way");
    let facts: Vec<Value> = std::fs::read_dir(v.join("chat/artifacts"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .filter(|t| t.contains("kind: \"fact\""))
        .map(|t| json!(t))
        .collect();
    assert_eq!(
        facts.len(),
        log.len() - 1,
        "one fact per logged fact exchange, none twice"
    );
    for record in &log[..log.len() - 1] {
        let user = record["user"].as_str().unwrap();
        assert!(
            facts
                .iter()
                .filter(|f| f.as_str().unwrap().contains(user))
                .count()
                == 1,
            "{user}"
        );
    }
}

#[test]
fn a_piped_line_that_is_not_utf8_costs_that_line_and_the_run_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    knower(v, &["init"], "");
    let mut input = b"Server Alpha in Oslo has 8 cores.\r\n".to_vec();
    input.extend_from_slice(b"Server Beta in \xff\xfeBergen has 4 cores.\n");
    input.extend_from_slice(
        b"Server Gamma in Tromso has 2 cores.\n/quit\nServer Delta is never said.\n",
    );
    let mut chat = knower_command(v);
    chat.arg("chat");
    let out = run(chat, input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "standard input line 2: skipped, not UTF-8 text (first invalid byte at column 16)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 line of standard input was not said"),
        "{stderr}"
    );
    let said = said(v);
    assert_eq!(
        said,
        [
            "Server Alpha in Oslo has 8 cores.",
            "Server Gamma in Tromso has 2 cores."
        ],
        "the lines around the bad one are said, a carriage return is not part of one, /quit ends the run"
    );
}

#[test]
fn a_piped_line_longer_than_a_message_costs_that_line_with_its_cap_named() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    knower(v, &["init"], "");
    let mut input = vec![b'x'; 3 << 20];
    input.extend_from_slice(b"\nServer Alpha in Oslo has 8 cores.\n");
    let mut chat = knower_command(v);
    chat.arg("chat");
    let out = run(chat, input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "standard input line 1: skipped, longer than a message may be (1 MiB at most)"
        ),
        "{stderr}"
    );
    let said = said(v);
    assert_eq!(said, ["Server Alpha in Oslo has 8 cores."]);
}

#[test]
fn a_piped_command_that_fails_costs_that_line_and_the_run_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    knower(v, &["init"], "");
    let input =
        "Server Alpha in Oslo has 8 cores.\n/forget nosuch\nServer Gamma in Tromso has 2 cores.\n";
    let mut chat = knower_command(v);
    chat.arg("chat");
    let out = run(chat, input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("standard input line 2: error:"), "{stderr}");
    assert!(stderr.contains("1 line failed"), "{stderr}");
    let said = said(v);
    assert_eq!(
        said,
        [
            "Server Alpha in Oslo has 8 cores.",
            "Server Gamma in Tromso has 2 cores."
        ],
        "the line after the failing command is said"
    );
}

/// What the user said in the log's exchanges, in order.
fn said(vault: &Path) -> Vec<String> {
    records(vault)
        .iter()
        .map(|r| r["user"].as_str().unwrap().to_string())
        .collect()
}
