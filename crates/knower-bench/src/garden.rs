//! `knower-bench garden`: the gardener on a fixture web served on
//! 127.0.0.1 (Brave's wire format), built from `fixtures/garden/*.json`:
//! per set, 3 topics × 20 pages — planted facts repeated across pages,
//! contradicting pages, pages of noise, and noise sentences on every page.
//!
//! - precision and recall of the candidates against the planted facts, and
//!   the contradictions found, for the offline engine and for a scripted
//!   model (a loopback server speaking OpenAI's protocol that answers with
//!   the planted facts a page holds and the planted contradictions: it
//!   measures the pipeline around a model — bounds, duplicates, judgement —
//!   not a model);
//! - the seed's efficiency metric: planted facts found per search query;
//! - a cycle's time with the network taken out (everything on loopback,
//!   answered at once), median over the cycles;
//! - `list`, `review` and search with 10,000 facts in the garden.
//!
//! Cycles run one simulated day apart (so cooling passes) until three in a
//! row fetch nothing new.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use knower_garden::model::{Fact, Topic};
use knower_garden::{Garden, NewTopic, Provider, RunOptions, Settings, Status};
use knower_index::{Index, Mode, SearchOptions};
use knower_llm::{Llm, LlmConfig};
use knower_testkit::llm::{Protocol, ScriptedServer, Step, openai};
use knower_testkit::web::{Answer, BRAVE_PATH, Listed, ScriptedWeb};
use knower_vault::{Author, Vault};
use serde::Deserialize;
use serde_json::Value;

use crate::{ms, quantile};

#[derive(Deserialize)]
struct FixtureSet {
    topics: Vec<FixtureTopic>,
}

#[derive(Clone, Deserialize)]
struct FixtureTopic {
    name: String,
    queries: Vec<String>,
    facts: Vec<String>,
    contradictions: Vec<(String, String)>,
    noise: Vec<String>,
}

const PAGES_PER_TOPIC: usize = 20;

pub fn run(args: &[String]) -> Result<(), String> {
    let webs: Vec<String> = args
        .windows(2)
        .filter(|w| w[0] == "--web")
        .map(|w| w[1].clone())
        .collect();
    if !webs.is_empty() {
        let cycles: usize = crate::option(args, "--cycles", 6)?;
        return crate::garden_web::run(&webs, cycles);
    }
    let max_cycles: usize = crate::option(args, "--max-cycles", 60)?;
    let facts: usize = crate::option(args, "--facts", 10_000)?;
    let fixtures = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/garden"));
    println!("knower-bench garden: 3 topics × {PAGES_PER_TOPIC} pages a set, cycles a day apart");
    println!(
        "\n| set | engine | cycles | searches | fetches | candidates | precision | recall | contradictions found | planted facts per search | cycle time (median) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for set in ["dev", "heldout"] {
        let text = std::fs::read_to_string(fixtures.join(format!("{set}.json")))
            .map_err(|e| format!("{set}.json: {e}"))?;
        let fixture: FixtureSet =
            serde_json::from_str(&text).map_err(|e| format!("{set}.json: {e}"))?;
        for engine in [Engine::Offline, Engine::Scripted] {
            let r = measure(&fixture, engine, max_cycles)?;
            println!(
                "| {set} | {} | {} | {} | {} | {} | {:.2} | {:.2} ({}/{}) | {}/{} | {:.2} | {} |",
                engine.name(),
                r.cycles,
                r.searches,
                r.fetches,
                r.candidates,
                r.precision(),
                r.recall(),
                r.found.len(),
                r.planted,
                r.contradictions_found,
                r.contradictions,
                r.found.len() as f64 / r.searches.max(1) as f64,
                ms(r.cycle_median),
            );
        }
    }
    scale(facts)
}

#[derive(Clone, Copy)]
enum Engine {
    Offline,
    Scripted,
}

impl Engine {
    fn name(self) -> &'static str {
        match self {
            Engine::Offline => "offline",
            Engine::Scripted => "scripted model",
        }
    }
}

struct Measured {
    cycles: usize,
    searches: usize,
    fetches: usize,
    candidates: usize,
    /// Candidates that state a planted fact.
    matched: usize,
    found: BTreeSet<String>,
    planted: usize,
    contradictions: usize,
    contradictions_found: usize,
    cycle_median: Duration,
}

impl Measured {
    fn precision(&self) -> f64 {
        self.matched as f64 / self.candidates.max(1) as f64
    }
    fn recall(&self) -> f64 {
        self.found.len() as f64 / self.planted.max(1) as f64
    }
}

