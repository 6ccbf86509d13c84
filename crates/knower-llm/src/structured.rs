//! Model output that must parse into a type (seed 002's contract): the reply
//! is parsed and validated; an invalid one gets exactly one retry, with a
//! message saying what was wrong; a second invalid one is a reported
//! failure, never silently dropped.

use genai::chat::{ChatMessage, ChatRequest};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::client::{Llm, Reply, Shape, Usage};
use crate::error::{LlmError, Result};
use crate::schema::plain_schema;

/// Attempts at valid output: the first answer and one corrected retry.
pub const MAX_ATTEMPTS: usize = 2;

/// Asks for a JSON object of type `T`, checked by `validate`; the server
/// constrains the output to `T`'s schema where it can. Blocking: for
/// synchronous callers (see [`Llm::chat_blocking`]).
pub fn structured<T: DeserializeOwned + JsonSchema>(
    llm: &Llm,
    request: ChatRequest,
    validate: impl Fn(&T) -> Result<(), String>,
) -> Result<(T, Usage)> {
    let name = T::schema_name().replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    structured_as(llm, request, &name, plain_schema::<T>(), None, validate)
}

/// [`structured`] with a schema made at run time (one whose `enum`s are the
/// vault's own places, say); `schema` must describe `T`. `max_tokens` caps
/// a reply known to be short (see [`Shape::Json`]).
pub fn structured_as<T: DeserializeOwned>(
    llm: &Llm,
    mut request: ChatRequest,
    name: &str,
    schema: serde_json::Value,
    max_tokens: Option<u32>,
    validate: impl Fn(&T) -> Result<(), String>,
) -> Result<(T, Usage)> {
    let shape = Shape::Json {
        name: name.to_string(),
        schema,
        max_tokens,
    };
    let mut usage = Usage::default();
    let mut last_error = String::new();
    for _ in 0..MAX_ATTEMPTS {
        let reply = match llm.chat_blocking_as(&request, &shape) {
            Ok(reply) => reply,
            // A body the server could not make into a reply (cut off,
            // not JSON) is the model's to correct, once, like invalid JSON.
            Err(LlmError::Protocol { detail, .. }) => {
                request = request.append_message(ChatMessage::user(corrective_message(&detail)));
                last_error = detail;
                continue;
            }
            Err(e) => return Err(e),
        };
        usage += reply.usage;
        match parse_reply::<T>(&reply).and_then(|value| validate(&value).map(|_| value)) {
            Ok(value) => return Ok((value, usage)),
            Err(e) => {
                request = request
                    .append_message(reply.message)
                    .append_message(ChatMessage::user(corrective_message(&e)));
                last_error = e;
            }
        }
    }
    // The user reads what was wrong, never the words meant for the model.
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

/// The JSON object of a reply. A reply stopped by the output cap (a small
/// model looping inside a string does that) is read up to its last
/// complete member: what it finished is kept, what it did not is dropped,
/// never passed on half-written.
pub fn parse_reply<T: DeserializeOwned>(reply: &Reply) -> Result<T, String> {
    let text = reply.text.as_deref().unwrap_or_default();
    match parse_json_reply(text) {
        Ok(value) => Ok(value),
        Err(e) if reply.cut_off => match complete_cut_off(text) {
            Some(finished) => parse_json_reply(&finished)
                .map_err(|e| format!("it was cut off at the output cap, and {e}")),
            None => Err(format!("it was cut off at the output cap ({e})")),
        },
        Err(e) => Err(e),
    }
}

/// A JSON text cut off mid-way, ended after its last complete member or
/// element and closed; `None` when no object was begun.
pub fn complete_cut_off(text: &str) -> Option<String> {
    let start = text.find('{')?;
    let text = &text[start..];
    // Open containers, and the last point where the text so far, with
    // them closed, is valid JSON.
    let mut open: Vec<char> = Vec::new();
    let mut last: Option<(usize, Vec<char>)> = None;
    let (mut in_string, mut escaped) = (false, false);
    for (at, c) in text.char_indices() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => {
                open.push(if c == '{' { '}' } else { ']' });
                // A member just begun is not complete (an empty item could
                // be missing what it requires); the object itself is.
                if open.len() == 1 {
                    last = Some((at + 1, open.clone()));
                }
            }
            '}' | ']' => {
                open.pop();
                if open.is_empty() {
                    return Some(text[..=at].to_string());
                }
                last = Some((at + 1, open.clone()));
            }
            // Everything before a comma is complete.
            ',' => last = Some((at, open.clone())),
            _ => {}
        }
    }
    let (end, open) = last?;
    let mut finished = text[..end].trim_end().to_string();
    finished.extend(open.iter().rev());
    Some(finished)
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
    serde_json::from_str(candidate)
        .or_else(|e| {
            // Small models put raw line breaks and tabs inside strings
            // (servers' grammars let them through); read them as escaped.
            if e.to_string().contains("control character") {
                serde_json::from_str(&escape_controls_in_strings(candidate))
            } else {
                Err(e)
            }
        })
        .map_err(|e| format!("not the expected JSON object ({e})"))
}

/// `text` with the control characters inside its JSON strings escaped.
fn escape_controls_in_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string && !escaped && c.is_control() {
            out.push_str(&format!("\\u{:04x}", c as u32));
            continue;
        }
        out.push(c);
        if escaped {
            escaped = false;
        } else if c == '\\' && in_string {
            escaped = true;
        } else if c == '"' {
            in_string = !in_string;
        }
    }
    out
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
    fn raw_line_breaks_inside_strings_are_read_as_escaped() {
        let a: Answer = parse_json_reply("{\"outcome\": \"filed\nthere\tnow\"}").unwrap();
        assert_eq!(a.outcome, "filed\nthere\tnow");
        let quoted: Answer = parse_json_reply("{\n  \"outcome\": \"a \\\" b\n\"\n}").unwrap();
        assert_eq!(quoted.outcome, "a \" b\n");
    }

    #[test]
    fn a_cut_off_reply_keeps_its_complete_members_only() {
        for (text, finished) in [
            (
                r#"{"place": "projects/a/tasks.md", "reasoning": "because because bec"#,
                r#"{"place": "projects/a/tasks.md"}"#,
            ),
            (
                r#"{"items": [{"s": "one, \"two\""}, {"s": "thr"#,
                r#"{"items": [{"s": "one, \"two\""}]}"#,
            ),
            (r#"{"items": [{"s": "a"}"#, r#"{"items": [{"s": "a"}]}"#),
            (r#"{"reasoning": "{[,,"#, "{}"),
            (r#"{"done": 1} and more"#, r#"{"done": 1}"#),
        ] {
            assert_eq!(complete_cut_off(text).as_deref(), Some(finished), "{text}");
            let _: serde_json::Value = serde_json::from_str(finished).unwrap();
        }
        assert_eq!(complete_cut_off("no object here"), None);
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
