//! Chess's NNUE inputs, `Chess768`, for the generic network of [`crate::nnue`]: a
//! `(768 -> N)x2 -> B` perspective network in bullet's simple quantised layout, with
//! accumulators updated incrementally and lazily: make/unmake record what changed, and a
//! position's accumulator is computed when it is evaluated.
//!
//! # Inputs
//!
//! bullet's `Chess768`: a piece of colour `c` and kind `k` (pawn 0 .. king 5) on square `sq`
//! is feature `(c' * 6 + k) * 64 + sq'` of each perspective, where `c'` is 0 when the piece
//! belongs to the perspective's side and 1 otherwise, and `sq'` is `sq` for White's
//! perspective and `sq ^ 56` (the board mirrored top-down) for Black's. The side to move's
//! accumulator goes first into the output layer. Perspective 0 is White's, 1 Black's.
//!
//! Two more feature sets depend on each perspective's own king ([`KingLayout`]):
//! `Chess768Mirrored` mirrors the board left-right (`sq' ^ 7`) for a perspective whose
//! king stands on files e-h, and `ChessBuckets4Mirrored` also offsets every feature by
//! `768 ·` the bucket of that king's square ([`BUCKETS4`]). A move that takes a king to
//! another bucket or mirror half refreshes that perspective's half of the accumulator
//! ([`push_move`]); the net file's tag says which set a net has.
//!
//! # Output buckets
//!
//! A net of B output buckets evaluates a position with `n` pieces on the board (kings
//! included) by head `(n - 2) / ceil(32 / B)`, at most `B - 1`, as bullet's
//! `MaterialCount<B>` ([`output_bucket`]): for B = 8, `(n - 2) / 4`, the start position
//! in bucket 7 and king against king in bucket 0. The search finds it with a popcount.
//!
//! # Net file layout (see [`crate::nnue`] for every feature set)
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
//! The hidden size N is deduced from the file size. A net of B > 1 output buckets has
//! `[B][2N]` output weights and `[B]` biases and a 12-byte version-3 tag (see
//! [`crate::nnue`]).
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

use cozy_chess::{Board, Color, File, Move, Piece, Square};

use crate::games::{EvalNet, NetSupport};
pub use crate::nnue::{Activation, Network, NetworkError, MAX_HIDDEN, QA, QB, SCALE};
use crate::nnue::{Delta, FeatureSet, UNTAGGED, UNTAGGED_INPUTS};

/// Number of input features per perspective (2 colours × 6 kinds × 64 squares) in each
/// king bucket.
pub const INPUTS: usize = UNTAGGED_INPUTS;

/// bullet's `Chess768`: the feature set of untagged and version-1 net files.
pub const CHESS768: FeatureSet = FeatureSet {
    name: "Chess768",
    max_active: 32,
    ..UNTAGGED
};

/// `Chess768` with horizontal mirroring: a perspective whose king stands on files e-h sees
/// the board mirrored left-right (bullet's `ChessBucketsMirrored` with one bucket).
pub const CHESS768_MIRRORED: FeatureSet = FeatureSet {
    id: 2,
    name: "Chess768Mirrored",
    inputs: INPUTS,
    max_active: 32,
    factor: 0,
};

/// Four king buckets with horizontal mirroring: `Chess768` once per bucket of the
/// perspective's king square ([`BUCKETS4`]), the board mirrored as in
/// [`CHESS768_MIRRORED`].
pub const CHESS_BUCKETS4_MIRRORED: FeatureSet = FeatureSet {
    id: 3,
    name: "ChessBuckets4Mirrored",
    inputs: 4 * INPUTS,
    max_active: 32,
    factor: INPUTS,
};

/// Every feature set a chess net may have, the default (and legacy) one first.
pub const FEATURE_SETS: [FeatureSet; 3] = [CHESS768, CHESS768_MIRRORED, CHESS_BUCKETS4_MIRRORED];

