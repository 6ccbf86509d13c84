//! The chat against a scripted model on 127.0.0.1 (both wire protocols):
//! the answer streamed, the interpreter's structured output validated and
//! retried once, the seed's double-exchange bug, resolution linking, a
//! session resumed days later, expiry, invalid output, a dropped stream;
//! and the offline engine by its rules.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use knower_agents::{Agents, Engine, Settings as AgentSettings};
use knower_chat::{Change, Chat, Kind, Settings, Status};
use knower_index::Index;
use knower_llm::{Llm, LlmConfig};
use knower_testkit::llm::{Protocol, ScriptedServer, Step, anthropic, openai};
use knower_vault::{Author, Vault};
use serde_json::{Value, json};

struct Fixture {
    _dir: tempfile::TempDir,
    vault: Arc<Vault>,
    index: Arc<Index>,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let author = Author::new("test", "fixture");
        let (vault, _) = Vault::init(dir.path(), &author).unwrap();
        vault
            .write(
                "projects/atlas/state.md",
                "# Atlas\n\nThe geocoder runs on Postgres 16.\nThe pool holds 10 connections.\n",
                &author,
            )
            .unwrap();
        let vault = Arc::new(vault);
        let index = Index::open(vault.clone()).unwrap();
        index.catch_up(&mut |_, _| {}).unwrap();
        Fixture {
            _dir: dir,
            vault,
            index,
        }
    }

    fn chat(&self, server: Option<&ScriptedServer>) -> Chat {
        let engine = match server {
            None => Engine::Offline,
            Some(server) => {
                let provider = match server.protocol() {
                    Protocol::OpenAiChat => "openai-compatible",
                    Protocol::AnthropicMessages => "anthropic",
                };
                let file = format!(
                    "[llm]\nprovider = \"{provider}\"\nmodel = \"scripted\"\nbase_url = \"{}\"\nmax_retries = 0\ntimeout_secs = 5\n",
                    server.base_url()
                );
                let env =
                    |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "test-key".to_string());
                let config = LlmConfig::resolve(&file, &env).unwrap().unwrap();
                Engine::Llm(Arc::new(
                    Llm::new(config)
                        .unwrap()
                        .with_backoff(Duration::from_millis(5)),
                ))
            }
        };
        let agents = Agents::new(
            self.vault.clone(),
            self.index.clone(),
            engine,
            AgentSettings::default(),
        );
        Chat::with(
            self.vault.clone(),
            self.index.clone(),
            Arc::new(agents),
            Settings::default(),
        )
    }

    fn log(&self) -> String {
        self.vault.read("chat/log.jsonl").unwrap_or_default()
    }
}

fn stream(protocol: Protocol, pieces: &[&str]) -> Step {
    Step::sse(match protocol {
        Protocol::OpenAiChat => openai::stream(pieces),
        Protocol::AnthropicMessages => anthropic::stream(pieces),
    })
}

fn json_reply(protocol: Protocol, value: Value) -> Step {
    Step::json(match protocol {
        Protocol::OpenAiChat => openai::text(&value.to_string()),
        Protocol::AnthropicMessages => anthropic::text(&value.to_string()),
    })
}

fn say(chat: &Chat, session: &str, message: &str) -> knower_chat::Exchange {
    let mut streamed = String::new();
    let exchange = chat
        .exchange(session, message, &AtomicBool::new(false), &mut |p| {
            streamed.push_str(p)
        })
        .unwrap();
    assert_eq!(
        streamed, exchange.assistant,
        "what was streamed is what was kept"
    );
    exchange
}

