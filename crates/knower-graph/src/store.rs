//! The graph's operations, each one vault change made under the vault's
//! lock (so two clients cannot interleave a read-modify-write) and
//! journaled as one record (so `knower undo` takes back a whole call).
//! Semantics follow the reference memory server: duplicates are skipped,
//! observations and relations need existing entities, deleting an entity
//! deletes the relations that touch it, deleting what is not there is not
//! an error.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use knower_vault::{Author, Batch, Vault, slug};

use crate::model::{
    AddedObservations, Entity, KnowledgeGraph, ObservationAddition, ObservationDeletion, Relation,
};
use crate::note::{self, Note};

/// The folder of entity notes.
pub const FOLDER: &str = "graph";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The reference server's own message, which clients may match on.
    #[error("Entity with name {0} not found")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Vault(#[from] knower_vault::Error),
}

pub type Result<T> = std::result::Result<T, Error>;

#[derive(Clone)]
pub struct Graph {
    vault: Arc<Vault>,
}

/// The entities as stored: name → (note path, note text, parsed note).
struct Stored {
    entities: BTreeMap<String, StoredEntity>,
}

struct StoredEntity {
    path: String,
    text: String,
    note: Note,
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Imported {
    pub entities: usize,
    pub observations: usize,
    pub relations: usize,
    /// Relations naming an entity the file does not have.
    pub skipped_relations: Vec<Relation>,
}

impl Graph {
    pub fn new(vault: Arc<Vault>) -> Graph {
        Graph { vault }
    }

    pub fn vault(&self) -> &Arc<Vault> {
        &self.vault
    }

    /// The whole graph: entities in note order, each entity's relations in
    /// the order of its note.
    pub fn read_graph(&self) -> Result<KnowledgeGraph> {
        self.read(|stored| Ok(stored.graph(|_| true)))
    }

    /// Entities whose name, type or an observation contains `query`
    /// (ignoring case), with every relation that touches one of them.
    pub fn search_nodes(&self, query: &str) -> Result<KnowledgeGraph> {
        let query = query.to_lowercase();
        self.read(|stored| {
            Ok(stored.graph(|note| {
                note.name.to_lowercase().contains(&query)
                    || note.entity_type.to_lowercase().contains(&query)
                    || note
                        .observations
                        .iter()
                        .any(|o| o.to_lowercase().contains(&query))
            }))
        })
    }

    /// The named entities, with every relation that touches one of them.
    pub fn open_nodes(&self, names: &[String]) -> Result<KnowledgeGraph> {
        let names: HashSet<&str> = names.iter().map(String::as_str).collect();
        self.read(|stored| Ok(stored.graph(|note| names.contains(note.name.as_str()))))
    }

    /// Creates the entities whose names are new; returns those it created.
    pub fn create_entities(&self, entities: Vec<Entity>, author: &Author) -> Result<Vec<Entity>> {
        for entity in &entities {
            check_name(&entity.name)?;
        }
        self.change(author, |stored, batch| {
            let mut created = Vec::new();
            for entity in entities {
                if stored.entities.contains_key(&entity.name) {
                    continue;
                }
                stored.create(batch, &entity)?;
                created.push(entity);
            }
            Ok(created)
        })
    }

    /// Creates the relations that are new; both ends must exist.
    pub fn create_relations(
        &self,
        relations: Vec<Relation>,
        author: &Author,
    ) -> Result<Vec<Relation>> {
        for relation in &relations {
            check_relation(relation)?;
        }
        self.change(author, |stored, batch| {
            // Both ends of every relation first: a failure changes nothing.
            for relation in &relations {
                for end in [&relation.from, &relation.to] {
                    if !stored.entities.contains_key(end) {
                        return Err(Error::NotFound(end.clone()));
                    }
                }
            }
            let mut created = Vec::new();
            let mut touched = BTreeSet::new();
            for relation in relations {
                let from = stored
                    .entities
                    .get_mut(&relation.from)
                    .expect("checked above");
                let pair = (relation.relation_type.clone(), relation.to.clone());
                if from.note.relations.contains(&pair) {
                    continue;
                }
                from.note.relations.push(pair);
                touched.insert(relation.from.clone());
                created.push(relation);
            }
            stored.save(batch, &touched)?;
            Ok(created)
        })
    }

    /// Adds the observations an entity does not have yet. Fails, changing
    /// nothing, if an entity does not exist.
    pub fn add_observations(
        &self,
        additions: Vec<ObservationAddition>,
        author: &Author,
    ) -> Result<Vec<AddedObservations>> {
        self.change(author, |stored, batch| {
            for addition in &additions {
                if !stored.entities.contains_key(&addition.entity_name) {
                    return Err(Error::NotFound(addition.entity_name.clone()));
                }
            }
            let mut results = Vec::new();
            let mut touched = BTreeSet::new();
            for addition in additions {
                let entity = stored
                    .entities
                    .get_mut(&addition.entity_name)
                    .expect("checked above");
                let mut added = Vec::new();
                for content in addition.contents {
                    if !entity.note.observations.contains(&content) {
                        entity.note.observations.push(content.clone());
                        added.push(content);
                    }
                }
                if !added.is_empty() {
                    touched.insert(addition.entity_name.clone());
                }
                results.push(AddedObservations {
                    entity_name: addition.entity_name,
                    added_observations: added,
                });
            }
            stored.save(batch, &touched)?;
            Ok(results)
        })
    }

