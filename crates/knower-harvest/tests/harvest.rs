//! The harvest on real files: faithful fixtures of each format, a vault in
//! a temporary folder, and a scripted model on 127.0.0.1 that speaks the
//! OpenAI protocol. nagent's behaviours, ported: the dry run changes
//! nothing, apply merges, invalid JSON twice keeps the source as
//! `harvest-failed`, too large, summarise first, the ledger skips repeats,
//! reclaim only after a proven harvest.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use knower_harvest::{Class, Format, Harvester, Ledger, Options, Status, formats};
use knower_llm::{Llm, LlmConfig};
use knower_testkit::files::walk;
use knower_testkit::llm::{Protocol, ScriptedServer, Step, openai};
use knower_vault::{Author, Vault};
use serde_json::json;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

struct Fixture {
    dir: tempfile::TempDir,
    vault: Arc<Vault>,
    /// A copy of the fixtures, which reclaim may delete.
    sources: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let (vault, _) =
            Vault::init(&dir.path().join("vault"), &Author::new("test", "init")).unwrap();
        let sources = dir.path().join("sources");
        copy_dir(&fixtures(), &sources);
        Fixture {
            dir,
            vault: Arc::new(vault),
            sources,
        }
    }

    fn offline(&self) -> Harvester {
        Harvester::new(self.vault.clone(), None)
    }

    fn with_model(&self, server: &ScriptedServer) -> Harvester {
        let file = format!(
            "[llm]\nprovider = \"openai-compatible\"\nmodel = \"scripted\"\nbase_url = \"{}\"\nmax_retries = 0\ntimeout_secs = 5\n",
            server.base_url()
        );
        let config = LlmConfig::resolve(&file, &|_| None).unwrap().unwrap();
        let llm = Llm::new(config)
            .unwrap()
            .with_backoff(Duration::from_millis(5));
        Harvester::new(self.vault.clone(), Some(Arc::new(llm)))
    }

    fn read(&self, path: &str) -> String {
        self.vault.read(path).unwrap_or_default()
    }

    fn ledger(&self) -> Ledger {
        Ledger::parse(Some(&self.read("knowledge/ledger.json"))).unwrap()
    }
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walk(from) {
        let target = to.join(entry.strip_prefix(from).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &target).unwrap();
    }
}

/// Every file below `dir` (the vault's `.knower/` left out) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walk(dir)
        .into_iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == ".knower"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

fn apply() -> Options {
    Options {
        apply: true,
        ..Options::default()
    }
}

fn apply_and_reclaim() -> Options {
    Options {
        reclaim: true,
        ..apply()
    }
}

fn reclaim_without_harvest() -> Options {
    Options {
        apply: false,
        reclaim: true,
        no_harvest: true,
    }
}

fn none(_: usize, _: usize) {}

