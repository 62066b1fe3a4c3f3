//! `cutoff train`: trains the NNUE network of [`cutoff::nnue`] on bullet records of any game
//! that declares a feature set ([`TrainingRecord`]: chess's `ChessBoard`, Ataxx's
//! `AtaxxBoard`), on the CPU.
//!
//! The network is `(INPUTS -> N)x2 -> B` with the record's feature set (bullet's `Chess768`
//! for chess, `Ataxx147` for Ataxx), SCReLU (default) or CReLU, and B output buckets
//! (`--output-buckets`, 1 by default): the record picks its head
//! ([`TrainingRecord::output_bucket`], by material), and only that head's weights get its
//! gradient. Its raw output times [`SCALE`] (400) is the evaluation in centipawns; the loss is
//! the mean squared error between `sigmoid(eval / scale)` and the target
//! `wdl * result + (1 - wdl) * sigmoid(score / scale)`, both from the side to move's view.
//! AdamW (bullet's settings: β₁ 0.9, β₂ 0.999, decay 0.01) with every weight clipped to
//! ±1.98 so that the quantised weights fit `i16` (feature weights × 255, output weights
//! × 64); the learning rate drops ×0.1 once a fraction of the epochs has run.
//!
//! Every parameter lives in one flat vector laid out like the net file: feature weights
//! `[INPUTS][N]`, feature biases `[N]`, output weights `[B][2N]` (per bucket side to move
//! first), output biases `[B]`. A batch is cut into one shard per thread; each thread adds its positions'
//! gradients into its own dense buffer, the buffers are summed, and AdamW steps.

use std::path::PathBuf;
use std::time::Instant;

use bulletformat::BulletFormat;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;

use cutoff::games::chess::nnue::CHESS768;
use cutoff::nnue::{Activation, FeatureSet, Network, MAX_BUCKETS, MAX_HIDDEN, QA, QB, SCALE};
use cutoff::rng::SplitMix;

/// A bullet record the trainer learns from: its score and result (from the side to move's
/// view, as bulletformat keeps them) and its active features per perspective.
pub trait TrainingRecord: BulletFormat + 'static {
    /// The inputs a net trained on these records takes unless `--features` names others.
    const FEATURES: FeatureSet;
    /// Every feature set the records can be read through, [`Self::FEATURES`] first.
    const FEATURE_SETS: &'static [FeatureSet] = &[Self::FEATURES];
    /// The (side to move, other side) feature pairs of the record in `set` (one of
    /// [`Self::FEATURE_SETS`]).
    fn features(&self, set: &FeatureSet) -> impl Iterator<Item = (usize, usize)> + '_;
    /// The output head of the record in a net of `buckets` buckets (0 for one bucket):
    /// the same the game's search takes for the position.
    fn output_bucket(&self, buckets: usize) -> usize;
    /// Why the record cannot be one of this game's positions (bytes of another game's
    /// records, or of no records at all), if that can be seen: checked before any feature
    /// is read, so the feature code may trust the record.
    fn problem(&self) -> Option<&'static str> {
        None
    }
}

/// How the quantised `net` evaluates `record` (side to move's view, as the record is): as
/// the engine evaluates the record's board, through the record's features of the net's set.
pub fn evaluate_quantised<R: TrainingRecord>(net: &Network, record: &R) -> i32 {
    let set = net.features();
    net.evaluate_features(
        record.features(set).map(|(ours, _)| ours),
        record.features(set).map(|(_, theirs)| theirs),
        record.output_bucket(net.buckets()),
    )
}

/// Most passes over the data `train` takes (a bound against typing errors: one epoch over
/// 10 M positions takes minutes).
pub const MAX_EPOCHS: usize = 100_000;

/// Largest weight magnitude: × QB (64) it still fits the i16 product trick, × QA (255)
/// it fits i16.
pub const WEIGHT_CLIP: f32 = 1.98;

/// How `cutoff train` trains (its options).
#[derive(Args, Clone, Debug)]
pub struct TrainSettings {
    /// Hidden size N.
    #[arg(long, default_value_t = 128)]
    pub hidden: usize,
    /// The inputs, by name (chess: `Chess768`, `Chess768Mirrored`,
    /// `ChessBuckets4Mirrored`; Ataxx: `Ataxx147`, `Ataxx2x2`, `Ataxx2x2Plus147`); the
    /// game's default set when not given.
    #[arg(long = "features", value_name = "NAME")]
    pub feature_set: Option<String>,
    /// Output buckets B (1 to 8): B output heads, each position evaluated by the head of
    /// its material (chess: `(pieces - 2) / ceil(32 / B)`).
    #[arg(long, default_value_t = 1, value_parser = parse_buckets)]
    pub output_buckets: usize,
    /// Activation of the hidden layer.
    #[arg(long, default_value = "screlu", value_parser = activation_parser())]
    pub activation: Activation,
    /// Train a king-bucketed set with a shared factor (bullet's factoriser): every
    /// feature also trains the weights of its unbucketed twin, summed into each bucket's
    /// row when the net is written.
    #[arg(long)]
    pub factorise: bool,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// Positions per AdamW step.
    #[arg(long, default_value_t = 4096)]
    pub batch: usize,
    /// Initial learning rate.
    #[arg(long, default_value_t = 0.002)]
    pub lr: f32,
    /// The learning rate drops ×0.1 from this fraction of the epochs on.
    // The factor is `lr_gamma`.
    #[arg(long, default_value_t = 0.75)]
    pub lr_drop: f64,
    /// The factor of the drop.
    #[arg(skip = 0.1)]
    pub lr_gamma: f32,
    /// Weight of the game result in the target (the rest: the search score). 0 by
    /// default: on cutoff's self-play data, weights of 0.3 and more lost games and 0.1
    /// gained nothing (nets/README.md).
    #[arg(long, default_value_t = 0.0)]
    pub wdl: f32,
    /// Sigmoid scale in centipawns (evaluation and score).
    #[arg(long, default_value_t = 400.0)]
    pub scale: f32,
    /// Fraction of the positions (the last ones) held out for the validation loss.
    #[arg(long, default_value_t = 0.05)]
    pub validation: f64,
    /// Threads computing gradients.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Seed of the initial weights and the shuffles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// AdamW's decoupled weight decay.
    #[arg(skip = 0.01)]
    pub weight_decay: f32,
    /// Write the net of every epoch into this directory (`epoch-K.nnue`).
    #[arg(long)]
    pub checkpoints: Option<PathBuf>,
    /// Start from this net's weights instead of random ones (fine-tuning): a net of the
    /// same feature set and activation, with one output bucket (copied into every head)
    /// or `--output-buckets` of them, and at most `--hidden` neurons (a smaller net is
    /// widened: the new neurons start with zero output weights, so it evaluates as before).
    #[arg(long, value_name = "NET")]
    pub init: Option<PathBuf>,
}