#[test]
fn an_effort_is_resolved_in_place_never_doubled_in_both_protocols() {
    for protocol in [Protocol::OpenAiChat, Protocol::AnthropicMessages] {
        let fx = Fixture::new();
        let server = ScriptedServer::start(protocol, vec![]);
        let chat = fx.chat(Some(&server));
        server.push(stream(protocol, &["Let's look at ", "the pool size."]));
        server.push(json_reply(
            protocol,
            json!({"actions": [{"action": "create", "kind": "effort", "summary": "Choose the geocoder's connection pool size", "tags": ["geocoder"]}]}),
        ));
        let first = say(
            &chat,
            "s1",
            "How big should the geocoder's connection pool be?",
        );
        let Change::Created { artifact: effort } = &first.changes[0] else {
            panic!("{:?}", first.changes)
        };
        assert_eq!((effort.kind, effort.status), (Kind::Effort, Status::Open));

        // The seed's bug: the model records the settled effort as a new one.
        // The validation refuses it and names the open effort; the retry
        // resolves that one.
        server.push(stream(protocol, &["32 it is."]));
        server.push(json_reply(
            protocol,
            json!({"actions": [{"action": "create", "kind": "effort", "summary": "Choose the geocoder connection pool size: 32"}]}),
        ));
        server.push(json_reply(
            protocol,
            json!({"actions": [{"action": "resolve", "effort": effort.id, "resolution": "32 connections, for the 16 render workers"}]}),
        ));
        let second = say(&chat, "s1", "Let's go with 32 connections.");
        let Change::Resolved { artifact: resolved } = &second.changes[0] else {
            panic!("{:?}", second.changes)
        };
        assert_eq!(resolved.id, effort.id, "the open effort itself is resolved");
        assert_eq!(resolved.resolved_by.as_deref(), Some(second.id.as_str()));
        let correction = server.requests()[4].body.to_string();
        assert!(
            correction.contains(&effort.id) && correction.contains("already open"),
            "{correction}"
        );
        let (all, _) = chat.artifacts();
        assert_eq!(
            all.iter().filter(|a| a.kind == Kind::Effort).count(),
            1,
            "never a second effort"
        );
        let note = fx
            .vault
            .read(&format!("chat/artifacts/{}.md", effort.id))
            .unwrap();
        assert!(note.contains("Resolution: 32 connections"), "{note}");

        // The second answer saw the first exchange and the open effort.
        let request = server.requests()[2].body.to_string();
        assert!(
            request.contains("How big should the geocoder") && request.contains(&effort.id),
            "{request}"
        );
        assert_eq!(fx.log().lines().count(), 2);
    }
}

#[test]
fn an_effort_opened_days_ago_is_found_and_resolved_in_a_new_session() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(Protocol::OpenAiChat, vec![]);
    let chat = fx.chat(Some(&server));
    server.push(stream(Protocol::OpenAiChat, &["Good question."]));
    server.push(json_reply(
        Protocol::OpenAiChat,
        json!({"actions": [{"action": "create", "kind": "effort", "summary": "Pick a hotel in Kyoto for April", "tags": ["japan"]}]}),
    ));
    let opened = say(
        &chat,
        "monday",
        "Which hotel should we book in Kyoto for April?",
    );
    let Change::Created { artifact: effort } = &opened.changes[0] else {
        panic!()
    };
    // Days later, another session: the open effort is in the context, and
    // the model resolves it.
    server.push(stream(
        Protocol::OpenAiChat,
        &["Noted: the Ryokan Yachiyo."],
    ));
    server.push(json_reply(
        Protocol::OpenAiChat,
        json!({"actions": [{"action": "resolve", "effort": effort.id, "resolution": "Ryokan Yachiyo, booked"}]}),
    ));
    let later = say(&chat, "thursday", "We booked the Ryokan Yachiyo.");
    assert!(matches!(&later.changes[0], Change::Resolved { artifact } if artifact.id == effort.id));
    assert_eq!(later.context.efforts, 1);
    assert_eq!(
        later.context.history, 0,
        "another session: no history carried"
    );
    let request = server.requests()[2].body.to_string();
    assert!(request.contains("Pick a hotel in Kyoto"), "{request}");
    assert!(
        !request.contains("Which hotel should we book"),
        "the old session's words are not carried"
    );
}

#[test]
fn unreferenced_facts_that_may_expire_are_archived_not_deleted() {
    let fx = Fixture::new();
    let chat = fx.chat(None);
    let author = Author::new("test", "an old fact");
    fx.vault
        .write(
            "chat/artifacts/f00000001.md",
            "---\nkind: \"fact\"\nstatus: \"active\"\ntags: []\nref_count: 0\nlast_referenced: \"2025-01-01T00:00:00Z\"\nexpires: true\nexchange: \"old\"\nlinks: []\n---\n# The office wifi password rotates on Fridays\n",
            &author,
        )
        .unwrap();
    fx.vault
        .write(
            "chat/artifacts/f00000002.md",
            "---\nkind: \"fact\"\nstatus: \"active\"\ntags: []\nref_count: 0\nlast_referenced: \"2025-01-01T00:00:00Z\"\nexpires: false\nexchange: \"old\"\nlinks: []\n---\n# The office wifi router sits in room 4\n",
            &author,
        )
        .unwrap();
    let exchange = say(&chat, "s", "Where is the office wifi router?");
    let expired = chat.artifact("f00000001").expect("kept");
    assert_eq!(expired.status, Status::Archived);
    assert_eq!(
        chat.artifact("f00000002").unwrap().status,
        Status::Active,
        "lasting facts stay"
    );
    let context = chat.context_for("s", "office wifi password rotates");
    assert!(
        !context.system.contains("password rotates"),
        "archived: out of every context"
    );
    assert!(context.system.contains("router sits in room 4"));
    let _ = exchange;
}

