//! [`Index`]: the search index of one vault, kept current as a stage of the
//! vault's write pipeline.
//!
//! - BM25 is updated synchronously by a vault listener, so a file is
//!   searchable by keyword as soon as the change that wrote it returns.
//! - Vectors follow: [`Index::embed_pending`] embeds the chunks that have
//!   none yet, called by a background thread ([`Index::spawn_embedder`]) in
//!   long-running processes and before a deep search in one-shot ones.
//! - At open, the index catches up with the vault by comparing each file's
//!   indexed hash with the manifest's: changes made while no Knower process
//!   ran, or by another process, are picked up without a rebuild.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use knower_vault::{Changed, EntryKind, Hash, INTERNAL_DIR, Vault, VaultPath};
use serde::Serialize;
use sha2::{Digest, Sha256};
use tantivy::{DocAddress, Searcher};

use crate::bm25::{self, Bm25, Ranked};
use crate::chunk::{self, Budget};
use crate::config::SearchConfig;
use crate::embed::{self, Embedder};
use crate::error::{Error, Result};
use crate::fusion::{self, Candidate, Fusions, KeepOrder, Rerank, Trace};
use crate::query::{Query, Scope};
use crate::rerank::CrossEncoder;
use crate::vectors::{self, VectorStore};

/// How the results are ranked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// BM25 only: instant, no model.
    #[default]
    Fast,
    /// BM25 and vectors fused, then reranked.
    Deep,
    /// Vectors only (to measure and to debug).
    Vector,
}

impl std::str::FromStr for Mode {
    type Err = String;

    /// `fast`, `deep` or `vector`, as the APIs and the MCP tools name them.
    fn from_str(name: &str) -> std::result::Result<Mode, String> {
        match name {
            "fast" => Ok(Mode::Fast),
            "deep" => Ok(Mode::Deep),
            "vector" => Ok(Mode::Vector),
            other => Err(format!("mode `{other}` is not one of fast, deep, vector")),
        }
    }
}

#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub mode: Mode,
    /// `project:NAME` or a path prefix; overrides one written in the query.
    pub scope: Option<String>,
    pub limit: usize,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            mode: Mode::Fast,
            scope: None,
            limit: 10,
        }
    }
}

/// One result: a chunk of a note.
#[derive(Clone, Debug, Serialize)]
pub struct Hit {
    pub path: String,
    pub title: String,
    pub heading: String,
    pub line_start: usize,
    pub line_end: usize,
    pub score: f32,
    /// A passage of the chunk around the matched terms.
    pub snippet: String,
    /// Byte ranges of matched terms in `snippet`.
    #[serde(skip)]
    pub marks: Vec<std::ops::Range<usize>>,
    /// The whole chunk.
    #[serde(skip)]
    pub text: String,
    /// How the hit was ranked (deep mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Trace>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Results {
    pub hits: Vec<Hit>,
    /// Said once per process: why deep search used BM25 only.
    pub notice: Option<String>,
    /// The mode that actually ranked the hits.
    pub mode: Mode,
}

/// What catching up did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CatchUp {
    /// The index was damaged or of another layout, and was rebuilt.
    pub rebuilt: bool,
    pub indexed: usize,
    pub removed: usize,
}

/// What is not searchable yet, for `knower status`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IndexStatus {
    pub files: usize,
    pub chunks: usize,
    /// Files whose current version BM25 does not have yet.
    pub files_pending: Vec<String>,
    /// Chunks without a vector; `None` when no model is available.
    pub vectors_pending: Option<usize>,
    /// The model folder in use, or why there is none.
    pub model: Option<String>,
    pub model_problem: Option<String>,
    /// The folder of the cross-encoder deep search is reranked by, or why
    /// the one configured is not at hand; both `None` when none is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reranker: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reranker_problem: Option<String>,
    /// The languages the passages are written in, most passages first
    /// (those too short to tell are not counted).
    pub languages: Vec<LanguageCount>,
}

/// How many passages are in one language.
#[derive(Clone, Debug, Serialize)]
pub struct LanguageCount {
    /// ISO 639-3, as whatlang names it (`eng`, `deu`, `jpn`, `cmn`).
    pub code: String,
    pub name: String,
    pub passages: usize,
}

/// What a search ranks: passages, or whole notes shown by a passage.
#[derive(Clone, Copy, PartialEq)]
enum Unit {
    Passage,
    Note,
}

/// What deep mode over whole notes works on, for one query.
struct WholeNotes<'a> {
    semantic: &'a Semantic,
    searcher: &'a Searcher,
    /// The query as passages are ranked (feedback, the passage shown)…
    query: &'a dyn tantivy::query::Query,
    /// …and as whole notes are.
    notes_query: &'a dyn tantivy::query::Query,
    allowed: Option<&'a HashSet<DocAddress>>,
}

/// The vector side of one query (see [`Index::cosines`]).
struct Cosines {
    top: Vec<(DocAddress, f32)>,
    others: HashMap<DocAddress, f32>,
}

/// What [`Index::similarity_to`] finds: the cosine to each file asked
/// about, then to each other text (`None` where there is no vector).
pub type Closeness = (Vec<Option<f32>>, Vec<Option<f32>>);

/// Each live chunk's document and its row in the vector store.
type VectorTable = Arc<Vec<(DocAddress, usize)>>;

struct Semantic {
    embedder: Arc<Embedder>,
    store: Mutex<VectorStore>,
    /// The table for (the index's segments, vectors known).
    table: Mutex<Option<(u64, usize, VectorTable)>>,
}