/// Reads an output bucket count from 1 to [`MAX_BUCKETS`] on the command line.
fn parse_buckets(text: &str) -> Result<usize, String> {
    let buckets: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a bucket count"))?;
    check_buckets(buckets)?;
    Ok(buckets)
}

/// An error unless `buckets` is from 1 to [`MAX_BUCKETS`].
fn check_buckets(buckets: usize) -> Result<(), String> {
    if (1..=MAX_BUCKETS).contains(&buckets) {
        Ok(())
    } else {
        Err(format!(
            "{buckets} output buckets: the count must be from 1 to {MAX_BUCKETS}"
        ))
    }
}

/// Reads `screlu` or `crelu` on the command line.
fn activation_parser() -> impl TypedValueParser<Value = Activation> {
    PossibleValuesParser::new(["screlu", "crelu"])
        .map(|name| Activation::from_name(&name).unwrap_or_default())
}

impl Default for TrainSettings {
    fn default() -> Self {
        TrainSettings {
            hidden: 128,
            feature_set: None,
            output_buckets: 1,
            activation: Activation::SCReLU,
            factorise: false,
            epochs: 20,
            batch: 4096,
            lr: 0.002,
            lr_drop: 0.75,
            lr_gamma: 0.1,
            wdl: 0.0,
            scale: 400.0,
            validation: 0.05,
            threads: 1,
            seed: 1,
            weight_decay: 0.01,
            checkpoints: None,
            init: None,
        }
    }
}

/// The floating-point network being trained.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// The inputs.
    pub features: FeatureSet,
    /// Hidden size N.
    pub hidden: usize,
    /// Output buckets B.
    pub buckets: usize,
    /// Activation of the hidden layer.
    pub activation: Activation,
    /// Whether a shared factor of `features.factor` inputs follows the parameters of the
    /// file ([`FloatNetwork::factorised`]).
    pub factorised: bool,
    /// Every parameter, in the net file's order (then the factor's rows, if any).
    pub params: Vec<f32>,
}

/// Offsets of the parts of the flat parameter vector.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// Input count.
    inputs: usize,
    hidden: usize,
    bias: usize,
    output: usize,
    output_bias: usize,
    /// Where the shared factor's rows start (the end of the file's parameters).
    factor: usize,
    /// Inputs of the shared factor (0: none).
    factor_inputs: usize,
    len: usize,
}

impl Layout {
    fn new(inputs: usize, hidden: usize, buckets: usize) -> Layout {
        let bias = inputs * hidden;
        let output = bias + hidden;
        let output_bias = output + buckets * 2 * hidden;
        Layout {
            inputs,
            hidden,
            bias,
            output,
            output_bias,
            factor: output_bias + buckets,
            factor_inputs: 0,
            len: output_bias + buckets,
        }
    }

    /// The layout with a shared factor of `factor_inputs` rows after the file's parameters.
    fn with_factor(mut self, factor_inputs: usize) -> Layout {
        self.factor_inputs = factor_inputs;
        self.len = self.factor + factor_inputs * self.hidden;
        self
    }

    #[inline]
    fn row(&self, feature: usize) -> std::ops::Range<usize> {
        feature * self.hidden..(feature + 1) * self.hidden
    }

    /// The rows `feature` trains: its own, and its factor's when there is one.
    #[inline]
    fn rows(&self, feature: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
        std::iter::once(self.row(feature)).chain(self.factor_row(feature))
    }

    /// The shared factor's row of `feature`, if there is a factor.
    #[inline]
    fn factor_row(&self, feature: usize) -> Option<std::ops::Range<usize>> {
        (self.factor_inputs > 0).then(|| {
            let start = self.factor + (feature % self.factor_inputs) * self.hidden;
            start..start + self.hidden
        })
    }

    /// The output weights of `bucket`, `[2N]`.
    #[inline]
    fn head(&self, bucket: usize) -> std::ops::Range<usize> {
        let start = self.output + bucket * 2 * self.hidden;
        start..start + 2 * self.hidden
    }
}

/// One position's numbers during a forward pass.
struct Scratch {
    us: Vec<f32>,
    them: Vec<f32>,
    features: Vec<(usize, usize)>,
    /// The output head of the position.
    bucket: usize,
}

impl Scratch {
    fn new(hidden: usize) -> Scratch {
        Scratch {
            us: vec![0.0; hidden],
            them: vec![0.0; hidden],
            features: Vec::with_capacity(64),
            bucket: 0,
        }
    }
}

#[inline]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

#[inline]
fn activate(activation: Activation, x: f32) -> f32 {
    let clipped = x.clamp(0.0, 1.0);
    match activation {
        Activation::SCReLU => clipped * clipped,
        Activation::CReLU => clipped,
    }
}

#[inline]
fn derivative(activation: Activation, x: f32) -> f32 {
    if x <= 0.0 || x >= 1.0 {
        return 0.0;
    }
    match activation {
        Activation::SCReLU => 2.0 * x,
        Activation::CReLU => 1.0,
    }
}

impl FloatNetwork {
    /// The offsets of its parameters.
    fn layout(&self) -> Layout {
        let layout = Layout::new(self.features.inputs, self.hidden, self.buckets);
        if self.factorised {
            layout.with_factor(self.features.factor)
        } else {
            layout
        }
    }

    /// The same network with a shared factor (zeros) of its feature set's `factor` inputs,
    /// trained along: its rows are summed into every bucket's when quantised. Unchanged
    /// for a set without a factor.
    pub fn factorised(mut self) -> FloatNetwork {
        if self.features.factor > 0 && !self.factorised {
            self.factorised = true;
            self.params.resize(self.layout().len, 0.0);
        }
        self
    }

    /// A chess (`Chess768`) network with small random weights (seeded).
    pub fn random(hidden: usize, activation: Activation, seed: u64) -> FloatNetwork {
        FloatNetwork::random_for(CHESS768, hidden, activation, seed)
    }

    /// A network of `features` with one output bucket and small random weights (seeded).
    pub fn random_for(
        features: FeatureSet,
        hidden: usize,
        activation: Activation,
        seed: u64,
    ) -> FloatNetwork {
        FloatNetwork::random_bucketed(features, hidden, 1, activation, seed)
    }

