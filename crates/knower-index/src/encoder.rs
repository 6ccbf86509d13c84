//! A BERT encoder for inference on the CPU, written for throughput: the
//! matrix products are candle's (the `gemm` crate's AVX2/AVX-512 kernels),
//! and the work between them is fused so each step reads its data once.
//!
//! What it does differently from a textbook forward pass, and why
//! (BENCHMARKS.md has the measurements):
//! - Q, K and V are one matrix product (384 → 1,152), not three.
//! - The attention scale 1/√d is folded into Q's weights when loading.
//! - Padding is masked inside the softmax, from each text's length: one
//!   pass over the scores instead of scale, add-mask, max, subtract, exp,
//!   sum and divide, each of which allocated and wrote a tensor of
//!   `batch × heads × length²` floats.
//! - GELU adds its bias in the same pass and computes erf with a rational
//!   approximation (error below 1e-7) that the compiler vectorises, where
//!   the scalar `erff` took an eighth of the whole pass.
//! - A linear layer adds its bias, and the connection that skips it, in
//!   place in its product, where candle allocated a tensor for each.
//! - These element-wise steps work in place and are compiled twice more,
//!   for AVX2 and AVX-512, picked at run time ([`at_widest_vectors`]): the
//!   crate is built for baseline x86-64, whose SSE2 vectors are a quarter
//!   of AVX-512's.
//!
//! Hidden states are kept as one `(tokens, width)` matrix for the batch;
//! only attention looks at them per text and head.
//!
//! Two families of checkpoints load: BERT's, and MPNet's
//! (`all-mpnet-base-v2`), which is BERT's layer under other weight names
//! with no segment embedding, positions counted from after its padding
//! id, and a learned bias on every attention score for the bucketed
//! distance between the two tokens (T5's buckets). The bias is added in
//! the masked softmax's pass.

use candle_core::{CpuStorage, Device, InplaceOp1, InplaceOp2, Layout, Module, Result, Tensor};
use candle_nn::VarBuilder;
use serde::Deserialize;

/// The parts of a BERT or MPNet `config.json` the encoder reads.
#[derive(Clone, Debug, Deserialize)]
pub struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_activation")]
    pub hidden_act: Activation,
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    /// "absolute" or absent; other kinds (relative positions) would give
    /// wrong vectors silently, so they are refused.
    #[serde(default)]
    pub position_embedding_type: Option<String>,
    #[serde(default)]
    pub model_type: Option<String>,
    /// MPNet's number of distance buckets for the attention bias.
    #[serde(default)]
    pub relative_attention_num_buckets: Option<usize>,
    /// MPNet counts positions from after this id.
    #[serde(default)]
    pub pad_token_id: Option<usize>,
    /// What the checkpoint is: `BertModel` for an embedding model,
    /// `BertForSequenceClassification` for a cross-encoder.
    #[serde(default)]
    pub architectures: Vec<String>,
    /// A classifier's labels, whose number is its head's outputs
    /// (`num_labels` is the older spelling). Read as any JSON, so a label
    /// of an odd kind never stops an embedding model from loading.
    #[serde(default)]
    pub id2label: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(default)]
    pub num_labels: Option<usize>,
}

impl Config {
    /// What the encoder does not implement, refused before any weight is
    /// read: it would otherwise give wrong vectors, or fail obscurely.
    pub fn check(&self) -> std::result::Result<(), String> {
        if let Some(kind) = self
            .position_embedding_type
            .as_deref()
            .filter(|k| *k != "absolute")
        {
            return Err(format!(
                "position_embedding_type {kind} is not supported (absolute only)"
            ));
        }
        // RoBERTa and XLM-R checkpoints carry BERT's weight names and would
        // load, but count positions from after the padding id: their
        // vectors would be silently wrong.
        if let Some(kind) = self
            .model_type
            .as_deref()
            .filter(|k| !["bert", "mpnet"].contains(k))
        {
            return Err(format!(
                "model_type {kind} is not supported (bert and mpnet only)"
            ));
        }
        if self.is_mpnet() && self.relative_attention_num_buckets.unwrap_or(0) < 2 {
            return Err("an mpnet model needs relative_attention_num_buckets".into());
        }
        let (width, heads) = (self.hidden_size, self.num_attention_heads);
        if heads == 0 || !width.is_multiple_of(heads) {
            return Err(format!(
                "hidden_size {width} is not a multiple of {heads} heads"
            ));
        }
        Ok(())
    }

    /// How many scores a classifier's head gives (1 when not declared).
    pub fn labels(&self) -> usize {
        self.id2label
            .as_ref()
            .map(|l| l.len())
            .or(self.num_labels)
            .unwrap_or(1)
    }

    fn is_mpnet(&self) -> bool {
        self.model_type.as_deref() == Some("mpnet")
    }
}

