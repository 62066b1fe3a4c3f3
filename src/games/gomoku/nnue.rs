//! Gomoku's NNUE inputs for the generic network of [`crate::nnue`], under either rule:
//! `GomokuPcode15` (what a stone on each empty cell would make, all four directions
//! together, per player: Rapfi's "pcode"), `GomokuStones15` (one input per cell and stone
//! colour of a 15x15 board) and their union `GomokuPcodeStones15`. The codes name no cell,
//! so a `GomokuPcode15` net (trained on 15x15 games) evaluates any board size; the sets
//! with stone inputs evaluate 15x15 only.
//!
//! # Inputs
//!
//! A cell's *code* for a player is the multiset of the four `Pattern`s a stone of that
//! player on it would make (one per direction, the order of directions forgotten): one of
//! C(13, 4) = 715 codes. The 15 codes made only of `Dead`, `Block1` and `Flex1` (a stone
//! there would make nothing) are *quiet*: no input, which keeps the empty board's
//! hundreds of such cells out of the accumulator. The other 700 are inputs, and a code is
//! counted once per empty cell that has it, so an input may be active several times
//! (the accumulator then holds its row that many times). Taken cells have no code.
//! Perspective `q` (0 the first player `x`, 1 `o`) sees its own codes as inputs `code`
//! and the other player's as `700 + code`: 1,400 inputs, at most 450 active.
//!
//! `GomokuStones15`: the perspective's own stones (`cell`) and the other's (`225 +
//! cell`), `cell = 15 · rank + file` (`a1` is 0). The union puts them after the codes
//! (`1400 + feature`).
//!
//! # Incremental changes
//!
//! A stone changes the line keys, hence the codes, of the 32 cells it sees and takes its
//! own cell's codes away: at most 33 cells per player, so at most 66 inputs removed and 66
//! added per perspective, plus one stone input ([`MAX_CHANGES`]). Each cell keeps its code
//! per player as a sum of pattern weights (`CODE_WEIGHT`), updated with its patterns; a
//! stone changes one direction of each cell it sees, so each cell's code changes at most
//! once, and the position records each change in the move's delta where the pattern
//! changes (`Gomoku::record_code_change`).
//!
//! # Net files
//!
//! Version-2 (version-3 with output buckets, by stones on the board) tagged files of
//! feature set id 16 (1,400 inputs), 17 (450) or 18 (1,850), which `cutoff --game gomoku
//! train [--features NAME]` writes. `EvalFile` loads one for every gomoku entry; a net of
//! another game or another feature set is refused. `nets/gomoku.nnue` (a `GomokuPcode15`
//! net, trained on 15x15 freestyle games) is built into the binary ([`embedded`]) and
//! evaluates every entry, on every board, unless `EvalFile` names another net or
//! `UseNNUE` is off (its provenance is in `nets/README.md`); bare variants such as
//! [`GomokuVariant::FREESTYLE15`](super::GomokuVariant::FREESTYLE15) keep the hand-set evaluation.

use std::sync::{Arc, OnceLock};

use arrayvec::ArrayVec;

use super::pattern::{self, Pattern, PATTERNS, WALL_BITS};
use super::{Gomoku, Rule, EMPTY, TOUCHED};
use crate::games::{EvalNet, NetSupport};
use crate::nnue::{count_bucket, Delta, FeatureSet, Network, NnueState};

/// Cells per side of the boards the feature sets describe.
pub const SIZE: usize = 15;
/// Cells of that board.
pub const CELLS: usize = SIZE * SIZE;
/// Codes of a cell: multisets of four patterns.
pub const CODES: usize = 715;
/// Quiet codes (no pattern above `Flex1`): no input; they are codes `0..QUIET`.
pub const QUIET: usize = 15;
/// Inputs per player's codes.
pub const CODE_INPUTS: usize = CODES - QUIET;

/// Own and other player's codes of every empty cell.
pub const PCODE: FeatureSet = FeatureSet {
    id: 16,
    name: "GomokuPcode15",
    inputs: 2 * CODE_INPUTS,
    max_active: 2 * MAX_BOARD_CELLS,
    factor: 0,
};

/// Own and other player's stones.
pub const STONES: FeatureSet = FeatureSet {
    id: 17,
    name: "GomokuStones15",
    inputs: 2 * CELLS,
    max_active: CELLS,
    factor: 0,
};