/// The king bucket of each square of the perspective's own king (seen from its side, a1
/// = 0) in [`CHESS_BUCKETS4_MIRRORED`]: the two corners of the back rank, its centre, the
/// second rank, the rest of the board. Symmetric left-right, as mirroring needs.
#[rustfmt::skip]
pub const BUCKETS4: [u8; 64] = [
    0, 0, 1, 1, 1, 1, 0, 0,
    2, 2, 2, 2, 2, 2, 2, 2,
    3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3,
];

/// How a feature set depends on a perspective's own king: whether the board is mirrored
/// when that king stands on files e-h, and the king bucket of each of its squares.
#[derive(Debug, PartialEq, Eq)]
pub struct KingLayout {
    mirrored: bool,
    buckets: [u8; 64],
}

/// `Chess768`: no mirroring, one bucket.
const PLAIN: KingLayout = KingLayout {
    mirrored: false,
    buckets: [0; 64],
};
/// `Chess768Mirrored`.
const MIRRORED: KingLayout = KingLayout {
    mirrored: true,
    buckets: [0; 64],
};
/// `ChessBuckets4Mirrored`.
const MIRRORED_BUCKETS4: KingLayout = KingLayout {
    mirrored: true,
    buckets: BUCKETS4,
};

/// The king layout of a chess feature set (of [`FEATURE_SETS`]; any other is read as
/// `Chess768`).
#[inline]
pub fn king_layout(set: &FeatureSet) -> &'static KingLayout {
    match set.id {
        id if id == CHESS768_MIRRORED.id => &MIRRORED,
        id if id == CHESS_BUCKETS4_MIRRORED.id => &MIRRORED_BUCKETS4,
        _ => &PLAIN,
    }
}

/// How one perspective sees the pieces: squares XOR `flip` (7 when mirrored), features
/// offset by its king bucket's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    /// What a square is XORed with: 7 when the board is mirrored left to right, else 0.
    pub flip: usize,
    /// The offset of the king bucket's block of features.
    pub offset: usize,
}

impl KingLayout {
    /// The view of a perspective whose own king stands on `king` (seen from its side).
    #[inline]
    pub fn view(&self, king: usize) -> View {
        View {
            flip: if self.mirrored && king % 8 > 3 { 7 } else { 0 },
            offset: usize::from(self.buckets[king]) * INPUTS,
        }
    }

    /// The view of `perspective` on `board`.
    #[inline]
    pub fn board_view(&self, board: &Board, perspective: Color) -> View {
        self.view(relative(perspective, board.king(perspective)))
    }
}

/// `square` seen from `perspective`'s side: itself for White, mirrored top-down for Black.
#[inline]
fn relative(perspective: Color, square: Square) -> usize {
    match perspective {
        Color::White => square as usize,
        Color::Black => square as usize ^ 56,
    }
}

/// The output bucket of a position with `pieces` pieces on the board (kings included) in a
/// net of `buckets` buckets: `(pieces - 2) / ceil(32 / buckets)`, at most `buckets - 1`.
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    crate::nnue::count_bucket(pieces.saturating_sub(2), 32, buckets)
}

/// The output bucket of `board` in a net of `buckets` buckets.
#[inline]
pub fn board_bucket(board: &Board, buckets: usize) -> usize {
    output_bucket(board.occupied().len() as usize, buckets)
}

/// The accumulators of a chess game: a move changes at most 2 features of each kind.
pub type NnueState = crate::nnue::NnueState<2>;

/// Size in bytes of the weights of a net with `hidden` neurons, before padding.
pub fn raw_size(hidden: usize) -> usize {
    crate::nnue::raw_size_of(INPUTS, hidden)
}

/// Size in bytes of the file of a net with `hidden` neurons (padded to 64 bytes).
pub fn file_size(hidden: usize) -> usize {
    crate::nnue::file_size_of(&CHESS768, hidden)
}

impl Network {
    /// A chess network from its quantised parts. Panics if the lengths do not fit
    /// `hidden` (a programming error: files go through [`Network::from_bytes`]).
    pub fn from_parts(
        activation: Activation,
        feature_weights: Vec<i16>,
        feature_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: i16,
    ) -> Network {
        Network::new(
            CHESS768,
            activation,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        )
    }

