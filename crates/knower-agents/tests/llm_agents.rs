//! The update and search agents driven by scripted OpenAI-compatible and
//! Anthropic servers on 127.0.0.1, through the real HTTP client.

mod support;

use knower_agents::{Attachment, Outcome, Payload, Settings, Stop};
use knower_index::Mode;
use knower_testkit::llm::{Protocol, ScriptedServer, Step, anthropic, openai};
use serde_json::json;
use support::Fixture;

fn filed(summary: &str) -> String {
    json!({"outcome": "filed", "summary": summary}).to_string()
}

#[test]
fn a_multi_step_tool_run_files_a_note_with_its_reasons() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::tool_calls(&[(
                "c1",
                "search",
                json!({"query": "geocoding certificate", "scope": "project:atlas"}),
            )])),
            Step::json(openai::tool_calls(&[(
                "c2",
                "read",
                json!({"path": "projects/atlas/state.md"}),
            )])),
            Step::json(openai::tool_calls(&[
                (
                    "c3",
                    "append",
                    json!({"path": "projects/atlas/tasks.md", "content": "- [ ] Renew the TLS certificate of the geocoding API", "reason": "a task of the Atlas geocoding API"}),
                ),
                (
                    "c4",
                    "move",
                    json!({"from": "bucket/nothing.png", "to": "projects/atlas/", "reason": "x"}),
                ),
            ])),
            Step::json(openai::text(&format!(
                "```json\n{}\n```",
                filed("added the certificate renewal to Atlas's tasks")
            ))),
        ],
    );
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    let before = fx.changelog_entries().len();
    let payload = Payload {
        text: "Renew the TLS certificate of the geocoding API before Friday".into(),
        attachments: vec![Attachment::new("cert.png", b"\x89PNG fake".to_vec())],
        ..Payload::default()
    };
    let report = agents.update(payload).unwrap();

    assert_eq!(report.outcome, Outcome::Filed, "{report:?}");
    assert_eq!(report.steps, 4);
    assert!(
        fx.read("projects/atlas/tasks.md")
            .contains("- [ ] Renew the TLS certificate")
    );
    assert!(
        report
            .changed
            .contains(&"projects/atlas/tasks.md".to_string())
    );
    // The image is stored in the vault before the run and shown to the model.
    let stored = report
        .changed
        .iter()
        .find(|p| p.ends_with("cert.png"))
        .unwrap();
    assert_eq!(fx.vault.read_bytes(stored).unwrap(), b"\x89PNG fake");
    let first = &server.requests()[0].body;
    assert!(first.to_string().contains("image/png"), "the image is sent");
    // The start-up context is the stable prefix: overview, profile, tree.
    let system = first["messages"][0]["content"].as_str().unwrap();
    for part in [
        "update agent",
        "path=\"overview.md\"",
        "path=\"profile.md\"",
        "path=\"tree.md\"",
        "projects/",
    ] {
        assert!(system.contains(part), "system prompt lacks {part}");
    }
    // Tool results go back to the model.
    let second = server.requests()[1].body["messages"].to_string();
    assert!(
        second.contains("projects/atlas/state.md:"),
        "search results returned: {second}"
    );
    // A failed tool call (moving a folder that is not there) is reported, not fatal.
    assert!(report.tool_calls.iter().any(|c| c.tool == "move" && !c.ok));
    // Exactly one global changelog entry, with the summary and usage.
    let entries = fx.changelog_entries();
    assert_eq!(entries.len(), before + 1);
    assert!(
        entries[0].contains("certificate renewal") && entries[0].contains(&report.id),
        "{}",
        entries[0]
    );
    // The journal records the agent's own reason, after the update's id
    // (which is how an interrupted update is found again).
    let log = fx.vault.log().unwrap();
    let reason = format!("{}: a task of the Atlas geocoding API", report.id);
    assert!(log.iter().any(|r| r.actor == "agent" && r.reason == reason));
    assert_eq!(report.usage.unwrap().calls, 4);
}

