//! The LLM layer against scripted servers on 127.0.0.1 speaking OpenAI's and
//! Anthropic's wire protocols, through the real HTTP client.

use std::time::{Duration, Instant};

use knower_llm::chat::{Binary, ChatMessage, ChatRequest, ContentPart, Tool};
use knower_llm::{Llm, LlmConfig, LlmError, Shape, is_plain, structured};
use knower_testkit::llm::{Protocol, ScriptedServer, Step, anthropic, openai};
use serde_json::{Value, json};

fn llm(server: &ScriptedServer, retries: u32, timeout_secs: f64) -> Llm {
    let provider = match server.protocol() {
        Protocol::OpenAiChat => "openai-compatible",
        Protocol::AnthropicMessages => "anthropic",
    };
    let file = format!(
        "[llm]\nprovider = \"{provider}\"\nmodel = \"scripted-model\"\nbase_url = \"{}\"\n\
         max_retries = {retries}\ntimeout_secs = {timeout_secs}\n",
        server.base_url()
    );
    let env = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "test-key".to_string());
    let config = LlmConfig::resolve(&file, &env).unwrap().unwrap();
    Llm::new(config)
        .unwrap()
        .with_backoff(Duration::from_millis(10))
}

fn request() -> ChatRequest {
    ChatRequest::from_system("You file notes.").append_message(ChatMessage::user("hello"))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn openai_text_reply_with_usage_and_the_real_request_shape() {
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![Step::json(openai::text("hi there"))],
    );
    let reply = runtime()
        .block_on(llm(&server, 0, 5.0).chat(&request()))
        .unwrap();
    assert_eq!(reply.text.as_deref(), Some("hi there"));
    assert!(reply.tool_calls.is_empty());
    assert_eq!(
        (reply.usage.input_tokens, reply.usage.output_tokens),
        (100, 20)
    );
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.body["model"], "scripted-model");
    assert_eq!(sent.body["messages"][0]["role"], "system");
    assert_eq!(sent.body["messages"][1]["content"], "hello");
}

#[test]
fn tool_calls_round_trip_on_both_protocols() {
    let tool = Tool::new("read")
        .with_description("Reads a file")
        .with_schema(json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}));
    for protocol in [Protocol::OpenAiChat, Protocol::AnthropicMessages] {
        let call = [("call_1", "read", json!({"path": "overview.md"}))];
        let body = match protocol {
            Protocol::OpenAiChat => openai::tool_calls(&call),
            Protocol::AnthropicMessages => anthropic::tool_uses(&call),
        };
        let server = ScriptedServer::start(protocol, vec![Step::json(body)]);
        let model = llm(&server, 0, 5.0);
        let request = request().with_tools(vec![tool.clone()]);
        let reply = runtime().block_on(model.chat(&request)).unwrap();
        assert_eq!(reply.tool_calls.len(), 1, "{protocol:?}");
        assert_eq!(reply.tool_calls[0].fn_name, "read");
        assert_eq!(reply.tool_calls[0].call_id, "call_1");
        assert_eq!(reply.tool_calls[0].fn_arguments["path"], "overview.md");
        let sent = &server.requests()[0];
        let tools = &sent.body["tools"][0];
        match protocol {
            Protocol::OpenAiChat => assert_eq!(tools["function"]["name"], "read"),
            Protocol::AnthropicMessages => {
                assert_eq!(sent.path, "/v1/messages");
                assert_eq!(sent.header("x-api-key"), Some("test-key"));
                assert_eq!(tools["name"], "read");
                assert!(sent.body["max_tokens"].as_u64().is_some());
            }
        }
    }
}

#[test]
fn images_are_sent_inline_on_both_protocols() {
    for protocol in [Protocol::OpenAiChat, Protocol::AnthropicMessages] {
        let body = match protocol {
            Protocol::OpenAiChat => openai::text("a cat"),
            Protocol::AnthropicMessages => anthropic::text("a cat"),
        };
        let server = ScriptedServer::start(protocol, vec![Step::json(body)]);
        let image = Binary::from_base64("image/png", "iVBORw0KGgo=", Some("cat.png".into()));
        let message =
            ChatMessage::user(vec![ContentPart::from_text("what is this?"), image.into()]);
        let request = ChatRequest::new(vec![message]);
        runtime()
            .block_on(llm(&server, 0, 5.0).chat(&request))
            .unwrap();
        let sent = server.requests()[0].body.to_string();
        assert!(sent.contains("iVBORw0KGgo="), "{protocol:?}: {sent}");
        assert!(sent.contains("image/png"), "{protocol:?}: {sent}");
    }
}