fn default_activation() -> Activation {
    Activation::Gelu
}
fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}

/// The feed-forward activation, by its Hugging Face name.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    /// GELU with erf, as BERT was trained.
    Gelu,
    /// GELU's tanh approximation.
    #[serde(alias = "gelu_new", alias = "gelu_pytorch_tanh")]
    GeluApproximate,
    Relu,
}

struct Linear {
    /// `(in, out)`, contiguous: the product's right side as gemm reads it.
    weight: Tensor,
    bias: Vec<f32>,
}

impl Linear {
    /// Loads `name.weight` `(out, in)` and `name.bias`.
    fn load(vb: &VarBuilder, name: &str, input: usize, output: usize) -> Result<Linear> {
        let weight = vb.get((output, input), &format!("{name}.weight"))?;
        let bias = vb.get(output, &format!("{name}.bias"))?;
        Linear::from_parts(weight, bias)
    }

    fn from_parts(weight: Tensor, bias: Tensor) -> Result<Linear> {
        Ok(Linear {
            weight: weight.t()?.contiguous()?,
            bias: bias.to_vec1()?,
        })
    }

    /// `x · W` without the bias, for the callers that fuse it.
    fn product(&self, x: &Tensor) -> Result<Tensor> {
        x.matmul(&self.weight)
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let y = self.product(x)?;
        y.inplace_op1(&AddBias { bias: &self.bias })?;
        Ok(y)
    }

    /// `x · W + b + residual`: a layer's output with the connection that
    /// skips it, added in one pass.
    fn forward_plus(&self, x: &Tensor, residual: &Tensor) -> Result<Tensor> {
        let y = self.product(x)?;
        y.inplace_op2(residual, &AddBias { bias: &self.bias })?;
        Ok(y)
    }
}

struct LayerNorm {
    weight: Tensor,
    bias: Tensor,
    eps: f32,
}

impl LayerNorm {
    fn load(vb: &VarBuilder, name: &str, width: usize, eps: f64) -> Result<LayerNorm> {
        Ok(LayerNorm {
            weight: vb.get(width, &format!("{name}.weight"))?,
            bias: vb.get(width, &format!("{name}.bias"))?,
            eps: eps as f32,
        })
    }
}

impl Module for LayerNorm {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        candle_nn::ops::layer_norm(x, &self.weight, &self.bias, self.eps)
    }
}

struct Layer {
    qkv: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    up: Linear,
    down: Linear,
    output_norm: LayerNorm,
}

/// What tells the encoder where a token is, besides its position's
/// embedding.
enum Positions {
    /// BERT: each token's type (segment) embedding is added, `(types,
    /// width)`; a text embedded alone is type 0 throughout, a cross-encoder's
    /// (query, passage) pair 0 then 1. Positions count from 0.
    Bert { segments: Tensor },
    /// MPNet: positions count from `first`; attention scores get a bias
    /// per head for the bucketed distance between the two tokens.
    MpNet { first: usize, bias: RelativeBias },
}

/// A learned bias per head and distance bucket, `(buckets, heads)`.
struct RelativeBias {
    table: Vec<f32>,
    buckets: usize,
    heads: usize,
}

/// The farthest distance MPNet tells apart; beyond it, one bucket.
const MPNET_MAX_DISTANCE: usize = 128;

impl RelativeBias {
    /// The bias `(heads, length, length)` for texts of `length` tokens:
    /// the same for every text, as it depends on positions only.
    fn for_length(&self, length: usize) -> Vec<f32> {
        let mut bias = vec![0f32; self.heads * length * length];
        for q in 0..length {
            for k in 0..length {
                let bucket = relative_bucket(q as i64 - k as i64, self.buckets);
                for h in 0..self.heads {
                    bias[(h * length + q) * length + k] = self.table[bucket * self.heads + h];
                }
            }
        }
        bias
    }
}

/// The bucket of a query's distance to a key (`query − key`), as MPNet
/// and T5 compute it: half the buckets for keys after the query, half for
/// before; within each, exact distances up to a quarter of the buckets,
/// then logarithmically wider ones up to [`MPNET_MAX_DISTANCE`]. In f32,
/// as the reference computes it, so a boundary falls where it does there.
fn relative_bucket(distance: i64, buckets: usize) -> usize {
    let half = buckets / 2;
    let mut bucket = if distance < 0 { half } else { 0 };
    let n = distance.unsigned_abs() as usize;
    let exact = half / 2;
    if n < exact {
        bucket += n;
    } else {
        let spread = ((n as f32 / exact as f32).ln()
            / ((MPNET_MAX_DISTANCE as f64 / exact as f64).ln() as f32)
            * (half - exact) as f32) as usize;
        bucket += (exact + spread).min(half - 1);
    }
    bucket
}

