//! `knower update`, `ask`, `inbox` and `prompts` as separate processes:
//! the offline engine by default, and an LLM configured by KNOWER_LLM
//! (a scripted server on 127.0.0.1).

use std::path::Path;

use knower_testkit::llm::{Protocol, ScriptedServer, Step, openai};
use serde_json::{Value, json};

mod support;
use support::{knower_command, knower_json, knower_output as knower, two_projects as fixture};

fn ok(vault: &Path, args: &[&str]) -> String {
    support::knower(vault, args, "")
}

fn json(vault: &Path, args: &[&str]) -> Value {
    knower_json(vault, args, "")
}

/// `knower --json update TEXT` with the model `server` scripts; its report.
/// The script drives tools, which a server on loopback (local, so grounded
/// by default) is only given with `use_tools`.
fn update_with_model(vault: &Path, server: &ScriptedServer, text: &str) -> Value {
    std::fs::write(vault.join("knower.toml"), "[agents]\nuse_tools = true\n").unwrap();
    let out = knower_command(vault)
        .args(["--json", "update", text])
        .env("KNOWER_LLM", "openai-compatible:scripted-model")
        .env("KNOWER_LLM_BASE_URL", server.base_url())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn offline_update_inbox_reply_and_ask() {
    let dir = fixture();
    let v = dir.path();

    let filed = json(
        v,
        &["update", "Remember to renew the Atlas TLS certificate"],
    );
    assert_eq!(filed["outcome"], "filed");
    assert_eq!(filed["engine"], "offline engine");
    assert_eq!(filed["changed"][0], "projects/atlas/tasks.md");

    // Printed for a person: where it went is said once, with why.
    let said = ok(v, &["update", "Remember to order Atlas stickers"]);
    assert_eq!(said.matches("projects/atlas/tasks.md").count(), 1, "{said}");
    assert_eq!(said.matches("order Atlas stickers").count(), 1, "{said}");
    assert!(said.contains("  why: "), "{said}");

    let waiting = json(
        v,
        &["update", "Atlas or garden: which one first this weekend?"],
    );
    assert_eq!(waiting["outcome"], "inbox");
    let id = waiting["inbox_id"].as_str().unwrap().to_string();
    // The listing names the item by its short code, which every command takes.
    let code = json(v, &["inbox"])[0]["code"].as_str().unwrap().to_string();
    let listing = ok(v, &["inbox"]);
    assert!(
        listing.contains("1 item waiting") && listing.contains(&format!("  {code}  ")),
        "{listing}"
    );
    assert_eq!(json(v, &["inbox", "show", &code])["id"], id.as_str());
    let review = ok(v, &["inbox", "show", &id]);
    assert!(
        review.contains("## Why it is here") && review.contains("It names several projects"),
        "{review}"
    );

    let out = knower(v, &["inbox", "reply", &id, "no idea"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("option number"));

    let resolved = json(v, &["inbox", "reply", &code, "garden"]);
    assert_eq!(resolved["outcome"], "resolved");
    assert!(ok(v, &["inbox"]).contains("the inbox is empty"));
    assert!(
        std::fs::read_to_string(v.join("projects/garden/state.md"))
            .unwrap()
            .contains("which one first this weekend?")
    );
    assert!(!v.join("inbox").join(&id).exists());

    let answer = json(v, &["ask", "When does the TLS certificate need renewing?"]);
    assert_eq!(answer["engine"], "offline engine");
    assert_eq!(answer["sources"][0]["path"], "projects/atlas/tasks.md");
    let text = ok(v, &["ask", "TLS certificate"]);
    assert!(
        text.starts_with("_offline engine") && text.contains("projects/atlas/tasks.md:"),
        "{text}"
    );

    let prompts = ok(v, &["prompts"]);
    assert!(
        prompts.contains("update") && prompts.contains("built in"),
        "{prompts}"
    );
    assert!(ok(v, &["prompts", "search"]).contains("search agent"));
}

#[test]
fn an_attached_file_is_stored_and_linked() {
    let dir = fixture();
    let v = dir.path();
    let image = dir
        .path()
        .join("..")
        .join(format!("snap-{}.png", std::process::id()));
    std::fs::write(&image, b"\x89PNG\r\n").unwrap();
    let filed = json(
        v,
        &[
            "update",
            "Garden: the new compost bin",
            "--file",
            image.to_str().unwrap(),
        ],
    );
    std::fs::remove_file(&image).unwrap();
    assert_eq!(filed["outcome"], "filed", "{filed}");
    let name = image.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        std::fs::read(v.join("projects/garden/attachments").join(name)).unwrap(),
        b"\x89PNG\r\n"
    );
    let state = std::fs::read_to_string(v.join("projects/garden/state.md")).unwrap();
    assert!(
        state.contains(&format!("![{name}](attachments/{name})")),
        "{state}"
    );
}

#[test]
fn knower_llm_selects_the_model_and_a_bad_setting_is_a_clear_error() {
    let dir = fixture();
    let v = dir.path();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::tool_calls(&[(
                "c1",
                "append",
                json!({"path": "projects/atlas/state.md", "content": "Tiles now render in 40 ms.", "reason": "atlas performance"}),
            )])),
            Step::json(openai::text(
                &json!({"outcome": "filed", "summary": "noted tile speed in Atlas"}).to_string(),
            )),
        ],
    );
    let report = update_with_model(v, &server, "Tiles now render in 40 ms");
    assert_eq!(report["engine"], "openai-compatible:scripted-model");
    assert_eq!(report["usage"]["calls"], 2);
    assert!(
        std::fs::read_to_string(v.join("projects/atlas/state.md"))
            .unwrap()
            .contains("40 ms")
    );

    let out = knower_command(v)
        .args(["update", "x"])
        .env("KNOWER_LLM", "openai:gpt-4o")
        .env_remove("OPENAI_API_KEY")
        .env_remove("KNOWER_LLM_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("OPENAI_API_KEY"), "{err}");
}

