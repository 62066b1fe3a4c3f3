//! NNUE evaluation for any game that declares a feature set: a `(INPUTS -> N)x2 -> B`
//! perspective network in bullet's simple quantised layout (B output buckets, one output
//! head each, 1 to [`MAX_BUCKETS`]), its net file, and the stack of
//! accumulators updated lazily ([`accumulator`]). Games import this module; it imports no
//! game, names none, and holds no training code (the trainer and the self-play run loop are
//! in the training crate, `training/`).
//!
//! # Feature sets
//!
//! A game declares its inputs with a [`FeatureSet`] (a file id, a name, the input count
//! per perspective, the most features active at once) and computes, per position, the
//! active features of each perspective (perspective 0 is the first player, 1 the second),
//! and per move the features it adds and removes ([`accumulator::Delta`]). The side to
//! move's accumulator goes first into the output layer. A set may be made of patterns
//! ([`pattern`]): one input per state of each small window of cells (every 2x2 square,
//! say), the windows given by the game as a table, updated window by window.
//!
//! # Output buckets
//!
//! A net of B > 1 buckets has B output heads; the game picks the head of each position
//! (by material, say: pieces or stones on the board, as bullet's
//! `MaterialCount<B>` does, see [`count_bucket`]) and passes it when evaluating. With B = 1
//! every position takes the one head, and the net is exactly the `(INPUTS -> N)x2 -> 1`
//! net of before.
//!
//! # Net file layout
//!
//! Little-endian `i16`s, what bullet writes as `quantised.bin` for this architecture:
//!
//! | part            | shape         | quantisation         |
//! |-----------------|---------------|----------------------|
//! | feature weights | `[INPUTS][N]` | × QA (255)           |
//! | feature biases  | `[N]`         | × QA                 |
//! | output weights  | `[B][2N]`     | × QB (64), per bucket stm first |
//! | output bias     | `[B]`         | × QA × QB            |
//!
//! then zero padding up to a multiple of 64 bytes: `2 (INPUTS N + N + 2 B N + B)` bytes
//! before padding (`2 (INPUTS N + 3 N + 1)` for B = 1). The padding starts with a tag that
//! `cutoff train` writes:
//! - version 1 (8 bytes): `b"cutoff"`, `1`, the activation (0 SCReLU, 1 CReLU): a net of
//!   the untagged set [`UNTAGGED_ID`] ([`UNTAGGED_INPUTS`] inputs; a game declares it
//!   under its own name);
//! - version 2 (11 bytes): `b"cutoff"`, `2`, the activation, the feature set's id, its
//!   input count (`u16`); the file is padded one block more when the tag would not fit;
//! - version 3 (12 bytes), only for B > 1: `b"cutoff"`, `3`, the activation, the feature
//!   set's id, its input count (`u16`), B (`u8`, 1 to [`MAX_BUCKETS`]); padded one block
//!   more when the tag would not fit.
//!
//! Untagged, version-1 and version-2 nets have one bucket. A net whose padding is all zeros
//! (bullet's) is an SCReLU net of the untagged set. The hidden size is deduced from the file size
//! (and the tag's input and bucket counts). A net of another feature set than the one
//! asked for, of no valid size, or with a malformed version-3 tag (a bucket count out of
//! range, an unknown activation) is refused ([`NetworkError`]).
//!
//! # Output
//!
//! SCReLU: `(Σ clamp(acc, 0, QA)² · w / QA + bias) · 400 / (QA · QB)`;
//! CReLU: `(Σ clamp(acc, 0, QA) · w + bias) · 400 / (QA · QB)`, for the side to move,
//! with bullet's integer divisions; `w` and `bias` those of the position's bucket.

pub mod accumulator;
pub mod pattern;

use std::path::Path;
use std::sync::{Arc, OnceLock};

use thiserror::Error;

pub use accumulator::{Delta, NnueState};
pub use pattern::Patterns;

/// A net built into the binary (`bytes`, of one of the game's feature sets `accepted`),
/// parsed once into `cell` and passed through `prepare` (the form the game evaluates with,
/// e.g. Ataxx's fold; `std::convert::identity` for none), then shared by every position and
/// thread; `None` only if the bytes are not such a net (each game's unit test rules that out).
pub fn embedded_net(
    cell: &'static OnceLock<Option<Arc<Network>>>,
    bytes: &[u8],
    accepted: &[FeatureSet],
    prepare: fn(Network) -> Network,
) -> Option<Arc<Network>> {
    cell.get_or_init(|| {
        Network::from_bytes_among(bytes, accepted)
            .ok()
            .map(|net| Arc::new(prepare(net)))
    })
    .clone()
}

