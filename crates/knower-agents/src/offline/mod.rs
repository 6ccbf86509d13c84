//! The offline engine: Knower's agents without an LLM. Deterministic and
//! honest about it: routing by project names and search scores with an
//! explicit confidence (the inbox when unsure), answers that are the best
//! passages of the vault with their citations.

mod answer;
pub(crate) mod common;
mod content;
mod errands;
pub(crate) mod kind;
mod lexicon;
mod phrasing;
mod route;
pub(crate) mod stems;
mod update;
mod verbs;

pub use answer::{
    Evidence, Line, PASSAGES, Within, answer, answer_instead, evidence, passages_by_file,
};
pub use kind::{Kind, kind_of};
pub use route::{
    Answered, PROFILE_CONFIDENCE, PROFILE_SHARED_CONFIDENCE, Rules, SOLE_HOLDER_CONFIDENCE,
    read_answer, route,
};
