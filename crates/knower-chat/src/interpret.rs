//! After each exchange, the interpreter decides what it concluded (seed
//! 004): create an effort, a fact or an event, or resolve an open effort.
//! With a model, its answer is structured output, validated and retried
//! once; the offline engine does the same by stated rules.

use knower_llm::chat::{ChatMessage, ChatRequest};
use knower_llm::{Llm, Usage};
use serde::{Deserialize, Serialize};

use crate::artifact::{Artifact, Kind};
use crate::log::Record;
use crate::store::overlap;

/// Actions per exchange, at most.
const MAX_ACTIONS: usize = 3;
/// Summaries this alike are the same effort.
const SAME_EFFORT: f64 = 0.6;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum Action {
    Create {
        kind: Kind,
        summary: String,
        #[serde(default)]
        tags: Vec<String>,
        #[serde(default)]
        expires: bool,
    },
    Resolve {
        effort: String,
        resolution: String,
    },
}

#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Interpretation {
    #[serde(default)]
    pub actions: Vec<Action>,
}

/// Refuses what would break the memory: a second effort for one that is
/// open (the seed's bug), a resolution of an effort that is not open, empty
/// summaries, too many actions.
pub fn validate(interpretation: &Interpretation, open: &[Artifact]) -> Result<(), String> {
    if interpretation.actions.len() > MAX_ACTIONS {
        return Err(format!("at most {MAX_ACTIONS} actions"));
    }
    for action in &interpretation.actions {
        match action {
            Action::Create { kind, summary, .. } => {
                if summary.trim().is_empty() {
                    return Err("a created artifact needs its summary".into());
                }
                if *kind == Kind::Effort
                    && let Some(same) = open
                        .iter()
                        .find(|e| overlap(&e.summary, summary) >= SAME_EFFORT)
                {
                    return Err(format!(
                        "\"{summary}\" is already open as effort {} (\"{}\"): resolve it with \
                         {{\"action\": \"resolve\", \"effort\": \"{}\", …}} if this exchange settles \
                         it, or leave it",
                        same.id, same.summary, same.id
                    ));
                }
            }
            Action::Resolve { effort, resolution } => {
                if !open.iter().any(|e| &e.id == effort) {
                    let ids: Vec<&str> = open.iter().map(|e| e.id.as_str()).collect();
                    return Err(format!(
                        "{effort} is not an open effort (the open ones are: {})",
                        if ids.is_empty() {
                            "none".to_string()
                        } else {
                            ids.join(", ")
                        }
                    ));
                }
                if resolution.trim().is_empty() {
                    return Err("a resolution needs its text".into());
                }
            }
        }
    }
    Ok(())
}

/// The model's interpretation of `record`, validated (one corrected retry).
pub fn with_model(
    llm: &Llm,
    prompt: &str,
    record: &Record,
    open: &[Artifact],
    usage: &mut Usage,
) -> Result<Interpretation, String> {
    let efforts = if open.is_empty() {
        "(none)".to_string()
    } else {
        open.iter()
            .map(|e| format!("- {}: {}", e.id, e.summary))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let request = ChatRequest::from_system(prompt.trim().to_string()).append_message(ChatMessage::user(format!(
        "Open efforts:\n{efforts}\n\nToday is {}.\n\nThe exchange:\n\nUser: {}\n\nAssistant: {}",
        jiff::Zoned::now().strftime("%Y-%m-%d"),
        record.user,
        record.assistant
    )));
    match knower_llm::structured::<Interpretation>(llm, request, |i| validate(i, open)) {
        Ok((interpretation, spent)) => {
            *usage += spent;
            Ok(interpretation)
        }
        Err(e) => Err(e.to_string()),
    }
}