/// The fixture web: each topic's 20 pages, 5 listed under each query.
fn fixture_web(fixture: &FixtureSet) -> ScriptedWeb {
    let web = ScriptedWeb::start();
    for (t, topic) in fixture.topics.iter().enumerate() {
        let slug = knower_vault::slug(&topic.name);
        let n = topic.facts.len();
        let noise = |k: usize| &topic.noise[k % topic.noise.len()];
        let mut listed: Vec<Vec<Listed>> = vec![vec![]; topic.queries.len()];
        for k in 0..PAGES_PER_TOPIC {
            let mut sentences: Vec<&str> = vec![noise(k), noise(k + 3)];
            let title = match k {
                // Pages of planted facts, each fact on several pages.
                0..16 => {
                    sentences.insert(1, &topic.facts[k % n]);
                    sentences.push(&topic.facts[(k * 3 + 1) % n]);
                    format!("{} notes {k}", topic.name)
                }
                // A page that contradicts a planted fact.
                16 | 17 => {
                    let (_, against) = &topic.contradictions[(k - 16) % topic.contradictions.len()];
                    sentences.insert(1, against);
                    format!("{} update {k}", topic.name)
                }
                // Pages of noise only.
                _ => {
                    sentences.push(noise(k + 5));
                    format!("{} community {k}", topic.name)
                }
            };
            sentences.push(noise(k + 6));
            let body: String = sentences.iter().map(|s| format!("<p>{s}</p>\n")).collect();
            let path = format!("/{slug}/{k}");
            web.page(
                &path,
                Answer::html(&format!(
                    "<!doctype html><html><head><title>{title}</title></head><body>\
                     <nav><a href=\"/\">Home</a> · <a href=\"/blog\">Blog</a></nav>\
                     <article><h1>{title}</h1>{body}</article><footer>© 2026 Example {t}</footer></body></html>"
                )),
            );
            listed[k * topic.queries.len() / PAGES_PER_TOPIC].push(Listed {
                title,
                url: path,
                snippet: topic.name.clone(),
                ..Listed::default()
            });
        }
        for (query, results) in topic.queries.iter().zip(listed) {
            web.results(query, results);
        }
    }
    web
}

fn measure(fixture: &FixtureSet, engine: Engine, max_cycles: usize) -> Result<Measured, String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let (vault, _) =
        Vault::init(temp.path(), &Author::new("bench", "init")).map_err(|e| e.to_string())?;
    let vault = Arc::new(vault);
    let web = fixture_web(fixture);
    let planted: Vec<String> = fixture
        .topics
        .iter()
        .flat_map(|t| {
            t.facts
                .iter()
                .chain(t.contradictions.iter().map(|(_, b)| b))
                .cloned()
        })
        .collect();
    let pairs: Vec<(String, String)> = fixture
        .topics
        .iter()
        .flat_map(|t| t.contradictions.clone())
        .collect();
    let (llm, _server) = match engine {
        Engine::Offline => (None, None),
        Engine::Scripted => {
            let server = scripted_model(planted.clone(), pairs.clone());
            let file = format!(
                "[llm]\nprovider = \"openai-compatible\"\nmodel = \"scripted\"\nbase_url = \"{}\"\nmax_retries = 0\ntimeout_secs = 10\n",
                server.base_url()
            );
            let config = LlmConfig::resolve(&file, &|_| None)
                .map_err(|e| e.to_string())?
                .ok_or("no model configured")?;
            let llm = Arc::new(Llm::new(config).map_err(|e| e.to_string())?);
            (Some(llm), Some(server))
        }
    };
    let settings = Settings {
        timeout_secs: 5,
        ..Settings::default()
    };
    let at = days_on(&vault, &llm, &web, settings, "2026-11-02T08:00:00Z");
    for topic in &fixture.topics {
        at(0)
            .add_topic(NewTopic {
                name: topic.name.clone(),
                priority: Some(3),
                freshness_days: Some(30),
                queries: topic.queries.clone(),
                feeds: vec![],
            })
            .map_err(|e| e.to_string())?;
    }
    let mut times = Vec::new();
    let mut idle = 0;
    let mut cycles = 0;
    for day in 0..max_cycles as i64 {
        let fetched = web.fetches();
        let started = Instant::now();
        at(day)
            .run(RunOptions::default(), &mut |_| {})
            .map_err(|e| e.to_string())?;
        times.push(started.elapsed());
        cycles += 1;
        idle = if web.fetches() == fetched {
            idle + 1
        } else {
            0
        };
        if idle == 3 {
            break;
        }
    }

    let (topics, _) = knower_garden::store::topics(&vault);
    let facts: Vec<&Fact> = topics.iter().flat_map(|t| &t.facts).collect();
    let mut found = BTreeSet::new();
    let mut matched = 0;
    for fact in &facts {
        if let Some(p) = planted_for(&planted, &fact.statement) {
            matched += 1;
            found.insert(p.clone());
        }
    }
    if std::env::var_os("KNOWER_BENCH_VERBOSE").is_some() {
        let texts: Vec<String> = knower_garden::store::sources(&vault)
            .keys()
            .filter_map(|slug| knower_garden::store::source_text(&vault, slug))
            .collect();
        for p in planted.iter().filter(|p| !found.contains(*p)) {
            let key: String = p.chars().take(30).collect();
            let in_sources = texts.iter().filter(|t| t.contains(&key)).count();
            eprintln!("  missed: {p} (in {in_sources} source notes)");
        }
        for f in facts
            .iter()
            .filter(|f| planted_for(&planted, &f.statement).is_none())
        {
            eprintln!("  extra: {} ({:?})", f.statement, f.status);
        }
        let urls: BTreeSet<String> = web.requests().into_iter().map(|r| r.path).collect();
        eprintln!("  paths requested: {}", urls.len());
    }
    let of = |statement: &str| {
        facts
            .iter()
            .find(|f| planted_for(&planted, &f.statement).is_some_and(|p| p == statement))
    };
    let contradictions_found = pairs
        .iter()
        .filter(|(a, b)| match (of(a), of(b)) {
            (Some(a), Some(b)) => {
                (a.status == Status::Disputed && a.contradicts.contains(&b.id))
                    || (b.status == Status::Disputed && b.contradicts.contains(&a.id))
            }
            _ => false,
        })
        .count();
    Ok(Measured {
        cycles,
        searches: web.searches(),
        fetches: web.fetches(),
        candidates: facts.len(),
        matched,
        found,
        planted: planted.len(),
        contradictions: pairs.len(),
        contradictions_found,
        cycle_median: quantile(&mut times, 0.5),
    })
}

