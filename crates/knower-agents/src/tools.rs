//! Seed 003's eight tools, each a thin adapter over [`Vault`] and [`Index`]
//! so that confinement, atomic writes, the journal and search freshness come
//! from the layers below.
//!
//! The search agent is given [`ReadTools`], which has no way to write;
//! the update agent is given [`WriteTools`]. Which tools an agent has is a
//! matter of the type it holds, not of a check.

use std::sync::Arc;

use knower_index::{Index, Mode, SearchOptions};
use knower_llm::chat::Tool;
use knower_vault::{Author, Position, Vault, VaultPath, render_tree};
use serde_json::{Value, json};

use crate::inbox::INBOX;

/// Longest tool output given back to the model; more is cut with a note.
const MAX_OUTPUT_CHARS: usize = 24_000;
/// Largest content one write may carry.
const MAX_WRITE_BYTES: usize = 1 << 20;

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

    fn tree(&self, args: &Value) -> Result<String, String> {
        let path = opt_str(args, "path")?.unwrap_or("");
        let depth = args
            .get("depth")
            .and_then(Value::as_u64)
            .map(|d| d.clamp(1, 8) as usize)
            .unwrap_or(2);
        let node = self
            .vault
            .tree(path, Some(depth))
            .map_err(|e| e.to_string())?;
        let listing = render_tree(&node);
        Ok(if listing.is_empty() {
            format!("{} is empty", display(path))
        } else {
            listing
        })
    }

    fn read(&self, args: &Value) -> Result<String, String> {
        let path = str_arg(args, "path")?;
        self.vault.read(path).map_err(|e| e.to_string())
    }

    fn search(&self, args: &Value) -> Result<String, String> {
        let query = str_arg(args, "query")?;
        let mode = match opt_str(args, "mode")? {
            None | Some("fast") => Mode::Fast,
            Some("deep") => Mode::Deep,
            Some(other) => return Err(format!("mode must be \"fast\" or \"deep\", not {other:?}")),
        };
        let scope = opt_str(args, "scope")?.map(str::to_string);
        self.index
            .prepare(mode, &mut |_, _| {})
            .map_err(|e| e.to_string())?;
        let options = SearchOptions {
            mode,
            scope,
            limit: 8,
        };
        let results = self
            .index
            .search(query, &options)
            .map_err(|e| e.to_string())?;
        let mut out = String::new();
        if let Some(notice) = results.notice {
            out.push_str(&format!("note: {notice}\n"));
        }
        if results.hits.is_empty() {
            out.push_str("no passage matches");
        }
        for hit in &results.hits {
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
            tool(
                "tree",
                "List the vault's files and folders with token counts, from a folder (default: the whole vault) down to a depth (default 2).",
                json!({"path": {"type": "string", "description": "A folder of the vault, e.g. `projects/atlas`; empty for the root."},
                       "depth": {"type": "integer", "minimum": 1, "maximum": 8}}),
                &[],
            ),
            tool(
                "read",
                "Read a whole file of the vault, frontmatter included. Line numbers in search results count from its first line.",
                json!({"path": {"type": "string", "description": "Path inside the vault, e.g. `projects/atlas/state.md`."}}),
                &["path"],
            ),
            tool(
                "search",
                "Search the vault's notes. Returns ranked passages as `path:first-last` line ranges with their text.",
                json!({"query": {"type": "string", "description": "Keywords; \"exact phrase\", prefix*, +required, -excluded."},
                       "mode": {"type": "string", "enum": ["fast", "deep"], "description": "fast: keywords (BM25); deep: keywords and meaning."},
                       "scope": {"type": "string", "description": "Optional: `project:NAME` or a folder to search in."}}),
                &["query"],
            ),
        ]
    }

    fn call(&mut self, name: &str, args: &Value) -> ToolOutput {
        let result = match name {
            "tree" => self.tree(args),
            "read" => self.read(args),
            "search" => self.search(args),
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
    /// update does (see [`crate::recovery`]).
    pub fn new(read: ReadTools, actor: &str, update_id: &str) -> WriteTools {
        WriteTools {
            read,
            actor: actor.to_string(),
            update_id: update_id.to_string(),
        }
    }

    fn author(&self, args: &Value) -> Result<Author, String> {
        let reason = str_arg(args, "reason")?.trim();
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
    fn target<'a>(&self, args: &'a Value, key: &str) -> Result<&'a str, String> {
        let path = str_arg(args, key)?;
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
        let author = self.author(args)?;
        let vault = &self.read.vault;
        let content = |key| -> Result<&str, String> {
            let text = str_arg(args, key)?;
            if text.len() > MAX_WRITE_BYTES {
                return Err(format!("{key} is larger than {MAX_WRITE_BYTES} bytes"));
            }
            Ok(text)
        };
        let (record, paths) = match name {
            "write" => {
                let path = self.target(args, "path")?;
                (vault.write(path, content("content")?, &author), vec![path])
            }
            "edit" => {
                let path = self.target(args, "path")?;
                let (old, new) = (content("old_content")?, content("new_content")?);
                (vault.edit(path, old, new, &author), vec![path])
            }
            "append" => {
                let path = self.target(args, "path")?;
                let position = match opt_str(args, "position")? {
                    None | Some("bottom") => Position::Bottom,
                    Some("top") => Position::Top,
                    Some(other) => {
                        return Err(format!(
                            "position must be \"top\" or \"bottom\", not {other:?}"
                        ));
                    }
                };
                (
                    vault.append(path, content("content")?, position, &author),
                    vec![path],
                )
            }
            "delete" => {
                let path = self.target(args, "path")?;
                (vault.delete(path, &author), vec![path])
            }
            "move" => {
                let (from, to) = (self.target(args, "from")?, self.target(args, "to")?);
                (vault.rename(from, to, &author), vec![from, to])
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
        let reason = json!({"type": "string", "description": "Why this change is made; recorded in the vault's journal."});
        let path = json!({"type": "string", "description": "Path inside the vault."});
        let mut tools = self.read.definitions();
        tools.extend([
            tool(
                "write",
                "Create a file, or replace all of it. Prefer `edit` or `append` for existing notes.",
                json!({"path": path, "content": {"type": "string"}, "reason": reason}),
                &["path", "content", "reason"],
            ),
            tool(
                "edit",
                "Replace the first occurrence of an exact passage of a file.",
                json!({"path": path, "old_content": {"type": "string"}, "new_content": {"type": "string"}, "reason": reason}),
                &["path", "old_content", "new_content", "reason"],
            ),
            tool(
                "append",
                "Add a block at the top (below the title; for changelogs, newest first) or the bottom of a file, creating it if needed.",
                json!({"path": path, "content": {"type": "string"}, "position": {"type": "string", "enum": ["top", "bottom"]}, "reason": reason}),
                &["path", "content", "reason"],
            ),
            tool(
                "delete",
                "Delete a file or a folder (it stays recoverable from the journal).",
                json!({"path": path, "reason": reason}),
                &["path", "reason"],
            ),
            tool(
                "move",
                "Move or rename a file or folder.",
                json!({"from": path, "to": path, "reason": reason}),
                &["from", "to", "reason"],
            ),
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

fn tool(name: &str, description: &str, properties: Value, required: &[&str]) -> Tool {
    Tool::new(name)
        .with_description(description)
        .with_schema(json!({"type": "object", "properties": properties, "required": required}))
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    opt_str(args, key)?.ok_or_else(|| format!("`{key}` is required"))
}

fn opt_str<'a>(args: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!("`{key}` must be a string, not {other}")),
    }
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
