//! One agent run with an LLM: the model calls tools until it gives a final
//! answer, within bounds on model calls and tokens. The final answer is
//! checked; an invalid one gets one corrective retry (seed 002's contract).
//! Whatever happens, the run reports what it changed.

use knower_llm::chat::{ChatMessage, ChatRequest, ToolResponse};
use knower_llm::{Llm, LlmError, MAX_ATTEMPTS, Usage};
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

/// Judges a final answer given the paths changed so far; the error is the
/// message the model gets to correct it.
pub type Check<'a> = &'a dyn Fn(&str, &[String]) -> Result<(), String>;

/// Runs the conversation. `check` judges a final answer given the paths
/// changed so far; its error is the message the model gets to correct it.
pub fn run(
    llm: &Llm,
    system: String,
    user: ChatMessage,
    tools: &mut dyn ToolSet,
    bounds: Bounds,
    check: Check<'_>,
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
        let reply = match llm.chat_blocking(&request) {
            Ok(reply) => reply,
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
        match check(&text, &run.changed) {
            Ok(()) => {
                run.final_text = Some(text);
                return run;
            }
            Err(correction) if attempts < MAX_ATTEMPTS => {
                request = request
                    .append_message(reply.message)
                    .append_message(ChatMessage::user(correction));
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