/// [`PCODE`]'s inputs, then [`STONES`]'.
pub const PCODE_STONES: FeatureSet = FeatureSet {
    id: 18,
    name: "GomokuPcodeStones15",
    inputs: 2 * CODE_INPUTS + 2 * CELLS,
    max_active: 3 * CELLS,
    factor: 0,
};

/// Every feature set a gomoku net may have, the default first.
pub const FEATURE_SETS: [FeatureSet; 3] = [PCODE, STONES, PCODE_STONES];

/// Cells of the largest board (a [`PCODE`] net evaluates every size).
const MAX_BOARD_CELLS: usize = super::MAX_SIZE as usize * super::MAX_SIZE as usize;

/// The most features active at once in one perspective, in any of [`FEATURE_SETS`] on
/// any board it evaluates.
pub const MAX_ACTIVE: usize = if 2 * MAX_BOARD_CELLS > 3 * CELLS {
    2 * MAX_BOARD_CELLS
} else {
    3 * CELLS
};

/// The most features a move adds (or removes) in a perspective: two codes per touched
/// cell and the stone.
pub const MAX_CHANGES: usize = 2 * TOUCHED + 1;

/// The accumulators of a gomoku game.
pub type GomokuNnue = NnueState<MAX_CHANGES>;

/// The code of the sorted patterns `a <= b <= c <= d` is its rank when multisets are
/// listed by largest pattern, then the next, and so on (so the quiet ones come first).
static CODE_OF: [u16; 10_000] = {
    let mut sorted_rank = [0u16; 10_000];
    let mut rank = 0;
    let mut d = 0;
    while d < 10 {
        let mut c = 0;
        while c <= d {
            let mut b = 0;
            while b <= c {
                let mut a = 0;
                while a <= b {
                    sorted_rank[a + 10 * b + 100 * c + 1000 * d] = rank;
                    rank += 1;
                    a += 1;
                }
                b += 1;
            }
            c += 1;
        }
        d += 1;
    }
    assert!(rank as usize == CODES);
    let mut table = [0u16; 10_000];
    let mut index = 0;
    while index < 10_000 {
        let mut p = [index % 10, index / 10 % 10, index / 100 % 10, index / 1000];
        let mut i = 0;
        while i < 4 {
            let mut j = 0;
            while j + 1 < 4 - i {
                if p[j] > p[j + 1] {
                    let t = p[j];
                    p[j] = p[j + 1];
                    p[j + 1] = t;
                }
                j += 1;
            }
            i += 1;
        }
        table[index] = sorted_rank[p[0] + 10 * p[1] + 100 * p[2] + 1000 * p[3]];
        index += 1;
    }
    table
};

/// The code of a cell whose four directions make `patterns` (any order).
#[inline]
pub fn code(patterns: [Pattern; 4]) -> usize {
    let [a, b, c, d] = patterns.map(|p| p as usize);
    usize::from(CODE_OF[a + 10 * b + 100 * c + 1000 * d])
}

/// The code of a cell where a stone would make nothing in any direction.
pub fn nothing_code() -> usize {
    code([Pattern::Dead; 4])
}

/// A weight per [`Pattern`] such that the sums of the weights of four patterns differ
/// between any two multisets (a B4 sequence, greedy from 0): the sum of a cell's four
/// weights is its code under another name, kept by the position as the patterns change
/// (an add per changed pattern, where [`code`] reads four patterns), and
/// [`code_of_sum`] turns it into the code. The quiet patterns have the smallest weights.
pub(super) const CODE_WEIGHT: [u16; PATTERNS] = [0, 1, 5, 21, 55, 153, 368, 856, 1424, 2603];

/// Sums of four [`CODE_WEIGHT`]s: `0..CODE_SUMS`.
const CODE_SUMS: usize = 4 * CODE_WEIGHT[PATTERNS - 1] as usize + 1;

/// The code of each sum of four [`CODE_WEIGHT`]s (0 for the sums no multiset has). The
/// build fails if two multisets had the same sum.
static CODE_OF_SUM: [u16; CODE_SUMS] = {
    let mut table = [0u16; CODE_SUMS];
    let mut seen = [false; CODE_SUMS];
    let mut index = 0;
    while index < 10_000 {
        let p = [index % 10, index / 10 % 10, index / 100 % 10, index / 1000];
        if p[0] <= p[1] && p[1] <= p[2] && p[2] <= p[3] {
            let w = CODE_WEIGHT;
            let sum = (w[p[0]] + w[p[1]] + w[p[2]] + w[p[3]]) as usize;
            assert!(!seen[sum], "two multisets of patterns share a weight sum");
            seen[sum] = true;
            table[sum] = CODE_OF[index];
        }
        index += 1;
    }
    table
};

