//! The server over real HTTP on 127.0.0.1: a real listener, a real client.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_index::Index;
use knower_server::{Server, ServerConfig};
use knower_vault::{Author, Vault};
use serde_json::{Value, json};

struct Running {
    address: SocketAddr,
    vault: Arc<Vault>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(token: Option<&str>) -> Running {
    serve_with(token, None)
}

/// A server on a vault whose `knower.toml` is `settings`, written before
/// the server reads it.
fn serve_with(token: Option<&str>, settings: Option<&str>) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let (vault, _) = Vault::init(&dir.path().join("vault"), &Author::new("test", "init")).unwrap();
    if let Some(settings) = settings {
        vault
            .write("knower.toml", settings, &Author::new("test", "settings"))
            .unwrap();
    }
    vault
        .write(
            "projects/garden/notes.md",
            "# Garden\n\nThe tomatoes grow on the south wall.\n",
            &Author::new("test", "seed"),
        )
        .unwrap();
    let vault = Arc::new(vault);
    let index = Index::open(vault.clone()).unwrap();
    index.catch_up(&mut |_, _| {}).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (ready, address) = std::sync::mpsc::channel();
    let config = ServerConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        token: token.map(str::to_string),
    };
    let served = vault.clone();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let server = Server::start(served, index, config).await.unwrap();
            ready.send(server.address()).unwrap();
            server
                .run(async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
    });
    Running {
        address: address.recv().unwrap(),
        vault,
        stop: Some(stop),
        thread: Some(thread),
        _dir: dir,
    }
}

