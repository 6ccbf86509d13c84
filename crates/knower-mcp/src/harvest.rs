//! The harvest over MCP: a client's past conversations into the vault's
//! `knowledge/` folder. A dry run unless told to apply; never deletes a
//! source (reclaiming is the command line's, where the user sees it).

use knower_harvest::Options;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Knower, answer};

#[derive(Deserialize, JsonSchema)]
pub struct HarvestArgs {
    /// Conversation files or folders on this machine: Claude Code
    /// transcripts (`~/.claude/projects`), Codex CLI sessions
    /// (`~/.codex/sessions`), Gemini CLI sessions or checkpoints, a ChatGPT
    /// or Claude.ai export's `conversations.json`, Knower's chat log, or
    /// `.md`/`.txt` files.
    paths: Vec<String>,
    /// `false` (the default): a dry run that reports what would be
    /// harvested and changes nothing. `true`: harvest into the vault.
    #[serde(default)]
    apply: bool,
}

#[tool_router(router = harvest_tools, vis = "pub(crate)")]
impl Knower {
    /// Turn the user's past conversations into durable knowledge: facts,
    /// decisions, open questions, playbooks and tasks, appended to the
    /// vault's `knowledge/*.md` with their provenance, and a 4 KB digest
    /// that every agent loads. Call it first without `apply` to see what
    /// would be harvested (counts, sizes, model calls); then with
    /// `apply: true`. Conversations already harvested are skipped (a
    /// sha256 ledger in `knowledge/ledger.json`); nothing the user wrote is
    /// changed; each conversation is one undoable change.
    #[tool(
        name = "harvest",
        annotations(
            title = "Harvest conversations",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn harvest(
        &self,
        Parameters(args): Parameters<HarvestArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let options = Options {
            apply: args.apply,
            ..Options::default()
        };
        let paths = args.paths.into_iter().map(Into::into).collect();
        let report = match self.service.harvest(paths, options, |_, _| {}).await {
            Ok(report) => report,
            Err(e) => return answer(Err(e.to_string())),
        };
        let value = serde_json::to_value(&report)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        // A path the client named that could not be read is its mistake to
        // see, with what the rest gave.
        let unreadable: Vec<&str> = report
            .unreadable
            .iter()
            .filter(|u| u.given)
            .map(|u| u.error.as_str())
            .collect();
        if !unreadable.is_empty() {
            return answer(Err(format!(
                "could not read {}; the harvest's report: {value}",
                unreadable.join("; ")
            )));
        }
        answer(Ok(value))
    }
}