/// Quantisation of the feature weights and biases.
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// Output scale: the network's raw output times this is the evaluation.
pub const SCALE: i32 = 400;
/// Largest hidden size accepted.
pub const MAX_HIDDEN: usize = 1024;
/// Most output buckets accepted.
pub const MAX_BUCKETS: usize = 8;
/// Hidden neurons whose output terms are summed in i32 before the sum is widened to i64:
/// a term is at most `QA² · 128` ([`screlu_dot_small`]) or `QA · 32 768`
/// ([`crelu_dot`]), so 256 of them cannot overflow (and a net of at most 256 neurons is
/// one chunk, summed exactly as before wider nets were accepted).
const DOT_CHUNK: usize = 256;
/// The tag `cutoff train` writes at the start of the padding.
const TAG: &[u8; 6] = b"cutoff";
/// Length of a version-1 tag.
const TAG_V1_LEN: usize = TAG.len() + 2;
/// Length of a version-2 tag.
const TAG_V2_LEN: usize = TAG.len() + 5;
/// Length of a version-3 tag (a version-2 one and the bucket count).
const TAG_V3_LEN: usize = TAG.len() + 6;
/// Largest evaluation returned, well inside the search's evaluation bounds.
const EVAL_LIMIT: i32 = 20_000;
/// The id of the feature set of untagged and version-1 nets (files without a set's id).
pub const UNTAGGED_ID: u8 = 0;
/// The input count of the untagged feature set.
pub const UNTAGGED_INPUTS: usize = 768;

/// The feature set of untagged and version-1 net files, as the file format knows it: the
/// game whose inputs these are declares it under its own name and active count
/// (`FeatureSet { name: ..., ..UNTAGGED }`).
pub const UNTAGGED: FeatureSet = FeatureSet {
    id: UNTAGGED_ID,
    name: "untagged",
    inputs: UNTAGGED_INPUTS,
    max_active: UNTAGGED_INPUTS,
    factor: 0,
};

/// The inputs of a network: what a game declares to get a net.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureSet {
    /// The id written in the net file's tag ([`UNTAGGED_ID`] for the untagged set); each
    /// game declares its sets with ids no other game's set has.
    pub id: u8,
    /// Its name, as bullet names the same inputs.
    pub name: &'static str,
    /// Input features per perspective.
    pub inputs: usize,
    /// The most features active at once in one perspective.
    pub max_active: usize,
    /// The inputs of the shared factor a bucketed set may train with (`cutoff train
    /// --factorise`; 0: none): feature `i` also trains shared weights `i % factor`, added
    /// to every bucket's row when the net is written (bullet's factoriser).
    pub factor: usize,
}

/// The activation of the hidden layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Activation {
    /// Squared clipped ReLU: `clamp(x, 0, 1)²`.
    #[default]
    SCReLU,
    /// Clipped ReLU: `clamp(x, 0, 1)`.
    CReLU,
}

impl Activation {
    /// The id written in the file tag.
    fn id(self) -> u8 {
        match self {
            Activation::SCReLU => 0,
            Activation::CReLU => 1,
        }
    }

    /// The activation of a tag id.
    fn from_id(id: u8) -> Option<Activation> {
        match id {
            0 => Some(Activation::SCReLU),
            1 => Some(Activation::CReLU),
            _ => None,
        }
    }

    /// Parses `screlu` or `crelu` (any case).
    pub fn from_name(name: &str) -> Option<Activation> {
        match name.trim().to_ascii_lowercase().as_str() {
            "screlu" => Some(Activation::SCReLU),
            "crelu" => Some(Activation::CReLU),
            _ => None,
        }
    }
}

impl std::fmt::Display for Activation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Activation::SCReLU => "screlu",
            Activation::CReLU => "crelu",
        })
    }
}

/// Why a net file was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NetworkError {
    /// The file cannot be read.
    #[error("cannot read '{path}': {reason}")]
    Io {
        /// The path given.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// The size fits no hidden size.
    #[error(
        "{len} bytes is not the size of a ({inputs} -> N)x2 -> {buckets} net: expected \
         {per_neuron}*N + {bias_bytes} bytes (padded to a multiple of 64), with \
         1 <= N <= {MAX_HIDDEN}",
        bias_bytes = 2 * .buckets
    )]
    Size {
        /// The size found.
        len: usize,
        /// The input count expected.
        inputs: usize,
        /// Bytes per hidden neuron.
        per_neuron: usize,
        /// The output buckets (1 unless a version-3 tag says otherwise).
        buckets: usize,
    },
    /// The padding holds something that is not a valid cutoff tag.
    #[error("the padding after the weights is neither zeros nor a valid cutoff tag")]
    Padding,
    /// A version-3 tag gives a bucket count out of range.
    #[error("the net has {found} output buckets: 1 to {MAX_BUCKETS} are supported")]
    Buckets {
        /// The count in the tag.
        found: usize,
    },
    /// A version-3 tag is malformed.
    #[error("malformed version-3 cutoff tag: {reason}")]
    Tag {
        /// What is wrong with it.
        reason: String,
    },
    /// The net was trained on other inputs (for another game); the games name the set
    /// found by its id (`cutoff::games::net_error`).
    #[error(
        "this is a net for feature set #{found_id} ({found_inputs} inputs), expected one for \
         {name} ({inputs} inputs)",
        name = .expected.name,
        inputs = .expected.inputs
    )]
    WrongFeatures {
        /// The id of the feature set the file holds.
        found_id: u8,
        /// Its input count.
        found_inputs: usize,
        /// The set the game takes (the first of those it accepts).
        expected: FeatureSet,
    },
}

