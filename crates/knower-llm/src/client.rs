//! [`Llm`]: one configured model, called with retries, backoff and timeouts.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Once, OnceLock};
use std::time::Duration;

use futures_util::StreamExt;
use genai::adapter::AdapterKind;
use genai::chat::{
    ChatMessage, ChatOptions, ChatRequest, ChatStreamEvent, JsonSpec, ToolCall, ToolChoice,
};
use genai::resolver::{AuthData, Endpoint};
use genai::{Client, ModelIden, ModelSpec, ServiceTarget, WebConfig};
use serde::{Deserialize, Serialize};

use crate::config::{LlmConfig, Protocol};
use crate::error::{LlmError, Result};

/// Tokens spent, summed over calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Calls whose server said nothing of the tokens they took (many local
    /// servers send no usage with a stream): their tokens are unknown, not 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unreported: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Usage {
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }

    /// Whether no call said what it took: the tokens are unknown.
    pub fn unknown(&self) -> bool {
        self.calls > 0 && self.unreported == self.calls
    }

    /// `1,234 tokens in, 56 out`, or `tokens unknown` (the server sent no
    /// usage), with `some unknown` when only some calls did.
    pub fn describe(&self) -> String {
        if self.unknown() {
            return "tokens unknown (the server sent no usage)".into();
        }
        let mut text = format!(
            "{} tokens in, {} out",
            self.input_tokens, self.output_tokens
        );
        if self.unreported > 0 {
            text.push_str(&format!(
                " ({} of {} calls unreported)",
                self.unreported, self.calls
            ));
        }
        text
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.calls += other.calls;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.unreported += other.unreported;
    }
}

/// One answer of the model.
#[derive(Debug)]
pub struct Reply {
    /// The text, when it wrote any.
    pub text: Option<String>,
    /// The tools it asked to call, in order.
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    /// The answer as a message to put back into the conversation.
    pub message: ChatMessage,
    /// Whether the model was stopped by the output cap (its JSON, if any,
    /// is unfinished).
    pub cut_off: bool,
}

/// A streamed answer: its text, what it cost, and whether it was cut short
/// by the caller.
#[derive(Clone, Debug, Default)]
pub struct Streamed {
    pub text: String,
    pub usage: Usage,
    /// Stopped by the caller before the end.
    pub cancelled: bool,
    /// The provider said the answer was complete.
    pub complete: bool,
}

/// The form an answer must take ([`Llm::chat_as`]).
#[derive(Clone, Debug)]
pub enum Shape {
    /// Text, or tool calls, as the model chooses.
    Free,
    /// A call to one of the request's tools, the model's choice which
    /// (`tool_choice: "required"`).
    AnyTool,
    /// A call to this tool (`tool_choice` naming it).
    Tool(String),
    /// A JSON value of this schema (plain, see [`crate::plain`]): the
    /// server constrains its output to it where it can. `max_tokens` caps
    /// a reply known to be short below the configured cap, so that a
    /// model looping inside a string is stopped early.
    Json {
        name: String,
        schema: serde_json::Value,
        max_tokens: Option<u32>,
    },
}

/// How a server is asked for JSON of a schema, in the order Knower tries
/// them; a server that refuses one is asked in the next from then on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum JsonForm {
    /// `response_format: {type: "json_schema", …}`: OpenAI's form, which
    /// llama.cpp's server, Ollama, vLLM and LM Studio take (and Anthropic's
    /// `output_config`, through genai).
    Schema = 0,
    /// `response_format: {type: "json_object", schema}`: llama-cpp-python's
    /// server (which refuses the first form) and Together's.
    ObjectWithSchema = 1,
    /// The schema in a message: only the prompt asks for it.
    Prose = 2,
}

impl From<u8> for JsonForm {
    fn from(n: u8) -> JsonForm {
        match n {
            0 => JsonForm::Schema,
            1 => JsonForm::ObjectWithSchema,
            _ => JsonForm::Prose,
        }
    }
}

impl JsonForm {
    fn next(self) -> Option<JsonForm> {
        match self {
            JsonForm::Schema => Some(JsonForm::ObjectWithSchema),
            JsonForm::ObjectWithSchema => Some(JsonForm::Prose),
            JsonForm::Prose => None,
        }
    }
}