/// A loaded encoder: token ids in, one hidden state per token out.
pub struct Encoder {
    words: Tensor,
    positions: Tensor,
    kind: Positions,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_width: usize,
    activation: Activation,
    max_positions: usize,
}

impl Encoder {
    /// Loads the weights a `BertModel` (or `MPNetModel`) checkpoint holds,
    /// at the top level or under its `model_type` (`bert.`), as exported
    /// checkpoints vary.
    pub fn load(vb: VarBuilder, config: &Config) -> Result<Encoder> {
        config.check().map_err(candle_core::Error::msg)?;
        match Encoder::load_at(&vb, config) {
            Ok(encoder) => Ok(encoder),
            Err(first) => match &config.model_type {
                Some(prefix) => Encoder::load_at(&vb.pp(prefix), config).map_err(|_| first),
                None => Err(first),
            },
        }
    }

    fn load_at(vb: &VarBuilder, config: &Config) -> Result<Encoder> {
        let width = config.hidden_size;
        let heads = config.num_attention_heads;
        let head_width = width / heads;
        let eps = config.layer_norm_eps;
        let e = vb.pp("embeddings");
        // The two families name the same attention weights differently.
        let (query, key, value, attention_out, attention_norm) = if config.is_mpnet() {
            (
                "attention.attn.q",
                "attention.attn.k",
                "attention.attn.v",
                "attention.attn.o",
                "attention.LayerNorm",
            )
        } else {
            (
                "attention.self.query",
                "attention.self.key",
                "attention.self.value",
                "attention.output.dense",
                "attention.output.LayerNorm",
            )
        };
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let part = |name: &str| -> Result<(Tensor, Tensor)> {
                Ok((
                    l.get((width, width), &format!("{name}.weight"))?,
                    l.get(width, &format!("{name}.bias"))?,
                ))
            };
            // The scale of the scores, folded into the query.
            let scale = 1.0 / (head_width as f64).sqrt();
            let (qw, qb) = part(query)?;
            let (kw, kb) = part(key)?;
            let (vw, vb_) = part(value)?;
            let qkv = Linear::from_parts(
                Tensor::cat(&[&(qw * scale)?, &kw, &vw], 0)?,
                Tensor::cat(&[&(qb * scale)?, &kb, &vb_], 0)?,
            )?;
            let up = Linear::load(&l, "intermediate.dense", width, config.intermediate_size)?;
            layers.push(Layer {
                qkv,
                attention_out: Linear::load(&l, attention_out, width, width)?,
                attention_norm: LayerNorm::load(&l, attention_norm, width, eps)?,
                up,
                down: Linear::load(&l, "output.dense", config.intermediate_size, width)?,
                output_norm: LayerNorm::load(&l, "output.LayerNorm", width, eps)?,
            });
        }
        let kind = match config.relative_attention_num_buckets {
            Some(buckets) if config.is_mpnet() => {
                let table = vb
                    .get((buckets, heads), "encoder.relative_attention_bias.weight")?
                    .flatten_all()?
                    .to_vec1()?;
                Positions::MpNet {
                    first: config.pad_token_id.unwrap_or(1) + 1,
                    bias: RelativeBias {
                        table,
                        buckets,
                        heads,
                    },
                }
            }
            _ => Positions::Bert {
                segments: e.get(
                    (config.type_vocab_size, width),
                    "token_type_embeddings.weight",
                )?,
            },
        };
        Ok(Encoder {
            words: e.get((config.vocab_size, width), "word_embeddings.weight")?,
            positions: e.get(
                (config.max_position_embeddings, width),
                "position_embeddings.weight",
            )?,
            kind,
            embedding_norm: LayerNorm::load(&e, "LayerNorm", width, eps)?,
            layers,
            heads,
            head_width,
            activation: config.hidden_act,
            max_positions: config.max_position_embeddings,
        })
    }

    /// Hidden states `(texts × length, width)` of a batch: `ids` holds
    /// `lengths.len()` rows of `length` token ids, each text's padded with
    /// anything after its own length (padding never reaches a real token).
    /// Every token is of type 0, as a text embedded alone is.
    pub fn forward(&self, ids: &[u32], lengths: &[usize], device: &Device) -> Result<Tensor> {
        self.forward_typed(ids, None, lengths, device)
    }

    /// The same, with each token's type beside its id (`types` as long as
    /// `ids`): a cross-encoder reads a query as type 0 and its passage as
    /// type 1. MPNet has no types; it refuses any but 0.
    pub fn forward_typed(
        &self,
        ids: &[u32],
        types: Option<&[u32]>,
        lengths: &[usize],
        device: &Device,
    ) -> Result<Tensor> {
        let texts = lengths.len();
        let length = ids.len() / texts.max(1);
        if length * texts != ids.len() || lengths.iter().any(|&l| l > length) {
            candle_core::bail!("{} ids do not hold {texts} texts", ids.len());
        }
        if types.is_some_and(|t| t.len() != ids.len()) {
            candle_core::bail!("{} ids have no type each", ids.len());
        }
        let first = match &self.kind {
            Positions::Bert { .. } => 0,
            Positions::MpNet { first, .. } => *first,
        };
        if first + length > self.max_positions {
            candle_core::bail!(
                "{length} tokens are more than the model's {} positions",
                self.max_positions - first
            );
        }
        let ids = Tensor::from_slice(ids, ids.len(), device)?;
        let positions = self
            .positions
            .narrow(0, first, length)?
            .repeat((texts, 1))?;
        let mut x = self.words.index_select(&ids, 0)?.add(&positions)?;
        let mut bias = None;
        match (&self.kind, types) {
            (Positions::Bert { segments }, None) => x = x.broadcast_add(&segments.get(0)?)?,
            (Positions::Bert { segments }, Some(types)) => {
                let types = Tensor::from_slice(types, types.len(), device)?;
                x = x.add(&segments.index_select(&types, 0)?)?;
            }
            (Positions::MpNet { .. }, Some(types)) if types.iter().any(|&t| t != 0) => {
                candle_core::bail!("an mpnet model has no token types")
            }
            (Positions::MpNet { bias: table, .. }, _) => bias = Some(table.for_length(length)),
        }
        let mut x = self.embedding_norm.forward(&x)?;
        for layer in &self.layers {
            x = self.layer(layer, &x, texts, length, lengths, bias.as_deref())?;
        }
        Ok(x)
    }

    fn layer(
        &self,
        layer: &Layer,
        x: &Tensor,
        texts: usize,
        length: usize,
        lengths: &[usize],
        bias: Option<&[f32]>,
    ) -> Result<Tensor> {
        let (heads, hw) = (self.heads, self.head_width);
        // (texts, length, 3, heads, hw) → three (texts, heads, length, hw).
        let qkv = layer
            .qkv
            .forward(x)?
            .reshape((texts, length, 3, heads, hw))?;
        let part = |i: usize| -> Result<Tensor> {
            qkv.narrow(2, i, 1)?
                .squeeze(2)?
                .transpose(1, 2)?
                .contiguous()
        };
        let (q, k, v) = (part(0)?, part(1)?, part(2)?);
        let weights = q.matmul(&k.t()?)?;
        weights.inplace_op1(&MaskedSoftmax {
            lengths,
            heads,
            bias,
        })?;
        let mixed = weights
            .matmul(&v)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((texts * length, heads * hw))?;
        let x = layer
            .attention_norm
            .forward(&layer.attention_out.forward_plus(&mixed, x)?)?;
        let hidden = match self.activation {
            Activation::Gelu => {
                let hidden = layer.up.product(&x)?;
                hidden.inplace_op1(&BiasGelu {
                    bias: &layer.up.bias,
                })?;
                hidden
            }
            Activation::GeluApproximate => layer.up.forward(&x)?.gelu()?,
            Activation::Relu => layer.up.forward(&x)?.relu()?,
        };
        layer
            .output_norm
            .forward(&layer.down.forward_plus(&hidden, &x)?)
    }
}