pub struct Index {
    vault: Arc<Vault>,
    config: SearchConfig,
    dir: PathBuf,
    bm25: Bm25,
    /// Serialises this process's writers; tantivy's lock serialises processes.
    writing: Mutex<()>,
    semantic: OnceLock<std::result::Result<Semantic, String>>,
    /// (documents' generation, vectors stored) when every chunk last had
    /// its vector: [`Index::prepare`] has nothing to do while it holds.
    embedded: Mutex<Option<(u64, usize)>>,
    fusions: Mutex<Fusions>,
    /// A rerank stage set by the caller, in place of the configured one.
    rerank: Mutex<Option<Arc<dyn Rerank>>>,
    /// `rerank_model`'s cross-encoder, loaded on first use; the error is
    /// kept and told once, and deep search keeps the fused order.
    cross_encoder: OnceLock<std::result::Result<Arc<CrossEncoder>, String>>,
    fallback_told: AtomicBool,
    rerank_told: AtomicBool,
    /// Wakes the background embedder.
    wake: Arc<(Mutex<bool>, Condvar)>,
    /// Set when open found the index damaged; reported by the next catch-up.
    rebuilt: AtomicBool,
    /// Failures of the listener, which has no caller to return them to.
    problems: Mutex<Vec<String>>,
    budget: Budget,
}

/// How many BM25 and vector candidates deep mode fuses.
const CANDIDATES: usize = 100;

/// Deep mode hands this many fused candidates (or the limit, if more) to the
/// rerank stage.
const RERANKED: usize = 20;
/// What to do about a reranker that cannot be loaded.
const RERANK_HINT: &str =
    "`[search] rerank_model` or KNOWER_RERANK_MODEL names a cross-encoder's folder or repository";

/// How many of the best notes lift their passages in deep mode: beyond
/// them a note's lift would be small, and a passage there rarely ranks.
const LIFTING_NOTES: usize = 50;

/// Deep search over whole notes takes this many passages per candidate note
/// from the vector side, since several passages may be one note's.
const NOTE_PASSAGES: usize = 3;

/// Pseudo-relevance feedback of deep mode: the query vector moves towards
/// the top keyword matches' vectors by this weight (shared among them).
/// Chosen on LoCoMo: 3 chunks at 0.5 gained +0.006 evidence recall at 1,000
/// tokens; 5 chunks or a weight of 1.0 gained less (BENCHMARKS.md).
const FEEDBACK_CHUNKS: usize = 3;
const FEEDBACK_WEIGHT: f32 = 0.5;