#[test]
fn invalid_interpretations_and_dropped_streams_lose_nothing_said() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(Protocol::AnthropicMessages, vec![]);
    let chat = fx.chat(Some(&server));
    server.push(stream(Protocol::AnthropicMessages, &["Sure."]));
    server.push(json_reply(
        Protocol::AnthropicMessages,
        json!({"actions": [{"action": "resolve", "effort": "e00000000", "resolution": "x"}]}),
    ));
    server.push(json_reply(
        Protocol::AnthropicMessages,
        json!({"verdict": "nothing"}),
    ));
    let exchange = say(&chat, "s", "Remember the milk.");
    let error = exchange.interpretation_error.expect("twice invalid");
    assert!(error.contains("kept in the log"), "{error}");
    assert!(exchange.changes.is_empty());
    assert_eq!(fx.log().lines().count(), 1, "the exchange is logged");
    assert!(chat.artifacts().0.is_empty());

    // A stream that breaks off: an error, and the log has none of it.
    let mut cut = anthropic::stream(&["The pool ", "holds"]);
    cut.truncate(cut.len() - 3);
    server.push(Step::sse(cut));
    let mut shown = String::new();
    let broken = chat.exchange(
        "s",
        "How big is the pool?",
        &AtomicBool::new(false),
        &mut |p| shown.push_str(p),
    );
    assert!(broken.is_err());
    assert_eq!(shown, "The pool holds");
    assert_eq!(
        fx.log().lines().count(),
        1,
        "a broken exchange is not logged"
    );
}

#[test]
fn the_context_takes_what_is_relevant_within_its_budget() {
    let fx = Fixture::new();
    let chat = fx.chat(None);
    let author = Author::new("test", "many facts");
    for i in 0..200 {
        let topic = if i == 117 {
            "the geocoder cache lives in Redis 7"
        } else {
            "the team lunch is on a weekday"
        };
        fx.vault
            .write(
                &format!("chat/artifacts/f{i:08x}.md"),
                &format!("---\nkind: \"fact\"\nstatus: \"active\"\ntags: []\nref_count: 0\nlast_referenced: \"2026-11-01T00:00:00Z\"\nexpires: false\nexchange: \"x\"\nlinks: []\n---\n# Fact {i}: {topic}\n"),
                &author,
            )
            .unwrap();
    }
    let context = chat.context_for("s", "Where does the geocoder cache live?");
    assert!(
        context
            .system
            .contains("Fact 117: the geocoder cache lives in Redis 7"),
        "{}",
        context.system
    );
    assert!(context.report.artifact_tokens <= chat.settings().artifact_tokens + 20);
    assert!(context.report.artifacts < 200, "not all of them");
    assert!(
        context.system.contains("projects/atlas/state.md:"),
        "vault passages, citable"
    );
    // Each message reports its size; it does not grow with the memory.
    assert!(context.report.tokens < 3000, "{:?}", context.report);
}