/// Whether the server refused the request for the way it asked for JSON
/// (a 400 or 422 that names it; llama-cpp-python's server answers its own
/// validation error with a 500).
fn refuses_json_form(error: &LlmError) -> bool {
    match error {
        LlmError::Status {
            status: 400 | 422 | 500,
            body,
            ..
        } => {
            let body = body.to_ascii_lowercase();
            [
                "response_format",
                "json_schema",
                "json_object",
                "output_config",
                "schema",
            ]
            .iter()
            .any(|word| body.contains(word))
        }
        _ => false,
    }
}

/// How often a stream waiting for its next piece looks at `cancel`.
const CANCEL_CHECK: Duration = Duration::from_millis(50);

/// A configured model. Cheap to share: calls take `&self`.
pub struct Llm {
    client: Client,
    config: LlmConfig,
    /// First delay between attempts; doubled each time (tests shorten it).
    backoff: Duration,
    /// Drives the model's connections for blocking callers
    /// ([`Llm::chat_blocking`]); made at the first such call. Owned here so
    /// that pooled connections live as long as the client that made them.
    io: OnceLock<tokio::runtime::Runtime>,
    /// The [`JsonForm`] this server takes, learnt from its refusals.
    json_form: AtomicU8,
}

impl Drop for Llm {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which panics inside async code (the
        // last owner may be an async task): let it wind down on its own.
        if let Some(io) = self.io.take() {
            io.shutdown_background();
        }
    }
}

/// The longest wait Knower accepts from a `Retry-After` header.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

impl Llm {
    pub fn new(config: LlmConfig) -> Result<Llm> {
        install_tls_provider();
        let web = WebConfig::default()
            .with_timeout(config.timeout)
            .with_connect_timeout(config.timeout.min(Duration::from_secs(10)));
        let client = Client::builder()
            .with_web_config(web)
            .build()
            .map_err(|e| LlmError::Config(e.to_string()))?;
        Ok(Llm {
            client,
            config,
            backoff: Duration::from_millis(500),
            io: OnceLock::new(),
            json_form: AtomicU8::new(JsonForm::Schema as u8),
        })
    }

