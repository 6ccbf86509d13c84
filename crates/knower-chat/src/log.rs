//! The raw chat log, `chat/log.jsonl`: one JSON line per exchange,
//! appended and synced once per exchange (a reader sees a whole exchange or
//! none of it), never rewritten or deleted by Knower. It is the permanent
//! record the artifacts are compressed from, and a harvest source.

use serde::{Deserialize, Serialize};

pub const LOG: &str = "chat/log.jsonl";

/// One exchange as the log keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub id: String,
    pub at: String,
    pub session: String,
    pub user: String,
    pub assistant: String,
    #[serde(default)]
    pub engine: String,
    /// The artifacts that were in this exchange's context.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<String>,
    /// The user stopped the answer before its end.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
}

/// The records of a log's text, in order; a line that is not a record (a
/// torn last line, a person's edit) is skipped.
pub fn parse(text: &str) -> Vec<Record> {
    text.lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// A new exchange id: sortable by time, unique enough for one person.
pub fn new_id() -> String {
    let now = jiff::Zoned::now();
    let nanos = now.timestamp().subsec_nanosecond() as u32;
    let mix = nanos ^ std::process::id().rotate_left(13);
    format!("{}-{:06x}", now.strftime("%Y%m%d-%H%M%S"), mix & 0xff_ffff)
}

/// A new session id.
pub fn new_session() -> String {
    format!("s-{}", new_id())
}

/// The last `n` exchanges of `session`, oldest first.
pub fn last(records: &[Record], session: &str, n: usize) -> Vec<Record> {
    let mut mine: Vec<Record> = records
        .iter()
        .rev()
        .filter(|r| r.session == session)
        .take(n)
        .cloned()
        .collect();
    mine.reverse();
    mine
}
