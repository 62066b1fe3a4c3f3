//! NNUE evaluation: a `(768 -> N)x2 -> 1` perspective network in bullet's simple quantised
//! layout, with accumulators updated incrementally and lazily: make/unmake record what
//! changed, and a position's accumulator is computed when it is evaluated.
//!
//! # Inputs
//!
//! bullet's `Chess768`: a piece of colour `c` and kind `k` (pawn 0 .. king 5) on square `sq`
//! is feature `(c' * 6 + k) * 64 + sq'` of each perspective, where `c'` is 0 when the piece
//! belongs to the perspective's side and 1 otherwise, and `sq'` is `sq` for White's
//! perspective and `sq ^ 56` (the board mirrored top-down) for Black's. The side to move's
//! accumulator goes first into the output layer.
//!
//! # Net file layout
//!
//! Little-endian `i16`s, exactly what bullet writes as `quantised.bin` for this
//! architecture (its `examples/simple.rs`), so a net trained by bullet loads here and a net
//! of `cutoff train` loads in bullet-based engines:
//!
//! | part            | shape      | quantisation       |
//! |-----------------|------------|--------------------|
//! | feature weights | `[768][N]` | × QA (255)         |
//! | feature biases  | `[N]`      | × QA               |
//! | output weights  | `[2N]`     | × QB (64), stm first |
//! | output bias     | `1`        | × QA × QB          |
//!
//! then zero padding up to a multiple of 64 bytes: `1542 N + 2` bytes before padding
//! (98 752 bytes padded for N = 64, 197 440 for N = 128). `cutoff train` writes an 8-byte
//! tag at the start of the padding, `b"cutoff"`, a format version (1) and the activation
//! (0 SCReLU, 1 CReLU); a net whose padding is all zeros (bullet's) is read as SCReLU.
//! The hidden size N is deduced from the file size.
//!
//! # Output
//!
//! SCReLU: `(Σ clamp(acc, 0, QA)² · w / QA + bias) · 400 / (QA · QB)`;
//! CReLU: `(Σ clamp(acc, 0, QA) · w + bias) · 400 / (QA · QB)`, in centipawns for the side
//! to move, with bullet's integer divisions.
//!
//! # The default net
//!
//! `nets/default.nnue` is built into the binary ([`embedded`]) and evaluates chess unless
//! `UseNNUE` is off (the hand-crafted evaluation) or `EvalFile` names another net. To ship
//! a new one, replace that file and record its provenance in `nets/README.md`.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use arrayvec::ArrayVec;
use cozy_chess::{Board, Color, File, Move, Piece, Square};
use thiserror::Error;

use crate::games::{EvalNet, NetSupport};

/// Number of input features per perspective (2 colours × 6 kinds × 64 squares).
pub const INPUTS: usize = 768;
/// Quantisation of the feature weights and biases.
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// Output scale: the network's raw output times this is centipawns.
pub const SCALE: i32 = 400;
/// Largest hidden size accepted (the i32 output sums cannot overflow below it).
pub const MAX_HIDDEN: usize = 256;
/// The tag `cutoff train` writes at the start of the padding.
const TAG: &[u8; 6] = b"cutoff";
/// Version of the tag.
const TAG_VERSION: u8 = 1;
/// Largest evaluation returned, well inside the search's evaluation bounds.
const EVAL_LIMIT: i32 = 20_000;

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
        "{len} bytes is not the size of a (768 -> N)x2 -> 1 net: expected 1542*N + 2 bytes \
         (padded to a multiple of 64), e.g. 98752 for N = 64, with 1 <= N <= {MAX_HIDDEN}"
    )]
    Size {
        /// The size found.
        len: usize,
    },
    /// The padding holds something that is not a valid cutoff tag.
    #[error("the padding after the weights is neither zeros nor a valid cutoff tag")]
    Padding,
}

/// A quantised network, shared read-only by every position and thread through an `Arc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    hidden: usize,
    activation: Activation,
    /// `[768][hidden]`, row `feature`.
    feature_weights: Box<[i16]>,
    /// `[hidden]`.
    feature_bias: Box<[i16]>,
    /// `[2 * hidden]`: the side to move's half first.
    output_weights: Box<[i16]>,
    output_bias: i16,
    /// Whether every output weight is within ±128 (`clamp(a) · w` fits an i16).
    small_output: bool,
}

/// Size in bytes of the weights of a net with `hidden` neurons, before padding.
pub fn raw_size(hidden: usize) -> usize {
    2 * (INPUTS * hidden + hidden + 2 * hidden + 1)
}

