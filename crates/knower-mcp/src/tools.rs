//! Knower's own tools: the two agents (`update`, `search`) and the vault's
//! operations. Every change is journaled with the actor `mcp` and the
//! reason the caller gives, and goes through the vault's confinement: a
//! path outside the vault is an error, never a file.

use knower_index::{Mode, SearchOptions};
use knower_vault::Position;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Knower, answer, blocking, check_size};

#[derive(Deserialize, JsonSchema)]
pub struct UpdateArgs {
    /// The information to remember, as the user would say it: a fact, a
    /// decision, a task, an event, a preference. Knower decides where it goes.
    text: String,
    /// To answer an item waiting in Knower's inbox: its id. The text is then
    /// the answer (an option number, a path, or "discard").
    #[serde(default)]
    inbox_ref: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// The question, in natural language.
    query: String,
    /// `fast` (keywords, the default), `deep` (keywords and meaning) or
    /// `vector` (meaning only).
    #[serde(default)]
    mode: Option<String>,
    /// Limit the search to `project:NAME` or a folder of the vault.
    #[serde(default)]
    scope: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct TreeArgs {
    /// A folder of the vault; the whole vault when absent.
    #[serde(default)]
    path: Option<String>,
    /// How many levels to list (all when absent).
    #[serde(default)]
    depth: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
pub struct PathArgs {
    /// A path inside the vault, such as `projects/atlas/state.md`.
    path: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct SearchVaultArgs {
    /// Keywords. Understands "exact phrases", prefix*, +required, -excluded
    /// and project:NAME or path:FOLDER.
    query: String,
    /// `fast` (BM25, the default), `deep` or `vector`.
    #[serde(default)]
    mode: Option<String>,
    /// Limit to `project:NAME` or a folder.
    #[serde(default)]
    scope: Option<String>,
    /// How many passages (default 10, at most 100).
    #[serde(default)]
    limit: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
pub struct WriteArgs {
    /// The note's path inside the vault; folders are created as needed.
    path: String,
    /// The whole new content (markdown). Frontmatter is kept current by Knower.
    content: String,
    /// Why: kept in the journal beside the change.
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct EditArgs {
    /// The note's path inside the vault.
    path: String,
    /// Text that occurs exactly once in the note.
    old: String,
    /// What replaces it.
    new: String,
    /// Why: kept in the journal beside the change.
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct AppendArgs {
    /// The note's path inside the vault; created when missing.
    path: String,
    /// The text to add.
    text: String,
    /// Add below the title instead of at the end (for newest-first logs).
    #[serde(default)]
    top: bool,
    /// Why: kept in the journal beside the change.
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct DeleteArgs {
    /// The file or folder to delete (it stays in the journal and can be restored).
    path: String,
    /// Why: kept in the journal beside the change.
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct MoveArgs {
    /// What to move.
    from: String,
    /// Where to: a new path, or an existing folder to move into.
    to: String,
    /// Why: kept in the journal beside the change.
    #[serde(default)]
    reason: Option<String>,
}

fn mode(name: Option<&str>) -> Result<Mode, String> {
    name.unwrap_or("fast").parse()
}

/// What a write tool reports: the journal entry that can undo it.
fn changed(path: &str, record: Option<knower_vault::ChangeRecord>) -> Value {
    match record {
        Some(record) => json!({"path": path, "changed": true, "change": record.id}),
        None => json!({"path": path, "changed": false}),
    }
}

#[tool_router(router = knower_tools, vis = "pub(crate)")]
impl Knower {
    /// Give Knower information to remember. Its update agent files it in the
    /// right note (or, when unsure, puts it in the inbox for the user).
    /// Returns the update's id; with a running Knower server the update is
    /// queued durably and filed in order.
    #[tool(
        name = "update",
        annotations(
            title = "Remember information",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn update(
        &self,
        Parameters(args): Parameters<UpdateArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Err(e) = check_size("the text", &args.text) {
            return answer(Err(e));
        }
        if args.text.trim().is_empty() {
            return answer(Err("the text is empty: say what to remember".into()));
        }
        answer(self.updates.submit(args.text, args.inbox_ref).await)
    }

    /// Ask Knower a question. Its search agent reads the vault and answers
    /// in markdown, citing `path:line` for every claim; `sources` lists the
    /// cited passages. Read-only.
    #[tool(
        name = "search",
        annotations(
            title = "Ask the memory",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mode = match mode(args.mode.as_deref()) {
            Ok(mode) => mode,
            Err(e) => return answer(Err(e)),
        };
        let agents = self.agents.clone();
        let index = self.index.clone();
        let runtime = tokio::runtime::Handle::current();
        let scope = args.scope.filter(|s| !s.trim().is_empty());
        answer(
            blocking(move || {
                let _ = index.prepare(mode, &mut |_, _| {});
                let found = runtime
                    .block_on(agents.ask_within(&args.query, mode, scope.as_deref()))
                    .map_err(|e| e.to_string())?;
                serde_json::to_value(found).map_err(|e| e.to_string())
            })
            .await,
        )
    }

    /// The vault's files and folders with their sizes, token counts and
    /// last updates. Start here to see what the memory holds.
    #[tool(
        name = "tree",
        annotations(
            title = "List the vault",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn tree(
        &self,
        Parameters(args): Parameters<TreeArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let vault = self.vault.clone();
        answer(
            blocking(move || {
                let tree = vault
                    .tree(args.path.as_deref().unwrap_or(""), args.depth)
                    .map_err(|e| e.to_string())?;
                serde_json::to_value(tree).map_err(|e| e.to_string())
            })
            .await,
        )
    }

    /// The whole text of one file of the vault, frontmatter included.
    #[tool(
        name = "read",
        annotations(
            title = "Read a note",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn read(
        &self,
        Parameters(args): Parameters<PathArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let vault = self.vault.clone();
        answer(
            blocking(move || {
                let content = vault.read(&args.path).map_err(|e| e.to_string())?;
                Ok(json!({"path": args.path, "content": content}))
            })
            .await,
        )
    }

    /// The passages of the vault that best match some keywords, ranked,
    /// with their paths and line ranges (no answer is written: use `search`
    /// for that).
    #[tool(
        name = "search_vault",
        annotations(
            title = "Find passages",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_vault(
        &self,
        Parameters(args): Parameters<SearchVaultArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mode = match mode(args.mode.as_deref()) {
            Ok(mode) => mode,
            Err(e) => return answer(Err(e)),
        };
        let index = self.index.clone();
        answer(
            blocking(move || {
                let _ = index.prepare(mode, &mut |_, _| {});
                let options = SearchOptions {
                    mode,
                    scope: args.scope.filter(|s| !s.trim().is_empty()),
                    limit: args.limit.unwrap_or(10).clamp(1, 100),
                };
                let results = index
                    .search(&args.query, &options)
                    .map_err(|e| e.to_string())?;
                Ok(json!({
                    "hits": results.hits,
                    "mode": format!("{:?}", results.mode).to_lowercase(),
                    "notice": results.notice,
                }))
            })
            .await,
        )
    }

    /// Create a note or replace its whole content. The previous content is
    /// kept in the journal (`knower undo`).
    #[tool(
        name = "write",
        annotations(
            title = "Write a note",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn write(
        &self,
        Parameters(args): Parameters<WriteArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Err(e) = check_size("the content", &args.content) {
            return answer(Err(e));
        }
        let vault = self.vault.clone();
        let author = self.author("write", args.reason);
        answer(
            blocking(move || {
                let record = vault
                    .write(&args.path, &args.content, &author)
                    .map_err(|e| e.to_string())?;
                Ok(changed(&args.path, record))
            })
            .await,
        )
    }

    /// Replace one exact passage of a note. `old` must occur exactly once.
    #[tool(
        name = "edit",
        annotations(
            title = "Edit a note",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn edit(
        &self,
        Parameters(args): Parameters<EditArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Err(e) = check_size("the new text", &args.new) {
            return answer(Err(e));
        }
        let vault = self.vault.clone();
        let author = self.author("edit", args.reason);
        answer(
            blocking(move || {
                let record = vault
                    .edit(&args.path, &args.old, &args.new, &author)
                    .map_err(|e| e.to_string())?;
                Ok(changed(&args.path, record))
            })
            .await,
        )
    }

    /// Add text to a note: at the end, or below its title with `top`.
    /// Creates the note when missing; nothing already there changes.
    #[tool(
        name = "append",
        annotations(
            title = "Append to a note",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn append(
        &self,
        Parameters(args): Parameters<AppendArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Err(e) = check_size("the text", &args.text) {
            return answer(Err(e));
        }
        let vault = self.vault.clone();
        let author = self.author("append", args.reason);
        let position = if args.top {
            Position::Top
        } else {
            Position::Bottom
        };
        answer(
            blocking(move || {
                let record = vault
                    .append(&args.path, &args.text, position, &author)
                    .map_err(|e| e.to_string())?;
                Ok(changed(&args.path, record))
            })
            .await,
        )
    }

    /// Delete a file or a folder. It stays in the journal and can be restored.
    #[tool(
        name = "delete",
        annotations(
            title = "Delete a note",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn delete(
        &self,
        Parameters(args): Parameters<DeleteArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let vault = self.vault.clone();
        let author = self.author("delete", args.reason);
        answer(
            blocking(move || {
                let record = vault
                    .delete(&args.path, &author)
                    .map_err(|e| e.to_string())?;
                Ok(changed(&args.path, record))
            })
            .await,
        )
    }

    /// Move or rename a file or folder inside the vault.
    #[tool(
        name = "move",
        annotations(
            title = "Move a note",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn move_path(
        &self,
        Parameters(args): Parameters<MoveArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let vault = self.vault.clone();
        let author = self.author("move", args.reason);
        answer(
            blocking(move || {
                let record = vault
                    .rename(&args.from, &args.to, &author)
                    .map_err(|e| e.to_string())?;
                Ok(json!({
                    "from": args.from,
                    "to": args.to,
                    "changed": record.is_some(),
                    "change": record.map(|r| r.id),
                }))
            })
            .await,
        )
    }
}
