//! A scripted LLM server on 127.0.0.1 for tests and benchmarks: it speaks
//! the OpenAI chat-completions or the Anthropic messages wire protocol
//! (paths, auth headers, JSON shapes), answers each request with the next
//! scripted [`Step`], and records what it was sent. Nothing here is used by
//! Knower itself.

use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

/// The two wire protocols Knower's model client speaks (the same two as
/// `knower_llm::Protocol`; this crate stands below every Knower crate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `POST {base}chat/completions`, bearer key.
    OpenAiChat,
    /// `POST {base}messages`, `x-api-key` and `anthropic-version`.
    AnthropicMessages,
}

/// One scripted answer.
#[derive(Clone, Debug)]
pub struct Step {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    delay: Duration,
    /// Server-sent events, written one at a time (a streamed answer).
    events: Option<Vec<String>>,
    /// The pause between two events.
    gap: Duration,
}

impl Step {
    /// `200 OK` with a JSON body.
    pub fn json(body: Value) -> Step {
        Step::status(200, &body.to_string())
    }

    pub fn status(status: u16, body: &str) -> Step {
        Step {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
            delay: Duration::ZERO,
            events: None,
            gap: Duration::ZERO,
        }
    }

    /// `200 OK` streaming these server-sent events (see [`openai::stream`]
    /// and [`anthropic::stream`]), then closing the connection. Leave the
    /// closing events out to play a stream that breaks off.
    pub fn sse(events: Vec<String>) -> Step {
        Step {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/event-stream".into()),
                ("cache-control".into(), "no-cache".into()),
            ],
            body: String::new(),
            delay: Duration::ZERO,
            events: Some(events),
            gap: Duration::ZERO,
        }
    }

    /// Waits `gap` between two events of a stream.
    pub fn gap(mut self, gap: Duration) -> Step {
        self.gap = gap;
        self
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Step {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Answers only after `delay` (to provoke client timeouts).
    pub fn after(mut self, delay: Duration) -> Step {
        self.delay = delay;
        self
    }
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lower-cased names.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

pub struct ScriptedServer {
    port: u16,
    protocol: Protocol,
    script: Arc<Mutex<VecDeque<Step>>>,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

/// What answers a request once the scripted steps are used up.
type Responder = Arc<dyn Fn(&Recorded) -> Step + Send + Sync>;

impl ScriptedServer {
    pub fn start(protocol: Protocol, steps: Vec<Step>) -> ScriptedServer {
        ScriptedServer::with(protocol, steps, None)
    }

    /// A server that answers every request with what `respond` makes of
    /// it (a benchmark's model, whose answers depend on what it is asked).
    pub fn answering(
        protocol: Protocol,
        respond: impl Fn(&Recorded) -> Step + Send + Sync + 'static,
    ) -> ScriptedServer {
        ScriptedServer::with(protocol, vec![], Some(Arc::new(respond)))
    }

    fn with(protocol: Protocol, steps: Vec<Step>, respond: Option<Responder>) -> ScriptedServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binding 127.0.0.1");
        let port = listener.local_addr().expect("local address").port();
        let server = ScriptedServer {
            port,
            protocol,
            script: Arc::new(Mutex::new(steps.into())),
            requests: Arc::default(),
        };
        let (script, requests) = (server.script.clone(), server.requests.clone());
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (script, requests) = (script.clone(), requests.clone());
                let respond = respond.clone();
                thread::spawn(move || serve(stream, protocol, &script, &requests, respond));
            }
        });
        server
    }

    /// The base URL to configure a client with.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1/", self.port)
    }

    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    pub fn push(&self, step: Step) {
        self.script.lock().unwrap().push_back(step);
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// Steps not used yet.
    pub fn remaining(&self) -> usize {
        self.script.lock().unwrap().len()
    }
}

