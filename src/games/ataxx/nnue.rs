//! Ataxx's NNUE inputs for the generic network of [`crate::nnue`]: `Ataxx147` (one input
//! per square and state), `Ataxx2x2` (one per state of each 2x2 window of the board) and
//! their union `Ataxx2x2Plus147`.
//!
//! # Inputs
//!
//! `Ataxx147`: three planes of 49 squares per perspective, as bullet's `Ataxx147` lays them
//! out: the perspective's own stones (`square`), the other side's stones (`49 + square`) and
//! the gaps (`98 + square`), with `square = 7 * rank + file` (`a1` is 0) and no mirroring.
//! Perspective 0 is `x`'s, 1 is `o`'s; the side to move's accumulator goes first into the
//! output layer, so a bullet `AtaxxBoard` record (stones relative to the side to move) maps
//! its side to move's stones to plane 0 of the first accumulator and plane 1 of the other.
//!
//! `Ataxx2x2`: the 36 2x2 windows of the board ([`WINDOWS_2X2`], window `w` has its lower
//! left cell on rank `w / 6`, file `w % 6`, its cells in the order a1, b1, a2, b2 of that
//! square), 3 states a cell from a perspective (0 empty or gap, 1 own stone, 2 the other
//! side's): input `81 · w + Σ state_i · 3^i`, 2,916 inputs, 36 active in each perspective
//! ([`crate::nnue::pattern`]). Gaps read as empty: they never change during a game, so the
//! union set, `Ataxx2x2Plus147`, adds `Ataxx147`'s inputs after the patterns' (`2916 +
//! feature`), gap planes included.
//!
//! # Incremental changes
//!
//! A single adds the mover's stone on its destination; a double also removes it from its
//! origin; each captured stone (at most 8) is removed from the other side's plane and added
//! to the mover's. A pass changes nothing. So a move adds at most 9 `Ataxx147` features and
//! removes at most 9 in each perspective. In the pattern sets it changes the windows that
//! hold one of these cells: those around the destination's 3x3 square (at most 16) and the
//! origin's (4), so at most 20 added and 20 removed, 29 with the union's per-square inputs
//! ([`MAX_CHANGES`]): [`AtaxxNnue`] holds them without refreshing.
//!
//! The engine evaluates an `Ataxx2x2Plus147` net [`fold`]ed ([`ATAXX2X2_FOLDED147`]): each
//! cell's own and other stone weights added to the rows of one window holding it, so a
//! move changes only window rows (at most 20 added and 20 removed) and the gaps' rows stay
//! active; the accumulators are the same bit for bit.
//!
//! # Output buckets
//!
//! A net of B output buckets evaluates a position with `n` stones on the board by head
//! `n / ceil(49 / B)`, at most `B - 1` ([`output_bucket`]); the built-in net has one.
//!
//! # Net files
//!
//! Version-2 (or, with buckets, version-3) tagged files of feature set id 1 (147 inputs),
//! 4 (2,916) or 5 (3,063) (`cutoff train --game ataxx [--features NAME]` writes them); a
//! chess net, or a net of another size, is refused with an error that says what it is.
//! `nets/ataxx.nnue` is built into the binary ([`embedded`]) and evaluates Ataxx unless
//! `EvalFile` names another net or `UseNNUE` is off (its provenance is in
//! `nets/README.md`).

use std::sync::{Arc, OnceLock};

use arrayvec::ArrayVec;

use crate::games::{EvalNet, NetSupport};
use crate::nnue::{Delta, FeatureSet, Network, NnueState, Patterns};

/// Squares on the board.
pub const CELLS: usize = 49;

/// bullet's `Ataxx147`: own stones, other stones, gaps.
pub const ATAXX147: FeatureSet = FeatureSet {
    id: 1,
    name: "Ataxx147",
    inputs: 3 * CELLS,
    max_active: CELLS,
    factor: 0,
};

/// The 36 2x2 windows of the board, 3 states a cell (empty or gap, own, other).
pub const WINDOWS_2X2: Patterns<4, 36> = Patterns::rectangles((7, 7), (2, 2), 3);

/// The inputs of the 2x2 patterns: 36 windows of 3^4 states.
pub const PATTERN_INPUTS: usize = WINDOWS_2X2.inputs();