/// A quantised network, shared read-only by every position and thread through an `Arc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    features: FeatureSet,
    hidden: usize,
    activation: Activation,
    /// `[inputs][hidden]`, row `feature`.
    feature_weights: Box<[i16]>,
    /// `[hidden]`.
    feature_bias: Box<[i16]>,
    /// Output heads (buckets), from 1 to [`MAX_BUCKETS`].
    buckets: usize,
    /// `[buckets][2 * hidden]`: per bucket, the side to move's half first.
    output_weights: Box<[i16]>,
    /// `[buckets]`.
    output_bias: Box<[i16]>,
    /// Whether every output weight is within ±128 (`clamp(a) · w` fits an i16).
    small_output: bool,
}

/// Size in bytes of the weights of a net with `inputs` features and `hidden` neurons,
/// before padding.
pub fn raw_size_of(inputs: usize, hidden: usize) -> usize {
    bucketed_raw_size(inputs, hidden, 1)
}

/// Size in bytes of the weights of a net with `inputs` features, `hidden` neurons and
/// `buckets` output heads, before padding.
pub fn bucketed_raw_size(inputs: usize, hidden: usize, buckets: usize) -> usize {
    2 * (inputs * hidden + hidden + buckets * (2 * hidden + 1))
}

/// Size in bytes of the file of a net of `features` with `hidden` neurons: padded to 64
/// bytes, with room for the version-2 tag unless the set is the legacy one.
pub fn file_size_of(features: &FeatureSet, hidden: usize) -> usize {
    bucketed_file_size(features, hidden, 1)
}

/// Size in bytes of the file of a net of `features` with `hidden` neurons and `buckets`
/// output heads: padded to 64 bytes, with room for its tag (version 3 for more than one
/// bucket, else version 2 unless the set is the legacy one).
pub fn bucketed_file_size(features: &FeatureSet, hidden: usize, buckets: usize) -> usize {
    let raw = bucketed_raw_size(features.inputs, hidden, buckets);
    let tag = if buckets > 1 {
        TAG_V3_LEN
    } else if features.id == UNTAGGED_ID {
        0
    } else {
        TAG_V2_LEN
    };
    (raw + tag).div_ceil(64) * 64
}

/// The output bucket of a position by a count (pieces, stones) from 0 to `total`, with
/// `buckets` buckets: `count / ceil(total / buckets)`, at most `buckets - 1` (bullet's
/// `MaterialCount<B>` with the two kings left out of the count and `total` 32). One
/// bucket: always 0.
#[inline]
pub fn count_bucket(count: usize, total: usize, buckets: usize) -> usize {
    if buckets <= 1 {
        return 0;
    }
    (count / total.div_ceil(buckets)).min(buckets - 1)
}

/// What a net file's layout says: its feature set (id, inputs), hidden size, output
/// buckets, activation.
struct Layout {
    id: u8,
    inputs: usize,
    hidden: usize,
    buckets: usize,
    activation: Activation,
}

impl Network {
    /// A network of `features` with one output bucket from its quantised parts. Panics if
    /// the lengths do not fit (a programming error: files go through
    /// [`Network::from_bytes_for`]).
    pub fn new(
        features: FeatureSet,
        activation: Activation,
        feature_weights: Vec<i16>,
        feature_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: i16,
    ) -> Network {
        Network::bucketed(
            features,
            activation,
            feature_weights,
            feature_bias,
            output_weights,
            vec![output_bias],
        )
    }

    /// A network of `features` from its quantised parts, with as many output buckets as
    /// `output_bias` has values (`output_weights`: `[buckets][2 * hidden]`). Panics if the
    /// lengths do not fit (a programming error).
    pub fn bucketed(
        features: FeatureSet,
        activation: Activation,
        feature_weights: Vec<i16>,
        feature_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: Vec<i16>,
    ) -> Network {
        let hidden = feature_bias.len();
        let buckets = output_bias.len();
        assert!((1..=MAX_HIDDEN).contains(&hidden), "hidden size {hidden}");
        assert!((1..=MAX_BUCKETS).contains(&buckets), "buckets {buckets}");
        assert_eq!(feature_weights.len(), features.inputs * hidden);
        assert_eq!(output_weights.len(), buckets * 2 * hidden);
        let small_output = output_weights.iter().all(|w| w.unsigned_abs() <= 128);
        Network {
            features,
            hidden,
            activation,
            small_output,
            buckets,
            feature_weights: feature_weights.into(),
            feature_bias: feature_bias.into(),
            output_weights: output_weights.into(),
            output_bias: output_bias.into(),
        }
    }

    /// The feature set.
    pub fn features(&self) -> &FeatureSet {
        &self.features
    }

