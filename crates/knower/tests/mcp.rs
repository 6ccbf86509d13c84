//! Knower's MCP server as processes, with a real MCP client (rmcp's):
//! `knower mcp` over stdio as a child process, and `/mcp` on `knower serve`
//! over streamable HTTP. The protocol itself (tools, the reference memory
//! server's behaviours, resources) is tested in process beside
//! `knower-mcp` (`crates/knower-mcp/tests/protocol.rs`).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Stdio};

mod support;
use knower_testkit::mcp::Watching;
use std::time::{Duration, Instant};
use support::{knower, knower_command, serve};

use knower_testkit::mcp::{ok, refused};
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, SubscribeRequestParams};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, Watching>;

/// `knower mcp` on a new vault, with a client connected over stdio.
async fn stdio() -> (tempfile::TempDir, Client) {
    let dir = tempfile::tempdir().unwrap();
    knower(dir.path(), &["init"], "");
    let client = connect(dir.path(), Watching::default()).await;
    (dir, client)
}

async fn connect(vault: &Path, handler: Watching) -> Client {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_knower"));
    command
        .arg("--vault")
        .arg(vault)
        .arg("mcp")
        .env_remove("KNOWER_LLM")
        .env_remove("KNOWER_TOKEN")
        .stderr(Stdio::null());
    handler
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .expect("the MCP session starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn knower_mcp_on_stdio_files_updates_and_refuses_a_giant_call_clearly() {
    let (dir, client) = stdio().await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 30);
    // No server runs: the update is filed at once by the offline engine.
    let update = ok(
        &client,
        "update",
        json!({"text": "Remember to renew the Atlas TLS certificate"}),
    )
    .await;
    assert_eq!(update["status"], "done", "{update}");
    // Past the transport's default 16 MiB line: still a clear error,
    // because `knower mcp` reads lines up to 64 MiB.
    let giant = "x".repeat(20 << 20);
    let message = refused(
        &client,
        "write",
        json!({"path": "big.md", "content": giant}),
    )
    .await;
    assert!(message.contains("at most"), "{message}");
    assert!(!dir.path().join("big.md").exists());
    assert_eq!(client.list_all_tools().await.unwrap().len(), 30);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_subscriber_hears_of_a_change_made_by_another_process() {
    let (dir, client) = stdio().await;
    #[allow(deprecated)]
    client
        .subscribe(SubscribeRequestParams::new("knower://graph"))
        .await
        .unwrap();
    let handler = client.service().clone();
    // `knower mcp` watches the vault: a note written by another process
    // reaches its subscribers.
    knower(
        dir.path(),
        &["write", "graph/bob.md"],
        "---\ntype: person\n---\n# Bob\n",
    );
    wait_for(&handler, "knower://graph").await;
    let graph = client
        .read_resource(ReadResourceRequestParams::new("knower://graph"))
        .await
        .unwrap();
    let text = serde_json::to_string(&graph).unwrap();
    assert!(text.contains("Bob"), "{text}");
    client.cancel().await.unwrap();
}

async fn wait_for(handler: &Watching, uri: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let heard = handler.heard.notified();
        if handler.updated.lock().await.iter().any(|u| u == uri) {
            return;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "no notifications/resources/updated for {uri}"
        );
        let _ = tokio::time::timeout(left, heard).await;
    }
}