#[test]
fn each_format_reads_as_conversations_with_their_speakers() {
    let code = fixtures()
        .join("claude-code/-home-ana-src-atlas/7d3c2a1e-5b4f-4e8a-9c1d-2f6e8a0b3c5d.jsonl");
    let read = formats::read(&code).unwrap();
    let c = &read.conversations[0];
    assert_eq!(c.format, Format::ClaudeCode);
    assert_eq!(c.name, "Atlas geocoder pool tuning", "the summary names it");
    assert_eq!(c.date.as_deref(), Some("2026-10-02"));
    let text = c.text();
    assert!(
        text.contains("Assistant: ran `cargo test -p geocoder --release` (it worked)"),
        "{text}"
    );
    assert!(!text.contains("sub-agent"), "side chains are left out");
    assert!(
        !text.contains("Look at the pool config"),
        "thinking is left out"
    );
    assert_eq!(read.warnings.len(), 1, "{:?}", read.warnings);
    assert!(
        read.warnings[0].contains(":7:"),
        "the torn line is named: {:?}",
        read.warnings
    );

    let chatgpt = fixtures().join("chatgpt/conversations.json");
    let read = formats::read(&chatgpt).unwrap();
    assert_eq!(read.conversations.len(), 1, "the empty chat gives nothing");
    let c = &read.conversations[0];
    assert_eq!(
        (c.name.as_str(), c.format),
        ("Spring trip to Japan", Format::ChatGpt)
    );
    assert_eq!(c.date.as_deref(), Some("2025-10-09"));
    let speakers: Vec<&str> = c.turns.iter().map(|t| t.speaker.as_str()).collect();
    assert_eq!(speakers, ["User", "Assistant", "User", "Assistant"]);
    assert!(
        !c.text().contains("Hokkaido"),
        "the regenerated branch is not current"
    );
    assert!(c.text().contains("Let's go with Kyoto and Osaka"));

    let claude = fixtures().join("claude-ai/conversations.json");
    let read = formats::read(&claude).unwrap();
    assert_eq!(read.conversations.len(), 1);
    let c = &read.conversations[0];
    assert_eq!(c.name, "Thesis chapter 3 plan");
    assert!(
        c.turns[1].text.contains("Decision: keep MS MARCO"),
        "content blocks when text is empty"
    );

    let notes = fixtures().join("notes/standup-2026-11-20.md");
    let read = formats::read(&notes).unwrap();
    let speakers: Vec<&str> = read.conversations[0]
        .turns
        .iter()
        .map(|t| t.speaker.as_str())
        .collect();
    assert_eq!(speakers, ["Ana", "Ben", "Ana", "Ben"]);

    let unknown = read_bytes("settings.json", br#"{"theme": "dark"}"#).unwrap_err();
    assert!(unknown.to_string().contains("settings.json: "), "{unknown}");
    let odd = read_bytes("a.jsonl", b"{\"kind\": 1}\n").unwrap_err();
    assert!(
        odd.to_string().contains("not a conversation Knower reads"),
        "{odd}"
    );
}

/// The fixture transcript with a byte that is not UTF-8 in line 8 (the
/// assistant's answer), as a disk or a bad copy leaves it.
fn transcript_with_a_damaged_line() -> Vec<u8> {
    let code = fixtures()
        .join("claude-code/-home-ana-src-atlas/7d3c2a1e-5b4f-4e8a-9c1d-2f6e8a0b3c5d.jsonl");
    let bytes = std::fs::read(code).unwrap();
    let mut lines: Vec<Vec<u8>> = bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let at = lines[7].windows(9).position(|w| w == b"The tests").unwrap();
    lines[7].insert(at, 0xFF);
    lines.concat()
}

#[test]
fn a_line_that_is_not_utf8_costs_that_line_not_the_transcript() {
    let damaged = transcript_with_a_damaged_line();
    let read = read_bytes("t.jsonl", &damaged).unwrap();
    assert_eq!(read.conversations.len(), 1);
    let text = read.conversations[0].text();
    assert!(text.contains("The geocoder times out under load"), "{text}");
    assert!(
        text.contains("load-test the geocoder again"),
        "the lines after it are read: {text}"
    );
    assert!(!text.contains("The tests pass"), "{text}");
    assert_eq!(read.warnings.len(), 2, "{:?}", read.warnings);
    assert!(
        read.warnings[0].ends_with(
            "t.jsonl:8: skipped a line that is not UTF-8 text (first invalid byte at column 415)"
        ),
        "named by its line: {:?}",
        read.warnings
    );
    assert!(
        read.warnings[1].contains(":7:"),
        "the torn line keeps its number"
    );

    // A whole file of other text is still refused with the place of its first bad byte.
    let refused = read_bytes("n.md", b"caf\xe9\n").unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("not UTF-8 text (first invalid byte at offset 3)"),
        "{refused}"
    );
}