    /// The hidden size N.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The number of output buckets B.
    #[inline]
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// The activation.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// The feature weights, `[inputs][hidden]`.
    pub fn feature_weights(&self) -> &[i16] {
        &self.feature_weights
    }

    /// The feature biases, `[hidden]`.
    pub fn feature_bias(&self) -> &[i16] {
        &self.feature_bias
    }

    /// The output weights, `[buckets][2 * hidden]`, per bucket the side to move's half
    /// first.
    pub fn output_weights(&self) -> &[i16] {
        &self.output_weights
    }

    /// The output biases, `[buckets]`.
    pub fn output_bias(&self) -> &[i16] {
        &self.output_bias
    }

    /// Whether every output weight is within ±128.
    pub fn small_output(&self) -> bool {
        self.small_output
    }

    /// Reads a net file of `expected`'s inputs (see the module documentation).
    pub fn load_for(path: &Path, expected: &FeatureSet) -> Result<Network, NetworkError> {
        Network::load_among(path, std::slice::from_ref(expected))
    }

    /// Reads a net file of one of the `accepted` feature sets (a game's; the first is
    /// named when the file is refused).
    pub fn load_among(path: &Path, accepted: &[FeatureSet]) -> Result<Network, NetworkError> {
        let bytes = std::fs::read(path).map_err(|e| NetworkError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Network::from_bytes_among(&bytes, accepted)
    }

    /// Parses a net file's bytes, which must be a net of `expected`'s inputs.
    pub fn from_bytes_for(bytes: &[u8], expected: &FeatureSet) -> Result<Network, NetworkError> {
        Network::from_bytes_among(bytes, std::slice::from_ref(expected))
    }

    /// Parses a net file's bytes, which must be a net of one of the `accepted` feature
    /// sets (at least one; the first is named when the file is refused).
    pub fn from_bytes_among(
        bytes: &[u8],
        accepted: &[FeatureSet],
    ) -> Result<Network, NetworkError> {
        let first = accepted.first().copied().unwrap_or(UNTAGGED);
        let layout = match tagged_layout(bytes) {
            Some(tagged) => tagged?,
            None => legacy_layout(bytes, &first)?,
        };
        let Some(expected) = accepted
            .iter()
            .find(|set| (set.id, set.inputs) == (layout.id, layout.inputs))
        else {
            return Err(NetworkError::WrongFeatures {
                found_id: layout.id,
                found_inputs: layout.inputs,
                expected: first,
            });
        };
        let raw = bucketed_raw_size(layout.inputs, layout.hidden, layout.buckets);
        let mut words = bytes[..raw]
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]));
        let mut take = |n: usize| -> Vec<i16> { words.by_ref().take(n).collect() };
        let feature_weights = take(layout.inputs * layout.hidden);
        let feature_bias = take(layout.hidden);
        let output_weights = take(layout.buckets * 2 * layout.hidden);
        let output_bias = take(layout.buckets);
        Ok(Network::bucketed(
            *expected,
            layout.activation,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        ))
    }

    /// The net file's bytes: the weights, then the tag and zeros up to 64 bytes (version 3
    /// with more than one bucket; else for the legacy set a version-1 tag, left out when
    /// the padding is shorter than it; else version 2).
    pub fn to_bytes(&self) -> Vec<u8> {
        let size = bucketed_file_size(&self.features, self.hidden, self.buckets);
        let mut bytes = Vec::with_capacity(size);
        let parts: [&[i16]; 4] = [
            &self.feature_weights,
            &self.feature_bias,
            &self.output_weights,
            &self.output_bias,
        ];
        for word in parts.into_iter().flatten() {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        if self.buckets > 1 {
            bytes.extend_from_slice(TAG);
            bytes.extend_from_slice(&[3, self.activation.id(), self.features.id]);
            bytes.extend_from_slice(&(self.features.inputs as u16).to_le_bytes());
            bytes.push(self.buckets as u8);
        } else if self.features.id != UNTAGGED_ID {
            bytes.extend_from_slice(TAG);
            bytes.extend_from_slice(&[2, self.activation.id(), self.features.id]);
            bytes.extend_from_slice(&(self.features.inputs as u16).to_le_bytes());
        } else if size - bytes.len() >= TAG_V1_LEN {
            bytes.extend_from_slice(TAG);
            bytes.extend_from_slice(&[1, self.activation.id()]);
        }
        bytes.resize(size, 0);
        bytes
    }

    /// Writes the net file.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())
    }

    /// The weights of one input feature.
    #[inline]
    pub fn row(&self, feature: usize) -> &[i16] {
        &self.feature_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }

    /// The output for the side to move, from the side to move's accumulator `us` and the
    /// other side's `them`, by the head of `bucket` (the last one if `bucket` is beyond);
    /// with AVX2 when the CPU has it (detected at run time), else with the portable code:
    /// the same integer arithmetic, so the same value.
    #[inline]
    pub fn output(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, the only requirement of `output_avx2`.
            return unsafe { self.output_avx2(us, them, bucket) };
        }
        self.output_portable(us, them, bucket)
    }

    /// [`Network::output_portable`] compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn output_avx2(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        self.output_portable(us, them, bucket)
    }

    /// [`Network::output`] in portable code (vectorised for the target's baseline: SSE2 on
    /// x86-64).
    #[inline(always)]
    pub fn output_portable(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let bucket = bucket.min(self.buckets - 1);
        let width = 2 * self.hidden;
        let weights = &self.output_weights[bucket * width..(bucket + 1) * width];
        let output_bias = i64::from(self.output_bias[bucket]);
        let (ours, theirs) = weights.split_at(self.hidden);
        let sum = match self.activation {
            Activation::SCReLU => {
                let total = if self.small_output {
                    chunked(screlu_dot_small, us, ours) + chunked(screlu_dot_small, them, theirs)
                } else {
                    screlu_dot(us, ours) + screlu_dot(them, theirs)
                };
                total / i64::from(QA) + output_bias
            }
            Activation::CReLU => {
                chunked(crelu_dot, us, ours) + chunked(crelu_dot, them, theirs) + output_bias
            }
        };
        let eval = sum * i64::from(SCALE) / i64::from(QA * QB);
        eval.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
    }

    /// Fills one perspective's accumulator from its active features.
    pub fn refresh_from(&self, accumulator: &mut [i16], active: impl IntoIterator<Item = usize>) {
        accumulator.copy_from_slice(&self.feature_bias);
        for feature in active {
            add(accumulator, self.row(feature));
        }
    }

    /// The output for the side to move given the active features of its perspective `us`
    /// and of the other `them`, by the head of `bucket`, from scratch: the reference for
    /// incremental updates.
    pub fn evaluate_features(
        &self,
        us: impl IntoIterator<Item = usize>,
        them: impl IntoIterator<Item = usize>,
        bucket: usize,
    ) -> i32 {
        let mut ours = vec![0; self.hidden];
        let mut theirs = vec![0; self.hidden];
        self.refresh_from(&mut ours, us);
        self.refresh_from(&mut theirs, them);
        self.output(&ours, &theirs, bucket)
    }
}

