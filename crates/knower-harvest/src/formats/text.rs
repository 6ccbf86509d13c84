//! Plain `.md` and `.txt` files: one conversation. When its lines name
//! their speakers (`Alice: …`, two or more of them, each more than once),
//! each such line starts a turn; otherwise the whole file is one turn of
//! `Text`.

use std::collections::HashMap;
use std::path::Path;

use super::{Read, stem};
use crate::conversation::{Conversation, Format, Turn};

pub fn read(path: &Path, text: &str) -> Read {
    let mut read = Read::default();
    if text.trim().is_empty() {
        return read;
    }
    let turns = speakers(text).unwrap_or_else(|| vec![Turn::said("Text", text.trim())]);
    read.conversations.push(Conversation {
        name: stem(path),
        date: None,
        source: path.to_path_buf(),
        key: None,
        format: Format::Text,
        turns,
    });
    read
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