#[test]
fn reclaim_keeps_a_source_whose_records_were_not_all_read() {
    let fx = Fixture::new();
    let code = fx.sources.join("claude-code");
    let transcript = walk(&code).remove(0);
    std::fs::write(&transcript, transcript_with_a_damaged_line()).unwrap();
    let report = fx
        .offline()
        .run(std::slice::from_ref(&code), apply_and_reclaim(), &mut none)
        .unwrap();
    assert_eq!(report.harvested, 1, "what could be read is harvested");
    assert!(report.reclaimed.is_empty());
    assert!(transcript.exists(), "the unread records are still in it");
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("kept, 2 of its records could not be read")),
        "{:?}",
        report.warnings
    );

    // The user says they do not matter: then it goes.
    let report = fx
        .offline()
        .run(
            std::slice::from_ref(&code),
            reclaim_without_harvest(),
            &mut none,
        )
        .unwrap();
    assert_eq!(report.reclaimed.len(), 1);
    assert!(!transcript.exists());
}

#[test]
fn a_dry_run_classifies_and_changes_nothing() {
    let fx = Fixture::new();
    let vault_before = snapshot(fx.vault.root());
    let sources_before = snapshot(&fx.sources);
    let report = fx
        .offline()
        .run(
            std::slice::from_ref(&fx.sources),
            Options::default(),
            &mut none,
        )
        .unwrap();
    assert!(!report.applied);
    assert_eq!(report.tally.to_harvest, 4, "{:?}", report.conversations);
    assert_eq!(report.sources, 4);
    assert!(report.bytes > 0);
    assert_eq!(report.estimated_model_calls, 0, "offline: no model calls");
    assert_eq!(snapshot(fx.vault.root()), vault_before);
    assert_eq!(snapshot(&fx.sources), sources_before);
    assert!(
        fx.vault.log().unwrap().len() <= 1,
        "no journal entry but init's"
    );
}

#[test]
fn apply_merges_append_only_and_the_ledger_skips_repeats() {
    let fx = Fixture::new();
    // The user's own facts come first and stay as written.
    fx.vault
        .write(
            "knowledge/facts.md",
            "# Facts\n\nMy own words, kept.\n\n- the staging cluster moved to 3 nodes in  Frankfurt on November 18\n",
            &Author::new("test", "a hand-written fact"),
        )
        .unwrap();
    let report = fx
        .offline()
        .run(std::slice::from_ref(&fx.sources), apply(), &mut none)
        .unwrap();
    assert_eq!(report.harvested, 4, "{:?}", report.failed);
    assert!(report.items.total() > 0);
    let facts = fx.read("knowledge/facts.md");
    assert!(facts.contains("My own words, kept.\n\n- the staging cluster moved to 3 nodes in  Frankfurt on November 18\n"), "{facts}");
    let normalize = knower_harvest::knowledge::normalize;
    let item = normalize("- The staging cluster moved to 3 nodes in Frankfurt on November 18.");
    assert_eq!(
        facts.lines().filter(|l| normalize(l) == item).count(),
        1,
        "an item already there is not added again: {facts}"
    );
    let decisions = fx.read("knowledge/decisions.md");
    assert!(
        decisions.contains("We decided to raise the pool to 32 connections"),
        "{decisions}"
    );
    assert!(
        decisions.contains("[from: Atlas geocoder pool tuning, "),
        "provenance: {decisions}"
    );
    let tasks = fx.read("knowledge/tasks.md");
    let open = tasks.find("## Open").unwrap();
    let done = tasks.find("## Done").unwrap();
    let load_test = tasks
        .find("load-test the geocoder again next week")
        .unwrap();
    assert!(open < load_test && load_test < done, "{tasks}");
    // Run once, a command is what that session did, not a way of working
    // (the offline engine's playbooks are commands that worked again).
    assert!(
        !fx.read("knowledge/playbooks.md")
            .contains("cargo test -p geocoder --release")
    );
    let digest = fx.read("knowledge/digest.md");
    assert!(
        digest.contains("## Open tasks") && digest.contains("## Decisions"),
        "{digest}"
    );

    // The conversations of a run are written together (up to 100, or 2
    // seconds' worth, a change), by the harvest, undoable.
    let log = fx.vault.log().unwrap();
    let harvests: Vec<_> = log.iter().filter(|r| r.actor == "harvest").collect();
    assert_eq!(harvests.len(), 1);
    assert!(
        harvests[0].reason.starts_with("harvest “")
            && harvests[0].reason.ends_with(" and 3 more conversations"),
        "{}",
        harvests[0].reason
    );

    let ledger = fx.ledger();
    assert_eq!(ledger.entries.len(), 4);
    assert!(
        ledger
            .entries
            .values()
            .all(|e| e.status == Status::Harvested)
    );

    // The same content met again, even at another path: nothing to do.
    let copy = fx.dir.path().join("copy");
    copy_dir(&fx.sources, &copy);
    let again = fx.offline().run(&[copy], apply(), &mut none).unwrap();
    assert_eq!(again.tally.already_harvested, 4);
    assert_eq!(again.harvested, 0);
    assert_eq!(fx.vault.log().unwrap().len(), log.len(), "nothing written");
}