/// The layout of a file with a version-2 or version-3 tag, if it has one: the tag sits
/// where the weights its own counts imply end, within the last 64 bytes. `Some(Err)`: a
/// version-3 tag that is malformed or does not fit the file.
fn tagged_layout(bytes: &[u8]) -> Option<Result<Layout, NetworkError>> {
    let len = bytes.len();
    let first = len.saturating_sub(64 + TAG_V3_LEN);
    (first..=len.checked_sub(TAG_V2_LEN)?)
        .filter(|start| start % 2 == 0)
        .find_map(|start| {
            let tag = &bytes[start..];
            if &tag[..TAG.len()] != TAG {
                return None;
            }
            match tag[TAG.len()] {
                2 => v2_layout(bytes, start).map(Ok),
                3 => Some(v3_layout(bytes, start)),
                _ => None,
            }
        })
}

/// The layout of a version-2 tag at `start`, if the file fits it.
fn v2_layout(bytes: &[u8], start: usize) -> Option<Layout> {
    let tag = &bytes[start..start + TAG_V2_LEN];
    let activation = Activation::from_id(tag[TAG.len() + 1])?;
    let id = tag[TAG.len() + 2];
    let inputs = usize::from(u16::from_le_bytes([tag[9], tag[10]]));
    fitted(bytes, start, TAG_V2_LEN, (id, inputs, 1), activation)
}

/// The layout of a version-3 tag at `start`, or why it is refused.
fn v3_layout(bytes: &[u8], start: usize) -> Result<Layout, NetworkError> {
    let malformed = |reason: &str| NetworkError::Tag {
        reason: reason.to_string(),
    };
    let tag = bytes
        .get(start..start + TAG_V3_LEN)
        .ok_or_else(|| malformed("cut short"))?;
    let activation = Activation::from_id(tag[TAG.len() + 1])
        .ok_or_else(|| malformed(&format!("unknown activation {}", tag[TAG.len() + 1])))?;
    let id = tag[TAG.len() + 2];
    let inputs = usize::from(u16::from_le_bytes([tag[9], tag[10]]));
    let buckets = usize::from(tag[11]);
    if !(1..=MAX_BUCKETS).contains(&buckets) {
        return Err(NetworkError::Buckets { found: buckets });
    }
    fitted(bytes, start, TAG_V3_LEN, (id, inputs, buckets), activation).ok_or(NetworkError::Size {
        len: bytes.len(),
        inputs,
        per_neuron: 2 * (inputs + 1 + 2 * buckets),
        buckets,
    })
}