fn client() -> reqwest::Client {
    knower_llm::install_tls_provider();
    reqwest::Client::new()
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

impl Running {
    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    fn get(&self, path: &str) -> (u16, Value) {
        block_on(async {
            let response = client().get(self.url(path)).send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json().await.unwrap_or(Value::Null))
        })
    }

    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        block_on(async {
            let response = client()
                .post(self.url(path))
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            (status, response.json().await.unwrap_or(Value::Null))
        })
    }

    fn wait_done(&self, id: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (status, update) = self.get(&format!("/updates/{id}"));
            assert_eq!(status, 200, "{update}");
            if update["state"] == "done" || update["state"] == "failed" {
                return update;
            }
            assert!(Instant::now() < deadline, "{id} never finished: {update}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Opens `/sse` (as a raw HTTP/1.1 stream) and returns a reader of its
    /// lines.
    fn sse(&self, last_event_id: Option<&str>) -> BufReader<TcpStream> {
        let mut stream = TcpStream::connect(self.address).unwrap();
        // Patience for the next event, not a latency target: a loaded
        // 2-core CI machine once took over 10 s between two of an update's.
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let extra = last_event_id
            .map(|id| format!("Last-Event-ID: {id}\r\n"))
            .unwrap_or_default();
        write!(
            stream,
            "GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{extra}\r\n"
        )
        .unwrap();
        // Once the response's headers are here, the stream is subscribed:
        // an update sent from now on is announced on it.
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        assert!(line.starts_with("HTTP/1.1 200"), "{line}");
        while line.trim_end() != "" {
            line.clear();
            reader.read_line(&mut line).unwrap();
        }
        reader
    }
}

/// Reads SSE events until one named `name` whose data contains `needle`;
/// returns (id, data) of that event.
fn wait_event(reader: &mut BufReader<TcpStream>, name: &str, needle: &str) -> (String, String) {
    wait_events(reader, &[(name, needle)]).remove(0)
}

/// Reads SSE events until each of `wanted` (an event's name and a text
/// its data contains) has come, in whatever order: events from different
/// threads, such as a file's change and its update's end, may arrive
/// either way round. Returns (id, data) of each, in `wanted`'s order.
/// Heartbeats keep a quiet stream's reads alive, so the wait has a
/// deadline of its own.
fn wait_events(
    reader: &mut BufReader<TcpStream>,
    wanted: &[(&str, &str)],
) -> Vec<(String, String)> {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut found: Vec<Option<(String, String)>> = vec![None; wanted.len()];
    let (mut id, mut event) = (String::new(), String::new());
    let mut line = String::new();
    while found.iter().any(Option::is_none) {
        assert!(
            Instant::now() < deadline,
            "still waiting for {wanted:?} after 120 s; found {found:?}"
        );
        line.clear();
        let read = reader.read_line(&mut line).expect("an event in time");
        assert!(read > 0, "the stream ended");
        let line = line.trim_end();
        // Chunked transfer encoding puts chunk sizes on lines of their own.
        if let Some(value) = line.strip_prefix("id: ") {
            id = value.to_string();
        } else if let Some(value) = line.strip_prefix("event: ") {
            event = value.to_string();
        } else if let Some(data) = line.strip_prefix("data: ") {
            let matching = wanted
                .iter()
                .zip(&mut found)
                .find(|((name, needle), seen)| {
                    seen.is_none() && event == *name && data.contains(needle)
                });
            if let Some((_, seen)) = matching {
                *seen = Some((id.clone(), data.to_string()));
            }
        }
    }
    found.into_iter().flatten().collect()
}

#[test]
fn an_update_is_acknowledged_processed_and_announced() {
    let server = serve(None);
    let mut events = server.sse(None);
    let (status, body) = server.post(
        "/update",
        json!({"text": "For the garden project: water the tomatoes every evening"}),
    );
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["status"], "accepted");
    let id = body["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("update-"), "{id}");
    let update = server.wait_done(&id);
    assert_eq!(update["state"], "done", "{update}");
    let changed = update["changed_files"][0].as_str().unwrap().to_string();
    assert!(changed.starts_with("projects/garden/"), "{update}");
    let text = server.vault.read(&changed).unwrap();
    assert!(text.contains("water the tomatoes every evening"), "{text}");
    let (first_id, _) = wait_event(&mut events, "update_status", "\"queued\"");
    wait_event(&mut events, "update_status", "\"running\"");
    let changed_event = format!("\"{changed}\"");
    wait_events(
        &mut events,
        &[
            ("file_changed", &changed_event),
            ("update_status", "\"done\""),
        ],
    );

    // The API shows the file, rendered; and the tree has it.
    let (status, file) = server.get(&format!("/api/file?path={changed}"));
    assert_eq!(status, 200);
    assert!(
        file["markdown"]
            .as_str()
            .unwrap()
            .contains("water the tomatoes")
    );
    assert!(
        file["html"]
            .as_str()
            .unwrap()
            .contains("water the tomatoes")
    );
    let (status, tree) = server.get("/api/tree");
    assert_eq!(status, 200);
    assert!(tree.to_string().contains("projects"), "{tree}");
    let (status, list) = server.get("/updates");
    assert_eq!(status, 200);
    assert_eq!(list[0]["id"], id.as_str());

    // A client that reconnects with the first event's id gets the rest.
    let mut again = server.sse(Some(&first_id));
    wait_events(
        &mut again,
        &[
            ("file_changed", &changed_event),
            ("update_status", "\"done\""),
        ],
    );
}

#[test]
fn two_hundred_concurrent_updates_are_all_processed_in_order_while_search_answers() {
    let server = serve(None);
    let url = server.url("/update");
    let ids: Vec<String> = block_on(async {
        let client = client();
        let requests = (0..200).map(|i| {
            let client = client.clone();
            let url = url.clone();
            async move {
                let response = client
                    .post(url)
                    .json(&json!({"text": format!(
                        "Garden log entry: the tomatoes on the south wall look healthy and green today, marker zq{i:03}x"
                    )}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status().as_u16(), 202);
                let body: Value = response.json().await.unwrap();
                body["id"].as_str().unwrap().to_string()
            }
        });
        futures_util::future::join_all(requests).await
    });
    assert_eq!(ids.len(), 200);
    // Search runs alongside the queue, not after it.
    let (_, health) = server.get("/health");
    let (status, answer) = server.post("/search", json!({"query": "where do the tomatoes grow?"}));
    assert_eq!(status, 200, "{answer}");
    assert!(
        answer["markdown"].as_str().unwrap().contains("south wall"),
        "{answer}"
    );
    assert!(answer["sources"][0]["path"].is_string(), "{answer}");
    let (_, after) = server.get("/health");
    assert!(
        health["queue"]["queued"].as_u64().unwrap() > 0
            || after["queue"]["queued"].as_u64().unwrap() > 0,
        "the search ran while updates waited: {health} {after}"
    );
    for id in &ids {
        assert_eq!(server.wait_done(id)["state"], "done");
    }
    // In order: the acceptance order (the list, oldest last) is the order
    // the changelog got its entries (newest first).
    let (_, list) = server.get("/updates?limit=500");
    let accepted: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["id"].as_str().unwrap())
        .collect();
    let changelog = server.vault.read("changelog.md").unwrap();
    let logged: Vec<&str> = changelog
        .lines()
        .filter_map(|l| l.rsplit_once('[').map(|(_, id)| id.trim_end_matches(']')))
        .filter(|id| id.starts_with("update-"))
        .collect();
    assert_eq!(logged, accepted, "processed in acceptance order, each once");
    // Every text landed exactly once, and every file is whole.
    let mut notes = String::new();
    for (path, entry) in server.vault.entries() {
        if entry.kind == knower_vault::EntryKind::File
            && path.as_str().ends_with(".md")
            && path.as_str() != "changelog.md"
            && path.as_str() != "tree.md"
            && !path.as_str().ends_with("review.md")
        {
            notes.push_str(&server.vault.read(path.as_str()).unwrap());
        }
    }
    for i in 0..200 {
        assert_eq!(notes.matches(&format!("zq{i:03}x")).count(), 1, "zq{i:03}x");
    }
}

#[test]
fn bad_requests_get_clear_errors() {
    let server = serve(None);
    let raw = |method: &str, path: &str, headers: &[(&str, &str)], body: Vec<u8>| {
        block_on(async {
            let mut request = client().request(method.parse().unwrap(), server.url(path));
            for (name, value) in headers {
                request = request.header(*name, *value);
            }
            let response = request.body(body).send().await.unwrap();
            let status = response.status().as_u16();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            (status, body)
        })
    };
    // A body over the limit is declared, not sent: the server answers from
    // its Content-Length and closes, and a client still writing would see a
    // broken pipe instead of the answer (as CI did, once in a while).
    let declared_too_large = |path: &str| {
        let mut stream = TcpStream::connect(server.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        write!(
            stream,
            "POST {path} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
            server.address,
            3 << 20
        )
        .unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let body = answer
            .split_once("\r\n\r\n")
            .and_then(|(_, body)| serde_json::from_str(body).ok())
            .unwrap_or(Value::Null);
        (status, body)
    };
    let json_type = [("content-type", "application/json")];
    let cases: Vec<(u16, &str, (u16, Value))> = vec![
        (
            400,
            "bad_request",
            raw(
                "POST",
                "/search",
                &json_type,
                b"{\"query\": \"a\", \"scope\": \"path:../..\"}".to_vec(),
            ),
        ),
        (
            400,
            "invalid_json",
            raw("POST", "/update", &json_type, b"{\"text\": ".to_vec()),
        ),
        (
            422,
            "invalid_json",
            raw("POST", "/update", &json_type, b"{\"txt\": \"x\"}".to_vec()),
        ),
        (
            400,
            "invalid_utf8",
            raw("POST", "/update", &json_type, vec![0xff, 0xfe, b'{']),
        ),
        (413, "too_large", declared_too_large("/update")),
        (413, "too_large", declared_too_large("/search")),
        (413, "too_large", declared_too_large("/chat")),
        (
            422,
            "invalid",
            raw(
                "POST",
                "/update",
                &json_type,
                br#"{"text": "   "}"#.to_vec(),
            ),
        ),
        (
            404,
            "not_found",
            raw(
                "POST",
                "/update",
                &json_type,
                br#"{"text": "x", "inbox_ref": "nope"}"#.to_vec(),
            ),
        ),
        (
            404,
            "not_found",
            raw(
                "POST",
                "/update",
                &json_type,
                br#"{"text": "x", "inbox_ref": "../../etc"}"#.to_vec(),
            ),
        ),
        (
            415,
            "unsupported_media_type",
            raw(
                "POST",
                "/update",
                &[("content-type", "text/plain")],
                b"hello".to_vec(),
            ),
        ),
        (404, "not_found", raw("GET", "/nowhere", &[], vec![])),
        (
            405,
            "method_not_allowed",
            raw("DELETE", "/update", &[], vec![]),
        ),
        (
            400,
            "invalid_path",
            raw("GET", "/api/file?path=../../etc/passwd", &[], vec![]),
        ),
        (
            400,
            "invalid_path",
            raw("GET", "/api/file?path=/etc/passwd", &[], vec![]),
        ),
        (
            400,
            "invalid_path",
            raw("GET", "/api/file?path=.knower/queue/log.jsonl", &[], vec![]),
        ),
        (
            400,
            "invalid_path",
            raw("GET", "/api/raw?path=..%2F..%2Fetc%2Fpasswd", &[], vec![]),
        ),
        (
            404,
            "not_found",
            raw("GET", "/api/file?path=missing.md", &[], vec![]),
        ),
        (
            400,
            "bad_request",
            raw(
                "POST",
                "/search",
                &json_type,
                br#"{"query": "x", "mode": "psychic"}"#.to_vec(),
            ),
        ),
        (
            404,
            "not_found",
            raw("GET", "/updates/update-unknown", &[], vec![]),
        ),
        (
            403,
            "origin_refused",
            raw(
                "POST",
                "/update",
                &[
                    ("content-type", "application/json"),
                    ("origin", "http://evil.example"),
                ],
                br#"{"text": "x"}"#.to_vec(),
            ),
        ),
        (
            403,
            "host_refused",
            raw("GET", "/api/tree", &[("host", "evil.example:8000")], vec![]),
        ),
    ];
    for (want, code, (status, body)) in cases {
        assert_eq!(
            (status, body["error"].as_str()),
            (want, Some(code)),
            "{body}"
        );
        assert!(
            body["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "{body}"
        );
        if code == "too_large" {
            assert!(
                body["detail"]
                    .as_str()
                    .is_some_and(|d| d.contains("at most")),
                "the limit is named: {body}"
            );
        }
    }
    // The same origin is welcome; nothing was queued by the refusals.
    let origin = format!("http://{}", server.address);
    let (status, _) = raw("GET", "/api/tree", &[("origin", &origin)], vec![]);
    assert_eq!(status, 200);
    let (_, list) = server.get("/updates");
    assert_eq!(list, json!([]));
}

#[test]
fn a_multipart_update_stores_its_image() {
    let server = serve(None);
    let png = vec![0x89, b'P', b'N', b'G', 1, 2, 3];
    let id = block_on(async {
        let form = reqwest::multipart::Form::new()
            .text("text", "For the garden project: the new raised bed")
            .part(
                "file",
                reqwest::multipart::Part::bytes(png.clone()).file_name("../../bed.png"),
            );
        let response = client()
            .post(server.url("/update"))
            .multipart(form)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 202);
        let body: Value = response.json().await.unwrap();
        body["id"].as_str().unwrap().to_string()
    });
    let update = server.wait_done(&id);
    let image = update["changed_files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str())
        .find(|p| p.ends_with("bed.png"))
        .unwrap_or_else(|| panic!("no image in {update}"))
        .to_string();
    assert_eq!(server.vault.read_bytes(&image).unwrap(), png);
    let bytes = block_on(async {
        let response = client()
            .get(server.url(&format!("/api/raw?path={image}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.headers()["content-type"], "image/png");
        response.bytes().await.unwrap()
    });
    assert_eq!(bytes.to_vec(), png);
}

#[test]
fn rendered_html_is_sanitised() {
    let server = serve(None);
    server
        .vault
        .write(
            "web/clip.md",
            "# Clipped\n\n<script>alert('x')</script>\n\n<img src=x onerror=alert(1)>\n\n[go](javascript:alert(2))\n\n<table><tr><td style=\"text-align:left;background:url(https://evil.example/x);position:fixed\">x</td></tr></table>\n\n![tracker](https://evil.example/pixel.png)\n",
            &Author::new("test", "a page from the web"),
        )
        .unwrap();
    let (status, file) = server.get("/api/file?path=web/clip.md");
    assert_eq!(status, 200);
    let html = file["html"].as_str().unwrap();
    assert!(html.contains("<h1>Clipped</h1>"), "{html}");
    assert!(
        html.contains(">go</a>"),
        "the link stays, without its script: {html}"
    );
    for bad in [
        "<script",
        "onerror",
        "javascript:",
        "background",
        "position:fixed",
        "<img src=\"https:",
    ] {
        assert!(!html.contains(bad), "{bad} in {html}");
    }
    assert!(
        html.contains(r#"href="https://evil.example/pixel.png""#) && html.contains(">tracker</a>"),
        "a remote image is a link: {html}"
    );
}

#[test]
fn a_token_is_required_when_set_and_off_loopback() {
    let server = serve(Some("s3cret-token"));
    let (status, body) = server.get("/health");
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("unauthorized"))
    );
    let (status, _) = block_on(async {
        let response = client()
            .get(server.url("/health"))
            .bearer_auth("s3cret-token")
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), ())
    });
    assert_eq!(status, 200);
    let (status, _) = server.get("/health?token=s3cret-token");
    assert_eq!(status, 200);
    let (status, _) = server.get("/health?token=wrong");
    assert_eq!(status, 401);
    // The UI page itself needs no token.
    let page = block_on(async {
        let response = client().get(server.url("/")).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        response.text().await.unwrap()
    });
    assert!(page.contains("Knower"));

    // Off loopback, no token, no server.
    let dir = tempfile::tempdir().unwrap();
    let (vault, _) = Vault::init(dir.path(), &Author::new("test", "init")).unwrap();
    let vault = Arc::new(vault);
    let index = Index::open(vault.clone()).unwrap();
    let refused = block_on(Server::start(
        vault,
        index,
        ServerConfig {
            addr: "0.0.0.0:0".parse().unwrap(),
            token: None,
        },
    ));
    let error = refused.err().expect("refused").to_string();
    assert!(error.contains("KNOWER_TOKEN"), "{error}");
}

#[test]
fn the_ui_and_its_modules_are_served_under_a_strict_policy() {
    let server = serve(None);
    let fetch = |path: &str| {
        block_on(async {
            let response = client().get(server.url(path)).send().await.unwrap();
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .map(|v| v.to_str().unwrap().to_string())
                    .unwrap_or_default()
            };
            let (kind, policy) = (header("content-type"), header("content-security-policy"));
            (status, kind, policy, response.text().await.unwrap())
        })
    };
    let (status, kind, policy, page) = fetch("/");
    assert_eq!(status, 200);
    assert!(kind.starts_with("text/html"), "{kind}");
    for rule in [
        "script-src 'self'",
        "style-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(policy.contains(rule), "{rule} missing from {policy}");
    }
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    assert!(page.contains(r#"<script type="module" src="/assets/app.js">"#));
    assert!(
        !page.contains("<script>"),
        "no inline script: the policy forbids it"
    );

    // Every module the UI imports is served, as JavaScript.
    let mut pending = vec!["app.js".to_string()];
    let mut seen = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let (status, kind, _, source) = fetch(&format!("/assets/{name}"));
        assert_eq!(status, 200, "{name}");
        assert!(kind.starts_with("text/javascript"), "{name}: {kind}");
        for line in source.lines().filter(|l| l.starts_with("import ")) {
            let module = line.rsplit_once("'./").unwrap().1.trim_end_matches("';");
            pending.push(module.to_string());
        }
    }
    assert!(seen.len() >= 5, "{seen:?}");
    for (path, kind) in [
        ("/assets/app.css", "text/css"),
        ("/assets/icon.svg", "image/svg+xml"),
    ] {
        let (status, served, _, _) = fetch(path);
        assert_eq!(
            (status, served.starts_with(kind)),
            (200, true),
            "{path}: {served}"
        );
    }
    for missing in ["/assets/nope.js", "/assets/..%2FCargo.toml", "/assets/"] {
        let (status, _, _, _) = fetch(missing);
        assert_eq!(status, 404, "{missing}");
    }
}

#[test]
fn the_journal_lists_changes_newest_first_and_undoes_them() {
    let server = serve(None);
    let record = server
        .vault
        .write(
            "notes/undo-me.md",
            "# Undo me\n",
            &Author::new("test", "something to undo"),
        )
        .unwrap()
        .unwrap();

    let (status, log) = server.get("/api/log?limit=2");
    assert_eq!(status, 200);
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[0]["id"], record.id);
    assert!(log[0]["id"].as_u64() > log[1]["id"].as_u64());
    assert_eq!(log[0]["reason"], "something to undo");
    assert!(
        log[0]["files"]
            .as_array()
            .unwrap()
            .contains(&json!({"path": "notes/undo-me.md", "change": "A"})),
        "{}",
        log[0]
    );
    let (_, older) = server.get(&format!("/api/log?limit=1&before={}", record.id));
    assert_eq!(older[0]["id"], log[1]["id"]);

    let (status, undone) = server.post("/api/undo", json!({"id": record.id}));
    assert_eq!(status, 200, "{undone}");
    assert_eq!(undone["undoes"], record.id);
    assert_eq!(undone["actor"], "user");
    assert!(!server.vault.root().join("notes/undo-me.md").exists());

    // The file's state changed since: refused unless forced.
    let (status, refused) = server.post("/api/undo", json!({"id": record.id}));
    assert_eq!(
        (status, refused["error"].as_str()),
        (409, Some("refused")),
        "{refused}"
    );
    let (status, _) = server.post("/api/undo", json!({"id": 999_999}));
    assert_eq!(status, 404);
    let (status, _) = server.post("/api/undo", json!({"id": "three"}));
    assert_eq!(status, 422);
    let (status, _) = server.post("/api/undo", json!({"id": 1, "evil": true}));
    assert_eq!(status, 422);
}

#[test]
fn an_update_is_undone_as_a_whole_and_then_listed_undone() {
    let server = serve(None);
    let (status, accepted) =
        server.post("/update", json!({"text": "Remember to water the tomatoes"}));
    assert_eq!(status, 202, "{accepted}");
    let id = accepted["id"].as_str().unwrap().to_string();
    let done = server.wait_done(&id);
    assert_eq!(done["state"], "done", "{done}");
    let changed = done["changed_files"][0].as_str().unwrap().to_string();
    assert!(server.vault.read(&changed).unwrap().contains("tomatoes"));

    let (status, change) = server.post(&format!("/updates/{id}/undo"), json!({}));
    assert_eq!(status, 200, "{change}");
    assert_eq!(change["actor"], "user");
    assert!(
        change["undoes"].is_u64(),
        "the offline update is one change: {change}"
    );
    // Its line is gone, or the whole note when the update created it.
    assert!(
        server
            .vault
            .read(&changed)
            .map_or(true, |text| !text.contains("tomatoes"))
    );
    assert!(
        !server
            .vault
            .read("changelog.md")
            .unwrap()
            .contains("tomatoes")
    );

    let (_, shown) = server.get(&format!("/updates/{id}"));
    assert_eq!(shown["undone_by"], change["id"], "{shown}");
    let (_, listed) = server.get("/updates");
    assert_eq!(listed[0]["undone_by"], change["id"]);

    let (status, again) = server.post(&format!("/updates/{id}/undo"), json!({}));
    assert_eq!(status, 409, "{again}");
    assert!(
        again["detail"].as_str().unwrap().contains("already undone"),
        "{again}"
    );
    let (status, _) = server.post("/updates/update-nothing/undo", json!({}));
    assert_eq!(status, 422);
    let (status, _) = server.post(&format!("/updates/{id}/undo"), json!({"force": "yes"}));
    assert_eq!(status, 422);
}

#[test]
fn a_search_answer_comes_with_its_markdown_rendered_safely() {
    let server = serve(None);
    let (status, answer) = server.post("/search", json!({"query": "where do the tomatoes grow"}));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["sources"][0]["path"], "projects/garden/notes.md");
    let html = answer["html"].as_str().unwrap();
    assert!(html.contains("south wall"), "{html}");
    assert!(html.contains("data-lines="), "{html}");
}

#[test]
fn the_knowledge_folder_is_listed_and_its_digest_can_be_turned_off() {
    let server = serve(None);
    let (status, empty) = server.get("/api/knowledge");
    assert_eq!(status, 200);
    assert_eq!(empty["digest"]["exists"], false);
    assert_eq!(empty["digest"]["max_bytes"], 4096);
    assert_eq!(empty["files"].as_array().unwrap().len(), 5);
    assert_eq!(empty["ledger"], json!([]));

    let author = Author::new("test", "a harvest");
    server
        .vault
        .write(
            "knowledge/decisions.md",
            "# Decisions\n\n- Keep Postgres 16. [from: standup, 2026-11-20]\n",
            &author,
        )
        .unwrap();
    server
        .vault
        .write(
            "knowledge/digest.md",
            "# Knowledge digest\n\n## Decisions\n\n- Keep Postgres 16.\n",
            &author,
        )
        .unwrap();
    server
        .vault
        .write(
            "knowledge/ledger.json",
            r#"{"entries": {"ab12": {"path": "/tmp/standup.md", "name": "standup", "status": "harvested", "at": "2026-11-20T10:00:00Z", "items": {"decisions": 1}, "deleted": false}}}"#,
            &author,
        )
        .unwrap();
    let (_, overview) = server.get("/api/knowledge");
    assert_eq!(overview["digest"]["exists"], true);
    assert!(overview["digest"]["bytes"].as_u64().unwrap() > 0);
    let decisions = overview["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "knowledge/decisions.md")
        .unwrap();
    assert_eq!(decisions["items"], 1);
    assert_eq!(overview["ledger"][0][0], "ab12");
    assert_eq!(overview["ledger"][0][1]["status"], "harvested");

    let (status, deleted) = server.post("/api/knowledge/digest/delete", json!({}));
    assert_eq!((status, deleted), (200, json!({"deleted": true})));
    assert!(server.vault.read("knowledge/digest.md").is_err());
    let last = server.vault.log().unwrap().pop().unwrap();
    assert_eq!(last.actor, "user", "journaled as the user's, undoable");
    let (_, again) = server.post("/api/knowledge/digest/delete", json!({}));
    assert_eq!(again, json!({"deleted": false}));
}

#[test]
fn a_chat_reply_streams_as_server_sent_events_and_artifacts_can_be_corrected() {
    let server = serve(None);
    let body = block_on(async {
        client()
            .post(server.url("/chat"))
            .json(&json!({"message": "Where should the tomatoes grow?"}))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    });
    let events: Vec<(String, Value)> = body
        .split("\n\n")
        .filter_map(|block| {
            let name = block.lines().find_map(|l| l.strip_prefix("event: "))?;
            let data = block.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((name.to_string(), serde_json::from_str(data).ok()?))
        })
        .collect();
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"session"), "{body}");
    assert!(
        names.contains(&"delta") && names.last() == Some(&"done"),
        "{names:?}"
    );
    let done = &events.last().unwrap().1;
    assert!(
        done["assistant"].as_str().unwrap().contains("south wall"),
        "{done}"
    );
    assert!(done["html"].as_str().unwrap().contains("south wall"));
    assert_eq!(done["changes"][0]["change"], "created");
    let id = done["changes"][0]["artifact"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let session = events[0].1["session"].as_str().unwrap().to_string();

    let (status, overview) = server.get(&format!("/api/chat?session={session}"));
    assert_eq!(status, 200);
    assert_eq!(overview["exchanges"].as_array().unwrap().len(), 1);
    assert_eq!(overview["artifacts"][0]["id"], id.as_str());
    let (status, fixed) = server.post(
        &format!("/api/chat/artifacts/{id}"),
        json!({"status": "resolved", "resolution": "on the south wall"}),
    );
    assert_eq!(
        (status, fixed["status"].as_str()),
        (200, Some("resolved")),
        "{fixed}"
    );
    let (status, _) = server.post(&format!("/api/chat/artifacts/{id}/forget"), json!({}));
    assert_eq!(status, 200);
    let (status, missing) = server.post("/api/chat/artifacts/e00000000/forget", json!({}));
    assert_eq!(status, 400, "{missing}");
    let (status, _) = server.post("/api/chat/artifacts/../../x/forget", json!({}));
    assert!(status >= 400);
    let (status, empty) = server.post("/chat", json!({"message": "  "}));
    assert_eq!(status, 400, "{empty}");
}

#[test]
fn the_garden_is_listed_run_and_decided_over_http() {
    use knower_testkit::web::{ScriptedWeb, tokio_site};
    let web = ScriptedWeb::start();
    tokio_site(&web);
    let server = serve_with(
        None,
        Some(&format!(
            "[garden]\nallow_private_hosts = [\"{}\"]\n",
            web.base_url().trim_start_matches("http://")
        )),
    );
    let (status, empty) = server.get("/api/garden");
    assert_eq!(status, 200, "{empty}");
    assert_eq!(empty["topics"], json!([]));
    assert_eq!(empty["review"]["items"], json!([]));

    // Adding: the topic's note, and clear refusals.
    let feed = web.url("/feed.xml");
    let (status, topic) = server.post(
        "/api/garden/topics",
        json!({"name": "Tokio runtime", "priority": 4, "feeds": [feed]}),
    );
    assert_eq!(status, 200, "{topic}");
    assert!(
        server
            .vault
            .read("garden/topics/tokio-runtime.md")
            .unwrap()
            .contains("priority: 4")
    );
    for (body, expected) in [
        (json!({"name": "Tokio runtime"}), "already exists"),
        (json!({"name": "X", "priority": 0}), "priority is 1 to 5"),
        (json!({"name": "!!!"}), "letters or digits"),
        (
            json!({"name": "Y", "feeds": ["file:///etc/passwd"]}),
            "not an http(s) URL",
        ),
    ] {
        let (status, error) = server.post("/api/garden/topics", body.clone());
        assert!((400..500).contains(&status), "{body}: {status} {error}");
        assert!(
            error["detail"].as_str().unwrap().contains(expected),
            "{body}: {error}"
        );
    }
    let (status, _) = server.post("/api/garden/topics", json!({"nom": "typo"}));
    assert_eq!(status, 422);

    // A dry run says what a cycle would read, and reads nothing.
    let (status, dry) = server.post("/api/garden/run", json!({"dry_run": true}));
    assert_eq!(status, 200, "{dry}");
    assert_eq!(dry["plan"]["topics"][0]["feeds"], json!([feed]));
    assert_eq!(web.count("/feed.xml"), 0);

    // A cycle, announced on /sse as it goes.
    let mut events = server.sse(None);
    let (status, run) = server.post("/api/garden/run", json!({}));
    assert_eq!(status, 200, "{run}");
    // The feed is read for its links; the two releases it links to are
    // the pages read.
    assert_eq!(run["cycle"]["feeds"].as_array().unwrap().len(), 1, "{run}");
    assert_eq!(
        run["cycle"]["fetches"].as_array().unwrap().len(),
        2,
        "{run}"
    );
    wait_event(&mut events, "garden_progress", "fetched");
    wait_event(&mut events, "garden_candidates", "tokio-runtime");
    wait_event(&mut events, "garden_cycle", "\"added\"");

    let (_, overview) = server.get("/api/garden");
    let items = overview["review"]["items"].as_array().unwrap();
    assert!(items.len() >= 2, "{overview}");
    assert_eq!(overview["topics"][0]["candidates"], items.len());
    assert!(overview["stats"]["efficiency"]["cycles"] == 1, "{overview}");
    assert_eq!(overview["digest"], "garden/outbox/digest.md");
    let first = items[0]["fact"]["id"].as_str().unwrap().to_string();
    let second = items[1]["fact"]["id"].as_str().unwrap().to_string();

    // Decisions: by id, a reason required to reject, unknown ids refused.
    let (status, approved) = server.post("/api/garden/approve", json!({"refs": [first]}));
    assert_eq!(status, 200, "{approved}");
    assert_eq!(approved["approved"], json!([first]));
    let (status, error) = server.post("/api/garden/reject", json!({"refs": [second]}));
    assert_eq!(status, 400, "{error}");
    assert!(
        error["detail"].as_str().unwrap().contains("reason"),
        "{error}"
    );
    let (status, error) = server.post("/api/garden/approve", json!({"refs": []}));
    assert_eq!(status, 400, "{error}");
    let (status, error) = server.post("/api/garden/approve", json!({"refs": ["g00000000"]}));
    assert_eq!(status, 422, "{error}");
    let (status, rejected) = server.post(
        "/api/garden/reject",
        json!({"refs": [second], "reason": "an old release"}),
    );
    assert_eq!(status, 200, "{rejected}");
    let (_, overview) = server.get("/api/garden");
    assert_eq!(overview["topics"][0]["confirmed"], 1, "{overview}");
    assert_eq!(overview["topics"][0]["archived"], 1, "{overview}");
    assert_eq!(overview["stats"]["accuracy"]["approved"], 1, "{overview}");
    assert!(
        server
            .vault
            .read("garden/inbox/rejections.json")
            .unwrap()
            .contains("an old release")
    );
}

/// Sends raw bytes on a new connection and returns the status of the
/// answer, or `None` when the server closed the connection without one.
fn raw_status(stream: &mut TcpStream) -> Option<u16> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    line.split(' ').nth(1)?.parse().ok()
}

