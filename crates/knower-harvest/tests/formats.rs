//! Reading what people really have (issue 69), each on a fixture faithful
//! to its format as it is written today: Codex CLI rollouts, Gemini CLI
//! sessions and checkpoints, markdown logs whose speakers are headings,
//! Claude Code sessions as newer versions write them (with the tool's own
//! messages among the person's), Claude.ai messages with thinking, ChatGPT
//! code sent to a tool; files that are not files; names that are not
//! plain; a line too long to hold.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use knower_harvest::{Format, Harvester, Options, formats};
use knower_vault::{Author, Vault};
use serde_json::{Value, json};

fn formats_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/formats")
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn jsonl(records: &[Value]) -> String {
    records.iter().map(|r| format!("{r}\n")).collect()
}

fn vault(dir: &Path) -> Arc<Vault> {
    let (vault, _) = Vault::init(&dir.join("vault"), &Author::new("test", "init")).unwrap();
    Arc::new(vault)
}

fn apply() -> Options {
    Options {
        apply: true,
        ..Options::default()
    }
}

#[test]
fn a_codex_rollout_reads_as_what_the_person_and_the_agent_said() {
    let path = formats_dir()
        .join("codex/rollout-2026-03-02T09-14-05-019c4e2a-7b1d-7c40-9a55-3f0e8d2b6a11.jsonl");
    let read = formats::read(&path).unwrap();
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    let c = &read.conversations[0];
    assert_eq!(c.format, Format::Codex);
    assert_eq!(c.date.as_deref(), Some("2026-03-02"));
    assert_eq!(c.folder.as_deref(), Some("/home/ana/src/crumb"));
    assert!(
        c.name.starts_with("The oven timer in Crumb drifts"),
        "{}",
        c.name
    );
    let text = c.text();
    assert!(
        !text.contains("environment_context"),
        "the tool's context: {text}"
    );
    assert!(!text.contains("Inspecting the timer"), "reasoning: {text}");
    assert!(!text.contains("Begin Patch"), "patches: {text}");
    // Each message once (the event_msg copies are not read again).
    assert_eq!(text.matches("drifts by a minute").count(), 1, "{text}");
    assert!(
        text.contains("Assistant: ran `npm test -- timer` (it failed)"),
        "{text}"
    );
    assert!(
        text.contains("Assistant: ran `npm test -- timer` (it worked)"),
        "{text}"
    );
    assert!(text.contains("All 14 timer tests pass."), "{text}");
    let last = c.turns.last().unwrap();
    assert_eq!(
        last.day.as_deref(),
        Some("2026-03-03"),
        "a turn keeps its day"
    );
}

#[test]
fn a_harvest_links_the_project_of_the_sessions_folder_and_dates_items_when_said() {
    let dir = tempfile::tempdir().unwrap();
    let vault = vault(dir.path());
    vault
        .write(
            "projects/crumb/description.md",
            "# Crumb\n\nThe bakery app.\n",
            &Author::new("test", "project"),
        )
        .unwrap();
    let rollout = formats_dir().join("codex");
    let report = Harvester::new(vault.clone(), None)
        .run(&[rollout], apply(), &mut |_, _| {})
        .unwrap();
    assert_eq!(report.harvested, 1, "{report:?}");
    let decisions = vault.read("knowledge/decisions.md").unwrap();
    let line = decisions
        .lines()
        .find(|l| l.contains("keep the deadline clock"))
        .unwrap_or_else(|| panic!("{decisions}"));
    assert!(
        line.ends_with(", 2026-03-03, [[projects/crumb]]]"),
        "{line}"
    );
    let playbooks = vault.read("knowledge/playbooks.md").unwrap();
    assert!(
        playbooks.contains("npm test -- timer [from: The oven timer"),
        "a command that worked again: {playbooks}"
    );
    assert!(
        playbooks.contains(", 2026-03-02, [[projects/crumb]]]"),
        "the conversation's day, not the harvest's: {playbooks}"
    );
}