/// The layout of a net of `(id, inputs, buckets)` whose `tag_len`-byte tag sits at `start`,
/// if the weights before it make a whole hidden size and only zeros follow it up to the
/// next multiple of 64 bytes (the end of the file).
fn fitted(
    bytes: &[u8],
    start: usize,
    tag_len: usize,
    (id, inputs, buckets): (u8, usize, usize),
    activation: Activation,
) -> Option<Layout> {
    let words = (start / 2).checked_sub(buckets)?;
    let per_neuron = inputs + 1 + 2 * buckets;
    let hidden = words / per_neuron;
    let fits = words % per_neuron == 0
        && (1..=MAX_HIDDEN).contains(&hidden)
        && bytes[start + tag_len..].iter().all(|&b| b == 0)
        && bytes.len() == (start + tag_len).div_ceil(64) * 64;
    fits.then_some(Layout {
        id,
        inputs,
        hidden,
        buckets,
        activation,
    })
}

/// The layout of an untagged or version-1 file: the untagged set, its hidden
/// size from the file size; a size error names `expected`'s layout.
fn legacy_layout(bytes: &[u8], expected: &FeatureSet) -> Result<Layout, NetworkError> {
    let len = bytes.len();
    let legacy_size = |n| raw_size_of(UNTAGGED_INPUTS, n);
    let Some(hidden) = (1..=MAX_HIDDEN)
        .find(|&n| legacy_size(n) == len || legacy_size(n).div_ceil(64) * 64 == len)
    else {
        return Err(NetworkError::Size {
            len,
            inputs: expected.inputs,
            per_neuron: 2 * (expected.inputs + 3),
            buckets: 1,
        });
    };
    let activation = parse_v1_padding(&bytes[legacy_size(hidden)..])?;
    Ok(Layout {
        id: UNTAGGED_ID,
        inputs: UNTAGGED_INPUTS,
        hidden,
        buckets: 1,
        activation,
    })
}

/// Reads a legacy padding: zeros (bullet: SCReLU) or a version-1 tag.
fn parse_v1_padding(padding: &[u8]) -> Result<Activation, NetworkError> {
    if padding.iter().all(|&b| b == 0) {
        return Ok(Activation::SCReLU);
    }
    let tagged = padding.len() >= TAG_V1_LEN
        && &padding[..TAG.len()] == TAG
        && padding[TAG.len()] == 1
        && padding[TAG_V1_LEN..].iter().all(|&b| b == 0);
    if !tagged {
        return Err(NetworkError::Padding);
    }
    Activation::from_id(padding[TAG.len() + 1]).ok_or(NetworkError::Padding)
}

/// `dot(accumulator, weights)` summed [`DOT_CHUNK`] neurons at a time in i32 (the
/// vectorised kernels), the chunks' sums in i64: exact for every hidden size.
#[inline(always)]
fn chunked(dot: impl Fn(&[i16], &[i16]) -> i32, accumulator: &[i16], weights: &[i16]) -> i64 {
    accumulator
        .chunks(DOT_CHUNK)
        .zip(weights.chunks(DOT_CHUNK))
        .map(|(a, w)| i64::from(dot(a, w)))
        .sum()
}

/// `Σ clamp(a, 0, QA)² · w` for output weights within ±128: `clamp(a) · w` fits an i16,
/// so each term is an i16 product widened and multiplied once more, which the compiler
/// turns into `pmullw` + `pmaddwd` (SSE2), four times faster than i32 products here.
#[inline(always)]
pub fn screlu_dot_small(accumulator: &[i16], weights: &[i16]) -> i32 {
    accumulator
        .iter()
        .zip(weights)
        .map(|(&a, &w)| {
            let clipped = a.clamp(0, QA as i16);
            i32::from(clipped.wrapping_mul(w)) * i32::from(clipped)
        })
        .fold(0i32, i32::wrapping_add)
}

/// `Σ clamp(a, 0, QA)² · w` for any output weights, in i64 (a single term of a weight
/// near ±32 767 would overflow an i32; nets clipped as `cutoff train` and bullet clip them
/// take [`screlu_dot_small`]).
#[inline(always)]
pub fn screlu_dot(accumulator: &[i16], weights: &[i16]) -> i64 {
    accumulator
        .iter()
        .zip(weights)
        .map(|(&a, &w)| {
            let clipped = i64::from(a).clamp(0, i64::from(QA));
            clipped * clipped * i64::from(w)
        })
        .sum()
}

/// `Σ clamp(a, 0, QA) · w`.
#[inline(always)]
fn crelu_dot(accumulator: &[i16], weights: &[i16]) -> i32 {
    accumulator
        .iter()
        .zip(weights)
        .map(|(&a, &w)| i32::from(a).clamp(0, QA) * i32::from(w))
        .sum()
}

/// `accumulator += row`.
#[inline]
pub(crate) fn add(accumulator: &mut [i16], row: &[i16]) {
    for (a, &w) in accumulator.iter_mut().zip(row) {
        *a = a.wrapping_add(w);
    }
}

/// A random network of `features` with `hidden` neurons (weights small enough for i16
/// accumulators), for tests and `bench` smoke runs.
pub fn random_network(
    features: FeatureSet,
    hidden: usize,
    activation: Activation,
    seed: u64,
) -> Network {
    random_bucketed_network(features, hidden, 1, activation, seed)
}