/// The head of a `BertForSequenceClassification` checkpoint, which makes a
/// cross-encoder of the encoder: the first token's hidden state through
/// BERT's pooler (a dense layer and tanh) and a linear layer to one score
/// (a head of more labels does not load).
pub struct Classifier {
    pooler: Linear,
    out: Linear,
}

impl Classifier {
    /// Loads `pooler.dense` (at the top level or under the `model_type`
    /// prefix, as the encoder's weights) and `classifier`.
    pub fn load(vb: &VarBuilder, config: &Config) -> Result<Classifier> {
        let width = config.hidden_size;
        let pooler =
            Linear::load(vb, "pooler.dense", width, width).or_else(|first| {
                match &config.model_type {
                    Some(prefix) => Linear::load(&vb.pp(prefix), "pooler.dense", width, width)
                        .map_err(|_| first),
                    None => Err(first),
                }
            })?;
        Ok(Classifier {
            pooler,
            out: Linear::load(vb, "classifier", width, 1)?,
        })
    }

    /// One score (the logit) per text of a batch, from its hidden states
    /// `(texts × length, width)` as [`Encoder::forward_typed`] gives them.
    pub fn scores(&self, hidden: &Tensor, texts: usize, length: usize) -> Result<Vec<f32>> {
        let first: Vec<u32> = (0..texts).map(|t| (t * length) as u32).collect();
        let first = Tensor::from_vec(first, texts, hidden.device())?;
        let pooled = self
            .pooler
            .forward(&hidden.index_select(&first, 0)?)?
            .tanh()?;
        self.out.forward(&pooled)?.flatten_all()?.to_vec1()
    }
}

