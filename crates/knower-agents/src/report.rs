//! What the agents return: an update's [`UpdateReport`] and a question's
//! [`Answer`] with its [`Source`]s.

use knower_llm::Usage;
use serde::{Deserialize, Serialize};

use crate::llm::{CallRecord, Stop};
use crate::router::Decision;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Filed in the vault. (`done` is how queues of earlier versions
    /// recorded an update found finished after a restart.)
    #[serde(alias = "done")]
    Filed,
    /// Waiting in the inbox for the user.
    Inbox,
    /// An inbox item was answered and filed.
    Resolved,
    /// An inbox item was dropped at the user's word.
    Discarded,
    /// The run stopped (a bound, the model unreachable, invalid output).
    /// What it wrote is kept and listed; an update that wrote nothing is
    /// kept in the inbox.
    Failed,
}

/// What an update did.
#[derive(Clone, Debug, Serialize)]
pub struct UpdateReport {
    pub id: String,
    pub engine: String,
    pub outcome: Outcome,
    pub summary: String,
    /// Paths written, moved or deleted (the global changelog not included).
    pub changed: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inbox_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Model calls (0 for the offline engine).
    pub steps: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stop>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<CallRecord>,
    /// The routing rule that placed it ([`Decision::rule`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

impl UpdateReport {
    /// What `decision` says of the update, whichever router made it: how
    /// sure, why, and by which rule.
    pub(crate) fn decided(&mut self, decision: &Decision) {
        self.confidence = decision.confidence;
        self.reasoning = Some(decision.reasoning.clone()).filter(|r| !r.is_empty());
        self.rule = Some(decision.rule.to_string());
    }
}

/// A cited passage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    pub path: String,
    pub line_start: usize,
    pub line_end: usize,
}

/// The search agent's answer.
#[derive(Clone, Debug, Serialize)]
pub struct Answer {
    pub engine: String,
    pub markdown: String,
    pub sources: Vec<Source>,
    /// False when the vault holds nothing that answers.
    pub found: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// How the offline engine names itself in every output.
pub const OFFLINE: &str = "offline engine";

/// A decision's reasoning split for a person: its conclusion (the last of
/// its lines, the sentence that says what was decided and why) and the
/// details before it (the rules and scores that led there). The offline
/// engine writes one reason a line; a model's reasoning is one paragraph,
/// all conclusion.
pub fn conclusion(reasoning: &str) -> (&str, Vec<&str>) {
    let mut lines: Vec<&str> = reasoning
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let said = lines.pop().unwrap_or_default();
    (said, lines)
}
