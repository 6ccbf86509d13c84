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
    /// Create multiple new entities in the knowledge graph
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

    /// Create multiple new relations between entities in the knowledge graph. Relations should be in active voice
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

    /// Add new observations to existing entities in the knowledge graph
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

    /// Delete multiple entities and their associated relations from the knowledge graph
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

    /// Delete specific observations from entities in the knowledge graph
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

    /// Delete multiple relations from the knowledge graph
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

    /// Read the entire knowledge graph
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

    /// Search for nodes in the knowledge graph based on a query
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

    /// Open specific nodes in the knowledge graph by their names
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
