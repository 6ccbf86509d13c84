//! Knower's MCP server with a real MCP client (rmcp's): `knower mcp` over
//! stdio as a child process, and `/mcp` on `knower serve` over streamable
//! HTTP. The knowledge-graph tests port what the reference memory server's
//! own tests assert.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Stdio};

mod support;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{knower, knower_command, serve};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ProtocolVersion, ReadResourceRequestParams,
    ResourceUpdatedNotificationParam, SubscribeRequestParams, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ClientServiceExt, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::{Mutex, Notify};

type Client = RunningService<RoleClient, Watching>;

/// A client that remembers which resources the server said were updated.
#[derive(Clone, Default)]
struct Watching {
    updated: Arc<Mutex<Vec<String>>>,
    heard: Arc<Notify>,
}

impl ClientHandler for Watching {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().await.push(params.uri);
        self.heard.notify_waiters();
    }
}

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

async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// A successful call's structured result.
async fn ok(client: &Client, tool: &str, arguments: Value) -> Value {
    let result = call(client, tool, arguments.clone()).await;
    assert_ne!(
        result.is_error,
        Some(true),
        "{tool} {arguments} failed: {:?}",
        result.content
    );
    result.structured_content.unwrap_or(Value::Null)
}

/// A refused call's message.
async fn refused(client: &Client, tool: &str, arguments: Value) -> String {
    let result = call(client, tool, arguments.clone()).await;
    assert_eq!(
        result.is_error,
        Some(true),
        "{tool} {arguments} should fail: {:?}",
        result.structured_content
    );
    serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

fn names(entities: &Value) -> BTreeSet<String> {
    entities
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

fn person(name: &str, observations: &[&str]) -> Value {
    json!({"name": name, "entityType": "person", "observations": observations})
}

fn knows(from: &str, to: &str) -> Value {
    json!({"from": from, "to": to, "relationType": "knows"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tools_are_listed_with_schemas_and_annotations() {
    let (_dir, client) = stdio().await;
    let tools = client.list_all_tools().await.unwrap();
    let listed: BTreeSet<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let expected: BTreeSet<&str> = [
        "update",
        "search",
        "tree",
        "read",
        "search_vault",
        "write",
        "edit",
        "append",
        "delete",
        "move",
        "create_entities",
        "create_relations",
        "add_observations",
        "delete_entities",
        "delete_observations",
        "delete_relations",
        "read_graph",
        "search_nodes",
        "open_nodes",
    ]
    .into();
    assert_eq!(listed, expected);
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        assert!(
            tool.description.as_deref().is_some_and(|d| d.len() > 20),
            "{} needs a description a model can use",
            tool.name
        );
        let hints = tool.annotations.as_ref().expect("annotated");
        let read_only = hints.read_only_hint == Some(true);
        let destructive = hints.destructive_hint == Some(true);
        assert!(!(read_only && destructive), "{}", tool.name);
        let expect_read_only = matches!(
            tool.name.as_ref(),
            "search"
                | "tree"
                | "read"
                | "search_vault"
                | "read_graph"
                | "search_nodes"
                | "open_nodes"
        );
        assert_eq!(read_only, expect_read_only, "{}", tool.name);
        let expect_destructive = matches!(
            tool.name.as_ref(),
            "write"
                | "edit"
                | "delete"
                | "move"
                | "delete_entities"
                | "delete_observations"
                | "delete_relations"
        );
        assert_eq!(destructive, expect_destructive, "{}", tool.name);
        assert_eq!(hints.open_world_hint, Some(false), "{}", tool.name);
    }
    // The reference server's argument names, so its clients work unchanged.
    let schema = |name: &str| {
        serde_json::to_value(&*tools.iter().find(|t| t.name == name).unwrap().input_schema).unwrap()
    };
    assert_eq!(schema("create_entities")["required"], json!(["entities"]));
    assert_eq!(
        schema("delete_entities")["required"],
        json!(["entityNames"])
    );
    assert_eq!(
        schema("add_observations")["required"],
        json!(["observations"])
    );
    assert_eq!(
        schema("delete_observations")["required"],
        json!(["deletions"])
    );
    assert_eq!(schema("open_nodes")["required"], json!(["names"]));
    assert_eq!(schema("search_nodes")["required"], json!(["query"]));
    let entity = serde_json::to_string(&schema("create_entities")).unwrap();
    for field in ["entityType", "observations"] {
        assert!(entity.contains(field), "{entity}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graph_behaves_like_the_reference_memory_server() {
    let (dir, client) = stdio().await;

    // An empty graph.
    assert_eq!(
        ok(&client, "read_graph", json!({})).await,
        json!({"entities": [], "relations": []})
    );
    assert_eq!(
        ok(&client, "create_entities", json!({"entities": []})).await,
        json!({"entities": []})
    );

    // Entities: created once; duplicates skipped.
    let alice = person("Alice", &["works at Acme Corp"]);
    let created = ok(
        &client,
        "create_entities",
        json!({"entities": [alice, person("Bob", &["likes programming"])]}),
    )
    .await;
    assert_eq!(created["entities"].as_array().unwrap().len(), 2);
    assert_eq!(created["entities"][0], alice);
    let again = ok(&client, "create_entities", json!({"entities": [alice]})).await;
    assert_eq!(again, json!({"entities": []}));
    assert_eq!(
        ok(&client, "read_graph", json!({})).await["entities"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // …kept as notes in the vault.
    assert!(dir.path().join("graph/alice.md").exists());

    // Relations: created once; both ends must exist.
    let created = ok(
        &client,
        "create_relations",
        json!({"relations": [knows("Alice", "Bob")]}),
    )
    .await;
    assert_eq!(created, json!({"relations": [knows("Alice", "Bob")]}));
    assert_eq!(
        ok(
            &client,
            "create_relations",
            json!({"relations": [knows("Alice", "Bob")]})
        )
        .await,
        json!({"relations": []})
    );
    for (from, to) in [("Ghost", "Alice"), ("Alice", "Ghost")] {
        let message = refused(
            &client,
            "create_relations",
            json!({"relations": [knows(from, to)]}),
        )
        .await;
        assert!(
            message.contains("Entity with name Ghost not found"),
            "{message}"
        );
    }
    assert_eq!(
        ok(&client, "read_graph", json!({})).await["relations"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Observations: duplicates skipped; a missing entity rejected.
    let added = ok(&client, "add_observations", json!({"observations": [{"entityName": "Alice", "contents": ["likes coffee", "has a dog"]}]})).await;
    assert_eq!(
        added,
        json!({"results": [{"entityName": "Alice", "addedObservations": ["likes coffee", "has a dog"]}]})
    );
    let added = ok(
        &client,
        "add_observations",
        json!({"observations": [{"entityName": "Alice", "contents": ["likes coffee", "reads"]}]}),
    )
    .await;
    assert_eq!(added["results"][0]["addedObservations"], json!(["reads"]));
    let message = refused(
        &client,
        "add_observations",
        json!({"observations": [{"entityName": "NonExistent", "contents": ["x"]}]}),
    )
    .await;
    assert!(
        message.contains("Entity with name NonExistent not found"),
        "{message}"
    );
    let graph = ok(&client, "open_nodes", json!({"names": ["Alice"]})).await;
    assert_eq!(
        graph["entities"][0]["observations"]
            .as_array()
            .unwrap()
            .len(),
        4
    );

    // Deleting observations; deleting from a missing entity is no error.
    let done = ok(&client, "delete_observations", json!({"deletions": [{"entityName": "Alice", "observations": ["likes coffee"]}, {"entityName": "NonExistent", "observations": ["x"]}]})).await;
    assert_eq!(
        done,
        json!({"success": true, "message": "Observations deleted successfully"})
    );
    let alice = &ok(&client, "open_nodes", json!({"names": ["Alice"]})).await["entities"][0];
    assert_eq!(
        alice["observations"],
        json!(["works at Acme Corp", "has a dog", "reads"])
    );

    // Deleting relations: only the one named.
    ok(
        &client,
        "create_relations",
        json!({"relations": [{"from": "Alice", "to": "Bob", "relationType": "works_with"}]}),
    )
    .await;
    ok(
        &client,
        "delete_relations",
        json!({"relations": [knows("Alice", "Bob")]}),
    )
    .await;
    let relations = ok(&client, "read_graph", json!({})).await["relations"].clone();
    assert_eq!(
        relations,
        json!([{"from": "Alice", "to": "Bob", "relationType": "works_with"}])
    );

    // Deleting entities cascades to their relations; missing names are ignored.
    ok(
        &client,
        "create_entities",
        json!({"entities": [person("Charlie", &[])]}),
    )
    .await;
    ok(
        &client,
        "create_relations",
        json!({"relations": [knows("Bob", "Charlie")]}),
    )
    .await;
    let done = ok(
        &client,
        "delete_entities",
        json!({"entityNames": ["Bob", "NonExistent"]}),
    )
    .await;
    assert_eq!(done["success"], true);
    let graph = ok(&client, "read_graph", json!({})).await;
    assert_eq!(
        names(&graph["entities"]),
        ["Alice".to_string(), "Charlie".to_string()].into()
    );
    assert_eq!(graph["relations"], json!([]));
    assert!(!dir.path().join("graph/bob.md").exists());
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_nodes_and_open_nodes_return_the_relations_that_touch_them() {
    let (_dir, client) = stdio().await;
    ok(
        &client,
        "create_entities",
        json!({"entities": [
            person("Alice", &["works at Acme Corp", "likes programming"]),
            person("Bob", &["works at TechCo"]),
            {"name": "Acme Corp", "entityType": "company", "observations": ["tech company"]},
            person("Charlie", &[]),
        ]}),
    )
    .await;
    ok(
        &client,
        "create_relations",
        json!({"relations": [
            {"from": "Alice", "to": "Acme Corp", "relationType": "works_at"},
            {"from": "Bob", "to": "Acme Corp", "relationType": "competitor"},
            knows("Bob", "Charlie"),
        ]}),
    )
    .await;

    let search = |query: &'static str| {
        let client = &client;
        async move { ok(client, "search_nodes", json!({"query": query})).await }
    };
    assert_eq!(
        names(&search("Alice").await["entities"]),
        ["Alice".to_string()].into()
    );
    assert_eq!(
        names(&search("company").await["entities"]),
        ["Acme Corp".to_string()].into()
    );
    assert_eq!(
        names(&search("programming").await["entities"]),
        ["Alice".to_string()].into()
    );
    assert_eq!(
        names(&search("ALICE").await["entities"]),
        ["Alice".to_string()].into()
    );
    let acme = search("Acme").await;
    assert_eq!(
        names(&acme["entities"]),
        ["Acme Corp".to_string(), "Alice".to_string()].into()
    );
    assert_eq!(acme["relations"].as_array().unwrap().len(), 2, "{acme}");
    let alice = search("Alice").await;
    assert_eq!(
        alice["relations"],
        json!([{"from": "Alice", "to": "Acme Corp", "relationType": "works_at"}])
    );
    assert_eq!(
        search("NonExistent").await,
        json!({"entities": [], "relations": []})
    );

    let open = |names: Value| {
        let client = &client;
        async move { ok(client, "open_nodes", json!({"names": names})).await }
    };
    let bob = open(json!(["Bob"])).await;
    assert_eq!(names(&bob["entities"]), ["Bob".to_string()].into());
    assert_eq!(bob["relations"].as_array().unwrap().len(), 2, "{bob}");
    let charlie = open(json!(["Charlie"])).await;
    assert_eq!(charlie["relations"], json!([knows("Bob", "Charlie")]));
    assert_eq!(open(json!(["NonExistent"])).await["entities"], json!([]));
    assert_eq!(
        open(json!([])).await,
        json!({"entities": [], "relations": []})
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vault_tools_work_and_bad_input_is_refused_while_the_server_keeps_serving() {
    let (dir, client) = stdio().await;
    let written = ok(&client, "write", json!({"path": "projects/atlas/state.md", "content": "# Atlas\n\nLaunch in April.\n", "reason": "from a test"})).await;
    assert_eq!(written["changed"], true);
    let read = ok(&client, "read", json!({"path": "projects/atlas/state.md"})).await;
    assert!(
        read["content"]
            .as_str()
            .unwrap()
            .contains("Launch in April.")
    );
    ok(
        &client,
        "edit",
        json!({"path": "projects/atlas/state.md", "old": "April", "new": "May"}),
    )
    .await;
    ok(
        &client,
        "append",
        json!({"path": "projects/atlas/state.md", "text": "- risk: the venue"}),
    )
    .await;
    let text = std::fs::read_to_string(dir.path().join("projects/atlas/state.md")).unwrap();
    assert!(
        text.contains("Launch in May.") && text.contains("- risk: the venue"),
        "{text}"
    );
    let log: Value = serde_json::from_str(&knower(dir.path(), &["--json", "log"], "")).unwrap();
    assert!(
        log.as_array()
            .unwrap()
            .iter()
            .any(|c| c["actor"] == "mcp" && c["reason"] == "from a test"),
        "{log}"
    );

    let hits = ok(&client, "search_vault", json!({"query": "venue"})).await;
    assert_eq!(hits["hits"][0]["path"], "projects/atlas/state.md");
    let answer = ok(
        &client,
        "search",
        json!({"query": "When is the Atlas launch?"}),
    )
    .await;
    assert_eq!(
        answer["sources"][0]["path"], "projects/atlas/state.md",
        "{answer}"
    );
    let tree = ok(&client, "tree", json!({"path": "projects", "depth": 2})).await;
    assert!(tree.to_string().contains("state.md"), "{tree}");
    ok(
        &client,
        "move",
        json!({"from": "projects/atlas/state.md", "to": "projects/atlas/status.md"}),
    )
    .await;
    ok(
        &client,
        "delete",
        json!({"path": "projects/atlas/status.md"}),
    )
    .await;
    assert!(!dir.path().join("projects/atlas/status.md").exists());
    // No server runs: the update is filed at once by the offline engine.
    let update = ok(
        &client,
        "update",
        json!({"text": "Remember to renew the Atlas TLS certificate"}),
    )
    .await;
    assert_eq!(update["status"], "done", "{update}");

    // Bad input: each a clear error, and the server goes on serving.
    for outside in ["../secret.md", "/etc/passwd", ".knower/journal.jsonl"] {
        let message = refused(&client, "read", json!({"path": outside})).await;
        assert!(!message.is_empty());
        refused(&client, "write", json!({"path": outside, "content": "x"})).await;
    }
    assert!(!dir.path().parent().unwrap().join("secret.md").exists());
    let message = refused(&client, "search_nodes", json!({"query": 42})).await;
    assert!(message.contains("invalid type"), "{message}");
    refused(
        &client,
        "create_entities",
        json!({"entities": [{"name": "x"}]}),
    )
    .await;
    // Past the transport's default 16 MiB line: still a clear error.
    let giant = "x".repeat(20 << 20);
    let message = refused(
        &client,
        "write",
        json!({"path": "big.md", "content": giant}),
    )
    .await;
    assert!(message.contains("at most"), "{message}");
    assert!(!dir.path().join("big.md").exists());
    let unknown = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await
        .expect_err("an unknown tool is a protocol error");
    assert!(unknown.to_string().contains("tool not found"), "{unknown}");
    assert!(client.list_all_tools().await.unwrap().len() == 19);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vault_files_and_the_graph_are_resources_and_subscribers_hear_of_changes() {
    let (dir, client) = stdio().await;
    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert!(uris.contains(&"knower://graph"), "{uris:?}");
    assert!(uris.contains(&"knower://vault/overview.md"), "{uris:?}");
    let overview = client
        .read_resource(ReadResourceRequestParams::new("knower://vault/overview.md"))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&overview)
            .unwrap()
            .contains("Overview")
    );
    for outside in [
        "knower://vault/../etc/passwd",
        "knower://vault/%2E%2E/x",
        "file:///etc/passwd",
    ] {
        assert!(
            client
                .read_resource(ReadResourceRequestParams::new(outside))
                .await
                .is_err(),
            "{outside}"
        );
    }

    #[allow(deprecated)]
    client
        .subscribe(SubscribeRequestParams::new("knower://graph"))
        .await
        .unwrap();
    let handler = client.service().clone();
    // A change made by this session…
    ok(
        &client,
        "create_entities",
        json!({"entities": [person("Alice", &[])]}),
    )
    .await;
    wait_for(&handler, "knower://graph").await;
    handler.updated.lock().await.clear();
    // …and one made by another process, seen by the watcher.
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
    assert!(text.contains("Alice") && text.contains("Bob"), "{text}");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_listens_for_graph_changes() {
    let dir = tempfile::tempdir().unwrap();
    knower(dir.path(), &["init"], "");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_knower"));
    command
        .arg("--vault")
        .arg(dir.path())
        .arg("mcp")
        .env_remove("KNOWER_LLM")
        .stderr(Stdio::null());
    let client = ()
        .serve_with_lifecycle(
            TokioChildProcess::new(command).unwrap(),
            rmcp::ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let mut subscription = client
        .listen(
            SubscriptionFilter::builder()
                .resource_subscription("knower://graph")
                .resource_subscription("knower://vault/../escape")
                .build(),
        )
        .await
        .unwrap();
    assert_eq!(
        subscription.acknowledged().resource_subscriptions,
        Some(vec!["knower://graph".to_string()])
    );
    knower(
        dir.path(),
        &["write", "graph/carol.md"],
        "---\ntype: person\n---\n# Carol\n",
    );
    let heard = tokio::time::timeout(Duration::from_secs(10), subscription.next())
        .await
        .expect("a notification within 10 s")
        .unwrap()
        .expect("the subscription is open");
    assert!(
        serde_json::to_string(&heard)
            .unwrap()
            .contains("knower://graph"),
        "{heard:?}"
    );
    client.cancel().await.unwrap();
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
    assert_eq!(client.list_all_tools().await.unwrap().len(), 19);
    ok(
        &client,
        "create_entities",
        json!({"entities": [person("Alice", &["likes tea"])]}),
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
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let shown = knower_command(dir.path())
            .args(["--json", "updates", "show", &id])
            .env("KNOWER_TOKEN", "tok-81c2")
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&shown.stdout).to_string();
        if shown.contains("\"done\"") {
            break;
        }
        assert!(Instant::now() < deadline, "{id} never finished: {shown}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
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
    assert_eq!(client.list_all_tools().await.unwrap().len(), 19);
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