#[test]
fn a_429_is_retried_as_the_provider_asks_then_succeeds() {
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::status(429, r#"{"error":{"message":"slow down"}}"#)
                .with_header("retry-after", "0"),
            Step::status(503, r#"{"error":"overloaded"}"#),
            Step::json(openai::text("done")),
        ],
    );
    let reply = runtime()
        .block_on(llm(&server, 3, 5.0).chat(&request()))
        .unwrap();
    assert_eq!(reply.text.as_deref(), Some("done"));
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn retries_are_bounded_and_client_errors_are_not_retried() {
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::status(500, "boom"),
            Step::status(500, "boom"),
            Step::status(500, "boom"),
        ],
    );
    let e = runtime()
        .block_on(llm(&server, 1, 5.0).chat(&request()))
        .unwrap_err();
    assert!(matches!(e, LlmError::Status { status: 500, .. }), "{e}");
    assert_eq!(server.requests().len(), 2, "one try and one retry");

    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::status(400, r#"{"error":"bad model"}"#),
            Step::json(openai::text("x")),
        ],
    );
    let e = runtime()
        .block_on(llm(&server, 3, 5.0).chat(&request()))
        .unwrap_err();
    assert!(
        e.to_string().contains("400") && e.to_string().contains("bad model"),
        "{e}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_silent_server_times_out_with_a_clear_error() {
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![Step::json(openai::text("late")).after(Duration::from_secs(3))],
    );
    let started = Instant::now();
    let e = runtime()
        .block_on(llm(&server, 0, 0.3).chat(&request()))
        .unwrap_err();
    assert!(matches!(e, LlmError::Timeout { .. }), "{e:?}");
    assert!(e.to_string().contains("did not answer within"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn an_unreachable_server_is_a_transport_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let file = format!(
        "[llm]\nprovider = \"openai-compatible\"\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:{port}/v1/\"\nmax_retries = 0\n"
    );
    let config = LlmConfig::resolve(&file, &|_| None).unwrap().unwrap();
    let e = runtime()
        .block_on(Llm::new(config).unwrap().chat(&request()))
        .unwrap_err();
    assert!(matches!(e, LlmError::Transport { .. }), "{e:?}");
}

#[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
struct Routing {
    destination: String,
}

fn routing_is_valid(r: &Routing) -> Result<(), String> {
    if r.destination.starts_with("projects/") {
        Ok(())
    } else {
        Err(format!("destination `{}` is not a project", r.destination))
    }
}

#[test]
fn invalid_json_is_retried_once_with_a_corrective_message() {
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::text("Sure! I'd file it under atlas.")),
            Step::json(openai::text(
                "```json\n{\"destination\": \"projects/atlas/tasks.md\"}\n```",
            )),
        ],
    );
    let model = llm(&server, 0, 5.0);
    let (routing, usage) = structured::<Routing>(&model, request(), routing_is_valid).unwrap();
    assert_eq!(routing.destination, "projects/atlas/tasks.md");
    assert_eq!(usage.calls, 2);
    let retry = &server.requests()[1].body["messages"];
    let last = retry.as_array().unwrap().last().unwrap();
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .contains("Return only the JSON object")
    );
}

