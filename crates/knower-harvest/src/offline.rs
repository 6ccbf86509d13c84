//! The offline engine's harvest: stated rules, no model. It says so in
//! every report.
//!
//! What is read: the person's turns, and of an assistant's turns its last
//! before the person speaks again (an agent's earlier messages are its
//! working: they give only facts, after those of its conclusions, while
//! room is left). Sentences that do not stand alone — ending in `:`, `…` or
//! a dash — and table rows (meaningless without their header) are never
//! items; neither is an assistant's narration of its own work ("Let me…",
//! "Now…", "I'll…", "I need to…").
//!
//! What each category takes, in the order the rules run (a sentence goes
//! to the first category that takes it):
//!
//! 1. **Decisions**: a sentence saying one was made — "we decided",
//!    "decided to", "decision:", "let's go with", "we'll go with",
//!    "agreed to", "we're going with" — or a person settling something:
//!    adopting a course ("Let's …") or stating how things are to be
//!    ("always", "never", "from now on", "going forward", "must",
//!    "should"). A short decision carries the question the other speaker
//!    asked just before it (`asked: …`), so it still says what was decided.
//! 2. **Done tasks**: a checked box (`- [x]`), "done:", or a sentence that
//!    opens with "fixed", "finished", "completed", "I fixed", "I've fixed",
//!    "I finished", "I've finished", "I completed", "I've completed".
//! 3. **Open tasks**: an unchecked box (`- [ ]`), "TODO", or a sentence with
//!    "need to", "needs to", "have to", "remember to", "don't forget to".
//!    A task said again in other words (most of the same words, besides
//!    these markers) is one task.
//! 4. **Open questions**: a person's sentence ending in `?` of four words or
//!    more that the conversation does not answer (a later turn of another
//!    speaker shares half of its content words, or the next one is a
//!    statement of eight words or more that does not put it off: "don't
//!    know", "not sure", "no idea", "let me check", "good question",
//!    "later"). An assistant's questions offer or check; they are not kept.
//! 5. **Playbooks**: a shell command that worked and was run again with the
//!    same words (a way of working, not what one session did), or a fenced
//!    `sh`/`bash`/`shell`/`console` block that a later turn of another
//!    speaker says worked ("worked", "works", "that did it", "fixed it",
//!    "success", "perfect", "thanks") without a failure word ("error",
//!    "fail", "didn't work", "doesn't work", "still"). Commands that only
//!    look (`ls`, `cat`, `grep`, `git status`, `sed -n`…) and one-offs — a
//!    path under `/tmp`, a commit or object id, a device serial, a message
//!    of their own — are left out.
//! 6. **File notes**: a sentence naming an absolute path (`/srv/app/x.rs`,
//!    `~/notes.md`) and saying something about it (four words or more
//!    besides it).
//! 7. **Facts**: a declarative sentence of 4 to 60 words that holds a
//!    number or a date and either names something (a capitalised word after
//!    its first, or an identifier) or counts something ("389 tests").
//!
//! A sentence in the first person from a named speaker keeps the name
//! (`Caroline: I have 3 kids.`). Each item keeps the day its turn was
//! said. Each conversation gives at most 12 facts, 6 decisions, 8 open and
//! 8 done tasks, 6 questions, 4 playbooks and 6 file notes.

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

/// Openings with which an assistant says what it is about to do or is
/// doing: its working, not what the conversation settled.
const NARRATION: [&str; 12] = [
    "let me ",
    "let's ",
    "lets ",
    "now let",
    "now i",
    "now ",
    "i'll ",
    "i will ",
    "i'm going to ",
    "i need to ",
    "i see",
    "next,",
];
/// A person settling something: adopting a course ("Let's …").
const ADOPTING: [&str; 2] = ["let's ", "lets "];
/// A person stating how things are to be from now on: a standing
/// decision (a rule, a requirement).
const NORMATIVE: [&str; 7] = [
    " always ",
    " never ",
    "from now on",
    "going forward",
    " must ",
    " should ",
    " shouldn't ",
];