/// One input per state of each 2x2 window.
pub const ATAXX2X2: FeatureSet = FeatureSet {
    id: 4,
    name: "Ataxx2x2",
    inputs: PATTERN_INPUTS,
    max_active: 36,
    factor: 0,
};

/// `Ataxx2x2`'s inputs, then `Ataxx147`'s.
pub const ATAXX2X2_PLUS147: FeatureSet = FeatureSet {
    id: 5,
    name: "Ataxx2x2Plus147",
    inputs: PATTERN_INPUTS + 3 * CELLS,
    max_active: 36 + CELLS,
    factor: 0,
};

/// `Ataxx2x2Plus147` as the engine evaluates it ([`fold`]): the per-square stone inputs'
/// weights added to the rows of the 2x2 windows, so that only the window inputs and the
/// gaps' are active. Never in a file (its id is no file's).
pub const ATAXX2X2_FOLDED147: FeatureSet = FeatureSet {
    id: 0xF5,
    ..ATAXX2X2_PLUS147
};

/// Every feature set an Ataxx net may have, the default (`Ataxx147`) first.
pub const FEATURE_SETS: [FeatureSet; 3] = [ATAXX147, ATAXX2X2, ATAXX2X2_PLUS147];

/// The most features active at once in a perspective, in any of [`FEATURE_SETS`].
pub const MAX_ACTIVE: usize = 36 + CELLS;

/// The most features one move adds (or removes) in a perspective: the destination (or the
/// origin of a double) and 8 captured stones in the per-square inputs, the 20 windows
/// around them in the patterns.
pub const MAX_CHANGES: usize = 29;

/// The accumulators of an Ataxx game.
pub type AtaxxNnue = NnueState<MAX_CHANGES>;

/// What a feature set is made of: 2x2 patterns (at input 0) and per-square inputs (at an
/// offset).
#[derive(Clone, Copy)]
struct Parts {
    /// Whether the 2x2 patterns are inputs `0..PATTERN_INPUTS`.
    patterns: bool,
    /// Where `Ataxx147`'s inputs start, if the set has them.
    per_square: Option<usize>,
    /// Whether the per-square stone inputs are active (not folded into the windows').
    stones: bool,
}

/// The parts of one of [`FEATURE_SETS`] (any other reads as `Ataxx147`).
#[inline]
fn parts(set: &FeatureSet) -> Parts {
    match set.id {
        4 => Parts {
            patterns: true,
            per_square: None,
            stones: false,
        },
        5 => Parts {
            patterns: true,
            per_square: Some(PATTERN_INPUTS),
            stones: true,
        },
        0xF5 => Parts {
            patterns: true,
            per_square: Some(PATTERN_INPUTS),
            stones: false,
        },
        _ => Parts {
            patterns: false,
            per_square: Some(0),
            stones: true,
        },
    }
}

/// The feature of a stone of `owner` (0 `x`, 1 `o`) on `square` seen from `perspective`.
#[inline]
pub fn stone_feature(perspective: usize, owner: usize, square: usize) -> usize {
    usize::from(owner != perspective) * CELLS + square
}

/// The feature of a gap on `square` (the same from both perspectives).
#[inline]
pub fn gap_feature(square: usize) -> usize {
    2 * CELLS + square
}

/// The state of `cell` in a 2x2 pattern seen from `perspective` on a board with `stones`
/// (`x`'s, `o`'s): 0 empty or gap, 1 own stone, 2 the other side's.
#[inline]
pub fn cell_state(stones: [u64; 2], perspective: usize, cell: usize) -> usize {
    let own = (stones[perspective] >> cell) & 1;
    let other = (stones[1 - perspective] >> cell) & 1;
    (own | other << 1) as usize
}

/// The squares of a bitboard.
fn squares(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let square = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            square
        })
    })
}

/// The active `Ataxx147` features from `perspective` of a board with `stones` (`x`'s,
/// `o`'s) and `gaps`.
pub fn active147(stones: [u64; 2], gaps: u64, perspective: usize) -> impl Iterator<Item = usize> {
    let own = squares(stones[perspective]);
    let other = squares(stones[1 - perspective]).map(|sq| CELLS + sq);
    own.chain(other).chain(squares(gaps).map(gap_feature))
}