/// A random network of `features` with `hidden` neurons and `buckets` output heads
/// (weights small enough for i16 accumulators); with one bucket, [`random_network`]'s.
pub fn random_bucketed_network(
    features: FeatureSet,
    hidden: usize,
    buckets: usize,
    activation: Activation,
    seed: u64,
) -> Network {
    let mut rng = crate::rng::SplitMix::new(seed);
    let mut small = |range: i32| (rng.below(2 * range as usize + 1) as i32 - range) as i16;
    // Drawn in the file's order: feature weights, feature biases, output weights, biases.
    Network::bucketed(
        features,
        activation,
        (0..features.inputs * hidden).map(|_| small(60)).collect(),
        (0..hidden).map(|_| small(100)).collect(),
        (0..buckets * 2 * hidden).map(|_| small(127)).collect(),
        (0..buckets).map(|_| small(3000)).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A net of `hidden` neurons whose accumulators saturate: every bias at QA, every
    /// output weight `output` (within ±128 or not), no feature weight.
    fn saturated(hidden: usize, activation: Activation, output: i16) -> Network {
        let features = FeatureSet {
            id: 9,
            name: "test",
            inputs: 1,
            max_active: 1,
            factor: 0,
        };
        Network::new(
            features,
            activation,
            vec![0; hidden],
            vec![QA as i16; hidden],
            vec![output; 2 * hidden],
            0,
        )
    }

    /// A feature set of another id than the legacy one.
    const SMALL: FeatureSet = FeatureSet {
        id: 7,
        name: "Small10",
        inputs: 10,
        max_active: 10,
        factor: 0,
    };

    #[test]
    fn bucketed_nets_round_trip_with_a_version_3_tag() {
        for (features, hidden, buckets, activation) in [
            (UNTAGGED, 16, 8, Activation::SCReLU),
            (UNTAGGED, 5, 2, Activation::CReLU),
            (SMALL, 3, 3, Activation::SCReLU),
            (SMALL, 32, 8, Activation::CReLU),
        ] {
            let net = random_bucketed_network(features, hidden, buckets, activation, 3);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), bucketed_file_size(&features, hidden, buckets));
            assert_eq!(bytes.len() % 64, 0);
            let raw = bucketed_raw_size(features.inputs, hidden, buckets);
            assert_eq!(
                raw,
                2 * (features.inputs * hidden + hidden + buckets * (2 * hidden + 1))
            );
            assert_eq!(&bytes[raw..raw + TAG.len()], TAG);
            assert_eq!(bytes[raw + TAG.len()], 3);
            assert_eq!(bytes[raw + TAG_V3_LEN - 1], buckets as u8);
            let back = Network::from_bytes_for(&bytes, &features).expect("round trip");
            assert_eq!(back.buckets(), buckets);
            assert_eq!(back.hidden(), hidden);
            assert_eq!(back, net);
        }
        // One bucket: the bytes of before (no version-3 tag), read back as one bucket.
        let one = random_bucketed_network(SMALL, 4, 1, Activation::SCReLU, 3);
        assert_eq!(one, random_network(SMALL, 4, Activation::SCReLU, 3));
        let bytes = one.to_bytes();
        assert_eq!(bytes[raw_size_of(10, 4) + TAG.len()], 2);
        assert_eq!(Network::from_bytes_for(&bytes, &SMALL), Ok(one));
    }

    #[test]
    fn malformed_version_3_tags_are_refused() {
        let net = random_bucketed_network(SMALL, 8, 4, Activation::SCReLU, 5);
        let bytes = net.to_bytes();
        let tag = bucketed_raw_size(10, 8, 4);
        for (count, expected) in [
            (0u8, NetworkError::Buckets { found: 0 }),
            (9, NetworkError::Buckets { found: 9 }),
            (255, NetworkError::Buckets { found: 255 }),
        ] {
            let mut bad = bytes.clone();
            bad[tag + TAG_V3_LEN - 1] = count;
            assert_eq!(Network::from_bytes_for(&bad, &SMALL), Err(expected));
        }
        let message = NetworkError::Buckets { found: 9 }.to_string();
        assert!(message.contains("9 output buckets: 1 to 8"), "{message}");
        // Another count in range does not fit the size.
        let mut other = bytes.clone();
        other[tag + TAG_V3_LEN - 1] = 5;
        let error = Network::from_bytes_for(&other, &SMALL).unwrap_err();
        assert!(
            matches!(
                error,
                NetworkError::Size {
                    buckets: 5,
                    inputs: 10,
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(
            error.to_string().contains("(10 -> N)x2 -> 5 net"),
            "{error}"
        );
        let mut activation = bytes.clone();
        activation[tag + TAG.len() + 1] = 4;
        let error = Network::from_bytes_for(&activation, &SMALL).unwrap_err();
        assert!(matches!(error, NetworkError::Tag { .. }), "{error:?}");
        assert!(
            error.to_string().contains("unknown activation 4"),
            "{error}"
        );
        // A net for other inputs (another game) is refused by name.
        let error = Network::from_bytes_for(&bytes, &UNTAGGED).unwrap_err();
        assert!(
            matches!(error, NetworkError::WrongFeatures { .. }),
            "{error:?}"
        );
        // Whatever a byte of the tail becomes, an error or a net, never a panic.
        for at in bytes.len() - 80..bytes.len() {
            for value in [0, 1, 2, 3, 8, 9, 255] {
                let mut changed = bytes.clone();
                changed[at] = value;
                let _ = Network::from_bytes_for(&changed, &SMALL);
                let _ = Network::from_bytes_for(&changed[..at], &SMALL);
            }
        }
    }

    #[test]
    fn each_bucket_has_its_own_head() {
        let net = random_bucketed_network(SMALL, 8, 4, Activation::SCReLU, 9);
        let outputs: Vec<i32> = (0..4)
            .map(|bucket| net.evaluate_features([1, 4], [2], bucket))
            .collect();
        for (bucket, &output) in outputs.iter().enumerate() {
            // The head of `bucket` alone, as a net of one bucket.
            let width = 2 * net.hidden();
            let head = Network::new(
                SMALL,
                net.activation(),
                net.feature_weights().to_vec(),
                net.feature_bias().to_vec(),
                net.output_weights()[bucket * width..(bucket + 1) * width].to_vec(),
                net.output_bias()[bucket],
            );
            assert_eq!(head.evaluate_features([1, 4], [2], 0), output, "{bucket}");
        }
        assert!(outputs.windows(2).any(|w| w[0] != w[1]), "{outputs:?}");
        // Beyond the last bucket: the last one.
        assert_eq!(net.evaluate_features([1, 4], [2], 9), outputs[3]);
    }

    #[test]
    fn the_output_is_the_same_with_or_without_avx2() {
        let mut rng = crate::rng::SplitMix::new(5);
        for (hidden, activation, buckets) in [
            (1, Activation::SCReLU, 1),
            (77, Activation::CReLU, 2),
            (128, Activation::SCReLU, 1),
            (256, Activation::SCReLU, 8),
            (300, Activation::CReLU, 1),
        ] {
            let mut net = random_bucketed_network(SMALL, hidden, buckets, activation, 8);
            for wide in [false, true] {
                if wide {
                    // Output weights beyond ±128: the i64 kernel.
                    let weights = net.output_weights.iter().map(|w| w.saturating_mul(3));
                    net = Network::bucketed(
                        SMALL,
                        activation,
                        net.feature_weights.to_vec(),
                        net.feature_bias.to_vec(),
                        weights.collect(),
                        net.output_bias.to_vec(),
                    );
                }
                for _ in 0..20 {
                    let mut draw = || -> Vec<i16> {
                        (0..hidden).map(|_| rng.below(400) as i16 - 100).collect()
                    };
                    let (us, them) = (draw(), draw());
                    let bucket = rng.below(buckets);
                    assert_eq!(
                        net.output(&us, &them, bucket),
                        net.output_portable(&us, &them, bucket),
                        "hidden {hidden} {activation} wide {wide}"
                    );
                }
            }
        }
    }

    #[test]
    fn count_buckets_split_the_range_evenly() {
        assert_eq!(count_bucket(30, 32, 8), 7);
        assert_eq!(count_bucket(0, 32, 8), 0);
        assert_eq!(count_bucket(3, 32, 8), 0);
        assert_eq!(count_bucket(4, 32, 8), 1);
        assert_eq!(count_bucket(32, 32, 8), 7);
        assert_eq!(count_bucket(30, 32, 1), 0);
        // ceil(32 / 3) = 11 a bucket.
        assert_eq!(count_bucket(21, 32, 3), 1);
        assert_eq!(count_bucket(22, 32, 3), 2);
        assert_eq!(count_bucket(49, 49, 8), 7);
    }

    #[test]
    fn wide_nets_sum_their_outputs_without_overflow() {
        for activation in [Activation::SCReLU, Activation::CReLU] {
            for output in [127, 129, -127, -200] {
                for hidden in [1, 255, 256, 257, 512, MAX_HIDDEN] {
                    let net = saturated(hidden, activation, output);
                    let term = match activation {
                        Activation::SCReLU => i64::from(QA * QA) * i64::from(output) / 255,
                        Activation::CReLU => i64::from(QA) * i64::from(output),
                    };
                    // Both halves: 2 · hidden terms (the SCReLU division is exact here).
                    let sum = 2 * hidden as i64 * term;
                    let expected = (sum * i64::from(SCALE) / i64::from(QA * QB))
                        .clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT));
                    let acc = vec![QA as i16; hidden];
                    assert_eq!(
                        i64::from(net.output(&acc, &acc, 0)),
                        expected,
                        "{activation} hidden {hidden} output weight {output}"
                    );
                }
            }
        }
    }
}