#[test]
fn closing_stdin_ends_the_stdio_server_promptly() {
    let dir = tempfile::tempdir().unwrap();
    knower(dir.path(), &["init"], "");
    let mut child: Child = knower_command(dir.path())
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"test","version":"1"}}}}}}"#
    )
    .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("\"serverInfo\""), "{line}");
    drop(stdin);
    let closed = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(
            closed.elapsed() < Duration::from_secs(3),
            "still running 3 s after stdin closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_on_knower_serve_with_updates_queued() {
    knower_llm::install_tls_provider();
    let dir = tempfile::tempdir().unwrap();
    knower(dir.path(), &["init"], "");
    let server = serve(dir.path(), "127.0.0.1:0", Some("tok-81c2"));

    // Without the token: refused.
    let refused_client = ()
        .serve(StreamableHttpClientTransport::from_uri(format!(
            "{}/mcp",
            server.url
        )))
        .await;
    assert!(refused_client.is_err(), "no token, no session");

    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", server.url))
        .auth_header("tok-81c2");
    let client = Watching::default()
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("a session over HTTP");
    assert_eq!(client.list_all_tools().await.unwrap().len(), 30);
    ok(
        &client,
        "create_entities",
        json!({"entities": [{"name": "Alice", "entityType": "person", "observations": ["likes tea"]}]}),
    )
    .await;
    let graph = ok(&client, "read_graph", json!({})).await;
    assert_eq!(graph["entities"][0]["observations"], json!(["likes tea"]));

    // `update` joins the server's durable queue, like POST /update.
    let accepted = ok(
        &client,
        "update",
        json!({"text": "Remember to renew the Atlas TLS certificate"}),
    )
    .await;
    assert_eq!(accepted["status"], "accepted", "{accepted}");
    let id = accepted["id"].as_str().unwrap().to_string();
    // A model learns where it went through `update_status`.
    let finished = |id: String| {
        let client = &client;
        async move {
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                let status = ok(client, "update_status", json!({"id": id})).await;
                if status["state"] == "done" {
                    return status;
                }
                assert!(Instant::now() < deadline, "{id} never finished: {status}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    let done = finished(id).await;
    assert_eq!(done["outcome"], "filed", "{done}");
    assert!(
        done["changed_files"].to_string().contains("tasks.md"),
        "{done}"
    );
    // What Knower cannot place waits in the inbox; `inbox` lists it with its
    // reasoning, and `update` with `inbox_ref` settles it.
    let accepted = ok(
        &client,
        "update",
        json!({"text": "Lunch with Sam was nice"}),
    )
    .await;
    let done = finished(accepted["id"].as_str().unwrap().to_string()).await;
    assert_eq!(done["outcome"], "inbox", "{done}");
    let inbox = ok(&client, "inbox", json!({})).await;
    assert_eq!(inbox["count"], 1, "{inbox}");
    let item = &inbox["items"][0];
    assert_eq!(item["id"], done["inbox_id"], "{inbox}");
    assert_eq!(item["text"], "Lunch with Sam was nice", "{inbox}");
    assert!(!item["reasoning"].as_str().unwrap().is_empty(), "{inbox}");
    let reply = ok(
        &client,
        "update",
        json!({"text": "discard", "inbox_ref": item["id"]}),
    )
    .await;
    let settled = finished(reply["id"].as_str().unwrap().to_string()).await;
    assert_eq!(settled["outcome"], "discarded", "{settled}");
    assert_eq!(ok(&client, "inbox", json!({})).await["count"], 0);
    let message = refused(
        &client,
        "update",
        json!({"text": "x", "inbox_ref": "../../etc"}),
    )
    .await;
    assert!(!message.is_empty());
    // A giant call: refused, and the session goes on.
    let message = refused(
        &client,
        "write",
        json!({"path": "big.md", "content": "x".repeat(5 << 20)}),
    )
    .await;
    assert!(message.contains("at most"), "{message}");
    let bigger = json!({"path": "bigger.md", "content": "x".repeat(12 << 20)});
    let too_big = client
        .call_tool(
            CallToolRequestParams::new("write").with_arguments(bigger.as_object().unwrap().clone()),
        )
        .await;
    assert!(too_big.is_err(), "past the body limit: an HTTP 413");
    assert_eq!(client.list_all_tools().await.unwrap().len(), 30);
    assert!(!dir.path().join("bigger.md").exists());
    client.cancel().await.unwrap();
}

#[test]
fn graph_import_and_export_round_trip_the_reference_file() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    knower(v, &["init"], "");
    let file = concat!(
        r#"{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea","has a dog"]}"#,
        "\n",
        r#"{"type":"entity","name":"Acme Corp","entityType":"company","observations":[]}"#,
        "\n",
        r#"{"type":"relation","from":"Alice","to":"Acme Corp","relationType":"works_at"}"#,
        "\n",
    );
    let path = v.join("memory.jsonl");
    std::fs::write(&path, file).unwrap();
    let said = knower(v, &["graph", "import", path.to_str().unwrap()], "");
    assert!(
        said.contains("imported 2 entities, 2 observations and 1 relations"),
        "{said}"
    );
    let sorted = |text: &str| {
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort();
        lines.join("\n")
    };
    assert_eq!(sorted(&knower(v, &["graph", "export"], "")), sorted(file));
    // The same from standard input changes nothing more.
    let again = knower(v, &["--json", "graph", "import", "-"], file);
    assert!(again.contains("\"entities\": 0"), "{again}");
    // A broken file is refused with its line, and nothing is imported.
    let out = knower_command(v)
        .args(["graph", "import", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"{\"type\":\"entity\",\"name\":\"Zed\"}\n")?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1"));
    assert!(!knower(v, &["graph", "export"], "").contains("Zed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_server_running_a_stdio_update_joins_its_queue() {
    let dir = tempfile::tempdir().unwrap();
    knower(dir.path(), &["init"], "");
    let _server = serve(dir.path(), "127.0.0.1:0", None);
    let client = connect(dir.path(), Watching::default()).await;
    let accepted = ok(
        &client,
        "update",
        json!({"text": "Remember to water the tomatoes"}),
    )
    .await;
    assert_eq!(accepted["status"], "accepted", "{accepted}");
    let id = accepted["id"].as_str().unwrap();
    let shown = knower(dir.path(), &["--json", "updates", "show", id], "");
    assert!(shown.contains(id), "{shown}");
    client.cancel().await.unwrap();
}

/// What the adversarial pass sent `knower mcp`: every line that is not a
/// message gets JSON-RPC's error with `id: null`, and the session goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn knower_mcp_answers_lines_it_cannot_parse_with_a_parse_error() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let dir = tempfile::tempdir().unwrap();
    knower(dir.path(), &["init"], "");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_knower"))
        .arg("--vault")
        .arg(dir.path())
        .arg("mcp")
        .env_remove("KNOWER_LLM")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    let mut huge = vec![b'{'; 70 << 20];
    huge.push(b'\n');
    let lines: Vec<Vec<u8>> = vec![
        b"this is not json\n".to_vec(),
        b"{\"jsonrpc\": \"2.0\", \"method\": \"\xff\xfe\"}\n".to_vec(),
        format!("{deep}\n").into_bytes(),
        huge,
        b"{\"hello\": \"world\"}\n".to_vec(),
    ];
    let writer = tokio::spawn(async move {
        for line in lines {
            stdin.write_all(&line).await.unwrap();
        }
        let initialize = json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "probe", "version": "1"}}
        });
        stdin
            .write_all(format!("{initialize}\n").as_bytes())
            .await
            .unwrap();
        stdin
    });
    let mut codes = Vec::new();
    let answer = loop {
        let line = tokio::time::timeout(std::time::Duration::from_secs(60), stdout.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("an answer before the end");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 1 {
            break message;
        }
        assert_eq!(message["id"], Value::Null, "{message}");
        codes.push(message["error"]["code"].as_i64().unwrap());
    };
    assert_eq!(codes, [-32700, -32700, -32700, -32700, -32600]);
    assert_eq!(answer["result"]["serverInfo"]["name"], "knower", "{answer}");
    drop(writer.await.unwrap());
    let _ = child.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_reads_the_sync_status_and_syncs_the_vault() {
    let (dir, client) = stdio().await;
    let status = ok(&client, "sync_status", json!({})).await;
    assert_eq!(status["configured"], false, "{status}");
    let message = refused(&client, "sync", json!({})).await;
    assert!(message.contains("no remote to sync with"), "{message}");

    let remote = dir.path().join("remote.git");
    support::git(
        dir.path(),
        &[
            "init",
            "--quiet",
            "--bare",
            "--initial-branch=main",
            "remote.git",
        ],
    );
    let settings = format!("[sync]\nremote = \"{}\"\n", remote.display());
    ok(
        &client,
        "write",
        json!({"path": "knower.toml", "content": settings}),
    )
    .await;
    let report = ok(&client, "sync", json!({})).await;
    assert_eq!(report["pushed"], true, "{report}");
    assert_eq!(report["first_push"], true, "{report}");
    let status = ok(&client, "sync_status", json!({})).await;
    assert_eq!(status["last"]["ok"], true, "{status}");
    client.cancel().await.unwrap();
}
