//! Sentence embeddings on the CPU with candle: a BERT-family or MPNet
//! sentence-transformers model (all-MiniLM-L6-v2 by default), pooled as
//! its folder says (the mean of the tokens, or the first token for models
//! such as bge and arctic-embed) and L2-normalised, so a dot product is the
//! cosine similarity. Prompts the folder declares for queries and passages
//! (`config_sentence_transformers.json`) are put before them.
//!
//! The model is found, in order: a folder named by `KNOWER_MODEL` or
//! `[search] model`; the Hugging Face cache (`HF_HOME`); a download from the
//! hub (`HF_ENDPOINT`), with a progress bar, unless `HF_HUB_OFFLINE=1`.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationParams};

use crate::encoder::{Config, Encoder};
use crate::error::{Error, Result};

/// The three files a model folder must hold.
pub const MODEL_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// sentence-transformers truncates all-MiniLM-L6-v2's input at 256 word
/// pieces; longer text adds cost, not meaning.
const MAX_TOKENS: usize = 256;

/// Upper bound on padded tokens per forward pass. Small batches were
/// fastest here (measured 128–4096: 512 took 1.5 s where 4096 took 2.3 s
/// for the same 97 passages): candle's element-wise operations allocate a
/// tensor each, and small ones stay in cache. Many batches also keep both
/// cores busy.
const TOKENS_PER_BATCH: usize = 512;

/// The sentence-transformers files that say how a model is used, beside
/// the three it needs; each may be absent.
const POOLING_FILE: &str = "1_Pooling/config.json";
const PROMPTS_FILE: &str = "config_sentence_transformers.json";

/// How a text's token vectors become one vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pooling {
    /// The mean of the real tokens (MiniLM, e5, gte).
    Mean,
    /// The first token's, `[CLS]` (bge, arctic-embed).
    Cls,
}

/// How a model wants its input and output treated: what a search query
/// and what a stored passage are prefixed with, and the pooling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conventions {
    pub pooling: Pooling,
    pub query_prompt: String,
    pub passage_prompt: String,
}

impl Default for Conventions {
    fn default() -> Conventions {
        Conventions {
            pooling: Pooling::Mean,
            query_prompt: String::new(),
            passage_prompt: String::new(),
        }
    }
}

/// Where a model's files are.
#[derive(Clone, Debug)]
pub struct ModelFiles {
    pub dir: PathBuf,
    /// Identifies the model's weights and conventions, so vectors of
    /// another model, or of the same one pooled or prompted otherwise, are
    /// never mixed with this one's.
    pub fingerprint: String,
    /// The vector size `config.json` declares (`hidden_size`), if it does.
    pub dims: Option<usize>,
    pub conventions: Conventions,
}

impl ModelFiles {
    /// The same model with prompts set by the user (`[search]
    /// query_prompt` and `passage_prompt`) in place of the folder's.
    pub fn with_prompts(mut self, query: Option<&str>, passage: Option<&str>) -> ModelFiles {
        let before = self.conventions.clone();
        if let Some(query) = query {
            self.conventions.query_prompt = query.to_string();
        }
        if let Some(passage) = passage {
            self.conventions.passage_prompt = passage.to_string();
        }
        if self.conventions != before {
            self.fingerprint = fingerprint_with(&self.fingerprint, &self.conventions);
        }
        self
    }
}

/// A fingerprint that changes with the conventions, and only when they are
/// not the defaults, so the vectors already stored for a mean-pooled model
/// without prompts keep their key.
fn fingerprint_with(weights: &str, conventions: &Conventions) -> String {
    if *conventions == Conventions::default() {
        return weights.to_string();
    }
    let mut hasher = Sha256::new();
    hasher.update(weights.as_bytes());
    hasher.update(format!("{:?}", conventions.pooling).as_bytes());
    for prompt in [&conventions.query_prompt, &conventions.passage_prompt] {
        hasher.update((prompt.len() as u64).to_le_bytes());
        hasher.update(prompt.as_bytes());
    }
    hex8(&hasher.finalize())
}

