//! Seed 003's eight tools, each a thin adapter over [`Vault`] and [`Index`]
//! so that confinement, atomic writes, the journal and search freshness come
//! from the layers below. Their arguments are the types of [`args`], which
//! Knower's MCP tools share.
//!
//! The search agent is given [`ReadTools`], which has no way to write;
//! the update agent is given [`WriteTools`]. Which tools an agent has is a
//! matter of the type it holds, not of a check.

pub mod args;

use std::sync::Arc;

use knower_index::{Index, SearchOptions};
use knower_llm::chat::Tool;
use knower_vault::{Author, Vault, VaultPath, render_tree};
use schemars::JsonSchema;
use serde_json::Value;

use crate::inbox::INBOX;
use args::{
    AppendArgs, DeleteArgs, EditArgs, MoveArgs, ReadArgs, SearchArgs, TreeArgs, WriteArgs,
    check_content, parse, schema,
};

/// Longest tool output given back to the model; more is cut with a note.
const MAX_OUTPUT_CHARS: usize = 24_000;
/// Passages the model's `search` returns unless it asks for another number.
const SEARCH_PASSAGES: usize = 8;

/// What a tool call did, for the model and for the run's report.
#[derive(Clone, Debug)]
pub struct ToolOutput {
    pub text: String,
    /// False when the call was refused or failed; the text says why.
    pub ok: bool,
    /// Paths the call changed.
    pub changed: Vec<String>,
}

impl ToolOutput {
    fn ok(text: String) -> ToolOutput {
        ToolOutput {
            text: clip(text),
            ok: true,
            changed: vec![],
        }
    }

    fn err(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            text: format!("error: {}", text.into()),
            ok: false,
            changed: vec![],
        }
    }
}

/// A set of tools an agent may call.
pub trait ToolSet: Send {
    fn definitions(&self) -> Vec<Tool>;
    fn call(&mut self, name: &str, args: &Value) -> ToolOutput;
}

/// `tree`, `read` and `search`.
pub struct ReadTools {
    vault: Arc<Vault>,
    index: Arc<Index>,
}

impl ReadTools {
    pub fn new(vault: Arc<Vault>, index: Arc<Index>) -> ReadTools {
        ReadTools { vault, index }
    }

    fn tree(&self, args: TreeArgs) -> Result<String, String> {
        let path = args.path.unwrap_or_default();
        // The model sees a bounded listing by default: it can go deeper.
        let depth = args.depth.map(|d| d.clamp(1, 8)).unwrap_or(2);
        let node = self
            .vault
            .tree(&path, Some(depth))
            .map_err(|e| e.to_string())?;
        let listing = render_tree(&node);
        Ok(if listing.is_empty() {
            format!("{} is empty", display(&path))
        } else {
            listing
        })
    }

    fn read(&self, args: ReadArgs) -> Result<String, String> {
        self.vault.read(&args.path).map_err(|e| e.to_string())
    }

    fn search(&self, args: SearchArgs) -> Result<String, String> {
        let options = SearchOptions {
            mode: args.mode()?,
            scope: args.scope(),
            limit: args.limit.unwrap_or(SEARCH_PASSAGES).clamp(1, 100),
        };
        let results = match args.notes {
            true => self.index.search_notes(&args.query, &options),
            false => self.index.search(&args.query, &options),
        }
        .map_err(|e| e.to_string())?;
        let mut hits = results.hits;
        crate::evidence::admit(&args.query, &mut hits);
        let mut out = String::new();
        if let Some(notice) = results.notice {
            out.push_str(&format!("note: {notice}\n"));
        }
        if hits.is_empty() {
            out.push_str("no passage matches");
        }
        for hit in &hits {
            out.push_str(&format!(
                "{}:{}-{} (score {:.2}){}\n{}\n\n",
                hit.path,
                hit.line_start,
                hit.line_end,
                hit.score,
                if hit.heading.is_empty() {
                    String::new()
                } else {
                    format!(" § {}", hit.heading)
                },
                hit.text.trim()
            ));
        }
        Ok(out)
    }
}

impl ToolSet for ReadTools {
    fn definitions(&self) -> Vec<Tool> {
        vec![
            tool::<TreeArgs>(
                "tree",
                "List the vault's files and folders with token counts, from a folder (default: the whole vault) down to a depth (default 2).",
                false,
            ),
            tool::<ReadArgs>(
                "read",
                "Read a whole file of the vault, frontmatter included. Line numbers in search results count from its first line.",
                false,
            ),
            tool::<SearchArgs>(
                "search",
                "Search the vault's notes. Returns ranked passages as `path:first-last` line ranges with their text.",
                false,
            ),
        ]
    }

    fn call(&mut self, name: &str, args: &Value) -> ToolOutput {
        let result = match name {
            "tree" => parse(args).and_then(|a| self.tree(a)),
            "read" => parse(args).and_then(|a| self.read(a)),
            "search" => parse(args).and_then(|a| self.search(a)),
            other => return ToolOutput::err(format!("there is no tool named `{other}`")),
        };
        match result {
            Ok(text) => ToolOutput::ok(text),
            Err(e) => ToolOutput::err(e),
        }
    }
}

/// The read tools plus `write`, `edit`, `append`, `delete` and `move`;
/// every change is journaled with the reason the agent gives for it.
pub struct WriteTools {
    read: ReadTools,
    actor: String,
    update_id: String,
}