/// Size in bytes of the file of a net with `hidden` neurons (padded to 64 bytes).
pub fn file_size(hidden: usize) -> usize {
    raw_size(hidden).div_ceil(64) * 64
}

impl Network {
    /// A network from its quantised parts. Panics if the lengths do not fit `hidden`
    /// (a programming error: files go through [`Network::from_bytes`]).
    pub fn from_parts(
        activation: Activation,
        feature_weights: Vec<i16>,
        feature_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: i16,
    ) -> Network {
        let hidden = feature_bias.len();
        assert!((1..=MAX_HIDDEN).contains(&hidden), "hidden size {hidden}");
        assert_eq!(feature_weights.len(), INPUTS * hidden);
        assert_eq!(output_weights.len(), 2 * hidden);
        let small_output = output_weights.iter().all(|w| w.unsigned_abs() <= 128);
        Network {
            hidden,
            activation,
            small_output,
            feature_weights: feature_weights.into(),
            feature_bias: feature_bias.into(),
            output_weights: output_weights.into(),
            output_bias,
        }
    }

    /// The hidden size N.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The activation.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Reads a net file (see the module documentation for the layout).
    pub fn load(path: &Path) -> Result<Network, NetworkError> {
        let bytes = std::fs::read(path).map_err(|e| NetworkError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Network::from_bytes(&bytes)
    }

    /// Parses a net file's bytes: the size must be that of some hidden size, unpadded or
    /// padded to 64 bytes; the padding must be zeros or cutoff's tag.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        let len = bytes.len();
        let hidden = (1..=MAX_HIDDEN)
            .find(|&n| raw_size(n) == len || file_size(n) == len)
            .ok_or(NetworkError::Size { len })?;
        let raw = raw_size(hidden);
        let activation = parse_padding(&bytes[raw..])?;
        let mut words = bytes[..raw]
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]));
        let mut take = |n: usize| -> Vec<i16> { words.by_ref().take(n).collect() };
        let feature_weights = take(INPUTS * hidden);
        let feature_bias = take(hidden);
        let output_weights = take(2 * hidden);
        let output_bias = take(1)[0];
        Ok(Network::from_parts(
            activation,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        ))
    }

    /// The net file's bytes: the weights, then the tag and zeros up to 64 bytes (the tag is
    /// left out when the padding is shorter than it).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(file_size(self.hidden));
        let parts: [&[i16]; 4] = [
            &self.feature_weights,
            &self.feature_bias,
            &self.output_weights,
            &[self.output_bias],
        ];
        for word in parts.into_iter().flatten() {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        if file_size(self.hidden) - bytes.len() >= TAG.len() + 2 {
            bytes.extend_from_slice(TAG);
            bytes.push(TAG_VERSION);
            bytes.push(self.activation.id());
        }
        bytes.resize(file_size(self.hidden), 0);
        bytes
    }

    /// Writes the net file.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())
    }

    /// The weights of one input feature.
    #[inline]
    fn row(&self, feature: usize) -> &[i16] {
        &self.feature_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }

    /// The output in centipawns for the side to move, from the side to move's accumulator
    /// `us` and the other side's `them`.
    pub fn output(&self, us: &[i16], them: &[i16]) -> i32 {
        let (ours, theirs) = self.output_weights.split_at(self.hidden);
        let sum = match self.activation {
            Activation::SCReLU => {
                let dot = if self.small_output {
                    screlu_dot_small
                } else {
                    screlu_dot
                };
                let total = i64::from(dot(us, ours)) + i64::from(dot(them, theirs));
                total / i64::from(QA) + i64::from(self.output_bias)
            }
            Activation::CReLU => {
                i64::from(crelu_dot(us, ours))
                    + i64::from(crelu_dot(them, theirs))
                    + i64::from(self.output_bias)
            }
        };
        let eval = sum * i64::from(SCALE) / i64::from(QA * QB);
        eval.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
    }

    /// Evaluates `board` from scratch (no accumulator kept): the reference for the
    /// incremental updates.
    pub fn evaluate(&self, board: &Board) -> i32 {
        let mut accumulator = vec![0; 2 * self.hidden];
        self.refresh(board, &mut accumulator);
        let (white, black) = accumulator.split_at(self.hidden);
        match board.side_to_move() {
            Color::White => self.output(white, black),
            Color::Black => self.output(black, white),
        }
    }

    /// Evaluates a bullet record (from the side to move's view, as the record is).
    pub fn evaluate_record(&self, record: &bulletformat::ChessBoard) -> i32 {
        let mut us = self.feature_bias.to_vec();
        let mut them = self.feature_bias.to_vec();
        for (stm, nstm) in record_features(record) {
            add(&mut us, self.row(stm));
            add(&mut them, self.row(nstm));
        }
        self.output(&us, &them)
    }

    /// Fills `accumulator` (White's half, then Black's) for `board` from scratch.
    pub fn refresh(&self, board: &Board, accumulator: &mut [i16]) {
        let (white, black) = accumulator.split_at_mut(self.hidden);
        white.copy_from_slice(&self.feature_bias);
        black.copy_from_slice(&self.feature_bias);
        for square in board.occupied() {
            let (Some(piece), Some(color)) = (board.piece_on(square), board.color_on(square))
            else {
                continue;
            };
            add(white, self.row(feature(Color::White, color, piece, square)));
            add(black, self.row(feature(Color::Black, color, piece, square)));
        }
    }
}

