//! The offline engine's harvest: stated rules, no model. It says so in
//! every report. What each category takes, in the order the rules run (a
//! sentence goes to the first category that takes it):
//!
//! 1. **Decisions**: a sentence saying one was made — "we decided",
//!    "decided to", "decision:", "let's go with", "we'll go with",
//!    "agreed to", "we're going with".
//! 2. **Done tasks**: a checked box (`- [x]`), "done:", or a sentence that
//!    opens with "fixed", "finished", "completed", "I fixed", "I've fixed",
//!    "I finished", "I've finished", "I completed", "I've completed".
//! 3. **Open tasks**: an unchecked box (`- [ ]`), "TODO", or a sentence with
//!    "need to", "needs to", "have to", "remember to", "don't forget to".
//! 4. **Open questions**: a sentence ending in `?` of four words or more
//!    that the next turn of another speaker does not answer (an answer
//!    shares half of the question's content words, or is a statement of
//!    eight words or more that does not put it off: "don't know", "not
//!    sure", "no idea", "let me check", "good question", "later").
//! 5. **Playbooks**: a shell command that was run and worked (a Claude Code
//!    `Bash` call whose result was no error), or a fenced `sh`/`bash`/
//!    `shell`/`console` block that a later turn of another speaker says
//!    worked ("worked", "works", "that did it", "fixed it", "success",
//!    "perfect", "thanks") without a failure word ("error", "fail", "didn't
//!    work", "doesn't work", "still"). Trivial commands that only look
//!    (`ls`, `cat`, `grep`…) are left out.
//! 6. **File notes**: a sentence naming an absolute path (`/srv/app/x.rs`,
//!    `~/notes.md`) and saying something about it (four words or more
//!    besides it).
//! 7. **Facts**: a declarative sentence of 6 to 60 words that names
//!    something (a capitalised word after its first, or an identifier) and
//!    holds a number or a date.
//!
//! A sentence in the first person from a named speaker keeps the name
//! (`Caroline: I have 3 kids.`). Each conversation gives at most 12 facts,
//! 6 decisions, 8 open and 8 done tasks, 6 questions, 4 playbooks and 6
//! file notes.

use std::collections::HashSet;

use crate::conversation::{Conversation, Turn};
use crate::items::{FileNote, Harvested, Item, Playbook};

const MAX_FACTS: usize = 12;
const MAX_DECISIONS: usize = 6;
const MAX_TASKS: usize = 8;
const MAX_QUESTIONS: usize = 6;
const MAX_PLAYBOOKS: usize = 4;
const MAX_FILES: usize = 6;

const DECIDED: [&str; 8] = [
    "we decided",
    "decided to",
    "decision:",
    "let's go with",
    "lets go with",
    "we'll go with",
    "agreed to",
    "we're going with",
];
const DONE_OPENINGS: [&str; 9] = [
    "fixed ",
    "finished ",
    "completed ",
    "i fixed ",
    "i've fixed ",
    "i finished ",
    "i've finished ",
    "i completed ",
    "i've completed ",
];
const TO_DO: [&str; 5] = [
    "need to ",
    "needs to ",
    "have to ",
    "remember to ",
    "don't forget to ",
];
const WORKED: [&str; 7] = [
    "worked",
    "works",
    "that did it",
    "fixed it",
    "success",
    "perfect",
    "thanks",
];
const FAILED: [&str; 5] = ["error", "fail", "didn't work", "doesn't work", "still"];
const PUT_OFF: [&str; 6] = [
    "don't know",
    "not sure",
    "no idea",
    "let me check",
    "good question",
    "later",
];
const ONLY_LOOKS: [&str; 14] = [
    "ls", "cat", "head", "tail", "grep", "rg", "find", "pwd", "echo", "which", "wc", "less",
    "tree", "cd",
];
const STOP: [&str; 40] = [
    "the", "a", "an", "and", "or", "but", "is", "are", "was", "were", "be", "to", "of", "in", "on",
    "at", "for", "with", "it", "this", "that", "what", "how", "why", "when", "where", "who", "do",
    "does", "did", "you", "i", "we", "my", "your", "can", "could", "should", "would", "will",
];

