//! Plain `.md` and `.txt` files: one conversation. When its headings are
//! its speakers (`## User (04:31 UTC)`, `# PROMPT`, `## Me`: two or more
//! names, each heading more than one turn or carrying its time), each such heading starts a
//! turn; else when its lines name their speakers (`Alice: …`, two or more
//! of them, each more than once), each such line starts a turn; otherwise
//! the whole file is one turn of `Text`. The day is the first date in the
//! file's name (exporters name logs by their day).

use std::collections::HashMap;
use std::path::Path;

use super::{Read, day_of, stem};
use crate::conversation::{Conversation, Format, Turn};

pub fn read(path: &Path, text: &str) -> Read {
    let mut read = Read::default();
    if text.trim().is_empty() {
        return read;
    }
    let turns = headed(text)
        .or_else(|| speakers(text))
        .unwrap_or_else(|| vec![Turn::said("Text", text.trim())]);
    let name = stem(path);
    read.conversations.push(Conversation {
        date: date_in(&name),
        name,
        source: path.to_path_buf(),
        key: None,
        format: Format::Text,
        turns,
        omitted: 0,
        folder: None,
    });
    read
}

/// A turn without the lines in which an exporter of agent sessions
/// renders a tool call (`- **Used Read** on `x``, `- **Used Bash**: …`):
/// they say what the agent looked at, not what anyone said.
fn without_tool_lines(text: &str) -> String {
    text.lines()
        .filter(|line| {
            let l = line.trim_start().trim_start_matches(['-', '*', ' ']);
            !(l.starts_with("Used ")
                && l.split_whitespace()
                    .nth(1)
                    .is_some_and(|w| w.ends_with("**") || w.ends_with("**:")))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first `YYYY-MM-DD` in a name.
fn date_in(name: &str) -> Option<String> {
    (0..name.len().saturating_sub(9))
        .filter(|&i| name.is_char_boundary(i) && name.is_char_boundary(i + 10))
        .find_map(|i| day_of(&name[i..i + 10]))
}

/// A heading's speaker: `## Name` or `## Name (time)`, a name of one to
/// three words; with whether the heading carries a time.
fn heading_speaker(line: &str) -> Option<&str> {
    heading(line).map(|(name, _)| name)
}

fn heading(line: &str) -> Option<(&str, bool)> {
    let rest = line.strip_prefix('#')?.trim_start_matches('#');
    let rest = rest.strip_prefix(' ')?.trim();
    let (name, timed) = match rest.find(" (") {
        Some(at) if rest.ends_with(')') => {
            let when = &rest[at..];
            (
                &rest[..at],
                when.contains(':') && when.chars().any(|c| c.is_ascii_digit()),
            )
        }
        _ => (rest, false),
    };
    let name = name.trim_end_matches(':').trim();
    let plausible = !name.is_empty()
        && name.len() <= 32
        && name.split_whitespace().count() <= 3
        && name.chars().next().is_some_and(char::is_alphabetic)
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '.' | '\'' | '-' | '_'));
    plausible.then_some((name, timed))
}

fn headed(text: &str) -> Option<Vec<Turn>> {
    // name → (headings, headings with a time)
    let mut counts: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut fenced = false;
    for line in text.lines() {
        fenced ^= line.trim_start().starts_with("```");
        if !fenced && let Some((name, timed)) = heading(line) {
            let count = counts.entry(name).or_default();
            count.0 += 1;
            count.1 += usize::from(timed);
        }
    }
    // A log's turns are headings that repeat, or that carry their time.
    let regular: Vec<&str> = counts
        .iter()
        .filter(|(_, (n, timed))| *n >= 2 || *timed >= 1)
        .map(|(name, _)| *name)
        .collect();
    if regular.len() < 2 {
        return None;
    }
    let mut turns: Vec<Turn> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        let opens_fence = line.trim_start().starts_with("```");
        let speaker = (!fenced)
            .then(|| heading_speaker(line))
            .flatten()
            .filter(|name| regular.contains(name));
        fenced ^= opens_fence;
        match speaker {
            Some(name) => turns.push(Turn::said(name, "")),
            None => match turns.last_mut() {
                Some(turn) => {
                    turn.text.push_str(line);
                    turn.text.push('\n');
                }
                None if line.trim().is_empty() => {}
                None => turns.push(Turn::said("Text", format!("{line}\n"))),
            },
        }
    }
    for turn in &mut turns {
        turn.text = super::noise::said(&without_tool_lines(&turn.text));
    }
    // What comes before the first speaker is the log's header.
    if turns.first().is_some_and(|t| t.speaker == "Text") {
        turns.remove(0);
    }
    turns.retain(|t| !t.text.is_empty());
    Some(turns)
}

/// `Name: words` at the start of a line, for a short name.
fn speaker_of(line: &str) -> Option<(&str, &str)> {
    let (name, said) = line.split_once(": ")?;
    let name = name
        .trim_start_matches(['*', '-', ' '])
        .trim_end_matches('*');
    let plausible = !name.is_empty()
        && name.len() <= 32
        && name.chars().next().is_some_and(char::is_alphabetic)
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '.' | '\'' | '-' | '_'))
        && name.split_whitespace().count() <= 3;
    plausible.then_some((name, said))
}

fn speakers(text: &str) -> Option<Vec<Turn>> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for line in text.lines() {
        if let Some((name, _)) = speaker_of(line) {
            *counts.entry(name).or_default() += 1;
        }
    }
    let regular: Vec<&str> = counts
        .iter()
        .filter(|(_, n)| **n >= 2)
        .map(|(name, _)| *name)
        .collect();
    if regular.len() < 2 {
        return None;
    }
    let mut turns: Vec<Turn> = Vec::new();
    for line in text.lines() {
        match speaker_of(line).filter(|(name, _)| regular.contains(name)) {
            Some((name, said)) => turns.push(Turn::said(name, said.trim())),
            None => match turns.last_mut() {
                Some(turn) => {
                    turn.text.push('\n');
                    turn.text.push_str(line);
                }
                None if line.trim().is_empty() => {}
                None => turns.push(Turn::said("Text", line)),
            },
        }
    }
    for turn in &mut turns {
        turn.text = turn.text.trim_end().to_string();
    }
    Some(turns)
}