    /// A network of `features` with `buckets` output heads and small random weights
    /// (seeded; with one bucket, [`FloatNetwork::random_for`]'s).
    pub fn random_bucketed(
        features: FeatureSet,
        hidden: usize,
        buckets: usize,
        activation: Activation,
        seed: u64,
    ) -> FloatNetwork {
        let layout = Layout::new(features.inputs, hidden, buckets);
        let mut rng = SplitMix::new(seed);
        let mut uniform = |limit: f32| {
            let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
            (2.0 * unit - 1.0) * limit
        };
        let mut params = vec![0.0; layout.len];
        let feature_limit = 1.0 / (layout.inputs as f32).sqrt();
        let output_limit = 1.0 / (2.0 * hidden as f32).sqrt();
        for (i, p) in params.iter_mut().enumerate() {
            *p = if i < layout.bias {
                uniform(feature_limit)
            } else if i < layout.output {
                0.1 + uniform(0.05)
            } else if i < layout.output_bias {
                uniform(output_limit)
            } else {
                0.0
            };
        }
        FloatNetwork {
            features,
            hidden,
            buckets,
            activation,
            factorised: false,
            params,
        }
    }

    /// The network `net` holds, its quantisation undone, with `buckets` output heads:
    /// its own when it has as many, else its one head copied into each. The inverse of
    /// [`FloatNetwork::quantise`] up to rounding.
    pub fn from_quantised(net: &Network, buckets: usize) -> Result<FloatNetwork, String> {
        if net.buckets() != buckets && net.buckets() != 1 {
            return Err(format!(
                "the net has {} output buckets: it starts a net of 1 or {} only, not {buckets}",
                net.buckets(),
                net.buckets()
            ));
        }
        let hidden = net.hidden();
        let layout = Layout::new(net.features().inputs, hidden, buckets);
        let scaled = |values: &[i16], factor: i32| -> Vec<f32> {
            values
                .iter()
                .map(|&w| f32::from(w) / factor as f32)
                .collect()
        };
        let mut params = Vec::with_capacity(layout.len);
        params.extend(scaled(net.feature_weights(), QA));
        params.extend(scaled(net.feature_bias(), QA));
        let heads = buckets / net.buckets();
        for _ in 0..heads {
            params.extend(scaled(net.output_weights(), QB));
        }
        for _ in 0..heads {
            params.extend(scaled(net.output_bias(), QA * QB));
        }
        debug_assert_eq!(params.len(), layout.len);
        Ok(FloatNetwork {
            features: *net.features(),
            hidden,
            buckets,
            activation: net.activation(),
            factorised: false,
            params,
        })
    }

    /// The same network with `hidden` neurons (its own if that is not more): the new
    /// neurons get a new net's random input weights and biases (seeded) and zero output
    /// weights, so every position evaluates as before and training can grow them. Widen
    /// before [`FloatNetwork::factorised`]: a shared factor's rows are not widened.
    pub fn widened(self, hidden: usize, seed: u64) -> FloatNetwork {
        debug_assert!(!self.factorised, "widen before adding the shared factor");
        if hidden <= self.hidden {
            return self;
        }
        let mut wide = FloatNetwork::random_bucketed(
            self.features,
            hidden,
            self.buckets,
            self.activation,
            seed,
        );
        let (old, new) = (self.layout(), wide.layout());
        let n = self.hidden;
        for feature in 0..old.inputs {
            let to = new.row(feature).start;
            wide.params[to..to + n].copy_from_slice(&self.params[old.row(feature)]);
        }
        wide.params[new.bias..new.bias + n].copy_from_slice(&self.params[old.bias..old.output]);
        for bucket in 0..self.buckets {
            let (from, to) = (old.head(bucket), new.head(bucket));
            let head = &mut wide.params[to];
            head.fill(0.0);
            head[..n].copy_from_slice(&self.params[from.start..from.start + n]);
            head[hidden..hidden + n].copy_from_slice(&self.params[from.start + n..from.end]);
        }
        wide.params[new.output_bias..new.len]
            .copy_from_slice(&self.params[old.output_bias..old.len]);
        wide
    }

    /// The raw output (the evaluation divided by [`SCALE`]) for a record, filling the
    /// accumulators of `scratch`.
    fn forward<R: TrainingRecord>(&self, record: &R, scratch: &mut Scratch) -> f32 {
        let layout = self.layout();
        let bias = &self.params[layout.bias..layout.output];
        scratch.us.copy_from_slice(bias);
        scratch.them.copy_from_slice(bias);
        scratch.features.clear();
        for (stm, nstm) in record.features(&self.features) {
            scratch.features.push((stm, nstm));
            for row in layout.rows(stm) {
                for (a, w) in scratch.us.iter_mut().zip(&self.params[row]) {
                    *a += w;
                }
            }
            for row in layout.rows(nstm) {
                for (a, w) in scratch.them.iter_mut().zip(&self.params[row]) {
                    *a += w;
                }
            }
        }
        scratch.bucket = record.output_bucket(self.buckets).min(self.buckets - 1);
        let (ours, theirs) = self.params[layout.head(scratch.bucket)].split_at(self.hidden);
        let mut out = self.params[layout.output_bias + scratch.bucket];
        for (&a, &w) in scratch.us.iter().zip(ours) {
            out += activate(self.activation, a) * w;
        }
        for (&a, &w) in scratch.them.iter().zip(theirs) {
            out += activate(self.activation, a) * w;
        }
        out
    }

    /// The evaluation of a record in centipawns, for the side to move.
    pub fn evaluate_record<R: TrainingRecord>(&self, record: &R) -> f32 {
        self.forward(record, &mut Scratch::new(self.hidden)) * SCALE as f32
    }

    /// The squared error of one record; with `grad`, adds its gradient there.
    fn position<R: TrainingRecord>(
        &self,
        record: &R,
        settings: &TrainSettings,
        scratch: &mut Scratch,
        grad: Option<&mut [f32]>,
    ) -> f32 {
        let raw = self.forward(record, scratch);
        let eval = raw * SCALE as f32;
        let predicted = sigmoid(eval / settings.scale);
        let result = record.result();
        let target = settings.wdl * result
            + (1.0 - settings.wdl) * sigmoid(f32::from(record.score()) / settings.scale);
        let error = predicted - target;
        let Some(grad) = grad else {
            return error * error;
        };
        // d loss / d raw.
        let g = 2.0 * error * predicted * (1.0 - predicted) * SCALE as f32 / settings.scale;
        let layout = self.layout();
        let hidden = self.hidden;
        // Only the position's head: the others do not take part in its output.
        grad[layout.output_bias + scratch.bucket] += g;
        let head = layout.head(scratch.bucket).start;
        let (ours, theirs) = self.params[layout.head(scratch.bucket)].split_at(self.hidden);
        // Reuse the accumulators for the gradients at the accumulators.
        for i in 0..hidden {
            let (u, t) = (scratch.us[i], scratch.them[i]);
            grad[head + i] += g * activate(self.activation, u);
            grad[head + hidden + i] += g * activate(self.activation, t);
            scratch.us[i] = g * ours[i] * derivative(self.activation, u);
            scratch.them[i] = g * theirs[i] * derivative(self.activation, t);
            grad[layout.bias + i] += scratch.us[i] + scratch.them[i];
        }
        for &(stm, nstm) in &scratch.features {
            for row in layout.rows(stm) {
                for (g, d) in grad[row].iter_mut().zip(&scratch.us) {
                    *g += d;
                }
            }
            for row in layout.rows(nstm) {
                for (g, d) in grad[row].iter_mut().zip(&scratch.them) {
                    *g += d;
                }
            }
        }
        error * error
    }