/// The slice of a contiguous f32 tensor, or an error naming `op`.
fn contiguous_f32<'a>(
    op: &str,
    storage: &'a mut CpuStorage,
    layout: &Layout,
) -> Result<&'a mut [f32]> {
    match (storage, layout.contiguous_offsets()) {
        (CpuStorage::F32(data), Some((start, end))) => Ok(&mut data[start..end]),
        _ => candle_core::bail!("{op} takes a contiguous f32 tensor"),
    }
}

/// The vector extensions an element-wise loop is compiled for. The crate is
/// built for baseline x86-64 (SSE2: 4 floats a register), so a loop left
/// to the default runs at a quarter of AVX-512's width; the loops run
/// through [`Vectors::run`] are compiled again for AVX2 (8) and AVX-512
/// (16), and the widest this CPU has is picked at run time.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Vectors {
    Avx512,
    Avx2,
    Baseline,
}

impl Vectors {
    /// The ones this CPU can run, widest first.
    fn available() -> impl Iterator<Item = Vectors> {
        [Vectors::Avx512, Vectors::Avx2, Vectors::Baseline]
            .into_iter()
            .filter(|v| v.on_this_cpu())
    }

    fn on_this_cpu(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        use std::arch::is_x86_feature_detected as has;
        match self {
            Vectors::Baseline => true,
            #[cfg(target_arch = "x86_64")]
            Vectors::Avx2 => has!("avx2") && has!("fma"),
            #[cfg(target_arch = "x86_64")]
            Vectors::Avx512 => has!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Runs `work` compiled for these vectors (the baseline if this CPU
    /// lacks them). `work` must be an `#[inline(always)]` closure: it is
    /// compiled for the wider vectors only where it is inlined.
    #[inline(always)]
    fn run<R>(self, work: impl FnOnce() -> R) -> R {
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f")]
            fn avx512<R>(work: impl FnOnce() -> R) -> R {
                work()
            }
            #[target_feature(enable = "avx2,fma")]
            fn avx2<R>(work: impl FnOnce() -> R) -> R {
                work()
            }
            match self {
                // SAFETY: `on_this_cpu` checked the features each was compiled for.
                Vectors::Avx512 if self.on_this_cpu() => return unsafe { avx512(work) },
                Vectors::Avx2 if self.on_this_cpu() => return unsafe { avx2(work) },
                _ => {}
            }
        }
        work()
    }
}

/// Runs `work` (an `#[inline(always)]` closure) compiled for the widest
/// vectors this CPU has.
#[inline(always)]
fn at_widest_vectors<R>(work: impl FnOnce() -> R) -> R {
    Vectors::available()
        .next()
        .unwrap_or(Vectors::Baseline)
        .run(work)
}

/// Softmax over the last dimension of `(texts, heads, length, length)`
/// scores, in place, where keys past a text's own length are padding:
/// they get weight 0, in the same pass. A bias `(heads, length, length)`,
/// if any, is added to every text's scores first.
struct MaskedSoftmax<'a> {
    lengths: &'a [usize],
    heads: usize,
    bias: Option<&'a [f32]>,
}

impl InplaceOp1 for MaskedSoftmax<'_> {
    fn name(&self) -> &'static str {
        "masked-softmax"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        let (texts, heads, rows, length) = layout.shape().dims4()?;
        if texts != self.lengths.len()
            || heads != self.heads
            || rows != length
            || self.bias.is_some_and(|b| b.len() != heads * rows * length)
        {
            candle_core::bail!("masked-softmax: scores of shape {:?}", layout.shape());
        }
        let scores = contiguous_f32(self.name(), storage, layout)?;
        at_widest_vectors(
            #[inline(always)]
            || {
                for (i, row) in scores.chunks_exact_mut(length).enumerate() {
                    let real = self.lengths[i / (heads * rows)].clamp(1, length);
                    let (row, padding) = row.split_at_mut(real);
                    if let Some(bias) = self.bias {
                        // Row i is (text, head, query); the bias has no text.
                        let at = (i % (heads * rows)) * length;
                        for (s, b) in row.iter_mut().zip(&bias[at..at + real]) {
                            *s += b;
                        }
                    }
                    softmax(row);
                    padding.fill(0.0);
                }
            },
        );
        Ok(())
    }
}

/// How many floats the reductions below keep apart: one AVX-512 register.
/// A single running maximum or sum is a chain of dependent instructions
/// that no compiler may reorder (float addition is not associative); 16
/// of them side by side vectorise.
const LANES: usize = 16;