/// The code of the patterns whose [`CODE_WEIGHT`]s sum to `sum`.
#[inline]
pub(super) fn code_of_sum(sum: u16) -> usize {
    usize::from(CODE_OF_SUM[usize::from(sum)])
}

/// The input of `player`'s code `code` seen from `perspective`, if the code is not quiet.
#[inline]
fn code_feature(perspective: usize, player: usize, code: usize) -> Option<usize> {
    (code >= QUIET).then(|| usize::from(player != perspective) * CODE_INPUTS + code - QUIET)
}

/// Records in `delta` that a cell's code for `player` went from `old` to `new`: the old
/// code's input removed and the new one's added, in both perspectives (quiet codes have
/// none).
#[inline]
fn code_change(delta: &mut Delta<MAX_CHANGES>, player: usize, old: usize, new: usize) {
    let pair = |code: usize| {
        let own = (code - QUIET) as u16;
        let other = own + CODE_INPUTS as u16;
        if player == 0 {
            [own, other]
        } else {
            [other, own]
        }
    };
    if old >= QUIET {
        delta.removed.push(pair(old));
    }
    if new >= QUIET {
        delta.added.push(pair(new));
    }
}

/// The input of a stone of `owner` on `cell` seen from `perspective` in `set` (`None` if
/// the set has no stone inputs).
#[inline]
fn stone_feature(set: &FeatureSet, perspective: usize, owner: usize, cell: usize) -> Option<usize> {
    let offset = match set.id {
        17 => 0,
        18 => 2 * CODE_INPUTS,
        _ => return None,
    };
    Some(offset + usize::from(owner != perspective) * CELLS + cell)
}

/// Whether `set` has the code inputs.
#[inline]
fn has_codes(set: &FeatureSet) -> bool {
    set.id != STONES.id
}

/// Whether a net of `set` evaluates a board `size` cells a side: the codes-only set on
/// any size, the sets with stone inputs on 15x15.
fn evaluates_size(set: &FeatureSet, size: u8) -> bool {
    set.id == PCODE.id || usize::from(size) == SIZE
}

/// The stones of a 15x15 board: per player (first, second), bit `15 · rank + file` of
/// four words.
pub type Stones = [[u64; 4]; 2];

/// Whether `stones[player]` has a stone on `cell`.
#[inline]
fn has(stones: &Stones, player: usize, cell: usize) -> bool {
    stones[player][cell / 64] >> (cell % 64) & 1 != 0
}

/// The board of `stones` padded by four off-board cells each way (`WALL_BITS`), the
/// first player's stones `1` and the second's `2`, as the position's line keys read it.
const PADDED_SIDE: usize = SIZE + 8;

/// The line key of the padded cell `at` along `step` on `board` (see [`PADDED_SIDE`]).
#[inline]
fn line_key(board: &[u8; PADDED_SIDE * PADDED_SIDE], at: usize, step: usize) -> usize {
    let mut key = 0;
    for s in (-4i32..=4).filter(|&s| s != 0) {
        let other = (at as isize + s as isize * step as isize) as usize;
        key |= u16::from(board[other]) << pattern::shift(s);
    }
    usize::from(key)
}

/// Calls `visit` with the four directions' patterns of each empty cell of a 15x15
/// freestyle board, per player (`stones[0]`'s first): what a stone of that player there
/// would make.
fn for_each_empty_cell(stones: &Stones, mut visit: impl FnMut([[Pattern; 4]; 2])) {
    let occupied = |cell: usize| (0..2).find(|&p| has(stones, p, cell));
    let mut board = [WALL_BITS as u8; PADDED_SIDE * PADDED_SIDE];
    for cell in 0..CELLS {
        let at = (cell / SIZE + 4) * PADDED_SIDE + cell % SIZE + 4;
        board[at] = occupied(cell).map_or(EMPTY, |p| p as u8 + 1);
    }
    let pairs = pattern::pair_table(Rule::Freestyle);
    let steps = [1, PADDED_SIDE, PADDED_SIDE + 1, PADDED_SIDE - 1];
    for cell in (0..CELLS).filter(|&c| occupied(c).is_none()) {
        let at = (cell / SIZE + 4) * PADDED_SIDE + cell % SIZE + 4;
        let keys = steps.map(|step| line_key(&board, at, step));
        visit([0, 1].map(|player| keys.map(|key| pairs[key][player])));
    }
}

