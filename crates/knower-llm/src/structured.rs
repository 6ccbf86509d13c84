//! Model output that must parse into a type (seed 002's contract): the reply
//! is parsed and validated; an invalid one gets exactly one retry, with a
//! message saying what was wrong; a second invalid one is a reported
//! failure, never silently dropped.

use genai::chat::{ChatMessage, ChatRequest};
use serde::de::DeserializeOwned;

use crate::client::{Llm, Usage};
use crate::error::{LlmError, Result};

/// Attempts at valid output: the first answer and one corrected retry.
pub const MAX_ATTEMPTS: usize = 2;

/// Asks for a JSON object of type `T`, checked by `validate`. Blocking:
/// for synchronous callers (see [`Llm::chat_blocking`]).
pub fn structured<T: DeserializeOwned>(
    llm: &Llm,
    mut request: ChatRequest,
    validate: impl Fn(&T) -> Result<(), String>,
) -> Result<(T, Usage)> {
    let mut usage = Usage::default();
    let mut last_error = String::new();
    for _ in 0..MAX_ATTEMPTS {
        let reply = llm.chat_blocking(&request)?;
        usage += reply.usage;
        let text = reply.text.clone().unwrap_or_default();
        match parse_json_reply::<T>(&text).and_then(|value| validate(&value).map(|_| value)) {
            Ok(value) => return Ok((value, usage)),
            Err(e) => {
                request = request
                    .append_message(reply.message)
                    .append_message(ChatMessage::user(corrective_message(&e)));
                last_error = e;
            }
        }
    }
    Err(LlmError::InvalidOutput {
        attempts: MAX_ATTEMPTS,
        detail: last_error,
    })
}

/// The message sent with the retry.
pub fn corrective_message(problem: &str) -> String {
    format!(
        "Your previous reply was not valid: {problem}\n\
         Return only the JSON object, with no other text."
    )
}

/// A JSON object from a model's reply: the whole reply, or the object inside
/// a ```json fence or surrounding prose.
pub fn parse_json_reply<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("the reply was empty".into());
    }
    let candidate = match (text.find('{'), text.rfind('}')) {
        (Some(start), Some(end)) if start < end => &text[start..=end],
        _ => return Err("the reply holds no JSON object".into()),
    };
    serde_json::from_str(candidate).map_err(|e| format!("not the expected JSON object ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Answer {
        outcome: String,
    }

    #[test]
    fn json_is_found_in_fences_and_prose() {
        for text in [
            r#"{"outcome":"filed"}"#,
            "```json\n{\"outcome\": \"filed\"}\n```",
            "Done. Here it is: {\"outcome\":\"filed\"} Bye.",
        ] {
            let a: Answer = parse_json_reply(text).unwrap();
            assert_eq!(a.outcome, "filed", "{text}");
        }
    }

    #[test]
    fn invalid_replies_say_why() {
        for (text, why) in [
            ("", "empty"),
            ("I filed it.", "no JSON"),
            ("{\"outcome\": }", "expected JSON"),
            ("{\"result\": 1}", "missing field `outcome`"),
        ] {
            let e = parse_json_reply::<Answer>(text).unwrap_err();
            assert!(e.contains(why), "{text}: {e}");
        }
    }
}