/// Softmax of one row, in place.
#[inline(always)]
fn softmax(row: &mut [f32]) {
    let larger = |a: f32, b: f32| if b > a { b } else { a };
    let mut maxima = [f32::NEG_INFINITY; LANES];
    let mut chunks = row.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (m, &s) in maxima.iter_mut().zip(chunk) {
            *m = larger(*m, s);
        }
    }
    let max = chunks
        .remainder()
        .iter()
        .chain(&maxima)
        .fold(f32::NEG_INFINITY, |m, &s| larger(m, s));
    let mut sums = [0f32; LANES];
    let mut chunks = row.chunks_exact_mut(LANES);
    for chunk in &mut chunks {
        for (sum, s) in sums.iter_mut().zip(chunk) {
            *s = exp_below_zero(*s - max);
            *sum += *s;
        }
    }
    let mut sum: f32 = sums.iter().sum();
    for s in chunks.into_remainder() {
        *s = exp_below_zero(*s - max);
        sum += *s;
    }
    let inverse = 1.0 / sum;
    row.iter_mut().for_each(|s| *s *= inverse);
}

/// `x + bias` over the rows of a `(tokens, width)` matrix, in place, and
/// `+ residual` (a matrix of the same shape) as the two-tensor op.
struct AddBias<'a> {
    bias: &'a [f32],
}

impl AddBias<'_> {
    fn add(&self, x: &mut [f32], layout: &Layout, residual: Option<&[f32]>) -> Result<()> {
        let width = self.bias.len();
        if layout.shape().dims().last() != Some(&width)
            || residual.is_some_and(|r| r.len() != x.len())
        {
            candle_core::bail!("add-bias: {:?} rows, bias of {width}", layout.shape());
        }
        at_widest_vectors(
            #[inline(always)]
            || match residual {
                None => x
                    .chunks_exact_mut(width)
                    .for_each(|row| row.iter_mut().zip(self.bias).for_each(|(x, b)| *x += b)),
                Some(residual) => {
                    for (row, skip) in x.chunks_exact_mut(width).zip(residual.chunks_exact(width)) {
                        for ((x, b), r) in row.iter_mut().zip(self.bias).zip(skip) {
                            *x += b + r;
                        }
                    }
                }
            },
        );
        Ok(())
    }
}

impl InplaceOp1 for AddBias<'_> {
    fn name(&self) -> &'static str {
        "add-bias"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        let x = contiguous_f32(InplaceOp1::name(self), storage, layout)?;
        self.add(x, layout, None)
    }
}

impl InplaceOp2 for AddBias<'_> {
    fn name(&self) -> &'static str {
        "add-bias-and-residual"
    }

    fn cpu_fwd(
        &self,
        s1: &mut CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<()> {
        let residual = match (s2, l2.contiguous_offsets()) {
            (CpuStorage::F32(data), Some((start, end))) => &data[start..end],
            _ => candle_core::bail!("{} takes a contiguous f32 residual", InplaceOp2::name(self)),
        };
        let x = contiguous_f32(InplaceOp2::name(self), s1, l1)?;
        self.add(x, l1, Some(residual))
    }
}

/// `gelu(x + bias)` over the rows of a `(tokens, width)` matrix, in place,
/// GELU being the erf form BERT was trained with.
struct BiasGelu<'a> {
    bias: &'a [f32],
}

impl InplaceOp1 for BiasGelu<'_> {
    fn name(&self) -> &'static str {
        "bias-gelu"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        let width = self.bias.len();
        if layout.shape().dims().last() != Some(&width) {
            candle_core::bail!("bias-gelu: {:?} rows, bias of {width}", layout.shape());
        }
        let x = contiguous_f32(self.name(), storage, layout)?;
        at_widest_vectors(
            #[inline(always)]
            || {
                for row in x.chunks_exact_mut(width) {
                    for (x, &b) in row.iter_mut().zip(self.bias) {
                        let v = *x + b;
                        *x = 0.5 * v * (1.0 + erf(v * std::f32::consts::FRAC_1_SQRT_2));
                    }
                }
            },
        );
        Ok(())
    }
}

