//! `[chat]` in the vault's `knower.toml`.

use serde::Deserialize;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Facts and events that may expire are archived after this many days
    /// without being referenced.
    pub expire_after_days: u64,
    /// The most tokens of artifacts retrieved for one message.
    pub artifact_tokens: usize,
    /// The most tokens of vault passages retrieved for one message.
    pub passage_tokens: usize,
    /// Exchanges of the session carried as they were said.
    pub history: usize,
    /// Open efforts listed in every context (most recently referenced first).
    pub open_efforts: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            expire_after_days: 30,
            artifact_tokens: 600,
            passage_tokens: 800,
            history: 5,
            open_efforts: 20,
        }
    }
}

impl Settings {
    /// The `[chat]` section of `knower.toml`'s text (defaults for what it
    /// does not say); an unknown key is an error naming it.
    pub fn parse(toml_text: &str) -> Result<Settings, String> {
        let file: toml::Table =
            toml::from_str(toml_text).map_err(|e| format!("knower.toml: {e}"))?;
        match file.get("chat") {
            None => Ok(Settings::default()),
            Some(section) => section
                .clone()
                .try_into()
                .map_err(|e| format!("knower.toml [chat]: {e}")),
        }
    }
}
