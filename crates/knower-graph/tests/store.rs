//! The graph on a real vault: what the notes look like, one journal record
//! per call, and import/export round trips.

use std::sync::Arc;

use knower_graph::{Entity, Graph, ObservationAddition, Relation, jsonl};
use knower_vault::{Author, Vault};

fn graph() -> (tempfile::TempDir, Graph) {
    let dir = tempfile::tempdir().unwrap();
    let (vault, _) = Vault::init(dir.path(), &Author::new("test", "init")).unwrap();
    (dir, Graph::new(Arc::new(vault)))
}

fn entity(name: &str, kind: &str, observations: &[&str]) -> Entity {
    Entity {
        name: name.into(),
        entity_type: kind.into(),
        observations: observations.iter().map(|o| o.to_string()).collect(),
    }
}

fn relation(from: &str, kind: &str, to: &str) -> Relation {
    Relation {
        from: from.into(),
        to: to.into(),
        relation_type: kind.into(),
    }
}

#[test]
fn entities_are_readable_notes_and_each_call_is_one_undoable_change() {
    let (dir, graph) = graph();
    let author = Author::new("mcp", "test");
    graph
        .create_entities(
            vec![
                entity("Alice", "person", &["works at Acme Corp"]),
                entity("Acme Corp", "company", &[]),
            ],
            &author,
        )
        .unwrap();
    graph
        .create_relations(vec![relation("Alice", "works_at", "Acme Corp")], &author)
        .unwrap();
    let alice = std::fs::read_to_string(dir.path().join("graph/alice.md")).unwrap();
    for line in [
        "type: \"person\"",
        "name: \"Alice\"",
        "# Alice",
        "## Observations\n\n- works at Acme Corp\n",
        "## Relations\n\n- works_at [[Acme Corp]]\n",
    ] {
        assert!(alice.contains(line), "{line:?} not in\n{alice}");
    }
    assert!(dir.path().join("graph/acme-corp.md").exists());

    // A person edits the note: the graph follows, their text stays.
    let edited = alice.replace(
        "- works at Acme Corp\n",
        "- works at Acme Corp\n- plays chess\n\nWritten by hand.\n",
    );
    std::fs::write(dir.path().join("graph/alice.md"), edited).unwrap();
    graph.vault().rescan().unwrap();
    let read = graph.read_graph().unwrap();
    assert_eq!(
        read.entities[1].observations,
        ["works at Acme Corp", "plays chess"]
    );
    graph
        .add_observations(
            vec![ObservationAddition {
                entity_name: "Alice".into(),
                contents: vec!["has a dog".into()],
            }],
            &author,
        )
        .unwrap();
    let alice = std::fs::read_to_string(dir.path().join("graph/alice.md")).unwrap();
    assert!(alice.contains("Written by hand."), "{alice}");

    // Deleting an entity is one change: undo brings back the note and the
    // relation pointing at it.
    let before = graph.vault().log().unwrap().len();
    graph
        .delete_entities(&["Acme Corp".into()], &author)
        .unwrap();
    let log = graph.vault().log().unwrap();
    assert_eq!(log.len(), before + 1);
    assert!(graph.read_graph().unwrap().relations.is_empty());
    graph
        .vault()
        .undo(log.last().unwrap().id, &author, false)
        .unwrap();
    let back = graph.read_graph().unwrap();
    assert_eq!(back.entities.len(), 2);
    assert_eq!(back.relations, [relation("Alice", "works_at", "Acme Corp")]);
}

#[test]
fn names_that_differ_only_in_case_get_their_own_notes() {
    let (dir, graph) = graph();
    let author = Author::new("mcp", "test");
    let created = graph
        .create_entities(
            vec![
                entity("Bob", "person", &[]),
                entity("bob", "dog", &[]),
                entity("Bob", "x", &[]),
            ],
            &author,
        )
        .unwrap();
    assert_eq!(created.len(), 2, "the second Bob is a duplicate");
    assert!(dir.path().join("graph/bob.md").exists());
    assert!(dir.path().join("graph/bob-2.md").exists());
    let mut names: Vec<_> = graph
        .read_graph()
        .unwrap()
        .entities
        .into_iter()
        .map(|e| (e.name, e.entity_type))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ("Bob".into(), "person".into()),
            ("bob".into(), "dog".into())
        ]
    );
}

#[test]
fn bad_names_and_types_are_refused_and_change_nothing() {
    let (_dir, graph) = graph();
    let author = Author::new("mcp", "test");
    for name in ["", "  ", "a\nb", "x]]y", "[[x", "a|b"] {
        assert!(
            graph
                .create_entities(vec![entity(name, "t", &[])], &author)
                .is_err(),
            "{name:?}"
        );
    }
    graph
        .create_entities(vec![entity("A", "t", &[]), entity("B", "t", &[])], &author)
        .unwrap();
    for kind in ["", " knows", "a\nb", "x [[y"] {
        assert!(
            graph
                .create_relations(vec![relation("A", kind, "B")], &author)
                .is_err(),
            "{kind:?}"
        );
    }
    let error = graph
        .create_relations(
            vec![relation("A", "knows", "B"), relation("A", "knows", "Ghost")],
            &author,
        )
        .unwrap_err();
    assert_eq!(error.to_string(), "Entity with name Ghost not found");
    assert!(graph.read_graph().unwrap().relations.is_empty());
}

#[test]
fn import_and_export_round_trip_the_reference_file() {
    let (_dir, graph) = graph();
    let author = Author::new("cli", "import");
    let file = r#"{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea","two\nlines"]}
{"type":"entity","name":"Acme Corp","entityType":"company","observations":["tech company"]}
{"type":"entity","name":"Bob","entityType":"person","observations":[]}
{"type":"relation","from":"Alice","to":"Acme Corp","relationType":"works_at"}
{"type":"relation","from":"Bob","to":"Alice","relationType":"knows"}
{"type":"relation","from":"Bob","to":"Nobody","relationType":"knows"}
"#;
    let imported = graph.import(jsonl::parse(file).unwrap(), &author).unwrap();
    assert_eq!(
        (imported.entities, imported.observations, imported.relations),
        (3, 3, 2)
    );
    assert_eq!(
        imported.skipped_relations,
        [relation("Bob", "knows", "Nobody")]
    );
    // Importing again adds nothing.
    let again = graph.import(jsonl::parse(file).unwrap(), &author).unwrap();
    assert_eq!(
        (again.entities, again.observations, again.relations),
        (0, 0, 0)
    );

    let exported = jsonl::render(&graph.read_graph().unwrap());
    let sorted = |text: &str| {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.sort();
        lines
    };
    let mut expected = sorted(file);
    expected.retain(|l| !l.contains("Nobody"));
    assert_eq!(sorted(&exported), expected);
}
