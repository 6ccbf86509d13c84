//! Deep mode's ranking: the BM25 and vector rankings fused into one, then a
//! rerank stage.
//!
//! Why not plain reciprocal rank fusion: RRF throws the scores away and
//! gives both lists the same vote, so on LoCoMo the weaker list (MiniLM
//! alone) drags the stronger one (BM25) down. We fuse *scores* instead, each
//! list normalised by its best hit (BM25 by its top score, cosine by its
//! top similarity above a floor), with BM25 weighted more. Every candidate
//! has a cosine (vector search is exhaustive), so a strong keyword hit that
//! is semantically close is lifted and a keyword-free paraphrase can still
//! win. The weights were chosen on LoCoMo and checked on qmd_eval; see
//! BENCHMARKS.md.

use std::collections::HashMap;
use std::hash::Hash;

use serde::Serialize;

/// How the two rankings are combined.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fusion {
    /// `w·bm25/bm25_max + (1−w)·(cos−floor)/(cos_max−floor)`.
    Scores { bm25_weight: f32, cosine_floor: f32 },
    /// `Σ weight/(k + rank)` — kept to measure against.
    Rrf { k: f32, bm25_weight: f32 },
}

impl Default for Fusion {
    fn default() -> Fusion {
        Fusion::Scores {
            bm25_weight: 0.6,
            cosine_floor: 0.0,
        }
    }
}

/// The fusion of each ranking deep mode makes. Whole notes want more of the
/// vector side than passages do: a note's BM25 already sees all its words,
/// and its best passage's cosine adds what they miss. Chosen on the tuning
/// halves of Cranfield, CISI, CACM and LoCoMo (BENCHMARKS.md, "A fusion of
/// its own for whole notes").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fusions {
    pub passages: Fusion,
    pub notes: Fusion,
}

impl Default for Fusions {
    fn default() -> Fusions {
        Fusions {
            passages: Fusion::default(),
            notes: Fusion::Scores {
                bm25_weight: 0.5,
                cosine_floor: 0.0,
            },
        }
    }
}

impl Fusions {
    /// One fusion for both rankings (the benchmark's sweep).
    pub fn both(fusion: Fusion) -> Fusions {
        Fusions {
            passages: fusion,
            notes: fusion,
        }
    }
}

/// Where a fused hit came from, for `--explain`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Trace {
    /// 1-based rank in the BM25 list, if it was in it.
    pub bm25_rank: Option<usize>,
    pub bm25_score: Option<f32>,
    /// 1-based rank by cosine, if among the vector list's candidates.
    pub vector_rank: Option<usize>,
    pub cosine: Option<f32>,
    pub fused: f32,
}