/// Whether `stones[player]` has a four on a 15x15 freestyle board: an empty cell where
/// one more stone of theirs makes five. The other player, to move, is then in check:
/// the search never evaluates such a position statically.
pub fn has_four(stones: &Stones, player: usize) -> bool {
    let mut four = false;
    for_each_empty_cell(stones, |patterns| {
        four |= patterns[player].contains(&Pattern::Five);
    });
    four
}

/// The active features of `set` (one of [`FEATURE_SETS`]) of a 15x15 freestyle board as
/// (perspective 0, perspective 1) pairs, perspective 0 the player of `stones[0]`: the
/// codes cell by cell, then the stones. The trainer reads records through this; the
/// engine's incremental updates must agree.
pub fn active_pairs(set: &FeatureSet, stones: &Stones) -> ArrayVec<(usize, usize), MAX_ACTIVE> {
    let mut features = ArrayVec::new();
    if has_codes(set) {
        for_each_empty_cell(stones, |patterns| {
            for (player, patterns) in patterns.into_iter().enumerate() {
                let code = code(patterns);
                if let (Some(a), Some(b)) =
                    (code_feature(0, player, code), code_feature(1, player, code))
                {
                    features.push((a, b));
                }
            }
        });
    }
    for owner in 0..2 {
        for cell in (0..CELLS).filter(|&c| has(stones, owner, c)) {
            if let (Some(a), Some(b)) = (
                stone_feature(set, 0, owner, cell),
                stone_feature(set, 1, owner, cell),
            ) {
                features.push((a, b));
            }
        }
    }
    features
}

/// The output head of a position with `stones` stones in a net of `buckets` heads.
#[inline]
pub fn output_bucket(stones: usize, buckets: usize) -> usize {
    count_bucket(stones, CELLS, buckets)
}

/// The net built into the binary (`nets/gomoku.nnue`; its provenance is in
/// `nets/README.md`).
const EMBEDDED_NET: &[u8] = include_bytes!("../../../nets/gomoku.nnue");

/// The built-in net, parsed once and shared (`None` only if `EMBEDDED_NET` were no
/// gomoku net, which a test rules out).
pub fn embedded() -> Option<&'static Arc<Network>> {
    static EMBEDDED: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    crate::nnue::embedded_net(
        &EMBEDDED,
        EMBEDDED_NET,
        &FEATURE_SETS,
        std::convert::identity,
    );
    EMBEDDED.get().and_then(Option::as_ref)
}

/// How gomoku takes a network in the registry: `EvalFile` loads a net of one of
/// [`FEATURE_SETS`]; the built-in one is [`embedded`].
pub const NET_SUPPORT: NetSupport = NetSupport {
    load: |path| {
        Network::load_among(path, &FEATURE_SETS)
            .map(|net| Arc::new(net) as EvalNet)
            .map_err(|e| crate::games::net_error(&e))
    },
    embedded: || embedded().map(|net| Arc::clone(net) as EvalNet),
    features: &FEATURE_SETS,
};

/// A net as a gomoku variant holds it: a shared handle, compared by address.
#[derive(Clone)]
pub struct NetRef(pub Arc<Network>);

impl NetRef {
    /// The net of `EvalFile`'s value, if it is a gomoku net.
    pub fn of(net: &EvalNet) -> Option<NetRef> {
        let net = Arc::clone(net).downcast::<Network>().ok()?;
        FEATURE_SETS.contains(net.features()).then_some(NetRef(net))
    }
}

impl PartialEq for NetRef {
    fn eq(&self, other: &NetRef) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for NetRef {}

impl std::hash::Hash for NetRef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        Arc::as_ptr(&self.0).hash(state);
    }
}

impl std::fmt::Debug for NetRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NetRef({} {})", self.0.features().name, self.0.hidden())
    }
}