/// The active features of `set` (one of [`FEATURE_SETS`]) from `perspective` of a board
/// with `stones` (`x`'s, `o`'s) and `gaps`: the patterns' in window order, then the
/// per-square ones.
pub fn active(
    set: &FeatureSet,
    stones: [u64; 2],
    gaps: u64,
    perspective: usize,
) -> ArrayVec<usize, MAX_ACTIVE> {
    let parts = parts(set);
    let mut features = ArrayVec::new();
    if parts.patterns {
        let (own, other) = (stones[perspective], stones[1 - perspective]);
        features.extend((0..36).map(|w| WINDOWS_2X2.planes_index(w, own, other)));
    }
    match parts.per_square {
        Some(offset) if parts.stones => {
            features.extend(active147(stones, gaps, perspective).map(|f| offset + f));
        }
        Some(offset) => features.extend(squares(gaps).map(|sq| offset + gap_feature(sq))),
        None => {}
    }
    features
}

/// The window whose rows carry `cell`'s folded per-square weights: the first that holds it.
fn home_window(cell: usize) -> usize {
    (0..36)
        .find(|&w| WINDOWS_2X2.window(w).contains(&(cell as u8)))
        .expect("every cell is in a window")
}

/// `net` as the engine evaluates it: an `Ataxx2x2Plus147` net becomes an
/// [`ATAXX2X2_FOLDED147`] one, each cell's own and other stone rows added (wrapping, as the
/// accumulator adds) to the rows of its `home_window` where the cell has that state, so a
/// move updates only window rows and the same accumulators come out bit for bit (`i16`
/// sums wrap: any order of the same additions gives the same values). Other nets are kept.
pub fn fold(net: Network) -> Network {
    if net.features().id != ATAXX2X2_PLUS147.id {
        return net;
    }
    let hidden = net.hidden();
    let home: [usize; CELLS] = std::array::from_fn(home_window);
    let mut weights = net.feature_weights().to_vec();
    for w in 0..36 {
        let cells = WINDOWS_2X2.window(w);
        for state in 0..81 {
            let row = (81 * w + state) * hidden;
            for (i, &cell) in cells.iter().enumerate() {
                let cell = usize::from(cell);
                let cell_state = state / 3usize.pow(i as u32) % 3;
                if home[cell] != w || cell_state == 0 {
                    continue;
                }
                let source = PATTERN_INPUTS + (cell_state - 1) * CELLS + cell;
                for k in 0..hidden {
                    let add = net.feature_weights()[source * hidden + k];
                    weights[row + k] = weights[row + k].wrapping_add(add);
                }
            }
        }
    }
    Network::bucketed(
        ATAXX2X2_FOLDED147,
        net.activation(),
        weights,
        net.feature_bias().to_vec(),
        net.output_weights().to_vec(),
        net.output_bias().to_vec(),
    )
}

/// The accumulators of a position computed afresh.
pub fn new_state(net: Arc<Network>, stones: [u64; 2], gaps: u64) -> AtaxxNnue {
    let set = *net.features();
    NnueState::new(net, |perspective| active(&set, stones, gaps, perspective))
}

/// Writes into `delta` (empty) what a move of `mover` on a board of `stones` (before the
/// move) changes in the inputs of `set`: a stone placed on `to`, one lifted from `from`
/// for a double, the `captured` stones turned; in place ([`NnueState::push_with`]).
#[inline]
pub fn fill_delta(
    set: &FeatureSet,
    stones: [u64; 2],
    mover: usize,
    (to, from): (usize, Option<usize>),
    captured: u64,
    delta: &mut Delta<MAX_CHANGES>,
) {
    let parts = parts(set);
    if let (Some(offset), true) = (parts.per_square, parts.stones) {
        let both =
            |owner, square| [0, 1].map(|p| (offset + stone_feature(p, owner, square)) as u16);
        delta.added.push(both(mover, to));
        if let Some(from) = from {
            delta.removed.push(both(mover, from));
        }
        for square in squares(captured) {
            delta.removed.push(both(1 - mover, square));
            delta.added.push(both(mover, square));
        }
    }
    if parts.patterns {
        let lifted = from.map_or(0, |from| 1u64 << from);
        let mut after = stones;
        after[mover] = (after[mover] | 1 << to | captured) & !lifted;
        after[1 - mover] &= !captured;
        let changed = WINDOWS_2X2.windows_of(1 << to | captured | lifted);
        WINDOWS_2X2.push_plane_changes(changed, 0, (stones, after), delta);
    }
}

