//! Knower's own tools: the two agents (`update`, `search`) and the vault's
//! operations. The vault tools take the same argument types as the update
//! agent's tools (`knower_agents::tools::args`). Every change is journaled
//! with the actor `mcp` and the reason the caller gives, and goes through
//! the vault's confinement: a path outside the vault is an error, never a
//! file.

use knower_agents::Payload;
use knower_agents::tools::args::{
    AppendArgs, DeleteArgs, EditArgs, MoveArgs, ReadArgs, SearchArgs, TreeArgs, WriteArgs,
    check_content,
};
use knower_index::SearchOptions;
use knower_service::{Question, Wait};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Knower, answer, blocking};

#[derive(Deserialize, JsonSchema)]
pub struct UpdateArgs {
    /// The information to remember, as the user would say it: a fact, a
    /// decision, a task, an event, a preference. Knower decides where it goes.
    text: String,
    /// To answer an item waiting in Knower's inbox: its id. The text is then
    /// the answer (an option number, a path, or "discard").
    #[serde(default)]
    inbox_ref: Option<String>,
    /// Optional: a key of your own for this update (a UUID). Sending the
    /// same key again, because an answer was lost, returns the first
    /// update instead of filing the text twice.
    #[serde(default)]
    key: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct UpdateStatusArgs {
    /// The update's id, as `update` returned it (`update-…`).
    id: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct AskArgs {
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
    /// Without a Knower server, the update is filed at once and the result
    /// says where (`outcome`, `changed_files`, `inbox_id`). With a server
    /// running, it is queued durably and the result holds its `id` and
    /// `status: "accepted"`: call `update_status` with that id to learn
    /// where it went.
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
        if args.text.trim().is_empty() {
            return answer(Err("the text is empty: say what to remember".into()));
        }
        let payload = Payload {
            inbox_ref: args.inbox_ref,
            ..Payload::text(args.text)
        };
        let outcome = self
            .service
            .update_keyed(payload, Wait::Accepted, args.key)
            .await;
        answer(outcome.map_err(|e| e.to_string()).and_then(|update| {
            let mut value = serde_json::to_value(&update).map_err(|e| e.to_string())?;
            value["status"] = json!(update.status());
            Ok(value)
        }))
    }

    /// Ask Knower a question about what the user told it. With a language
    /// model configured, the search agent reads the vault and answers in
    /// markdown, citing `path:line` for every claim. Without one (`engine`
    /// says "offline engine"), the answer is the best matching passages of
    /// the notes, each with its `path:line`, not a composed reply: read them
    /// and answer yourself. `sources` lists the cited passages; `found` is
    /// false when nothing matched. Read-only.
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
        Parameters(args): Parameters<AskArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mode = match args.mode.as_deref().unwrap_or("fast").parse() {
            Ok(mode) => mode,
            Err(e) => return answer(Err(e)),
        };
        let question = Question {
            text: args.query,
            mode,
            scope: args.scope.filter(|s| !s.trim().is_empty()),
        };
        let found = self.service.ask(question).await;
        answer(
            found
                .map_err(|e| e.to_string())
                .and_then(|found| serde_json::to_value(found).map_err(|e| e.to_string())),
        )
    }

    /// Where an update went: its `state` (queued, running, done, failed) and,
    /// once done, its `outcome` (filed, inbox, resolved, discarded…), the
    /// `summary`, the `changed_files` and, when it waits for the user, the
    /// `inbox_id`. Use it after `update` returned `status: "accepted"`.
    #[tool(
        name = "update_status",
        annotations(
            title = "Where an update went",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn update_status(
        &self,
        Parameters(args): Parameters<UpdateStatusArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let found = self.service.updates().get(args.id.trim()).await;
        answer(
            found
                .map_err(|e| e.to_string())
                .and_then(|update| serde_json::to_value(update).map_err(|e| e.to_string())),
        )
    }

    /// The items waiting in Knower's inbox, oldest first: information it
    /// could not place. Each has an `id` (and a short `code`, accepted in its
    /// place), the `text` as it arrived, Knower's
    /// `reasoning` and the `options` it offers. To settle one, call `update`
    /// with `inbox_ref` set to the id and the answer as `text` (an option's
    /// number, a path, or "discard"). Read-only.
    #[tool(
        name = "inbox",
        annotations(
            title = "What waits in the inbox",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn inbox(&self) -> Result<CallToolResult, ErrorData> {
        let service = self.service.clone();
        answer(
            blocking(move || {
                let items = service.inbox().map_err(|e| e.to_string())?;
                let items: Vec<Value> = items
                    .into_iter()
                    .map(|item| {
                        json!({
                            "id": item.id,
                            "code": item.code,
                            "title": item.title,
                            "created": item.created,
                            "text": item.text,
                            "reasoning": item.review,
                            "options": item.options,
                            "attachments": item.attachments,
                        })
                    })
                    .collect();
                Ok(json!({"count": items.len(), "items": items}))
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
        let service = self.service.clone();
        answer(
            blocking(move || {
                let tree = service
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
        Parameters(args): Parameters<ReadArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let service = self.service.clone();
        answer(
            blocking(move || {
                let content = service.read(&args.path).map_err(|e| e.to_string())?;
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
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let options = match args.mode() {
            Ok(mode) => SearchOptions {
                mode,
                scope: args.scope(),
                limit: args.limit.unwrap_or(10).clamp(1, 100),
            },
            Err(e) => return answer(Err(e)),
        };
        let results = self.service.search(args.query, options, args.notes).await;
        answer(results.map_err(|e| e.to_string()).map(|results| {
            json!({
                "hits": results.hits,
                "mode": format!("{:?}", results.mode).to_lowercase(),
                "notice": results.notice,
            })
        }))
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
        if let Err(e) = check_content("the content", &args.content) {
            return answer(Err(e));
        }
        let service = self.service.clone();
        let author = self.author("write", args.reason);
        answer(
            blocking(move || {
                let record = service
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
        if let Err(e) = check_content("the old text", &args.old_content)
            .and_then(|()| check_content("the new text", &args.new_content))
        {
            return answer(Err(e));
        }
        let service = self.service.clone();
        let author = self.author("edit", args.reason);
        answer(
            blocking(move || {
                let record = service
                    .edit(&args.path, &args.old_content, &args.new_content, &author)
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
        if let Err(e) = check_content("the text", &args.content) {
            return answer(Err(e));
        }
        let service = self.service.clone();
        let position = args.position();
        let author = self.author("append", args.reason);
        answer(
            blocking(move || {
                let record = service
                    .append(&args.path, &args.content, position, &author)
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
        let service = self.service.clone();
        let author = self.author("delete", args.reason);
        answer(
            blocking(move || {
                let record = service
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
        let service = self.service.clone();
        let author = self.author("move", args.reason);
        answer(
            blocking(move || {
                let record = service
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