#[test]
fn a_model_harvests_with_the_prompt_and_repeats_cost_no_call() {
    let fx = Fixture::new();
    let reply = json!({
        "facts": [{"statement": "The geocoder pool holds 32 connections.", "detail": ""}],
        "decisions": [], "tasks_done": [], "tasks_open": [], "questions": [],
        "playbooks": [], "files": []
    });
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![Step::json(openai::text(&reply.to_string()))],
    );
    let code = fx.sources.join("claude-code");
    let harvester = fx.with_model(&server);
    let report = harvester
        .run(std::slice::from_ref(&code), apply(), &mut none)
        .unwrap();
    assert_eq!(report.harvested, 1, "{:?}", report.failed);
    assert_eq!(report.usage.unwrap().calls, 1);
    let prompt = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(
        prompt.contains("Harvest durable knowledge")
            && prompt.contains("Conversation: Atlas geocoder pool tuning"),
        "{prompt}"
    );
    assert!(
        fx.read("knowledge/facts.md").contains(
            "- The geocoder pool holds 32 connections. [from: Atlas geocoder pool tuning, "
        )
    );
    let again = harvester.run(&[code], apply(), &mut none).unwrap();
    assert_eq!(again.tally.already_harvested, 1);
    assert_eq!(server.requests().len(), 1, "the ledger spared a model call");
}

#[test]
fn the_models_prompt_states_each_rule_and_its_items_are_what_lands() {
    let fx = Fixture::new();
    fx.vault
        .write(
            "projects/atlas/description.md",
            "# Atlas\n",
            &Author::new("test", "project"),
        )
        .unwrap();
    let reply = json!({
        "facts": [{"statement": "Atlas's geocoder pool holds 32 connections.", "detail": ""}],
        "decisions": [{"statement": "Raise the geocoder pool to 32 connections",
                       "detail": "asked: what pool size stops the timeouts under load?"}],
        "tasks_done": [], "tasks_open": [{"statement": "Load-test the geocoder again", "detail": ""}],
        "questions": [{"statement": "Does the reporting job need its own pool?", "detail": ""}],
        "playbooks": [{"name": "Geocoder tests", "steps": "cargo test -p geocoder --release"}],
        "files": []
    });
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![Step::json(openai::text(&reply.to_string()))],
    );
    let code = fx.sources.join("claude-code");
    let report = fx
        .with_model(&server)
        .run(std::slice::from_ref(&code), apply(), &mut none)
        .unwrap();
    assert_eq!(report.harvested, 1, "{:?}", report.failed);
    let prompt = server.requests()[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for rule in [
        "a symptom that was later fixed",
        "A decision carries what was being decided",
        "Each task once",
        "nobody answered. Keep them",
        "parametrised",
        "A one-off command",
        "<task-notification>",
        "never a sentence cut off",
    ] {
        assert!(prompt.contains(rule), "the prompt says: {rule}");
    }
    // What lands is the model's, each item with the conversation's day and
    // the project of the session's folder (`/home/ana/src/atlas`).
    let decisions = fx.read("knowledge/decisions.md");
    assert!(
        decisions.contains(
            "- Raise the geocoder pool to 32 connections — asked: what pool size stops the timeouts under load? [from: Atlas geocoder pool tuning, 2026-10-02, [[projects/atlas]]]"
        ),
        "{decisions}"
    );
    assert!(
        fx.read("knowledge/questions.md")
            .contains("Does the reporting job need its own pool?")
    );
    assert!(
        fx.read("knowledge/playbooks.md")
            .contains("**Geocoder tests**: cargo test -p geocoder --release")
    );
}

