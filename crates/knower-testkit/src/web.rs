//! A scripted web on 127.0.0.1 for tests and benchmarks: pages and feeds at
//! paths, a Brave Search API (`/res/v1/web/search`, answers in Brave's
//! `web.results[]` shape) and a SearxNG instance (`/search?format=json`,
//! answers in its `results[]` shape), and the misbehaviours of the real
//! web (slow answers, endless redirects, huge bodies). It records every
//! request, so tests count what the gardener asked for. Nothing here is
//! used by Knower itself.

use std::collections::HashMap;
use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

/// One answer at a path.
#[derive(Clone, Debug)]
pub struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Body,
    delay: Duration,
}

#[derive(Clone, Debug)]
enum Body {
    Bytes(Vec<u8>),
    /// This many bytes of filler, written as they go (no length declared
    /// unless `declared`).
    Endless {
        bytes: usize,
        declared: bool,
    },
}

impl Answer {
    pub fn bytes(content_type: &str, body: impl Into<Vec<u8>>) -> Answer {
        Answer {
            status: 200,
            headers: vec![("content-type".into(), content_type.into())],
            body: Body::Bytes(body.into()),
            delay: Duration::ZERO,
        }
    }

    pub fn html(body: &str) -> Answer {
        Answer::bytes("text/html; charset=utf-8", body)
    }

    pub fn text(body: &str) -> Answer {
        Answer::bytes("text/plain; charset=utf-8", body)
    }

    pub fn rss(body: &str) -> Answer {
        Answer::bytes("application/rss+xml; charset=utf-8", body)
    }

    pub fn atom(body: &str) -> Answer {
        Answer::bytes("application/atom+xml; charset=utf-8", body)
    }

    pub fn status(status: u16, body: &str) -> Answer {
        Answer {
            status,
            ..Answer::text(body)
        }
    }

    /// `302 Found` to `location`.
    pub fn redirect(location: &str) -> Answer {
        let mut answer = Answer::status(302, "");
        answer.headers.push(("location".into(), location.into()));
        answer
    }

    /// `bytes` of HTML filler, streamed (with its length declared or not).
    pub fn huge(bytes: usize, declared: bool) -> Answer {
        Answer {
            body: Body::Endless { bytes, declared },
            ..Answer::html("")
        }
    }

    /// Answers only after `delay`.
    pub fn after(mut self, delay: Duration) -> Answer {
        self.delay = delay;
        self
    }
}

/// A project's release site as the web has them: an RSS 2.0 feed at
/// `/feed.xml` whose summaries say only "Release notes" (entries oldest
/// first, as some feeds list them), and each release's page in site
/// boilerplate, its notes in Tokio's own changelog sections (the text is
/// Tokio's, 1.41.0 and 1.42.0). Returns the feed's URL.
pub fn tokio_site(web: &ScriptedWeb) -> String {
    let releases = [
        (
            "1.41.0",
            "Oct 22, 2024",
            "Tue, 22 Oct 2024 00:00:00 GMT",
            "<h3>Added</h3><ul><li>metrics: stabilize <code>global_queue_depth</code> (<a href=\"https://github.com/tokio-rs/tokio/pull/6854\">#6854</a>)</li>\
             <li>sync: add <code>watch::Sender::sender_count</code> (#6836)</li></ul>\
             <h3>Fixed</h3><ul><li>net: fix regression of abstract socket path in unix socket (#6838)</li></ul>",
        ),
        (
            "1.42.0",
            "Dec 3, 2024",
            "Tue, 03 Dec 2024 00:00:00 GMT",
            "<p>The 1.42.0 release includes all changes up to 1.41.1.</p>\
             <h3>Added</h3><ul><li>io: add <code>AsyncFd::{try_io, try_io_mut}</code> (#6967)</li></ul>\
             <h3>Fixed</h3><ul><li>runtime: do not defer <code>yield_now</code> inside <code>block_in_place</code> (#6999)</li></ul>\
             <h3>Documented</h3><ul><li>time: fix a typo in <code>Instant</code> docs (#6982)</li></ul>",
        ),
    ];
    let mut items = String::new();
    for (version, shown, rfc2822, notes) in releases {
        let path = format!("/releases/tag/tokio-{version}");
        web.page(
            &path,
            Answer::html(&format!(
                "<!doctype html><html><head><title>Release Tokio v{version} · tokio-rs/tokio</title></head><body>\
                 <header><nav><a href=\"/\">Code</a> <a href=\"/issues\">Issues</a> <a href=\"/pulls\">Pull requests</a> <a href=\"/releases\">Releases</a></nav></header>\
                 <main><div class=\"release\"><h1>Tokio v{version}</h1><p><a href=\"/tokio-rs\">tokio-rs</a> released this {shown}</p>\
                 <div class=\"markdown-body\">{notes}</div></div></main><footer>© 2024 CodeHub, Inc. · Terms · Privacy</footer></body></html>"
            )),
        );
        items.push_str(&format!(
            "<item><title>Tokio v{version}</title><link>{}</link><pubDate>{rfc2822}</pubDate><description>Release notes</description></item>\n",
            web.url(&path)
        ));
    }
    web.page(
        "/feed.xml",
        Answer::rss(&format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel><title>Tokio releases</title><link>{}</link><description>Releases</description>\n{items}</channel></rss>",
            web.base_url()
        )),
    );
    web.url("/feed.xml")
}