/// Reads the padding: zeros (bullet: SCReLU) or cutoff's tag.
fn parse_padding(padding: &[u8]) -> Result<Activation, NetworkError> {
    if padding.iter().all(|&b| b == 0) {
        return Ok(Activation::SCReLU);
    }
    let tagged = padding.len() >= TAG.len() + 2
        && &padding[..TAG.len()] == TAG
        && padding[TAG.len()] == TAG_VERSION
        && padding[TAG.len() + 2..].iter().all(|&b| b == 0);
    if !tagged {
        return Err(NetworkError::Padding);
    }
    match padding[TAG.len() + 1] {
        0 => Ok(Activation::SCReLU),
        1 => Ok(Activation::CReLU),
        _ => Err(NetworkError::Padding),
    }
}

/// `Σ clamp(a, 0, QA)² · w` for output weights within ±128: `clamp(a) · w` fits an i16,
/// so each term is an i16 product widened and multiplied once more, which the compiler
/// turns into `pmullw` + `pmaddwd` (SSE2), four times faster than i32 products here.
#[inline]
fn screlu_dot_small(accumulator: &[i16], weights: &[i16]) -> i32 {
    accumulator
        .iter()
        .zip(weights)
        .map(|(&a, &w)| {
            let clipped = a.clamp(0, QA as i16);
            i32::from(clipped.wrapping_mul(w)) * i32::from(clipped)
        })
        .fold(0i32, i32::wrapping_add)
}

/// `Σ clamp(a, 0, QA)² · w` (at most 65 025 · 127 per term: no overflow below
/// [`MAX_HIDDEN`] for weights clipped as `cutoff train` and bullet clip them).
#[inline]
fn screlu_dot(accumulator: &[i16], weights: &[i16]) -> i32 {
    accumulator
        .iter()
        .zip(weights)
        .map(|(&a, &w)| {
            let clipped = i32::from(a).clamp(0, QA);
            clipped * clipped * i32::from(w)
        })
        .fold(0i32, i32::wrapping_add)
}

/// `Σ clamp(a, 0, QA) · w`.
#[inline]
fn crelu_dot(accumulator: &[i16], weights: &[i16]) -> i32 {
    accumulator
        .iter()
        .zip(weights)
        .map(|(&a, &w)| i32::from(a).clamp(0, QA) * i32::from(w))
        .sum()
}

#[inline]
fn add(accumulator: &mut [i16], row: &[i16]) {
    for (a, &w) in accumulator.iter_mut().zip(row) {
        *a = a.wrapping_add(w);
    }
}

/// The input feature of a `color` `piece` on `square` seen from `perspective`.
#[inline]
pub fn feature(perspective: Color, color: Color, piece: Piece, square: Square) -> usize {
    let relative = usize::from(color != perspective);
    let square = match perspective {
        Color::White => square as usize,
        Color::Black => square as usize ^ 56,
    };
    (relative * 6 + piece as usize) * 64 + square
}

/// The (side to move, other side) feature pairs of a bullet record, exactly as bullet's
/// `Chess768` maps them.
pub fn record_features(
    record: &bulletformat::ChessBoard,
) -> impl Iterator<Item = (usize, usize)> + '_ {
    record.into_iter().map(|(piece, square)| {
        let colour = usize::from(piece & 8 > 0);
        let kind = usize::from(piece & 7);
        let square = usize::from(square);
        (
            colour * 384 + kind * 64 + square,
            (1 - colour) * 384 + kind * 64 + (square ^ 56),
        )
    })
}

