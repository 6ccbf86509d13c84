//! The `[search]` section of `knower.toml`, the vault's settings file:
//!
//! ```toml
//! [search]
//! exclude = ["overview.md", "tree.md", "profile.md", "inbox/", "knowledge/digest.md"]  # the default
//! model = "/path/to/all-MiniLM-L6-v2"   # a folder, or a Hugging Face repo id
//! chunk_chars = 750                      # longest passage, in characters
//! query_prompt = "query: "               # before each search query
//! passage_prompt = "passage: "           # before each stored passage
//! rerank_model = "cross-encoder/ms-marco-MiniLM-L-6-v2"  # off unless set
//! ```
//!
//! The prompts default to what the model's folder declares
//! (`config_sentence_transformers.json`), else nothing; e5 models want the
//! two above, bge and arctic-embed declare or document their query prompt.
//!
//! `rerank_model` names a cross-encoder that reorders deep search's best
//! candidates (a folder or a repo id, found as `model` is); none by default.
//!
//! `KNOWER_MODEL` overrides `model`, `KNOWER_RERANK_MODEL` `rerank_model`
//! (set empty, it turns the reranker off).

use serde::Deserialize;

use knower_vault::{Vault, VaultPath};

use crate::error::{Error, Result};

pub const CONFIG_FILE: &str = "knower.toml";
/// The files agents load whole (the digest is a projection of the category
/// files, which are searched), and the inbox, which is temporary.
pub const DEFAULT_EXCLUDE: [&str; 5] = [
    "overview.md",
    "tree.md",
    "profile.md",
    "inbox/",
    "knowledge/digest.md",
];
/// The default embedding model, a sentence-transformers repository.
pub const DEFAULT_MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Paths never indexed: a file, or a folder written with a trailing `/`.
    pub exclude: Vec<String>,
    /// A model folder or a Hugging Face repository id.
    pub model: String,
    /// The longest passage, in characters (a code fence may be longer).
    pub chunk_chars: usize,
    /// Put before each search query, in place of the model's own.
    pub query_prompt: Option<String>,
    /// Put before each stored passage, in place of the model's own.
    pub passage_prompt: Option<String>,
    /// A cross-encoder for deep search's rerank stage, if any.
    pub rerank_model: Option<String>,
}

/// Passages of up to ~190 tokens: inside MiniLM's 256-word-piece window with
/// the heading context, and the size that ranked best on LoCoMo (450 to 900
/// measured; BENCHMARKS.md).
pub const DEFAULT_CHUNK_CHARS: usize = 750;

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            exclude: DEFAULT_EXCLUDE.iter().map(|s| s.to_string()).collect(),
            model: DEFAULT_MODEL.to_string(),
            chunk_chars: DEFAULT_CHUNK_CHARS,
            query_prompt: None,
            passage_prompt: None,
            rerank_model: None,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SearchSection {
    exclude: Option<Vec<String>>,
    model: Option<String>,
    chunk_chars: Option<usize>,
    query_prompt: Option<String>,
    passage_prompt: Option<String>,
    rerank_model: Option<String>,
}

#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    search: SearchSection,
}

impl SearchConfig {
    /// The vault's settings; defaults where the file or a key is absent.
    pub fn load(vault: &Vault) -> Result<SearchConfig> {
        let text = match vault.read(CONFIG_FILE) {
            Ok(text) => text,
            Err(knower_vault::Error::NotFound { .. }) => String::new(),
            Err(e) => return Err(e.into()),
        };
        let mut config = SearchConfig::parse(&text)?;
        if let Some(model) = std::env::var_os("KNOWER_MODEL").filter(|m| !m.is_empty()) {
            config.model = model.to_string_lossy().into_owned();
        }
        if let Some(rerank) = std::env::var_os("KNOWER_RERANK_MODEL") {
            let rerank = rerank.to_string_lossy().into_owned();
            config.rerank_model = Some(rerank).filter(|r| !r.is_empty());
        }
        Ok(config)
    }