#[test]
fn invalid_json_is_retried_once_with_the_suffix_then_kept_as_failed() {
    let fx = Fixture::new();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::text("Here are the facts: none.")),
            Step::json(openai::text("{\"facts\": \"still not a list\"}")),
        ],
    );
    let code = fx.sources.join("claude-code");
    let report = fx
        .with_model(&server)
        .run(std::slice::from_ref(&code), apply_and_reclaim(), &mut none)
        .unwrap();
    assert_eq!(report.harvested, 0);
    assert_eq!(report.failed.len(), 1);
    assert!(
        report.failed[0].error.contains("invalid after 2 attempts"),
        "{:?}",
        report.failed
    );
    let retry = server.requests()[1].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        retry.ends_with("\nYour previous reply was not valid JSON. Return only the JSON object.\n"),
        "{retry}"
    );
    let entry = fx.ledger().entries.into_values().next().unwrap();
    assert_eq!(entry.status, Status::HarvestFailed);
    assert!(entry.error.unwrap().contains("invalid"));
    assert!(report.reclaimed.is_empty());
    assert_eq!(walk(&code).len(), 1, "the source is kept");

    // A model that cannot be reached: the same.
    drop(server);
    let down = ScriptedServer::start(Protocol::OpenAiChat, vec![Step::status(503, "overloaded")]);
    let report = fx
        .with_model(&down)
        .run(std::slice::from_ref(&code), apply(), &mut none)
        .unwrap();
    assert_eq!(report.failed.len(), 1);
    assert!(
        report.failed[0].error.contains("503"),
        "{:?}",
        report.failed
    );
}

#[test]
fn a_long_conversation_is_summarised_first_and_a_huge_one_is_kept() {
    let fx = Fixture::new();
    let long = fx.dir.path().join("long.md");
    let paragraph = "Ana: The tile renderer uses 16 workers on the new cluster.\n\nBen: Noted, and the cache sits in Redis 7.\n\n";
    std::fs::write(&long, paragraph.repeat(900)).unwrap();
    let huge = fx.dir.path().join("huge.txt");
    std::fs::write(&huge, "x".repeat(1_100_000)).unwrap();
    let empty = r#"{"facts": [], "decisions": [], "tasks_done": [], "tasks_open": [], "questions": [], "playbooks": [], "files": []}"#;
    let bytes = formats::read(&long).unwrap().conversations[0].text().len();
    assert!(bytes > 64 * 1024);
    let chunks = knower_harvest::model::calls_for(bytes) - 1;
    let mut steps: Vec<Step> = (0..chunks)
        .map(|i| {
            Step::json(openai::text(&format!(
                "Summary {i}: the renderer uses 16 workers; the cache is Redis 7."
            )))
        })
        .collect();
    // Nothing at all is asked about once more, then taken as the answer.
    steps.push(Step::json(openai::text(empty)));
    steps.push(Step::json(openai::text(empty)));
    let server = ScriptedServer::start(Protocol::OpenAiChat, steps);
    let report = fx
        .with_model(&server)
        .run(&[long.clone(), huge.clone()], apply(), &mut none)
        .unwrap();
    assert_eq!(report.tally.too_large, 1);
    assert_eq!(report.harvested, 1, "{:?}", report.failed);
    let requests = server.requests();
    assert_eq!(
        requests.len(),
        chunks + 2,
        "chunks, then the harvest, asked again once when empty"
    );
    let again = requests.last().unwrap().body["messages"][0]["content"]
        .as_str()
        .unwrap();
    assert!(again.contains("held no item at all"), "{again}");
    for r in &requests {
        let content = r.body["messages"][0]["content"].as_str().unwrap();
        assert!(
            content.len() < 64 * 1024 + 4096,
            "no call exceeds the bound: {}",
            content.len()
        );
    }
    let last = requests.last().unwrap().body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        last.contains("Summary 0:") && last.contains(&format!("Summary {}:", chunks - 1)),
        "the harvest reads the summaries"
    );
    let ledger = fx.ledger();
    let statuses: Vec<Status> = ledger.entries.values().map(|e| e.status).collect();
    assert!(statuses.contains(&Status::TooLarge) && statuses.contains(&Status::Harvested));
    assert!(huge.exists());
}

