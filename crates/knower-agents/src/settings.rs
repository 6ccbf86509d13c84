//! The `[agents]` section of `knower.toml`: how far an agent run may go.
//!
//! ```toml
//! [agents]
//! max_steps = 16          # model calls per update
//! max_search_steps = 8    # model calls per question
//! max_tokens = 200000     # input + output tokens per run
//! ```

use serde::Deserialize;

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub max_steps: usize,
    pub max_search_steps: usize,
    pub max_tokens: u64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            max_steps: 16,
            max_search_steps: 8,
            max_tokens: 200_000,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Section {
    max_steps: Option<usize>,
    max_search_steps: Option<usize>,
    max_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    agents: Section,
}

impl Settings {
    pub fn parse(toml_text: &str) -> Result<Settings> {
        let file: File =
            toml::from_str(toml_text).map_err(|e| Error::Config(e.message().to_string()))?;
        let d = Settings::default();
        let s = Settings {
            max_steps: file.agents.max_steps.unwrap_or(d.max_steps),
            max_search_steps: file.agents.max_search_steps.unwrap_or(d.max_search_steps),
            max_tokens: file.agents.max_tokens.unwrap_or(d.max_tokens),
        };
        if s.max_steps == 0 || s.max_search_steps == 0 || s.max_tokens == 0 {
            return Err(Error::Config("[agents] bounds must be at least 1".into()));
        }
        Ok(s)
    }
}
