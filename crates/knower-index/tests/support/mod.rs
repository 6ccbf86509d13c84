//! What the index's tests share beyond `knower_testkit`: the probability
//! the test cross-encoder gives a passage, computed as the rerank stage
//! shows passages to it.

/// The probability `encoder` gives a passage (its title, headings and
/// text) of answering `query`.
pub fn probability(
    encoder: &knower_index::rerank::CrossEncoder,
    query: &str,
    (title, heading, text): (&str, &str, &str),
) -> f32 {
    let passage = knower_index::chunk::embedding_text(title, heading, text);
    let logit = encoder.scores(query, &[&passage]).unwrap()[0];
    1.0 / (1.0 + (-logit).exp())
}