#[test]
fn reclaim_deletes_only_what_the_ledger_proves_harvested() {
    let fx = Fixture::new();
    let notes = fx.sources.join("notes");
    let chatgpt = fx.sources.join("chatgpt");
    // Reclaim without a harvest first: nothing is proven, nothing goes.
    let report = fx
        .offline()
        .run(
            std::slice::from_ref(&notes),
            Options {
                apply: false,
                reclaim: true,
                no_harvest: false,
            },
            &mut none,
        )
        .unwrap();
    assert!(report.reclaimed.is_empty());
    assert!(notes.join("standup-2026-11-20.md").exists());

    let report = fx
        .offline()
        .run(std::slice::from_ref(&notes), apply_and_reclaim(), &mut none)
        .unwrap();
    assert_eq!(report.reclaimed.len(), 1);
    assert!(!notes.join("standup-2026-11-20.md").exists());
    assert!(fx.ledger().entries.values().all(|e| e.deleted));

    // --no-harvest: deleted, and recorded as such.
    let report = fx
        .offline()
        .run(
            std::slice::from_ref(&chatgpt),
            reclaim_without_harvest(),
            &mut none,
        )
        .unwrap();
    assert_eq!(report.reclaimed.len(), 1);
    assert!(
        fx.ledger()
            .entries
            .values()
            .any(|e| e.status == Status::DeletedUnharvested && e.deleted)
    );
    assert!(
        fx.vault.read("knowledge/facts.md").is_err()
            || !fx.read("knowledge/facts.md").contains("Kyoto")
    );

    let refused = fx
        .offline()
        .run(
            &[notes],
            Options {
                apply: true,
                reclaim: false,
                no_harvest: true,
            },
            &mut none,
        )
        .unwrap_err();
    assert!(refused.to_string().contains("--reclaim"));
}

#[test]
fn a_write_that_fails_stops_the_run_and_reclaims_nothing() {
    let fx = Fixture::new();
    // A folder where the facts file should be: every write of it fails.
    std::fs::create_dir_all(fx.vault.root().join("knowledge/facts.md")).unwrap();
    let result = fx.offline().run(
        std::slice::from_ref(&fx.sources),
        Options {
            apply: true,
            reclaim: true,
            no_harvest: false,
        },
        &mut none,
    );
    assert!(result.is_err());
    assert_eq!(walk(&fx.sources).len(), 4, "every source is kept");
}