/// Fuses a BM25 list and a vector list (each best first) into one ranking,
/// best first. `cosine_of` gives the cosine of a BM25 hit beyond the vector
/// list's cut (vector search scores every chunk); its vector rank is then
/// unknown (`None`), only known to be worse than the list's. The lists rank
/// passages (`K` = a document) or whole notes (`K` = a note's number).
pub fn fuse<K: Copy + Eq + Hash + Ord>(
    fusion: Fusion,
    bm25: &[(K, f32)],
    vector: &[(K, f32)],
    cosine_of: &dyn Fn(K) -> Option<f32>,
) -> Vec<(K, Trace)> {
    let mut traces: HashMap<K, Trace> = HashMap::new();
    for (rank, (doc, score)) in bm25.iter().enumerate() {
        let t = traces.entry(*doc).or_default();
        t.bm25_rank = Some(rank + 1);
        t.bm25_score = Some(*score);
    }
    for (rank, (doc, cosine)) in vector.iter().enumerate() {
        let t = traces.entry(*doc).or_default();
        t.vector_rank = Some(rank + 1);
        t.cosine = Some(*cosine);
    }
    for (doc, t) in traces.iter_mut() {
        if t.cosine.is_none() {
            t.cosine = cosine_of(*doc);
        }
    }
    match fusion {
        Fusion::Scores {
            bm25_weight,
            cosine_floor,
        } => {
            let bm25_max = bm25.first().map_or(0.0, |(_, s)| *s);
            let cos_max = vector.first().map_or(0.0, |(_, c)| *c);
            for t in traces.values_mut() {
                let keyword = match t.bm25_score {
                    Some(s) if bm25_max > 0.0 => s / bm25_max,
                    _ => 0.0,
                };
                let semantic = match t.cosine {
                    Some(c) if cos_max > cosine_floor => {
                        ((c - cosine_floor) / (cos_max - cosine_floor)).max(0.0)
                    }
                    _ => 0.0,
                };
                t.fused = bm25_weight * keyword + (1.0 - bm25_weight) * semantic;
            }
        }
        Fusion::Rrf { k, bm25_weight } => {
            for t in traces.values_mut() {
                t.fused = t.bm25_rank.map_or(0.0, |r| bm25_weight / (k + r as f32))
                    + t.vector_rank
                        .map_or(0.0, |r| (1.0 - bm25_weight) / (k + r as f32));
            }
        }
    }
    let mut fused: Vec<(K, Trace)> = traces.into_iter().collect();
    fused.sort_by(|a, b| {
        b.1.fused
            .total_cmp(&a.1.fused)
            .then_with(|| {
                a.1.bm25_rank
                    .unwrap_or(usize::MAX)
                    .cmp(&b.1.bm25_rank.unwrap_or(usize::MAX))
            })
            .then_with(|| a.0.cmp(&b.0))
    });
    fused
}

/// A candidate as the rerank stage sees it.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Identifies the candidate to the caller; a reranker keeps it as is.
    pub id: usize,
    pub path: String,
    pub heading: String,
    pub text: String,
    pub score: f32,
}

/// A second opinion on the fused order: a cross-encoder or an LLM can judge
/// each (query, passage) pair. It may reorder and rescore the candidates.
pub trait Rerank: Send + Sync {
    fn name(&self) -> &str;
    fn rerank(&self, query: &str, candidates: &mut Vec<Candidate>) -> crate::Result<()>;
}

/// The default: the fused order stands.
pub struct KeepOrder;

impl Rerank for KeepOrder {
    fn name(&self) -> &str {
        "none"
    }
    fn rerank(&self, _query: &str, _candidates: &mut Vec<Candidate>) -> crate::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::DocAddress;

    fn d(n: u32) -> DocAddress {
        DocAddress::new(0, n)
    }

    #[test]
    fn score_fusion_keeps_a_strong_keyword_hit_first() {
        let bm25 = [(d(1), 10.0), (d(2), 3.0)];
        let vector = [(d(3), 0.62), (d(2), 0.60), (d(1), 0.55)];
        let fused = fuse(Fusion::default(), &bm25, &vector, &|_| None);
        assert_eq!(fused[0].0, d(1));
        let t = &fused[0].1;
        assert_eq!((t.bm25_rank, t.vector_rank), (Some(1), Some(3)));
        // A paraphrase with no keyword still appears.
        assert!(fused.iter().any(|(doc, _)| *doc == d(3)));
    }

    #[test]
    fn rrf_counts_ranks_only() {
        let bm25 = [(d(1), 100.0), (d(2), 1.0)];
        let vector = [(d(2), 0.9), (d(1), 0.1)];
        let fused = fuse(
            Fusion::Rrf {
                k: 60.0,
                bm25_weight: 0.5,
            },
            &bm25,
            &vector,
            &|_| None,
        );
        assert!((fused[0].1.fused - fused[1].1.fused).abs() < 1e-6);
    }

    #[test]
    fn empty_lists_fuse_to_nothing() {
        assert!(fuse::<u32>(Fusion::default(), &[], &[], &|_| None).is_empty());
    }
}