#[test]
fn gemini_cli_sessions_and_checkpoints_read_what_was_said() {
    let session = formats_dir().join("gemini/session-2026-04-28T01-00-9c90babd.json");
    let read = formats::read(&session).unwrap();
    let c = &read.conversations[0];
    assert_eq!(c.format, Format::Gemini);
    assert_eq!(c.date.as_deref(), Some("2026-04-28"));
    let speakers: Vec<&str> = c.turns.iter().map(|t| t.speaker.as_str()).collect();
    assert_eq!(speakers, ["User", "Assistant", "User"]);
    let text = c.text();
    assert!(text.contains("Use 5173, the Vite default"), "{text}");
    assert!(
        !text.contains("Request cancelled"),
        "the CLI's info: {text}"
    );
    assert!(!text.contains("Grafana uses 3000"), "thoughts: {text}");
    assert!(!text.contains("export default"), "tool results: {text}");

    let checkpoint = formats_dir().join("gemini/checkpoint-node-version.json");
    let read = formats::read(&checkpoint).unwrap();
    let c = &read.conversations[0];
    let text = c.text();
    assert!(
        !text.contains("setting up the context"),
        "the CLI's setup: {text}"
    );
    assert!(!text.contains("Thanks for the context"), "{text}");
    assert!(
        !text.contains("Weighing the options"),
        "thought parts: {text}"
    );
    assert!(!text.contains("v18.19.0"), "function responses: {text}");
    assert!(
        text.starts_with("User: Why does the Crumb build fail on Node 18?"),
        "{text}"
    );
    assert!(
        text.contains("needs the --experimental-fetch flag"),
        "{text}"
    );

    // The same session written as JSON lines (newer Gemini CLI versions).
    let dir = tempfile::tempdir().unwrap();
    let whole: Value = serde_json::from_str(&std::fs::read_to_string(&session).unwrap()).unwrap();
    let mut meta = whole.clone();
    meta.as_object_mut().unwrap().remove("messages");
    let mut lines = vec![meta];
    lines.extend(whole["messages"].as_array().unwrap().iter().cloned());
    let path = write(
        dir.path(),
        "session-2026-04-28T01-00-9c90babd.jsonl",
        jsonl(&lines),
    );
    let again = formats::read(&path).unwrap();
    assert_eq!(again.conversations[0].text(), text_of(&session));
}

fn text_of(path: &Path) -> String {
    formats::read(path).unwrap().conversations[0].text()
}

#[test]
fn markdown_logs_whose_speakers_are_headings_are_turns() {
    let path = formats_dir().join("markdown/2026-02-17-0431-the-death-animation-hides-the-frog.md");
    let read = formats::read(&path).unwrap();
    let c = &read.conversations[0];
    assert_eq!(c.date.as_deref(), Some("2026-02-17"), "the day in its name");
    let speakers: Vec<&str> = c.turns.iter().map(|t| t.speaker.as_str()).collect();
    assert_eq!(speakers, ["User", "Assistant", "Assistant", "User"]);
    let text = c.text();
    assert!(!text.contains("Session ID"), "the log's header: {text}");
    assert!(!text.contains("Used Read"), "tool lines: {text}");

    let dir = tempfile::tempdir().unwrap();
    let vault = vault(dir.path());
    Harvester::new(vault.clone(), None)
        .run(&[path], apply(), &mut |_, _| {})
        .unwrap();
    let read = |p: &str| vault.read(p).unwrap_or_default();
    assert!(
        read("knowledge/decisions.md")
            .contains("We should never scale an effect by more than the frog's size."),
        "a rule the person set is a decision"
    );
    assert!(read("knowledge/facts.md").contains("all 220 tests pass"));
    assert!(
        !read("knowledge/facts.md").contains("Let me look"),
        "working"
    );
    assert!(
        read("knowledge/questions.md").contains("Add a test for the puff size?"),
        "a question nobody answered is a question"
    );
}