#[test]
fn a_file_note_follows_its_file_through_a_rename() {
    let fx = Fixture::new();
    let project = fx.dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let old = project.join("pool.toml");
    std::fs::write(&old, "size = 32\n").unwrap();
    let first = fx.dir.path().join("first.md");
    std::fs::write(
        &first,
        format!("Ana: The file {} holds the pool size for the geocoder.\nBen: Thanks, noted for the review.\nAna: It was changed by the tuning last week.\nBen: ok\n", old.display()),
    )
    .unwrap();
    fx.offline().run(&[first], apply(), &mut none).unwrap();
    let notes = fx.vault.tree("knowledge/files", None).unwrap();
    assert_eq!(notes.children.len(), 1, "{notes:?}");
    let note_path = notes.children[0].path.to_string();
    assert!(
        note_path.contains(':'),
        "keyed by device:inode: {note_path}"
    );
    assert!(
        fx.read(&note_path)
            .contains(&format!("# {}", old.canonicalize().unwrap().display()))
    );

    let new = project.join("geocoder-pool.toml");
    std::fs::rename(&old, &new).unwrap();
    let second = fx.dir.path().join("second.md");
    std::fs::write(
        &second,
        format!("Ana: The file {} now also sets the timeout to 5 seconds.\nBen: Good to know.\nAna: It ships on Monday.\nBen: ok\n", new.display()),
    )
    .unwrap();
    fx.offline().run(&[second], apply(), &mut none).unwrap();
    let notes = fx.vault.tree("knowledge/files", None).unwrap();
    assert_eq!(notes.children.len(), 1, "the same note: {notes:?}");
    let text = fx.read(&note_path);
    assert!(
        text.contains(&format!("# {}", new.canonicalize().unwrap().display())),
        "{text}"
    );
    assert!(
        text.contains("holds the pool size") && text.contains("timeout to 5 seconds"),
        "{text}"
    );

    // A path that no longer resolves: the note falls back to facts.md.
    let gone = fx.dir.path().join("third.md");
    std::fs::write(
        &gone,
        "Ana: The file /nowhere/atlas/old.toml held the previous pool settings.\nBen: ok then.\nAna: fine\nBen: ok\n",
    )
    .unwrap();
    fx.offline().run(&[gone], apply(), &mut none).unwrap();
    assert!(fx.read("knowledge/facts.md").contains("- /nowhere/atlas/old.toml: The file /nowhere/atlas/old.toml held the previous pool settings. [from: third, "));
}

#[test]
fn the_digest_follows_hand_edits_and_goes_when_empty() {
    let fx = Fixture::new();
    let notes = fx.sources.join("notes");
    fx.offline().run(&[notes], apply(), &mut none).unwrap();
    let digest = fx.read("knowledge/digest.md");
    assert!(
        digest.contains("Remember to update the runbook before Friday"),
        "{digest}"
    );
    assert!(
        std::fs::metadata(fx.vault.root().join("knowledge/digest.md"))
            .unwrap()
            .len()
            <= 4096
    );

    // A hand edit of a category file shows in the next digest.
    let author = Author::new("test", "by hand");
    fx.vault
        .append(
            "knowledge/decisions.md",
            "- Use weekly on-call reviews (by hand)\n",
            knower_vault::Position::Bottom,
            &author,
        )
        .unwrap();
    fx.vault
        .batch(&author, |batch| {
            knower_harvest::knowledge::regenerate(batch)
        })
        .unwrap();
    let digest = fx.read("knowledge/digest.md");
    let newest = digest.find("Use weekly on-call reviews").unwrap();
    let older = digest.find("We decided to keep weekly rotations").unwrap();
    assert!(newest < older, "newest first: {digest}");

    // Every category emptied: the digest is deleted.
    for (path, template) in knower_harvest::knowledge::CATEGORIES {
        fx.vault.write(path, template, &author).unwrap();
    }
    fx.vault
        .batch(&author, |batch| {
            knower_harvest::knowledge::regenerate(batch)
        })
        .unwrap();
    assert!(fx.vault.read("knowledge/digest.md").is_err());
}

#[test]
fn many_items_keep_the_digest_within_4_kb_with_a_visible_cut() {
    let fx = Fixture::new();
    let mut facts = String::from("# Facts\n\n");
    for i in 0..500 {
        facts.push_str(&format!(
            "- Service {i} listens on port {} [from: setup, 2026-11-01]\n",
            8000 + i
        ));
    }
    let author = Author::new("test", "many facts");
    fx.vault
        .write("knowledge/facts.md", &facts, &author)
        .unwrap();
    fx.vault
        .batch(&author, |batch| {
            knower_harvest::knowledge::regenerate(batch)
        })
        .unwrap();
    let on_disk = std::fs::read_to_string(fx.vault.root().join("knowledge/digest.md")).unwrap();
    assert!(on_disk.len() <= 4096, "{}", on_disk.len());
    assert!(on_disk.contains("Service 499 listens"), "newest first");
    assert!(!on_disk.contains("Service 0 listens"));
    assert!(
        on_disk
            .trim_end()
            .ends_with(knower_harvest::knowledge::TRUNCATED)
    );
    let _ = Class::Empty;
}