    /// The quantised network (QA 255, QB 64), as the engine and bullet read it.
    pub fn quantise(&self) -> Network {
        let layout = self.layout();
        let q = |x: f32, factor: i32| -> i16 {
            (x * factor as f32)
                .round()
                .clamp(i16::MIN as f32, i16::MAX as f32) as i16
        };
        let part = |range: std::ops::Range<usize>, factor: i32| -> Vec<i16> {
            self.params[range].iter().map(|&x| q(x, factor)).collect()
        };
        // Each feature's row, with its share of the factor when there is one.
        let feature_weights = (0..layout.inputs)
            .flat_map(|feature| {
                let shared = layout.factor_row(feature);
                self.params[layout.row(feature)]
                    .iter()
                    .enumerate()
                    .map(move |(i, &w)| {
                        w + shared.as_ref().map_or(0.0, |r| self.params[r.start + i])
                    })
            })
            .map(|x| q(x, QA))
            .collect();
        Network::bucketed(
            self.features,
            self.activation,
            feature_weights,
            part(layout.bias..layout.output, QA),
            part(layout.output..layout.output_bias, QB),
            part(layout.output_bias..layout.factor, QA * QB),
        )
    }
}

/// The summed squared error of `records` (and their summed gradient into `grad`, zeroed
/// first, when given), over `threads` threads.
fn batch<R: TrainingRecord>(
    net: &FloatNetwork,
    records: &[R],
    settings: &TrainSettings,
    grads: Option<&mut [Vec<f32>]>,
) -> f64 {
    let threads = settings.threads.max(1);
    let shard = records.len().div_ceil(threads).max(1);
    let loss_of = |shard: &[R], grad: Option<&mut Vec<f32>>| -> f64 {
        let mut scratch = Scratch::new(net.hidden);
        let mut sum = 0.0f64;
        match grad {
            Some(grad) => {
                grad.fill(0.0);
                for record in shard {
                    sum += f64::from(net.position(record, settings, &mut scratch, Some(grad)));
                }
            }
            None => {
                for record in shard {
                    sum += f64::from(net.position(record, settings, &mut scratch, None));
                }
            }
        }
        sum
    };
    if threads == 1 || records.len() < 2 * threads {
        return match grads {
            Some(grads) => {
                for other in grads.iter_mut().skip(1) {
                    other.fill(0.0);
                }
                loss_of(records, grads.first_mut())
            }
            None => loss_of(records, None),
        };
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = match grads {
            Some(grads) => {
                let used = records.len().div_ceil(shard);
                for unused in grads.iter_mut().skip(used) {
                    unused.fill(0.0);
                }
                records
                    .chunks(shard)
                    .zip(grads.iter_mut())
                    .map(|(chunk, grad)| scope.spawn(move || loss_of(chunk, Some(grad))))
                    .collect()
            }
            None => records
                .chunks(shard)
                .map(|chunk| scope.spawn(move || loss_of(chunk, None)))
                .collect(),
        };
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(f64::NAN))
            .sum()
    })
}

/// The mean squared error of `records` under `net`.
pub fn mean_loss<R: TrainingRecord>(
    net: &FloatNetwork,
    records: &[R],
    settings: &TrainSettings,
) -> f64 {
    if records.is_empty() {
        return f64::NAN;
    }
    batch(net, records, settings, None) / records.len() as f64
}

/// AdamW's moments.
struct AdamW {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl AdamW {
    const BETA1: f32 = 0.9;
    const BETA2: f32 = 0.999;
    const EPSILON: f32 = 1e-8;

    fn new(len: usize) -> AdamW {
        AdamW {
            m: vec![0.0; len],
            v: vec![0.0; len],
            t: 0,
        }
    }

    /// One step on `params` with the mean gradient `grad`, then the clip.
    fn step(&mut self, params: &mut [f32], grad: &[f32], lr: f32, decay: f32) {
        self.t += 1;
        let correct1 = 1.0 - Self::BETA1.powi(self.t);
        let correct2 = 1.0 - Self::BETA2.powi(self.t);
        for (((p, &g), m), v) in params
            .iter_mut()
            .zip(grad)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            *m = Self::BETA1 * *m + (1.0 - Self::BETA1) * g;
            *v = Self::BETA2 * *v + (1.0 - Self::BETA2) * g * g;
            let update = (*m / correct1) / ((*v / correct2).sqrt() + Self::EPSILON);
            *p -= lr * (update + decay * *p);
            *p = p.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
        }
    }
}

/// What one epoch did.
#[derive(Clone, Debug)]
pub struct EpochReport {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Learning rate used.
    pub lr: f32,
    /// Mean training loss over the epoch's batches.
    pub train_loss: f64,
    /// Mean loss on the held-out positions (NaN without any).
    pub validation_loss: f64,
    /// Training positions per second.
    pub positions_per_second: f64,
    /// The checkpoint written, if any.
    pub checkpoint: Option<PathBuf>,
}

/// The result of a training run.
#[derive(Clone, Debug)]
pub struct TrainResult {
    /// The trained network.
    pub net: FloatNetwork,
    /// Positions trained on.
    pub train_positions: usize,
    /// Positions held out.
    pub validation_positions: usize,
    /// Validation loss of the initial network.
    pub initial_validation_loss: f64,
    /// One report per epoch.
    pub epochs: Vec<EpochReport>,
}

/// An error unless the hidden size, the bucket count and the validation fraction are in
/// range.
fn check_settings(settings: &TrainSettings) -> Result<(), String> {
    check_buckets(settings.output_buckets)?;
    if !(1..=MAX_HIDDEN).contains(&settings.hidden) {
        return Err(format!(
            "hidden size {} is not from 1 to {MAX_HIDDEN}",
            settings.hidden
        ));
    }
    if !(0.0..1.0).contains(&settings.validation) {
        return Err(format!(
            "validation fraction {} is not in [0, 1)",
            settings.validation
        ));
    }
    if !(1..=MAX_EPOCHS).contains(&settings.epochs) {
        return Err(format!(
            "{} epochs: the count must be from 1 to {MAX_EPOCHS}",
            settings.epochs
        ));
    }
    if settings.batch == 0 || settings.threads == 0 {
        return Err("--batch and --threads must be at least 1".to_string());
    }
    let positive = |x: f32| x.is_finite() && x > 0.0;
    if !positive(settings.lr) || !positive(settings.scale) {
        return Err(format!(
            "--lr {} and --scale {} must be positive numbers",
            settings.lr, settings.scale
        ));
    }
    if !(0.0..=1.0).contains(&settings.wdl) {
        return Err(format!("--wdl {} is not in [0, 1]", settings.wdl));
    }
    if !(0.0..=1.0).contains(&settings.lr_drop) {
        return Err(format!("--lr-drop {} is not in [0, 1]", settings.lr_drop));
    }
    Ok(())
}

