//! LoCoMo (`../shared/bench/locomo/locomo10.json`) as the harvest and chat
//! benchmarks read it: conversations of sessions of turns, questions with
//! their evidence turns, and what "represented" means for a turn.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

pub struct Turn {
    pub speaker: String,
    /// The text, with a shared photo's caption.
    pub text: String,
}

pub struct Session {
    pub n: usize,
    pub turns: Vec<Turn>,
}

pub struct Conversation {
    pub id: String,
    pub sessions: Vec<Session>,
}

impl Session {
    /// `Speaker: text` a line.
    pub fn text(&self) -> String {
        self.turns
            .iter()
            .map(|t| format!("{}: {}\n", t.speaker, t.text))
            .collect()
    }
}

pub struct Question {
    pub conversation: String,
    pub text: String,
    pub evidence: Vec<String>,
}

pub struct Locomo {
    pub conversations: Vec<Conversation>,
    /// Questions of LoCoMo's categories 1–4 that name their evidence.
    pub questions: Vec<Question>,
    /// `conversation/dia_id` → the turn's text.
    pub turns: HashMap<String, String>,
}

pub fn load(file: &Path) -> Result<Locomo, String> {
    let data: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?,
    )
    .map_err(|e| e.to_string())?;
    let mut locomo = Locomo {
        conversations: vec![],
        questions: vec![],
        turns: HashMap::new(),
    };
    for sample in &data {
        let id = sample["sample_id"].as_str().unwrap_or("conv").to_string();
        let conv = &sample["conversation"];
        let mut sessions = Vec::new();
        for n in 1.. {
            let Some(list) = conv[format!("session_{n}")].as_array() else {
                break;
            };
            let mut turns = Vec::new();
            for turn in list {
                let mut text = turn["text"].as_str().unwrap_or("").replace('\n', " ");
                if let Some(caption) = turn["blip_caption"].as_str() {
                    text.push_str(&format!(" [shares a photo: {caption}]"));
                }
                let dia_id = turn["dia_id"].as_str().unwrap_or("").to_string();
                locomo.turns.insert(format!("{id}/{dia_id}"), text.clone());
                turns.push(Turn {
                    speaker: turn["speaker"].as_str().unwrap_or("Someone").to_string(),
                    text,
                });
            }
            sessions.push(Session { n, turns });
        }
        for qa in sample["qa"].as_array().into_iter().flatten() {
            let category = qa["category"].as_u64().unwrap_or(0);
            if !(1..=4).contains(&category) {
                continue;
            }
            let evidence = evidence(qa);
            if evidence.is_empty() {
                continue;
            }
            locomo.questions.push(Question {
                conversation: id.clone(),
                text: qa["question"].as_str().unwrap_or_default().to_string(),
                evidence,
            });
        }
        locomo.conversations.push(Conversation { id, sessions });
    }
    Ok(locomo)
}

/// A question's evidence turns (`D<session>:<turn>`), sorted and unique:
/// malformed evidence ("D8:6; D9:17") is split, empty strings dropped.
pub fn evidence(qa: &Value) -> Vec<String> {
    qa["evidence"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e.as_str())
        .flat_map(|e| e.split([';', ',']))
        .map(|e| e.trim().to_string())
        .filter(|e| !e.is_empty())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The session number of an evidence turn (`D8:6` → 8).
pub fn session_of(turn: &str) -> Option<usize> {
    turn.strip_prefix('D')?.split(':').next()?.parse().ok()
}

const STOP: [&str; 30] = [
    "the", "and", "for", "with", "that", "this", "you", "your", "are", "was", "were", "have",
    "has", "had", "but", "not", "it's", "i'm", "what", "how", "about", "from", "they", "them",
    "there", "been", "just", "really", "that's", "too",
];

pub fn content_words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(str::to_lowercase)
        .filter(|w| w.len() > 2 && !STOP.contains(&w.as_str()))
        .collect()
}

/// Half of the turn's content words are in what was given.
pub fn represented(turn: &str, given: &HashSet<String>) -> bool {
    let words = content_words(turn);
    !words.is_empty() && words.iter().filter(|w| given.contains(*w)).count() * 2 >= words.len()
}

/// The share of a question's evidence turns represented in `given`.
pub fn recall(locomo: &Locomo, question: &Question, given: &str) -> f64 {
    let words = content_words(given);
    let found = question
        .evidence
        .iter()
        .filter(|e| {
            locomo
                .turns
                .get(&format!("{}/{e}", question.conversation))
                .is_some_and(|turn| represented(turn, &words))
        })
        .count();
    found as f64 / question.evidence.len() as f64
}

/// Passages in order, as many as fit `budget` tokens (characters / 4).
pub fn fill(passages: &[String], budget: usize) -> String {
    let mut used = 0;
    let mut out = String::new();
    for p in passages {
        let tokens = p.chars().count().div_ceil(4);
        if used + tokens > budget {
            break;
        }
        used += tokens;
        out.push_str(p);
        out.push('\n');
    }
    out
}