fn hex8(digest: &[u8]) -> String {
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads the conventions a sentence-transformers folder declares. A
/// pooling Knower does not implement (max, weighted mean, last token) is
/// an error, not a silent mean: its vectors would be another model's.
fn conventions(dir: &Path) -> std::result::Result<Conventions, String> {
    let read = |file: &str| -> std::result::Result<Option<serde_json::Value>, String> {
        match std::fs::read(dir.join(file)) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| format!("{file}: {e}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{file}: {e}")),
        }
    };
    let mut out = Conventions::default();
    if let Some(pooling) = read(POOLING_FILE)? {
        let on = |mode: &str| pooling.get(mode).and_then(|v| v.as_bool()) == Some(true);
        if pooling.get("include_prompt").and_then(|v| v.as_bool()) == Some(false) {
            return Err(format!(
                "{POOLING_FILE}: pooling without the prompt's tokens (include_prompt: false) is not supported"
            ));
        }
        out.pooling = if on("pooling_mode_cls_token") {
            Pooling::Cls
        } else if on("pooling_mode_mean_tokens") {
            Pooling::Mean
        } else {
            return Err(format!(
                "{POOLING_FILE}: only mean or first-token (CLS) pooling is supported"
            ));
        };
    }
    if let Some(config) = read(PROMPTS_FILE)? {
        let prompt = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| config.get("prompts")?.get(*n)?.as_str())
                .unwrap_or_default()
                .to_string()
        };
        out.query_prompt = prompt(&["query"]);
        out.passage_prompt = prompt(&["document", "passage", "corpus"]);
    }
    Ok(out)
}

/// Finds the model named by `spec` (a folder or a repository id), and
/// downloads it if allowed and needed.
pub fn locate(spec: &str) -> Result<ModelFiles> {
    match locate_cached(spec) {
        Err(Error::NoModel(_)) => {}
        found => return found,
    }
    let offline = std::env::var("HF_HUB_OFFLINE").is_ok_and(|v| v == "1" || v == "true");
    if offline {
        return Err(Error::NoModel(format!(
            "no embedding model is installed: {spec} is not in the Hugging Face cache, and HF_HUB_OFFLINE forbids a download"
        )));
    }
    download(spec)
}

/// Finds the model without downloading it.
pub fn locate_cached(spec: &str) -> Result<ModelFiles> {
    let as_path = Path::new(spec);
    if as_path.is_absolute() || spec.starts_with('.') || as_path.is_dir() {
        return from_folder(as_path);
    }
    let cache = hf_hub::Cache::from_env();
    let cached = cache.model(spec.to_string());
    match MODEL_FILES
        .iter()
        .map(|f| cached.get(f))
        .collect::<Option<Vec<_>>>()
        .and_then(|files| files[0].parent().map(Path::to_path_buf))
    {
        Some(dir) => from_folder(&dir),
        None => Err(Error::NoModel(format!(
            "{spec} is not in the Hugging Face cache"
        ))),
    }
}

fn download(repo: &str) -> Result<ModelFiles> {
    use std::io::IsTerminal;
    // Said in a person's words: the library's chain of errors ("request
    // error: https://…: Dns Failed: resolve dns name…") ends with the cause.
    let failed = |e: &dyn std::fmt::Display| {
        let e = e.to_string();
        let cause = e.rsplit(": ").next().unwrap_or(&e).trim().to_string();
        Error::NoModel(format!(
            "no embedding model is installed: {repo} is not on this machine, and downloading it from huggingface.co failed ({cause})"
        ))
    };
    let api = hf_hub::api::sync::ApiBuilder::from_env()
        .with_progress(std::io::stderr().is_terminal())
        .build()
        .map_err(|e| failed(&e))?;
    let model = api.model(repo.to_string());
    let mut dir = None;
    for file in MODEL_FILES {
        let path = model.get(file).map_err(|e| failed(&e))?;
        dir = path.parent().map(Path::to_path_buf);
    }
    // How the model is pooled and prompted, where the repository says so;
    // a repository without these files is used as MiniLM is.
    for file in [POOLING_FILE, PROMPTS_FILE] {
        let _ = model.get(file);
    }
    from_folder(&dir.expect("three files were fetched"))
}