#[test]
fn updates_made_without_a_server_are_listed_and_one_undo_takes_back_a_whole_model_update() {
    let dir = fixture();
    let v = dir.path();
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::tool_calls(&[(
                "c1",
                "write",
                json!({"path": "projects/atlas/tiles.md", "content": "# Tiles\n\nThey render in 40 ms.\n", "reason": "a note of its own"}),
            )])),
            Step::json(openai::tool_calls(&[(
                "c2",
                "append",
                json!({"path": "projects/atlas/state.md", "content": "Tiles now render in 40 ms.", "reason": "atlas performance"}),
            )])),
            Step::json(openai::text(
                &json!({"outcome": "filed", "summary": "noted tile speed in Atlas"}).to_string(),
            )),
        ],
    );
    let model_update = update_with_model(v, &server, "Tiles now render in 40 ms")["id"]
        .as_str()
        .unwrap()
        .to_string();
    // An offline update after it, to the same changelog.
    let offline = json(
        v,
        &["update", "Remember to renew the Atlas TLS certificate"],
    );
    let offline_id = offline["id"].as_str().unwrap();

    let listed = json(v, &["updates"]);
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [offline_id, model_update.as_str()], "{listed}");
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .all(|u| u["state"] == "done")
    );
    let changes_before = json(v, &["log", "-n", "1000"]).as_array().unwrap().len();

    let undo = ok(v, &["undo", &model_update]);
    assert!(
        undo.contains(&format!("undid {model_update} as change")),
        "{undo}"
    );
    assert_eq!(
        json(v, &["log", "-n", "1000"]).as_array().unwrap().len(),
        changes_before + 1
    );
    assert!(!v.join("projects/atlas/tiles.md").exists());
    assert!(
        !v.join("projects/atlas/state.md").exists(),
        "the note it created is gone"
    );
    let changelog = std::fs::read_to_string(v.join("changelog.md")).unwrap();
    assert!(!changelog.contains("tile speed"), "{changelog}");
    assert!(
        changelog.contains("TLS certificate"),
        "the newer update's line stays: {changelog}"
    );

    let shown = json(v, &["updates", "show", &model_update]);
    assert!(shown["undone_by"].is_u64(), "{shown}");
    assert!(ok(v, &["updates"]).contains(&format!("{model_update}  undone")));
    let again = knower(v, &["updates", "undo", &model_update]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already undone"));
    let wrong = knower(v, &["undo", "yesterday"]);
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("neither a change number nor an update id")
    );
}