pub fn extract(conversation: &Conversation) -> Harvested {
    let mut h = Harvested::default();
    let mut used: HashSet<String> = HashSet::new();
    let turns = &conversation.turns;
    // Commands run and worked, with how often: one run is a one-off, the
    // same command run and working again is a way of working.
    let mut runs: Vec<(&str, usize)> = Vec::new();
    let concluding = concluding(turns);

    for (i, turn) in turns.iter().enumerate() {
        if let Some(ran) = &turn.ran
            && ran.ok
        {
            match runs.iter_mut().find(|(c, _)| *c == ran.command) {
                Some((_, n)) => *n += 1,
                None => runs.push((&ran.command, 1)),
            }
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
        let machine = turn.speaker == "Assistant";
        // An agent's messages before its last one of a round are its
        // working; what it concluded is in the last. What it found while
        // working may still be a fact: those come after, if room is left.
        if machine && !concluding[i] {
            continue;
        }
        for sentence in sentences(&prose) {
            let lower = sentence.to_lowercase();
            let stated = || Item {
                statement: attribute(turn, &sentence),
                detail: String::new(),
                day: turn.day.clone(),
            };
            if used.contains(&lower) || dangling(&sentence) {
                continue;
            }
            if machine && NARRATION.iter().any(|n| lower.starts_with(n)) {
                continue;
            }
            let asked = asked_before(turns, i);
            let spaced = format!(" {lower} ");
            let settles = !machine
                && !sentence.ends_with('?')
                && (ADOPTING.iter().any(|a| lower.starts_with(a))
                    || NORMATIVE.iter().any(|n| spaced.contains(n)));
            let taken = if DECIDED.iter().any(|d| lower.contains(d)) || settles {
                // A decision carries what was being decided.
                let detail = asked
                    .filter(|q| {
                        sentence.split_whitespace().count() <= 12
                            && !lower.contains(&q.to_lowercase())
                    })
                    .map(|q| format!("asked: {q}"))
                    .unwrap_or_default();
                push(&mut h.decisions, MAX_DECISIONS, Item { detail, ..stated() })
            } else if lower.starts_with("[x]")
                || lower.starts_with("done:")
                || DONE_OPENINGS.iter().any(|o| lower.starts_with(o))
            {
                push_task(&mut h, true, task(&sentence, turn))
            } else if lower.starts_with("[ ]")
                || lower.starts_with("todo")
                || (!sentence.ends_with('?') && TO_DO.iter().any(|t| lower.contains(t)))
            {
                push_task(&mut h, false, task(&sentence, turn))
            } else if sentence.ends_with('?') {
                // An assistant's questions offer or check; the person's
                // are what may stay open.
                !machine
                    && sentence.split_whitespace().count() >= 4
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
                used.insert(lower);
            }
        }
    }
    for (i, turn) in turns.iter().enumerate() {
        if turn.speaker != "Assistant" || concluding[i] {
            continue;
        }
        let (prose, _) = split_code(&turn.text);
        for sentence in sentences(&prose) {
            let lower = sentence.to_lowercase();
            if used.contains(&lower)
                || dangling(&sentence)
                || NARRATION.iter().any(|n| lower.starts_with(n))
                || sentence.ends_with('?')
                || !is_fact(&sentence)
            {
                continue;
            }
            let item = Item {
                statement: sentence.clone(),
                detail: String::new(),
                day: turn.day.clone(),
            };
            if push(&mut h.facts, MAX_FACTS, item) {
                used.insert(lower);
            }
        }
    }
    for (command, n) in runs {
        if n >= 2
            && h.playbooks.len() < MAX_PLAYBOOKS
            && worth_a_playbook(command)
            && !h.playbooks.iter().any(|p| p.steps == command)
        {
            h.playbooks.push(Playbook {
                name: command_name(command),
                steps: command.to_string(),
            });
        }
    }
    h.clean()
}

/// For each turn, whether it is an assistant's last message before the
/// person speaks again (or the conversation ends).
fn concluding(turns: &[Turn]) -> Vec<bool> {
    let mut out = vec![false; turns.len()];
    let mut last_said = true;
    for (i, turn) in turns.iter().enumerate().rev() {
        if turn.text.trim().is_empty() {
            continue;
        }
        if turn.speaker == "Assistant" {
            out[i] = last_said;
            last_said = false;
        } else {
            last_said = true;
        }
    }
    out
}

/// The question the other speaker asked last before turn `i`, if their
/// last turn asked one.
fn asked_before(turns: &[Turn], i: usize) -> Option<String> {
    let speaker = &turns[i].speaker;
    let before = turns[..i]
        .iter()
        .rev()
        .find(|t| &t.speaker != speaker && !t.text.trim().is_empty())?;
    let (prose, _) = split_code(&before.text);
    sentences(&prose)
        .into_iter()
        .rev()
        .find(|s| s.ends_with('?'))
}

/// A sentence that does not stand on its own: it introduces what follows
/// (`…:`), or it was cut off (`…`).
fn dangling(sentence: &str) -> bool {
    let end = sentence.trim_end_matches(['*', ' ']);
    end.ends_with(':') || end.ends_with('…') || end.ends_with("...") || end.ends_with('—')
}

/// Adds a task unless it is one already there (open or done), said again
/// in other words: most of the same content words.
fn push_task(h: &mut Harvested, done: bool, item: Item) -> bool {
    // What the task is about, without the words that mark it as one.
    let about = |text: &str| {
        let mut words = content_words(text);
        for cue in TO_DO
            .iter()
            .chain(&DONE_OPENINGS)
            .flat_map(|c| c.split_whitespace())
        {
            words.remove(cue);
        }
        words
    };
    let words = about(&item.statement);
    let again = h.tasks_open.iter().chain(&h.tasks_done).any(|t| {
        let theirs = about(&t.statement);
        let shared = words.intersection(&theirs).count();
        shared * 5 >= words.len().max(theirs.len()) * 4
    });
    if again || words.is_empty() {
        return false;
    }
    push(
        if done {
            &mut h.tasks_done
        } else {
            &mut h.tasks_open
        },
        MAX_TASKS,
        item,
    )
}

fn push(list: &mut Vec<Item>, max: usize, item: Item) -> bool {
    if list.len() >= max || list.iter().any(|i| i.statement == item.statement) {
        return false;
    }
    list.push(item);
    true
}

/// A task's statement without its marker.
fn task(sentence: &str, turn: &Turn) -> Item {
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
        day: turn.day.clone(),
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
        let line = line.trim();
        // A table row means nothing without its header.
        if line.starts_with('|') {
            continue;
        }
        let line = line.trim_start_matches(['-', '*', '>', ' ']);
        let line = match line.split_once(". ") {
            Some((number, rest))
                if !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()) =>
            {
                rest
            }
            _ => line,
        };
        let plain = line.replace("**", "");
        let line = plain.as_str();
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
    let covers = |text: &str| {
        let said = content_words(text);
        !asked.is_empty() && asked.iter().filter(|w| said.contains(*w)).count() * 2 >= asked.len()
    };
    // Answered later in the conversation counts too.
    if turns[i + 1..]
        .iter()
        .any(|t| t.speaker != turns[i].speaker && covers(&t.text))
    {
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

/// Whether commands would be worth running again: not only looking
/// (`ls`, `git status`…), and not a one-off — a command is one when it
/// carries what belongs to one occasion: a path under `/tmp`, a commit or
/// object id, a device serial, a line range, or a message of its own
/// (`git commit -am "…"`).
fn worth_a_playbook(steps: &str) -> bool {
    let mut words = steps.split_whitespace();
    let first = words.next().unwrap_or("");
    let second = words.next().unwrap_or("");
    let looks = ONLY_LOOKS.contains(&first)
        || (first == "git" && matches!(second, "status" | "log" | "diff" | "show"))
        || (first == "sed" && second == "-n");
    steps.trim().len() >= 8 && !looks && !one_off(steps)
}

fn one_off(steps: &str) -> bool {
    let quoted_message = steps
        .split(['"', '\''])
        .skip(1)
        .step_by(2)
        .any(|q| q.split_whitespace().count() >= 3);
    quoted_message
        || steps.contains("/tmp/")
        || steps.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
            let hex_id = w.len() >= 7
                && w.chars().all(|c| c.is_ascii_hexdigit())
                && w.chars().any(|c| c.is_ascii_digit())
                && w.chars().any(|c| c.is_ascii_alphabetic());
            let serial = w.len() >= 8
                && w.chars().any(|c| c.is_ascii_digit())
                && w.chars().filter(|c| c.is_ascii_uppercase()).count() >= 2
                && !w.chars().any(|c| c.is_ascii_lowercase());
            hex_id || serial
        })
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
    if !(4..=60).contains(&words.len()) || sentence.ends_with('?') || sentence.ends_with('!') {
        return false;
    }
    let has_number = sentence.chars().any(|c| c.is_ascii_digit());
    // "389 tests", "248 transcripts": a count of something.
    let counts_something = words.windows(2).any(|w| {
        w[0].trim_matches(|c: char| !c.is_alphanumeric())
            .chars()
            .all(|c| c.is_ascii_digit() || c == ',')
            && w[0].chars().any(|c| c.is_ascii_digit())
            && w[1].chars().next().is_some_and(char::is_lowercase)
    });
    let names_something = words.iter().skip(1).any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
        w.chars().next().is_some_and(char::is_uppercase) && w != "I"
            || w.contains('_')
            || (w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(char::is_alphabetic))
    });
    has_number && (names_something || counts_something)
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

    fn ran(command: &str, ok: bool) -> Turn {
        Turn {
            ran: Some(Ran {
                command: command.into(),
                ok,
            }),
            ..Turn::said("Assistant", "")
        }
    }

    #[test]
    fn a_playbook_is_a_command_that_worked_again_never_a_one_off() {
        let c = conversation(vec![
            Turn::said("User", "Make the tests pass."),
            ran("cargo test --workspace", false),
            ran("cargo test --workspace", true),
            ran("cargo test --workspace", true),
            ran("git commit -am \"fix the flaky geocoder test\"", true),
            ran("git commit -am \"fix the flaky geocoder test\"", true),
            ran("rm /tmp/atlas-build/cache.bin", true),
            ran("rm /tmp/atlas-build/cache.bin", true),
            ran("adb -s R58M42ABCDE install app.apk", true),
            ran("adb -s R58M42ABCDE install app.apk", true),
            ran("git show 3bb8701f", true),
            ran("git show 3bb8701f", true),
            ran("sed -n '272,340p' app.js", true),
            ran("sed -n '272,340p' app.js", true),
            ran("mkdir -p assets/pieces", true),
        ]);
        let h = extract(&c);
        let steps: Vec<&str> = h.playbooks.iter().map(|p| p.steps.as_str()).collect();
        assert_eq!(steps, ["cargo test --workspace"]);
    }

    #[test]
    fn a_decision_carries_its_question_and_working_is_not_kept() {
        let c = conversation(vec![
            Turn::said("User", "The alarm fires late on Android 14."),
            Turn::said("Assistant", "Let me look at the scheduler."),
            Turn::said(
                "Assistant",
                "Doze defers inexact alarms. Should we use setExactAndAllowWhileIdle or inexactAllowWhileIdle?",
            ),
            Turn::said("User", "Let's go with inexactAllowWhileIdle."),
            Turn::said(
                "Assistant",
                "Done. I need to check the manifest next. Want me to commit?",
            ),
            Turn::said(
                "User",
                "We should always run the alarm tests before a release.",
            ),
        ]);
        let h = extract(&c);
        assert_eq!(
            h.decisions[0].statement,
            "Let's go with inexactAllowWhileIdle."
        );
        assert_eq!(
            h.decisions[0].detail,
            "asked: Should we use setExactAndAllowWhileIdle or inexactAllowWhileIdle?"
        );
        assert_eq!(
            h.decisions[1].statement,
            "We should always run the alarm tests before a release."
        );
        // The agent's working ("Let me…", "I need to…") and its offers
        // ("Want me to…?") are not items.
        assert!(h.tasks_open.is_empty(), "{h:?}");
        assert!(h.questions.is_empty(), "{h:?}");
    }

    #[test]
    fn a_task_said_twice_is_one_task_and_a_dangling_sentence_is_none() {
        let c = conversation(vec![
            Turn::said(
                "User",
                "We need to rotate the API keys. Remember to rotate the API keys. On Android 14 that needs the…\nThe plan:",
            ),
            Turn::said("Assistant", "Noted."),
        ]);
        let h = extract(&c);
        assert_eq!(h.tasks_open.len(), 1, "{h:?}");
        assert!(h.facts.is_empty() && h.decisions.is_empty(), "{h:?}");
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