    /// Reads a chess net file of any chess feature set (see the module documentation for
    /// the layout).
    pub fn load(path: &Path) -> Result<Network, NetworkError> {
        Network::load_among(path, &FEATURE_SETS)
    }

    /// Parses a chess net file's bytes: the size must be that of some hidden size,
    /// unpadded or padded to 64 bytes; the padding must be zeros or cutoff's tag, whose
    /// feature set must be one of chess's.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        Network::from_bytes_among(bytes, &FEATURE_SETS)
    }

    /// The king layout of its feature set.
    #[inline]
    pub fn king_layout(&self) -> &'static KingLayout {
        king_layout(self.features())
    }

    /// Evaluates `board` from scratch (no accumulator kept): the reference for the
    /// incremental updates.
    pub fn evaluate(&self, board: &Board) -> i32 {
        let stm = board.side_to_move();
        let bucket = board_bucket(board, self.buckets());
        let layout = self.king_layout();
        self.evaluate_features(
            board_features(board, stm, layout),
            board_features(board, !stm, layout),
            bucket,
        )
    }

    /// Fills `accumulator` (White's half, then Black's) for `board` from scratch.
    pub fn refresh(&self, board: &Board, accumulator: &mut [i16]) {
        let (white, black) = accumulator.split_at_mut(self.hidden());
        let layout = self.king_layout();
        self.refresh_from(white, board_features(board, Color::White, layout));
        self.refresh_from(black, board_features(board, Color::Black, layout));
    }
}

/// The active features of `board` from `perspective` in `layout`.
fn board_features<'a>(
    board: &'a Board,
    perspective: Color,
    layout: &KingLayout,
) -> impl Iterator<Item = usize> + 'a {
    let view = layout.board_view(board, perspective);
    board.occupied().into_iter().filter_map(move |square| {
        let (piece, color) = (board.piece_on(square)?, board.color_on(square)?);
        Some(feature(perspective, view, color, piece, square))
    })
}

/// The accumulators of `board` computed afresh.
pub fn new_state(net: Arc<Network>, board: &Board) -> NnueState {
    let perspective = |p: usize| if p == 0 { Color::White } else { Color::Black };
    let layout = net.king_layout();
    NnueState::new(net, |p| board_features(board, perspective(p), layout))
}

/// The input feature of a `color` `piece` on `square` seen from `perspective`, whose king
/// gives it `view`.
#[inline]
pub fn feature(
    perspective: Color,
    view: View,
    color: Color,
    piece: Piece,
    square: Square,
) -> usize {
    let relative_colour = usize::from(color != perspective);
    view.offset
        + (relative_colour * 6 + piece as usize) * 64
        + (relative(perspective, square) ^ view.flip)
}

/// The net file built into the binary: `nets/default.nnue` (its provenance is in
/// `nets/README.md`), or the file `CUTOFF_EVALFILE` named at build time (`build.rs`,
/// the `Makefile`'s `EVALFILE=`).
const EMBEDDED_NET: &[u8] = include_bytes!(env!("CUTOFF_CHESS_NET"));

/// The net embedded in the binary, parsed once, then shared by every position and thread;
/// `None` only if the file built in is not a valid net (a unit test rules that out).
pub fn embedded() -> Option<Arc<Network>> {
    static EMBEDDED: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    crate::nnue::embedded_net(
        &EMBEDDED,
        EMBEDDED_NET,
        &FEATURE_SETS,
        std::convert::identity,
    )
}

/// How chess takes a network in the registry: `EvalFile` loads with [`Network::load`].
pub const NET_SUPPORT: NetSupport = NetSupport {
    load: |path| {
        Network::load(path)
            .map(|net| Arc::new(net) as EvalNet)
            .map_err(|e| crate::games::net_error(&e))
    },
    embedded: || embedded().map(|net| net as EvalNet),
    features: &FEATURE_SETS,
};