impl Index {
    /// Opens (or creates, or rebuilds) the index of `vault` and subscribes
    /// it to the vault's changes. Call [`Index::catch_up`] next.
    pub fn open(vault: Arc<Vault>) -> Result<Arc<Index>> {
        let config = SearchConfig::load(&vault)?;
        let dir = vault.root().join(INTERNAL_DIR).join("index");
        // Passages of another size are another index: rebuilt, not mixed.
        let layout = format!("chunk_chars={}", config.chunk_chars);
        let (bm25, rebuilt) = Bm25::open(&dir, &layout)?;
        let index = Arc::new(Index {
            vault: vault.clone(),
            budget: config.budget(),
            config,
            dir,
            bm25,
            writing: Mutex::new(()),
            semantic: OnceLock::new(),
            embedded: Mutex::new(None),
            fusions: Mutex::new(Fusions::default()),
            rerank: Mutex::new(None),
            cross_encoder: OnceLock::new(),
            fallback_told: AtomicBool::new(false),
            rerank_told: AtomicBool::new(false),
            wake: Arc::new((Mutex::new(false), Condvar::new())),
            rebuilt: AtomicBool::new(rebuilt),
            problems: Mutex::new(Vec::new()),
        });
        let weak: Weak<Index> = Arc::downgrade(&index);
        vault.subscribe(move |changed| {
            if let Some(index) = weak.upgrade()
                && let Err(e) = index.update(changed)
            {
                // The next catch-up repairs whatever this missed.
                lock(&index.problems).push(e.to_string());
            }
        });
        Ok(index)
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Uses other fusions (the benchmark compares them).
    pub fn set_fusions(&self, fusions: Fusions) {
        *lock(&self.fusions) = fusions;
    }

    /// Puts a second opinion after deep mode's fusion (a cross-encoder, an
    /// LLM) in place of the configured one (`rerank_model`, or the fused
    /// order kept).
    pub fn set_rerank(&self, rerank: Arc<dyn Rerank>) {
        *lock(&self.rerank) = Some(rerank);
    }

    /// The rerank stage: the one set by the caller, else `rerank_model`'s
    /// cross-encoder (loaded, or downloaded, on first use), else the fused
    /// order. A cross-encoder that cannot be loaded keeps the fused order.
    fn rerank_stage(&self) -> Arc<dyn Rerank> {
        if let Some(set) = lock(&self.rerank).clone() {
            return set;
        }
        let Some(model) = &self.config.rerank_model else {
            return Arc::new(KeepOrder);
        };
        let loaded = self.cross_encoder.get_or_init(|| {
            embed::locate(model)
                .and_then(|files| CrossEncoder::load(&files))
                .map(Arc::new)
                .map_err(|e| {
                    // The embedding model's hints name its settings, not these.
                    let why = match e {
                        Error::NoModel(why) => why,
                        e => e.to_string(),
                    };
                    format!("{why} ({RERANK_HINT})")
                })
        });
        match loaded {
            Ok(encoder) => encoder.clone(),
            Err(_) => Arc::new(KeepOrder),
        }
    }

    /// Problems the background updates met since the last call.
    pub fn take_problems(&self) -> Vec<String> {
        std::mem::take(&mut lock(&self.problems))
    }

    /// Brings BM25 up to date with the vault: indexes every file whose
    /// content differs from what is indexed, drops files that are gone.
    pub fn catch_up(&self, progress: &mut dyn FnMut(usize, usize)) -> Result<CatchUp> {
        let _writing = lock(&self.writing);
        let (stale, gone, _) = self.behind()?;
        let mut report = CatchUp {
            rebuilt: self.rebuilt.swap(false, Ordering::Relaxed),
            ..CatchUp::default()
        };
        if stale.is_empty() && gone.is_empty() {
            return Ok(report);
        }
        let bulk = stale.len() > 100;
        let mut writer = self.bm25.writer(if bulk { 2 } else { 1 })?;
        for (done, path) in stale.iter().enumerate() {
            self.put(&mut writer, path)?;
            progress(done + 1, stale.len());
        }
        for path in &gone {
            writer.remove(path);
        }
        writer.commit()?;
        if bulk {
            give_back_freed_memory();
        }
        self.bm25.reload()?;
        report.indexed = stale.len();
        report.removed = gone.len();
        self.wake_embedder();
        Ok(report)
    }

    /// What BM25 is behind the vault by: files whose indexed content differs
    /// from the manifest's (or that are not indexed), and indexed files that
    /// are gone; and how many files are indexed.
    fn behind(&self) -> Result<(Vec<VaultPath>, Vec<VaultPath>, usize)> {
        self.bm25.reload()?;
        let indexed = self.bm25.files()?;
        let wanted = self.wanted();
        let keep: HashSet<&str> = wanted.iter().map(|(p, _)| p.as_str()).collect();
        let gone = indexed
            .keys()
            .filter(|p| !keep.contains(p.as_str()))
            .filter_map(|p| VaultPath::parse(p).ok())
            .collect();
        let stale = wanted
            .into_iter()
            .filter(|(p, h)| indexed.get(p.as_str()) != Some(&h.to_string()))
            .map(|(p, _)| p)
            .collect();
        Ok((stale, gone, indexed.len()))
    }

    /// Rebuilds BM25 from every file; vectors of unchanged chunks are kept.
    pub fn reindex(&self, progress: &mut dyn FnMut(usize, usize)) -> Result<usize> {
        let _writing = lock(&self.writing);
        let wanted = self.wanted();
        let mut writer = self.bm25.writer(2)?;
        writer.remove_all()?;
        for (done, (path, _)) in wanted.iter().enumerate() {
            self.put(&mut writer, path)?;
            progress(done + 1, wanted.len());
        }
        writer.commit()?;
        give_back_freed_memory();
        self.bm25.reload()?;
        Ok(wanted.len())
    }

    /// The files that should be indexed, with their content hash.
    fn wanted(&self) -> Vec<(VaultPath, Hash)> {
        self.vault
            .entries()
            .into_iter()
            .filter(|(p, e)| e.kind == EntryKind::File && self.config.indexes(p))
            .filter_map(|(p, e)| Some((p, e.hash?)))
            .collect()
    }

    /// Indexes the current content of one file (or forgets it, if gone).
    fn put(&self, writer: &mut bm25::Writer, path: &VaultPath) -> Result<()> {
        match self.vault.read_bytes(path.as_str()) {
            Ok(bytes) => {
                let hash = Hash::of(&bytes).to_string();
                // Not UTF-8 (the vault reports it): what is text is still findable.
                let text = String::from_utf8_lossy(&bytes);
                let stem = path.name().trim_end_matches(".md");
                let note = chunk::chunk_note(&text, stem, self.budget);
                writer.put(path, &hash, &note)
            }
            Err(knower_vault::Error::NotFound { .. }) => {
                writer.remove(path);
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The listener: re-indexes what a committed change touched.
    fn update(&self, changed: &[Changed]) -> Result<()> {
        let _writing = lock(&self.writing);
        let mut writer = self.bm25.writer(1)?;
        let mut entries = None;
        for change in changed {
            let path = &change.path;
            if change.removed {
                writer.remove(path);
                writer.remove_below(path);
                continue;
            }
            match self.vault.read_bytes(path.as_str()) {
                Err(knower_vault::Error::IsAFolder { .. }) => {
                    // A folder arrived (moved, or undone): index what is in it.
                    let all = entries.get_or_insert_with(|| self.wanted());
                    for (p, _) in all.iter().filter(|(p, _)| p.starts_with(path)) {
                        self.put(&mut writer, p)?;
                    }
                }
                _ if self.config.indexes(path) => self.put(&mut writer, path)?,
                _ => {}
            }
        }
        writer.commit()?;
        // Each change's writers fill a term table per index in threads of
        // their own; handed back at once, they do not pile up in the
        // threads' heaps (BENCHMARKS.md, "Whole notes").
        give_back_freed_memory();
        self.bm25.reload()?;
        self.wake_embedder();
        Ok(())
    }

    // ---- vectors -------------------------------------------------------

    /// The model and vector store, loaded on first use (and downloaded if
    /// allowed); the error is kept and repeated, not retried.
    fn semantic(&self) -> std::result::Result<&Semantic, String> {
        self.semantic
            .get_or_init(|| {
                let load = || -> Result<Semantic> {
                    let files = self.model_files(true)?;
                    let embedder = Embedder::load(&files)?;
                    let store = VectorStore::open(&self.dir, &embedder.fingerprint, embedder.dims)?;
                    Ok(Semantic {
                        embedder: Arc::new(embedder),
                        store: Mutex::new(store),
                        table: Mutex::new(None),
                    })
                };
                load().map_err(|e| match e.hint() {
                    Some(hint) => format!("{e} ({hint})"),
                    None => e.to_string(),
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The configured model's files, found on this machine or (`download`)
    /// fetched, with the prompts `knower.toml` sets.
    fn model_files(&self, download: bool) -> Result<embed::ModelFiles> {
        let model = &self.config.model;
        let files = if download {
            embed::locate(model)?
        } else {
            embed::locate_cached(model)?
        };
        Ok(files.with_prompts(
            self.config.query_prompt.as_deref(),
            self.config.passage_prompt.as_deref(),
        ))
    }

    /// Loads the model now; an error says why deep search cannot run.
    pub fn load_model(&self) -> std::result::Result<(), String> {
        self.semantic().map(|_| ())
    }

    /// Chunks without a vector: (key, text to embed), each key once.
    fn unembedded(&self, semantic: &Semantic) -> Result<Vec<(vectors::ChunkKey, String)>> {
        let searcher = self.bm25.searcher();
        let mut store = lock(&semantic.store);
        store.refresh()?;
        let mut seen = HashSet::new();
        let mut missing = Vec::new();
        self.for_each_chunk(&searcher, |doc, key| {
            if store.row(&key).is_none() && seen.insert(key) {
                missing.push((doc, key));
            }
        })?;
        drop(store);
        missing
            .into_iter()
            .map(|(doc, key)| {
                let s = self.bm25.stored(&searcher, doc)?;
                let body = s.doc_text(self.bm25.fields.body);
                Ok((key, chunk::embedding_text(&s.title, &s.heading, &body)))
            })
            .collect()
    }

    /// Every live chunk's document and vector key.
    fn for_each_chunk(
        &self,
        searcher: &Searcher,
        mut f: impl FnMut(DocAddress, vectors::ChunkKey),
    ) -> Result<()> {
        for (ord, segment) in searcher.segment_readers().iter().enumerate() {
            let Some(hashes) = segment.fast_fields().str("chunk_hash")? else {
                continue;
            };
            let keys: Vec<Option<vectors::ChunkKey>> = bm25::terms_of(&hashes)?
                .iter()
                .map(|t| vectors::key(t))
                .collect();
            for doc in segment.doc_ids_alive() {
                if let Some(Some(key)) = hashes
                    .term_ords(doc)
                    .next()
                    .and_then(|o| keys.get(o as usize))
                {
                    f(DocAddress::new(ord as u32, doc), *key);
                }
            }
        }
        Ok(())
    }

    /// Embeds every chunk that has no vector yet. Returns how many.
    /// Before a search in `mode`: when it uses vectors and the model can be
    /// loaded, the passages written since the last pass get theirs. Without
    /// the model nothing happens here; the search says so and uses BM25.
    pub fn prepare(&self, mode: Mode, progress: &mut dyn FnMut(usize, usize)) -> Result<()> {
        if mode == Mode::Fast {
            return Ok(());
        }
        let Ok(semantic) = self.semantic() else {
            return Ok(());
        };
        // Every search in vector modes comes here: when neither the
        // documents nor the vectors changed since everything was embedded,
        // there is nothing to look for.
        self.bm25.reload()?;
        let now = |index: &Index| {
            (
                generation(&index.bm25.searcher()),
                lock(&semantic.store).len(),
            )
        };
        if *lock(&self.embedded) == Some(now(self)) {
            return Ok(());
        }
        self.embed_pending(progress)?;
        *lock(&self.embedded) = Some(now(self));
        Ok(())
    }

    pub fn embed_pending(&self, progress: &mut dyn FnMut(usize, usize)) -> Result<usize> {
        self.embed_some(usize::MAX, progress)
    }

    /// Embeds at most `max` of the chunks that have no vector yet.
    pub fn embed_some(&self, max: usize, progress: &mut dyn FnMut(usize, usize)) -> Result<usize> {
        let semantic = self.semantic().map_err(Error::NoModel)?;
        let mut missing = self.unembedded(semantic)?;
        missing.truncate(max);
        let total = missing.len();
        // Batches big enough for the embedder to sort by length, small
        // enough that progress moves and a crash loses little.
        for (i, batch) in missing.chunks(256).enumerate() {
            let texts: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
            let embedded = semantic.embedder.embed(&texts)?;
            let items: Vec<(vectors::ChunkKey, Vec<f32>)> =
                batch.iter().map(|(k, _)| *k).zip(embedded).collect();
            lock(&semantic.store).add(&items)?;
            progress((i * 256 + batch.len()).min(total), total);
        }
        Ok(total)
    }

    /// Whether vectors can be had here without a download: the model is
    /// loaded, or its files are on this machine.
    pub fn model_at_hand(&self) -> bool {
        match self.semantic.get() {
            Some(loaded) => loaded.is_ok(),
            None => self.model_files(false).is_ok(),
        }
    }

    /// How close in meaning `text` is to each file of `paths`: the best
    /// cosine among its passages, `None` for a file with no indexed text.
    /// Only these files' passages are embedded when they have no vector
    /// yet, so a process that never embedded the vault pays for them alone
    /// (once: the vectors are kept). An error when no model is at hand
    /// (see [`Index::model_at_hand`]); it never downloads one.
    pub fn similarity(&self, text: &str, paths: &[&str]) -> Result<Vec<Option<f32>>> {
        Ok(self.similarity_to(text, paths, &[])?.0)
    }

    /// How close in meaning `text` is to each of `others`, short texts
    /// that are no notes (the offline router's sentences of a project).
    /// See [`Index::similarity_to`].
    pub fn similarity_to_texts(&self, text: &str, others: &[&str]) -> Result<Vec<Option<f32>>> {
        Ok(self.similarity_to(text, &[], others)?.1)
    }

    /// [`Index::similarity`] to `paths` and the cosine to each of
    /// `others` as well, the text embedded once for both. The others are
    /// embedded as passages, and their vectors kept in the vector store by
    /// the hash of their text, as a passage's are, so a one-shot process
    /// embeds only the texts no process has seen; search never sees them,
    /// as it reads the rows of live passages only.
    pub fn similarity_to(&self, text: &str, paths: &[&str], others: &[&str]) -> Result<Closeness> {
        if !self.model_at_hand() {
            return Err(Error::NoModel(format!(
                "{} is not on this machine",
                self.config.model
            )));
        }
        let semantic = self.semantic().map_err(Error::NoModel)?;
        self.bm25.reload()?;
        let searcher = self.bm25.searcher();
        // Whose each vector is (a path's, by its place in `paths`, or one
        // of `others`, after them), its key, and what is embedded for it.
        let mut targets: Vec<(usize, vectors::ChunkKey, String)> = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            for doc in self.bm25.docs_of(&searcher, path)? {
                let s = self.bm25.stored(&searcher, doc)?;
                let body = s.doc_text(self.bm25.fields.body);
                let Some(key) = vectors::key(&s.doc_text(self.bm25.fields.chunk_hash)) else {
                    continue;
                };
                if !body.trim().is_empty() {
                    targets.push((i, key, chunk::embedding_text(&s.title, &s.heading, &body)));
                }
            }
        }
        for (i, other) in others.iter().enumerate() {
            let key = Sha256::digest(other.as_bytes()).into();
            targets.push((paths.len() + i, key, other.to_string()));
        }
        let mut missing: Vec<(vectors::ChunkKey, &str)> = Vec::new();
        {
            let mut store = lock(&semantic.store);
            store.refresh()?;
            for (_, key, embedded) in &targets {
                if store.row(key).is_none() && !missing.iter().any(|(k, _)| k == key) {
                    missing.push((*key, embedded));
                }
            }
        }
        let mut texts: Vec<&str> = missing.iter().map(|(_, t)| *t).collect();
        // A note compared with notes is embedded as a passage, not a query.
        texts.push(text);
        let mut vectors = semantic.embedder.embed(&texts)?;
        let query = vectors.pop().expect("the text was embedded");
        let items: Vec<(vectors::ChunkKey, Vec<f32>)> =
            missing.iter().map(|(k, _)| *k).zip(vectors).collect();
        let mut store = lock(&semantic.store);
        if !items.is_empty() {
            store.add(&items)?;
        }
        let mut best = vec![None::<f32>; paths.len() + others.len()];
        for (i, key, _) in &targets {
            if let Some(row) = store.row(key) {
                let cosine = dot(&query, store.vector(row));
                best[*i] = Some(best[*i].map_or(cosine, |b| b.max(cosine)));
            }
        }
        let to_others = best.split_off(paths.len());
        Ok((best, to_others))
    }

    fn wake_embedder(&self) {
        let (pending, signal) = &*self.wake;
        *lock(pending) = true;
        signal.notify_all();
    }

    /// A thread that embeds new chunks shortly after each change, for
    /// processes that keep running (`knower watch`, the server). It ends
    /// when the index is dropped.
    pub fn spawn_embedder(self: &Arc<Self>) -> std::thread::JoinHandle<()> {
        let weak = Arc::downgrade(self);
        let wake = self.wake.clone();
        *lock(&wake.0) = true; // whatever is pending at start
        std::thread::spawn(move || {
            loop {
                {
                    let (pending, signal) = &*wake;
                    let mut p = lock(pending);
                    while !*p {
                        let (guard, timeout) = signal
                            .wait_timeout(p, Duration::from_secs(1))
                            .unwrap_or_else(|e| e.into_inner());
                        p = guard;
                        if timeout.timed_out() && weak.strong_count() == 0 {
                            return;
                        }
                    }
                    *p = false;
                }
                // Let a burst of saves settle into one pass.
                std::thread::sleep(Duration::from_millis(300));
                let Some(index) = weak.upgrade() else { return };
                if index.semantic().is_err() {
                    return;
                }
                if let Err(e) = index.embed_pending(&mut |_, _| {}) {
                    lock(&index.problems).push(format!("embedding: {e}"));
                }
            }
        })
    }

    /// Vector rows of every live chunk, cached per index generation.
    fn vector_table(&self, semantic: &Semantic, searcher: &Searcher) -> Result<VectorTable> {
        let generation = generation(searcher);
        let store = lock(&semantic.store);
        let mut cached = lock(&semantic.table);
        if let Some((g, n, table)) = cached.as_ref()
            && *g == generation
            && *n == store.len()
        {
            return Ok(table.clone());
        }
        let mut table = Vec::new();
        self.for_each_chunk(searcher, |doc, key| {
            if let Some(row) = store.row(&key) {
                table.push((doc, row));
            }
        })?;
        let table = Arc::new(table);
        *cached = Some((generation, store.len(), table.clone()));
        Ok(table)
    }

    // ---- search --------------------------------------------------------

    /// Searches the vault. A search that uses vectors first embeds the
    /// passages written since the last pass (see [`Index::prepare`], which
    /// a caller may run first to show progress), so it sees the vault as
    /// it is.
    pub fn search(&self, text: &str, options: &SearchOptions) -> Result<Results> {
        self.ranked(text, options, Unit::Passage)
    }

    /// The best `options.limit` notes, each once with its best passage, in
    /// rank order: what a person asking for "10 results" expects, where one
    /// long note would otherwise fill the list with its passages. BM25
    /// scores each note as a whole (the notes index), so a note whose words
    /// are spread over several passages ranks as the note it is; deep mode
    /// fuses that with each note's best passage cosine. Vector mode has no
    /// whole-note side: it ranks notes by their best passage.
    pub fn search_notes(&self, text: &str, options: &SearchOptions) -> Result<Results> {
        if options.mode == Mode::Vector {
            return self.notes_by_best_passage(text, options);
        }
        self.ranked(text, options, Unit::Note)
    }

    fn ranked(&self, text: &str, options: &SearchOptions, unit: Unit) -> Result<Results> {
        self.prepare(options.mode, &mut |_, _| {})?;
        let query = Query::parse(text);
        let scope_text = options
            .scope
            .as_deref()
            .or(query.scope.as_deref())
            .unwrap_or("");
        let scope = Scope::parse(scope_text)?;
        if query.is_empty() {
            return Err(Error::BadQuery(
                "the query has no words to search for".into(),
            ));
        }
        self.bm25.reload()?;
        let searcher = self.bm25.searcher();
        let tq = self.bm25.query(&query, &scope, Ranked::Passages);
        // Whole notes weigh a title differently; built only when they rank.
        let notes_query = || self.bm25.query(&query, &scope, Ranked::Notes);
        let limit = options.limit.max(1);

        let mut results = Results {
            mode: options.mode,
            ..Results::default()
        };
        let semantic = match options.mode {
            Mode::Fast => None,
            Mode::Vector => Some(self.semantic().map_err(Error::NoModel)?),
            Mode::Deep => match self.semantic() {
                Ok(s) => Some(s),
                Err(why) => {
                    if !self.fallback_told.swap(true, Ordering::Relaxed) {
                        results.notice = Some(format!("deep search matched words only: {why}"));
                    }
                    results.mode = Mode::Fast;
                    None
                }
            },
        };
        let ranked: Vec<(DocAddress, f32, Option<Trace>)> = match semantic {
            None if unit == Unit::Note => self
                .bm25
                .search_notes(notes_query().as_ref(), limit)?
                .into_iter()
                .map(|(path, score)| {
                    let doc = self.shown_passage(&searcher, tq.as_ref(), &path, None)?;
                    Ok(doc.map(|doc| (doc, score, None)))
                })
                .filter_map(Result::transpose)
                .collect::<Result<_>>()?,
            None => self
                .bm25
                .search(&searcher, tq.as_ref(), limit)?
                .into_iter()
                .map(|f| (f.doc, f.score, None))
                .collect(),
            Some(semantic) => {
                let qtext = query.semantic_text();
                let qv = semantic
                    .embedder
                    .embed_queries(&[if qtext.is_empty() { text } else { &qtext }])?
                    .remove(0);
                let allowed = self.bm25.allowed(&searcher, &query, &scope)?;
                if options.mode == Mode::Vector {
                    self.cosines(semantic, &searcher, &qv, allowed.as_ref(), limit, &[])?
                        .top
                        .into_iter()
                        .map(|(d, c)| (d, c, None))
                        .collect()
                } else if unit == Unit::Note {
                    let notes_tq = notes_query();
                    let notes = WholeNotes {
                        semantic,
                        searcher: &searcher,
                        query: tq.as_ref(),
                        notes_query: notes_tq.as_ref(),
                        allowed: allowed.as_ref(),
                    };
                    self.deep_notes(&notes, text, qv, limit)?
                } else {
                    let keyword: Vec<(DocAddress, f32)> = self
                        .bm25
                        .search(&searcher, tq.as_ref(), CANDIDATES.max(limit))?
                        .into_iter()
                        .map(|f| (f.doc, f.score))
                        .collect();
                    let qv = self.expand(semantic, &searcher, qv, &keyword)?;
                    let cosines = self.cosines(
                        semantic,
                        &searcher,
                        &qv,
                        allowed.as_ref(),
                        CANDIDATES,
                        &keyword,
                    )?;
                    let fusions = *lock(&self.fusions);
                    let mut fused =
                        fusion::fuse(fusions.passages, &keyword, &cosines.top, &|doc| {
                            cosines.others.get(&doc).copied()
                        });
                    if fusions.note_lift > 0.0 {
                        // With passages' title weight: the lift was tuned so,
                        // and notes' half weight costs it (BENCHMARKS.md).
                        let notes = self.notes_by_score(&searcher, tq.as_ref())?;
                        fusion::lift_by_note(&mut fused, fusions.note_lift, &|doc| {
                            notes.get(&doc).copied()
                        });
                    }
                    fused.truncate(limit.max(RERANKED));
                    self.rerank(text, &searcher, fused, limit)?
                }
            }
        };
        if results.mode == Mode::Deep
            && let Some(Err(why)) = self.cross_encoder.get()
            && !self.rerank_told.swap(true, Ordering::Relaxed)
        {
            results.notice = Some(format!("deep search is not reranked: {why}"));
        }
        let snippets = self.bm25.snippets(&searcher, tq.as_ref())?;
        for (doc, score, trace) in ranked {
            let stored = self.bm25.stored(&searcher, doc)?;
            let snippet = snippets.snippet_from_doc(&stored.doc);
            let text = stored.doc_text(self.bm25.fields.body);
            let (snippet, marks) = if snippet.fragment().trim().is_empty() {
                (opening(&text, 220), Vec::new())
            } else {
                (
                    snippet.fragment().to_string(),
                    merged(snippet.highlighted().to_vec()),
                )
            };
            results.hits.push(Hit {
                path: stored.path,
                title: stored.title,
                heading: stored.heading,
                line_start: stored.line_start,
                line_end: stored.line_end,
                score,
                snippet,
                marks,
                text,
                explain: trace,
            });
        }
        Ok(results)
    }

    /// The best `options.limit` notes by their best passage: passages are
    /// fetched in growing pages until that many notes are found or the
    /// matches run out.
    fn notes_by_best_passage(&self, text: &str, options: &SearchOptions) -> Result<Results> {
        let notes = options.limit.max(1);
        let mut page = notes.saturating_mul(4).max(20);
        loop {
            let mut results = self.search(
                text,
                &SearchOptions {
                    limit: page,
                    scope: options.scope.clone(),
                    ..*options
                },
            )?;
            let fetched = results.hits.len();
            let mut seen = std::collections::HashSet::new();
            results.hits.retain(|hit| seen.insert(hit.path.clone()));
            if results.hits.len() >= notes || fetched < page || page >= 20_000 {
                results.hits.truncate(notes);
                return Ok(results);
            }
            page = page.saturating_mul(4);
        }
    }

    /// Deep mode over whole notes: each note's whole-note BM25 fused with
    /// its best passage cosine, then the rerank stage on the passage shown
    /// for each note.
    fn deep_notes(
        &self,
        on: &WholeNotes,
        text: &str,
        query_vector: Vec<f32>,
        limit: usize,
    ) -> Result<Vec<(DocAddress, f32, Option<Trace>)>> {
        let searcher = on.searcher;
        // The query vector moves towards the best keyword passages, as in
        // passage search.
        let keyword_passages: Vec<(DocAddress, f32)> = self
            .bm25
            .search(searcher, on.query, FEEDBACK_CHUNKS)?
            .into_iter()
            .map(|f| (f.doc, f.score))
            .collect();
        let qv = self.expand(on.semantic, searcher, query_vector, &keyword_passages)?;

        // Notes are numbered as they are met, for the fusion's keys.
        let mut paths: Vec<String> = Vec::new();
        let mut numbers: HashMap<String, usize> = HashMap::new();
        let mut number = |path: String| {
            let next = paths.len();
            *numbers.entry(path.clone()).or_insert_with(|| {
                paths.push(path);
                next
            })
        };
        let mut keyword = Vec::new();
        let mut owner: HashMap<DocAddress, usize> = HashMap::new();
        let mut passages = Vec::new();
        for (path, score) in self
            .bm25
            .search_notes(on.notes_query, CANDIDATES.max(limit))?
        {
            let docs = self.bm25.docs_of(searcher, &path)?;
            let n = number(path);
            keyword.push((n, score));
            for doc in docs {
                owner.insert(doc, n);
                passages.push((doc, 0.0));
            }
        }
        let cosines = self.cosines(
            on.semantic,
            searcher,
            &qv,
            on.allowed,
            CANDIDATES * NOTE_PASSAGES,
            &passages,
        )?;
        // Each note's best cosine and the passage that has it; the vector
        // list holds the notes of the best passages, best first.
        let mut best: HashMap<usize, (f32, DocAddress)> = HashMap::new();
        let mut vector = Vec::new();
        for (doc, cosine) in &cosines.top {
            let n = match owner.get(doc) {
                Some(n) => *n,
                None => number(self.bm25.path(searcher, *doc)?),
            };
            if let std::collections::hash_map::Entry::Vacant(e) = best.entry(n) {
                e.insert((*cosine, *doc));
                vector.push((n, *cosine));
            }
        }
        for (doc, cosine) in &cosines.others {
            let n = owner[doc];
            if best.get(&n).is_none_or(|(c, _)| cosine > c) {
                best.insert(n, (*cosine, *doc));
            }
        }
        let mut fused = fusion::fuse(lock(&self.fusions).notes, &keyword, &vector, &|n| {
            best.get(&n).map(|(c, _)| *c)
        });
        fused.truncate(limit.max(RERANKED));
        let mut shown = Vec::with_capacity(fused.len());
        for (n, trace) in fused {
            let fallback = best.get(&n).map(|(_, doc)| *doc);
            if let Some(doc) = self.shown_passage(searcher, on.query, &paths[n], fallback)? {
                shown.push((doc, trace));
            }
        }
        self.rerank(text, searcher, shown, limit)
    }

    /// The passage a note is shown by: its best keyword match, else
    /// `fallback` (its best cosine), else its first passage.
    fn shown_passage(
        &self,
        searcher: &Searcher,
        query: &dyn tantivy::query::Query,
        path: &str,
        fallback: Option<DocAddress>,
    ) -> Result<Option<DocAddress>> {
        if let Some(found) = self.bm25.best_passage(searcher, query, path)? {
            return Ok(Some(found.doc));
        }
        if fallback.is_some() {
            return Ok(fallback);
        }
        Ok(self.bm25.docs_of(searcher, path)?.into_iter().min())
    }

    /// Pseudo-relevance feedback (Rocchio): the query vector moved towards
    /// the vectors of the best keyword matches, so the semantic side looks
    /// for "more like what the keywords found" as well as for the question.
    fn expand(
        &self,
        semantic: &Semantic,
        searcher: &Searcher,
        query: Vec<f32>,
        keyword: &[(DocAddress, f32)],
    ) -> Result<Vec<f32>> {
        let (k, weight) = (FEEDBACK_CHUNKS, FEEDBACK_WEIGHT);
        if keyword.is_empty() {
            return Ok(query);
        }
        let table = self.vector_table(semantic, searcher)?;
        let store = lock(&semantic.store);
        let mut expanded = query;
        for (doc, _) in keyword.iter().take(k) {
            if let Some((_, row)) = table.iter().find(|(d, _)| d == doc) {
                for (x, y) in expanded.iter_mut().zip(store.vector(*row)) {
                    *x += weight / k as f32 * y;
                }
            }
        }
        let norm = dot(&expanded, &expanded).sqrt().max(1e-12);
        expanded.iter_mut().for_each(|x| *x /= norm);
        Ok(expanded)
    }

    /// Cosine similarity of every allowed chunk with a vector: the best
    /// `keep`, best first, and the cosines of the chunks in `also` (the
    /// keyword list) wherever they rank. Selecting rather than sorting all
    /// keeps a scan of 60,000 chunks in a few milliseconds.
    fn cosines(
        &self,
        semantic: &Semantic,
        searcher: &Searcher,
        query: &[f32],
        allowed: Option<&HashSet<DocAddress>>,
        keep: usize,
        also: &[(DocAddress, f32)],
    ) -> Result<Cosines> {
        let table = self.vector_table(semantic, searcher)?;
        let store = lock(&semantic.store);
        let mut scored: Vec<(DocAddress, f32)> = table
            .iter()
            .filter(|(doc, _)| allowed.is_none_or(|a| a.contains(doc)))
            .map(|(doc, row)| (*doc, dot(query, store.vector(*row))))
            .collect();
        drop(store);
        let wanted: HashSet<DocAddress> = also.iter().map(|(d, _)| *d).collect();
        let others = scored
            .iter()
            .filter(|(doc, _)| wanted.contains(doc))
            .copied()
            .collect();
        let order = |a: &(DocAddress, f32), b: &(DocAddress, f32)| {
            b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0))
        };
        if scored.len() > keep && keep > 0 {
            scored.select_nth_unstable_by(keep - 1, order);
            scored.truncate(keep);
        }
        scored.sort_by(order);
        Ok(Cosines {
            top: scored,
            others,
        })
    }

    /// The passages of the best [`LIFTING_NOTES`] notes for a query (within
    /// its scope), each with its note (a number) and the note's BM25 over
    /// the best note's.
    fn notes_by_score(
        &self,
        searcher: &Searcher,
        query: &dyn tantivy::query::Query,
    ) -> Result<HashMap<DocAddress, (u32, f32)>> {
        let notes = self.bm25.search_notes(query, LIFTING_NOTES)?;
        let best = notes.first().map_or(0.0, |(_, s)| *s);
        let mut out = HashMap::new();
        if best <= 0.0 {
            return Ok(out);
        }
        for (i, (path, score)) in notes.into_iter().enumerate() {
            for doc in self.bm25.docs_of(searcher, &path)? {
                out.insert(doc, (i as u32, score / best));
            }
        }
        Ok(out)
    }

    /// The rerank stage over the fused candidates (at most `RERANKED` or
    /// `limit`), keeping the best `limit`.
    fn rerank(
        &self,
        text: &str,
        searcher: &Searcher,
        fused: Vec<(DocAddress, Trace)>,
        limit: usize,
    ) -> Result<Vec<(DocAddress, f32, Option<Trace>)>> {
        let mut candidates = Vec::with_capacity(fused.len());
        for (id, (doc, trace)) in fused.iter().enumerate() {
            let s = self.bm25.stored(searcher, *doc)?;
            candidates.push(Candidate {
                id,
                path: s.path.clone(),
                title: s.title.clone(),
                heading: s.heading.clone(),
                text: s.doc_text(self.bm25.fields.body),
                score: trace.fused,
            });
        }
        self.rerank_stage().rerank(text, &mut candidates)?;
        let out = candidates
            .into_iter()
            .filter_map(|c| {
                let (doc, trace) = fused.get(c.id)?;
                Some((*doc, c.score, Some(trace.clone())))
            })
            .take(limit)
            .collect();
        Ok(out)
    }

    // ---- status --------------------------------------------------------

    /// What is indexed and what is not yet. Never loads or downloads a
    /// model it does not already have at hand.
    pub fn status(&self) -> Result<IndexStatus> {
        let (stale, gone, files) = self.behind()?;
        let mut files_pending: Vec<String> = stale.iter().map(|p| p.to_string()).collect();
        files_pending.extend(gone.iter().map(|p| format!("{p} (deleted)")));
        let searcher = self.bm25.searcher();
        let chunks = searcher.num_docs() as usize;
        let (model, vectors_pending) = match self.model_files(false) {
            Ok(files) => {
                let dims = files.dims.unwrap_or(384);
                let mut store = VectorStore::open(&self.dir, &files.fingerprint, dims)?;
                store.refresh()?;
                let mut keys = HashSet::new();
                self.for_each_chunk(&searcher, |_, key| {
                    if store.row(&key).is_none() {
                        keys.insert(key);
                    }
                })?;
                (
                    (Some(files.dir.display().to_string()), None),
                    Some(keys.len()),
                )
            }
            Err(e) => ((None, Some(e.to_string())), None),
        };
        let reranker = match self
            .config
            .rerank_model
            .as_deref()
            .map(embed::locate_cached)
        {
            None => (None, None),
            Some(Ok(files)) => (Some(files.dir.display().to_string()), None),
            Some(Err(e)) => (None, Some(e.to_string())),
        };
        let languages = self
            .bm25
            .languages(&searcher)?
            .into_iter()
            .map(|(code, passages)| LanguageCount {
                name: whatlang::Lang::from_code(&code)
                    .map_or_else(|| code.clone(), |lang| lang.eng_name().to_string()),
                code,
                passages,
            })
            .collect();
        Ok(IndexStatus {
            languages,
            files,
            chunks,
            files_pending,
            vectors_pending,
            model: model.0,
            model_problem: model.1,
            reranker: reranker.0,
            reranker_problem: reranker.1,
        })
    }
}

/// Highlighted ranges with those that overlap or touch made one: CJK text
/// matches by overlapping pairs of characters (`カメ`, `メラ`), and the
/// reader should see `カメラ` marked, not two pieces of it.
fn merged(mut ranges: Vec<std::ops::Range<usize>>) -> Vec<std::ops::Range<usize>> {
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for range in ranges {
        match out.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => out.push(range),
        }
    }
    out
}

/// After indexing many files: the indexing threads' arenas and queued
/// documents are freed, but glibc keeps freed memory in each thread's heap,
/// where the model loaded next does not reuse it; a full index of 10,000
/// notes then left the process 70–90 MB larger for good (BENCHMARKS.md,
/// "Whole notes"). `malloc_trim` hands the free pages back.
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory the allocator holds free; it
    // is thread-safe and takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Four accumulators let the compiler vectorise without reassociating.
    let mut acc = [0.0f32; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..4 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// The first `max` characters of a chunk, cut at a word.
fn opening(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    match cut.rfind(char::is_whitespace) {
        Some(i) if i > max / 2 => format!("{}…", &cut[..i]),
        _ => format!("{cut}…"),
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Same segments with the same deletions: the same documents.
fn generation(searcher: &Searcher) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for segment in searcher.segment_readers() {
        segment.segment_id().hash(&mut h);
        segment.num_deleted_docs().hash(&mut h);
    }
    h.finish()
}