fn from_folder(dir: &Path) -> Result<ModelFiles> {
    let broken = |message: String| Error::Model {
        path: dir.to_path_buf(),
        message,
    };
    if !dir.is_dir() {
        return Err(broken("not a folder".into()));
    }
    let mut hasher = Sha256::new();
    for file in MODEL_FILES {
        let path = dir.join(file);
        let meta = std::fs::metadata(&path).map_err(|_| broken(format!("{file} is missing")))?;
        hasher.update(file.as_bytes());
        hasher.update(meta.len().to_le_bytes());
    }
    let config =
        std::fs::read(dir.join("config.json")).map_err(|e| broken(format!("config.json: {e}")))?;
    hasher.update(&config);
    let digest = hasher.finalize();
    let dims = serde_json::from_slice::<serde_json::Value>(&config)
        .ok()
        .and_then(|c| c.get("hidden_size")?.as_u64())
        .map(|d| d as usize);
    let conventions = conventions(dir).map_err(broken)?;
    Ok(ModelFiles {
        dir: dir.to_path_buf(),
        fingerprint: fingerprint_with(&hex8(&digest), &conventions),
        dims,
        conventions,
    })
}

/// candle allocates a new tensor for every operation of a pass, up to a
/// few megabytes each (a batch's feed-forward activations, its attention
/// scores). glibc serves blocks that large with a fresh `mmap` and unmaps
/// them when freed, so every operation page-faulted its memory in anew: a
/// fifth of an embedding pass was spent in the kernel. Raising the
/// thresholds keeps those blocks in the heap for the next operation
/// (BENCHMARKS.md has the figures). Process-wide, so it is set once, by
/// the first model loaded; the cost is that a process keeps up to a pass's
/// working set after the pass.
fn keep_tensors_in_the_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // 32 MiB is the most glibc accepts on 64-bit systems; a pass's
            // largest tensor is below 8 MiB (TOKENS_PER_BATCH).
            // SAFETY: mallopt only changes the allocator's thresholds; it
            // is thread-safe and any value is valid (an out-of-range one
            // is refused and ignored).
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 128 << 20);
            }
        });
    }
}

/// A model folder opened: its configuration checked, its tokenizer set to
/// truncate at `max_tokens` (or the model's positions, if fewer) without
/// padding, its weights mapped.
pub(crate) struct Opened {
    pub config: Config,
    pub tokenizer: Tokenizer,
    pub weights: VarBuilder<'static>,
    pub device: Device,
}

pub(crate) fn open_folder(dir: &Path, max_tokens: usize) -> Result<Opened> {
    let broken = |message: String| Error::Model {
        path: dir.to_path_buf(),
        message,
    };
    let config: Config = serde_json::from_slice(
        &std::fs::read(dir.join("config.json")).map_err(|e| broken(format!("config.json: {e}")))?,
    )
    .map_err(|e| broken(format!("config.json is not a BERT configuration: {e}")))?;
    config
        .check()
        .map_err(|e| broken(format!("config.json: {e}")))?;
    let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
        .map_err(|e| broken(format!("tokenizer.json: {e}")))?;
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_tokens.min(config.max_position_embeddings),
            ..TruncationParams::default()
        }))
        .map_err(|e| broken(format!("tokenizer.json: {e}")))?;
    keep_tensors_in_the_heap();
    let device = Device::Cpu;
    // SAFETY: the weights file is mapped read-only; Knower never writes
    // it, and a model folder changed underneath a running process is
    // outside what we can defend against (as with any mmap-ing loader).
    let weights = unsafe {
        VarBuilder::from_mmaped_safetensors(&[dir.join("model.safetensors")], DType::F32, &device)
    }
    .map_err(|e| broken(format!("model.safetensors: {e}")))?;
    Ok(Opened {
        config,
        tokenizer,
        weights,
        device,
    })
}

/// The texts' indexes sorted by length and cut into batches of at most
/// [`TOKENS_PER_BATCH`] padded tokens, so little work is spent on padding.
pub(crate) fn batches_by_length(encodings: &[tokenizers::Encoding]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..encodings.len()).collect();
    order.sort_by_key(|&i| encodings[i].get_ids().len());
    let mut batches = Vec::new();
    let mut start = 0;
    while start < order.len() {
        // Sorted ascending: the batch's last text is its longest.
        let mut end = start + 1;
        while end < order.len()
            && (end + 1 - start) * encodings[order[end]].get_ids().len().max(1) <= TOKENS_PER_BATCH
        {
            end += 1;
        }
        batches.push(order[start..end].to_vec());
        start = end;
    }
    batches
}

/// A batch's token ids and types, each text's padded to the longest's.
pub(crate) struct Padded {
    pub ids: Vec<u32>,
    pub types: Vec<u32>,
    pub lengths: Vec<usize>,
    pub length: usize,
}

