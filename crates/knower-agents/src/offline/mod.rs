//! The offline engine: Knower's agents without an LLM. Deterministic and
//! honest about it: routing by project names and search scores with an
//! explicit confidence (the inbox when unsure), answers that are the best
//! passages of the vault with their citations.

mod answer;
mod route;
mod update;

pub use answer::{answer, answer_without};

/// The words of `text` as the index sees them: stop words dropped, the
/// rest stemmed (book, booked, booking are one), sorted and unique. What
/// routing and answers compare, so they agree with search.
pub(crate) fn index_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = knower_index::analyzer::terms(text)
        .into_iter()
        .filter(|(_, _, compound)| !compound)
        .map(|(term, _, _)| term)
        .collect();
    words.sort();
    words.dedup();
    words
}
pub use route::{Answered, Decision, Kind, kind_of, read_answer, route};