    /// Deletes entities and every relation that touches them. Names that
    /// are not entities are ignored.
    pub fn delete_entities(&self, names: &[String], author: &Author) -> Result<()> {
        let names: HashSet<&str> = names.iter().map(String::as_str).collect();
        self.change(author, |stored, batch| {
            let doomed: Vec<String> = stored
                .entities
                .keys()
                .filter(|name| names.contains(name.as_str()))
                .cloned()
                .collect();
            for name in &doomed {
                let entity = stored.entities.remove(name).expect("listed");
                batch.delete(&entity.path)?;
            }
            let mut touched = BTreeSet::new();
            for (name, entity) in stored.entities.iter_mut() {
                let before = entity.note.relations.len();
                entity
                    .note
                    .relations
                    .retain(|(_, to)| !names.contains(to.as_str()));
                if entity.note.relations.len() != before {
                    touched.insert(name.clone());
                }
            }
            stored.save(batch, &touched)
        })
    }

    /// Deletes observations; entities or observations that are not there
    /// are ignored.
    pub fn delete_observations(
        &self,
        deletions: Vec<ObservationDeletion>,
        author: &Author,
    ) -> Result<()> {
        self.change(author, |stored, batch| {
            let mut touched = BTreeSet::new();
            for deletion in deletions {
                if let Some(entity) = stored.entities.get_mut(&deletion.entity_name) {
                    let before = entity.note.observations.len();
                    entity
                        .note
                        .observations
                        .retain(|o| !deletion.observations.contains(o));
                    if entity.note.observations.len() != before {
                        touched.insert(deletion.entity_name);
                    }
                }
            }
            stored.save(batch, &touched)
        })
    }

    /// Deletes relations; relations that are not there are ignored.
    pub fn delete_relations(&self, relations: Vec<Relation>, author: &Author) -> Result<()> {
        self.change(author, |stored, batch| {
            let mut touched = BTreeSet::new();
            for relation in relations {
                if let Some(from) = stored.entities.get_mut(&relation.from) {
                    let pair = (relation.relation_type, relation.to);
                    let before = from.note.relations.len();
                    from.note.relations.retain(|r| r != &pair);
                    if from.note.relations.len() != before {
                        touched.insert(relation.from);
                    }
                }
            }
            stored.save(batch, &touched)
        })
    }

    /// Merges a whole graph in (a reference `memory.jsonl`): new entities
    /// are created, observations added, relations created when both ends
    /// exist (the others are reported). One change, so one undo.
    pub fn import(&self, graph: KnowledgeGraph, author: &Author) -> Result<Imported> {
        for entity in &graph.entities {
            check_name(&entity.name)?;
        }
        for relation in &graph.relations {
            check_relation(relation)?;
        }
        self.change(author, |stored, batch| {
            let mut report = Imported::default();
            let mut touched = BTreeSet::new();
            for entity in graph.entities {
                match stored.entities.get_mut(&entity.name) {
                    None => {
                        report.entities += 1;
                        report.observations += entity.observations.len();
                        stored.create(batch, &entity)?;
                    }
                    Some(existing) => {
                        for observation in entity.observations {
                            if !existing.note.observations.contains(&observation) {
                                existing.note.observations.push(observation);
                                report.observations += 1;
                                touched.insert(entity.name.clone());
                            }
                        }
                    }
                }
            }
            for relation in graph.relations {
                if !stored.entities.contains_key(&relation.to) {
                    report.skipped_relations.push(relation);
                    continue;
                }
                let Some(from) = stored.entities.get_mut(&relation.from) else {
                    report.skipped_relations.push(relation);
                    continue;
                };
                let pair = (relation.relation_type, relation.to);
                if !from.note.relations.contains(&pair) {
                    from.note.relations.push(pair);
                    report.relations += 1;
                    touched.insert(relation.from);
                }
            }
            stored.save(batch, &touched)?;
            Ok(report)
        })
    }

    fn read<T>(&self, body: impl FnOnce(&Stored) -> Result<T>) -> Result<T> {
        // A batch that writes nothing leaves no journal record; it gives a
        // consistent view while another process writes.
        let author = Author::new("graph", "read");
        self.change(&author, |stored, _| body(stored))
    }

