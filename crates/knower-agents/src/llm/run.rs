//! One agent run with an LLM: the model calls tools until it gives a final
//! answer, within bounds on model calls and tokens. The first call asks for
//! a tool (`tool_choice`), since every agent must read the vault before it
//! answers. A final answer is checked; an invalid one, an answer before any
//! tool call, and a reply the server could not read (malformed tool-call
//! arguments) are each handed back to the model once (seed 002's contract),
//! then end the run as a visible failure. The user reads the problem in
//! Knower's words; only the model reads the correction. Whatever happens,
//! the run reports what it changed.

use knower_llm::chat::{ChatMessage, ChatRequest, ToolResponse};
use knower_llm::{Llm, LlmError, MAX_ATTEMPTS, Shape, Usage};
use serde::Serialize;

use crate::tools::ToolSet;

#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Model calls.
    pub max_steps: usize,
    /// Input plus output tokens over all calls.
    pub max_tokens: u64,
}

/// The bound a run stopped at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stop {
    Steps,
    Tokens,
}

/// A tool call the model made.
#[derive(Clone, Debug, Serialize)]
pub struct CallRecord {
    pub tool: String,
    pub ok: bool,
    /// The error, for a refused or failed call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Default)]
pub struct Run {
    /// The accepted final answer.
    pub final_text: Option<String>,
    pub steps: usize,
    pub usage: Usage,
    pub stopped: Option<Stop>,
    /// The model could not be reached, or its answer stayed invalid.
    pub error: Option<LlmError>,
    pub calls: Vec<CallRecord>,
    /// Paths changed by tool calls, in order, without repeats.
    pub changed: Vec<String>,
}

/// Judges a final answer given the paths changed so far; the error says
/// what is wrong with it, in words for the user.
pub type Check<'a> = &'a dyn Fn(&str, &[String]) -> Result<(), String>;

/// What the run expects of a final answer: how it is judged, and what the
/// model is told to do when it is wrong.
pub struct Expect<'a> {
    pub check: Check<'a>,
    /// The sentence after the problem in the corrective message.
    pub advice: &'a str,
}

/// The message a model gets to correct `problem`.
fn correction(problem: &str, advice: &str) -> String {
    format!("Your previous reply was not valid: {problem}.\n{advice}")
}

/// Runs the conversation until an accepted final answer, a bound, or a
/// second invalid reply.
pub fn run(
    llm: &Llm,
    system: String,
    user: ChatMessage,
    tools: &mut dyn ToolSet,
    bounds: Bounds,
    expect: Expect<'_>,
) -> Run {
    let mut request = ChatRequest::from_system(system)
        .append_message(user)
        .with_tools(tools.definitions());
    let mut run = Run::default();
    let mut attempts = 0;
    loop {
        if run.steps >= bounds.max_steps {
            run.stopped = Some(Stop::Steps);
            return run;
        }
        if run.usage.total() >= bounds.max_tokens {
            run.stopped = Some(Stop::Tokens);
            return run;
        }
        run.steps += 1;
        // The first call must be a tool call: no agent answers before
        // reading the vault.
        let shape = if run.calls.is_empty() {
            Shape::AnyTool
        } else {
            Shape::Free
        };
        let reply = match llm.chat_blocking_as(&request, &shape) {
            Ok(reply) => reply,
            Err(LlmError::Protocol { detail, .. }) if attempts + 1 < MAX_ATTEMPTS => {
                attempts += 1;
                let problem = format!("the server could not read it ({detail})");
                request = request.append_message(ChatMessage::user(correction(
                    &problem,
                    "Call a tool with arguments that are one valid JSON object, or answer.",
                )));
                continue;
            }
            Err(e) => {
                run.error = Some(e);
                return run;
            }
        };
        run.usage += reply.usage;
        if !reply.tool_calls.is_empty() {
            request = request.append_message(reply.message);
            for call in &reply.tool_calls {
                let output = tools.call(&call.fn_name, &call.fn_arguments);
                for path in &output.changed {
                    if !run.changed.contains(path) {
                        run.changed.push(path.clone());
                    }
                }
                run.calls.push(CallRecord {
                    tool: call.fn_name.clone(),
                    ok: output.ok,
                    error: (!output.ok).then(|| output.text.clone()),
                });
                request = request.append_message(ToolResponse::new(&call.call_id, output.text));
            }
            continue;
        }
        let text = reply.text.clone().unwrap_or_default();
        attempts += 1;
        let judged = if run.calls.is_empty() {
            Err(
                "it answered without calling a tool, though the tools were offered and a \
                 call was required (a server that drops tools does this)"
                    .to_string(),
            )
        } else {
            (expect.check)(&text, &run.changed)
        };
        match judged {
            Ok(()) => {
                run.final_text = Some(text);
                return run;
            }
            Err(problem) if attempts < MAX_ATTEMPTS => {
                let advice = if run.calls.is_empty() {
                    "Call one of the tools first."
                } else {
                    expect.advice
                };
                request = request
                    .append_message(reply.message)
                    .append_message(ChatMessage::user(correction(&problem, advice)));
            }
            Err(problem) => {
                run.error = Some(LlmError::InvalidOutput {
                    attempts,
                    detail: problem,
                });
                return run;
            }
        }
    }
}
