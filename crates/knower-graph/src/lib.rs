//! The knowledge graph of the reference MCP "memory" server (entities with
//! a type and observations, typed relations between them), stored as notes
//! in the vault rather than in a JSON file, so it is readable, searchable,
//! journaled and undoable like everything else.
//!
//! One entity is one note in `graph/` ([`note`] has the format); every
//! operation of [`Graph`] is one vault change, made under the vault's lock.
//! [`jsonl`] reads and writes the reference server's `memory.jsonl`.

pub mod jsonl;
mod model;
pub mod note;
mod store;

pub use model::{
    AddedObservations, Entity, KnowledgeGraph, ObservationAddition, ObservationDeletion, Relation,
};
pub use store::{Error, FOLDER, Graph, Result};
