//! The reference memory server's file, `memory.jsonl`: one JSON object per
//! line, `{"type":"entity","name","entityType","observations"}` or
//! `{"type":"relation","from","to","relationType"}`.

use serde::{Deserialize, Serialize};

use crate::model::{Entity, KnowledgeGraph, Relation};

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Line {
    Entity(Entity),
    Relation(Relation),
}

/// Reads a `memory.jsonl` — or a whole graph as one JSON object
/// (`{"entities": […], "relations": […]}`, what `read_graph` returns and
/// the gardener's snapshots are); an unreadable line is an error that
/// names it.
pub fn parse(text: &str) -> Result<KnowledgeGraph, String> {
    if let Ok(whole) = serde_json::from_str::<KnowledgeGraph>(text) {
        return Ok(whole);
    }
    let mut graph = KnowledgeGraph::default();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Line>(line) {
            Ok(Line::Entity(entity)) => graph.entities.push(entity),
            Ok(Line::Relation(relation)) => graph.relations.push(relation),
            Err(e) => return Err(format!("line {}: {e}", number + 1)),
        }
    }
    Ok(graph)
}

/// Writes a `memory.jsonl`: the entities, then the relations.
pub fn render(graph: &KnowledgeGraph) -> String {
    let mut out = String::new();
    let lines = graph
        .entities
        .iter()
        .cloned()
        .map(Line::Entity)
        .chain(graph.relations.iter().cloned().map(Line::Relation));
    for line in lines {
        out.push_str(&serde_json::to_string(&line).expect("the graph serialises"));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_the_reference_format() {
        let text = r#"{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea"]}
{"type":"entity","name":"Acme","entityType":"company","observations":[]}

{"type":"relation","from":"Alice","to":"Acme","relationType":"works_at"}
"#;
        let graph = parse(text).unwrap();
        assert_eq!(graph.entities.len(), 2);
        assert_eq!(graph.relations[0].relation_type, "works_at");
        assert_eq!(render(&graph), text.replace("\n\n", "\n"));
        let broken = parse("{\"type\":\"entity\",\"name\":\"A\"}\n").unwrap_err();
        assert!(broken.starts_with("line 1:"), "{broken}");
        assert!(parse("{\"type\":\"node\"}").is_err());
    }

    #[test]
    fn reads_a_whole_graph_as_read_graph_returns_it() {
        let text = r#"{"entities":[{"name":"Alice","entityType":"person","observations":[]}],
  "relations":[{"from":"Alice","to":"Alice","relationType":"knows"}]}"#;
        let graph = parse(text).unwrap();
        assert_eq!(graph.entities[0].name, "Alice");
        assert_eq!(graph.relations[0].relation_type, "knows");
    }
}