pub fn extract(conversation: &Conversation) -> Harvested {
    let mut h = Harvested::default();
    let mut used: HashSet<String> = HashSet::new();
    let turns = &conversation.turns;
    for (i, turn) in turns.iter().enumerate() {
        if let Some(ran) = &turn.ran
            && ran.ok
            && h.playbooks.len() < MAX_PLAYBOOKS
            && worth_a_playbook(&ran.command)
            && !h.playbooks.iter().any(|p| p.steps == ran.command)
        {
            h.playbooks.push(Playbook {
                name: command_name(&ran.command),
                steps: ran.command.clone(),
            });
        }
        let (prose, blocks) = split_code(&turn.text);
        for block in blocks {
            if h.playbooks.len() < MAX_PLAYBOOKS && confirmed(turns, i) {
                let steps = block.join("\n");
                if worth_a_playbook(&steps) && !h.playbooks.iter().any(|p| p.steps == steps) {
                    h.playbooks.push(Playbook {
                        name: command_name(&block[0]),
                        steps,
                    });
                }
            }
        }
        for sentence in sentences(&prose) {
            let lower = sentence.to_lowercase();
            let stated = || Item {
                statement: attribute(turn, &sentence),
                detail: String::new(),
            };
            let key = lower.clone();
            if used.contains(&key) {
                continue;
            }
            let taken = if DECIDED.iter().any(|d| lower.contains(d)) {
                push(&mut h.decisions, MAX_DECISIONS, stated())
            } else if lower.starts_with("[x]")
                || lower.starts_with("done:")
                || DONE_OPENINGS.iter().any(|o| lower.starts_with(o))
            {
                push(&mut h.tasks_done, MAX_TASKS, task(&sentence))
            } else if lower.starts_with("[ ]")
                || lower.starts_with("todo")
                || (!sentence.ends_with('?') && TO_DO.iter().any(|t| lower.contains(t)))
            {
                push(&mut h.tasks_open, MAX_TASKS, task(&sentence))
            } else if sentence.ends_with('?') {
                sentence.split_whitespace().count() >= 4
                    && !answered(turns, i, &sentence)
                    && push(&mut h.questions, MAX_QUESTIONS, stated())
            } else if let Some(path) = absolute_path(&sentence) {
                let rest = sentence.replace(&path, "");
                rest.split_whitespace().count() >= 4 && h.files.len() < MAX_FILES && {
                    h.files.push(FileNote {
                        path,
                        note: sentence.clone(),
                    });
                    true
                }
            } else if is_fact(&sentence) {
                push(&mut h.facts, MAX_FACTS, stated())
            } else {
                false
            };
            if taken {
                used.insert(key);
            }
        }
    }
    h.clean()
}

fn push(list: &mut Vec<Item>, max: usize, item: Item) -> bool {
    if list.len() >= max || list.iter().any(|i| i.statement == item.statement) {
        return false;
    }
    list.push(item);
    true
}

/// A task's statement without its marker.
fn task(sentence: &str) -> Item {
    let mut text = sentence.trim();
    for marker in [
        "[x]", "[X]", "[ ]", "TODO:", "TODO", "todo:", "Done:", "done:", "DONE:",
    ] {
        if let Some(rest) = text.strip_prefix(marker) {
            text = rest.trim_start_matches([':', ' ', '-']);
            break;
        }
    }
    Item {
        statement: text.to_string(),
        detail: String::new(),
    }
}