/// The output bucket of a board with `stones` (`x`'s, `o`'s) in a net of `buckets`
/// buckets: the stones on the board over `ceil(49 / buckets)`, at most `buckets - 1`.
#[inline]
pub fn output_bucket(stones: [u64; 2], buckets: usize) -> usize {
    let count = (stones[0] | stones[1]).count_ones() as usize;
    crate::nnue::count_bucket(count, CELLS, buckets)
}

/// The Ataxx net file built into the binary: `nets/ataxx.nnue` (its provenance is in
/// `nets/README.md`).
const EMBEDDED_NET: &[u8] = include_bytes!("../../../nets/ataxx.nnue");

/// The Ataxx net embedded in the binary, parsed once, then shared by every position and
/// thread; `None` only if the file built in is not a valid net of one of [`FEATURE_SETS`] (a unit test
/// rules that out).
/// An `Ataxx2x2Plus147` net comes [`fold`]ed.
pub fn embedded() -> Option<Arc<Network>> {
    static EMBEDDED: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    crate::nnue::embedded_net(&EMBEDDED, EMBEDDED_NET, &FEATURE_SETS, fold)
}

/// Whether `set` is one the engine evaluates Ataxx with: one of [`FEATURE_SETS`] or
/// [`ATAXX2X2_FOLDED147`].
pub fn evaluates_with(set: &FeatureSet) -> bool {
    FEATURE_SETS.contains(set) || *set == ATAXX2X2_FOLDED147
}

/// How Ataxx takes a network in the registry: `EvalFile` loads a net of one of
/// [`FEATURE_SETS`] ([`fold`]ed); the built-in one is [`embedded`].
pub const NET_SUPPORT: NetSupport = NetSupport {
    load: |path| {
        Network::load_among(path, &FEATURE_SETS)
            .map(|net| Arc::new(fold(net)) as EvalNet)
            .map_err(|e| crate::games::net_error(&e))
    },
    embedded: || embedded().map(|net| net as EvalNet),
    features: &FEATURE_SETS,
};

/// Ataxx positions for tests of code built on the net (this module's and the trainer's):
/// gaps, crowded boards (captures of many stones), and one where a side must pass.
pub const SAMPLE_FENS: &[&str] = &[
    "x5o/7/7/7/7/7/o5x x 0 1",
    "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
    "x5o/7/3-3/2-1-2/3-3/7/o5x o 0 1",
    "xxxxooo/xooooxo/ox1o1xo/o-xxx-o/xoo1oox/ooxxoxo/x5o x 0 1",
    "7/7/7/7/ooooooo/ooooooo/xxxxxxx o 0 1",
    "x6/7/2-----/2-ooo-/2-ooo-/2-----/7 o 0 1",
    "x-o4/--o4/ooo4/7/7/7/7 x 0 1",
];

#[cfg(test)]
mod tests {
    use super::SAMPLE_FENS as FENS;
    use super::*;
    use crate::games::ataxx::{Ataxx, AtaxxMove, AtaxxVariant};
    use crate::nnue::{random_bucketed_network, random_network, Activation, NetworkError};
    use crate::search::{MoveList, Rules, SearchHooks};

    /// Checks the incremental accumulator of `game`, brought up to date, against a full
    /// refresh, and its evaluation before and after.
    fn check(game: &mut Ataxx, what: &str) {
        let before = game.evaluate();
        let eval = game.evaluate_mut();
        let state = game.nnue().expect("a net evaluates");
        let net = state.network();
        let mut fresh = vec![0; 2 * net.hidden()];
        let (first, second) = fresh.split_at_mut(net.hidden());
        let set = net.features();
        net.refresh_from(first, active(set, game.stones, game.gaps, 0));
        net.refresh_from(second, active(set, game.stones, game.gaps, 1));
        assert_eq!(
            state.current(),
            Some(&fresh[..]),
            "{what}: {}",
            game.to_fen()
        );
        assert_eq!(Some(eval), game.evaluate_net_from_scratch(), "{what}");
        assert_eq!(before, eval, "{what}");
    }

