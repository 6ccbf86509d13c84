//! The MCP service's protocol, in process: `Knower` served over an
//! in-memory pipe to rmcp's own client. The tools and their schemas, the
//! reference memory server's behaviours (its own tests, ported), the
//! vault's tools and bad input, resources and both subscription
//! protocols. `knower mcp` and `/mcp` as processes are tested beside the
//! binary.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

mod support;
use support::{Fixture, Watching, session, session_with};

use knower_testkit::mcp::{ok, refused};
use rmcp::ClientServiceExt;
use rmcp::model::{
    CallToolRequestParams, ProtocolVersion, ReadResourceRequestParams, SubscribeRequestParams,
    SubscriptionFilter,
};
use serde_json::{Value, json};

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
    let (_fx, client) = session().await;
    let tools = client.list_all_tools().await.unwrap();
    let listed: BTreeSet<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let expected: BTreeSet<&str> = [
        "update",
        "update_status",
        "inbox",
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
        "harvest",
        "chat",
        "garden_topics",
        "garden_add_topic",
        "garden_review",
        "garden_approve",
        "garden_reject",
        "sync_status",
        "sync",
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
                | "update_status"
                | "inbox"
                | "tree"
                | "read"
                | "search_vault"
                | "read_graph"
                | "search_nodes"
                | "open_nodes"
                | "garden_topics"
                | "garden_review"
                | "sync_status"
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
        // Only `sync` reaches beyond the vault: the git remote the user
        // configured.
        let expect_open_world = tool.name == "sync";
        assert_eq!(
            hints.open_world_hint,
            Some(expect_open_world),
            "{}",
            tool.name
        );
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
    let (fx, client) = session().await;

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
    assert!(fx.dir.path().join("graph/alice.md").exists());

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
    assert!(!fx.dir.path().join("graph/bob.md").exists());
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_nodes_and_open_nodes_return_the_relations_that_touch_them() {
    let (_fx, client) = session().await;
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
    let (fx, client) = session().await;
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
    let text = std::fs::read_to_string(fx.dir.path().join("projects/atlas/state.md")).unwrap();
    assert!(
        text.contains("Launch in May.") && text.contains("- risk: the venue"),
        "{text}"
    );
    let log = fx.vault.log().unwrap();
    assert!(
        log.iter()
            .any(|c| c.actor == "mcp" && c.reason == "from a test"),
        "{log:?}"
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
    assert!(!fx.dir.path().join("projects/atlas/status.md").exists());
    // No server runs on the vault: the update is filed at once by the
    // offline engine.
    let update = ok(
        &client,
        "update",
        json!({"text": "Remember to renew the Atlas TLS certificate"}),
    )
    .await;
    assert_eq!(update["status"], "done", "{update}");
    // With a key, sending it again (the answer was lost) is the same update.
    let keyed = json!({"text": "The Atlas demo is on 12 March", "key": "c0ffee-01"});
    let first = ok(&client, "update", keyed.clone()).await;
    let again = ok(&client, "update", keyed).await;
    assert_eq!(again["id"], first["id"], "{again}");
    let mut demos = 0;
    let mut folders = vec![fx.dir.path().to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with(".knower") {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") && !path.ends_with("changelog.md")
            {
                demos += std::fs::read_to_string(&path)
                    .unwrap_or_default()
                    .matches("demo is on 12 March")
                    .count();
            }
        }
    }
    assert_eq!(demos, 1, "filed once");

    // Bad input: each a clear error, and the server goes on serving.
    for outside in ["../secret.md", "/etc/passwd", ".knower/journal.jsonl"] {
        let message = refused(&client, "read", json!({"path": outside})).await;
        assert!(!message.is_empty());
        refused(&client, "write", json!({"path": outside, "content": "x"})).await;
    }
    assert!(!fx.dir.path().parent().unwrap().join("secret.md").exists());
    let message = refused(&client, "search_nodes", json!({"query": 42})).await;
    assert!(message.contains("invalid type"), "{message}");
    refused(
        &client,
        "create_entities",
        json!({"entities": [{"name": "x"}]}),
    )
    .await;
    // Past the tools' 4 MiB limit: a clear error (`knower mcp`'s own test
    // sends one past the transport's default line length too).
    let giant = "x".repeat(5 << 20);
    let message = refused(
        &client,
        "write",
        json!({"path": "big.md", "content": giant}),
    )
    .await;
    assert!(message.contains("at most"), "{message}");
    assert!(!fx.dir.path().join("big.md").exists());
    let unknown = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await
        .expect_err("an unknown tool is a protocol error");
    assert!(unknown.to_string().contains("tool not found"), "{unknown}");
    assert!(client.list_all_tools().await.unwrap().len() == 30);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vault_files_and_the_graph_are_resources_and_subscribers_hear_of_changes() {
    let (fx, client) = session().await;
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
    // …and one made by another writer on the vault, seen by the watcher.
    fx.elsewhere("graph/bob.md", "---\ntype: person\n---\n# Bob\n");
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
    let fx = Fixture::new();
    let client = ()
        .serve_with_lifecycle(
            fx.transport(),
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
    fx.elsewhere("graph/carol.md", "---\ntype: person\n---\n# Carol\n");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn harvest_is_a_dry_run_unless_told_to_apply() {
    let (fx, client) = session().await;
    let notes = fx.dir.path().join("standup.md");
    std::fs::write(
        &notes,
        "Ana: We decided to keep weekly rotations.\nBen: Remember to update the runbook before Friday.\nAna: ok\nBen: ok\n",
    )
    .unwrap();
    let path = notes.display().to_string();
    let dry = ok(&client, "harvest", json!({"paths": [path]})).await;
    assert_eq!(dry["applied"], false);
    assert_eq!(dry["tally"]["to_harvest"], 1);
    assert!(
        fx.vault.read("knowledge/decisions.md").is_err(),
        "a dry run writes nothing"
    );
    let applied = ok(&client, "harvest", json!({"paths": [path], "apply": true})).await;
    assert_eq!(applied["harvested"], 1, "{applied}");
    assert!(
        fx.vault
            .read("knowledge/decisions.md")
            .unwrap()
            .contains("We decided to keep weekly rotations")
    );
    assert!(notes.exists(), "MCP never deletes a source");
    // The digest and the category files are resources like every note.
    let digest = client
        .read_resource(ReadResourceRequestParams::new(
            "knower://vault/knowledge/digest.md",
        ))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&digest)
            .unwrap()
            .contains("Knowledge digest")
    );
    let refused = refused(&client, "harvest", json!({"paths": ["/no/such/file.json"]})).await;
    assert!(
        refused.contains("could not read /no/such/file.json"),
        "{refused}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_answers_records_what_it_concluded_and_continues_a_session() {
    let (fx, client) = session().await;
    let first = ok(
        &client,
        "chat",
        json!({"message": "Which city should we visit in April?"}),
    )
    .await;
    assert!(
        first["assistant"]
            .as_str()
            .unwrap()
            .contains("offline engine"),
        "{first}"
    );
    assert_eq!(first["changes"][0]["change"], "created");
    let session = first["session"].as_str().unwrap().to_string();
    let second = ok(
        &client,
        "chat",
        json!({"message": "We decided: Kyoto in April.", "session": session}),
    )
    .await;
    assert_eq!(second["changes"][0]["change"], "resolved", "{second}");
    assert_eq!(second["context"]["history"], 1, "the session continues");
    assert_eq!(fx.vault.read("chat/log.jsonl").unwrap().lines().count(), 2);
    let refused = refused(&client, "chat", json!({"message": " "})).await;
    assert!(refused.contains("empty"));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_garden_is_tended_by_a_model_on_the_users_word() {
    use knower_garden::RunOptions;
    use knower_testkit::web::{ScriptedWeb, tokio_site};
    let web = ScriptedWeb::start();
    tokio_site(&web);
    let (fx, client) = session_with(Some(&format!(
        "[garden]\nallow_private_hosts = [\"{}\"]\n",
        web.base_url().trim_start_matches("http://")
    )))
    .await;
    let topic = ok(
        &client,
        "garden_add_topic",
        json!({"name": "Tokio runtime", "priority": 4, "feeds": [web.url("/feed.xml")]}),
    )
    .await;
    assert_eq!(topic["slug"], "tokio-runtime", "{topic}");
    let again = refused(
        &client,
        "garden_add_topic",
        json!({"name": "Tokio runtime"}),
    )
    .await;
    assert!(again.contains("already exists"), "{again}");
    let bad = refused(
        &client,
        "garden_add_topic",
        json!({"name": "X", "priority": 9}),
    )
    .await;
    assert!(bad.contains("priority is 1 to 5"), "{bad}");
    let bad = refused(
        &client,
        "garden_add_topic",
        json!({"name": "Y", "feeds": ["javascript:alert(1)"]}),
    )
    .await;
    assert!(bad.contains("not an http(s) URL"), "{bad}");

    fx.service
        .garden_run(RunOptions::default(), |_| {})
        .await
        .unwrap();
    let review = ok(&client, "garden_review", json!({})).await;
    let items = review["items"].as_array().unwrap();
    assert!(items.len() >= 2, "{review}");
    assert!(items[0]["source"]["url"].as_str().is_some(), "{review}");
    let first = items[0]["id"].as_str().unwrap().to_string();
    let second = items[1]["id"].as_str().unwrap().to_string();
    let limited = ok(&client, "garden_review", json!({"limit": 1})).await;
    assert_eq!(limited["items"].as_array().unwrap().len(), 1);
    assert_eq!(limited["total"], review["total"]);

    let not_an_id = refused(&client, "garden_approve", json!({"ids": ["1"]})).await;
    assert!(not_an_id.contains("not a fact id"), "{not_an_id}");
    let unknown = refused(&client, "garden_approve", json!({"ids": ["g00000000"]})).await;
    assert!(unknown.contains("g00000000"), "{unknown}");
    let approved = ok(&client, "garden_approve", json!({"ids": [first]})).await;
    assert_eq!(approved["approved"], json!([first]));
    let no_reason = refused(
        &client,
        "garden_reject",
        json!({"ids": [second], "reason": " "}),
    )
    .await;
    assert!(no_reason.contains("reason"), "{no_reason}");
    let rejected = ok(
        &client,
        "garden_reject",
        json!({"ids": [second], "reason": "an old release"}),
    )
    .await;
    assert_eq!(rejected["rejected"], json!([second]));

    // The same files a person edits by hand.
    let approvals = fx.vault.read("garden/inbox/approvals.json").unwrap();
    assert!(approvals.contains(&first), "{approvals}");
    let rejections = fx.vault.read("garden/inbox/rejections.json").unwrap();
    assert!(rejections.contains("an old release"), "{rejections}");
    let topics = ok(&client, "garden_topics", json!({})).await;
    assert_eq!(topics["topics"][0]["confirmed"], 1, "{topics}");
    assert_eq!(topics["topics"][0]["archived"], 1, "{topics}");
    let note = fx.vault.read("garden/topics/tokio-runtime.md").unwrap();
    assert!(
        note.contains(&first) && note.contains("an old release"),
        "{note}"
    );
    client.cancel().await.unwrap();
}