/// Records on `state` the move `mv`, played from `before` to give `after`: its feature
/// changes, and when the mover's king changes bucket or mirror half, the mover's half
/// refreshed from `after`.
pub fn push_move(state: &mut NnueState, before: &Board, mv: Move, after: &Board) {
    let layout = state.network().king_layout();
    let (delta, refreshed) = changes(before, mv, layout);
    state.push(delta);
    if let Some(perspective) = refreshed {
        state.refresh(
            perspective as usize,
            board_features(after, perspective, layout),
        );
    }
}

/// What `mv` changes on `board` (before it is played) in `layout`: the moved piece, a
/// capture (en passant included), a promotion, castling (king takes own rook in
/// cozy-chess); and the side whose view the move changes (a king moving to another bucket
/// or mirror half), whose half must then be refreshed (its features in the delta are
/// those of its old view).
pub fn changes(board: &Board, mv: Move, layout: &KingLayout) -> (Delta<2>, Option<Color>) {
    let mut delta = Delta::default();
    let us = board.side_to_move();
    let Some(piece) = board.piece_on(mv.from) else {
        return (delta, None);
    };
    let views = [Color::White, Color::Black].map(|p| layout.board_view(board, p));
    let both = |color, piece, square| {
        [Color::White, Color::Black]
            .map(|p| feature(p, views[p as usize], color, piece, square) as u16)
    };
    let refreshed = |king: Square| {
        (piece == Piece::King && layout.view(relative(us, king)) != views[us as usize])
            .then_some(us)
    };
    if piece == Piece::King && board.colors(us).has(mv.to) {
        let rank = mv.from.rank();
        let (king_file, rook_file) = if mv.to.file() > mv.from.file() {
            (File::G, File::F)
        } else {
            (File::C, File::D)
        };
        delta.removed.push(both(us, Piece::King, mv.from));
        delta.removed.push(both(us, Piece::Rook, mv.to));
        let king = Square::new(king_file, rank);
        delta.added.push(both(us, Piece::King, king));
        delta
            .added
            .push(both(us, Piece::Rook, Square::new(rook_file, rank)));
        return (delta, refreshed(king));
    }
    delta.removed.push(both(us, piece, mv.from));
    delta
        .added
        .push(both(us, mv.promotion.unwrap_or(piece), mv.to));
    if board.colors(!us).has(mv.to) {
        if let Some(victim) = board.piece_on(mv.to) {
            delta.removed.push(both(!us, victim, mv.to));
        }
    } else if piece == Piece::Pawn && mv.from.file() != mv.to.file() {
        let victim = Square::new(mv.to.file(), mv.from.rank());
        delta.removed.push(both(!us, Piece::Pawn, victim));
    }
    (delta, refreshed(mv.to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::{screlu_dot, screlu_dot_small};

    /// A random network of `hidden` neurons (weights small enough for i16 accumulators).
    pub(crate) fn random_network(hidden: usize, activation: Activation, seed: u64) -> Network {
        crate::nnue::random_network(CHESS768, hidden, activation, seed)
    }

    /// A random network of `hidden` neurons and `buckets` output heads.
    pub(crate) fn random_bucketed(
        hidden: usize,
        buckets: usize,
        activation: Activation,
        seed: u64,
    ) -> Network {
        crate::nnue::random_bucketed_network(CHESS768, hidden, buckets, activation, seed)
    }

    #[test]
    fn output_buckets_count_the_material() {
        let bucket = |fen: &str, buckets| board_bucket(&fen.parse().unwrap(), buckets);
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let kings = "8/8/4k3/8/8/3K4/8/8 w - - 0 1";
        // Six pieces: (6 - 2) / 4.
        let six = "8/2p5/8/KP5r/8/7k/8/Q7 w - - 0 1";
        assert_eq!(bucket(start, 8), 7);
        assert_eq!(bucket(kings, 8), 0);
        assert_eq!(bucket(six, 8), 1);
        assert_eq!(bucket(start, 1), 0);
        assert_eq!(bucket(start, 4), 3);
        assert_eq!(bucket(six, 4), 0);
        // ceil(32 / 3) = 11 pieces a bucket.
        assert_eq!(bucket(start, 3), 2);
        assert_eq!(output_bucket(13, 3), 1);
        assert_eq!(output_bucket(12, 3), 0);
    }

    #[test]
    fn bucketed_chess_nets_round_trip_and_other_games_refuse_them() {
        for (hidden, buckets) in [(16, 8), (32, 2), (7, 5)] {
            let net = random_bucketed(hidden, buckets, Activation::SCReLU, 2);
            let bytes = net.to_bytes();
            let size = crate::nnue::bucketed_file_size(&CHESS768, hidden, buckets);
            assert_eq!(bytes.len(), size);
            assert_eq!(Network::from_bytes(&bytes), Ok(net.clone()));
            let path = std::env::temp_dir().join(format!(
                "cutoff-bucketed-{}-{hidden}.nnue",
                std::process::id()
            ));
            net.save(&path).expect("written");
            assert_eq!(Network::load(&path), Ok(net));
            let _ = std::fs::remove_file(&path);
            let ataxx = crate::games::ataxx::nnue::ATAXX147;
            let error =
                crate::games::net_error(&Network::from_bytes_for(&bytes, &ataxx).unwrap_err());
            assert!(
                error.contains("a net for Chess768 (chess, 768 inputs)"),
                "{error}"
            );
            // A bad bucket count in the tag is refused, not read as a one-bucket net.
            let mut bad = bytes.clone();
            bad[crate::nnue::bucketed_raw_size(INPUTS, hidden, buckets) + 11] = 0;
            assert_eq!(
                Network::from_bytes(&bad),
                Err(NetworkError::Buckets { found: 0 })
            );
        }
        // An Ataxx net with buckets is no chess net.
        let ataxx = crate::games::ataxx::nnue::ATAXX147;
        let bytes =
            crate::nnue::random_bucketed_network(ataxx, 8, 4, Activation::CReLU, 1).to_bytes();
        let error = Network::from_bytes(&bytes).unwrap_err();
        assert!(
            matches!(error, NetworkError::WrongFeatures { .. }),
            "{error}"
        );
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
            assert_eq!(raw.feature_weights(), net.feature_weights());
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
            assert!(
                matches!(Network::from_bytes(&cut), Err(NetworkError::Size { len: l, .. }) if l == len),
                "{len}"
            );
        }
        let mut garbage = bytes.clone();
        let last = garbage.len() - 1;
        garbage[last] = 7;
        assert_eq!(Network::from_bytes(&garbage), Err(NetworkError::Padding));
        let mut activation = bytes;
        activation[raw_size(64) + b"cutoff".len() + 1] = 9;
        assert_eq!(Network::from_bytes(&activation), Err(NetworkError::Padding));
        let missing = Network::load(Path::new("/nonexistent/net.nnue"));
        assert!(matches!(missing, Err(NetworkError::Io { .. })));
        assert!(missing.unwrap_err().to_string().contains("/nonexistent"));
    }

    #[test]
    fn features_are_numbered_as_bullet_numbers_them() {
        // The hand-computed indices of a white pawn on e2: White sees its own pawn on e2,
        // Black an opponent's pawn on e7.
        let plain = PLAIN.view(4);
        assert_eq!(
            feature(Color::White, plain, Color::White, Piece::Pawn, Square::E2),
            12
        );
        assert_eq!(
            feature(Color::Black, plain, Color::White, Piece::Pawn, Square::E2),
            384 + 52
        );
        assert_eq!(
            feature(Color::Black, plain, Color::Black, Piece::King, Square::E8),
            5 * 64 + 4
        );
        // Mirrored: a king on e1 (file 4) flips the board, so e2 is seen as d2; the
        // bucket of a king on its second rank is 2.
        let mirrored = MIRRORED_BUCKETS4.view(4);
        assert_eq!(
            mirrored,
            View {
                flip: 7,
                offset: INPUTS
            }
        );
        assert_eq!(
            feature(
                Color::White,
                mirrored,
                Color::White,
                Piece::Pawn,
                Square::E2
            ),
            INPUTS + 11
        );
        let second_rank = MIRRORED_BUCKETS4.view(Square::B2 as usize);
        assert_eq!(
            second_rank,
            View {
                flip: 0,
                offset: 2 * INPUTS
            }
        );
        assert_eq!(
            MIRRORED.view(Square::H8 as usize),
            View { flip: 7, offset: 0 }
        );
    }

    #[test]
    fn mirrored_nets_evaluate_left_right_mirrored_positions_alike() {
        // Positions without castling rights, and the same mirrored file by file.
        let pairs = [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1",
                "r2k3r/1bpqpp1p/1pnp2nb/3NP3/3P2p1/p1Q2N2/PPPBBPPP/R2K3R w - - 0 1",
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                "8/5p2/4p3/r5PK/k1p3R1/8/1P1P4/8 w - - 0 1",
            ),
        ];
        for set in &FEATURE_SETS[1..] {
            let net = crate::nnue::random_bucketed_network(*set, 16, 8, Activation::SCReLU, 5);
            for (fen, mirrored) in pairs {
                let (a, b): (Board, Board) = (fen.parse().unwrap(), mirrored.parse().unwrap());
                assert_eq!(net.evaluate(&a), net.evaluate(&b), "{set:?} {fen}");
            }
        }
        // The plain set tells them apart.
        let net = random_network(16, Activation::SCReLU, 5);
        let (a, b): (Board, Board) = (pairs[0].0.parse().unwrap(), pairs[0].1.parse().unwrap());
        assert_ne!(net.evaluate(&a), net.evaluate(&b));
    }

    #[test]
    fn a_net_of_any_chess_feature_set_can_be_built_in() {
        static CELL: OnceLock<Option<Arc<Network>>> = OnceLock::new();
        let net =
            crate::nnue::random_bucketed_network(CHESS768_MIRRORED, 8, 8, Activation::SCReLU, 7);
        let built_in = crate::nnue::embedded_net(
            &CELL,
            &net.to_bytes(),
            &FEATURE_SETS,
            std::convert::identity,
        );
        assert_eq!(built_in.as_deref(), Some(&net));
    }

    #[test]
    fn chess_loads_nets_of_every_chess_feature_set_and_ataxx_refuses_them() {
        for set in FEATURE_SETS {
            let net = crate::nnue::random_bucketed_network(set, 8, 2, Activation::SCReLU, 6);
            let bytes = net.to_bytes();
            assert_eq!(Network::from_bytes(&bytes), Ok(net.clone()), "{set:?}");
            let ataxx = crate::games::ataxx::nnue::ATAXX147;
            let error =
                crate::games::net_error(&Network::from_bytes_for(&bytes, &ataxx).unwrap_err());
            assert!(
                error.contains(&format!("a net for {}", set.name)),
                "{error}"
            );
        }
        let ataxx = crate::nnue::random_network(
            crate::games::ataxx::nnue::ATAXX147,
            8,
            Activation::SCReLU,
            1,
        );
        let error = crate::games::net_error(&Network::from_bytes(&ataxx.to_bytes()).unwrap_err());
        assert!(
            error.contains("a net for Ataxx147 (ataxx, 147 inputs), expected one for Chess768 (chess, 768 inputs)"),
            "{error}"
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
                i64::from(screlu_dot_small(&accumulator, &weights)),
                screlu_dot(&accumulator, &weights)
            );
        }
        // A net with a big output weight takes the exact path.
        let mut net = random_network(8, Activation::SCReLU, 1);
        assert!(net.small_output());
        let mut output_weights = net.output_weights().to_vec();
        output_weights[0] = 1000;
        net = Network::from_parts(
            net.activation(),
            net.feature_weights().to_vec(),
            net.feature_bias().to_vec(),
            output_weights,
            net.output_bias()[0],
        );
        assert!(!net.small_output());
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
    use super::tests::{random_bucketed, random_network};
    use super::*;
    use crate::games::chess::{Chess, ChessVariant};
    use crate::search::{MoveList, Rules, SearchHooks};

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
    fn random_games(chess960: bool, fens: &[&str], seed: u64, buckets: usize) -> [usize; 4] {
        let net = Arc::new(random_bucketed(16, buckets, Activation::SCReLU, seed));
        random_games_with(net, chess960, fens, seed)
    }

    /// [`random_games`] with `net`.
    fn random_games_with(
        net: Arc<Network>,
        chess960: bool,
        fens: &[&str],
        seed: u64,
    ) -> [usize; 4] {
        let variant = ChessVariant {
            chess960,
            net: Some(net),
            tablebases: None,
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
            1,
        );
        assert!(seen[0] > 0, "Chess960 castling: {seen:?}");
    }

    #[test]
    fn incremental_evaluation_with_output_buckets_matches_a_full_refresh() {
        // From the full board (bucket 7 of 8) down to few pieces (bucket 2, then 1 and 0
        // as random games take the rest).
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ];
        let buckets: Vec<usize> = fens
            .iter()
            .map(|fen| board_bucket(&fen.parse().unwrap(), 8))
            .collect();
        assert_eq!(buckets, [7, 7, 2, 2]);
        for (buckets, seed) in [(8, 3), (3, 4)] {
            let seen = random_games(false, &fens, seed, buckets);
            assert!(seen[3] > 0, "captures: {seen:?}");
        }
    }

    #[test]
    fn mirrored_and_king_bucketed_accumulators_match_a_full_refresh() {
        // Kings that castle both ways, walk across the centre files and up the board.
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        ];
        for (set, seed) in [(CHESS768_MIRRORED, 11), (CHESS_BUCKETS4_MIRRORED, 12)] {
            let net = crate::nnue::random_bucketed_network(set, 16, 4, Activation::SCReLU, seed);
            let seen = random_games_with(Arc::new(net), false, &fens, seed);
            assert!(seen[0] > 0 && seen[3] > 0, "{set:?}: {seen:?}");
        }
        let chess960 = ["rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1"];
        let net = crate::nnue::random_network(CHESS_BUCKETS4_MIRRORED, 16, Activation::CReLU, 13);
        random_games_with(Arc::new(net), true, &chess960, 13);
    }

    #[test]
    fn king_moves_across_the_centre_refresh_the_movers_half_only() {
        let net = Arc::new(crate::nnue::random_network(
            CHESS768_MIRRORED,
            8,
            Activation::SCReLU,
            14,
        ));
        let variant = ChessVariant {
            chess960: false,
            net: Some(net),
            tablebases: None,
        };
        let mut game = Chess::from_fen(&variant, "4k3/8/8/8/8/8/8/3K4 w - - 0 1").unwrap();
        // Kd1-e1 crosses into the mirrored half: White's half is computed at once.
        let mv = game.parse_move("d1e1").unwrap();
        game.make_move(mv);
        assert_eq!(game.nnue().unwrap().pending(), 1);
        check(&mut game, "after the crossing");
        // Ke8-d8 crosses back for Black; Ke1-f1 stays in its half (lazy: two pending).
        for text in ["e8d8", "e1f1"] {
            let mv = game.parse_move(text).unwrap();
            game.make_move(mv);
        }
        assert_eq!(game.nnue().unwrap().pending(), 2);
        check(&mut game, "two plies later");
    }

    /// Plies whose accumulators wait to be computed.
    fn pending(game: &Chess) -> usize {
        game.nnue().expect("a net evaluates").pending()
    }

    #[test]
    fn lazy_accumulators_match_a_full_refresh_after_unevaluated_plies() {
        let net = Arc::new(random_network(16, Activation::SCReLU, 7));
        let variant = ChessVariant {
            chess960: false,
            net: Some(net),
            tablebases: None,
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
            tablebases: None,
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
            tablebases: None,
        });
        assert!(plain.nnue().is_none());
    }
}