#[test]
fn the_search_agent_answers_with_checked_citations_and_only_read_tools() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::AnthropicMessages,
        vec![
            Step::json(anthropic::tool_uses(&[(
                "t1",
                "search",
                json!({"query": "geocoding database", "mode": "fast"}),
            )])),
            // A citation of a file that does not exist gets one correction…
            Step::json(anthropic::text(
                "Atlas runs on MySQL (projects/atlas/db.md:3).",
            )),
            Step::json(anthropic::text(
                "The geocoding API runs on **Postgres 16 with PostGIS** (projects/atlas/state.md:8).",
            )),
        ],
    );
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    let answer = agents
        .ask("Which database does the geocoding API use?", Mode::Fast)
        .unwrap();
    assert!(answer.markdown.contains("Postgres 16"));
    assert!(answer.found);
    assert_eq!(answer.sources.len(), 1);
    assert_eq!(answer.sources[0].path, "projects/atlas/state.md");
    assert_eq!(answer.sources[0].line_start, 8);
    assert_eq!(
        fx.read("projects/atlas/state.md").lines().nth(7).unwrap(),
        "The geocoding API runs on Postgres 16 with PostGIS."
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests[2]
            .body
            .to_string()
            .contains("projects/atlas/db.md:3"),
        "the correction names the bad citation"
    );
    // The search agent was given the read tools and nothing else.
    let tools: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["tree", "read", "search"]);
    assert_eq!(requests[0].header("x-api-key"), Some("test-key"));
}

#[test]
fn the_search_agent_cannot_write_even_if_the_model_tries() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::tool_calls(&[(
                "w",
                "write",
                json!({"path": "hacked.md", "content": "x", "reason": "r"}),
            )])),
            Step::json(openai::text("The vault does not say.")),
            Step::json(openai::text("The vault does not say.")),
        ],
    );
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    let answer = agents.ask("anything?", Mode::Fast).unwrap();
    assert!(fx.vault.read("hacked.md").is_err());
    let reply = server.requests()[1].body["messages"].to_string();
    assert!(reply.contains("there is no tool named `write`"), "{reply}");
    // An answer that cites nothing is not accepted: asked again once, then
    // the offline answer is given, saying why.
    assert_eq!(server.requests().len(), 3);
    assert_eq!(answer.engine, "offline engine");
    assert!(
        answer
            .markdown
            .contains("the model's answer cited nothing in the vault"),
        "{}",
        answer.markdown
    );
}

#[test]
fn an_answer_without_a_tool_call_or_that_parrots_the_question_is_not_accepted() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            // A server that dropped the tools: a text answer at once.
            Step::json(openai::text("")),
            Step::json(openai::text("")),
            Step::json(openai::tool_calls(&[(
                "s",
                "search",
                json!({"query": "geocoder"}),
            )])),
            Step::json(openai::text("Where is the geocoder?")),
            Step::json(openai::text("Where is the geocoder?")),
        ],
    );
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    let first = agents.ask("Where is the geocoder?", Mode::Fast).unwrap();
    let sent = server.requests();
    assert_eq!(
        sent[0].body["tool_choice"], "required",
        "the first call asks for a tool"
    );
    let correction = sent[1].body["messages"].to_string();
    assert!(
        correction.contains("Call one of the tools first"),
        "{correction}"
    );
    assert_eq!(first.engine, "offline engine");
    assert!(
        first.markdown.contains("without calling a tool"),
        "{}",
        first.markdown
    );
    assert!(
        !first.markdown.contains("Call one of the tools"),
        "the model's words stay the model's"
    );

    let second = agents.ask("Where is the geocoder?", Mode::Fast).unwrap();
    assert_eq!(second.engine, "offline engine");
    assert!(
        second.markdown.contains("only repeated the question"),
        "{}",
        second.markdown
    );
    assert_eq!(server.remaining(), 0);
}