/// An article page as blogs make them: navigation, an `<article>` of
/// paragraphs, a footer.
pub fn article(title: &str, paragraphs: &[&str]) -> String {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body>\
         <nav><a href=\"/\">Home</a> · <a href=\"/blog\">Blog</a></nav>\
         <article><h1>{title}</h1>{body}</article><footer>© 2026 Example</footer></body></html>"
    )
}

/// A request the web received.
#[derive(Clone, Debug)]
pub struct Request {
    pub path: String,
    /// The decoded query parameters.
    pub query: HashMap<String, String>,
    pub headers: Vec<(String, String)>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A search result as the scripted providers return it.
#[derive(Clone, Debug, Default)]
pub struct Listed {
    pub title: String,
    /// A path of this web (`/a`) or a whole URL.
    pub url: String,
    pub snippet: String,
    /// When the page says it was published (`2026-07-09T00:00:00`): Brave's
    /// `page_age`, SearxNG's `publishedDate`.
    pub published: Option<String>,
}

#[derive(Default)]
struct Script {
    pages: HashMap<String, Answer>,
    /// Results by query (the empty query: for any other query).
    results: HashMap<String, Vec<Listed>>,
    requests: Vec<Request>,
}

pub struct ScriptedWeb {
    base: String,
    script: Arc<Mutex<Script>>,
}

impl ScriptedWeb {
    pub fn start() -> ScriptedWeb {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let script = Arc::new(Mutex::new(Script::default()));
        let shared = script.clone();
        let base_for_answers = base.clone();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let script = shared.clone();
                let base = base_for_answers.clone();
                thread::spawn(move || serve(stream, &script, &base));
            }
        });
        ScriptedWeb { base, script }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        self.base.clone()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn page(&self, path: &str, answer: Answer) {
        self.lock().pages.insert(path.to_string(), answer);
    }

    /// What both providers answer for `query` (`""`: any other query).
    pub fn results(&self, query: &str, results: Vec<Listed>) {
        self.lock().results.insert(query.to_string(), results);
    }

    pub fn requests(&self) -> Vec<Request> {
        self.lock().requests.clone()
    }

    /// Requests for `path` exactly.
    pub fn count(&self, path: &str) -> usize {
        self.lock()
            .requests
            .iter()
            .filter(|r| r.path == path)
            .count()
    }

    /// Search requests (either provider).
    pub fn searches(&self) -> usize {
        self.lock()
            .requests
            .iter()
            .filter(|r| r.path == BRAVE_PATH || r.path == "/search")
            .count()
    }

    /// Requests for pages and feeds (not searches, not robots.txt).
    pub fn fetches(&self) -> usize {
        self.lock()
            .requests
            .iter()
            .filter(|r| r.path != BRAVE_PATH && r.path != "/search" && r.path != "/robots.txt")
            .count()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub const BRAVE_PATH: &str = "/res/v1/web/search";

fn serve(stream: TcpStream, script: &Mutex<Script>, base: &str) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let Some(crate::http::Head {
        target, headers, ..
    }) = crate::http::read_head(&mut reader)
    else {
        return;
    };
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), parse_query(q)),
        None => (target.clone(), HashMap::new()),
    };
    let request = Request {
        path: path.clone(),
        query,
        headers,
    };
    let answer = {
        let mut script = script.lock().unwrap_or_else(|e| e.into_inner());
        script.requests.push(request.clone());
        if path == BRAVE_PATH {
            match request.header("x-subscription-token") {
                Some(_) => Answer::bytes("application/json", brave(&script, &request, base).to_string()),
                None => Answer::bytes(
                    "application/json",
                    json!({"type": "ErrorResponse", "error": {"status": 422, "code": "SUBSCRIPTION_TOKEN_INVALID", "detail": "The provided subscription token is invalid."}}).to_string(),
                ),
            }
        } else if path == "/search"
            && request.query.get("format").map(String::as_str) == Some("json")
        {
            Answer::bytes(
                "application/json",
                searxng(&script, &request, base).to_string(),
            )
        } else {
            script
                .pages
                .get(&path)
                .cloned()
                .unwrap_or_else(|| Answer::status(404, "Not Found"))
        }
    };
    write_answer(stream, &answer);
}

