//! The agents with a model: the tool loop ([`run`]), the update agent
//! (`update`) and the search agent (`ask`); a grounded model's filing
//! (`choose`).

mod ask;
mod choose;
pub(crate) mod run;
mod update;

pub use run::{CallRecord, Stop};