#[test]
fn a_scope_outside_the_vault_is_the_askers_mistake_and_no_model_is_called() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![Step::json(openai::text("The vault does not say."))],
    );
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    for scope in ["path:../..", "/etc", "project:a/b"] {
        let error = agents
            .ask_within("anything?", Mode::Fast, Some(scope))
            .unwrap_err();
        assert!(
            matches!(
                error,
                knower_agents::Error::Index(knower_index::Error::BadQuery(_))
            ),
            "{scope}: {error:?}"
        );
    }
    assert!(server.requests().is_empty());
}

#[test]
fn invalid_final_json_is_corrected_once() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::tool_calls(&[(
                "c1",
                "append",
                json!({"path": "projects/garden/state.md", "content": "Beans sown on the 3rd.", "reason": "garden news"}),
            )])),
            Step::json(openai::text("I filed it in the garden.")),
            Step::json(openai::text(&filed(
                "noted the beans in the garden's state",
            ))),
        ],
    );
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    let report = agents
        .update(Payload::text("Beans sown on the 3rd"))
        .unwrap();
    assert_eq!(report.outcome, Outcome::Filed);
    let correction = server.requests()[2].body["messages"].to_string();
    assert!(
        correction.contains("Return only the JSON object"),
        "{correction}"
    );
    assert!(fx.read("projects/garden/state.md").contains("Beans sown"));
}

#[test]
fn output_invalid_twice_fails_and_says_so() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::text("done")),
            Step::json(openai::text("{\"outcome\": \"maybe\"}")),
        ],
    );
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    let report = agents
        .update(Payload::text("Some note about nothing"))
        .unwrap();
    assert_eq!(report.outcome, Outcome::Failed);
    assert!(
        report
            .error
            .as_deref()
            .unwrap()
            .contains("invalid after 2 attempts"),
        "{report:?}"
    );
    // Nothing was filed, so the update waits in the inbox: nothing lost.
    let items = knower_agents::inbox_list(&fx.vault).unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].text, "Some note about nothing");
}

#[test]
fn tool_calls_aimed_outside_the_vault_are_refused_and_nothing_is_written() {
    let fx = Fixture::new();
    let outside = fx.dir.path().parent().unwrap().join("escape.md");
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::tool_calls(&[
                ("a", "write", json!({"path": "../escape.md", "content": "x", "reason": "r"})),
                ("b", "write", json!({"path": outside.to_str().unwrap(), "content": "x", "reason": "r"})),
                ("c", "read", json!({"path": "../../etc/passwd"})),
                ("d", "move", json!({"from": "projects/atlas", "to": "../atlas", "reason": "r"})),
                ("e", "write", json!({"path": ".knower/journal/changes.jsonl", "content": "x", "reason": "r"})),
                ("f", "append", json!({"path": "changelog.md", "content": "- fake entry", "reason": "r"})),
            ])),
            Step::json(openai::text(&json!({"outcome": "inbox", "reasoning": "I could not write where I wanted.", "options": ["projects/atlas/state.md"]}).to_string())),
        ],
    );
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    let journal_before = fx.vault.log().unwrap().len();
    let report = agents.update(Payload::text("Escape attempt")).unwrap();
    assert_eq!(report.tool_calls.len(), 6);
    assert!(
        report.tool_calls.iter().all(|c| !c.ok),
        "{:?}",
        report.tool_calls
    );
    assert!(!outside.exists());
    assert!(
        fx.vault.read("projects/atlas/description.md").is_ok(),
        "not moved"
    );
    assert!(!fx.read("changelog.md").contains("fake entry"));
    // Only the inbox item and the one changelog entry were written.
    assert_eq!(report.outcome, Outcome::Inbox);
    let new: Vec<_> = fx
        .vault
        .log()
        .unwrap()
        .into_iter()
        .skip(journal_before)
        .collect();
    for record in &new {
        for f in &record.files {
            let p = f.path.as_str();
            assert!(
                p.starts_with("inbox/") || p == "changelog.md",
                "unexpected change to {p}"
            );
        }
    }
    let review = &knower_agents::inbox_list(&fx.vault).unwrap()[0].review;
    assert!(review.contains("I could not write where I wanted."));
}