fn write_answer(mut stream: TcpStream, answer: &Answer) {
    if !answer.delay.is_zero() {
        thread::sleep(answer.delay);
    }
    let reason = match answer.status {
        200 => "OK",
        302 => "Found",
        404 => "Not Found",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {} {reason}\r\nconnection: close\r\n",
        answer.status
    );
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match &answer.body {
        Body::Bytes(bytes) => {
            head.push_str(&format!("content-length: {}\r\n\r\n", bytes.len()));
            let _ = stream
                .write_all(head.as_bytes())
                .and_then(|()| stream.write_all(bytes));
        }
        Body::Endless { bytes, declared } => {
            if *declared {
                head.push_str(&format!("content-length: {bytes}\r\n"));
            }
            head.push_str("\r\n");
            if stream.write_all(head.as_bytes()).is_err() {
                return;
            }
            let chunk =
                "<p>filler filler filler filler filler filler filler filler.</p>\n".repeat(1024);
            let mut sent = 0;
            while sent < *bytes {
                let n = chunk.len().min(bytes - sent);
                if stream.write_all(&chunk.as_bytes()[..n]).is_err() {
                    return; // the client stopped reading: as it should
                }
                sent += n;
            }
        }
    }
    let _ = stream.flush();
}

fn results_for<'s>(script: &'s Script, query: &str) -> &'s [Listed] {
    script
        .results
        .get(query)
        .or_else(|| script.results.get(""))
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn absolute(url: &str, base: &str) -> String {
    if url.starts_with('/') {
        format!("{base}{url}")
    } else {
        url.to_string()
    }
}

/// Brave's answer shape (abridged to what a client reads, with the fields
/// around them).
fn brave(script: &Script, request: &Request, base: &str) -> Value {
    let query = request.query.get("q").cloned().unwrap_or_default();
    let count: usize = request
        .query
        .get("count")
        .and_then(|c| c.parse().ok())
        .unwrap_or(20);
    let results: Vec<Value> = results_for(script, &query)
        .iter()
        .take(count)
        .map(|r| {
            let url = absolute(&r.url, base);
            let host = url.split('/').nth(2).unwrap_or("").to_string();
            json!({
                "type": "search_result",
                "subtype": "generic",
                "title": r.title,
                "url": url,
                "description": format!("<strong>{}</strong>", r.snippet),
                "page_age": r.published,
                "is_source_local": false,
                "is_source_both": false,
                "language": "en",
                "family_friendly": true,
                "profile": {"name": host, "url": url, "long_name": host, "img": ""},
                "meta_url": {"scheme": "http", "netloc": host, "hostname": host, "favicon": "", "path": ""}
            })
        })
        .collect();
    json!({
        "type": "search",
        "query": {"original": query, "show_strict_warning": false, "is_navigational": false, "spellcheck_off": true},
        "mixed": {"type": "mixed", "main": [], "top": [], "side": []},
        "web": {"type": "search", "results": results, "family_friendly": true}
    })
}

/// SearxNG's `format=json` answer shape.
fn searxng(script: &Script, request: &Request, base: &str) -> Value {
    let query = request.query.get("q").cloned().unwrap_or_default();
    let results: Vec<Value> = results_for(script, &query)
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let url = absolute(&r.url, base);
            json!({
                "url": url,
                "title": r.title,
                "content": r.snippet,
                "publishedDate": r.published,
                "engine": "duckduckgo",
                "parsed_url": ["http", url.split('/').nth(2).unwrap_or(""), "", "", "", ""],
                "template": "default.html",
                "engines": ["duckduckgo", "brave"],
                "positions": [k + 1],
                "score": 1.0 / (k as f64 + 1.0),
                "category": "general"
            })
        })
        .collect();
    json!({
        "query": query,
        "number_of_results": 0,
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": []
    })
}

fn parse_query(query: &str) -> HashMap<String, String> {
    url::Url::parse(&format!("http://x/?{query}"))
        .map(|u| {
            u.query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default()
}