#[test]
fn offline_a_question_opens_an_effort_and_a_decision_resolves_it() {
    let fx = Fixture::new();
    let chat = fx.chat(None);
    let asked = say(&chat, "s", "Which database should the geocoder use?");
    assert!(
        asked.assistant.starts_with("_offline engine"),
        "{}",
        asked.assistant
    );
    assert_eq!(asked.engine, "offline engine");
    let Change::Created { artifact: effort } = &asked.changes[0] else {
        panic!("{:?}", asked.changes)
    };
    assert!(
        asked
            .citations
            .iter()
            .any(|c| c.path == "projects/atlas/state.md"),
        "{:?}",
        asked.citations
    );
    let decided = say(
        &chat,
        "s",
        "We decided: the geocoder database stays Postgres 16.",
    );
    assert!(
        matches!(&decided.changes[0], Change::Resolved { artifact } if artifact.id == effort.id)
    );
    let fact = say(&chat, "s", "My sister Ana moved to Lisbon in 2024.");
    assert!(
        matches!(&fact.changes[0], Change::Created { artifact } if artifact.kind == Kind::Fact)
    );
    let remember = say(&chat, "s", "Remember that the standup moves to 9:30.");
    assert_eq!(
        remember.remember.as_deref(),
        Some("the standup moves to 9:30.")
    );
    assert!(
        remember.changes.is_empty(),
        "it goes to the update agent instead"
    );

    // Correct and forget.
    let corrected = chat
        .correct(
            &effort.id,
            knower_chat::Correction {
                status: Some(Status::Open),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(corrected.status, Status::Open);
    let forgotten = chat.forget(&effort.id).unwrap();
    assert_eq!(forgotten.id, effort.id);
    assert!(chat.artifact(&effort.id).is_none());
    assert_eq!(fx.log().lines().count(), 4, "the log keeps what was said");
}

#[test]
fn an_exchange_logged_but_not_interpreted_is_interpreted_at_the_next_one() {
    let fx = Fixture::new();
    let chat = fx.chat(None);
    // As a process killed between the log line and the artifacts leaves it.
    let record = json!({"id": "20261101-090000-000001", "at": "2026-11-01T09:00:00Z", "session": "s",
        "user": "Should we move the standup to Tuesdays?", "assistant": "Maybe.", "engine": "offline engine"});
    fx.vault
        .append_record("chat/log.jsonl", &record.to_string())
        .unwrap();
    assert_eq!(chat.recover().unwrap(), 1);
    let (all, _) = chat.artifacts();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].exchange, "20261101-090000-000001");
    assert_eq!(chat.recover().unwrap(), 0, "once");
}

#[test]
fn the_log_only_ever_grows_whatever_is_done_with_the_memory() {
    let fx = Fixture::new();
    let chat = fx.chat(None);
    let mut before = String::new();
    let mut grew = |fx: &Fixture| {
        let now = fx.log();
        assert!(now.starts_with(&before), "the log was rewritten");
        before = now;
    };
    let asked = say(&chat, "s", "Which database should the geocoder use?");
    grew(&fx);
    let Change::Created { artifact } = &asked.changes[0] else {
        panic!()
    };
    chat.correct(
        &artifact.id,
        knower_chat::Correction {
            summary: Some("Pick the geocoder's database".into()),
            ..Default::default()
        },
    )
    .unwrap();
    grew(&fx);
    say(&chat, "s", "We decided: Postgres 16.");
    grew(&fx);
    chat.forget(&artifact.id).unwrap();
    grew(&fx);
    chat.recover().unwrap();
    chat.expire().unwrap();
    grew(&fx);
    // Undoing every change the chat made leaves the log as it is.
    let author = Author::new("test", "undo");
    for record in fx.vault.log().unwrap().into_iter().rev() {
        if record.actor == "chat" || record.actor == "user" {
            let _ = fx.vault.undo(record.id, &author, true);
        }
    }
    grew(&fx);
    assert_eq!(fx.log().lines().count(), 2);
    for refused in [
        fx.vault.delete("chat/log.jsonl", &author).is_err(),
        fx.vault.write("chat/log.jsonl", "", &author).is_err(),
        fx.vault.rename("chat", "elsewhere", &author).is_err(),
    ] {
        assert!(refused);
    }
    grew(&fx);
}

#[test]
fn an_empty_reply_is_asked_again_once_then_the_offline_engine_answers_and_says_so() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(Protocol::OpenAiChat, vec![]);
    let chat = fx.chat(Some(&server));
    server.push(stream(Protocol::OpenAiChat, &[""]));
    server.push(stream(Protocol::OpenAiChat, &["  "]));
    server.push(json_reply(Protocol::OpenAiChat, json!({"actions": []})));
    let exchange = say(&chat, "s", "How many connections does the pool hold?");
    assert!(
        exchange
            .assistant
            .trim_start()
            .starts_with("_The model's reply was empty twice; this is the offline engine's._"),
        "{}",
        exchange.assistant
    );
    assert!(exchange.assistant.len() > 70, "the offline reply follows");
    assert_eq!(
        server.requests().len(),
        3,
        "two replies, one interpretation"
    );
}