#[test]
fn output_invalid_twice_is_a_reported_failure() {
    let server = ScriptedServer::start(
        Protocol::AnthropicMessages,
        vec![
            Step::json(anthropic::text("{\"destination\": \"nowhere\"}")),
            Step::json(anthropic::text("{\"destination\": 7}")),
            Step::json(anthropic::text("{\"destination\": \"projects/x.md\"}")),
        ],
    );
    let model = llm(&server, 0, 5.0);
    let e = structured::<Routing>(&model, request(), routing_is_valid).unwrap_err();
    assert!(
        matches!(e, LlmError::InvalidOutput { attempts: 2, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("invalid type"), "{e}");
    assert_eq!(server.requests().len(), 2, "never a third attempt");
    let _: Value = server.requests()[1].body.clone();
}

#[test]
fn an_answer_streams_piece_by_piece_in_both_protocols() {
    for (protocol, events) in [
        (
            Protocol::OpenAiChat,
            openai::stream(&["The launch ", "moved to ", "April."]),
        ),
        (
            Protocol::AnthropicMessages,
            anthropic::stream(&["The launch ", "moved to ", "April."]),
        ),
    ] {
        let server = ScriptedServer::start(protocol, vec![Step::sse(events)]);
        let model = llm(&server, 0, 5.0);
        let mut pieces = Vec::new();
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let streamed = model
            .stream_blocking(&request(), &cancel, &mut |p| pieces.push(p.to_string()))
            .unwrap();
        assert_eq!(streamed.text, "The launch moved to April.", "{protocol:?}");
        assert_eq!(pieces.len(), 3, "{pieces:?}");
        assert!(streamed.complete && !streamed.cancelled);
        assert_eq!(streamed.usage.calls, 1);
        assert!(
            server.requests()[0].body["stream"] == true,
            "{protocol:?} asked to stream"
        );
    }
}

#[test]
fn a_stream_that_breaks_off_is_an_error_and_cancel_stops_it() {
    let mut cut = openai::stream(&["The launch ", "moved"]);
    cut.truncate(cut.len() - 3);
    let server = ScriptedServer::start(Protocol::OpenAiChat, vec![Step::sse(cut)]);
    let model = llm(&server, 2, 5.0);
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let mut shown = String::new();
    let e = model
        .stream_blocking(&request(), &cancel, &mut |p| shown.push_str(p))
        .unwrap_err();
    assert!(
        e.to_string().contains("broke off") || e.to_string().contains("without its end"),
        "{e}"
    );
    assert_eq!(shown, "The launch moved");
    assert_eq!(
        server.requests().len(),
        1,
        "text had arrived: not sent twice"
    );

    let slow = ScriptedServer::start(
        Protocol::AnthropicMessages,
        vec![
            Step::sse(anthropic::stream(&["one ", "two ", "three ", "four"]))
                .gap(Duration::from_millis(300)),
        ],
    );
    let model = llm(&slow, 0, 5.0);
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopper = cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        stopper.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let started = std::time::Instant::now();
    let streamed = model
        .stream_blocking(&request(), &cancel, &mut |_| {})
        .unwrap();
    assert!(streamed.cancelled);
    assert!(!streamed.text.contains("four"), "{}", streamed.text);
    assert!(started.elapsed() < Duration::from_millis(1200));
}

#[test]
fn structured_output_asks_for_the_plain_schema_and_learns_the_form_a_server_takes() {
    // llama-cpp-python's server refuses `json_schema` with a 500 naming
    // `response_format` (its own validation error), and takes
    // `json_object` with a schema.
    let refusal = r#"{"error":{"message":"1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}","type":"internal_server_error"}}"#;
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::status(500, refusal),
            Step::json(openai::text(
                r#"{"destination": "projects/atlas/tasks.md"}"#,
            )),
            Step::json(openai::text(
                r#"{"destination": "projects/atlas/state.md"}"#,
            )),
        ],
    );
    let model = llm(&server, 0, 5.0);
    let (first, _) = structured::<Routing>(&model, request(), routing_is_valid).unwrap();
    assert_eq!(first.destination, "projects/atlas/tasks.md");
    let (second, _) = structured::<Routing>(&model, request(), routing_is_valid).unwrap();
    assert_eq!(second.destination, "projects/atlas/state.md");
    let sent = server.requests();
    assert_eq!(
        sent.len(),
        3,
        "one refusal, then the form that works, remembered"
    );
    let format = &sent[0].body["response_format"];
    assert_eq!(format["type"], "json_schema", "{format}");
    let schema = &format["json_schema"]["schema"];
    assert!(is_plain(schema), "{schema:#}");
    assert_eq!(schema["properties"]["destination"]["type"], "string");
    for later in &sent[1..] {
        assert_eq!(later.body["response_format"]["type"], "json_object");
        assert_eq!(
            later.body["response_format"]["schema"]["properties"]["destination"]["type"],
            "string"
        );
    }
}