    /// Plays random games (captures preferred half the time), checking the accumulators
    /// after moves, null moves and unmakes, sometimes after several unevaluated plies.
    /// Returns how many passes, doubles and multi-stone captures were played.
    fn random_games(net: Arc<Network>, seed: u64) -> [usize; 3] {
        let variant = AtaxxVariant { net: Some(net) };
        let mut rng = crate::rng::SplitMix::new(seed);
        let mut seen = [0; 3];
        for fen in FENS {
            for _ in 0..6 {
                let mut game = Ataxx::from_fen(&variant, fen).expect("test FEN");
                check(&mut game, "root");
                let mut played: Vec<AtaxxMove> = Vec::new();
                for _ in 0..150 {
                    let mut moves = MoveList::new();
                    game.generate_moves(&mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    let taking: Vec<AtaxxMove> = moves
                        .iter()
                        .copied()
                        .filter(|&m| game.captures(m).count_ones() >= 2)
                        .collect();
                    let mv = if !taking.is_empty() && rng.below(2) == 0 {
                        taking[rng.below(taking.len())]
                    } else {
                        moves[rng.below(moves.len())]
                    };
                    seen[0] += usize::from(mv.is_pass());
                    seen[1] += usize::from(mv.is_double());
                    seen[2] += usize::from(game.captures(mv).count_ones() >= 2);
                    game.make_move(mv);
                    played.push(mv);
                    if rng.below(3) > 0 {
                        check(&mut game, "make");
                    }
                    if game.null_move_allowed() && rng.below(8) == 0 {
                        game.make_null();
                        check(&mut game, "null");
                        game.unmake_null();
                    }
                    if rng.below(6) == 0 {
                        let last = played.pop().expect("a move");
                        game.unmake_move(last);
                        check(&mut game, "unmake");
                    }
                }
                while let Some(mv) = played.pop() {
                    game.unmake_move(mv);
                }
                check(&mut game, "back at the root");
                assert_eq!(game.nnue().map(AtaxxNnue::positions), Some(1));
            }
        }
        seen
    }

    #[test]
    fn incremental_accumulators_match_a_full_refresh() {
        for (hidden, buckets, activation, seed) in [
            (16, 1, Activation::SCReLU, 1),
            (8, 1, Activation::CReLU, 2),
            (8, 4, Activation::SCReLU, 3),
        ] {
            let net = random_bucketed_network(ATAXX147, hidden, buckets, activation, seed);
            let net = Arc::new(net);
            let seen = random_games(net, seed);
            assert!(
                seen.iter().all(|&n| n > 0),
                "passes, doubles, captures: {seen:?}"
            );
        }
    }

    #[test]
    fn pattern_accumulators_match_a_full_refresh() {
        for (set, hidden, buckets, seed) in [
            (ATAXX2X2, 8, 1, 4),
            (ATAXX2X2_PLUS147, 8, 1, 5),
            (ATAXX2X2_PLUS147, 4, 3, 6),
        ] {
            let net = random_bucketed_network(set, hidden, buckets, Activation::SCReLU, seed);
            let seen = random_games(Arc::new(net), seed);
            assert!(
                seen.iter().all(|&n| n > 0),
                "passes, doubles, captures: {seen:?}"
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8))]

        /// Random games of every feature set (the seed picks the moves): the incremental
        /// accumulators always equal a refresh.
        #[test]
        fn incremental_equals_refresh_on_random_games(seed in 0u64..1 << 40, which in 0usize..3) {
            let net = random_network(FEATURE_SETS[which], 4, Activation::SCReLU, seed);
            random_games(Arc::new(net), seed);
        }
    }

    #[test]
    fn pattern_features_are_the_window_states() {
        // x on a1 and b2, o on b1, a gap on a2: window 0 (a1, b1, a2, b2) from x's side is
        // own, other, empty, own: 1 + 2·3 + 0·9 + 1·27; from o's: 2 + 1·3 + 2·27.
        let stones = [1 | 1 << 8, 1 << 1];
        let gaps = 1 << 7;
        let x = active(&ATAXX2X2, stones, gaps, 0);
        let o = active(&ATAXX2X2, stones, gaps, 1);
        assert_eq!((x.len(), o.len()), (36, 36));
        assert_eq!((x[0], o[0]), (1 + 6 + 27, 2 + 3 + 54));
        // Window 1 (b1, c1, b2, c2): other, empty, own, empty from x's side.
        assert_eq!(x[1], 81 + 2 + 9);
        // Window 35 (f6, g6, f7, g7) is empty.
        assert_eq!(x[35], 35 * 81);
        let union = active(&ATAXX2X2_PLUS147, stones, gaps, 0);
        assert_eq!(&union[..36], &x[..]);
        let per_square: Vec<usize> = active147(stones, gaps, 0).map(|f| 2916 + f).collect();
        assert_eq!(&union[36..], &per_square[..]);
        assert!(FEATURE_SETS.iter().all(|set| set.inputs <= 3063));
        assert_eq!(ATAXX2X2_PLUS147.inputs, 3063);
    }