/// A first-person sentence keeps its speaker's name, so it still means
/// something out of its conversation.
fn attribute(turn: &Turn, sentence: &str) -> String {
    let named = !matches!(turn.speaker.as_str(), "User" | "Assistant" | "Text");
    let first_person = sentence
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .any(|w| {
            matches!(
                w,
                "I" | "I'm" | "I've" | "I'll" | "my" | "My" | "me" | "we" | "We" | "our" | "Our"
            )
        });
    if named && first_person {
        format!("{}: {sentence}", turn.speaker)
    } else {
        sentence.to_string()
    }
}

/// The prose of a turn, and its fenced shell blocks (each a list of
/// command lines).
fn split_code(text: &str) -> (String, Vec<Vec<String>>) {
    let mut prose = String::new();
    let mut blocks = Vec::new();
    let mut current: Option<(bool, Vec<String>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            match current.take() {
                Some((shell, lines)) => {
                    if shell && !lines.is_empty() {
                        blocks.push(lines);
                    }
                }
                None => {
                    let lang = info.trim().to_ascii_lowercase();
                    let shell =
                        matches!(lang.as_str(), "sh" | "bash" | "shell" | "console" | "zsh");
                    current = Some((shell, Vec::new()));
                }
            }
            continue;
        }
        match &mut current {
            Some((_, lines)) => {
                let command = trimmed.trim_start_matches("$ ").trim();
                if !command.is_empty() && !command.starts_with('#') {
                    lines.push(command.to_string());
                }
            }
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
        }
    }
    (prose, blocks)
}

/// Sentences of prose: split at `.`, `!` and `?` followed by a space, and
/// at line breaks; list markers kept off.
fn sentences(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose.lines() {
        let line = line.trim().trim_start_matches(['-', '*', '>', ' ']);
        let mut start = 0;
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        for (k, (at, c)) in chars.iter().enumerate() {
            let end_of_sentence = matches!(c, '.' | '!' | '?')
                && chars
                    .get(k + 1)
                    .is_none_or(|(_, next)| next.is_whitespace());
            if end_of_sentence {
                let s = line[start..at + c.len_utf8()].trim();
                if !s.is_empty() {
                    out.push(s.to_string());
                }
                start = at + c.len_utf8();
            }
        }
        let rest = line[start..].trim();
        if !rest.is_empty() {
            out.push(rest.to_string());
        }
    }
    out
}

fn content_words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() > 2 && !STOP.contains(&w.as_str()))
        .collect()
}

/// Whether the conversation answered it: the next turn of another speaker
/// (that says something) either shares half of its content words, or is a
/// statement of eight words or more that does not put the question off.
fn answered(turns: &[Turn], i: usize, question: &str) -> bool {
    let asked = content_words(question);
    let Some(reply) = turns[i + 1..]
        .iter()
        .find(|t| t.speaker != turns[i].speaker && !t.text.trim().is_empty())
    else {
        return false;
    };
    let said = content_words(&reply.text);
    if !asked.is_empty() && asked.iter().filter(|w| said.contains(*w)).count() * 2 >= asked.len() {
        return true;
    }
    let lower = reply.text.to_lowercase();
    let put_off = PUT_OFF.iter().any(|p| lower.contains(p));
    reply.text.split_whitespace().count() >= 8 && !reply.text.trim_end().ends_with('?') && !put_off
}

/// Whether a later turn of another speaker says the commands of turn `i`
/// worked.
fn confirmed(turns: &[Turn], i: usize) -> bool {
    turns[i + 1..]
        .iter()
        .filter(|t| t.speaker != turns[i].speaker)
        .take(1)
        .any(|t| {
            let lower = t.text.to_lowercase();
            WORKED.iter().any(|w| lower.contains(w)) && !FAILED.iter().any(|f| lower.contains(f))
        })
}

fn worth_a_playbook(steps: &str) -> bool {
    let first = steps.split_whitespace().next().unwrap_or("");
    steps.trim().len() >= 8 && !ONLY_LOOKS.contains(&first)
}