/// The threads' gradients of a batch of `count` positions summed into the first one and
/// divided by `count`: the mean gradient.
fn mean_gradient(grads: &mut [Vec<f32>], count: usize) -> &[f32] {
    let (first, rest) = grads.split_at_mut(1);
    let total = &mut first[0];
    for other in rest.iter() {
        for (t, g) in total.iter_mut().zip(other) {
            *t += g;
        }
    }
    let scale = 1.0 / count as f32;
    for g in total.iter_mut() {
        *g *= scale;
    }
    total
}

/// Writes the quantised net of `epoch` into the checkpoint directory, if there is one.
fn save_checkpoint(
    net: &FloatNetwork,
    settings: &TrainSettings,
    epoch: usize,
) -> Result<Option<PathBuf>, String> {
    let Some(dir) = &settings.checkpoints else {
        return Ok(None);
    };
    let path = dir.join(format!("epoch-{epoch}.nnue"));
    net.quantise()
        .save(&path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Some(path))
}

/// The feature set `settings` names among those `R` can be read through (the default one
/// when none is named), or why there is none.
pub fn feature_set<R: TrainingRecord>(settings: &TrainSettings) -> Result<FeatureSet, String> {
    find_feature_set(R::FEATURE_SETS, settings.feature_set.as_deref())
}

/// The set called `name` (compared without regard to case) among `sets`, the first when
/// no name is given, or why there is none.
pub fn find_feature_set(sets: &[FeatureSet], name: Option<&str>) -> Result<FeatureSet, String> {
    let Some(name) = name else {
        return sets.first().copied().ok_or("no feature set".to_string());
    };
    sets.iter()
        .find(|set| set.name.eq_ignore_ascii_case(name))
        .copied()
        .ok_or_else(|| {
            let names: Vec<&str> = sets.iter().map(|set| set.name).collect();
            format!(
                "unknown feature set '{name}': this game's are {}",
                names.join(", ")
            )
        })
}

/// Refuses the first record that cannot be a position of the game ([`TrainingRecord::problem`]):
/// another game's records, or bytes that are no records at all.
pub fn check_positions<R: TrainingRecord>(records: &[R]) -> Result<(), String> {
    for (index, record) in records.iter().enumerate() {
        if let Some(problem) = record.problem() {
            return Err(format!(
                "record {index} is no position of the game ({problem}): is the data for \
                 another game, or no record file?"
            ));
        }
    }
    Ok(())
}

/// Refuses records with a feature outside `set` (another game's records, or bytes that
/// are no records at all), naming the first such record.
fn check_records<R: TrainingRecord>(records: &[R], set: &FeatureSet) -> Result<(), String> {
    check_positions(records)?;
    let inputs = set.inputs;
    let bad = records.iter().position(|record| {
        record
            .features(set)
            .any(|(ours, theirs)| ours >= inputs || theirs >= inputs)
    });
    match bad {
        Some(index) => Err(format!(
            "record {index} holds a feature outside {}'s {inputs} inputs: is the data for \
             another game?",
            set.name
        )),
        None => Ok(()),
    }
}

/// Trains a network on `records` (the last `validation` fraction held out), calling
/// `report` after every epoch.
pub fn train<R: TrainingRecord>(
    records: &[R],
    settings: &TrainSettings,
    report: impl FnMut(&EpochReport),
) -> Result<TrainResult, String> {
    check_settings(settings)?;
    let held_out = (records.len() as f64 * settings.validation).round() as usize;
    let (training, validation) = records.split_at(records.len() - held_out);
    train_validated(training, validation, settings, report)
}

/// [`train_validated`] on `validation` when it holds records, else [`train`] (the last
/// fraction of `records` held out).
pub fn train_on<R: TrainingRecord>(
    records: &[R],
    validation: &[R],
    settings: &TrainSettings,
    report: impl FnMut(&EpochReport),
) -> Result<TrainResult, String> {
    if validation.is_empty() {
        train(records, settings, report)
    } else {
        train_validated(records, validation, settings, report)
    }
}

/// The feature set `settings` name for records `R`, once the settings and both record sets
/// are checked against it.
fn checked_inputs<R: TrainingRecord>(
    training: &[R],
    validation: &[R],
    settings: &TrainSettings,
) -> Result<FeatureSet, String> {
    check_settings(settings)?;
    let features = feature_set::<R>(settings)?;
    check_records(training, &features)?;
    check_records(validation, &features)?;
    if training.is_empty() {
        return Err("no training positions".to_string());
    }
    if settings.factorise && features.factor == 0 {
        return Err(format!(
            "--factorise: {} has no king buckets to factorise",
            features.name
        ));
    }
    Ok(features)
}

/// The net training starts from: `settings.init`'s when given (checked against
/// `features` and the settings' shape), else random weights from the seed.
fn initial_network(features: FeatureSet, settings: &TrainSettings) -> Result<FloatNetwork, String> {
    let Some(path) = &settings.init else {
        return Ok(FloatNetwork::random_bucketed(
            features,
            settings.hidden,
            settings.output_buckets,
            settings.activation,
            settings.seed,
        ));
    };
    let net = Network::load_for(path, &features)
        .map_err(|e| format!("--init {}: {e}", path.display()))?;
    if net.hidden() > settings.hidden || net.activation() != settings.activation {
        return Err(format!(
            "--init {}: the net has hidden size {} and {}, the settings ask for {} (or more) and {}",
            path.display(),
            net.hidden(),
            net.activation(),
            settings.hidden,
            settings.activation
        ));
    }
    let start = FloatNetwork::from_quantised(&net, settings.output_buckets)
        .map_err(|e| format!("--init {}: {e}", path.display()))?;
    Ok(start.widened(settings.hidden, settings.seed))
}