/// A Claude Code session as version 2.1 writes it: it opens with a
/// permission-mode record, and the person's turns are mixed with what the
/// tool writes as user messages.
fn todays_session() -> String {
    let base = |kind: &str, uuid: &str| {
        json!({"parentUuid": null, "isSidechain": false, "userType": "external",
               "cwd": "/home/marco/projects/spotter/worktrees/spotter-a0y",
               "sessionId": "fa812bfe-0000-4cca-9c2f-fdf01028cb46", "version": "2.1.37",
               "gitBranch": "spotter-a0y", "type": kind, "uuid": uuid,
               "timestamp": "2026-02-12T10:00:00.000Z"})
    };
    let user = |uuid: &str, content: Value, extra: Value| {
        let mut r = base("user", uuid);
        r["message"] = json!({"role": "user", "content": content});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        r
    };
    let assistant = |uuid: &str, text: &str| {
        let mut r = base("assistant", uuid);
        r["message"] = json!({"id": format!("msg_{uuid}"), "type": "message", "role": "assistant",
            "model": "claude-opus-4-6", "content": [{"type": "text", "text": text}]});
        r
    };
    jsonl(&[
        json!({"type": "permission-mode", "permissionMode": "default",
               "sessionId": "fa812bfe-0000-4cca-9c2f-fdf01028cb46"}),
        json!({"type": "file-history-snapshot", "messageId": "m0",
               "snapshot": {"messageId": "m0", "trackedFileBackups": {}, "timestamp": "2026-02-12T10:00:00.000Z"},
               "isSnapshotUpdate": false}),
        user(
            "u1",
            json!("Work on the session registry. Sessions should expire after 90 seconds."),
            json!({}),
        ),
        user(
            "u2",
            json!(
                "Base directory for this skill: /home/marco/.claude/skills/beads\n\n# Create beads\n\nFollow these phases in strict order."
            ),
            json!({"isMeta": true}),
        ),
        assistant("a1", "Let me look at the registry first."),
        json!({"type": "progress", "data": {"type": "hook_progress", "hookEvent": "PostToolUse"},
               "sessionId": "fa812bfe-0000-4cca-9c2f-fdf01028cb46", "timestamp": "2026-02-12T10:01:00.000Z"}),
        assistant(
            "a2",
            "The registry sweeps stale sessions every 15 seconds with a 90 second TTL; all 389 tests pass.",
        ),
        user(
            "u3",
            json!(
                "<task-notification>\n<task-id>b7b23b2</task-id>\n<output-file>/tmp/claude-1000/-home-USER-projects-spotter/tasks/b7b23b2.output</output-file>\n<status>completed</status>\n<summary>Background command \"Run new tests\" completed (exit code 0)</summary>\n</task-notification>\nRead the output file to retrieve the result: /tmp/claude-1000/-home-USER-projects-spotter/tasks/b7b23b2.output"
            ),
            json!({}),
        ),
        user(
            "u4",
            json!(
                "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>"
            ),
            json!({}),
        ),
        user(
            "u5",
            json!(
                "<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>"
            ),
            json!({}),
        ),
        user(
            "u6",
            json!(
                "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below: Analysis: the registry work."
            ),
            json!({"isCompactSummary": true}),
        ),
        user(
            "u7",
            json!([{"type": "text", "text": "[Request interrupted by user for tool use]"}]),
            json!({}),
        ),
        user(
            "u8",
            json!(
                "Keep the TTL.<system-reminder>\nThe task tools haven't been used recently.\n</system-reminder>"
            ),
            json!({}),
        ),
        json!({"type": "attachment", "attachment": {"type": "todo", "content": []},
               "sessionId": "fa812bfe-0000-4cca-9c2f-fdf01028cb46"}),
        json!({"type": "last-prompt", "lastPrompt": "Keep the TTL.", "sessionId": "fa812bfe-0000-4cca-9c2f-fdf01028cb46"}),
        json!({"type": "ai-title", "aiTitle": "Session registry with expiry", "sessionId": "fa812bfe-0000-4cca-9c2f-fdf01028cb46"}),
    ])
}

