//! A cross-encoder reranker for deep search: a BERT-family
//! `…ForSequenceClassification` model (cross-encoder/ms-marco-MiniLM-L-6-v2
//! and its smaller siblings) reads the query and a passage together and
//! scores how well the passage answers it. It judges the best
//! [`JUDGED`] fused candidates; the rest follow in the fused order.
//!
//! It is off unless `[search] rerank_model` (or `KNOWER_RERANK_MODEL`)
//! names one, found and downloaded as the embedding model is
//! ([`crate::embed::locate`]): no cross-encoder's weights could be had on
//! the machines Knower is measured on, so its effect on quality is
//! unmeasured there and it is not a default (BENCHMARKS.md).

use rayon::prelude::*;
use tokenizers::Tokenizer;

use crate::embed::{self, ModelFiles, Opened, Padded};
use crate::encoder::{Classifier, Encoder};
use crate::error::{Error, Result};
use crate::fusion::{Candidate, Rerank};

/// Cross-encoders for search are trained on pairs of up to 512 word
/// pieces (ms-marco's); a passage of 750 characters is about 190.
const MAX_TOKENS: usize = 512;

/// How many of the fused candidates the cross-encoder judges: each costs a
/// forward pass over the query and the passage, so a long list (`-n 100`)
/// is judged at its head only.
pub const JUDGED: usize = 20;

/// A loaded cross-encoder.
pub struct CrossEncoder {
    model: Encoder,
    head: Classifier,
    tokenizer: Tokenizer,
    device: candle_core::Device,
    name: String,
}

impl CrossEncoder {
    /// Loads the model in `files`. A folder that is not a sequence
    /// classifier (an embedding model named by mistake) is refused: its
    /// scores would mean nothing.
    pub fn load(files: &ModelFiles) -> Result<CrossEncoder> {
        let dir = &files.dir;
        let broken = |message: String| Error::Model {
            path: dir.clone(),
            message,
        };
        let Opened {
            config,
            tokenizer,
            weights,
            device,
        } = embed::open_folder(dir, MAX_TOKENS)?;
        if !config
            .architectures
            .iter()
            .any(|a| a.ends_with("ForSequenceClassification"))
        {
            return Err(broken(format!(
                "not a cross-encoder: config.json declares {:?}, where a reranker \
                 is a …ForSequenceClassification model such as cross-encoder/ms-marco-MiniLM-L-6-v2",
                config.architectures
            )));
        }
        let labels = config.labels();
        if labels != 1 {
            return Err(broken(format!(
                "a classifier of {labels} labels, where a reranker gives one score per pair"
            )));
        }
        let fits = |e: candle_core::Error| {
            broken(format!("model.safetensors does not fit config.json: {e}"))
        };
        let model = Encoder::load(weights.clone(), &config).map_err(fits)?;
        let head = Classifier::load(&weights, &config).map_err(fits)?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "cross-encoder".into());
        let encoder = CrossEncoder {
            model,
            head,
            tokenizer,
            device,
            name,
        };
        // One pass proves the weights and tokenizer work together.
        encoder
            .scores("probe", &["probe"])
            .map_err(|e| broken(format!("the model does not run: {e}")))?;
        Ok(encoder)
    }

    /// The model's score (a logit: higher is more relevant) of each
    /// passage for `query`, in order.
    pub fn scores(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>> {
        let pairs: Vec<(&str, &str)> = passages.iter().map(|p| (query, *p)).collect();
        let encodings = self
            .tokenizer
            .encode_batch(pairs, true)
            .map_err(|e| self.fail(format!("tokenizing: {e}")))?;
        let batches = embed::batches_by_length(&encodings);
        let scored: Vec<Vec<f32>> = batches
            .par_iter()
            .map(|batch| {
                let padded = Padded::of(&batch.iter().map(|&i| &encodings[i]).collect::<Vec<_>>());
                let hidden = self.model.forward_typed(
                    &padded.ids,
                    Some(&padded.types),
                    &padded.lengths,
                    &self.device,
                )?;
                self.head
                    .scores(&hidden, padded.lengths.len(), padded.length)
            })
            .collect::<candle_core::Result<_>>()
            .map_err(|e| self.fail(e.to_string()))?;
        let mut out = vec![0f32; passages.len()];
        for (batch, scores) in batches.iter().zip(scored) {
            for (&i, score) in batch.iter().zip(scores) {
                out[i] = score;
            }
        }
        Ok(out)
    }

    fn fail(&self, message: String) -> Error {
        Error::Model {
            path: format!("(cross-encoder {})", self.name).into(),
            message,
        }
    }
}

impl Rerank for CrossEncoder {
    fn name(&self) -> &str {
        &self.name
    }

    /// The first [`JUDGED`] candidates are ordered by the model's
    /// probability that they answer the query (the logit's sigmoid, as
    /// sentence-transformers reports it), which becomes their score; the
    /// rest keep the fused order after them, scored 0: not judged.
    fn rerank(&self, query: &str, candidates: &mut Vec<Candidate>) -> Result<()> {
        let judged = candidates.len().min(JUDGED);
        let texts: Vec<String> = candidates[..judged]
            .iter()
            .map(|c| crate::chunk::embedding_text(&c.title, &c.heading, &c.text))
            .collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let scores = self.scores(query, &texts)?;
        for (candidate, logit) in candidates.iter_mut().zip(scores) {
            candidate.score = 1.0 / (1.0 + (-logit).exp());
        }
        for candidate in &mut candidates[judged..] {
            candidate.score = 0.0;
        }
        // Stable: equal scores keep the fused order.
        candidates[..judged].sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(())
    }
}