    fn change<T>(
        &self,
        author: &Author,
        body: impl FnOnce(&mut Stored, &mut Batch) -> Result<T>,
    ) -> Result<T> {
        let mut failure = None;
        let outcome = self.vault.batch(author, |batch| {
            let mut stored = match Stored::load(batch) {
                Ok(stored) => stored,
                Err(e) => {
                    failure = Some(e);
                    return Ok(None);
                }
            };
            match body(&mut stored, batch) {
                Ok(value) => Ok(Some(value)),
                Err(Error::Vault(e)) => Err(e),
                Err(e) => {
                    failure = Some(e);
                    Ok(None)
                }
            }
        });
        match (outcome, failure) {
            (_, Some(e)) => Err(e),
            (Ok((Some(value), _)), None) => Ok(value),
            (Ok((None, _)), None) => unreachable!("no value only with a failure"),
            (Err(e), None) => Err(e.into()),
        }
    }
}

impl Stored {
    fn load(batch: &mut Batch) -> Result<Stored> {
        let mut entities = BTreeMap::new();
        for path in batch.files_under(FOLDER)? {
            if !path.as_str().ends_with(".md") {
                continue;
            }
            // A note that cannot be read as text is not an entity.
            let Ok(Some(text)) = batch.read(path.as_str()) else {
                continue;
            };
            if let Some(note) = note::parse(&text) {
                entities.entry(note.name.clone()).or_insert(StoredEntity {
                    path: path.as_str().to_string(),
                    text,
                    note,
                });
            }
        }
        Ok(Stored { entities })
    }

    fn graph(&self, wanted: impl Fn(&Note) -> bool) -> KnowledgeGraph {
        let chosen: HashSet<&str> = self
            .entities
            .values()
            .filter(|e| wanted(&e.note))
            .map(|e| e.note.name.as_str())
            .collect();
        let mut all: Vec<&StoredEntity> = self.entities.values().collect();
        all.sort_by(|a, b| a.path.cmp(&b.path));
        let relations = all
            .iter()
            .flat_map(|e| {
                e.note.relations.iter().map(|(kind, to)| Relation {
                    from: e.note.name.clone(),
                    to: to.clone(),
                    relation_type: kind.clone(),
                })
            })
            .filter(|r| chosen.contains(r.from.as_str()) || chosen.contains(r.to.as_str()))
            .collect();
        KnowledgeGraph {
            entities: all
                .into_iter()
                .filter(|e| chosen.contains(e.note.name.as_str()))
                .map(|e| Entity {
                    name: e.note.name.clone(),
                    entity_type: e.note.entity_type.clone(),
                    observations: e.note.observations.clone(),
                })
                .collect(),
            relations,
        }
    }

    fn create(&mut self, batch: &mut Batch, entity: &Entity) -> Result<()> {
        let taken: HashSet<&str> = self.entities.values().map(|e| e.path.as_str()).collect();
        let base = match slug(&entity.name) {
            s if s.is_empty() => "entity".to_string(),
            s => s
                .chars()
                .take(80)
                .collect::<String>()
                .trim_end_matches('-')
                .to_string(),
        };
        let mut path = format!("{FOLDER}/{base}.md");
        let mut n = 1;
        // Another note may already have the name (a person's, or an entity
        // whose name differs only in case or punctuation).
        while taken.contains(path.as_str()) || batch.read(&path)?.is_some() {
            n += 1;
            path = format!("{FOLDER}/{base}-{n}.md");
        }
        let text = note::render(&entity.name, &entity.entity_type, &entity.observations);
        batch.write(&path, &text)?;
        self.entities.insert(
            entity.name.clone(),
            StoredEntity {
                path,
                note: Note {
                    name: entity.name.clone(),
                    entity_type: entity.entity_type.clone(),
                    observations: entity.observations.clone(),
                    relations: Vec::new(),
                },
                text,
            },
        );
        Ok(())
    }

    /// Writes back the notes of the named entities.
    fn save(&mut self, batch: &mut Batch, names: &BTreeSet<String>) -> Result<()> {
        for name in names {
            let Some(entity) = self.entities.get_mut(name) else {
                continue;
            };
            let text = note::rewrite(
                &entity.text,
                &entity.note.observations,
                &entity.note.relations,
            );
            batch.write(&entity.path, &text)?;
            entity.text = text;
        }
        Ok(())
    }
}

/// Names become note titles and `[[links]]`: no line breaks, no link
/// brackets, not empty.
fn check_name(name: &str) -> Result<()> {
    if name.trim().is_empty() {
        return Err(Error::Invalid("an entity's name cannot be empty".into()));
    }
    if name.contains(['\n', '\r', '|']) || name.contains("[[") || name.contains("]]") {
        return Err(Error::Invalid(format!(
            "the entity name {name:?} cannot be a note link: names may not contain line breaks, `|`, `[[` or `]]`"
        )));
    }
    Ok(())
}

fn check_relation(relation: &Relation) -> Result<()> {
    check_name(&relation.from)?;
    check_name(&relation.to)?;
    let kind = &relation.relation_type;
    if kind.trim().is_empty()
        || kind.trim() != kind
        || kind.contains(['\n', '\r'])
        || kind.contains("[[")
    {
        return Err(Error::Invalid(format!(
            "the relation type {kind:?} must be one line of text without `[[` or surrounding spaces"
        )));
    }
    Ok(())
}