#[test]
fn a_claude_code_session_of_today_keeps_what_people_said_not_what_the_tool_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "fa812bfe-0000-4cca-9c2f-fdf01028cb46.jsonl",
        todays_session(),
    );
    let read = formats::read(&path).unwrap();
    assert!(
        read.warnings.is_empty(),
        "record types it does not use are skipped: {:?}",
        read.warnings
    );
    let c = &read.conversations[0];
    assert_eq!(c.name, "Session registry with expiry");
    assert_eq!(
        c.folder.as_deref(),
        Some("/home/marco/projects/spotter/worktrees/spotter-a0y")
    );
    let text = c.text();
    for noise in [
        "task-notification",
        "Read the output file",
        "/compact",
        "Compacted",
        "continued from a previous conversation",
        "Request interrupted",
        "system-reminder",
        "task tools",
        "Base directory for this skill",
    ] {
        assert!(!text.contains(noise), "{noise} in {text}");
    }
    assert!(
        text.contains("User: Work on the session registry."),
        "{text}"
    );
    assert!(text.contains("User: Keep the TTL."), "{text}");

    // Harvested, the agent's working is not kept, its conclusion is.
    let vault = vault(dir.path());
    Harvester::new(vault.clone(), None)
        .run(&[path], apply(), &mut |_, _| {})
        .unwrap();
    let facts = vault.read("knowledge/facts.md").unwrap_or_default();
    assert!(facts.contains("all 389 tests pass"), "{facts}");
    assert!(!facts.contains("Let me look"), "{facts}");
    let decisions = vault.read("knowledge/decisions.md").unwrap_or_default();
    assert!(
        decisions.contains("Sessions should expire after 90 seconds."),
        "{decisions}"
    );
}

#[test]
fn claude_ai_thinking_and_chatgpt_tool_turns_are_not_the_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let claude = json!([{
        "uuid": "c1", "name": "Oven temperatures", "created_at": "2025-09-01T10:00:00.000000Z",
        "updated_at": "2025-09-01T10:05:00.000000Z", "account": {"uuid": "a1"},
        "chat_messages": [
            {"uuid": "m1", "sender": "human", "created_at": "2025-09-01T10:00:00.000000Z",
             "text": "What temperature for sourdough?",
             "content": [{"type": "text", "text": "What temperature for sourdough?"}], "attachments": [], "files": []},
            {"uuid": "m2", "sender": "assistant", "created_at": "2025-09-01T10:00:05.000000Z",
             "text": "The user asks about sourdough. I should recall typical values. Bake at 250 °C for 20 minutes, then 230 °C for 25.",
             "content": [
                {"type": "thinking", "thinking": "The user asks about sourdough. I should recall typical values."},
                {"type": "text", "text": "Bake at 250 °C for 20 minutes, then 230 °C for 25."}],
             "attachments": [], "files": []}
        ]
    }]);
    let read = formats::read(&write(dir.path(), "conversations.json", claude.to_string())).unwrap();
    let text = read.conversations[0].text();
    assert!(!text.contains("I should recall"), "thinking: {text}");
    assert!(text.contains("Assistant: Bake at 250 °C"), "{text}");

    let node = |id: &str, parent: Option<&str>, child: Option<&str>, message: Value| json!({"id": id, "parent": parent, "children": child.map_or(vec![], |c| vec![c]), "message": message});
    let msg = |id: &str, role: &str, recipient: &str, content: Value| {
        json!({"id": id, "author": {"role": role, "name": null, "metadata": {}}, "create_time": 1759996800.0,
               "content": content, "status": "finished_successfully", "end_turn": true, "weight": 1.0,
               "metadata": {}, "recipient": recipient})
    };
    let chatgpt = json!([{
        "title": "Loaf costs", "create_time": 1759996800.0, "update_time": 1759996900.0,
        "conversation_id": "g1", "current_node": "n4",
        "mapping": {
            "n1": node("n1", None, Some("n2"), msg("n1", "user", "all", json!({"content_type": "text", "parts": ["What does a loaf cost us?"]}))),
            "n2": node("n2", Some("n1"), Some("n3"), msg("n2", "assistant", "python", json!({"content_type": "code", "language": "unknown", "text": "flour = 0.42 * 0.5\nprint(flour)"}))),
            "n3": node("n3", Some("n2"), Some("n4"), msg("n3", "tool", "all", json!({"content_type": "execution_output", "text": "0.21"}))),
            "n4": node("n4", Some("n3"), None, msg("n4", "assistant", "all", json!({"content_type": "text", "parts": ["A loaf costs 0.21 € in flour."]})))
        }
    }]);
    let read = formats::read(&write(dir.path(), "chatgpt.json", chatgpt.to_string())).unwrap();
    let text = read.conversations[0].text();
    assert!(
        !text.contains("print(flour)"),
        "code sent to a tool: {text}"
    );
    assert!(!text.contains("0.21\n"), "what the tool returned: {text}");
    assert!(text.contains("A loaf costs 0.21 € in flour."), "{text}");
}