/// Trains a network on `training`, measuring the loss on `validation` (records of other
/// games than the training's give an honest loss: positions of one game are alike, so a
/// net that learns the games by heart looks better than it is on positions of the same
/// games), calling `report` after every epoch.
pub fn train_validated<R: TrainingRecord>(
    training: &[R],
    validation: &[R],
    settings: &TrainSettings,
    mut report: impl FnMut(&EpochReport),
) -> Result<TrainResult, String> {
    let features = checked_inputs(training, validation, settings)?;
    if let Some(dir) = &settings.checkpoints {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut net = initial_network(features, settings)?;
    if settings.factorise {
        net = net.factorised();
    }
    let initial_validation_loss = mean_loss(&net, validation, settings);
    let threads = settings.threads.max(1);
    let mut grads = vec![vec![0.0f32; net.params.len()]; threads];
    let mut adam = AdamW::new(net.params.len());
    let mut order: Vec<u32> = (0..training.len() as u32).collect();
    let mut rng = SplitMix::new(settings.seed ^ 0x5eed_0f5b_u64);
    let batch_size = settings.batch.max(1);
    let mut shard: Vec<R> = Vec::with_capacity(batch_size);
    let drop_epoch = (settings.epochs as f64 * settings.lr_drop).ceil() as usize;
    let mut epochs = Vec::new();
    for epoch in 0..settings.epochs {
        let started = Instant::now();
        // Fisher-Yates with the run's generator: the same seed, the same order.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let lr = if epoch >= drop_epoch {
            settings.lr * settings.lr_gamma
        } else {
            settings.lr
        };
        let mut loss_sum = 0.0;
        for indices in order.chunks(batch_size) {
            shard.clear();
            shard.extend(indices.iter().map(|&i| training[i as usize]));
            loss_sum += batch(&net, &shard, settings, Some(&mut grads));
            let total = mean_gradient(&mut grads, shard.len());
            adam.step(&mut net.params, total, lr, settings.weight_decay);
        }
        let seconds = started.elapsed().as_secs_f64().max(1e-9);
        let checkpoint = save_checkpoint(&net, settings, epoch + 1)?;
        let line = EpochReport {
            epoch: epoch + 1,
            lr,
            train_loss: loss_sum / training.len() as f64,
            validation_loss: mean_loss(&net, validation, settings),
            positions_per_second: training.len() as f64 / seconds,
            checkpoint,
        };
        report(&line);
        epochs.push(line);
    }
    Ok(TrainResult {
        net,
        train_positions: training.len(),
        validation_positions: validation.len(),
        initial_validation_loss,
        epochs,
    })
}

/// Test helpers shared by the trainer's tests and the games' feature-set tests.
#[cfg(test)]
pub(crate) mod testing {
    use cutoff::rng::SplitMix;
    use cutoff::search::{Game, MoveList};