/// The net file built into the binary: `nets/default.nnue` (its provenance is in
/// `nets/README.md`).
const EMBEDDED_NET: &[u8] = include_bytes!("../../../nets/default.nnue");

/// The net embedded in the binary, parsed once, then shared by every position and thread;
/// `None` only if the file built in is not a valid net (a unit test rules that out).
pub fn embedded() -> Option<Arc<Network>> {
    static EMBEDDED: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    EMBEDDED
        .get_or_init(|| Network::from_bytes(EMBEDDED_NET).ok().map(Arc::new))
        .clone()
}

/// How chess takes a network in the registry: `EvalFile` loads with [`Network::load`].
pub const NET_SUPPORT: NetSupport = NetSupport {
    load: |path| {
        Network::load(path)
            .map(|net| Arc::new(net) as EvalNet)
            .map_err(|e| e.to_string())
    },
    embedded: || embedded().map(|net| net as EvalNet),
};

/// Features a move adds and removes, for one perspective at a time.
#[derive(Clone, Debug, Default)]
struct Changes {
    /// (colour, piece, square) placed.
    added: ArrayVec<(Color, Piece, Square), 2>,
    /// (colour, piece, square) taken away.
    removed: ArrayVec<(Color, Piece, Square), 2>,
}

/// What `mv` changes on `board` (before it is played): the moved piece, a capture (en
/// passant included), a promotion, castling (king takes own rook in cozy-chess).
fn changes(board: &Board, mv: Move) -> Changes {
    let mut changes = Changes::default();
    let us = board.side_to_move();
    let Some(piece) = board.piece_on(mv.from) else {
        return changes;
    };
    if piece == Piece::King && board.colors(us).has(mv.to) {
        let rank = mv.from.rank();
        let (king_file, rook_file) = if mv.to.file() > mv.from.file() {
            (File::G, File::F)
        } else {
            (File::C, File::D)
        };
        changes.removed.push((us, Piece::King, mv.from));
        changes.removed.push((us, Piece::Rook, mv.to));
        changes
            .added
            .push((us, Piece::King, Square::new(king_file, rank)));
        changes
            .added
            .push((us, Piece::Rook, Square::new(rook_file, rank)));
        return changes;
    }
    changes.removed.push((us, piece, mv.from));
    changes
        .added
        .push((us, mv.promotion.unwrap_or(piece), mv.to));
    if board.colors(!us).has(mv.to) {
        if let Some(victim) = board.piece_on(mv.to) {
            changes.removed.push((!us, victim, mv.to));
        }
    } else if piece == Piece::Pawn && mv.from.file() != mv.to.file() {
        let victim = Square::new(mv.to.file(), mv.from.rank());
        changes.removed.push((!us, Piece::Pawn, victim));
    }
    changes
}

/// A network with a stack of accumulators, one per position from the root to the current
/// one: White's half then Black's, `2 N` values each, in one preallocated vector. They are
/// brought up to date lazily: a move only records the features it changes, and a position's
/// accumulator is computed when it is evaluated ([`NnueState::evaluate`]), from its last
/// computed ancestor's, so that positions never evaluated cost no update.
#[derive(Debug)]
pub struct NnueState {
    net: Arc<Network>,
    /// The accumulators, `2 N` values per position on the stack (never shrunk: the slots
    /// above the current position are stale).
    stack: Vec<i16>,
    /// One per position on the stack, the root first: what the move into it changed and
    /// whether its accumulator is computed (the root's always is).
    plies: Vec<Ply>,
}

/// A position on the accumulator stack.
#[derive(Clone, Debug, Default)]
struct Ply {
    /// The features the move into it changed (none for the root and null moves).
    changes: Changes,
    /// Whether its accumulator is up to date.
    computed: bool,
}

impl Clone for NnueState {
    fn clone(&self) -> Self {
        let live = &self.stack[..self.plies.len() * 2 * self.net.hidden];
        NnueState::with_stack(Arc::clone(&self.net), live, &self.plies)
    }
}

/// Accumulators kept ready without reallocating (like the board stack).
const STACK_RESERVE: usize = 1024;

impl NnueState {
    /// The state of `board`: one freshly computed accumulator.
    pub fn new(net: Arc<Network>, board: &Board) -> NnueState {
        let width = 2 * net.hidden;
        let root = Ply {
            changes: Changes::default(),
            computed: true,
        };
        let mut state = NnueState::with_stack(net, &[], &[root]);
        state.stack.resize(width, 0);
        state.net.refresh(board, &mut state.stack);
        state
    }