#[test]
fn a_run_that_hits_its_step_bound_stops_keeps_its_writes_and_reports_it() {
    let fx = Fixture::new();
    let search = || {
        Step::json(openai::tool_calls(&[(
            "s",
            "search",
            json!({"query": "tomatoes"}),
        )]))
    };
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::tool_calls(&[(
                "w",
                "append",
                json!({"path": "projects/garden/state.md", "content": "Tomatoes need stakes.", "reason": "garden"}),
            )])),
            search(),
            search(),
            search(),
            search(),
        ],
    );
    let settings = Settings {
        max_steps: 3,
        ..Settings::default()
    };
    let agents = fx.with_llm(&server, settings, 10.0);
    let report = agents
        .update(Payload::text("Tomatoes need stakes"))
        .unwrap();
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.stopped, Some(Stop::Steps));
    assert_eq!(report.steps, 3);
    assert_eq!(server.remaining(), 2, "no call beyond the bound");
    assert!(
        fx.read("projects/garden/state.md")
            .contains("Tomatoes need stakes.")
    );
    assert!(
        report
            .changed
            .contains(&"projects/garden/state.md".to_string())
    );
    let entry = &fx.changelog_entries()[0];
    assert!(
        entry.contains("stopped") && entry.contains("projects/garden/state.md"),
        "{entry}"
    );
    assert!(knower_agents::inbox_list(&fx.vault).unwrap().is_empty());
}

#[test]
fn a_model_that_times_out_leaves_the_update_in_the_inbox() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![Step::json(openai::text("late")).after(std::time::Duration::from_secs(3))],
    );
    let agents = fx.with_llm(&server, Settings::default(), 0.3);
    let report = agents
        .update(Payload::text("A thought worth keeping"))
        .unwrap();
    assert_eq!(report.outcome, Outcome::Failed);
    assert!(
        report
            .error
            .as_deref()
            .unwrap()
            .contains("did not answer within"),
        "{report:?}"
    );
    let items = knower_agents::inbox_list(&fx.vault).unwrap();
    assert_eq!(items[0].text, "A thought worth keeping");
}

#[test]
fn an_answer_to_an_inbox_item_is_filed_and_the_item_removed() {
    let fx = Fixture::new();
    let id = fx.parked("Quarterly numbers look fine");
    let server = ScriptedServer::start(
        Protocol::AnthropicMessages,
        vec![
            Step::json(anthropic::tool_uses(&[(
                "a",
                "append",
                json!({"path": "projects/thesis/state.md", "content": "Quarterly numbers look fine.", "reason": "the user said it belongs to the thesis"}),
            )])),
            Step::json(anthropic::text(&filed(
                "filed the quarterly numbers in the thesis",
            ))),
        ],
    );
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    let payload = Payload {
        text: "It is about my thesis funding".into(),
        inbox_ref: Some(id.clone()),
        ..Payload::default()
    };
    let report = agents.update(payload).unwrap();
    assert_eq!(report.outcome, Outcome::Resolved);
    assert!(
        fx.vault.tree(&format!("inbox/{id}"), None).is_err(),
        "the item is gone"
    );
    let sent = server.requests()[0].body["messages"].to_string();
    assert!(sent.contains("Quarterly numbers look fine") && sent.contains("thesis funding"));
    assert!(
        fx.read("projects/thesis/state.md")
            .contains("Quarterly numbers")
    );
}