    /// `count` records of random games drawn from `seed`: each game starts from `start`,
    /// plays `plies.0` to `plies.0 + plies.1 - 1` random legal moves (fewer if it ends), and
    /// unless it is over then, `label` turns the position into a record (or none).
    pub(crate) fn random_records<G: Game, R>(
        count: usize,
        seed: u64,
        mut start: impl FnMut(&mut SplitMix) -> G,
        plies: (usize, usize),
        mut label: impl FnMut(&G) -> Option<R>,
    ) -> Vec<R> {
        let mut rng = SplitMix::new(seed);
        let mut records = Vec::with_capacity(count);
        while records.len() < count {
            let mut game = start(&mut rng);
            for _ in 0..rng.below(plies.1) + plies.0 {
                let mut moves = MoveList::new();
                game.generate_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                game.make_move(moves[rng.below(moves.len())]);
            }
            if game.outcome().is_some() {
                continue;
            }
            records.extend(label(&game));
        }
        records
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::records::bullet_board;
    use bulletformat::ChessBoard;
    use cutoff::games::chess::{evaluate_board, Chess, ChessVariant};
    use cutoff::search::Rules;

    /// Positions of random games, labelled with the hand-crafted evaluation as the score
    /// and a result that follows it.
    fn synthetic(count: usize, seed: u64) -> Vec<ChessBoard> {
        let start = |_: &mut SplitMix| Chess::start(&ChessVariant::default());
        testing::random_records(count, seed, start, (4, 60), |game: &Chess| {
            let board = game.board();
            let score = evaluate_board(board);
            let stm_result = match score {
                s if s > 150 => 1.0,
                s if s < -150 => 0.0,
                _ => 0.5,
            };
            let white_result = if board.side_to_move() == cozy_chess::Color::White {
                stm_result
            } else {
                1.0 - stm_result
            };
            bullet_board(board, score, white_result)
        })
    }

    fn settings(hidden: usize, activation: Activation) -> TrainSettings {
        TrainSettings {
            hidden,
            activation,
            validation: 0.0,
            threads: 2,
            // Results in the target too, so that the gradient test covers their term.
            wdl: 0.3,
            ..TrainSettings::default()
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let records = synthetic(6, 3);
        for activation in [Activation::SCReLU, Activation::CReLU] {
            let net = FloatNetwork::random(4, activation, 11);
            check_gradient(&records, net, 4.0);
        }
    }

    #[test]
    fn gradient_matches_finite_differences_with_output_buckets() {
        let records = synthetic(6, 3);
        let mut used: Vec<usize> = records.iter().map(|r| r.output_bucket(8)).collect();
        used.sort_unstable();
        used.dedup();
        assert!(used.len() >= 2, "the positions take one bucket: {used:?}");
        for (buckets, activation) in [(8, Activation::SCReLU), (3, Activation::CReLU)] {
            let net = FloatNetwork::random_bucketed(CHESS768, 4, buckets, activation, 11);
            // Output weights × 2: the evaluations stay where the sigmoid curves less
            // (× 4 puts some near 600 cp, where the finite differences lose 2%).
            check_gradient(&records, net, 2.0);
        }
    }

    #[test]
    fn gradient_matches_finite_differences_with_a_factoriser() {
        use cutoff::games::chess::nnue::CHESS_BUCKETS4_MIRRORED;
        let records = synthetic(6, 4);
        let net =
            FloatNetwork::random_bucketed(CHESS_BUCKETS4_MIRRORED, 4, 2, Activation::SCReLU, 12);
        let mut net = net.factorised();
        let layout = net.layout();
        assert_eq!(layout.len - layout.factor, 768 * 4);
        // Factor weights of their own, so that the check sees them take part.
        for (i, p) in net.params[layout.factor..].iter_mut().enumerate() {
            *p = 0.01 * ((i % 7) as f32 - 3.0);
        }
        check_gradient(&records, net, 2.0);
    }

    #[test]
    fn a_factorised_net_is_written_with_the_factor_in_every_bucket() {
        use cutoff::games::chess::nnue::{CHESS768_MIRRORED, CHESS_BUCKETS4_MIRRORED};
        let records = synthetic(1200, 8);
        let settings = TrainSettings {
            epochs: 2,
            batch: 64,
            lr: 0.01,
            factorise: true,
            feature_set: Some("ChessBuckets4Mirrored".to_string()),
            ..settings(8, Activation::SCReLU)
        };
        let result = train(&records, &settings, |_| {}).unwrap();
        assert!(result.net.factorised);
        let layout = result.net.layout();
        assert!(result.net.params[layout.factor..].iter().any(|&w| w != 0.0));
        // The written net (no factor in it) evaluates as the float one with its factor.
        let quantised = result.net.quantise();
        assert_eq!(*quantised.features(), CHESS_BUCKETS4_MIRRORED);
        assert_eq!(quantised.feature_weights().len(), 4 * 768 * 8);
        let (mean, worst) = quantisation_error(&result.net, &quantised, &records);
        assert!(mean < 10.0 && worst < 50.0, "mean {mean} max {worst}");
        // A set without buckets has nothing to factorise.
        let plain = TrainSettings {
            feature_set: Some(CHESS768_MIRRORED.name.to_string()),
            ..settings
        };
        let error = train(&records, &plain, |_| {}).unwrap_err();
        assert!(error.contains("no king buckets"), "{error}");
    }

    /// Checks the analytic gradient of `net` (4 neurons, its output layer scaled by
    /// `output_scale`) on `records` against finite differences: every parameter the
    /// positions touch and the whole output layer (the heads of buckets no position takes
    /// have none).
    fn check_gradient(records: &[ChessBoard], mut net: FloatNetwork, output_scale: f32) {
        let activation = net.activation;
        let settings = settings(4, activation);
        // Bigger output weights and a bias: gradients well above rounding noise.
        // Accumulators far from the activation's kinks at 0 and 1.
        let layout = net.layout();
        for p in &mut net.params[layout.bias..layout.output] {
            *p = 0.5;
        }
        for p in &mut net.params[layout.output..layout.factor] {
            *p = *p * output_scale + 0.3;
        }
        let mut grads = vec![vec![0.0; layout.len]; 2];
        batch(&net, records, &settings, Some(&mut grads));
        let analytic: Vec<f32> = (0..layout.len).map(|i| grads[0][i] + grads[1][i]).collect();
        // Every parameter touched by the positions, plus the output layer.
        let mut checked = 0;
        for (i, &expected) in analytic.iter().enumerate() {
            if expected == 0.0 && (i < layout.bias || i >= layout.factor) {
                continue;
            }
            // Larger steps lose to f32 rounding less than they gain in curvature.
            let eps = 1e-2f32;
            let mut plus = net.clone();
            plus.params[i] += eps;
            let mut minus = net.clone();
            minus.params[i] -= eps;
            let numeric = (batch(&plus, records, &settings, None)
                - batch(&minus, records, &settings, None))
                / (2.0 * f64::from(eps));
            let expected = f64::from(expected);
            let difference = (numeric - expected).abs();
            assert!(
                difference <= 5e-3 * numeric.abs().max(expected.abs()) + 1e-5,
                "{activation} parameter {i}: analytic {expected} numeric {numeric}"
            );
            checked += 1;
        }
        assert!(checked > 100, "{checked}");
    }

    /// Trains 16 neurons and `buckets` output buckets for 8 epochs on 3000 synthetic
    /// positions, and checks that the training and validation losses fall: the positions,
    /// the settings and the result.
    fn train_synthetic(buckets: usize) -> (Vec<ChessBoard>, TrainSettings, TrainResult) {
        let records = synthetic(3000, 5);
        let settings = TrainSettings {
            epochs: 8,
            batch: 64,
            lr: 0.01,
            validation: 0.1,
            output_buckets: buckets,
            ..settings(16, Activation::SCReLU)
        };
        let mut lines = Vec::new();
        let result = train(&records, &settings, |line| lines.push(line.clone())).unwrap();
        assert_eq!(lines.len(), 8);
        let first = lines[0].train_loss;
        let last = lines[7].train_loss;
        assert!(last < 0.7 * first, "train loss {first} -> {last}");
        assert!(
            lines[7].validation_loss < result.initial_validation_loss,
            "validation {} -> {}",
            result.initial_validation_loss,
            lines[7].validation_loss
        );
        assert_eq!(lines[7].lr, 0.01 * 0.1);
        (records, settings, result)
    }

    /// The mean and the largest difference in centipawns between the evaluations of
    /// `records` by the float `net` and by `quantised`.
    fn quantisation_error(
        net: &FloatNetwork,
        quantised: &Network,
        records: &[ChessBoard],
    ) -> (f64, f32) {
        let (mut sum, mut worst) = (0.0f64, 0.0f32);
        for record in records {
            let difference =
                (net.evaluate_record(record) - evaluate_quantised(quantised, record) as f32).abs();
            sum += f64::from(difference);
            worst = worst.max(difference);
        }
        (sum / records.len() as f64, worst)
    }

    #[test]
    fn training_reduces_the_loss_and_quantises_closely() {
        let (records, settings, result) = train_synthetic(1);
        // Quantised inference against the float network on every position.
        for activation in [Activation::SCReLU, Activation::CReLU] {
            let net = if activation == Activation::SCReLU {
                result.net.clone()
            } else {
                let crelu = TrainSettings {
                    epochs: 2,
                    activation: Activation::CReLU,
                    ..settings.clone()
                };
                train(&records, &crelu, |_| {}).unwrap().net
            };
            let (mean, worst) = quantisation_error(&net, &net.quantise(), &records);
            // Measured: SCReLU mean 5.3 cp, max 24 cp; mostly the rounding of the output
            // weights to 1/64.
            eprintln!("quantised - float, {activation}: mean |d| {mean:.2} cp, max {worst:.1} cp");
            assert!(
                mean < 10.0 && worst < 50.0,
                "{activation}: mean {mean} max {worst}"
            );
        }
        // The same seed trains the same network.
        let again = train(&records, &settings, |_| {}).unwrap();
        assert_eq!(again.net, result.net);
    }

    #[test]
    fn training_with_output_buckets_reduces_the_loss_and_quantises_closely() {
        let (records, _, result) = train_synthetic(8);
        assert_eq!(result.net.buckets, 8);
        // The heads of the buckets the positions take were trained, each apart.
        let initial = FloatNetwork::random_bucketed(CHESS768, 16, 8, Activation::SCReLU, 1);
        let layout = result.net.layout();
        let mut used: Vec<usize> = records.iter().map(|r| r.output_bucket(8)).collect();
        used.sort_unstable();
        used.dedup();
        assert!(used.len() >= 3, "{used:?}");
        for &bucket in &used {
            let head = layout.head(bucket);
            assert_ne!(result.net.params[head.clone()], initial.params[head]);
        }
        // The quantised net, through its file, evaluates as the float one.
        let quantised = result.net.quantise();
        assert_eq!(quantised.buckets(), 8);
        let back = Network::from_bytes_for(&quantised.to_bytes(), &CHESS768).expect("loads");
        assert_eq!(back, quantised);
        let (mean, worst) = quantisation_error(&result.net, &back, &records);
        eprintln!("quantised - float, 8 buckets: mean |d| {mean:.2} cp, max {worst:.1} cp");
        assert!(mean < 10.0 && worst < 50.0, "mean {mean} max {worst}");
    }

    #[test]
    fn a_named_feature_set_is_trained_and_an_unknown_one_refused() {
        use cutoff::games::chess::nnue::{CHESS768_MIRRORED, CHESS_BUCKETS4_MIRRORED};
        let records = synthetic(1500, 6);
        for (name, set) in [
            ("Chess768Mirrored", CHESS768_MIRRORED),
            ("chessbuckets4mirrored", CHESS_BUCKETS4_MIRRORED),
        ] {
            let settings = TrainSettings {
                epochs: 3,
                batch: 64,
                lr: 0.01,
                feature_set: Some(name.to_string()),
                ..settings(8, Activation::SCReLU)
            };
            let result = train(&records, &settings, |_| {}).unwrap();
            assert_eq!(result.net.features, set);
            let (first, last) = (result.epochs[0].train_loss, result.epochs[2].train_loss);
            assert!(last < first, "{name}: train loss {first} -> {last}");
            // Its file loads as a chess net of that set and evaluates as the float one.
            let back = Network::from_bytes_among(
                &result.net.quantise().to_bytes(),
                &cutoff::games::chess::nnue::FEATURE_SETS,
            )
            .expect("loads");
            assert_eq!(*back.features(), set);
            let (mean, worst) = quantisation_error(&result.net, &back, &records);
            assert!(
                mean < 10.0 && worst < 50.0,
                "{name}: mean {mean} max {worst}"
            );
        }
        let unknown = TrainSettings {
            feature_set: Some("Chess999".to_string()),
            ..settings(8, Activation::SCReLU)
        };
        let error = train(&records, &unknown, |_| {}).unwrap_err();
        assert!(
            error.contains("unknown feature set 'Chess999'")
                && error.contains("Chess768, Chess768Mirrored, ChessBuckets4Mirrored"),
            "{error}"
        );
    }

    #[test]
    fn the_output_bucket_option_is_parsed_and_checked() {
        use clap::Parser;
        #[derive(Parser)]
        struct Command {
            #[command(flatten)]
            settings: TrainSettings,
        }
        let parse = |args: &[&str]| {
            Command::try_parse_from(std::iter::once("train").chain(args.iter().copied()))
                .map(|command| command.settings.output_buckets)
                .map_err(|e| e.to_string())
        };
        assert_eq!(parse(&[]), Ok(1));
        assert_eq!(parse(&["--output-buckets", "8"]), Ok(8));
        assert_eq!(parse(&["--output-buckets", "1"]), Ok(1));
        for bad in ["0", "9", "1.5", "x"] {
            let error = parse(&["--output-buckets", bad]).unwrap_err();
            assert!(error.contains("--output-buckets"), "{bad}: {error}");
        }
        let error = parse(&["--output-buckets", "9"]).unwrap_err();
        assert!(error.contains("from 1 to 8"), "{error}");
        // The trainer checks the count too.
        let records = synthetic(10, 1);
        for buckets in [0, 9] {
            let settings = TrainSettings {
                output_buckets: buckets,
                ..TrainSettings::default()
            };
            let error = train(&records, &settings, |_| {}).unwrap_err();
            assert!(error.contains("from 1 to 8"), "{error}");
        }
    }

    #[test]
    fn a_net_file_starts_training_where_it_left_off() {
        let (records, settings, result) = train_synthetic(1);
        let quantised = result.net.quantise();
        // Undoing the quantisation and doing it again gives the same file.
        let back = FloatNetwork::from_quantised(&quantised, 1).unwrap();
        assert_eq!(back.quantise(), quantised);
        // One head copied into three: every position evaluates as before.
        let three = FloatNetwork::from_quantised(&quantised, 3).unwrap();
        assert_eq!(three.buckets, 3);
        for record in &records[..50] {
            let (a, b) = (back.evaluate_record(record), three.evaluate_record(record));
            assert!((a - b).abs() < 1e-3, "{a} {b}");
        }
        // Widened (and bucketed): every position still evaluates as before.
        let wide = FloatNetwork::from_quantised(&quantised, 3)
            .unwrap()
            .widened(24, 7);
        assert_eq!((wide.hidden, wide.buckets), (24, 3));
        for record in &records[..50] {
            let (a, b) = (back.evaluate_record(record), wide.evaluate_record(record));
            assert!((a - b).abs() < 1e-3, "{a} {b}");
        }
        let error = FloatNetwork::from_quantised(&three.quantise(), 2).unwrap_err();
        assert!(error.contains("3 output buckets"), "{error}");
        // `--init`: the run starts from the file's net (its loss, not a random net's).
        let dir = std::env::temp_dir().join(format!("cutoff-init-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("start.nnue");
        quantised.save(&path).unwrap();
        let fine = TrainSettings {
            epochs: 1,
            lr: 0.001,
            init: Some(path.clone()),
            ..settings.clone()
        };
        let tuned = train(&records, &fine, |_| {}).unwrap();
        let held_out = (records.len() as f64 * settings.validation).round() as usize;
        let validation = &records[records.len() - held_out..];
        let expected = mean_loss(&back, validation, &settings);
        assert!(
            (tuned.initial_validation_loss - expected).abs() < 1e-9,
            "{} {expected}",
            tuned.initial_validation_loss
        );
        assert!(tuned.initial_validation_loss < 0.9 * result.initial_validation_loss);
        // A wider net starts from it widened: the same loss, then it learns.
        let wider = TrainSettings {
            hidden: 32,
            ..fine.clone()
        };
        let widened = train(&records, &wider, |_| {}).unwrap();
        assert_eq!(widened.net.hidden, 32);
        assert!(
            (widened.initial_validation_loss - expected).abs() < 1e-6,
            "{} {expected}",
            widened.initial_validation_loss
        );
        // The new neurons' output weights have grown from zero.
        let head = widened.net.layout().head(0);
        assert!(widened.net.params[head][16..32].iter().any(|&w| w != 0.0));
        // A net of another shape is refused with its reason.
        let narrower = TrainSettings {
            hidden: 8,
            ..fine.clone()
        };
        let error = train(&records, &narrower, |_| {}).unwrap_err();
        assert!(error.contains("hidden size 16"), "{error}");
        let missing = TrainSettings {
            init: Some(dir.join("missing.nnue")),
            ..fine
        };
        let error = train(&records, &missing, |_| {}).unwrap_err();
        assert!(error.contains("--init"), "{error}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