impl Gomoku {
    /// A cell's code for `player`, from the weight sum it keeps (quiet for a taken cell).
    #[inline]
    fn cell_code(&self, cell: usize, player: usize) -> usize {
        code_of_sum(self.cells[cell].info[player].code_sum)
    }

    /// The index of a padded cell on the 15x15 board, `15 · rank + file`.
    fn board_index(&self, cell: usize) -> usize {
        let (file, rank) = self.coordinates(super::Cell(cell as u16));
        SIZE * usize::from(rank) + usize::from(file)
    }

    /// The active features of `set` from `perspective`, from the position's patterns.
    fn net_features(&self, set: &FeatureSet, perspective: usize) -> ArrayVec<usize, MAX_ACTIVE> {
        let mut features = ArrayVec::new();
        for cell in self.board_cells() {
            if has_codes(set) {
                for player in 0..2 {
                    let code = self.cell_code(cell, player);
                    features.extend(code_feature(perspective, player, code));
                }
            }
        }
        for owner in 0..2 {
            for cell in self.board_cells() {
                if self.board[cell] == owner as u8 + 1 {
                    let index = self.board_index(cell);
                    features.extend(stone_feature(set, perspective, owner, index));
                }
            }
        }
        features
    }

    /// Computes every cell's code sums from its patterns (the pattern updates keep them
    /// only while a net with code inputs evaluates).
    fn compute_code_sums(&mut self) {
        for state in self.cells.iter_mut() {
            for (player, info) in state.info.iter_mut().enumerate() {
                let weights = state.pairs.map(|pair| CODE_WEIGHT[pair[player] as usize]);
                info.code_sum = weights.iter().sum();
            }
        }
    }

    /// Whether a net with code inputs evaluates (the cells' code sums are kept).
    pub(super) fn net_codes(&self) -> bool {
        self.nnue
            .as_ref()
            .is_some_and(|state| has_codes(state.network().features()))
    }

    /// Starts the accumulators of the variant's net, if it has one and its inputs fit the
    /// board size ([`evaluates_size`]; under either rule: the codes come from the rule's
    /// own patterns).
    pub(super) fn start_net(&mut self) {
        self.nnue = None;
        let Some(NetRef(net)) = &self.variant.net else {
            return;
        };
        let set = *net.features();
        if !evaluates_size(&set, self.variant.size) {
            return;
        }
        let net = Arc::clone(net);
        if has_codes(&set) {
            self.compute_code_sums();
        }
        let state = NnueState::new(net, |p| self.net_features(&set, p));
        self.nnue = Some(state);
    }

    /// Starts the accumulators' entry of the move of `player` to `cell` (if a net
    /// evaluates) with the stone's input; returns whether the net has code inputs, in
    /// which case the caller places the stone with the code changes recorded
    /// ([`Gomoku::record_code_change`], from [`Gomoku::set_stone`]).
    pub(super) fn push_net_move(&mut self, cell: usize, player: usize) -> bool {
        if self.nnue.is_none() {
            return false;
        }
        let index = self.board_index(cell);
        let Some(state) = &mut self.nnue else {
            return false;
        };
        let set = *state.network().features();
        state.push_with(|delta| {
            let stone = |q| stone_feature(&set, q, player, index).map(|f| f as u16);
            if let (Some(a), Some(b)) = (stone(0), stone(1)) {
                delta.added.push([a, b]);
            }
        });
        has_codes(&set)
    }

    /// Records in the net's delta of the move being made that a cell's code for `player`
    /// went from the weight sum `old` to `new` (they differ).
    #[inline]
    pub(super) fn record_code_change(&mut self, player: usize, old: u16, new: u16) {
        if let Some(state) = &mut self.nnue {
            code_change(
                state.last_delta_mut(),
                player,
                code_of_sum(old),
                code_of_sum(new),
            );
        }
    }

    /// Takes the last move out of the accumulators.
    pub(super) fn pop_net_move(&mut self) {
        if let Some(state) = &mut self.nnue {
            state.pop();
        }
    }

    /// Records a null move (nothing changes) in the accumulators.
    pub(super) fn push_net_null(&mut self) {
        if let Some(state) = &mut self.nnue {
            state.push(Delta::default());
        }
    }

    /// The net's evaluation for the side to move (without storing accumulators), if a
    /// net evaluates; the tests' view of the incremental accumulators.
    #[cfg(test)]
    pub(super) fn net_value(&self) -> Option<i32> {
        let state = self.nnue.as_ref()?;
        let bucket = output_bucket(self.stone_count(), state.network().buckets());
        Some(state.evaluate_lazily(self.side.index(), bucket))
    }

