//! The agents' instructions: shipped with the binary, and overridable by a
//! file of the same name in the vault's `prompts/` folder.

use knower_vault::{Vault, frontmatter};

/// (name, built-in text)
const BUILT_IN: [(&str, &str); 4] = [
    ("update", include_str!("../prompts/update.md")),
    ("search", include_str!("../prompts/search.md")),
    // A grounded model's (see `Settings::grounded`): it chooses from what
    // Knower gathered instead of driving the tools.
    ("place", include_str!("../prompts/place.md")),
    ("answer", include_str!("../prompts/answer.md")),
];

pub const PROMPTS_DIR: &str = "prompts";

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptSource {
    BuiltIn,
    /// The vault file that overrides the built-in text.
    Vault(String),
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Prompt {
    pub name: &'static str,
    pub source: PromptSource,
    pub text: String,
}

/// Every prompt, as in effect for this vault.
pub fn all(vault: &Vault) -> Vec<Prompt> {
    BUILT_IN.iter().map(|(name, _)| get(vault, name)).collect()
}

/// The prompt `name` (one of the built-in names).
pub fn get(vault: &Vault, name: &str) -> Prompt {
    let (name, built_in) = *BUILT_IN
        .iter()
        .find(|(n, _)| *n == name)
        .expect("only built-in prompt names are asked for");
    resolve(vault, name, built_in)
}

/// A prompt shipped as `built_in`, unless the vault's `prompts/NAME.md`
/// (with text below its frontmatter) overrides it. Features with prompts of
/// their own (the harvest, the chat) resolve them here, so every prompt
/// follows the same convention and `knower prompts` can list them all.
pub fn resolve(vault: &Vault, name: &'static str, built_in: &str) -> Prompt {
    let path = format!("{PROMPTS_DIR}/{name}.md");
    if let Ok(text) = vault.read(&path) {
        let body = frontmatter::split(&text).map(|s| s.body).unwrap_or(&text);
        if !body.trim().is_empty() {
            return Prompt {
                name,
                source: PromptSource::Vault(path),
                text: body.trim().to_string(),
            };
        }
    }
    Prompt {
        name,
        source: PromptSource::BuiltIn,
        text: built_in.trim().to_string(),
    }
}
