//! The reference MCP memory server's nine tools, with its names, argument
//! schemas and results (the JSON as text, and as structured content), so an
//! agent written for it works unchanged. The graph itself lives in the
//! vault as notes (`knower_graph`).

use knower_graph::{Entity, ObservationAddition, ObservationDeletion, Relation};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use knower_agents::tools::args::MAX_CONTENT_BYTES;

use crate::{Knower, blocking, failed, result};

#[derive(Deserialize, JsonSchema)]
pub struct CreateEntitiesArgs {
    entities: Vec<Entity>,
}

#[derive(Deserialize, JsonSchema)]
pub struct RelationsArgs {
    relations: Vec<Relation>,
}

#[derive(Deserialize, JsonSchema)]
pub struct AddObservationsArgs {
    observations: Vec<ObservationAddition>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeleteEntitiesArgs {
    /// An array of entity names to delete
    entity_names: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct DeleteObservationsArgs {
    deletions: Vec<ObservationDeletion>,
}

#[derive(Deserialize, JsonSchema)]
pub struct ReadGraphArgs {}

#[derive(Deserialize, JsonSchema)]
pub struct SearchNodesArgs {
    /// The search query to match against entity names, types, and observation content
    query: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct OpenNodesArgs {
    /// An array of entity names to retrieve
    names: Vec<String>,
}

/// As the reference answers: `text` shows the result itself, structured
/// content wraps it under `key`.
fn reference(key: &str, result: impl Serialize) -> CallToolResult {
    let value = serde_json::to_value(result).expect("the graph serialises");
    let text = serde_json::to_string_pretty(&value).expect("JSON serialises");
    let mut answer = CallToolResult::success(vec![ContentBlock::text(text)]);
    answer.structured_content = Some(match key {
        "" => value,
        key => json!({ key: value }),
    });
    answer
}

fn done(message: &str) -> CallToolResult {
    let mut answer = CallToolResult::success(vec![ContentBlock::text(message)]);
    answer.structured_content = Some(json!({"success": true, "message": message}));
    answer
}

fn too_big<'a>(texts: impl IntoIterator<Item = &'a String>) -> Option<CallToolResult> {
    let total: usize = texts.into_iter().map(String::len).sum();
    (total > MAX_CONTENT_BYTES).then(|| {
        failed(format!(
            "the call carries {total} bytes of text; at most {MAX_CONTENT_BYTES} are accepted"
        ))
    })
}

#[tool_router(router = memory_tools, vis = "pub(crate)")]
impl Knower {
    /// Create new entities in the knowledge graph, each with a name, a type
    /// and observations (short facts about it). Names already in the graph
    /// are skipped, so repeating a call is harmless. Entities are people, organisations, projects, places and things; each is a note in the vault's `graph/` folder, searchable and undoable. Use the graph for who-is-who and what-relates-to-what; to remember a fact, a task or an event in its project, use `update` instead.
    #[tool(
        name = "create_entities",
        annotations(
            title = "Create Entities",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn create_entities(
        &self,
        Parameters(args): Parameters<CreateEntitiesArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(refused) = too_big(
            args.entities
                .iter()
                .flat_map(|e| e.observations.iter().chain([&e.name])),
        ) {
            return Ok(refused);
        }
        let graph = self.graph.clone();
        let author = self.author("create_entities", None);
        let outcome = blocking(move || {
            graph
                .create_entities(args.entities, &author)
                .map_err(|e| e.to_string())
        })
        .await;
        result(outcome, |created| reference("entities", created))
    }

    /// Create relations between entities that exist (create them first),
    /// each `from` —`relationType`→ `to`, in active voice ("works_at",
    /// "manages"). Existing relations are skipped. Entities are people, organisations, projects, places and things; each is a note in the vault's `graph/` folder, searchable and undoable. Use the graph for who-is-who and what-relates-to-what; to remember a fact, a task or an event in its project, use `update` instead.
    #[tool(
        name = "create_relations",
        annotations(
            title = "Create Relations",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn create_relations(
        &self,
        Parameters(args): Parameters<RelationsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let graph = self.graph.clone();
        let author = self.author("create_relations", None);
        let outcome = blocking(move || {
            graph
                .create_relations(args.relations, &author)
                .map_err(|e| e.to_string())
        })
        .await;
        result(outcome, |created| reference("relations", created))
    }

    /// Add observations (short facts) to entities that exist; an observation
    /// the entity already has is skipped. Returns what was added. Entities are people, organisations, projects, places and things; each is a note in the vault's `graph/` folder, searchable and undoable. Use the graph for who-is-who and what-relates-to-what; to remember a fact, a task or an event in its project, use `update` instead.
    #[tool(
        name = "add_observations",
        annotations(
            title = "Add Observations",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn add_observations(
        &self,
        Parameters(args): Parameters<AddObservationsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(refused) = too_big(args.observations.iter().flat_map(|o| o.contents.iter())) {
            return Ok(refused);
        }
        let graph = self.graph.clone();
        let author = self.author("add_observations", None);
        let outcome = blocking(move || {
            graph
                .add_observations(args.observations, &author)
                .map_err(|e| e.to_string())
        })
        .await;
        result(outcome, |added| reference("results", added))
    }

    /// Delete entities and every relation that touches them. Each deletion is
    /// journaled and can be undone with `knower undo`. Use it when the user
    /// says an entity is wrong or no longer wanted, not to tidy up.
    #[tool(
        name = "delete_entities",
        annotations(
            title = "Delete Entities",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn delete_entities(
        &self,
        Parameters(args): Parameters<DeleteEntitiesArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let graph = self.graph.clone();
        let author = self.author("delete_entities", None);
        let outcome = blocking(move || {
            graph
                .delete_entities(&args.entity_names, &author)
                .map_err(|e| e.to_string())
        })
        .await;
        result(outcome, |()| done("Entities deleted successfully"))
    }

    /// Delete observations from entities, matched exactly; use it when the
    /// user corrects a fact (then add the right one). Journaled and undoable.
    #[tool(
        name = "delete_observations",
        annotations(
            title = "Delete Observations",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn delete_observations(
        &self,
        Parameters(args): Parameters<DeleteObservationsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let graph = self.graph.clone();
        let author = self.author("delete_observations", None);
        let outcome = blocking(move || {
            graph
                .delete_observations(args.deletions, &author)
                .map_err(|e| e.to_string())
        })
        .await;
        result(outcome, |()| done("Observations deleted successfully"))
    }

    /// Delete relations, matched exactly on from, to and relationType.
    /// Journaled and undoable.
    #[tool(
        name = "delete_relations",
        annotations(
            title = "Delete Relations",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn delete_relations(
        &self,
        Parameters(args): Parameters<RelationsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let graph = self.graph.clone();
        let author = self.author("delete_relations", None);
        let outcome = blocking(move || {
            graph
                .delete_relations(args.relations, &author)
                .map_err(|e| e.to_string())
        })
        .await;
        result(outcome, |()| done("Relations deleted successfully"))
    }

    /// The whole knowledge graph: every entity with its observations, every
    /// relation. It can be large; to find something, prefer `search_nodes`
    /// or `open_nodes`, and for what the user told Knower in notes, `search`.
    #[tool(
        name = "read_graph",
        annotations(
            title = "Read Graph",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn read_graph(
        &self,
        Parameters(_): Parameters<ReadGraphArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let graph = self.graph.clone();
        let outcome = blocking(move || graph.read_graph().map_err(|e| e.to_string())).await;
        result(outcome, |graph| reference("", graph))
    }

    /// Find entities whose name, type or observations contain the query
    /// (ignoring case), with the relations that touch them. For questions
    /// about notes, projects or what the user said, use `search` instead.
    #[tool(
        name = "search_nodes",
        annotations(
            title = "Search Nodes",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_nodes(
        &self,
        Parameters(args): Parameters<SearchNodesArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let graph = self.graph.clone();
        let outcome =
            blocking(move || graph.search_nodes(&args.query).map_err(|e| e.to_string())).await;
        result(outcome, |graph| reference("", graph))
    }

    /// The named entities, exactly, with the relations between them. Use it
    /// when you know the names (from `search_nodes` or the conversation).
    #[tool(
        name = "open_nodes",
        annotations(
            title = "Open Nodes",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn open_nodes(
        &self,
        Parameters(args): Parameters<OpenNodesArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let graph = self.graph.clone();
        let outcome =
            blocking(move || graph.open_nodes(&args.names).map_err(|e| e.to_string())).await;
        result(outcome, |graph| reference("", graph))
    }
}
