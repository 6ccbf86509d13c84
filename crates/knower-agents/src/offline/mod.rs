//! The offline engine: Knower's agents without an LLM. Deterministic and
//! honest about it: routing by project names and search scores with an
//! explicit confidence (the inbox when unsure), answers that are the best
//! passages of the vault with their citations.

mod answer;
mod route;
mod update;

pub use answer::{answer, answer_without};
pub use route::{Answered, Decision, Kind, kind_of, read_answer, route};