/// A playbook's name: the program and its first argument.
fn command_name(command: &str) -> String {
    command
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// An absolute path in the sentence (`/a/b…` or `~/…`), if any.
fn absolute_path(sentence: &str) -> Option<String> {
    sentence
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | '(' | ')' | ',' | ';' | ':'))
        })
        .map(|w| w.trim_end_matches('.'))
        .find(|w| {
            (w.starts_with('/') && w.matches('/').count() >= 2 && w.len() > 3)
                || (w.starts_with("~/") && w.len() > 3)
        })
        .map(str::to_string)
}

fn is_fact(sentence: &str) -> bool {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    if !(6..=60).contains(&words.len()) || sentence.ends_with('?') || sentence.ends_with('!') {
        return false;
    }
    let has_number = sentence.chars().any(|c| c.is_ascii_digit());
    let names_something = words.iter().skip(1).any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
        w.chars().next().is_some_and(char::is_uppercase) && w != "I"
            || w.contains('_')
            || (w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(char::is_alphabetic))
    });
    has_number && names_something
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{Format, Ran};

    fn conversation(turns: Vec<Turn>) -> Conversation {
        Conversation {
            name: "test".into(),
            date: None,
            source: "/tmp/x".into(),
            key: None,
            format: Format::Text,
            turns,
            omitted: 0,
            folder: None,
        }
    }

    #[test]
    fn each_rule_takes_what_it_says() {
        let c = conversation(vec![
            Turn::said(
                "User",
                "We decided to keep Postgres for the geocoder. TODO: rotate the API keys.",
            ),
            Turn::said(
                "Assistant",
                "The staging cluster has 3 nodes in Frankfurt since March 2024. The config in /etc/atlas/config.toml sets the pool size to 20.\n```sh\ncargo build --release\n```",
            ),
            Turn::said(
                "User",
                "That worked, thanks. I've fixed the flaky test too. Where should the backups live?",
            ),
        ]);
        let h = extract(&c);
        assert_eq!(
            h.decisions[0].statement,
            "We decided to keep Postgres for the geocoder."
        );
        assert_eq!(h.tasks_open[0].statement, "rotate the API keys.");
        assert_eq!(h.questions[0].statement, "Where should the backups live?");
        assert_eq!(
            h.facts[0].statement,
            "The staging cluster has 3 nodes in Frankfurt since March 2024."
        );
        assert_eq!(h.files[0].path, "/etc/atlas/config.toml");
        assert_eq!(h.playbooks[0].steps, "cargo build --release");
        assert_eq!(h.tasks_done[0].statement, "I've fixed the flaky test too.");
    }

    #[test]
    fn an_answered_question_and_a_failed_command_are_not_kept() {
        let c = conversation(vec![
            Turn::said(
                "User",
                "Which port does the tile server use?\n```bash\nmake deploy-tiles\n```",
            ),
            Turn::said("Assistant", "The tile server uses port 8080."),
            Turn::said("User", "Still an error after make deploy-tiles."),
            Turn {
                ran: Some(Ran {
                    command: "cargo test --workspace".into(),
                    ok: false,
                }),
                ..Turn::said("Assistant", "")
            },
            Turn {
                ran: Some(Ran {
                    command: "ls -la".into(),
                    ok: true,
                }),
                ..Turn::said("Assistant", "")
            },
        ]);
        let h = extract(&c);
        assert!(h.questions.is_empty(), "{h:?}");
        assert!(h.playbooks.is_empty(), "{h:?}");
    }

    #[test]
    fn a_named_speaker_stays_with_a_first_person_fact() {
        let c = conversation(vec![
            Turn::said(
                "Caroline",
                "I have been running the Pride 5K for 3 years now.",
            ),
            Turn::said("Melanie", "That is great to hear!"),
        ]);
        let h = extract(&c);
        assert_eq!(
            h.facts[0].statement,
            "Caroline: I have been running the Pride 5K for 3 years now."
        );
    }
}
