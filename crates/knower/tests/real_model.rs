//! The agents against a real inference server and a real small model
//! (llama-cpp-python's server with Gemma 3 270M, installed from PyPI by
//! `knower_testkit::real_llm`). A 270M model's judgement is poor; what is
//! asserted is what must hold whatever the model's quality: every update
//! ends filed or in the inbox by the model's own decision (at most one in
//! ten `failed`, each kept and retryable), nothing is lost, no empty or
//! uncited answer is accepted, every JSON the agents read is schema-valid
//! (else the update could not have been filed), and the vault stays valid.

mod support;

use std::path::Path;
use std::process::Command;

use knower_testkit::real_llm::{self, RealLlm};
use serde_json::Value;
use support::knower_command;

const ROUTING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../knower-agents/tests/routing"
);

/// `knower --json ARGS` with the real model configured; its JSON and
/// whether it succeeded.
fn with_model(server: &RealLlm, vault: &Path, args: &[&str]) -> (Value, bool) {
    let mut command: Command = knower_command(vault);
    command
        .env("KNOWER_LLM", server.model)
        .env("KNOWER_LLM_BASE_URL", &server.base_url)
        .arg("--json")
        .args(args);
    let out = support::run(command, "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let json = serde_json::from_str(&stdout)
        .or_else(|_| serde_json::from_str(&stderr))
        .unwrap_or_else(|_| panic!("knower {args:?} printed no JSON:\n{stdout}\n{stderr}"));
    (json, out.status.success())
}

/// A vault holding the routing fixture's projects.
fn routing_vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    support::knower(dir.path(), &["init"], "");
    for (path, text) in knower_testkit::files::texts(&Path::new(ROUTING).join("vault")) {
        support::knower(dir.path(), &["write", &path], &text);
    }
    dir
}

