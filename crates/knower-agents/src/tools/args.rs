//! The arguments of the vault's tools, one type per tool, shared by the
//! agents' tools (given to a model) and Knower's MCP tools (given to a
//! client), so that both take the same names, publish the same schema
//! (derived with schemars) and obey the same limit on content.
//!
//! Names follow seed 003's tool signatures (`edit(path, old_content,
//! new_content)`, `append(path, content, position)`); the shorter names an
//! earlier MCP version published (`old`, `new`, `text`, `top`) are still
//! accepted.

use knower_vault::Position;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The largest content one tool call may write. Owned here: both the
/// model's tools and MCP's check it through [`check_content`].
pub const MAX_CONTENT_BYTES: usize = 4 << 20;

/// Refuses content over [`MAX_CONTENT_BYTES`], naming what was too large.
pub fn check_content(what: &str, text: &str) -> Result<(), String> {
    if text.len() > MAX_CONTENT_BYTES {
        return Err(format!(
            "{what} is {} bytes; at most {MAX_CONTENT_BYTES} are accepted",
            text.len()
        ));
    }
    Ok(())
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct TreeArgs {
    /// A folder of the vault, such as `projects/atlas`; the whole vault when absent or empty.
    #[serde(default)]
    pub path: Option<String>,
    /// How many levels of folders to list.
    #[serde(default)]
    pub depth: Option<usize>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct ReadArgs {
    /// A path inside the vault, such as `projects/atlas/state.md`.
    pub path: String,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Keywords. Understands "exact phrases", prefix*, +required, -excluded
    /// and project:NAME or path:FOLDER.
    pub query: String,
    /// `fast` (keywords, BM25; the default), `deep` (keywords and meaning) or
    /// `vector` (meaning only).
    #[serde(default)]
    pub mode: Option<String>,
    /// Limit the search to `project:NAME` or a folder of the vault.
    #[serde(default)]
    pub scope: Option<String>,
    /// How many passages (default 10, at most 100).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Count `limit` in notes: each note once, with its best passage.
    #[serde(default)]
    pub notes: bool,
}

impl SearchArgs {
    /// The search mode asked for (`fast` when absent).
    pub fn mode(&self) -> Result<knower_index::Mode, String> {
        self.mode.as_deref().unwrap_or("fast").parse()
    }

    /// The scope, when one was given.
    pub fn scope(&self) -> Option<String> {
        self.scope.clone().filter(|s| !s.trim().is_empty())
    }
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct WriteArgs {
    /// The note's path inside the vault; folders are created as needed.
    pub path: String,
    /// The whole new content (markdown). Frontmatter is kept current by Knower.
    pub content: String,
    /// Why the change is made: kept in the journal beside it.
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct EditArgs {
    /// The note's path inside the vault.
    pub path: String,
    /// The exact text to replace; it must occur exactly once in the body (never the frontmatter).
    #[serde(alias = "old")]
    pub old_content: String,
    /// What replaces it.
    #[serde(alias = "new")]
    pub new_content: String,
    /// Why the change is made: kept in the journal beside it.
    #[serde(default)]
    pub reason: Option<String>,
}

/// Where `append` puts its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Below the frontmatter and the title: for newest-first logs.
    Top,
    /// At the end.
    Bottom,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct AppendArgs {
    /// The note's path inside the vault; created when missing.
    pub path: String,
    /// The block to add.
    #[serde(alias = "text")]
    pub content: String,
    /// `top` (below the title; newest first) or `bottom` (the default).
    #[serde(default)]
    pub position: Option<Placement>,
    /// The earlier spelling of `position: "top"`.
    #[serde(default)]
    #[schemars(skip)]
    pub top: Option<bool>,
    /// Why the change is made: kept in the journal beside it.
    #[serde(default)]
    pub reason: Option<String>,
}

impl AppendArgs {
    pub fn position(&self) -> Position {
        match (self.position, self.top) {
            (Some(Placement::Top), _) | (None, Some(true)) => Position::Top,
            _ => Position::Bottom,
        }
    }
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct DeleteArgs {
    /// The file or folder to delete (it stays in the journal and can be restored).
    pub path: String,
    /// Why the change is made: kept in the journal beside it.
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct MoveArgs {
    /// What to move.
    pub from: String,
    /// Where to: a new path, or an existing folder to move into.
    pub to: String,
    /// Why the change is made: kept in the journal beside it.
    #[serde(default)]
    pub reason: Option<String>,
}

/// The JSON schema of `T`'s arguments as a tool publishes it: plain JSON
/// Schema every provider and local server takes (no `$ref`, `format`,
/// `oneOf` or nullable types; see [`knower_llm::plain`]).
pub fn schema<T: JsonSchema>() -> Value {
    knower_llm::plain_schema::<T>()
}

/// `args` read as `T`, or a sentence for the model saying what is wrong.
pub fn parse<T: serde::de::DeserializeOwned>(args: &Value) -> Result<T, String> {
    serde_json::from_value(args.clone()).map_err(|e| format!("invalid arguments: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn seed_names_and_the_earlier_mcp_names_both_parse() {
        let edit: EditArgs =
            parse(&json!({"path": "a.md", "old_content": "x", "new_content": "y"})).unwrap();
        let older: EditArgs = parse(&json!({"path": "a.md", "old": "x", "new": "y"})).unwrap();
        assert_eq!(
            (edit.old_content, edit.new_content),
            (older.old_content, older.new_content)
        );
        let top: AppendArgs = parse(&json!({"path": "a.md", "text": "x", "top": true})).unwrap();
        assert_eq!(top.position(), Position::Top);
        let bottom: AppendArgs = parse(&json!({"path": "a.md", "content": "x"})).unwrap();
        assert_eq!(bottom.position(), Position::Bottom);
        assert!(
            parse::<AppendArgs>(&json!({"path": "a.md", "content": "x", "position": "middle"}))
                .is_err()
        );
    }

    #[test]
    fn schemas_name_the_required_fields_and_hide_the_old_spelling() {
        let append = schema::<AppendArgs>();
        assert_eq!(append["type"], "object");
        assert_eq!(append["required"], json!(["path", "content"]));
        assert!(append["properties"].get("top").is_none());
        assert!(append.get("$schema").is_none());
        assert!(knower_llm::is_plain(&append), "{append:#}");
        assert!(check_content("x", &"a".repeat(MAX_CONTENT_BYTES + 1)).is_err());
    }
}
