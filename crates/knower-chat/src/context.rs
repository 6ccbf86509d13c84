//! The context of one message, built just in time (seed 004): the prompt,
//! the profile and the knowledge digest (the stable part), the open
//! efforts, the artifacts and vault passages relevant to *this* message
//! (retrieved with the index, the best ones within a token budget), and the
//! last exchanges of the session.

use knower_index::{Index, Mode, SearchOptions};
use knower_vault::{Vault, frontmatter};
use serde::Serialize;

use crate::artifact::{Artifact, DIR, Status};
use crate::log::{self, Record};
use crate::settings::Settings;
use crate::store;

/// The profile or the digest, at most this many characters each.
const FILE_CHARS: usize = 6_000;
/// A past turn, at most this many characters.
const TURN_CHARS: usize = 1_200;

/// How big a context was, part by part (tokens are characters / 4, as
/// Knower counts them everywhere).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ContextReport {
    pub tokens: usize,
    pub prompt_tokens: usize,
    pub profile_tokens: usize,
    pub digest_tokens: usize,
    pub efforts: usize,
    pub effort_tokens: usize,
    pub artifacts: usize,
    pub artifact_tokens: usize,
    pub passages: usize,
    pub passage_tokens: usize,
    pub history: usize,
    pub history_tokens: usize,
    pub message_tokens: usize,
    /// Tokens of the message left out of the context, past
    /// [`MAX_MESSAGE_TOKENS`] (the log keeps the whole message).
    #[serde(skip_serializing_if = "is_zero")]
    pub message_cut_tokens: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The most of one message the context holds: a pasted book would
/// otherwise be the whole context (a 10 MB message made 2.6 M tokens) and
/// no model takes it. The rest is left out, saying so to the model and in
/// the report.
pub const MAX_MESSAGE_TOKENS: usize = 8_000;

/// `message` as the context holds it, and how many tokens were left out.
fn bounded(message: &str) -> (String, usize) {
    let all = tokens(message);
    if all <= MAX_MESSAGE_TOKENS {
        return (message.to_string(), 0);
    }
    let kept: String = message.chars().take(MAX_MESSAGE_TOKENS * 4).collect();
    let cut = all - tokens(&kept);
    (
        format!(
            "{kept}\n\n[… the rest of this message, about {cut} tokens, was left out: \
             a message is at most {MAX_MESSAGE_TOKENS} tokens in the context]"
        ),
        cut,
    )
}

#[derive(Clone, Debug)]
pub struct Context {
    /// Everything before the conversation: prompt, profile, digest, open
    /// efforts, retrieved artifacts and passages.
    pub system: String,
    /// The last exchanges of the session, oldest first.
    pub history: Vec<Record>,
    pub message: String,
    /// The artifacts it holds (their ref_count goes up).
    pub artifacts: Vec<String>,
    /// The open efforts (what the interpreter may resolve).
    pub open: Vec<Artifact>,
    pub report: ContextReport,
}

pub fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

