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
    /// How much a passage's note lifts it: its fused score gains
    /// `note_lift` times how much its note is about the query, by words and
    /// meaning ([`lift_by_note`]).
    pub note_lift: f32,
}

impl Default for Fusions {
    fn default() -> Fusions {
        Fusions {
            passages: Fusion::default(),
            notes: Fusion::Scores {
                bm25_weight: 0.5,
                cosine_floor: 0.0,
            },
            note_lift: NOTE_LIFT,
        }
    }
}

/// The passages' lift by their note, chosen on LoCoMo's tuning half
/// (BENCHMARKS.md, "A passage lifted by its note").
pub const NOTE_LIFT: f32 = 0.5;

impl Fusions {
    /// One fusion for both rankings (the benchmark's sweep).
    pub fn both(fusion: Fusion) -> Fusions {
        Fusions {
            passages: fusion,
            notes: fusion,
            note_lift: NOTE_LIFT,
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
    /// How much the passage's note is about the query, 0 to 1: its BM25
    /// over whole notes as a share of the best note's, times its closest
    /// passage's cosine as a share of the best; when the note was among
    /// the best (see [`lift_by_note`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<f32>,
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
    best_first(&mut fused);
    fused
}

/// Fused hits by score, then by BM25 rank, then by key: a stable order.
fn best_first<K: Ord>(fused: &mut [(K, Trace)]) {
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
}

/// Lifts each fused passage by its note, `weight` times the note's share
/// of the best note's BM25 over whole notes (`note_of`: the passage's note,
/// a number, and that share, for the notes among the best) times how close
/// in meaning the note's closest passage among the candidates comes (its
/// cosine over the best cosine), and orders them again.
///
/// A passage's own words are few: the turn that answers "when did Caroline
/// go to the support group?" may share one word with it, while its session
/// shares many, so of two passages alike the one in the note most about the
/// question is the likelier answer (on LoCoMo, 0.02 more of the evidence).
/// Words alone would also lift the notes a paraphrase's incidental words
/// point to; the meaning's share keeps those down (BENCHMARKS.md, "A
/// passage lifted by its note").
pub fn lift_by_note<K: Copy + Ord>(
    fused: &mut [(K, Trace)],
    weight: f32,
    note_of: &dyn Fn(K) -> Option<(u32, f32)>,
) {
    if weight <= 0.0 {
        return;
    }
    let cos_max = fused
        .iter()
        .filter_map(|(_, t)| t.cosine)
        .fold(0.0_f32, f32::max);
    // How close in meaning each note's closest candidate passage comes.
    let mut meant: HashMap<u32, f32> = HashMap::new();
    for (key, trace) in fused.iter() {
        if let (Some((note, _)), Some(c)) = (note_of(*key), trace.cosine)
            && cos_max > 0.0
        {
            let share = (c / cos_max).clamp(0.0, 1.0);
            let best = meant.entry(note).or_insert(0.0);
            *best = best.max(share);
        }
    }
    for (key, trace) in fused.iter_mut() {
        trace.note =
            note_of(*key).map(|(note, words)| words * meant.get(&note).copied().unwrap_or(0.0));
        trace.fused += weight * trace.note.unwrap_or(0.0);
    }
    best_first(fused);
}

/// A candidate as the rerank stage sees it.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Identifies the candidate to the caller; a reranker keeps it as is.
    pub id: usize,
    pub path: String,
    /// The note's title and the passage's headings: the context a reader
    /// (or a cross-encoder) has beside the text.
    pub title: String,
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
    fn a_passage_of_the_note_most_about_the_query_is_lifted_first() {
        // Two passages alike by their own words and meaning, and a third
        // far in meaning…
        let bm25 = [(d(1), 5.0), (d(2), 5.0), (d(3), 4.0)];
        let vector = [(d(1), 0.5), (d(2), 0.5), (d(3), 0.1)];
        let fused = fuse(Fusion::default(), &bm25, &vector, &|_| None);
        assert_eq!(fused[0].0, d(1), "the BM25 rank breaks the tie");
        // …the second in the best note by words, the first in a note half
        // as good; the third alone in its note, as good as the best by
        // words but far from the query in meaning.
        let note_of = |doc| match doc {
            doc if doc == d(1) => Some((7, 0.5)),
            doc if doc == d(2) => Some((8, 1.0)),
            doc if doc == d(3) => Some((9, 1.0)),
            _ => None,
        };
        let mut lifted = fused.clone();
        lift_by_note(&mut lifted, NOTE_LIFT, &note_of);
        let order: Vec<DocAddress> = lifted.iter().map(|(doc, _)| *doc).collect();
        assert_eq!(order, [d(2), d(1), d(3)]);
        assert_eq!(lifted[0].1.note, Some(1.0));
        assert!((lifted[0].1.fused - (fused[0].1.fused + NOTE_LIFT)).abs() < 1e-6);
        // Words without meaning lift little: 1.0 × 0.1 / 0.5.
        let third = lifted.iter().find(|(doc, _)| *doc == d(3)).unwrap();
        assert!((third.1.note.unwrap() - 0.2).abs() < 1e-6, "{third:?}");
        // No lift leaves the fusion as it was, and says nothing of notes.
        let mut unlifted = fused.clone();
        lift_by_note(&mut unlifted, 0.0, &note_of);
        assert_eq!(unlifted, fused);
        assert_eq!(unlifted[0].1.note, None);
    }

    #[test]
    fn empty_lists_fuse_to_nothing() {
        assert!(fuse::<u32>(Fusion::default(), &[], &[], &|_| None).is_empty());
    }
}
