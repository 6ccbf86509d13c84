//! `knower-bench chat`: LoCoMo's conversations replayed as chat sessions
//! through the interpreter (the offline engine), one exchange a turn; then,
//! for each question, the context the chat builds for it (a new session:
//! the user comes back later) and how much of the question's evidence it
//! represents when its retrieved memory is held to 1,000 and 2,000 tokens —
//! against the usual chatbot (the last N tokens of the raw log) and against
//! searching the raw log. And the size of the context per turn as a
//! conversation grows.

use std::sync::Arc;
use std::time::Instant;

use knower_agents::{Agents, Engine, Settings as AgentSettings};
use knower_chat::{Chat, Settings};
use knower_index::{Index, Mode, SearchOptions};
use knower_vault::{Author, Vault};

use crate::locomo::{self, fill};

pub fn run(args: &[String]) -> Result<(), String> {
    let data = crate::data_dir(args)?;
    let conversations: usize = crate::option(args, "--conversations", 10)?;
    let locomo = locomo::load(&data.join("locomo/locomo10.json"))?;
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let budgets = [1000usize, 2000];
    // [chat context, last tokens of the log, search of the log] × budget
    let mut recall = [[0.0f64; 2]; 3];
    let mut asked = 0usize;
    let mut growth: Vec<(usize, usize)> = Vec::new();
    let mut replay = std::time::Duration::ZERO;
    let mut exchanges = 0usize;
    let mut artifacts = 0usize;
    for c in locomo.conversations.iter().take(conversations) {
        let dir = temp.path().join(&c.id);
        let (vault, _) =
            Vault::init(&dir, &Author::new("bench", "init")).map_err(|e| e.to_string())?;
        let vault = Arc::new(vault);
        let (index, agents) = offline(&vault)?;
        let chat = Chat::with(
            vault.clone(),
            index.clone(),
            agents.clone(),
            Settings::default(),
        );
        // The replay: each turn an exchange of its session.
        let started = Instant::now();
        let mut n = 0;
        let mut log = String::new();
        for session in &c.sessions {
            let id = format!("{}-session-{:02}", c.id, session.n);
            for turn in &session.turns {
                let said = format!("{}: {}", turn.speaker, turn.text);
                let exchange = chat.record(&id, &said, "").map_err(|e| e.to_string())?;
                log.push_str(&said);
                log.push('\n');
                n += 1;
                if n % 50 == 0 {
                    growth.push((n, exchange.context.tokens));
                }
            }
        }
        replay += started.elapsed();
        exchanges += n;
        artifacts += chat.artifacts().0.len();

        // The raw log, searched: one note a session.
        let raw_dir = temp.path().join(format!("{}-raw", c.id));
        let (raw, _) =
            Vault::init(&raw_dir, &Author::new("bench", "init")).map_err(|e| e.to_string())?;
        let raw = Arc::new(raw);
        let author = Author::new("bench", "session");
        for session in &c.sessions {
            raw.write(
                &format!("log/session-{:02}.md", session.n),
                &session.text(),
                &author,
            )
            .map_err(|e| e.to_string())?;
        }
        let raw_index = Index::open(raw).map_err(|e| e.to_string())?;
        raw_index
            .catch_up(&mut |_, _| {})
            .map_err(|e| e.to_string())?;

        for q in locomo.questions.iter().filter(|q| q.conversation == c.id) {
            asked += 1;
            for (b, budget) in budgets.into_iter().enumerate() {
                // The chat: its memory within the budget (no vault notes
                // here; a new session, so no past exchanges).
                let settings = Settings {
                    artifact_tokens: budget,
                    passage_tokens: 0,
                    ..Settings::default()
                };
                let bounded = Chat::with(vault.clone(), index.clone(), agents.clone(), settings);
                let context = bounded.context_for("later", &q.text);
                recall[0][b] += locomo::recall(&locomo, q, &context.system);
                // The usual chatbot: the last `budget` tokens of the log.
                let chars: Vec<char> = log.chars().collect();
                let tail: String = chars[chars.len().saturating_sub(budget * 4)..]
                    .iter()
                    .collect();
                recall[1][b] += locomo::recall(&locomo, q, &tail);
                // Searching the raw log.
                let hits = raw_index
                    .search(
                        &q.text,
                        &SearchOptions {
                            mode: Mode::Fast,
                            scope: None,
                            limit: 60,
                        },
                    )
                    .map(|r| r.hits.into_iter().map(|h| h.text).collect::<Vec<_>>())
                    .unwrap_or_default();
                recall[2][b] += locomo::recall(&locomo, q, &fill(&hits, budget));
            }
        }
    }
    let n = asked.max(1) as f64;
    println!(
        "\n### Chat (offline engine) on LoCoMo: {} conversations replayed, {exchanges} turns as exchanges, {asked} questions of categories 1–4\n",
        conversations.min(locomo.conversations.len())
    );
    println!("| measure | value |");
    println!("|---|---|");
    println!(
        "| replay through the interpreter | {:.1} s, {:.0} exchanges/s, {artifacts} artifacts |",
        replay.as_secs_f64(),
        exchanges as f64 / replay.as_secs_f64()
    );
    println!("\n| evidence represented | @1000 tokens | @2000 tokens |");
    println!("|---|---|---|");
    for (name, row) in [
        ("chat context (its memory, retrieved for the question)", 0),
        ("the usual chatbot (the last N tokens of the log)", 1),
        ("searching the raw log (BM25 passages)", 2),
    ] {
        println!(
            "| {name} | {:.3} | {:.3} |",
            recall[row][0] / n,
            recall[row][1] / n
        );
    }
    println!("\n| exchanges so far | context tokens (largest seen) |");
    println!("|---|---|");
    let mut marks: Vec<usize> = growth.iter().map(|(k, _)| *k).collect();
    marks.sort();
    marks.dedup();
    for mark in marks
        .into_iter()
        .filter(|m| [50, 100, 200, 400, 600, 800].contains(m))
    {
        let largest = growth
            .iter()
            .filter(|(k, _)| *k == mark)
            .map(|(_, t)| *t)
            .max()
            .unwrap_or(0);
        println!("| {mark} | {largest} |");
    }
    Ok(())
}

/// The index of `vault`, caught up, and the offline engine's agents on it:
/// what a chat runs on in the benchmarks.
pub(crate) fn offline(vault: &Arc<Vault>) -> Result<(Arc<Index>, Arc<Agents>), String> {
    let index = Index::open(vault.clone()).map_err(|e| e.to_string())?;
    index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
    let agents = Arc::new(Agents::new(
        vault.clone(),
        index.clone(),
        Engine::Offline,
        AgentSettings::default(),
    ));
    Ok((index, agents))
}
