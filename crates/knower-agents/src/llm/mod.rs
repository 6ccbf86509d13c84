//! The agents with a model: the tool loop ([`run`]), the update agent
//! (`update`) and the search agent (`ask`).

mod ask;
pub(crate) mod run;
mod update;

pub use run::{CallRecord, Stop};