    /// The same model with another first backoff delay.
    pub fn with_backoff(mut self, backoff: Duration) -> Llm {
        self.backoff = backoff;
        self
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    pub fn label(&self) -> String {
        self.config.label()
    }

    fn target(&self) -> ServiceTarget {
        let kind = match self.config.provider.protocol() {
            Protocol::OpenAiChat => AdapterKind::OpenAI,
            Protocol::AnthropicMessages => AdapterKind::Anthropic,
        };
        // Local servers take no key, but genai's OpenAI protocol always sends
        // one; they ignore it.
        let key = self.config.api_key.clone().unwrap_or_else(|| "none".into());
        ServiceTarget {
            endpoint: Endpoint::from_owned(self.config.base_url.clone()),
            auth: AuthData::from_single(key),
            model: ModelIden::new(kind, self.config.model.as_str()),
        }
    }

    /// Sends the conversation; the model may answer in text or call tools.
    pub async fn chat(&self, request: &ChatRequest) -> Result<Reply> {
        self.chat_as(request, &Shape::Free).await
    }

    /// Sends the conversation, asking for an answer of `shape`; retries a
    /// 429, a 5xx, a dropped connection (and, from a hosted API, a timeout)
    /// up to `max_retries` times, waiting as the provider asks
    /// (`Retry-After`) or with exponential backoff. A server that refuses
    /// the JSON schema form is asked again in the next form it may know.
    pub async fn chat_as(&self, request: &ChatRequest, shape: &Shape) -> Result<Reply> {
        let mut attempt = 0;
        loop {
            let form = JsonForm::from(self.json_form.load(Ordering::Relaxed));
            let (request, options) = self.shaped(request, shape, form);
            let spec = ModelSpec::from_target(self.target());
            let result = self.client.exec_chat(spec, request, Some(&options)).await;
            let error = match result {
                Ok(response) => return Ok(reply(response)),
                Err(e) => e,
            };
            let retry_after = retry_after(&error);
            let error = self.classify(error);
            if matches!(shape, Shape::Json { .. })
                && refuses_json_form(&error)
                && form.next().is_some()
            {
                let next = form.next().expect("checked");
                let _ = self.json_form.compare_exchange(
                    form as u8,
                    next as u8,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
                continue;
            }
            if !self.retries(&error, attempt) {
                return Err(error);
            }
            let wait = retry_after.unwrap_or(self.backoff * 2u32.saturating_pow(attempt));
            tokio::time::sleep(wait.min(MAX_RETRY_AFTER)).await;
            attempt += 1;
        }
    }

    /// Whether a failed call is tried again. A local server that timed out
    /// is still generating the answer: a second request would queue behind
    /// it, so it is not retried.
    fn retries(&self, error: &LlmError, attempt: u32) -> bool {
        error.is_transient()
            && attempt < self.config.max_retries
            && !(self.config.local && matches!(error, LlmError::Timeout { .. }))
    }

    /// The request and options that ask for `shape` in `form`.
    fn shaped(
        &self,
        request: &ChatRequest,
        shape: &Shape,
        form: JsonForm,
    ) -> (ChatRequest, ChatOptions) {
        let mut options = ChatOptions::default()
            .with_max_tokens(self.config.max_output_tokens)
            .with_capture_usage(true)
            .with_capture_tool_calls(true);
        let mut request = request.clone();
        match shape {
            Shape::Free => {}
            Shape::AnyTool => options = options.with_tool_choice(ToolChoice::Required),
            Shape::Tool(name) => options = options.with_tool_choice(ToolChoice::tool(name)),
            Shape::Json {
                name,
                schema,
                max_tokens,
            } => {
                if let Some(cap) = max_tokens {
                    options = options.with_max_tokens((*cap).min(self.config.max_output_tokens));
                }
                match form {
                    JsonForm::Schema => {
                        options = options.with_response_format(JsonSpec::new(name, schema.clone()));
                    }
                    JsonForm::ObjectWithSchema => {
                        options = options.with_extra_body(serde_json::json!({
                            "response_format": {"type": "json_object", "schema": schema}
                        }));
                    }
                    JsonForm::Prose => {
                        request = request.append_message(ChatMessage::user(format!(
                        "Answer with only a JSON object that follows this JSON Schema:\n{schema}"
                    )));
                    }
                }
            }
        }
        (request, options)
    }

    /// Sends the conversation and hands each piece of the answer to
    /// `on_text` as it arrives. A failure before the first piece is retried
    /// as [`Llm::chat`] retries; once text has arrived, a broken stream is
    /// an error (what arrived was shown, and is not sent twice). `cancel`
    /// stops the stream within a moment: the answer so far comes back with
    /// `cancelled` set. Blocking, like [`Llm::chat_blocking`].
    pub fn stream_blocking(
        &self,
        request: &ChatRequest,
        cancel: &AtomicBool,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Streamed> {
        self.block_on(self.stream(request, cancel, on_text))
    }

    async fn stream(
        &self,
        request: &ChatRequest,
        cancel: &AtomicBool,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Streamed> {
        let options = ChatOptions::default()
            .with_max_tokens(self.config.max_output_tokens)
            .with_capture_usage(true);
        let mut attempt = 0;
        let mut out = Streamed::default();
        loop {
            let spec = ModelSpec::from_target(self.target());
            let started = self
                .client
                .exec_chat_stream(spec, request.clone(), Some(&options))
                .await;
            let response = match started {
                Ok(response) => response,
                Err(error) => {
                    let retry_after = retry_after(&error);
                    let error = self.classify(error);
                    if !self.retries(&error, attempt) {
                        return Err(error);
                    }
                    let wait = retry_after.unwrap_or(self.backoff * 2u32.saturating_pow(attempt));
                    tokio::time::sleep(wait.min(MAX_RETRY_AFTER)).await;
                    attempt += 1;
                    continue;
                }
            };
            let mut stream = response.stream;
            loop {
                if cancel.load(Ordering::Relaxed) {
                    out.cancelled = true;
                    return Ok(out);
                }
                let next = tokio::time::timeout(CANCEL_CHECK, stream.next()).await;
                let event = match next {
                    Err(_) => continue,
                    Ok(None) => break,
                    Ok(Some(event)) => event,
                };
                match event {
                    Ok(ChatStreamEvent::Chunk(chunk)) => {
                        on_text(&chunk.content);
                        out.text.push_str(&chunk.content);
                    }
                    Ok(ChatStreamEvent::End(end)) => {
                        out.usage = usage_of(end.captured_usage.as_ref());
                        out.complete = true;
                    }
                    Ok(_) => {}
                    Err(error) => {
                        let error = self.classify(error);
                        return Err(LlmError::Transport {
                            provider: self.label(),
                            detail: format!(
                                "the answer broke off after {} characters: {error}",
                                out.text.chars().count()
                            ),
                        });
                    }
                }
            }
            if !out.complete {
                return Err(LlmError::Transport {
                    provider: self.label(),
                    detail: format!(
                        "the answer ended without its end after {} characters",
                        out.text.chars().count()
                    ),
                });
            }
            return Ok(out);
        }
    }

    /// [`Llm::chat`] for synchronous code (the agents, which interleave
    /// model calls with blocking vault work). Must not be called from
    /// async code: run it on a blocking thread.
    pub fn chat_blocking(&self, request: &ChatRequest) -> Result<Reply> {
        self.block_on(self.chat(request))
    }

    /// [`Llm::chat_as`] for synchronous code.
    pub fn chat_blocking_as(&self, request: &ChatRequest, shape: &Shape) -> Result<Reply> {
        self.block_on(self.chat_as(request, shape))
    }

    /// Runs `future` (a model call) to completion on this model's I/O
    /// runtime, from synchronous code.
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.io
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("knower-llm-io")
                    .enable_all()
                    .build()
                    .expect("a one-thread runtime can be built")
            })
            .block_on(future)
    }

    fn classify(&self, error: genai::Error) -> LlmError {
        let provider = self.label();
        if let Some(status) = error.status() {
            let body = match &error {
                genai::Error::HttpError { body, .. } => body.clone(),
                genai::Error::WebModelCall {
                    webc_error: genai::webc::Error::ResponseFailedStatus { body, .. },
                    ..
                } => body.clone(),
                other => other.to_string(),
            };
            return LlmError::Status {
                provider,
                status: status.as_u16(),
                body: clip(&body, 400),
            };
        }
        match error {
            genai::Error::WebModelCall {
                webc_error: genai::webc::Error::Reqwest(e),
                ..
            } => {
                if e.is_timeout() {
                    LlmError::Timeout {
                        provider,
                        after: self.config.timeout,
                    }
                } else {
                    LlmError::Transport {
                        provider,
                        detail: error_chain(&e),
                    }
                }
            }
            // genai's own words for these carry the whole request; the
            // user reads what was wrong with the reply.
            genai::Error::ChatResponseGeneration { cause, .. } => LlmError::Protocol {
                provider,
                detail: clip(&cause, 300),
            },
            genai::Error::StreamParse { serde_error, .. } => LlmError::Protocol {
                provider,
                detail: clip(
                    &format!("a piece of the answer is not JSON ({serde_error})"),
                    300,
                ),
            },
            genai::Error::SerdeJson(e) => LlmError::Protocol {
                provider,
                detail: clip(
                    &format!("the reply is not the JSON it should be ({e})"),
                    300,
                ),
            },
            other => LlmError::Protocol {
                provider,
                detail: clip(other.to_string().lines().next().unwrap_or_default(), 300),
            },
        }
    }
}

/// One call's usage; a server that sent none leaves it unreported.
fn usage_of(usage: Option<&genai::chat::Usage>) -> Usage {
    let tokens = |n: Option<i32>| n.map(|n| n.max(0) as u64);
    let (input, output) = match usage {
        Some(u) => (tokens(u.prompt_tokens), tokens(u.completion_tokens)),
        None => (None, None),
    };
    Usage {
        calls: 1,
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0),
        unreported: u32::from(input.is_none() && output.is_none()),
    }
}