    #[test]
    fn output_buckets_count_the_stones() {
        let start = Ataxx::from_fen(&AtaxxVariant::default(), FENS[0]).expect("test FEN");
        // 4 stones: bucket 0 of 4 (13 stones a bucket); a full board: the last.
        assert_eq!(output_bucket(start.stones(), 4), 0);
        assert_eq!(output_bucket([u64::MAX >> 15, 0], 4), 3);
        assert_eq!(output_bucket([0b1111, 0], 1), 0);
    }

    #[test]
    fn net_files_round_trip_and_other_games_nets_are_refused() {
        for (hidden, activation) in [(32, Activation::SCReLU), (7, Activation::CReLU)] {
            let net = random_network(ATAXX147, hidden, activation, 5);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len() % 64, 0);
            assert_eq!(Network::from_bytes_for(&bytes, &ATAXX147), Ok(net));
            // An Ataxx net is no chess net.
            let chess = crate::games::chess::nnue::Network::from_bytes(&bytes);
            let Err(error @ NetworkError::WrongFeatures { found_id, .. }) = chess else {
                panic!("an Ataxx net read as chess: {chess:?}");
            };
            assert_eq!(found_id, ATAXX147.id);
            let error = crate::games::net_error(&error);
            assert!(error.contains("Ataxx147") && error.contains("expected one for Chess768"));
        }
        // A chess net is no Ataxx net.
        let chess = crate::games::chess::nnue::CHESS768;
        let bytes = random_network(chess, 16, Activation::SCReLU, 6).to_bytes();
        let error =
            crate::games::net_error(&Network::from_bytes_for(&bytes, &ATAXX147).unwrap_err());
        assert!(error.contains("Chess768"), "{error}");
        assert!(error.contains("expected one for Ataxx147"), "{error}");
        // A wrong size names the layout expected.
        let mut cut = random_network(ATAXX147, 16, Activation::SCReLU, 7).to_bytes();
        cut.truncate(1000);
        let error = Network::from_bytes_for(&cut, &ATAXX147).unwrap_err();
        assert!(matches!(
            error,
            NetworkError::Size {
                len: 1000,
                inputs: 147,
                ..
            }
        ));
        assert!(error.to_string().contains("(147 -> N)x2 -> 1"), "{error}");
        // Pattern nets load as themselves; a net of a set that is no Ataxx one is refused.
        for set in [ATAXX2X2, ATAXX2X2_PLUS147] {
            let net = random_network(set, 8, Activation::SCReLU, 8);
            let loaded = Network::from_bytes_among(&net.to_bytes(), &FEATURE_SETS);
            assert_eq!(loaded.as_ref().map(|n| *n.features()), Ok(set));
            let error = Network::from_bytes_for(&net.to_bytes(), &ATAXX147).unwrap_err();
            let error = crate::games::net_error(&error);
            let expected = format!("this is a net for {} (ataxx, {} inputs), expected one for Ataxx147 (ataxx, 147 inputs)", set.name, set.inputs);
            assert_eq!(error, expected);
        }
        let bytes = random_network(chess, 16, Activation::SCReLU, 6).to_bytes();
        let error = Network::from_bytes_among(&bytes, &FEATURE_SETS).unwrap_err();
        assert!(crate::games::net_error(&error).contains("expected one for Ataxx147"));
    }

    /// Plays the same random moves with a net and its [`fold`]: the accumulators and
    /// evaluations are the same after every move and unmake.
    fn same_as_folded(net: Network, seed: u64) {
        let folded = fold(net.clone());
        assert_eq!(*folded.features(), ATAXX2X2_FOLDED147);
        let [plain, folded] = [net, folded].map(|net| AtaxxVariant {
            net: Some(Arc::new(net)),
        });
        let mut rng = crate::rng::SplitMix::new(seed);
        for fen in FENS {
            for _ in 0..4 {
                let mut games = [&plain, &folded].map(|v| Ataxx::from_fen(v, fen).expect("FEN"));
                let mut played = Vec::new();
                for _ in 0..120 {
                    let evals = games.each_mut().map(|g| g.evaluate_mut());
                    assert_eq!(evals[0], evals[1], "{}", games[0].to_fen());
                    let halves = games.each_ref().map(|g| g.nnue().unwrap().current());
                    assert_eq!(halves[0], halves[1], "{}", games[0].to_fen());
                    assert_eq!(games[1].evaluate_net_from_scratch(), Some(evals[0]));
                    let mut moves = MoveList::new();
                    games[0].generate_moves(&mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    if !played.is_empty() && rng.below(5) == 0 {
                        let last = played.pop().expect("a move");
                        games.iter_mut().for_each(|g| g.unmake_move(last));
                        continue;
                    }
                    let mv = moves[rng.below(moves.len())];
                    games.iter_mut().for_each(|g| g.make_move(mv));
                    played.push(mv);
                }
            }
        }
    }

    #[test]
    fn folded_nets_evaluate_bit_for_bit_as_the_unfolded() {
        // Random weights over the whole i16 range make the folded rows' sums wrap.
        let mut rng = crate::rng::SplitMix::new(11);
        let mut wide = random_network(ATAXX2X2_PLUS147, 16, Activation::SCReLU, 11);
        let weights: Vec<i16> = (0..wide.feature_weights().len())
            .map(|_| rng.next_u64() as i16)
            .collect();
        wide = Network::new(
            ATAXX2X2_PLUS147,
            Activation::SCReLU,
            weights,
            wide.feature_bias().to_vec(),
            wide.output_weights().to_vec(),
            wide.output_bias()[0],
        );
        same_as_folded(wide, 1);
        same_as_folded(
            random_network(ATAXX2X2_PLUS147, 8, Activation::CReLU, 12),
            2,
        );
        let built_in = Network::from_bytes_among(EMBEDDED_NET, &FEATURE_SETS).unwrap();
        same_as_folded(built_in, 3);
        // The folded net's own incremental updates match its refreshes; other sets stay.
        let folded = fold(random_network(ATAXX2X2_PLUS147, 8, Activation::SCReLU, 13));
        random_games(Arc::new(folded), 13);
        for set in [ATAXX147, ATAXX2X2] {
            let net = random_network(set, 8, Activation::SCReLU, 14);
            assert_eq!(fold(net.clone()), net);
        }
    }

    #[test]
    fn the_embedded_net_is_valid_and_the_default() {
        let net = embedded().expect("nets/ataxx.nnue is a valid Ataxx2x2Plus147 net");
        assert_eq!(*net.features(), ATAXX2X2_FOLDED147);
        let start = Ataxx::start(&AtaxxVariant::default());
        assert!(start.nnue().is_some());
        assert_eq!(start.evaluate(), start.evaluate_net_from_scratch().unwrap());
        let settings = crate::games::VariantSettings::default();
        assert_eq!(
            AtaxxVariant::from_settings(&settings),
            AtaxxVariant::default()
        );
    }

    #[test]
    fn without_a_net_the_evaluation_is_hand_crafted() {
        let plain = Ataxx::start(&AtaxxVariant::hand_crafted());
        assert!(plain.nnue().is_none());
        assert_eq!(plain.evaluate(), plain.evaluate_hand_crafted());
        let settings = crate::games::VariantSettings {
            evaluation: crate::games::Evaluation::HandCrafted,
            ..Default::default()
        };
        assert_eq!(
            AtaxxVariant::from_settings(&settings),
            AtaxxVariant::hand_crafted()
        );
        // A chess net handed over by the settings counts as none.
        let chess = random_network(
            crate::games::chess::nnue::CHESS768,
            4,
            Activation::SCReLU,
            1,
        );
        let settings = crate::games::VariantSettings {
            evaluation: crate::games::Evaluation::Net(Arc::new(chess)),
            ..Default::default()
        };
        assert!(AtaxxVariant::from_settings(&settings).net.is_none());
    }
}
