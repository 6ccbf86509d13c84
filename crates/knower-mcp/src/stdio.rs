//! MCP over stdin/stdout, with every line answered. The SDK's transport
//! drops a line it cannot read as a JSON-RPC message, and the client waits
//! for an answer that never comes. Here each line is looked at first: one
//! that is not JSON (garbage, invalid UTF-8, nesting past serde_json's
//! limit, longer than [`MAX_STDIO_MESSAGE_BYTES`]) gets JSON-RPC's
//! `-32700 Parse error`, and JSON that is not a JSON-RPC message gets
//! `-32600 Invalid Request`, both with `id: null` as the specification says.
//! Messages pass on to the SDK unchanged; what it writes and these errors
//! reach stdout whole lines at a time, never interleaved.

use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleServer, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::Knower;

/// The longest message `knower mcp` reads: well past the tools' own limit,
/// so an oversized call gets their clear error; a longer line is a parse
/// error, read no further than its end.
pub const MAX_STDIO_MESSAGE_BYTES: usize = 64 << 20;

/// Serves `knower` on stdin/stdout until the client closes stdin.
pub async fn serve_stdio(knower: Knower) -> Result<(), String> {
    serve_lines(knower, tokio::io::stdin(), tokio::io::stdout()).await
}

/// [`serve_stdio`] over any pair of streams.
pub async fn serve_lines(
    knower: Knower,
    input: impl AsyncRead + Unpin + Send + 'static,
    mut output: impl AsyncWrite + Unpin + Send + 'static,
) -> Result<(), String> {
    let (sdk_in, mut to_sdk) = tokio::io::duplex(1 << 20);
    let (sdk_out, from_sdk) = tokio::io::duplex(1 << 20);
    let (lines, mut outgoing) = mpsc::channel::<Vec<u8>>(64);

    let writer = tokio::spawn(async move {
        while let Some(line) = outgoing.recv().await {
            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    let answers = lines.clone();
    tokio::spawn(async move {
        let mut from_sdk = BufReader::new(from_sdk);
        let mut line = Vec::new();
        while matches!(from_sdk.read_until(b'\n', &mut line).await, Ok(n) if n > 0) {
            if answers.send(std::mem::take(&mut line)).await.is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        loop {
            let line = match read_bounded_line(&mut input, MAX_STDIO_MESSAGE_BYTES).await {
                Ok(Some(line)) => line,
                Ok(None) | Err(_) => break,
            };
            match check(&line) {
                Ok(()) => {
                    let forwarded = async {
                        to_sdk.write_all(&line).await?;
                        to_sdk.write_all(b"\n").await
                    };
                    if forwarded.await.is_err() {
                        break;
                    }
                }
                Err(None) => {}
                Err(Some(reply)) => {
                    if lines.send(reply).await.is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping `to_sdk` ends the session, as closing stdin does.
    });

    let transport = AsyncRwTransport::<RoleServer, _, _>::new(sdk_in, sdk_out)
        .with_max_line_length(MAX_STDIO_MESSAGE_BYTES + 1);
    let served = async {
        let running = knower
            .serve(transport)
            .await
            .map_err(|e| format!("the MCP session did not start: {e}"))?;
        running
            .waiting()
            .await
            .map_err(|e| format!("the MCP session failed: {e}"))?;
        Ok(())
    }
    .await;
    let _ = writer.await;
    served
}

/// A line of input without its newline; `Line::TooLong` when it ran past
/// `max` bytes (the rest of it is read and dropped).
enum Line {
    Message(Vec<u8>),
    TooLong,
}

impl std::ops::Deref for Line {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Line::Message(bytes) => bytes,
            Line::TooLong => &[],
        }
    }
}

async fn read_bounded_line(
    input: &mut (impl AsyncBufRead + Unpin),
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok((!line.is_empty() || too_long).then(|| finish(line, too_long)));
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (&available[..end], Some(end + 1)),
            None => (available, None),
        };
        if !too_long {
            if line.len() + chunk.len() > max {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let consumed = done.unwrap_or(available.len());
        input.consume(consumed);
        if done.is_some() {
            return Ok(Some(finish(line, too_long)));
        }
    }
}

fn finish(mut line: Vec<u8>, too_long: bool) -> Line {
    if too_long {
        return Line::TooLong;
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Line::Message(line)
}

/// `Ok` for a line to pass on; otherwise the error to answer (`None` for a
/// blank line, which is skipped).
fn check(line: &Line) -> Result<(), Option<Vec<u8>>> {
    let bytes = match line {
        Line::TooLong => {
            return Err(Some(refusal(
                -32700,
                &format!(
                    "Parse error: the message is longer than {} MiB",
                    MAX_STDIO_MESSAGE_BYTES >> 20
                ),
            )));
        }
        Line::Message(bytes) => bytes,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(None);
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(Some(refusal(
            -32700,
            "Parse error: the message is not UTF-8",
        )));
    };
    // serde_json refuses nesting deeper than 128 levels.
    let value: Value = serde_json::from_str(text)
        .map_err(|e| Some(refusal(-32700, &format!("Parse error: {e}"))))?;
    let is_message = |v: &Value| {
        v.get("jsonrpc") == Some(&json!("2.0"))
            && (v.get("method").is_some_and(Value::is_string)
                || (v.get("id").is_some()
                    && (v.get("result").is_some() || v.get("error").is_some())))
    };
    let valid = match &value {
        Value::Object(_) => is_message(&value),
        Value::Array(batch) => !batch.is_empty() && batch.iter().all(is_message),
        _ => false,
    };
    if valid && has_null_id(&value) {
        return Err(Some(refusal(-32600, NULL_ID)));
    }
    if valid {
        Ok(())
    } else {
        Err(Some(refusal(
            -32600,
            "Invalid Request: not a JSON-RPC 2.0 message (jsonrpc \"2.0\" with a method, or an id with a result or error)",
        )))
    }
}

/// The refusal of a request whose `id` is `null`: JSON-RPC answers a
/// request with its own id, and the MCP SDK would answer this one with
/// none at all, so it is refused here, carrying the same `null`.
pub const NULL_ID: &str =
    "Invalid Request: a request's id must be a string or a number (null cannot be answered)";

/// Whether `message` (one, or a batch) holds a request whose `id` is
/// `null`.
pub fn has_null_id(message: &Value) -> bool {
    let null_id = |v: &Value| v.get("method").is_some() && v.get("id") == Some(&Value::Null);
    match message {
        Value::Array(batch) => batch.iter().any(null_id),
        other => null_id(other),
    }
}

/// The JSON-RPC error for a request with a `null` id.
pub fn null_id_error() -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": NULL_ID}})
}

fn refusal(code: i64, message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    }))
    .expect("JSON");
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(bytes: &[u8]) -> Line {
        Line::Message(bytes.to_vec())
    }

    fn code(result: Result<(), Option<Vec<u8>>>) -> Option<i64> {
        let line = result.err()??;
        let value: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["id"], Value::Null);
        value["error"]["code"].as_i64()
    }

    #[test]
    fn a_request_whose_id_is_null_is_answered_with_that_null() {
        let answer = check(&message(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#));
        assert_eq!(code(answer), Some(-32600));
        let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":null,"method":"ping"}]"#;
        assert_eq!(code(check(&message(batch))), Some(-32600));
        // A notification has no id at all, and a response may carry null.
        assert!(
            check(&message(
                br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
            ))
            .is_ok()
        );
        assert!(
            check(&message(
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}"#
            ))
            .is_ok()
        );
    }

    #[test]
    fn lines_that_are_not_messages_get_their_error() {
        assert_eq!(code(check(&message(b"garbage"))), Some(-32700));
        assert_eq!(code(check(&message(b"{\"a\": \"\xff\"}"))), Some(-32700));
        let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
        assert_eq!(code(check(&message(deep.as_bytes()))), Some(-32700));
        assert_eq!(code(check(&Line::TooLong)), Some(-32700));
        assert_eq!(code(check(&message(b"{\"x\": 1}"))), Some(-32600));
        assert_eq!(code(check(&message(b"42"))), Some(-32600));
        assert!(check(&message(b"   ")).unwrap_err().is_none());
        assert!(check(&message(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)).is_ok());
        assert!(check(&message(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#)).is_ok());
    }

    #[tokio::test]
    async fn a_line_past_the_limit_is_dropped_to_its_end() {
        let input = b"0123456789\nabc\r\ntail".to_vec();
        let mut reader = BufReader::with_capacity(4, &input[..]);
        let first = read_bounded_line(&mut reader, 5).await.unwrap().unwrap();
        assert!(matches!(first, Line::TooLong));
        let second = read_bounded_line(&mut reader, 5).await.unwrap().unwrap();
        assert_eq!(&*second, b"abc");
        let third = read_bounded_line(&mut reader, 5).await.unwrap().unwrap();
        assert_eq!(&*third, b"tail");
        assert!(read_bounded_line(&mut reader, 5).await.unwrap().is_none());
    }
}