/// A session as newer Claude Code versions write it: it opens with a
/// `permission-mode` record, carries `file-history-snapshot`, `progress`,
/// `attachment`, `last-prompt`, `ai-title` and `custom-title` records, a
/// meta turn, and types no version wrote yet. Read, not refused; named by
/// the title the person gave, else Claude Code's.
#[test]
fn a_session_in_todays_format_is_read_whatever_record_opens_it() {
    let session = r#"{"type":"permission-mode","permissionMode":"default","sessionId":"8b1e"}
{"type":"file-history-snapshot","messageId":"m1","snapshot":{"messageId":"m1","trackedFileBackups":{},"timestamp":"2026-11-30T09:00:00.000Z"},"isSnapshotUpdate":false}
{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/ana/src/crumb","sessionId":"8b1e","version":"2.1.3","type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>"},"isMeta":true,"uuid":"u0","timestamp":"2026-11-30T09:00:01.000Z"}
{"parentUuid":"u0","isSidechain":false,"cwd":"/home/ana/src/crumb","sessionId":"8b1e","type":"user","message":{"role":"user","content":"Why does the alarm fire late on Android 14?"},"uuid":"u1","timestamp":"2026-11-30T09:00:02.000Z"}
{"type":"progress","data":{"type":"hook_progress"},"sessionId":"8b1e","uuid":"p1","timestamp":"2026-11-30T09:00:03.000Z"}
{"parentUuid":"u1","isSidechain":false,"sessionId":"8b1e","type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-5","content":[{"type":"text","text":"Doze defers inexact alarms; setExactAndAllowWhileIdle needs the SCHEDULE_EXACT_ALARM permission."}]},"uuid":"a1","timestamp":"2026-11-30T09:00:04.000Z"}
{"type":"attachment","attachment":{"type":"todo_reminder"},"sessionId":"8b1e","uuid":"t1","timestamp":"2026-11-30T09:00:05.000Z"}
{"type":"last-prompt","leafUuid":"a1","sessionId":"8b1e"}
{"type":"ai-title","aiTitle":"Late alarms on Android 14","sessionId":"8b1e"}
{"type":"some-type-of-2027","whatever":true,"sessionId":"8b1e"}
"#;
    let read = read_bytes("8b1e.jsonl", session.as_bytes()).unwrap();
    let c = &read.conversations[0];
    assert_eq!(c.format, Format::ClaudeCode);
    assert_eq!(
        c.name, "Late alarms on Android 14",
        "Claude Code's own title names it"
    );
    assert_eq!(c.date.as_deref(), Some("2026-11-30"));
    let text = c.text();
    assert!(
        text.contains("User: Why does the alarm fire late on Android 14?"),
        "{text}"
    );
    assert!(text.contains("SCHEDULE_EXACT_ALARM"), "{text}");
    assert!(
        !text.contains("command-name"),
        "a meta turn is no conversation: {text}"
    );

    let renamed = format!(
        "{session}{{\"type\":\"custom-title\",\"customTitle\":\"Crumb alarms\",\"sessionId\":\"8b1e\"}}\n"
    );
    let read = read_bytes("8b1e.jsonl", renamed.as_bytes()).unwrap();
    assert_eq!(
        read.conversations[0].name, "Crumb alarms",
        "the person's title first"
    );
}

/// Reads `bytes` as a file named `name` (in a folder of its own).
fn read_bytes(
    name: &str,
    bytes: impl AsRef<[u8]>,
) -> Result<knower_harvest::formats::Read, knower_harvest::formats::FormatError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    formats::read(&path)
}