impl WriteTools {
    /// `actor` names the agent in the journal (`agent`, `agent:offline`…);
    /// each change's reason starts with `update_id`, as every change of an
    /// update does (see the crate's `recovery` module).
    pub fn new(read: ReadTools, actor: &str, update_id: &str) -> WriteTools {
        WriteTools {
            read,
            actor: actor.to_string(),
            update_id: update_id.to_string(),
        }
    }

    /// The agent must say why: its reason is the journal's.
    fn author(&self, reason: &Option<String>) -> Result<Author, String> {
        let reason = reason.as_deref().unwrap_or("").trim();
        if reason.is_empty() {
            return Err("`reason` must say why the change is made".into());
        }
        Ok(crate::recovery::author_of(
            &self.actor,
            &self.update_id,
            reason,
        ))
    }

    /// Paths the agent may change: not the global changelog (Knower writes
    /// the one entry per update itself) nor the inbox (Knower keeps it).
    fn target<'a>(&self, path: &'a str) -> Result<&'a str, String> {
        let p = VaultPath::parse(path).map_err(|e| e.to_string())?;
        if p.as_str() == "changelog.md" {
            return Err(
                "the global changelog.md is written by Knower from your final summary".into(),
            );
        }
        if p.starts_with(&VaultPath::parse(INBOX).expect("a valid path")) {
            return Err(
                "the inbox is kept by Knower; answer with outcome \"inbox\" instead".into(),
            );
        }
        Ok(path)
    }

    fn change(&self, name: &str, args: &Value) -> Result<(String, Vec<String>), String> {
        let vault = &self.read.vault;
        let (record, paths) = match name {
            "write" => {
                let a: WriteArgs = parse(args)?;
                let author = self.author(&a.reason)?;
                check_content("content", &a.content)?;
                let path = self.target(&a.path)?;
                (vault.write(path, &a.content, &author), vec![a.path.clone()])
            }
            "edit" => {
                let a: EditArgs = parse(args)?;
                let author = self.author(&a.reason)?;
                check_content("old_content", &a.old_content)?;
                check_content("new_content", &a.new_content)?;
                let path = self.target(&a.path)?;
                (
                    vault.edit(path, &a.old_content, &a.new_content, &author),
                    vec![a.path.clone()],
                )
            }
            "append" => {
                let a: AppendArgs = parse(args)?;
                let author = self.author(&a.reason)?;
                check_content("content", &a.content)?;
                let path = self.target(&a.path)?;
                (
                    vault.append(path, &a.content, a.position(), &author),
                    vec![a.path.clone()],
                )
            }
            "delete" => {
                let a: DeleteArgs = parse(args)?;
                let author = self.author(&a.reason)?;
                let path = self.target(&a.path)?;
                (vault.delete(path, &author), vec![a.path.clone()])
            }
            "move" => {
                let a: MoveArgs = parse(args)?;
                let author = self.author(&a.reason)?;
                let (from, to) = (self.target(&a.from)?, self.target(&a.to)?);
                (
                    vault.rename(from, to, &author),
                    vec![a.from.clone(), a.to.clone()],
                )
            }
            _ => unreachable!("only write tools reach here"),
        };
        let record = record.map_err(|e| e.to_string())?;
        let changed: Vec<String> = match &record {
            Some(r) => r.files.iter().map(|f| f.path.to_string()).collect(),
            None => vec![],
        };
        let text = match record {
            Some(r) => format!("done (change {}): {}", r.id, paths.join(" → ")),
            None => format!("nothing to do: {} already held that", paths.join(", ")),
        };
        Ok((text, changed))
    }
}

impl ToolSet for WriteTools {
    fn definitions(&self) -> Vec<Tool> {
        let mut tools = self.read.definitions();
        tools.extend([
            tool::<WriteArgs>(
                "write",
                "Create a file, or replace all of it. Prefer `edit` or `append` for existing notes.",
                true,
            ),
            tool::<EditArgs>(
                "edit",
                "Replace an exact passage of a file's body; it must occur exactly once (include surrounding text to make it unique). The frontmatter is never edited.",
                true,
            ),
            tool::<AppendArgs>(
                "append",
                "Add a block at the top (below the title; for changelogs, newest first) or the bottom of a file, creating it if needed.",
                true,
            ),
            tool::<DeleteArgs>(
                "delete",
                "Delete a file or a folder (it stays recoverable from the journal).",
                true,
            ),
            tool::<MoveArgs>("move", "Move or rename a file or folder.", true),
        ]);
        tools
    }

    fn call(&mut self, name: &str, args: &Value) -> ToolOutput {
        match name {
            "write" | "edit" | "append" | "delete" | "move" => match self.change(name, args) {
                Ok((text, changed)) => ToolOutput {
                    changed,
                    ..ToolOutput::ok(text)
                },
                Err(e) => ToolOutput::err(e),
            },
            _ => self.read.call(name, args),
        }
    }
}

/// A tool for the model, its schema derived from its arguments' type; a
/// tool that changes the vault requires the `reason` the journal records.
fn tool<T: JsonSchema>(name: &str, description: &str, changes: bool) -> Tool {
    let mut schema = schema::<T>();
    if changes && let Some(required) = schema["required"].as_array_mut() {
        required.push(Value::from("reason"));
    }
    Tool::new(name)
        .with_description(description)
        .with_schema(schema)
}

fn display(path: &str) -> &str {
    if path.is_empty() { "the vault" } else { path }
}

fn clip(text: String) -> String {
    match crate::text::cut(&text, MAX_OUTPUT_CHARS) {
        Some(start) => format!(
            "{start}\n[cut at {MAX_OUTPUT_CHARS} characters of {}]",
            text.chars().count()
        ),
        None => text,
    }
}