    /// The net's evaluation for the side to move averaged with its negated evaluation of
    /// the position before the last move (or null move), for the side to move there, both
    /// by the current position's output head; at the accumulators' root the net's
    /// evaluation alone (`None` without a net).
    pub(super) fn net_value_mean(&self) -> Option<i32> {
        let state = self.nnue.as_ref()?;
        let bucket = output_bucket(self.stone_count(), state.network().buckets());
        let us = self.side.index();
        let now = state.evaluate_lazily(us, bucket);
        Some(match state.evaluate_lazily_back(1, 1 - us, bucket) {
            Some(before) => (now - before) / 2,
            None => now,
        })
    }

    /// Brings the accumulators up to date, if a net evaluates.
    pub(super) fn update_net(&mut self) {
        if let Some(state) = &mut self.nnue {
            state.update();
        }
    }

    /// The net's evaluation for the side to move computed from scratch (no accumulator
    /// kept), the reference of the incremental updates; `None` without a net.
    pub fn net_value_from_scratch(&self) -> Option<i32> {
        let net = self.nnue.as_ref()?.network();
        let set = *net.features();
        let us = self.side.index();
        Some(net.evaluate_features(
            self.net_features(&set, us),
            self.net_features(&set, 1 - us),
            output_bucket(self.stone_count(), net.buckets()),
        ))
    }