#[test]
fn a_silent_or_slow_client_cannot_hold_the_server() {
    let server = serve(None);
    let connect = || {
        let stream = TcpStream::connect(server.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream
    };
    // A body declared far beyond any limit is refused before it is read.
    let mut huge = connect();
    write!(
        huge,
        "POST /update HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n"
    )
    .unwrap();
    let started = Instant::now();
    assert_eq!(raw_status(&mut huge), Some(413));
    assert!(started.elapsed() < Duration::from_secs(5));

    // A body that stops arriving gets an answer when it has stalled too long.
    let mut stalled = connect();
    write!(
        stalled,
        "POST /update HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{{\"text\": \"the"
    )
    .unwrap();
    // More connections than the server serves at once, each with half its
    // headers: all are closed once the header timeout has passed.
    let mut half_sent: Vec<TcpStream> = (0..knower_server::MAX_CONNECTIONS + 24)
        .map(|_| {
            let mut stream = connect();
            write!(stream, "POST /update HTTP/1.1\r\nHost: 127.").unwrap();
            stream
        })
        .collect();
    let started = Instant::now();
    assert_eq!(raw_status(&mut stalled), Some(408));
    assert!(
        started.elapsed() < knower_server::BODY_STALL_TIMEOUT + Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let deadline = started + knower_server::HEADER_TIMEOUT * 2 + Duration::from_secs(10);
    for stream in &mut half_sent {
        let status = raw_status(stream);
        assert!(
            status.is_none() || status == Some(408),
            "a half-sent request was answered {status:?}"
        );
        assert!(Instant::now() < deadline, "connections were held too long");
    }
    // And the server serves again.
    assert_eq!(server.get("/health").0, 200);
}

#[test]
fn a_token_is_compared_url_decoded_in_the_query() {
    let server = serve(Some("ab+c/d="));
    assert_eq!(server.get("/health?token=ab%2Bc%2Fd%3D").0, 200);
    assert_eq!(server.get("/health?token=ab+c/d=").0, 200);
    assert_eq!(server.get("/health?token=ab%20c%2Fd%3D").0, 401);
    let status = block_on(async {
        client()
            .get(server.url("/health"))
            .bearer_auth("ab+c/d=")
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    });
    assert_eq!(status, 200);
}

#[test]
fn a_request_the_browser_marks_cross_site_is_refused_even_without_origin() {
    let server = serve(None);
    server
        .vault
        .write("notes/keep.md", "# Keep\n", &Author::new("test", "seed"))
        .unwrap();
    let send = |method: &str, path: &str, site: &str| {
        block_on(async {
            let response = client()
                .request(method.parse().unwrap(), server.url(path))
                .header("sec-fetch-site", site)
                .json(&json!({}))
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            (status, body["error"].as_str().unwrap_or("").to_string())
        })
    };
    for path in [
        "/update",
        "/updates/x/retry",
        "/search",
        "/chat",
        "/api/chat/artifacts/x",
        "/api/chat/artifacts/x/forget",
        "/api/undo",
        "/api/knowledge/digest/delete",
        "/api/garden/topics",
        "/api/garden/approve",
        "/api/garden/reject",
        "/api/garden/run",
    ] {
        for site in ["cross-site", "same-site"] {
            assert_eq!(
                send("POST", path, site),
                (403, "cross_site_refused".to_string()),
                "{path} from {site}"
            );
        }
    }
    assert_eq!(send("GET", "/api/tree", "cross-site").0, 403);
    assert!(server.vault.read("notes/keep.md").is_ok(), "nothing undone");
    // The page's own requests, and opening the UI from a link elsewhere.
    assert_eq!(send("GET", "/api/tree", "same-origin").0, 200);
    assert_eq!(send("GET", "/", "cross-site").0, 200);
}

#[test]
fn invalid_utf8_is_refused_alike_in_json_and_in_a_form() {
    let server = serve(None);
    let bytes = b"caf\xe9 au lait".to_vec();
    let answer = |request: reqwest::RequestBuilder| {
        block_on(async {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap())
        })
    };
    let mut body = b"{\"text\": \"".to_vec();
    body.extend_from_slice(&bytes);
    body.extend_from_slice(b"\"}");
    let (json_status, json_error) = answer(
        client()
            .post(server.url("/update"))
            .header("content-type", "application/json")
            .body(body),
    );
    let form = reqwest::multipart::Form::new().part("text", reqwest::multipart::Part::bytes(bytes));
    let (form_status, form_error) = answer(client().post(server.url("/update")).multipart(form));
    assert_eq!((json_status, form_status), (400, 400));
    assert_eq!(json_error["error"], "invalid_utf8", "{json_error}");
    assert_eq!(form_error["error"], "invalid_utf8", "{form_error}");
    assert!(
        form_error["detail"]
            .as_str()
            .unwrap()
            .contains("not valid UTF-8"),
        "{form_error}"
    );
    let (_, updates) = server.get("/updates");
    assert_eq!(updates.as_array().map(Vec::len), Some(0), "{updates}");
}

#[test]
fn an_mcp_request_whose_id_is_null_is_answered_with_that_id() {
    let server = serve(None);
    let post = |body: &str| {
        block_on(async {
            let response = client()
                .post(server.url("/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(body.to_string())
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            (status, response.text().await.unwrap())
        })
    };
    let (status, body) = post(
        r#"{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}"#,
    );
    assert_eq!(status, 400, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        answer.get("id"),
        Some(&Value::Null),
        "the same id: {answer}"
    );
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    // A request with an id still reaches the MCP server.
    let (status, body) = post(
        r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}"#,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"id\":7"), "{body}");
}

#[test]
fn an_update_sent_again_with_its_idempotency_key_is_the_first_one() {
    let server = serve(None);
    let post = |key: Option<&str>, text: &str| {
        block_on(async {
            let mut request = client()
                .post(server.url("/update"))
                .json(&json!({ "text": text }));
            if let Some(key) = key {
                request = request.header("Idempotency-Key", key);
            }
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap())
        })
    };
    let text = "The plumber comes on Tuesday at 9.";
    let (status, first) = post(Some("4d7c1e52-retry"), text);
    assert_eq!(status, 202, "{first}");
    let (status, again) = post(Some("4d7c1e52-retry"), text);
    assert_eq!(status, 202, "{again}");
    assert_eq!(again["id"], first["id"], "a retry is the first update");
    let (_, other) = post(Some("another-key"), text);
    assert_ne!(other["id"], first["id"]);
    let (status, refused) = post(Some("has a space"), text);
    assert_eq!(status, 400, "{refused}");
    assert!(refused.to_string().contains("idempotency key"), "{refused}");
    let listed: Value = block_on(async {
        client()
            .get(server.url("/updates"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    });
    let plumbers = listed["updates"]
        .as_array()
        .or_else(|| listed.as_array())
        .unwrap()
        .iter()
        .filter(|u| {
            u["headline"]
                .as_str()
                .is_some_and(|h| h.contains("plumber"))
        })
        .count();
    assert_eq!(
        plumbers, 2,
        "the first and the one with another key: {listed}"
    );
}

#[test]
fn trickling_bodies_on_every_connection_leave_health_answering_at_once() {
    let server = serve(None);
    // More clients than the server serves and keeps in reserve, each
    // sending an update's headers and then its body a byte at a time.
    let mut tricklers: Vec<TcpStream> = (0..knower_server::MAX_CONNECTIONS
        + knower_server::RESERVE
        + 12)
        .map(|_| {
            let mut stream = TcpStream::connect(server.address).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            write!(
                stream,
                "POST /update HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{"
            )
            .unwrap();
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let (status, _) = server.get("/health");
    assert_eq!(status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "/health took {:?}",
        started.elapsed()
    );
    // The clients there was no room for were told so, with when to retry.
    let mut busy = 0;
    for stream in tricklers.iter_mut().rev().take(knower_server::RESERVE + 12) {
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        while reader.read_line(&mut head).is_ok_and(|n| n > 2) {}
        if head.starts_with("HTTP/1.1 503") {
            assert!(
                head.to_ascii_lowercase().contains("retry-after: 5"),
                "{head}"
            );
            busy += 1;
        }
    }
    assert_eq!(busy, knower_server::RESERVE + 12);
}