#[test]
fn a_reply_the_server_could_not_make_is_handed_back_once_in_knowers_words() {
    // A body that is not a chat completion at all (a proxy's page, a cut
    // stream): the model is asked again once; the user never reads the
    // words meant for the model.
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(json!({"unexpected": true})),
            Step::json(json!({"unexpected": true})),
        ],
    );
    let model = llm(&server, 0, 5.0);
    let e = structured::<Routing>(&model, request(), routing_is_valid).unwrap_err();
    assert_eq!(server.requests().len(), 2);
    let text = e.to_string();
    assert!(matches!(e, LlmError::InvalidOutput { .. }), "{text}");
    assert!(!text.contains("Your previous reply"), "{text}");
    assert!(!text.contains("Error while generating"), "{text}");
}

#[test]
fn a_tool_choice_is_sent_as_the_protocol_has_it() {
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![
            Step::json(openai::tool_calls(&[(
                "c1",
                "search",
                json!({"query": "x"}),
            )])),
            Step::json(openai::tool_calls(&[(
                "c2",
                "read",
                json!({"path": "a.md"}),
            )])),
        ],
    );
    let model = llm(&server, 0, 5.0);
    let tools = request().with_tools(vec![
        Tool::new("search").with_schema(json!({"type": "object"})),
        Tool::new("read").with_schema(json!({"type": "object"})),
    ]);
    model.chat_blocking_as(&tools, &Shape::AnyTool).unwrap();
    model
        .chat_blocking_as(&tools, &Shape::Tool("read".into()))
        .unwrap();
    let sent = server.requests();
    assert_eq!(sent[0].body["tool_choice"], "required");
    assert_eq!(sent[1].body["tool_choice"]["function"]["name"], "read");
}

#[test]
fn a_server_that_sends_no_usage_leaves_the_tokens_unknown() {
    let mut body = openai::text("hi");
    body.as_object_mut().unwrap().remove("usage");
    let server = ScriptedServer::start(Protocol::OpenAiChat, vec![Step::json(body)]);
    let reply = llm(&server, 0, 5.0).chat_blocking(&request()).unwrap();
    assert!(reply.usage.unknown(), "{:?}", reply.usage);
    assert_eq!(
        reply.usage.describe(),
        "tokens unknown (the server sent no usage)"
    );
}

#[test]
fn a_reply_cut_off_at_a_per_call_cap_keeps_what_it_finished() {
    // A small model looping inside its reasoning is stopped by the cap:
    // the choice it made before is kept, the unfinished reasoning dropped.
    let mut cut = openai::text(
        r#"{"destination": "projects/atlas/tasks.md", "reasoning": "because because because"#,
    );
    cut["choices"][0]["finish_reason"] = json!("length");
    let server = ScriptedServer::start(Protocol::OpenAiChat, vec![Step::json(cut)]);
    let model = llm(&server, 0, 5.0);
    let schema = knower_llm::plain_schema::<Routing>();
    let (routing, usage) = knower_llm::structured_as::<Routing>(
        &model,
        request(),
        "routing",
        schema,
        Some(50),
        routing_is_valid,
    )
    .unwrap();
    assert_eq!(routing.destination, "projects/atlas/tasks.md");
    assert_eq!(usage.calls, 1);
    assert_eq!(server.requests()[0].body["max_tokens"], 50);

    // Cut off before the choice was made: invalid, asked again once.
    let mut early = openai::text(r#"{"reasoning": "because because"#);
    early["choices"][0]["finish_reason"] = json!("length");
    let server = ScriptedServer::start(
        Protocol::OpenAiChat,
        vec![Step::json(early.clone()), Step::json(early)],
    );
    let model = llm(&server, 0, 5.0);
    let e = structured::<Routing>(&model, request(), routing_is_valid).unwrap_err();
    assert!(e.to_string().contains("cut off at the output cap"), "{e}");
    assert_eq!(server.requests().len(), 2);
}