    /// The stones of a 15x15 board as [`active_pairs`] reads them (`None` on another size).
    pub fn stones15(&self) -> Option<Stones> {
        if usize::from(self.variant.size) != SIZE {
            return None;
        }
        let mut stones = [[0u64; 4]; 2];
        for cell in self.board_cells() {
            let colour = self.board[cell];
            if colour != EMPTY {
                let index = self.board_index(cell);
                stones[usize::from(colour - 1)][index / 64] |= 1 << (index % 64);
            }
        }
        Some(stones)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Evaluation;
    use crate::nnue::{random_bucketed_network, Activation};
    use crate::rng::SplitMix;
    use crate::search::{MoveList, Player, Rules, SearchHooks};

    /// A gomoku variant evaluating with `net`.
    fn with_net(net: Network) -> GomokuVariant {
        let net: EvalNet = Arc::new(net);
        GomokuVariant {
            net: NetRef::of(&net),
            ..GomokuVariant::FREESTYLE15
        }
    }

    use super::super::GomokuVariant;

    /// Sorted copies of both perspectives' features: the engine's from the position's
    /// patterns, and the trainer's from the stones.
    fn both_ways(game: &Gomoku, set: &FeatureSet) -> [[Vec<usize>; 2]; 2] {
        let engine = [0, 1].map(|p| {
            let mut list = game.net_features(set, p).to_vec();
            list.sort_unstable();
            list
        });
        let pairs = active_pairs(set, &game.stones15().expect("15x15"));
        let mut trainer = [
            pairs.iter().map(|p| p.0).collect::<Vec<_>>(),
            pairs.iter().map(|p| p.1).collect(),
        ];
        for list in &mut trainer {
            list.sort_unstable();
        }
        [engine, trainer]
    }

    #[test]
    fn codes_are_the_multisets_of_four_patterns() {
        let all: std::collections::BTreeSet<u16> = CODE_OF.iter().copied().collect();
        assert_eq!(all.len(), CODES);
        assert_eq!(code([Pattern::Dead; 4]), 0);
        let quiet = [
            Pattern::Dead,
            Pattern::Block1,
            Pattern::Flex1,
            Pattern::Flex1,
        ];
        assert!(code(quiet) < QUIET);
        let mixed = [
            Pattern::Flex3,
            Pattern::Dead,
            Pattern::Block4,
            Pattern::Flex1,
        ];
        let turned = [
            Pattern::Block4,
            Pattern::Flex1,
            Pattern::Flex3,
            Pattern::Dead,
        ];
        assert_eq!(code(mixed), code(turned));
        assert!(code(mixed) >= QUIET);
        assert_eq!(code([Pattern::Five; 4]), CODES - 1);
    }

    #[test]
    fn weight_sums_name_the_codes() {
        use Pattern::*;
        let patterns = [
            Dead, Block1, Flex1, Block2, Flex2, Block3, Flex3, Block4, Flex4, Five,
        ];
        assert!(patterns.iter().enumerate().all(|(i, &p)| p as usize == i));
        for index in 0..10_000 {
            let four = [index % 10, index / 10 % 10, index / 100 % 10, index / 1000];
            let sum = four.iter().map(|&p| CODE_WEIGHT[p]).sum();
            assert_eq!(
                code_of_sum(sum),
                code(four.map(|p| patterns[p])),
                "{four:?}"
            );
        }
    }

    #[test]
    fn incremental_updates_match_the_trainers_features_on_random_games() {
        for (k, set) in FEATURE_SETS.iter().enumerate() {
            let net = random_bucketed_network(*set, 16, 2, Activation::SCReLU, 5 + k as u64);
            let variant = with_net(net);
            let mut rng = SplitMix::new(11 + k as u64);
            for _ in 0..6 {
                let mut game = Gomoku::start(&variant);
                let mut played = Vec::new();
                for ply in 0..60 {
                    let mut moves = MoveList::new();
                    game.generate_search_moves(&mut moves);
                    if moves.is_empty() || game.outcome().is_some() {
                        break;
                    }
                    let mv = moves[rng.below(moves.len())];
                    game.make_move(mv);
                    played.push(mv);
                    let [engine, trainer] = both_ways(&game, set);
                    assert_eq!(engine, trainer, "{} ply {ply}", set.name);
                    if ply % 3 == 0 {
                        let _ = game.evaluate_mut();
                    }
                    let lazily = game.net_value();
                    assert_eq!(
                        lazily,
                        game.net_value_from_scratch(),
                        "{} ply {ply}",
                        set.name
                    );
                    assert_eq!(game.evaluate_mut(), game.evaluate());
                }
                // Take half the moves back: the accumulators follow.
                for mv in played.iter().rev().take(played.len() / 2) {
                    game.unmake_move(*mv);
                    assert_eq!(game.net_value(), game.net_value_from_scratch());
                }
                game.make_null();
                assert_eq!(game.net_value(), game.net_value_from_scratch());
                game.unmake_null();
            }
        }
    }

    #[test]
    fn a_four_on_the_stones_is_the_engines_check() {
        let mut rng = SplitMix::new(21);
        let mut seen = [0; 2];
        for _ in 0..40 {
            let mut game = Gomoku::start(&GomokuVariant::FREESTYLE15);
            while game.outcome().is_none() && game.stone_count() < 80 {
                let mut moves = MoveList::new();
                game.generate_search_moves(&mut moves);
                game.make_move(moves[rng.below(moves.len())]);
                let [x, o] = game.stones15().expect("15x15");
                let stones = if game.side_to_move() == Player::Second {
                    [o, x]
                } else {
                    [x, o]
                };
                if game.outcome().is_none() {
                    assert_eq!(has_four(&stones, 1), game.in_check());
                    seen[usize::from(game.in_check())] += 1;
                }
            }
        }
        assert!(seen[0] > 100 && seen[1] > 10, "{seen:?}");
    }

    #[test]
    fn the_evaluation_averages_the_net_before_and_after_the_last_move() {
        let variant = with_net(random_bucketed_network(PCODE, 8, 1, Activation::SCReLU, 5));
        let mut game = Gomoku::start(&variant);
        // No threat on the board: the evaluation is the net's alone.
        let moves: Vec<_> = ["h8", "a1", "o15"]
            .iter()
            .map(|text| game.parse_move(text).unwrap())
            .collect();
        for &mv in &moves[..2] {
            game.make_move(mv);
        }
        let before = game.net_value_from_scratch().unwrap();
        game.make_move(moves[2]);
        let now = game.net_value_from_scratch().unwrap();
        assert_ne!(now, -before, "the test needs the two values to differ");
        assert_eq!(game.evaluate(), (now - before) / 2);
        assert_eq!(game.evaluate_mut(), (now - before) / 2);
        // After a null move the position before is the same stones, the other side to move.
        game.make_null();
        let flipped = game.net_value_from_scratch().unwrap();
        assert_eq!(game.evaluate(), (flipped - now) / 2);
        game.unmake_null();
        // At the accumulators' root there is no position before: the net's value alone.
        let root = Gomoku::from_fen(&variant, &game.to_fen()).unwrap();
        assert_eq!(root.evaluate(), now);
    }

    #[test]
    fn the_net_replaces_the_cell_values_on_the_sizes_it_fits() {
        let net = random_bucketed_network(PCODE, 8, 1, Activation::SCReLU, 3);
        let variant = with_net(net);
        let fen = "15/15/15/15/15/15/7x7/6o8/7x7/15/15/15/15/15/15 o";
        let plain = Gomoku::from_fen(&GomokuVariant::FREESTYLE15, fen).unwrap();
        let netted = Gomoku::from_fen(&variant, fen).unwrap();
        assert!(plain.net_value().is_none());
        assert!(netted.net_value().is_some());
        // The codes name no cell: a codes-only net evaluates 20x20 too, and its
        // accumulators follow the moves there.
        let twenty = GomokuVariant {
            net: variant.net.clone(),
            ..GomokuVariant::FREESTYLE20
        };
        let mut big = Gomoku::start(&twenty);
        let mut last = None;
        for text in "k11 l12 j10 m13 i9 h8 a1 t20".split(' ') {
            let mv = big.parse_move(text).unwrap();
            big.make_move(mv);
            last = Some(mv);
        }
        assert_eq!(big.net_value(), big.net_value_from_scratch());
        assert!(big.net_value().is_some());
        big.unmake_move(last.unwrap());
        assert_eq!(big.net_value(), big.net_value_from_scratch());
        // Exactly five too: the codes come from that rule's patterns.
        let exact = GomokuVariant {
            net: variant.net,
            ..GomokuVariant::STANDARD15
        };
        assert!(Gomoku::from_fen(&exact, fen).unwrap().net_value().is_some());
        // A net with stone inputs is for 15x15 only.
        let stones = with_net(random_bucketed_network(STONES, 8, 1, Activation::SCReLU, 3));
        let twenty = GomokuVariant {
            net: stones.net,
            ..GomokuVariant::FREESTYLE20
        };
        assert!(Gomoku::start(&twenty).net_value().is_none());
        // EvalFile's net reaches the gomoku entries' variants, not another game's net.
        let eval: EvalNet = Arc::new(random_bucketed_network(PCODE, 8, 1, Activation::SCReLU, 4));
        let settings = crate::games::VariantSettings {
            evaluation: Evaluation::Net(eval),
            ..Default::default()
        };
        assert!(super::super::freestyle15(&settings).net.is_some());
        assert!(super::super::freestyle20(&settings).net.is_some());
        let chess = random_bucketed_network(
            crate::games::chess::nnue::CHESS768,
            8,
            1,
            Activation::SCReLU,
            4,
        );
        let settings = crate::games::VariantSettings {
            evaluation: Evaluation::Net(Arc::new(chess)),
            ..Default::default()
        };
        assert!(super::super::freestyle15(&settings).net.is_none());
    }

    #[test]
    fn the_built_in_net_is_a_gomoku_net_and_the_default() {
        let net = embedded().expect("nets/gomoku.nnue is a gomoku net");
        assert_eq!(*net.features(), PCODE);
        let variant = super::super::freestyle15(&crate::games::VariantSettings::default());
        assert_eq!(variant.net, Some(NetRef(Arc::clone(net))));
        let variant = super::super::freestyle20(&crate::games::VariantSettings::default());
        assert_eq!(
            variant.net,
            Some(NetRef(Arc::clone(net))),
            "one net for every board"
        );
        let hand_set = crate::games::VariantSettings {
            evaluation: Evaluation::HandCrafted,
            ..Default::default()
        };
        assert!(super::super::freestyle15(&hand_set).net.is_none());
    }

    #[test]
    fn a_net_of_another_game_is_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("cutoff-gomoku-net-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ataxx.nnue");
        let ataxx = random_bucketed_network(
            crate::games::ataxx::nnue::ATAXX147,
            8,
            1,
            Activation::SCReLU,
            1,
        );
        ataxx.save(&path).unwrap();
        let error = (NET_SUPPORT.load)(&path).expect_err("refused");
        assert!(
            error.contains("Ataxx147") && error.contains("GomokuPcode15"),
            "{error}"
        );
        let path = dir.join("gomoku.nnue");
        random_bucketed_network(STONES, 8, 1, Activation::SCReLU, 1)
            .save(&path)
            .unwrap();
        assert!((NET_SUPPORT.load)(&path).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