fn reply(response: genai::chat::ChatResponse) -> Reply {
    let cut_off = response
        .stop_reason
        .as_ref()
        .is_some_and(|r| r.is_max_tokens());
    let usage = usage_of(Some(&response.usage));
    let texts = response.texts();
    let text = (!texts.is_empty()).then(|| texts.join("\n"));
    let tool_calls: Vec<ToolCall> = response.tool_calls().into_iter().cloned().collect();
    let message = if tool_calls.is_empty() {
        ChatMessage::assistant(text.clone().unwrap_or_default())
    } else {
        response
            .into_assistant_message_for_tool_use()
            .unwrap_or_else(|| ChatMessage::assistant(tool_calls.clone()))
    };
    Reply {
        text,
        tool_calls,
        usage,
        message,
        cut_off,
    }
}

/// The provider's requested wait, from `retry-after-ms` or `retry-after`
/// (seconds).
fn retry_after(error: &genai::Error) -> Option<Duration> {
    let headers = error.headers()?;
    let get = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    let seconds = get("retry-after-ms")
        .map(|ms| ms / 1000.0)
        .or_else(|| get("retry-after"))?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// An error with its causes, `outer: inner: …` (reqwest's own message
/// hides whether a timeout, a refusal or TLS failed).
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Installs the TLS provider (ring) of every HTTP client in the process:
/// reqwest is built without a default one (see Cargo.toml), so any
/// `reqwest::Client` of the program needs this to be called first.
pub fn install_tls_provider() {
    static CRYPTO: Once = Once::new();
    CRYPTO.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