/// e^x for x ≤ 0 (a softmax's scores less their maximum), as 2^n · e^y
/// with n the nearest integer to x·log2(e) and |y| ≤ ln2/2, where a Taylor
/// polynomial of degree 6 is within 2e-7. No branches and no library call
/// (rounding is by adding and taking away 1.5·2²³), so the loop over a row
/// vectorises; `expf` was a call per score and a tenth of an embedding pass.
#[inline(always)]
fn exp_below_zero(x: f32) -> f32 {
    // Below -87, e^x is under f32's smallest normal; a softmax weight there
    // is 0 for all purposes.
    let x = x.max(-87.0);
    const ROUND: f32 = 12_582_912.0;
    let rounded = x * std::f32::consts::LOG2_E + ROUND;
    let n = rounded - ROUND;
    // ln 2 in two parts (Cody and Waite): the first has few enough bits
    // that n times it is exact, so y keeps its precision for any n.
    let y = (x - n * 0.693_359_4) - n * -2.121_944_4e-4;
    let p = [
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ]
    .iter()
    .fold(0.0f32, |acc, &c| acc * y + c);
    // 2^n from `rounded`'s bits, whose mantissa holds n + 2^22 (n ≥ -126):
    // integer steps that vectorise, where `n as i32` is a scalar
    // conversion guarding against NaN.
    let two_to_n = rounded
        .to_bits()
        .wrapping_sub(ROUND.to_bits())
        .wrapping_add(127)
        << 23;
    f32::from_bits(two_to_n) * p
}