/// The gardener of `vault` on a scripted web (its Brave endpoint), `day`
/// days after `start`: cycles a day apart, so cooling passes.
pub(crate) fn days_on(
    vault: &Arc<Vault>,
    llm: &Option<Arc<Llm>>,
    web: &ScriptedWeb,
    settings: Settings,
    start: &str,
) -> impl Fn(i64) -> Garden {
    let brave = Provider::Brave {
        url: web.url(BRAVE_PATH),
        key: "bench".into(),
    };
    let start: jiff::Timestamp = start.parse().expect("a timestamp");
    let (vault, llm) = (vault.clone(), llm.clone());
    move |day: i64| {
        Garden::with(
            vault.clone(),
            None,
            llm.clone(),
            settings.clone(),
            Ok(brave.clone()),
        )
        .at(start + jiff::SignedDuration::from_hours(24 * day + 1))
    }
}

/// The last message of a chat request the scripted model is sent.
pub(crate) fn last_message(request: &knower_testkit::llm::Recorded) -> String {
    request.body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// A contradiction judgement's request (the gardener's own wording): the
/// new statement, and the known facts as `- id: statement` lines.
pub(crate) fn judgement(asked: &str) -> Option<(&str, &str)> {
    let rest = asked.strip_prefix("New statement: ")?;
    Some(rest.split_once("\n\nKnown facts:\n").unwrap_or((rest, "")))
}

/// Content words, lower-cased.
fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '.')
        .map(|w| w.trim_matches('.').to_lowercase())
        .filter(|w| w.len() > 2 || w.chars().any(|c| c.is_ascii_digit()))
        .collect()
}

/// How well a candidate states a planted fact: it must give the same
/// numbers and hold nearly all the fact's words and not much else; the
/// better of two near statements (a contradicting pair) is the higher.
fn likeness(planted: &str, candidate: &str) -> Option<f64> {
    let (p, c) = (words(planted), words(candidate));
    let numbers = |w: &HashSet<String>| -> BTreeSet<String> {
        w.iter()
            .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
            .cloned()
            .collect()
    };
    let shared = p.intersection(&c).count() as f64;
    let (recall, precision) = (
        shared / p.len().max(1) as f64,
        shared / c.len().max(1) as f64,
    );
    (numbers(&p) == numbers(&c) && recall >= 0.85 && precision >= 0.6).then_some(recall + precision)
}

fn same(planted: &str, candidate: &str) -> bool {
    likeness(planted, candidate).is_some()
}

/// The planted fact a candidate states, if any.
fn planted_for<'p>(planted: &'p [String], candidate: &str) -> Option<&'p String> {
    planted
        .iter()
        .filter_map(|p| likeness(p, candidate).map(|l| (l, p)))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, p)| p)
}

