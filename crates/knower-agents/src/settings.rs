//! The `[agents]` section of `knower.toml`: how far an agent run may go.
//!
//! ```toml
//! [agents]
//! max_steps = 16          # model calls per update
//! max_search_steps = 8    # model calls per question
//! max_tokens = 200000     # input + output tokens per run
//! use_tools = false       # the model drives the tools (default: a hosted
//!                         # model does, a local one chooses from what Knower found)
//! ```

use serde::Deserialize;

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub max_steps: usize,
    pub max_search_steps: usize,
    pub max_tokens: u64,
    /// Whether the model drives the vault's tools; `None`: a hosted model
    /// does, a local one does not (see [`Settings::grounded`]).
    pub use_tools: Option<bool>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            max_steps: 16,
            max_search_steps: 8,
            max_tokens: 200_000,
            use_tools: None,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Section {
    max_steps: Option<usize>,
    max_search_steps: Option<usize>,
    max_tokens: Option<u64>,
    use_tools: Option<bool>,
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
            use_tools: file.agents.use_tools,
        };
        if s.max_steps == 0 || s.max_search_steps == 0 || s.max_tokens == 0 {
            return Err(Error::Config("[agents] bounds must be at least 1".into()));
        }
        Ok(s)
    }

    /// Whether `llm` works grounded: Knower gathers what bears on the task
    /// (search's passages, the places an update may go) and the model
    /// chooses among them in one structured reply, instead of driving the
    /// tools. Small local models cannot drive tools reliably, and the
    /// servers that run them drop tools they cannot constrain.
    pub fn grounded(&self, llm: &knower_llm::Llm) -> bool {
        !self.use_tools.unwrap_or(!llm.config().local)
    }
}
