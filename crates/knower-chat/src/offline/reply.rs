//! The offline engine's reply: short, and only what the memory holds. A
//! question is answered by the chat's own conclusions that share the most
//! of its words (a decision with what settled it, a fact, an event; an open
//! effort last), each cited, then by the line or two of the vault's notes
//! that answer; "what is still open?" lists the open efforts. A message
//! that settles something says what it settled, or asks which open effort
//! it settles when that is not clear; a fact says it was kept.

use std::collections::HashSet;

use knower_agents::Agents;
use knower_vault::Vault;

use crate::artifact::{self, Artifact, Kind, Status};
use crate::chat::{ChatError, OFFLINE};
use crate::context::Context;
use crate::offline::interpret::{Reading, read};
use crate::store::content_words;

/// Conclusions shown at most.
const CONCLUSIONS: usize = 3;
/// Passages of notes shown at most when no line of them answers.
const PASSAGES: usize = 2;
/// What a question asks when it asks what is left to decide.
const OPEN: &str = "open pending unresolved undecided outstanding";
/// Words that come with [`OPEN`] and name no topic.
const OPEN_COMPANIONS: &str = "still left anything everything question questions";

pub fn reply(
    vault: &Vault,
    agents: &Agents,
    artifacts: &[Artifact],
    context: &Context,
    message: &str,
) -> Result<String, ChatError> {
    let mut out = format!("_{OFFLINE}: what your memory holds, not a written reply._\n\n");
    let known = |id: &String| artifacts.iter().find(|a| &a.id == id);
    match read(message, artifacts) {
        Reading::Settles(id) => {
            if let Some(effort) = known(&id) {
                out.push_str(&format!(
                    "Noted: this settles “{}” {}.\n",
                    effort.summary,
                    cite(vault, effort)
                ));
            }
        }
        Reading::SettlesOneOf(ids) => {
            out.push_str("Which open question does this settle? It could be any of these:\n\n");
            for effort in ids.iter().filter_map(known) {
                out.push_str(&format!("- {} {}\n", effort.summary, cite(vault, effort)));
            }
            out.push_str(
                "\nSay it again with a word of the one it settles, or mark that one \
                 resolved in the chat's memory.\n",
            );
        }
        Reading::States => out.push_str("Noted as a fact.\n"),
        Reading::Asks { opens } => {
            let conclusions = answering(message, artifacts, context);
            if !conclusions.is_empty() {
                for a in &conclusions {
                    out.push_str(&format!("- {}\n", line(vault, a)));
                }
                out.push('\n');
            }
            notes(agents, message, conclusions.is_empty(), &mut out)?;
            if opens {
                out.push_str(&format!(
                    "Opened as a question to settle: “{}”.\n",
                    artifact::one_line(message)
                ));
            }
        }
        Reading::Nothing => notes(agents, message, true, &mut out)?,
    }
    Ok(out)
}

/// The conclusions that answer `question`, best first: the open efforts
/// when it asks what is still open (on its topic, if it names one);
/// otherwise the artifacts of its context that share the most of its words.
fn answering<'a>(
    question: &str,
    artifacts: &'a [Artifact],
    context: &Context,
) -> Vec<&'a Artifact> {
    let asked = content_words(question);
    let in_context: Vec<&Artifact> = artifacts
        .iter()
        .filter(|a| context.artifacts.contains(&a.id) && a.status != Status::Archived)
        .collect();
    let open_words = content_words(OPEN);
    if asked.iter().any(|w| open_words.contains(w)) {
        let intent: HashSet<String> = open_words
            .union(&content_words(OPEN_COMPANIONS))
            .cloned()
            .collect();
        let topic: HashSet<&String> = asked.difference(&intent).collect();
        let open: Vec<&Artifact> = context
            .open
            .iter()
            .filter_map(|e| artifacts.iter().find(|a| a.id == e.id))
            .filter(|e| topic.is_empty() || words_of(e).iter().any(|w| topic.contains(w)))
            .collect();
        if !open.is_empty() {
            return open;
        }
    }
    let mut scored: Vec<(usize, &Artifact)> = in_context
        .into_iter()
        .map(|a| (words_of(a).intersection(&asked).count(), a))
        .filter(|(shared, _)| *shared > 0)
        .collect();
    // Most shared words, then what settles before what is still asked,
    // then the most recent.
    scored.sort_by(|(x, a), (y, b)| {
        y.cmp(x)
            .then(rank(a).cmp(&rank(b)))
            .then(b.created.cmp(&a.created))
            .then(b.id.cmp(&a.id))
    });
    let best = scored.first().map_or(0, |(shared, _)| *shared);
    scored
        .into_iter()
        .filter(|(shared, _)| shared * 2 >= best)
        .take(CONCLUSIONS)
        .map(|(_, a)| a)
        .collect()
}

fn words_of(a: &Artifact) -> HashSet<String> {
    content_words(&format!(
        "{} {}",
        a.summary,
        a.resolution.as_deref().unwrap_or_default()
    ))
}

fn rank(a: &Artifact) -> u8 {
    match (a.kind, a.status) {
        (Kind::Effort, Status::Resolved) => 0,
        (Kind::Fact | Kind::Event, _) => 1,
        _ => 2,
    }
}

/// One conclusion as a reply's line, cited.
fn line(vault: &Vault, a: &Artifact) -> String {
    let cited = cite(vault, a);
    match (a.kind, a.status, &a.resolution) {
        (Kind::Effort, Status::Resolved, Some(resolution)) => {
            format!("Decided: {resolution} — on “{}” {cited}", a.summary)
        }
        (Kind::Effort, Status::Open, _) => format!("Still open: {} {cited}", a.summary),
        _ => format!("{} {cited}", a.summary),
    }
}

/// `` `chat/artifacts/<id>.md:N` ``, N the line of the resolution (of the
/// summary, for what has none).
fn cite(vault: &Vault, a: &Artifact) -> String {
    let path = artifact::path_of(&a.id);
    let text = vault.read(&path).unwrap_or_default();
    let wanted = match a.resolution {
        Some(_) => "Resolution: ",
        None => "# ",
    };
    let number = text
        .lines()
        .position(|l| l.starts_with(wanted))
        .map_or(1, |i| i + 1);
    format!("`{path}:{number}`")
}

/// The vault's notes that answer `message`: the lines that answer, cited;
/// when none does and `passages` is asked for, the best passage or two.
fn notes(
    agents: &Agents,
    message: &str,
    passages: bool,
    out: &mut String,
) -> Result<(), ChatError> {
    let evidence = agents.evidence(message, &["chat"], PASSAGES)?;
    if !evidence.lines.is_empty() {
        out.push_str(&evidence.lines_markdown());
        out.push('\n');
    } else if passages && !evidence.hits.is_empty() {
        out.push_str("**Passages of your notes that match:**\n\n");
        out.push_str(&knower_agents::passages_by_file(&evidence.hits).0);
    } else if passages {
        out.push_str("Nothing in your memory or your notes matches this.\n\n");
    }
    Ok(())
}