    /// A state holding `stack` and `plies`, with room reserved for [`STACK_RESERVE`] more.
    fn with_stack(net: Arc<Network>, stack: &[i16], plies: &[Ply]) -> NnueState {
        let mut reserved = Vec::with_capacity(stack.len() + STACK_RESERVE * 2 * net.hidden);
        reserved.extend_from_slice(stack);
        let mut reserved_plies = Vec::with_capacity(plies.len() + STACK_RESERVE);
        reserved_plies.extend_from_slice(plies);
        NnueState {
            net,
            stack: reserved,
            plies: reserved_plies,
        }
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// The current accumulator (White's half, then Black's), if it is computed: after
    /// [`NnueState::update`] or [`NnueState::evaluate`].
    pub fn current(&self) -> Option<&[i16]> {
        let ply = self.plies.len() - 1;
        self.plies[ply].computed.then(|| self.slot(ply))
    }

    /// Number of positions on the stack, the root included.
    pub fn positions(&self) -> usize {
        self.plies.len()
    }

    /// The accumulator slot of `ply` (stale unless that ply is computed).
    fn slot(&self, ply: usize) -> &[i16] {
        let width = 2 * self.net.hidden;
        &self.stack[ply * width..(ply + 1) * width]
    }

    /// Records `mv`, played on `board` (the position before it); its accumulator is
    /// computed when needed.
    pub fn push_move(&mut self, board: &Board, mv: Move) {
        self.push(changes(board, mv));
    }

    /// Records a null move (it changes no feature).
    pub fn push_null(&mut self) {
        self.push(Changes::default());
    }

    fn push(&mut self, changes: Changes) {
        self.plies.push(Ply {
            changes,
            computed: false,
        });
        let needed = self.plies.len() * 2 * self.net.hidden;
        if self.stack.len() < needed {
            self.stack.resize(needed, 0);
        }
    }

    /// Drops the current position (unmake); the root's stays.
    pub fn pop(&mut self) {
        if self.plies.len() > 1 {
            self.plies.pop();
        }
    }

    /// Computes the current accumulator, and those of its ancestors back to the last
    /// computed one.
    pub fn update(&mut self) {
        let last = self.plies.len() - 1;
        let mut first = last;
        while !self.plies[first].computed {
            first -= 1;
        }
        for ply in first + 1..=last {
            self.compute(ply);
        }
    }

    /// Computes the accumulator of `ply` from its parent's (which must be computed).
    fn compute(&mut self, ply: usize) {
        let hidden = self.net.hidden;
        let width = 2 * hidden;
        let (parent, child) = self.stack.split_at_mut(ply * width);
        let parent = &parent[(ply - 1) * width..];
        let changes = &self.plies[ply].changes;
        for (half, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            let range = half * hidden..(half + 1) * hidden;
            let rows = |list: &ArrayVec<(Color, Piece, Square), 2>| {
                let mut rows: ArrayVec<&[i16], 2> = ArrayVec::new();
                for &(color, piece, square) in list {
                    rows.push(self.net.row(feature(perspective, color, piece, square)));
                }
                rows
            };
            apply(
                &parent[range.clone()],
                &mut child[range],
                &rows(&changes.added),
                &rows(&changes.removed),
            );
        }
        self.plies[ply].computed = true;
    }

    /// The evaluation of the current position for `side_to_move`, its accumulator brought
    /// up to date first.
    pub fn evaluate(&mut self, side_to_move: Color) -> i32 {
        self.update();
        self.output(self.slot(self.plies.len() - 1), side_to_move)
    }

    /// The evaluation of the current position for `side_to_move` if its accumulator is
    /// computed.
    pub fn evaluate_computed(&self, side_to_move: Color) -> Option<i32> {
        self.current()
            .map(|accumulator| self.output(accumulator, side_to_move))
    }

    /// The net's output for `accumulator` (White's half, then Black's).
    fn output(&self, accumulator: &[i16], side_to_move: Color) -> i32 {
        let (white, black) = accumulator.split_at(self.net.hidden);
        match side_to_move {
            Color::White => self.net.output(white, black),
            Color::Black => self.net.output(black, white),
        }
    }
}

/// `child = parent + Σ added - Σ removed`, in one pass for the usual shapes (iterators
/// rather than indices, so that no bounds check stops the vectoriser).
#[inline]
fn apply(parent: &[i16], child: &mut [i16], added: &[&[i16]], removed: &[&[i16]]) {
    match (added, removed) {
        ([a], [r]) => {
            for (((c, &p), &a), &r) in child.iter_mut().zip(parent).zip(*a).zip(*r) {
                *c = p.wrapping_add(a).wrapping_sub(r);
            }
        }
        ([a], [r1, r2]) => {
            for ((((c, &p), &a), &r1), &r2) in
                child.iter_mut().zip(parent).zip(*a).zip(*r1).zip(*r2)
            {
                *c = p.wrapping_add(a).wrapping_sub(r1).wrapping_sub(r2);
            }
        }
        _ => {
            child.copy_from_slice(parent);
            for row in added {
                add(child, row);
            }
            for row in removed {
                for (c, &w) in child.iter_mut().zip(*row) {
                    *c = c.wrapping_sub(w);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random network of `hidden` neurons (weights small enough for i16 accumulators).
    pub(crate) fn random_network(hidden: usize, activation: Activation, seed: u64) -> Network {
        let mut rng = crate::rng::SplitMix::new(seed);
        let mut small = |range: i32| (rng.below(2 * range as usize + 1) as i32 - range) as i16;
        let feature_weights = (0..INPUTS * hidden).map(|_| small(60)).collect();
        let feature_bias = (0..hidden).map(|_| small(100)).collect();
        let output_weights = (0..2 * hidden).map(|_| small(127)).collect();
        let output_bias = small(3000);
        Network::from_parts(
            activation,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        )
    }

    #[test]
    fn the_embedded_net_is_valid_and_the_default() {
        let net = embedded().expect("nets/default.nnue is a valid net");
        assert_eq!(net.to_bytes(), EMBEDDED_NET);
        let default = crate::games::chess::ChessVariant::default();
        assert!(default.net.is_some_and(|n| Arc::ptr_eq(&n, &net)));
        // Its evaluations are sane: a queen up is far better than the start position.
        let start = net.evaluate(&Board::default());
        let queen_odds: Board = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
            .parse()
            .unwrap();
        assert!(start.abs() < 100, "start position {start}");
        assert!(net.evaluate(&queen_odds) > start + 500);
    }

    #[test]
    fn net_files_round_trip() {
        for (hidden, activation) in [
            (64, Activation::SCReLU),
            (128, Activation::CReLU),
            (16, Activation::CReLU),
            (4, Activation::SCReLU),
            (21, Activation::SCReLU),
        ] {
            let net = random_network(hidden, activation, hidden as u64);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), file_size(hidden));
            assert_eq!(bytes.len() % 64, 0);
            let back = Network::from_bytes(&bytes).expect("round trip");
            assert_eq!(back.hidden(), hidden);
            if hidden == 21 {
                // No room for the tag: read as SCReLU.
                assert_eq!(back.activation(), Activation::SCReLU);
            }
            assert_eq!(back, net);
            // The unpadded weights (as bullet may write them) load too.
            let raw = Network::from_bytes(&bytes[..raw_size(hidden)]).expect("unpadded");
            assert_eq!(raw.feature_weights, net.feature_weights);
        }
        assert_eq!(file_size(64), 98_752);
        assert_eq!(file_size(128), 197_440);
    }

    #[test]
    fn bad_net_files_are_refused() {
        let bytes = random_network(64, Activation::SCReLU, 1).to_bytes();
        for len in [
            0,
            1,
            100,
            bytes.len() - 1,
            bytes.len() + 2,
            bytes.len() - 64,
        ] {
            let mut cut = bytes.clone();
            cut.resize(len, 0);
            assert_eq!(
                Network::from_bytes(&cut),
                Err(NetworkError::Size { len }),
                "{len}"
            );
        }
        let mut garbage = bytes.clone();
        let last = garbage.len() - 1;
        garbage[last] = 7;
        assert_eq!(Network::from_bytes(&garbage), Err(NetworkError::Padding));
        let mut activation = bytes;
        activation[raw_size(64) + TAG.len() + 1] = 9;
        assert_eq!(Network::from_bytes(&activation), Err(NetworkError::Padding));
        let missing = Network::load(Path::new("/nonexistent/net.nnue"));
        assert!(matches!(missing, Err(NetworkError::Io { .. })));
        assert!(missing.unwrap_err().to_string().contains("/nonexistent"));
    }

    #[test]
    fn board_and_bullet_record_features_agree() {
        use crate::games::chess::training::datagen::bullet_board;
        let net = random_network(16, Activation::SCReLU, 3);
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R b KQ - 1 8",
        ] {
            let board: Board = fen.parse().unwrap();
            let record = bullet_board(&board, 0, 0.5).unwrap();
            assert_eq!(net.evaluate(&board), net.evaluate_record(&record), "{fen}");
        }
        // The hand-computed indices of a white pawn on e2: White sees its own pawn on e2,
        // Black an opponent's pawn on e7.
        assert_eq!(
            feature(Color::White, Color::White, Piece::Pawn, Square::E2),
            12
        );
        assert_eq!(
            feature(Color::Black, Color::White, Piece::Pawn, Square::E2),
            384 + 52
        );
        assert_eq!(
            feature(Color::Black, Color::Black, Piece::King, Square::E8),
            5 * 64 + 4
        );
    }

    #[test]
    fn the_fast_screlu_sum_is_exact_for_small_weights() {
        let mut rng = crate::rng::SplitMix::new(4);
        let mut value = |range: usize| rng.below(2 * range + 1) as i16 - range as i16;
        for _ in 0..200 {
            let accumulator: Vec<i16> = (0..64).map(|_| value(400)).collect();
            let weights: Vec<i16> = (0..64).map(|_| value(128)).collect();
            assert_eq!(
                screlu_dot_small(&accumulator, &weights),
                screlu_dot(&accumulator, &weights)
            );
        }
        // A net with a big output weight takes the exact path.
        let mut net = random_network(8, Activation::SCReLU, 1);
        assert!(net.small_output);
        net.output_weights[0] = 1000;
        let net = Network::from_parts(
            net.activation,
            net.feature_weights.to_vec(),
            net.feature_bias.to_vec(),
            net.output_weights.to_vec(),
            net.output_bias,
        );
        assert!(!net.small_output);
    }

    #[test]
    fn colour_mirrored_positions_evaluate_alike() {
        let net = random_network(32, Activation::SCReLU, 5);
        let white: Board = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
            .parse()
            .unwrap();
        let black: Board = "r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b KQkq - 0 1"
            .parse()
            .unwrap();
        assert_eq!(net.evaluate(&white), net.evaluate(&black));
    }
}

#[cfg(test)]
mod incremental_tests {
    use super::tests::random_network;
    use super::*;
    use crate::games::chess::{Chess, ChessVariant};
    use crate::search::{Game, MoveList};

    /// Checks the incremental accumulator of `game`, brought up to date, against a full
    /// refresh, and its evaluation before and after (from scratch while it is not computed).
    fn check(game: &mut Chess, what: &str) {
        let before = game.evaluate();
        let eval = game.evaluate_mut();
        let state = game.nnue().expect("a net evaluates");
        let mut fresh = vec![0; 2 * state.network().hidden()];
        state.network().refresh(game.board(), &mut fresh);
        assert_eq!(
            state.current(),
            Some(&fresh[..]),
            "{what}: {}",
            game.to_fen()
        );
        assert_eq!(eval, state.network().evaluate(game.board()), "{what}");
        assert_eq!(before, eval, "{what}");
        assert_eq!(game.evaluate(), eval, "{what}");
    }

    /// Random games from `fens`, preferring castling, en passant, promotions and captures
    /// when they are legal; the accumulator is checked after every move, null move and
    /// unmake. Returns how many of each special move were played.
    fn random_games(chess960: bool, fens: &[&str], seed: u64) -> [usize; 4] {
        let net = Arc::new(random_network(16, Activation::SCReLU, seed));
        let variant = ChessVariant {
            chess960,
            net: Some(net),
        };
        let mut rng = crate::rng::SplitMix::new(seed);
        let mut seen = [0usize; 4];
        for fen in fens {
            for _ in 0..8 {
                let mut game = Chess::from_fen(&variant, fen).expect("test FEN");
                check(&mut game, "root");
                let mut played = Vec::new();
                for _ in 0..120 {
                    let mut moves = MoveList::new();
                    game.generate_moves(&mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    let board = game.board().clone();
                    let kind = |mv: Move| {
                        let piece = board.piece_on(mv.from);
                        if piece == Some(Piece::King)
                            && board.colors(board.side_to_move()).has(mv.to)
                        {
                            Some(0)
                        } else if piece == Some(Piece::Pawn)
                            && mv.from.file() != mv.to.file()
                            && board.piece_on(mv.to).is_none()
                        {
                            Some(1)
                        } else if mv.promotion.is_some() {
                            Some(2)
                        } else if board.piece_on(mv.to).is_some() {
                            Some(3)
                        } else {
                            None
                        }
                    };
                    let special: Vec<Move> = moves
                        .iter()
                        .copied()
                        .filter(|&m| kind(m).is_some())
                        .collect();
                    let mv = if !special.is_empty() && rng.below(2) == 0 {
                        special[rng.below(special.len())]
                    } else {
                        moves[rng.below(moves.len())]
                    };
                    if let Some(k) = kind(mv) {
                        seen[k] += 1;
                    }
                    game.make_move(mv);
                    check(&mut game, "make");
                    if game.null_move_allowed() && rng.below(8) == 0 {
                        game.make_null();
                        check(&mut game, "null");
                        game.unmake_null();
                        check(&mut game, "unmake null");
                    }
                    played.push(mv);
                    if rng.below(6) == 0 {
                        let last = played.pop().expect("a move");
                        game.unmake_move(last);
                        check(&mut game, "unmake");
                        game.make_move(last);
                        played.push(last);
                    }
                }
                while let Some(mv) = played.pop() {
                    game.unmake_move(mv);
                }
                check(&mut game, "back at the root");
                let state = game.nnue().unwrap();
                assert_eq!(state.current().map(<[i16]>::len), Some(32));
                assert_eq!(state.positions(), 1);
            }
        }
        seen
    }

    #[test]
    fn incremental_accumulators_match_a_full_refresh() {
        let seen = random_games(
            false,
            &[
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            ],
            1,
        );
        assert!(
            seen.iter().all(|&n| n > 0),
            "castling, ep, promotion, capture: {seen:?}"
        );
        let seen = random_games(
            true,
            &[
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                "rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1",
                "nrbkqrbn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQRBN w FBfb - 0 1",
            ],
            2,
        );
        assert!(seen[0] > 0, "Chess960 castling: {seen:?}");
    }

    /// Plies whose accumulators wait to be computed.
    fn pending(game: &Chess) -> usize {
        let plies = &game.nnue().expect("a net evaluates").plies;
        plies.iter().rev().take_while(|ply| !ply.computed).count()
    }

    #[test]
    fn lazy_accumulators_match_a_full_refresh_after_unevaluated_plies() {
        let net = Arc::new(random_network(16, Activation::SCReLU, 7));
        let variant = ChessVariant {
            chess960: false,
            net: Some(net),
        };
        let mut rng = crate::rng::SplitMix::new(7);
        let mut longest_catch_up = 0;
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ] {
            for _ in 0..8 {
                let mut game = Chess::from_fen(&variant, fen).expect("test FEN");
                // The moves played (None: a null move), evaluated now and then only.
                let mut played: Vec<Option<Move>> = Vec::new();
                for _ in 0..200 {
                    let mut moves = MoveList::new();
                    game.generate_moves(&mut moves);
                    match rng.below(10) {
                        0..=2 => {
                            longest_catch_up = longest_catch_up.max(pending(&game));
                            check(&mut game, "lazy");
                        }
                        3..=4 if !played.is_empty() => match played.pop() {
                            Some(Some(mv)) => game.unmake_move(mv),
                            _ => game.unmake_null(),
                        },
                        5 if game.null_move_allowed() => {
                            game.make_null();
                            played.push(None);
                        }
                        _ if !moves.is_empty() => {
                            let mv = moves[rng.below(moves.len())];
                            game.make_move(mv);
                            played.push(Some(mv));
                        }
                        _ => {}
                    }
                }
                check(&mut game, "lazy at the end");
            }
        }
        assert!(longest_catch_up >= 4, "{longest_catch_up}");
    }

    #[test]
    fn clones_keep_their_accumulators() {
        let net = Arc::new(random_network(8, Activation::CReLU, 9));
        let variant = ChessVariant {
            chess960: false,
            net: Some(net),
        };
        let mut game = Chess::start(&variant);
        for text in ["e2e4", "d7d5", "e4d5"] {
            let mv = game.parse_move(text).unwrap();
            game.make_move(mv);
        }
        let mut copy = game.clone();
        check(&mut copy, "clone");
        assert_eq!(copy.evaluate(), game.evaluate());
        // The hand-crafted evaluation when no net is given.
        let plain = Chess::start(&ChessVariant {
            chess960: false,
            net: None,
        });
        assert!(plain.nnue().is_none());
    }
}