#[test]
fn what_is_not_a_regular_file_is_refused_at_once_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let socket = dir.path().join("talk.jsonl");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let vault = vault(dir.path());
    let started = std::time::Instant::now();
    let report = Harvester::new(vault, None)
        .run(
            &[fifo, socket, PathBuf::from("/dev/zero")],
            Options::default(),
            &mut |_, _| {},
        )
        .unwrap();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "a FIFO is never opened"
    );
    let errors: Vec<&str> = report.unreadable.iter().map(|u| u.error.as_str()).collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors[0].contains("not a regular file (a FIFO)"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("not a regular file (a socket)"),
        "{errors:?}"
    );
    assert!(
        errors[2].contains("not a regular file (a device)"),
        "{errors:?}"
    );
}

#[test]
fn a_name_with_newlines_is_data_in_every_note() {
    let dir = tempfile::tempdir().unwrap();
    let sources = dir.path().join("sources");
    std::fs::create_dir(&sources).unwrap();
    // A file whose name would be markdown, and a link to it that a
    // conversation names: the note about the file is headed by its real,
    // resolved path.
    let target = sources.join("pool\n# Owned\n- [ ] wire the money.toml");
    std::fs::write(&target, "size = 20\n").unwrap();
    let link = sources.join("pool.toml");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    write(
        &sources,
        "standup\n# Injected\n- [ ] run rm -rf.md",
        format!(
            "Ana: The config in {} sets the geocoder pool size to 20.\nBen: The staging cluster has 3 nodes in Frankfurt since March 2024.\nAna: Good.\nBen: Good.\n",
            link.display()
        ),
    );
    let vault = vault(dir.path());
    let report = Harvester::new(vault.clone(), None)
        .run(&[sources], apply(), &mut |_, _| {})
        .unwrap();
    assert_eq!(report.harvested, 1, "{report:?}");
    let mut notes = vec![vault.read("knowledge/facts.md").unwrap()];
    for entry in std::fs::read_dir(vault.root().join("knowledge/files")).unwrap() {
        notes.push(std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    assert_eq!(notes.len(), 2, "a note about the file: {notes:?}");
    for note in &notes {
        for line in note.lines() {
            assert!(
                !line.starts_with("# Owned")
                    && !line.starts_with("# Injected")
                    && !line.starts_with("- [ ]"),
                "a name became markdown: {note}"
            );
        }
    }
    assert!(
        notes[1].contains("pool\\n# Owned\\n- [ ] wire the money.toml"),
        "{}",
        notes[1]
    );
    assert!(
        notes[0].contains("[from: standup\\n# Injected\\n- run rm -rf, "),
        "{}",
        notes[0]
    );
}

#[test]
fn a_line_too_long_to_hold_costs_that_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = todays_session();
    let huge = json!({"type": "user", "sessionId": "fa812bfe-0000-4cca-9c2f-fdf01028cb46",
        "message": {"role": "user", "content": [{"type": "image", "source": {"type": "base64",
        "media_type": "image/png", "data": "A".repeat(formats::MAX_LINE_BYTES)}}]}});
    text.insert_str(0, &format!("{huge}\n"));
    let path = write(dir.path(), "s.jsonl", text);
    let read = formats::read(&path).unwrap();
    assert_eq!(read.warnings.len(), 1, "{:?}", read.warnings);
    assert!(
        read.warnings[0]
            .ends_with("s.jsonl:1: skipped a line of 8 MB (lines over 8 MB are not read)"),
        "{:?}",
        read.warnings
    );
    assert!(read.conversations[0].text().contains("Keep the TTL."));
}