/// The scripted model: the planted facts a page holds, and the planted
/// contradictions among the known facts it is shown.
fn scripted_model(planted: Vec<String>, pairs: Vec<(String, String)>) -> ScriptedServer {
    // As a model reads markdown: escapes undone, spacing ignored.
    let flat = |s: &str| {
        s.replace('\\', "")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    ScriptedServer::answering(Protocol::OpenAiChat, move |request| {
        let asked = last_message(request);
        let answer = if let Some((statement, known)) = judgement(&asked) {
            let contradicted: Vec<&str> = known
                .lines()
                .filter_map(|line| line.strip_prefix("- ")?.split_once(": "))
                .filter(|(_, fact)| {
                    pairs.iter().any(|(a, b)| {
                        (same(a, statement) && same(b, fact))
                            || (same(b, statement) && same(a, fact))
                    })
                })
                .map(|(id, _)| id)
                .collect();
            serde_json::json!({ "contradicts": contradicted })
        } else {
            let page = flat(asked.split_once("<page>").map_or("", |(_, p)| p));
            let facts: Vec<Value> = planted
                .iter()
                .filter(|p| page.contains(&flat(p)))
                .take(10)
                .map(|p| serde_json::json!({"statement": p, "confidence": 0.9}))
                .collect();
            serde_json::json!({ "facts": facts })
        };
        Step::json(openai::text(&answer.to_string()))
    })
}

/// `list`, `review` and search with `count` facts in 20 topics.
fn scale(count: usize) -> Result<(), String> {
    let temp = tempfile::TempDir::new().map_err(|e| e.to_string())?;
    let (vault, _) =
        Vault::init(temp.path(), &Author::new("bench", "init")).map_err(|e| e.to_string())?;
    let vault = Arc::new(vault);
    let topics = 20;
    let subjects = [
        "runtime",
        "scheduler",
        "compiler",
        "database",
        "protocol",
        "browser",
        "kernel",
        "package",
    ];
    let started = Instant::now();
    for t in 0..topics {
        let mut topic = Topic::new(&format!("Topic {t} systems"), 3, 7);
        topic.queries = vec![format!("topic {t} release")];
        for k in 0..count / topics {
            let statement = format!(
                "Topic {t} {} release {k}.{} shipped on day {} with {} improvements.",
                subjects[k % subjects.len()],
                k % 7,
                k % 28 + 1,
                k % 13 + 2
            );
            topic.facts.push(Fact {
                id: Fact::id_for(&topic.slug, &statement),
                statement,
                status: if k % 2 == 0 {
                    Status::Confirmed
                } else {
                    Status::Candidate
                },
                confidence: 0.5 + (k % 5) as f64 / 10.0,
                found: "2026-11-20".into(),
                source: None,
                contradicts: vec![],
                rejected: None,
            });
        }
        vault
            .write(
                &topic.path(),
                &topic.render(),
                &Author::new("bench", "seed"),
            )
            .map_err(|e| e.to_string())?;
    }
    let written = started.elapsed();
    let garden = Garden::with(
        vault.clone(),
        None,
        None,
        Settings::default(),
        Ok(Provider::None),
    );
    let time = |work: &dyn Fn() -> Result<(), String>| -> Result<Duration, String> {
        let mut samples = Vec::new();
        for _ in 0..5 {
            let started = Instant::now();
            work()?;
            samples.push(started.elapsed());
        }
        Ok(quantile(&mut samples, 0.5))
    };
    let list = time(&|| garden.list().map(|_| ()).map_err(|e| e.to_string()))?;
    let review = time(&|| garden.review().map(|_| ()).map_err(|e| e.to_string()))?;
    let index = Index::open(vault.clone()).map_err(|e| e.to_string())?;
    let started = Instant::now();
    index.catch_up(&mut |_, _| {}).map_err(|e| e.to_string())?;
    let indexed = started.elapsed();
    let search = time(&|| {
        index
            .search(
                "scheduler release shipped with improvements",
                &SearchOptions {
                    mode: Mode::Fast,
                    scope: None,
                    limit: 10,
                },
            )
            .map(|_| ())
            .map_err(|e| e.to_string())
    })?;
    let waiting = garden.waiting().map_err(|e| e.to_string())?.items.len();
    println!("\n{count} facts in {topics} topics ({waiting} waiting for review), medians of 5:");
    println!("\n| operation | time |\n|---|---|");
    println!("| writing the topic notes (once) | {} |", ms(written));
    println!("| `garden list` (every topic assessed) | {} |", ms(list));
    println!(
        "| `garden review` (every candidate, numbered and kept) | {} |",
        ms(review)
    );
    println!("| indexing the garden (once) | {} |", ms(indexed));
    println!("| search, fast mode, top 10 | {} |", ms(search));
    Ok(())
}