/// erf as a ratio of two polynomials in x² on [-4, 4] (beyond it erf is ±1
/// to f32 precision); absolute error below 1e-7. No branches and no
/// library call, so a loop over it vectorises.
#[inline(always)]
fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = [
        -2.726_142_3e-10,
        2.770_681_4e-8,
        -2.101_024e-6,
        -5.692_506_4e-5,
        -7.349_906_3e-4,
        -2.9546e-3,
        -1.609_603_3e-2,
    ]
    .iter()
    .fold(0.0f32, |acc, &c| acc * x2 + c);
    let q = [
        -1.456_607_2e-5,
        -2.133_740_6e-4,
        -1.682_827e-3,
        -7.373_329e-3,
        -1.426_474e-2,
    ]
    .iter()
    .fold(0.0f32, |acc, &c| acc * x2 + c);
    x * p / q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_the_series_to_single_precision() {
        let mut worst = 0f64;
        for i in -3000..=3000 {
            let x = i as f64 / 1000.0;
            worst = worst.max((erf(x as f32) as f64 - erf_series(x)).abs());
        }
        assert!(worst < 5e-7, "worst error {worst}");
        assert_eq!(erf(10.0), erf(4.0));
        assert!((erf(4.0) - 1.0).abs() < 1e-6);
        assert!((erf(-30.0) + 1.0).abs() < 1e-6);
    }

    #[test]
    fn exp_matches_the_library_below_zero() {
        let mut worst = 0f32;
        for i in 0..=86_000 {
            let x = -(i as f32) * 0.001;
            let (got, want) = (exp_below_zero(x), x.exp());
            worst = worst.max((got - want).abs() / want);
        }
        assert!(worst < 5e-7, "worst relative error {worst}");
        assert_eq!(exp_below_zero(0.0), 1.0);
        assert!(exp_below_zero(-200.0) < 1e-37);
    }

    /// The buckets of `transformers`' `MPNetEncoder.relative_position_bucket`
    /// for every distance from −300 to 300, as runs: `(from, bucket)`
    /// holds until the next run starts. Printed by the reference (torch,
    /// float32), so the logarithmic boundaries (16, 32, 64) fall alike.
    #[test]
    fn distance_buckets_are_the_reference_s() {
        let runs: [(i64, usize); 31] = [
            (-300, 31),
            (-90, 30),
            (-63, 29),
            (-45, 28),
            (-31, 27),
            (-22, 26),
            (-15, 25),
            (-11, 24),
            (-7, 23),
            (-6, 22),
            (-5, 21),
            (-4, 20),
            (-3, 19),
            (-2, 18),
            (-1, 17),
            (0, 0),
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 4),
            (5, 5),
            (6, 6),
            (7, 7),
            (8, 8),
            (12, 9),
            (16, 10),
            (23, 11),
            (32, 12),
            (46, 13),
            (64, 14),
            (91, 15),
        ];
        for distance in -300i64..=300 {
            let want = runs
                .iter()
                .rev()
                .find(|(from, _)| *from <= distance)
                .unwrap()
                .1;
            assert_eq!(relative_bucket(distance, 32), want, "distance {distance}");
        }
    }

    #[test]
    fn a_bias_is_added_to_each_text_s_scores_before_the_softmax() {
        // Two texts of length 2 (the second padded from 1), two heads.
        let scores = vec![0f32; 16];
        let bias: Vec<f32> = (0..8).map(|i| i as f32).collect();
        let t = Tensor::from_vec(scores, (2, 2, 2, 2), &Device::Cpu).unwrap();
        t.inplace_op1(&MaskedSoftmax {
            lengths: &[2, 1],
            heads: 2,
            bias: Some(&bias),
        })
        .unwrap();
        let out = t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        // Text 1: each row is softmax(b, b + 1) = (1 − σ(1), σ(1)).
        let high = 1.0 / (1.0 + (-1f32).exp());
        for row in out[..8].chunks(2) {
            assert!((row[1] - high).abs() < 1e-6 && (row[0] + row[1] - 1.0).abs() < 1e-6);
        }
        // Text 2 has one real token: the bias does not reach padding.
        for row in out[8..].chunks(2) {
            assert_eq!(row, &[1.0, 0.0]);
        }
    }

    #[test]
    fn masked_softmax_ignores_padding_and_sums_to_one() {
        // Two texts of lengths 3 and 1, padded to 3; one head.
        let scores: Vec<f32> = (0..18).map(|i| (i % 5) as f32).collect();
        let t = Tensor::from_vec(scores.clone(), (2, 1, 3, 3), &Device::Cpu).unwrap();
        t.inplace_op1(&MaskedSoftmax {
            lengths: &[3, 1],
            heads: 1,
            bias: None,
        })
        .unwrap();
        let out = t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        for row in out[..9].chunks(3) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        }
        // The first row of text 1: scores 0, 1, 2 → softmax.
        let e: Vec<f32> = [0f32, 1.0, 2.0].iter().map(|s| s.exp()).collect();
        let total: f32 = e.iter().sum();
        for (got, want) in out[..3].iter().zip(&e) {
            assert!((got - want / total).abs() < 1e-6);
        }
        // Text 2 has one real token: all weight on it, none on padding.
        for row in out[9..].chunks(3) {
            assert_eq!(row, &[1.0, 0.0, 0.0]);
        }
    }

    #[test]
    fn a_long_row_s_softmax_matches_the_textbook_one() {
        // Rows longer than the reductions' lanes, and not a multiple of
        // them, with the maximum in the tail.
        for length in [16, 37, 200] {
            let row: Vec<f32> = (0..length)
                .map(|i| {
                    ((i * 7919) % 101) as f32 * 0.13 - 4.0 + (i == length - 1) as u8 as f32 * 9.0
                })
                .collect();
            let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let total: f64 = row.iter().map(|&s| ((s - max) as f64).exp()).sum();
            // Each compilation this CPU can run.
            let runs: Vec<Vec<f32>> = Vectors::available()
                .map(|vectors| {
                    let mut got = row.clone();
                    vectors.run(
                        #[inline(always)]
                        || softmax(&mut got),
                    );
                    got
                })
                .collect();
            for got in runs {
                for (g, &s) in got.iter().zip(&row) {
                    let want = ((s - max) as f64).exp() / total;
                    assert!(
                        (*g as f64 - want).abs() < 1e-6,
                        "length {length}: {g} against {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn bias_gelu_adds_the_bias_and_applies_gelu_in_place() {
        let x: Vec<f32> = (0..40).map(|i| i as f32 * 0.25 - 5.0).collect();
        let bias: Vec<f32> = (0..20).map(|i| i as f32 * 0.01).collect();
        let t = Tensor::from_vec(x.clone(), (2, 20), &Device::Cpu).unwrap();
        t.inplace_op1(&BiasGelu { bias: &bias }).unwrap();
        let got = t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        for (i, (g, v)) in got.iter().zip(&x).enumerate() {
            let v = (v + bias[i % 20]) as f64;
            let want = 0.5 * v * (1.0 + erf_series(v / std::f64::consts::SQRT_2));
            assert!((*g as f64 - want).abs() < 1e-6, "{v}: {g} against {want}");
        }
    }

    #[test]
    fn add_bias_adds_the_bias_to_each_row_and_the_residual_to_each_element() {
        let x: Vec<f32> = (0..60).map(|i| i as f32).collect();
        let bias: Vec<f32> = (0..20).map(|i| i as f32 * 0.5).collect();
        let residual: Vec<f32> = (0..60).map(|i| -(i as f32) * 2.0).collect();
        let (t, r) = (
            Tensor::from_vec(x.clone(), (3, 20), &Device::Cpu).unwrap(),
            Tensor::from_vec(residual.clone(), (3, 20), &Device::Cpu).unwrap(),
        );
        let add = AddBias { bias: &bias };
        t.inplace_op1(&add).unwrap();
        let got = t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        assert!((0..60).all(|i| got[i] == x[i] + bias[i % 20]));
        t.inplace_op2(&r, &add).unwrap();
        let got = t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        assert!((0..60).all(|i| got[i] == x[i] + 2.0 * bias[i % 20] + residual[i]));
        // A residual of another shape is refused, not read past its end.
        let short = Tensor::zeros((2, 20), candle_core::DType::F32, &Device::Cpu).unwrap();
        assert!(t.inplace_op2(&short, &add).is_err());
    }

    /// erf in f64 by its Taylor series: exact enough on [-4, 4].
    fn erf_series(x: f64) -> f64 {
        let (mut term, mut sum) = (x, x);
        for n in 1..400 {
            term *= -x * x / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }
}
