//! `knower-bench chat --recall SET [--recall SET]… [--verbose]`: does the
//! offline chat recall its own conclusions? Each set is a file of scripted
//! conversations (see `crates/knower-chat/tests/recall/tune.txt`): notes
//! written to a fresh vault, the user's messages exchanged one by one, and
//! recall questions asked along the way, each with the words its reply's
//! first conclusion must hold (or the open efforts its first list must
//! name). The share of questions answered so is the measure (issue 71).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use knower_chat::{Chat, Settings};
use knower_vault::{Author, Vault};

/// One scripted conversation.
#[derive(Default)]
struct Conversation {
    name: String,
    notes: Vec<(String, String)>,
    steps: Vec<Step>,
}

enum Step {
    Say(String),
    /// A question and what its reply must lead with.
    Ask(String, Expect),
}

enum Expect {
    /// The first conclusion holds these words.
    Leads(String),
    /// The first list names each of these open efforts.
    Open(Vec<String>),
}

/// How a set did: questions asked, and those whose reply led right.
pub struct Score {
    pub asked: usize,
    pub right: usize,
    pub misses: Vec<String>,
}

fn parse(text: &str) -> Result<Vec<Conversation>, String> {
    let mut conversations: Vec<Conversation> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || (line.starts_with('#') && !line.starts_with("## ")) {
            continue;
        }
        if let Some(name) = line.strip_prefix("## conversation ") {
            conversations.push(Conversation {
                name: name.to_string(),
                ..Conversation::default()
            });
            continue;
        }
        let Some(current) = conversations.last_mut() else {
            return Err(format!("line {}: before any conversation", n + 1));
        };
        if let Some(note) = line.strip_prefix("note ") {
            let (path, text) = note
                .split_once(": ")
                .ok_or(format!("line {}: note PATH: TEXT", n + 1))?;
            current
                .notes
                .push((path.to_string(), text.replace("\\n", "\n") + "\n"));
        } else if let Some(message) = line.strip_prefix("> ") {
            current.steps.push(Step::Say(message.to_string()));
        } else if let Some(ask) = line.strip_prefix("? ") {
            let (question, expected) = ask
                .split_once(" => ")
                .ok_or(format!("line {}: ? QUESTION => WORDS", n + 1))?;
            let expect = match expected.strip_prefix("open: ") {
                Some(list) => Expect::Open(list.split(" | ").map(str::to_lowercase).collect()),
                None => Expect::Leads(expected.to_lowercase()),
            };
            current.steps.push(Step::Ask(question.to_string(), expect));
        } else {
            return Err(format!("line {}: not understood: {line}", n + 1));
        }
    }
    Ok(conversations)
}

/// The first list of a reply: its first run of `- ` lines.
fn first_list(reply: &str) -> Vec<String> {
    reply
        .lines()
        .skip_while(|l| !l.starts_with("- "))
        .take_while(|l| l.starts_with("- "))
        .map(str::to_lowercase)
        .collect()
}

pub fn score(set: &Path) -> Result<Score, String> {
    let text = std::fs::read_to_string(set).map_err(|e| format!("{}: {e}", set.display()))?;
    let mut score = Score {
        asked: 0,
        right: 0,
        misses: Vec::new(),
    };
    for conversation in parse(&text)? {
        let dir = tempfile::TempDir::new().map_err(|e| e.to_string())?;
        let author = Author::new("bench", "recall");
        let (vault, _) = Vault::init(dir.path(), &author).map_err(|e| e.to_string())?;
        for (path, text) in &conversation.notes {
            vault
                .write(path, text, &author)
                .map_err(|e| e.to_string())?;
        }
        let vault = Arc::new(vault);
        let (index, agents) = crate::chat::offline(&vault)?;
        let chat = Chat::with(vault, index.clone(), agents, Settings::default());
        let session = format!("recall-{}", conversation.name);
        let cancel = AtomicBool::new(false);
        for step in &conversation.steps {
            let message = match step {
                Step::Say(m) | Step::Ask(m, _) => m,
            };
            let exchange = chat
                .exchange(&session, message, &cancel, &mut |_| {})
                .map_err(|e| e.to_string())?;
            // The index follows the vault's changes before the next message.
            index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
            let Step::Ask(question, expect) = step else {
                continue;
            };
            score.asked += 1;
            let list = first_list(&exchange.assistant);
            let right = match expect {
                Expect::Leads(words) => list.first().is_some_and(|l| l.contains(words.as_str())),
                Expect::Open(efforts) => efforts
                    .iter()
                    .all(|e| list.iter().any(|l| l.contains(e.as_str()))),
            };
            if right {
                score.right += 1;
            } else {
                score.misses.push(format!(
                    "{}: {question}\n{}",
                    conversation.name, exchange.assistant
                ));
            }
        }
    }
    Ok(score)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let sets: Vec<&String> = args
        .windows(2)
        .filter(|w| w[0] == "--recall")
        .map(|w| &w[1])
        .collect();
    let verbose = args.iter().any(|a| a == "--verbose");
    println!("\n### Chat recall (offline engine): the reply leads with the right conclusion\n");
    println!("| set | questions | led with the right conclusion | share |");
    println!("|---|---|---|---|");
    for set in sets {
        let path = Path::new(set);
        let score = score(path)?;
        println!(
            "| {} | {} | {} | {:.2} |",
            path.file_name().unwrap_or_default().to_string_lossy(),
            score.asked,
            score.right,
            score.right as f64 / score.asked.max(1) as f64
        );
        if verbose {
            for miss in &score.misses {
                eprintln!("--- missed {miss}");
            }
        }
    }
    Ok(())
}