#[test]
fn the_digest_sits_in_the_stable_prefix_and_deleting_it_turns_it_off() {
    let fx = Fixture::new();
    let author = knower_vault::Author::new("test", "a harvest's digest");
    fx.vault
        .write(
            "knowledge/digest.md",
            "# Knowledge digest\n\n## Decisions\n\n- Keep Postgres 16 for the geocoder. [from: standup, 2026-11-20]\n",
            &author,
        )
        .unwrap();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::text("Nothing in the vault says.")),
            Step::json(openai::text("Nothing in the vault says.")),
            Step::json(openai::text("Nothing in the vault says.")),
            Step::json(openai::text("Nothing in the vault says.")),
        ],
    );
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    agents.ask("anything?", Mode::Fast).unwrap();
    let system = |n: usize| {
        server.requests()[n].body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let with = system(0);
    let digest = with
        .find("<file path=\"knowledge/digest.md\"")
        .expect("the knowledge block is sent");
    assert!(with[digest..].contains("Keep Postgres 16 for the geocoder"));
    let profile = with.find("<file path=\"profile.md\"").unwrap();
    let tree = with.find("<file path=\"tree.md\"").unwrap();
    let today = with.find("Today is").unwrap();
    assert!(
        profile < digest && digest < tree && tree < today,
        "the digest comes before what changes per request"
    );

    // Delete to turn off: no knowledge block reaches the model.
    fx.vault.delete("knowledge/digest.md", &author).unwrap();
    agents.ask("anything?", Mode::Fast).unwrap();
    // (Each answer that cites nothing is asked for twice.)
    let without = system(2);
    assert!(!without.contains("knowledge/digest.md"), "{without}");
    assert!(!without.contains("Keep Postgres 16"));
}

/// Settings for a model that does not drive the tools (a local one).
fn grounded() -> Settings {
    Settings {
        use_tools: Some(false),
        ..Settings::default()
    }
}

#[test]
fn a_grounded_model_chooses_among_the_places_a_schema_admits_and_knower_files() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::text(
                r#"{"reasoning": "Stakes are for the tomatoes.", "place": "projects/garden/state.md"}"#,
            )),
            Step::json(openai::text(
                r#"{"reasoning": "Could be the garden or the thesis.", "place": "inbox"}"#,
            )),
        ],
    );
    let agents = fx.with_llm(&server, grounded(), 10.0);
    let filed = agents
        .update(Payload::text("Tomatoes need stakes."))
        .unwrap();
    assert_eq!(filed.outcome, Outcome::Filed, "{filed:?}");
    assert_eq!(filed.rule.as_deref(), Some("model"));
    assert!(
        fx.read("projects/garden/state.md")
            .contains("Tomatoes need stakes.")
    );
    assert_eq!(
        filed.reasoning.as_deref(),
        Some("Stakes are for the tomatoes.")
    );
    let sent = &server.requests()[0].body;
    assert!(
        sent.get("tools").is_none(),
        "a grounded model is given no tools"
    );
    let schema = &sent["response_format"]["json_schema"]["schema"];
    assert!(knower_llm::is_plain(schema), "{schema:#}");
    let places: Vec<&str> = schema["properties"]["place"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    for place in [
        "projects/garden/state.md",
        "projects/atlas/state.md",
        "profile.md",
        "bucket/",
        "inbox",
    ] {
        assert!(places.contains(&place), "{place} in {places:?}");
    }

    let asked = agents
        .update(Payload::text("Compost for the lab plants"))
        .unwrap();
    assert_eq!(asked.outcome, Outcome::Inbox);
    let items = knower_agents::inbox_list(&fx.vault).unwrap();
    assert_eq!(items.len(), 1);
    let review = fx.read(&format!("inbox/{}/review.md", items[0].id));
    assert!(
        review.contains("Could be the garden or the thesis."),
        "{review}"
    );
}