/// The text of every markdown file of the vault, inbox items included.
fn all_text(vault: &Path) -> String {
    knower_testkit::files::texts(vault)
        .into_iter()
        .map(|(_, text)| text)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_agents_hold_up_against_a_real_local_model() {
    let server = real_llm::start();
    let dir = routing_vault();
    let vault = dir.path();

    // Updates: the held-out routing set, each filed by the model's choice.
    let set = std::fs::read_to_string(Path::new(ROUTING).join("holdout.tsv")).unwrap();
    let updates: Vec<&str> = set
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t').map(|(_, text)| text))
        .collect();
    let (mut filed, mut inbox, mut failed) = (0, 0, 0);
    for text in &updates {
        let (report, _) = with_model(&server, vault, &["update", text]);
        let outcome = report["outcome"].as_str().or(report["state"].as_str());
        match outcome.unwrap_or_default() {
            "filed" => {
                filed += 1;
                assert_eq!(report["engine"], server.model, "{report:#}");
                let reasoning = report["reasoning"].as_str().unwrap_or_default();
                assert!(
                    !reasoning.trim().is_empty(),
                    "a decision says why: {report:#}"
                );
            }
            "inbox" => inbox += 1,
            "failed" => {
                failed += 1;
                assert!(report["error"].as_str().is_some(), "{report:#}");
            }
            other => panic!("unexpected outcome {other}: {report:#}"),
        }
        // Nothing lost: the text is in the vault, filed or waiting.
        let words: String = text.chars().take(40).collect();
        assert!(
            all_text(vault).contains(&words),
            "{text} was lost: {report:#}"
        );
    }
    let n = updates.len();
    eprintln!("real model: {filed} filed, {inbox} inbox, {failed} failed of {n}");
    assert!(
        (filed + inbox) * 10 >= n * 9,
        "at least 90% filed or in the inbox by the model's decision: {filed} + {inbox} of {n}"
    );

    // Inbox answers: an exact one is applied without the model; a sentence
    // is read by it, and either settles the item or leaves it with the
    // model's reasoning.
    let mut offline = knower_command(vault);
    offline.env("KNOWER_LLM", "off").args(["--json", "update"]);
    let parked: Value = serde_json::from_str(&support::succeed(
        {
            let mut c = offline;
            c.arg("hmm, something to think about later");
            c
        },
        "",
    ))
    .unwrap();
    let item = parked["inbox_id"]
        .as_str()
        .expect("the offline engine parks it");
    let (answered, ok) = with_model(&server, vault, &["inbox", "reply", item, "bucket"]);
    assert!(ok, "{answered:#}");
    assert_eq!(answered["outcome"], "resolved", "{answered:#}");
    assert!(all_text(vault).contains("something to think about later"));

    let mut offline = knower_command(vault);
    offline.env("KNOWER_LLM", "off").args([
        "--json",
        "update",
        "an odd thought about nothing much",
    ]);
    let parked: Value = serde_json::from_str(&support::succeed(offline, "")).unwrap();
    let item = parked["inbox_id"].as_str().expect("parked");
    let (answered, _) = with_model(
        &server,
        vault,
        &[
            "inbox",
            "reply",
            item,
            "this belongs with the house renovation notes",
        ],
    );
    let outcome = answered["outcome"].as_str().unwrap_or_default();
    let error = answered["error"].as_str().unwrap_or_default();
    assert!(
        ["resolved", "inbox", "discarded"].contains(&outcome) || !error.is_empty(),
        "{answered:#}"
    );
    if outcome != "discarded" {
        assert!(all_text(vault).contains("an odd thought about nothing much"));
    }

    // Questions: an answer cites the vault, or is the offline answer that
    // says why the model's was not accepted; never empty.
    for question in [
        "What is the state of the Atlas geocoder?",
        "When is the trip to Japan?",
    ] {
        let (answer, ok) = with_model(&server, vault, &["ask", question]);
        assert!(ok, "{answer:#}");
        let markdown = answer["markdown"].as_str().unwrap_or_default();
        assert!(!markdown.trim().is_empty(), "{answer:#}");
        if answer["engine"] == "offline engine" {
            assert!(markdown.contains("the model's answer"), "{markdown}");
        } else {
            assert!(
                !answer["sources"].as_array().unwrap().is_empty(),
                "a model's answer cites the vault: {answer:#}"
            );
        }
    }

    // Chat: a reply is never empty.
    let (exchange, ok) = with_model(
        &server,
        vault,
        &["chat", "What should I work on today for the thesis?"],
    );
    assert!(ok, "{exchange:#}");
    let reply = exchange["assistant"].as_str().unwrap_or_default();
    assert!(!reply.trim().is_empty(), "{exchange:#}");

    // Harvest: a real-format Claude Code session; harvested or failed
    // visibly, with the source kept and the ledger saying which.
    let sessions = tempfile::tempdir().unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../knower-harvest/tests/fixtures/claude-code");
    for (path, text) in knower_testkit::files::texts(&fixture) {
        let to = sessions.path().join(path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, text).unwrap();
    }
    let (harvest, _) = with_model(
        &server,
        vault,
        &["harvest", "--apply", sessions.path().to_str().unwrap()],
    );
    let harvested = harvest["harvested"].as_u64().unwrap_or(0);
    let failed = harvest["failed"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!(harvested as usize + failed, 1, "{harvest:#}");
    let ledger: Value = serde_json::from_str(
        &std::fs::read_to_string(vault.join("knowledge/ledger.json")).unwrap(),
    )
    .unwrap();
    assert!(ledger.to_string().contains("7d3c2a1e"), "{ledger:#}");

    // Garden: a real page, the model's candidates schema-valid or a
    // visible error.
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/bench/qmd_eval/eval-docs/distributed-systems-overview.md"),
    );
    if let Ok(page) = page {
        let config = knower_llm::LlmConfig::resolve(
            &format!(
                "[llm]\nprovider = \"llamacpp\"\nmodel = \"gemma\"\nbase_url = \"{}\"\n",
                server.base_url
            ),
            &|_| None,
        )
        .unwrap()
        .unwrap();
        let llm = knower_llm::Llm::new(config).unwrap();
        let topic = knower_garden::Topic::new("distributed systems", 1, 30);
        match knower_garden::extract::with_model(
            &llm,
            knower_garden::BUILT_IN_PROMPT,
            &topic,
            "Distributed systems overview",
            &page,
            knower_garden::Credibility::Medium,
        ) {
            Ok(found) => {
                for fact in &found {
                    assert!(!fact.statement.trim().is_empty());
                    assert!((0.0..=1.0).contains(&fact.confidence));
                }
            }
            Err(e) => assert!(!e.trim().is_empty()),
        }
    }

    // The vault is valid: no problem found, nothing pending.
    let (status, ok) = with_model(&server, vault, &["status"]);
    assert!(ok);
    assert_eq!(status["problems"], serde_json::json!([]), "{status:#}");
}
