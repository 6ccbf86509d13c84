//! A fixture vault with three projects, and agents over it.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use knower_agents::{Agents, Engine, Settings};
use knower_index::Index;
use knower_llm::{Llm, LlmConfig};
use knower_testkit::llm::{Protocol, ScriptedServer};
use knower_vault::{Author, Vault};

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub vault: Arc<Vault>,
    pub index: Arc<Index>,
}

pub const NOTES: &[(&str, &str)] = &[
    (
        "projects/atlas/description.md",
        "# Atlas\n\nAtlas is the mapping service: map tiles, the geocoding API and its Postgres backend.\n",
    ),
    (
        "projects/atlas/state.md",
        "# State\n\nThe geocoding API runs on Postgres 16 with PostGIS.\nTile rendering moved to the new cluster in October.\n",
    ),
    (
        "projects/garden/description.md",
        "# Garden\n\nThe vegetable garden behind the house: tomatoes, beans, compost and the watering schedule.\n",
    ),
    (
        "projects/garden/state.md",
        "# State\n\nTomatoes planted in May; the compost bin is half full.\n",
    ),
    (
        "projects/thesis/description.md",
        "# Thesis\n\nPhD thesis on sparse retrieval: chapters, experiments, advisor meetings.\n",
    ),
];

impl Fixture {
    pub fn new() -> Fixture {
        Fixture::with_search_model("/nonexistent/model")
    }

    /// The fixture with `[search] model` set: a folder holding an
    /// embedding model lets the offline engine route by meaning.
    pub fn with_search_model(model: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let author = Author::new("test", "fixture");
        let (vault, _) = Vault::init(dir.path(), &author).unwrap();
        vault
            .write(
                "knower.toml",
                &format!("[search]\nmodel = {model:?}\n"),
                &author,
            )
            .unwrap();
        for (path, text) in NOTES {
            vault.write(path, text, &author).unwrap();
        }
        let vault = Arc::new(vault);
        let index = Index::open(vault.clone()).unwrap();
        index.catch_up(&mut |_, _| {}).unwrap();
        Fixture { dir, vault, index }
    }

    pub fn offline(&self) -> Agents {
        Agents::new(
            self.vault.clone(),
            self.index.clone(),
            Engine::Offline,
            Settings::default(),
        )
    }

    /// The id of the inbox item the offline engine makes of `text`, which
    /// it cannot place.
    pub fn parked(&self, text: &str) -> String {
        let report = self
            .offline()
            .update(knower_agents::Payload::text(text))
            .unwrap();
        report
            .inbox_id
            .expect("the offline engine cannot place this")
    }

    pub fn with_llm(&self, server: &ScriptedServer, settings: Settings, timeout: f64) -> Agents {
        let provider = match server.protocol() {
            Protocol::OpenAiChat => "openai-compatible",
            Protocol::AnthropicMessages => "anthropic",
        };
        let file = format!(
            "[llm]\nprovider = \"{provider}\"\nmodel = \"scripted-model\"\nbase_url = \"{}\"\n\
             max_retries = 0\ntimeout_secs = {timeout}\n",
            server.base_url()
        );
        let env = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "test-key".to_string());
        let config = LlmConfig::resolve(&file, &env).unwrap().unwrap();
        let llm = Llm::new(config)
            .unwrap()
            .with_backoff(Duration::from_millis(10));
        // The scripted server is on this machine, but it plays a hosted
        // model that drives the tools unless a test says otherwise.
        let settings = Settings {
            use_tools: settings.use_tools.or(Some(true)),
            ..settings
        };
        Agents::new(
            self.vault.clone(),
            self.index.clone(),
            Engine::Llm(Arc::new(llm)),
            settings,
        )
    }

    /// Writes `notes` (path, text) into the vault and indexes them, as a
    /// test's own projects beside the fixture's.
    pub fn add_notes(&self, notes: &[(&str, &str)]) {
        let author = Author::new("test", "notes");
        for (path, text) in notes {
            self.vault.write(path, text, &author).unwrap();
        }
        self.index.catch_up(&mut |_, _| {}).unwrap();
    }

    pub fn read(&self, path: &str) -> String {
        self.vault.read(path).unwrap_or_default()
    }

    /// The global changelog's entries (lines starting with `- `).
    pub fn changelog_entries(&self) -> Vec<String> {
        self.read("changelog.md")
            .lines()
            .filter(|l| l.starts_with("- "))
            .map(str::to_string)
            .collect()
    }
}