#[test]
fn a_grounded_model_whose_reply_stays_invalid_leaves_the_update_failed_in_the_inbox() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::text(
                r#"{"reasoning": "x", "place": "projects/../../etc"}"#,
            )),
            Step::json(openai::text("not json at all")),
        ],
    );
    let agents = fx.with_llm(&server, grounded(), 10.0);
    let report = agents
        .update(Payload::text("Tomatoes need stakes."))
        .unwrap();
    assert_eq!(report.outcome, Outcome::Failed);
    let error = report.error.as_deref().unwrap();
    assert!(error.contains("stayed invalid after a retry"), "{error}");
    assert!(!error.contains("Your previous reply"), "{error}");
    let items = knower_agents::inbox_list(&fx.vault).unwrap();
    assert_eq!(items[0].text, "Tomatoes need stakes.", "kept, not lost");
    assert!(!fx.read("projects/garden/state.md").contains("stakes"));
}

#[test]
fn an_exact_answer_to_an_inbox_item_needs_no_model() {
    let fx = Fixture::new();
    let id = fx.parked("Quarterly numbers look fine");
    // A server with nothing to say: any call would fail the update.
    let server = ScriptedServer::start(Protocol::OpenAiChat, vec![]);
    let agents = fx.with_llm(&server, Settings::default(), 10.0);
    let answer = Payload {
        text: "project thesis".into(),
        inbox_ref: Some(id.clone()),
        ..Payload::default()
    };
    let report = agents.update(answer).unwrap();
    assert_eq!(report.outcome, Outcome::Resolved, "{report:?}");
    assert!(server.requests().is_empty(), "no model call");
    assert!(
        fx.read("projects/thesis/state.md")
            .contains("Quarterly numbers")
    );
}

#[test]
fn a_grounded_model_reads_a_sentence_answer_to_an_inbox_item() {
    let fx = Fixture::new();
    let id = fx.parked("Quarterly numbers look fine");
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![Step::json(openai::text(
            r#"{"reasoning": "The answer names the thesis.", "place": "projects/thesis/state.md"}"#,
        ))],
    );
    let agents = fx.with_llm(&server, grounded(), 10.0);
    let answer = Payload {
        text: "It is about the funding of my thesis, file it there".into(),
        inbox_ref: Some(id.clone()),
        ..Payload::default()
    };
    let report = agents.update(answer).unwrap();
    assert_eq!(report.outcome, Outcome::Resolved, "{report:?}");
    assert!(fx.vault.tree(&format!("inbox/{id}"), None).is_err());
    assert!(
        fx.read("projects/thesis/state.md")
            .contains("Quarterly numbers")
    );
    let sent = server.requests()[0].body["messages"].to_string();
    assert!(sent.contains("funding of my thesis") && sent.contains("discard"));
}

#[test]
fn a_grounded_answer_cites_only_passages_it_was_given_and_an_empty_one_falls_back() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::text(
                r#"{"answer": "On Postgres 16 with PostGIS.", "cites": ["projects/atlas/state.md:6-9"]}"#,
            )),
            Step::json(openai::text(r#"{"answer": "", "cites": []}"#)),
            Step::json(openai::text(r#"{"answer": "  ", "cites": []}"#)),
        ],
    );
    let agents = fx.with_llm(&server, grounded(), 10.0);
    let answer = agents
        .ask("Which database does the geocoding API run on?", Mode::Fast)
        .unwrap();
    let sent = &server.requests()[0].body;
    let labels =
        &sent["response_format"]["json_schema"]["schema"]["properties"]["cites"]["items"]["enum"];
    let labels: Vec<&str> = labels
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(labels.iter().all(|l| l.contains(".md:")), "{labels:?}");
    assert!(
        labels.contains(&"projects/atlas/state.md:6-9"),
        "{labels:?}"
    );
    assert_eq!(
        answer.engine, "openai-compatible:scripted-model",
        "{}",
        answer.markdown
    );
    assert!(answer.markdown.contains("Postgres 16"));
    assert_eq!(answer.sources[0].path, "projects/atlas/state.md");

    let fallback = agents
        .ask("Which database does the geocoding API run on?", Mode::Fast)
        .unwrap();
    assert_eq!(fallback.engine, "offline engine");
    assert!(
        fallback.markdown.contains("the model's answer was empty"),
        "{}",
        fallback.markdown
    );
    assert!(fallback.found);
}