    pub fn parse(text: &str) -> Result<SearchConfig> {
        let file: File = toml::from_str(text).map_err(|e| Error::Config {
            path: CONFIG_FILE.to_string(),
            message: e.message().to_string(),
        })?;
        let defaults = SearchConfig::default();
        let chunk_chars = file.search.chunk_chars.unwrap_or(defaults.chunk_chars);
        if !(100..=10_000).contains(&chunk_chars) {
            return Err(Error::Config {
                path: CONFIG_FILE.to_string(),
                message: format!("chunk_chars = {chunk_chars}: choose between 100 and 10000"),
            });
        }
        Ok(SearchConfig {
            exclude: file.search.exclude.unwrap_or(defaults.exclude),
            model: file.search.model.unwrap_or(defaults.model),
            chunk_chars,
            query_prompt: file.search.query_prompt,
            passage_prompt: file.search.passage_prompt,
            rerank_model: file.search.rerank_model.filter(|r| !r.is_empty()),
        })
    }

    /// Passage sizes for the chunker: the overlap is a fifth of a passage.
    pub fn budget(&self) -> crate::chunk::Budget {
        crate::chunk::Budget {
            max_chars: self.chunk_chars,
            overlap_chars: self.chunk_chars / 5,
        }
    }

    /// Whether a file is indexed: markdown, and not excluded.
    pub fn indexes(&self, path: &VaultPath) -> bool {
        if !path.is_markdown() {
            return false;
        }
        let text = path.as_str();
        !self
            .exclude
            .iter()
            .any(|rule| match rule.strip_suffix('/') {
                Some(folder) => text.starts_with(folder) && text[folder.len()..].starts_with('/'),
                None => text == rule,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> VaultPath {
        VaultPath::parse(s).unwrap()
    }

    #[test]
    fn defaults_follow_seed_003() {
        let c = SearchConfig::parse("").unwrap();
        assert!(!c.indexes(&p("overview.md")));
        assert!(!c.indexes(&p("tree.md")));
        assert!(!c.indexes(&p("profile.md")));
        assert!(!c.indexes(&p("inbox/1/review.md")));
        assert!(c.indexes(&p("inboxes.md")));
        assert!(c.indexes(&p("projects/a/overview.md")));
        assert!(c.indexes(&p("tasks.md")));
        assert!(!c.indexes(&p("bucket/image.png")));
    }

    #[test]
    fn the_list_is_configurable_and_typos_are_errors() {
        let c =
            SearchConfig::parse("[search]\nexclude = [\"archive/\"]\nmodel = \"/m\"\n").unwrap();
        assert!(c.indexes(&p("overview.md")));
        assert!(!c.indexes(&p("archive/old.md")));
        assert_eq!(c.model, "/m");
        assert!(SearchConfig::parse("[search]\nexlude = []\n").is_err());
        let e5 = SearchConfig::parse(
            "[search]\nquery_prompt = \"query: \"\npassage_prompt = \"passage: \"\n",
        )
        .unwrap();
        assert_eq!(e5.query_prompt.as_deref(), Some("query: "));
        assert_eq!(e5.passage_prompt.as_deref(), Some("passage: "));
        assert_eq!(SearchConfig::parse("").unwrap().query_prompt, None);
        assert_eq!(SearchConfig::parse("").unwrap().rerank_model, None);
        assert_eq!(
            SearchConfig::parse("[search]\nrerank_model = \"/ce\"\n")
                .unwrap()
                .rerank_model
                .as_deref(),
            Some("/ce")
        );
        assert!(SearchConfig::parse("[search\n").is_err());
        assert!(SearchConfig::parse("[search]\nchunk_chars = 5\n").is_err());
        assert_eq!(
            SearchConfig::parse("[search]\nchunk_chars = 900\n")
                .unwrap()
                .budget()
                .max_chars,
            900
        );
    }
}