impl Padded {
    pub fn of(batch: &[&tokenizers::Encoding]) -> Padded {
        let lengths: Vec<usize> = batch.iter().map(|e| e.get_ids().len()).collect();
        let length = lengths.iter().copied().max().unwrap_or(1).max(1);
        let mut ids = vec![0u32; batch.len() * length];
        let mut types = vec![0u32; batch.len() * length];
        for (row, e) in batch.iter().enumerate() {
            let at = row * length;
            ids[at..at + e.get_ids().len()].copy_from_slice(e.get_ids());
            types[at..at + e.get_type_ids().len()].copy_from_slice(e.get_type_ids());
        }
        Padded {
            ids,
            types,
            lengths,
            length,
        }
    }

    /// 1 for a real token, 0 for padding.
    pub fn mask(&self) -> Vec<f32> {
        let mut mask = vec![0f32; self.ids.len()];
        for (row, &l) in self.lengths.iter().enumerate() {
            mask[row * self.length..row * self.length + l].fill(1.0);
        }
        mask
    }
}

/// A loaded model, ready to embed.
pub struct Embedder {
    model: Encoder,
    tokenizer: Tokenizer,
    device: Device,
    conventions: Conventions,
    pub dims: usize,
    pub fingerprint: String,
}

impl Embedder {
    pub fn load(files: &ModelFiles) -> Result<Embedder> {
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
        } = open_folder(dir, MAX_TOKENS)?;
        let model = Encoder::load(weights, &config)
            .map_err(|e| broken(format!("model.safetensors does not fit config.json: {e}")))?;
        let dims = config.hidden_size;
        let embedder = Embedder {
            model,
            tokenizer,
            device,
            conventions: files.conventions.clone(),
            dims,
            fingerprint: files.fingerprint.clone(),
        };
        // One pass proves the weights and tokenizer work together.
        embedder
            .embed(&["probe"])
            .map_err(|e| broken(format!("the model does not run: {e}")))?;
        Ok(embedder)
    }

    /// One unit vector per passage (what is stored and searched), in
    /// order, each after the model's passage prompt.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_with(&self.conventions.passage_prompt, texts)
    }

    /// One unit vector per search query, each after the model's query
    /// prompt ("Represent this sentence for searching relevant
    /// passages: " for bge and arctic-embed).
    pub fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_with(&self.conventions.query_prompt, texts)
    }

    /// Texts are sorted by length and embedded in batches of similar
    /// length, so little work is spent on padding.
    fn embed_with(&self, prompt: &str, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out = vec![Vec::new(); texts.len()];
        let prompted: Vec<String> = texts.iter().map(|t| format!("{prompt}{t}")).collect();
        let encodings = self
            .tokenizer
            .encode_batch(prompted, true)
            .map_err(|e| self.fail(format!("tokenizing: {e}")))?;
        let batches = batches_by_length(&encodings);
        // Batches run on all cores at once: candle parallelises the matrix
        // products but not the element-wise work around them (GELU,
        // softmax, layer norm), which is a large share of a small model.
        let vectors: Vec<Vec<Vec<f32>>> = batches
            .par_iter()
            .map(|batch| self.forward(batch.iter().map(|&i| &encodings[i]).collect()))
            .collect::<candle_core::Result<_>>()
            .map_err(|e| self.fail(e.to_string()))?;
        for (batch, vectors) in batches.iter().zip(vectors) {
            for (&i, v) in batch.iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// How many word pieces the model reads of each text (after truncation).
    pub fn token_counts(&self, texts: &[&str]) -> Result<Vec<usize>> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| self.fail(format!("tokenizing: {e}")))?;
        Ok(encodings.iter().map(|e| e.get_ids().len()).collect())
    }

    fn forward(&self, batch: Vec<&tokenizers::Encoding>) -> candle_core::Result<Vec<Vec<f32>>> {
        let padded = Padded::of(&batch);
        let (n, len) = (padded.lengths.len(), padded.length);
        let hidden = self
            .model
            .forward(&padded.ids, &padded.lengths, &self.device)?
            .reshape((n, len, ()))?;
        let pooled = match self.conventions.pooling {
            // The mean over the real tokens.
            Pooling::Mean => {
                let mask = Tensor::from_vec(padded.mask(), (n, len, 1), &self.device)?;
                let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
                let counts = mask.sum(1)?.clamp(1e-9, f32::MAX)?;
                summed.broadcast_div(&counts)?
            }
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
        };
        // Unit length.
        let norm = pooled
            .sqr()?
            .sum_keepdim(1)?
            .sqrt()?
            .clamp(1e-12, f32::MAX)?;
        pooled.broadcast_div(&norm)?.to_vec2::<f32>()
    }

    fn fail(&self, message: String) -> Error {
        Error::Model {
            path: PathBuf::from(format!("(model {})", self.fingerprint)),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    /// The pooling files of all-MiniLM-L6-v2 and bge-small-en-v1.5 as
    /// their repositories hold them, and arctic-embed-xs's prompts.
    const MEAN: &str = r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false}"#;
    const CLS: &str = r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false, "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false}"#;
    const ARCTIC_PROMPTS: &str = r#"{"__version__": {"sentence_transformers": "2.7.0"}, "prompts": {"query": "Represent this sentence for searching relevant passages: "}, "default_prompt_name": null}"#;

    #[test]
    fn a_folder_says_how_it_is_pooled_and_prompted() {
        assert_eq!(conventions(folder(&[]).path()), Ok(Conventions::default()));
        let minilm = folder(&[
            (POOLING_FILE, MEAN),
            (PROMPTS_FILE, r#"{"__version__": {}}"#),
        ]);
        assert_eq!(conventions(minilm.path()), Ok(Conventions::default()));
        let arctic = folder(&[(POOLING_FILE, CLS), (PROMPTS_FILE, ARCTIC_PROMPTS)]);
        assert_eq!(
            conventions(arctic.path()),
            Ok(Conventions {
                pooling: Pooling::Cls,
                query_prompt: "Represent this sentence for searching relevant passages: ".into(),
                passage_prompt: String::new(),
            })
        );
        let e5_style = folder(&[(
            PROMPTS_FILE,
            r#"{"prompts": {"query": "query: ", "passage": "passage: "}}"#,
        )]);
        assert_eq!(
            conventions(e5_style.path()).unwrap().passage_prompt,
            "passage: "
        );
    }

    #[test]
    fn a_pooling_not_implemented_or_a_broken_file_is_refused() {
        let max = folder(&[(
            POOLING_FILE,
            r#"{"pooling_mode_cls_token": false, "pooling_mode_mean_tokens": false, "pooling_mode_max_tokens": true}"#,
        )]);
        let e = conventions(max.path()).unwrap_err();
        assert!(e.contains("only mean or first-token"), "{e}");
        let without_prompt = folder(&[(
            POOLING_FILE,
            r#"{"pooling_mode_mean_tokens": true, "include_prompt": false}"#,
        )]);
        let e = conventions(without_prompt.path()).unwrap_err();
        assert!(e.contains("include_prompt"), "{e}");
        let broken = folder(&[(PROMPTS_FILE, "{\"prompts\": ")]);
        let e = conventions(broken.path()).unwrap_err();
        assert!(e.starts_with(PROMPTS_FILE), "{e}");
    }

    #[test]
    fn the_fingerprint_changes_with_the_conventions_but_not_for_the_defaults() {
        let weights = "0123456789abcdef";
        assert_eq!(fingerprint_with(weights, &Conventions::default()), weights);
        let cls = Conventions {
            pooling: Pooling::Cls,
            ..Conventions::default()
        };
        let prompted = Conventions {
            query_prompt: "query: ".into(),
            ..Conventions::default()
        };
        let prints = [
            fingerprint_with(weights, &cls),
            fingerprint_with(weights, &prompted),
            weights.to_string(),
        ];
        assert_eq!(prints[0].len(), 16);
        assert!(prints[0] != prints[1] && prints[1] != prints[2] && prints[0] != prints[2]);
        // A prompt moved from query to passage is another model too.
        let moved = Conventions {
            passage_prompt: "query: ".into(),
            ..Conventions::default()
        };
        assert_ne!(fingerprint_with(weights, &moved), prints[1]);

        let files = ModelFiles {
            dir: PathBuf::new(),
            fingerprint: weights.into(),
            dims: None,
            conventions: Conventions::default(),
        };
        assert_eq!(files.clone().with_prompts(None, None).fingerprint, weights);
        assert_eq!(
            files.clone().with_prompts(Some(""), Some("")).fingerprint,
            weights
        );
        let set = files.with_prompts(Some("query: "), None);
        assert_eq!(set.conventions.query_prompt, "query: ");
        assert_eq!(set.fingerprint, prints[1]);
    }
}