fn body(vault: &Vault, path: &str) -> String {
    let Ok(text) = vault.read(path) else {
        return String::new();
    };
    let body = frontmatter::split(&text).map(|s| s.body).unwrap_or(&text);
    cut(body.trim(), FILE_CHARS)
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Words only: the index's query syntax (quotes, `-`, `+`, `*`) is not the
/// user's.
fn as_query(message: &str) -> String {
    message
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '\'' {
                c
            } else {
                ' '
            }
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
pub fn build(
    vault: &Vault,
    index: &Index,
    settings: &Settings,
    prompt: &str,
    artifacts: &[Artifact],
    records: &[Record],
    session: &str,
    message: &str,
) -> Context {
    let mut report = ContextReport::default();
    let mut system = prompt.trim().to_string();
    report.prompt_tokens = tokens(&system);

    let profile = body(vault, "profile.md");
    if !profile.is_empty() {
        let part = format!("\n\n<profile>\n{profile}\n</profile>");
        report.profile_tokens = tokens(&part);
        system.push_str(&part);
    }
    // Delete to turn off: without the file, no knowledge block.
    let digest = body(vault, "knowledge/digest.md");
    if !digest.is_empty() {
        let part = format!("\n\n<knowledge>\n{digest}\n</knowledge>");
        report.digest_tokens = tokens(&part);
        system.push_str(&part);
    }

    let mut open = store::open_efforts(artifacts);
    open.truncate(settings.open_efforts);
    let mut in_context: Vec<String> = open.iter().map(|e| e.id.clone()).collect();
    let efforts = if open.is_empty() {
        "(none)".to_string()
    } else {
        open.iter()
            .map(|e| format!("- {}", e.line()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let part = format!("\n\n<open-efforts>\n{efforts}\n</open-efforts>");
    report.efforts = open.len();
    report.effort_tokens = tokens(&part);
    system.push_str(&part);

    let (message, left_out) = bounded(message);
    let message = message.as_str();
    report.message_cut_tokens = left_out;
    let query = as_query(message);
    let search = |scope: Option<String>| {
        index
            .search(
                &query,
                &SearchOptions {
                    mode: Mode::Fast,
                    scope,
                    limit: 30,
                },
            )
            .map(|r| r.hits)
            .unwrap_or_default()
    };
    // The artifacts this message is about.
    let mut lines = Vec::new();
    let mut used = 0;
    if !query.trim().is_empty() {
        for hit in search(Some(DIR.to_string())) {
            let Some(id) = hit
                .path
                .strip_prefix(&format!("{DIR}/"))
                .and_then(|n| n.strip_suffix(".md"))
            else {
                continue;
            };
            if in_context.iter().any(|c| c == id) {
                continue;
            }
            let Some(artifact) = artifacts.iter().find(|a| a.id == id) else {
                continue;
            };
            if artifact.status == Status::Archived {
                continue;
            }
            let line = format!("- {}", artifact.line());
            let cost = tokens(&line) + 1;
            if used + cost > settings.artifact_tokens {
                break;
            }
            used += cost;
            lines.push(line);
            in_context.push(artifact.id.clone());
        }
    }
    if !lines.is_empty() {
        let part = format!("\n\n<memory>\n{}\n</memory>", lines.join("\n"));
        report.artifacts = lines.len();
        report.artifact_tokens = tokens(&part);
        system.push_str(&part);
    }
    // The vault's notes this message is about, citable.
    let mut passages = Vec::new();
    let mut used = 0;
    if !query.trim().is_empty() {
        for hit in search(None) {
            if hit.path.starts_with("chat/") {
                continue;
            }
            let passage = format!(
                "`{}:{}-{}`{}\n{}",
                hit.path,
                hit.line_start,
                hit.line_end,
                if hit.heading.is_empty() {
                    String::new()
                } else {
                    format!(" § {}", hit.heading)
                },
                hit.text.trim()
            );
            let cost = tokens(&passage) + 1;
            if used + cost > settings.passage_tokens {
                break;
            }
            used += cost;
            passages.push(passage);
        }
    }
    if !passages.is_empty() {
        let part = format!("\n\n<vault>\n{}\n</vault>", passages.join("\n\n"));
        report.passages = passages.len();
        report.passage_tokens = tokens(&part);
        system.push_str(&part);
    }

    let history: Vec<Record> = log::last(records, session, settings.history)
        .into_iter()
        .map(|mut r| {
            r.user = cut(&r.user, TURN_CHARS);
            r.assistant = cut(&r.assistant, TURN_CHARS);
            r
        })
        .collect();
    report.history = history.len();
    report.history_tokens = history
        .iter()
        .map(|r| tokens(&r.user) + tokens(&r.assistant))
        .sum();
    report.message_tokens = tokens(message);
    report.tokens = tokens(&system) + report.history_tokens + report.message_tokens;
    Context {
        system,
        history,
        message: message.to_string(),
        artifacts: in_context,
        open,
        report,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_message_is_cut_to_the_bound_and_says_so() {
        let (short, cut) = bounded("Should we host the wiki ourselves?");
        assert_eq!(
            (short.as_str(), cut),
            ("Should we host the wiki ourselves?", 0)
        );
        let huge = "word ".repeat(2_000_000);
        let (kept, cut) = bounded(&huge);
        assert!(
            tokens(&kept) <= MAX_MESSAGE_TOKENS + 40,
            "{}",
            tokens(&kept)
        );
        assert_eq!(cut, tokens(&huge) - MAX_MESSAGE_TOKENS);
        assert!(
            kept.ends_with("tokens in the context]"),
            "{}",
            &kept[kept.len() - 120..]
        );
    }
}