fn serve(
    stream: TcpStream,
    protocol: Protocol,
    script: &Mutex<VecDeque<Step>>,
    requests: &Mutex<Vec<Recorded>>,
    respond: Option<Responder>,
) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let Some(crate::http::Head {
        method,
        target: path,
        headers,
    }) = crate::http::read_head(&mut reader)
    else {
        return;
    };
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let recorded = Recorded {
        method,
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let step = match protocol_error(protocol, &recorded) {
        Some(step) => step,
        None => {
            let next = script.lock().unwrap().pop_front();
            match (next, &respond) {
                (Some(step), _) => step,
                (None, Some(respond)) => respond(&recorded),
                (None, None) => Step::status(500, r#"{"error":"the script is exhausted"}"#),
            }
        }
    };
    requests.lock().unwrap().push(recorded);
    thread::sleep(step.delay);
    let mut stream = stream;
    if let Some(events) = &step.events {
        // No length: the stream ends when the connection closes.
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nconnection: close\r\n",
            step.status,
            reason(step.status)
        );
        for (name, value) in &step.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        for event in events {
            if stream.write_all(event.as_bytes()).is_err() || stream.flush().is_err() {
                return;
            }
            thread::sleep(step.gap);
        }
        return;
    }
    let mut response = format!(
        "HTTP/1.1 {} {}\r\ncontent-length: {}\r\nconnection: close\r\n",
        step.status,
        reason(step.status),
        step.body.len()
    );
    for (name, value) in &step.headers {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\n");
    response.push_str(&step.body);
    let _ = stream.write_all(response.as_bytes());
}

/// What the real API answers to a request on the wrong path or without its
/// authentication headers.
fn protocol_error(protocol: Protocol, request: &Recorded) -> Option<Step> {
    let (path, authenticated) = match protocol {
        Protocol::OpenAiChat => (
            "/v1/chat/completions",
            request
                .header("authorization")
                .is_some_and(|v| v.starts_with("Bearer ")),
        ),
        Protocol::AnthropicMessages => (
            "/v1/messages",
            request.header("x-api-key").is_some() && request.header("anthropic-version").is_some(),
        ),
    };
    if request.method != "POST" || request.path != path {
        return Some(Step::status(404, r#"{"error":"unknown route"}"#));
    }
    if !authenticated {
        return Some(Step::status(401, r#"{"error":"missing authentication"}"#));
    }
    None
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Bodies in the shape of OpenAI's chat completions.
pub mod openai {
    use super::*;

    pub fn text(text: &str) -> Value {
        message(json!({"role": "assistant", "content": text}), "stop")
    }

    /// `calls`: (id, function name, arguments).
    pub fn tool_calls(calls: &[(&str, &str, Value)]) -> Value {
        let calls: Vec<Value> = calls
            .iter()
            .map(|(id, name, args)| {
                json!({"id": id, "type": "function",
                       "function": {"name": name, "arguments": args.to_string()}})
            })
            .collect();
        message(
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            "tool_calls",
        )
    }

    /// A streamed answer in OpenAI's server-sent events: a role chunk, one
    /// chunk per piece of `text`, the finish, the usage, `[DONE]`. Drop
    /// the last three to play a stream that breaks off.
    pub fn stream(pieces: &[&str]) -> Vec<String> {
        let chunk = |delta: Value, finish: Value| {
            let body = json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk",
                "created": 0, "model": "scripted-model",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
            format!("data: {body}\n\n")
        };
        let mut events = vec![chunk(
            json!({"role": "assistant", "content": ""}),
            Value::Null,
        )];
        events.extend(
            pieces
                .iter()
                .map(|p| chunk(json!({"content": p}), Value::Null)),
        );
        events.push(chunk(json!({}), json!("stop")));
        let usage = json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk",
            "created": 0, "model": "scripted-model", "choices": [],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}});
        events.push(format!("data: {usage}\n\n"));
        events.push("data: [DONE]\n\n".into());
        events
    }

    fn message(message: Value, finish: &str) -> Value {
        json!({
            "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0,
            "model": "scripted-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        })
    }
}

/// Bodies in the shape of Anthropic's messages.
pub mod anthropic {
    use super::*;

    pub fn text(text: &str) -> Value {
        message(vec![json!({"type": "text", "text": text})], "end_turn")
    }

    /// `calls`: (id, tool name, input).
    pub fn tool_uses(calls: &[(&str, &str, Value)]) -> Value {
        let blocks = calls
            .iter()
            .map(|(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input}))
            .collect();
        message(blocks, "tool_use")
    }

    /// A streamed answer in Anthropic's server-sent events: message_start,
    /// a text block with one delta per piece, message_delta with the usage,
    /// message_stop. Drop the last three to play a stream that breaks off.
    pub fn stream(pieces: &[&str]) -> Vec<String> {
        let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
        let mut events = vec![
            event(
                "message_start",
                json!({"type": "message_start", "message": {
                "id": "msg_scripted", "type": "message", "role": "assistant", "content": [],
                "model": "scripted-model", "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 100, "output_tokens": 1}}}),
            ),
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
            ),
        ];
        events.extend(pieces.iter().map(|p| {
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": p}}),
            )
        }));
        events.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ));
        events.push(event(
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": null},
            "usage": {"output_tokens": 20}}),
        ));
        events.push(event("message_stop", json!({"type": "message_stop"})));
        events
    }

    fn message(content: Vec<Value>, stop: &str) -> Value {
        json!({
            "id": "msg_scripted", "type": "message", "role": "assistant",
            "model": "scripted-model", "content": content,
            "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 100, "output_tokens": 20}
        })
    }
}
