//! Ataxx on the standard 7x7 board, as a [`Game`], with the rules libataxx, cuteataxx and
//! the UAI engines play.
//!
//! # Rules
//!
//! `x` (called black in Ataxx texts) moves first, then `o`. A move is a **single**, a new
//! stone on an empty square next to one of the mover's stones (8 directions), or a
//! **double**, one of the mover's stones jumping to an empty square exactly two steps away
//! (Chebyshev distance 2), leaving its square empty. Afterwards every opposing stone next to
//! the destination turns to the mover's colour. Squares may be blocked (gaps). A side that
//! has stones but no move must **pass**.
//!
//! The game ends when a side has no stones, or when no stone of either side can move (the
//! board is full, or the empty squares are out of every stone's reach): then more stones
//! win and equal counts draw. It also ends, drawn, when the half-move clock reaches 100;
//! the clock counts every move (passes too) and a single resets it, a double does not
//! (libataxx `makemove`). When both apply, the stone count takes priority (libataxx
//! `tests/result.cpp`). There is no repetition rule: libataxx and cuteataxx have none, and
//! only doubles and passes can repeat a position, which the clock bounds anyway.
//!
//! # Notation
//!
//! Squares `a1`..`g7`, `a1` bottom-left. A single is its destination (`f2`), a double is
//! from-to (`a1c3`), a pass is `0000`. A single written from-to (`a1b2`) is refused, as
//! libataxx refuses it.
//!
//! FEN: ranks 7 down to 1 separated by `/`, `x` and `o` for stones, `-` for a gap, digits
//! for runs of empty squares, then the side to move, the half-move clock and the full-move
//! number (both optional on input): the start is `x5o/7/7/7/7/7/o5x x 0 1`.
//!
//! # Implementation
//!
//! Bitboards of 49 bits, bit `7 * rank + file`. Making a move flips at most 8 stones; the
//! captured set and the old clock are kept on an undo stack (its capacity is reused, so the
//! search does not allocate). The Zobrist key covers stones and the side to move; the clock
//! is folded in by [`Rules::hash`], since it can end the game and so decides the value.
//!
//! # Evaluation
//!
//! The NNUE net of [`nnue`] (the one built into the binary, or `EvalFile`'s), its
//! accumulators updated lazily by make/unmake; without a net ([`AtaxxVariant`], `UseNNUE
//! false`) the hand-crafted [`SearchHooks::evaluate`]: stones and a tempo share.
//!
//! [`Game`]: crate::search::Game

pub mod nnue;

use std::fmt::Write;
use std::sync::Arc;

use super::grid;
use super::{
    BenchPosition, Evaluation, GameInfo, PieceMarks, ProtocolSettings, ToolSettings,
    VariantSettings,
};
use crate::rng::splitmix64;
use crate::search::game::{
    EndReason, ExactHooks, GameEnd, GameError, MoveList, Outcome, Player, Pruning, Rules,
    SearchHooks, SearchRefinements, QUIET_HINT_LIMIT,
};
use crate::search::ordering::HISTORY_MAX;
use crate::search::{SearchParams, WdlModel};

/// Ataxx in the registry.
pub const INFO: GameInfo = GameInfo {
    name: "ataxx",
    aliases: &[],
    summary: "Ataxx: 7x7, clone a stone one step or jump two, take the neighbours; \
              moves f2, a1c3, 0000 (pass)",
    players: ["x", "o"],
    pieces: PieceMarks::Stones('x', 'o'),
    eval_net: Some(nnue::NET_SUPPORT),
    tablebases: None,
    wdl: Some(WDL),
    elo_scale: None,
    protocol: ProtocolSettings {
        pgn_variant: Some("ataxx"),
        own_dialect: Some("uai"),
        ..ProtocolSettings::NONE
    },
    tools: ToolSettings {
        bench_positions: &[
            BenchPosition::from_start(""),
            BenchPosition::fen("x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"),
            BenchPosition::fen("x5o/7/3-3/2-1-2/3-3/7/o5x o 0 1"),
            BenchPosition::from_start("f1 a2 g2 f7 e1 e7 g3 b2 g4 d7"),
            BenchPosition::from_start(
                "f1 a2 g2 f7 e1 e7 g3 b2 g4 d7 g4e6 f6 d6 g7e5 g3f5 d5 g6 e5g7 e5 g5 g2f4 g6e4",
            ),
        ],
        bench_depth: 12,
        opening_book: "openings/ataxx.txt",
        match_tc: "2+0.02",
        solvable: false,
        test_set: None,
    },
};

/// The win/draw/loss model (`UCI_ShowWDL`) by the ply (the default
/// [`SearchRefinements::wdl_phase`]), fitted by `scripts/fit_wdl.py` on the store's
/// generation 5 chunk 0 (99,281 positions of 1,000 games) and checked on chunk 1 (99,673
/// positions): held-out log-loss 0.724 nats a position against 1.055 for the base rates
/// (0.770 by the stones on the board, 0.920 without a phase). See docs/ataxx.md.
pub const WDL: WdlModel = WdlModel {
    a: [227.148, -75.721, -131.271, 85.006],
    b: [-7.274, 26.696, -50.330, 192.802],
    phase_min: 0,
    phase_max: 200,
    phase_scale: 100.0,
};

/// Squares per side.
const SIDE: usize = 7;
/// Squares on the board.
const CELLS: usize = SIDE * SIDE;
/// Every square.
const BOARD: u64 = (1 << CELLS) - 1;
/// The `a` file.
const FILE_A: u64 = repeat_per_rank(1);
/// The `g` file.
const FILE_G: u64 = repeat_per_rank(1 << (SIDE - 1));
/// The half-move clock value that ends the game (a hundred half-moves, "fifty moves").
const CLOCK_LIMIT: u32 = 100;
/// Value of one stone of difference.
const STONE_VALUE: i32 = 100;
/// The share, in percent, of the side to move's best immediate gain that the evaluation
/// counts.
const TEMPO_SHARE: i32 = 50;
/// The square code of a pass in [`AtaxxMove`].
const PASS_SQUARE: u8 = 63;
/// Seed of the splitmix64 generator for the Zobrist keys.
const ZOBRIST_SEED: u64 = 0x6174_6178_782d_6375;

/// `bits` (the low 7 bits of one rank) copied into every rank.
const fn repeat_per_rank(bits: u64) -> u64 {
    grid::repeat_bits(bits, SIDE, SIDE)
}

/// The squares next to any square of `bits` (8 directions), on the board.
const fn neighbours(bits: u64) -> u64 {
    let east = (bits << 1) & !FILE_A & BOARD;
    let west = (bits >> 1) & !FILE_G;
    let row = bits | east | west;
    (east | west | (row << SIDE) | (row >> SIDE)) & BOARD
}

/// The squares within two steps of any square of `bits`, `bits` included.
const fn within_two(bits: u64) -> u64 {
    let one = bits | neighbours(bits);
    one | neighbours(one)
}

/// Squares one step from each square.
static SINGLES: [u64; CELLS] = {
    let mut table = [0; CELLS];
    let mut square = 0;
    while square < CELLS {
        table[square] = neighbours(1 << square);
        square += 1;
    }
    table
};

/// Squares exactly two steps from each square.
static DOUBLES: [u64; CELLS] = {
    let mut table = [0; CELLS];
    let mut square = 0;
    while square < CELLS {
        let bit = 1u64 << square;
        table[square] = within_two(bit) & !(bit | neighbours(bit));
        square += 1;
    }
    table
};

/// Zobrist keys: a stone of each player on each square, the side to move, each clock value.
struct Keys {
    stones: [[u64; CELLS]; 2],
    side: u64,
    clock: [u64; CLOCK_LIMIT as usize + 1],
}

static KEYS: Keys = {
    let mut keys = Keys {
        stones: [[0; CELLS]; 2],
        side: 0,
        clock: [0; CLOCK_LIMIT as usize + 1],
    };
    let mut state = ZOBRIST_SEED;
    let mut index = 0;
    while index < 2 * CELLS {
        let (next, key) = splitmix64(state);
        state = next;
        keys.stones[index / CELLS][index % CELLS] = key;
        index += 1;
    }
    let (next, key) = splitmix64(state);
    state = next;
    keys.side = key;
    // Clock 0 adds nothing, so a fresh position's hash is its stones and side alone.
    let mut clock = 1;
    while clock <= CLOCK_LIMIT as usize {
        let (next, key) = splitmix64(state);
        state = next;
        keys.clock[clock] = key;
        clock += 1;
    }
    keys
};

/// The key change of stones on `squares` changing colour.
fn flip_key(squares: u64) -> u64 {
    let mut key = 0;
    for square in Squares(squares) {
        key ^= KEYS.stones[0][square] ^ KEYS.stones[1][square];
    }
    key
}

/// The squares of a bitboard, lowest first.
struct Squares(u64);

impl Iterator for Squares {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let square = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(square)
    }
}

/// The name of a square, `a1`..`g7`.
fn square_name(square: usize) -> String {
    let file = char::from(b'a' + (square % SIDE) as u8);
    let rank = char::from(b'1' + (square / SIDE) as u8);
    format!("{file}{rank}")
}

/// The square named by two bytes `a`..`g`, `1`..`7`.
fn parse_square(text: &[u8]) -> Option<usize> {
    match text {
        [file @ b'a'..=b'g', rank @ b'1'..=b'7'] => {
            Some(usize::from(rank - b'1') * SIDE + usize::from(file - b'a'))
        }
        _ => None,
    }
}

/// Chebyshev distance between two squares.
fn distance(a: usize, b: usize) -> usize {
    let files = (a % SIDE).abs_diff(b % SIDE);
    let ranks = (a / SIDE).abs_diff(b / SIDE);
    files.max(ranks)
}

/// An Ataxx move: a single (`from == to`), a double, or a pass.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AtaxxMove {
    from: u8,
    to: u8,
}

impl AtaxxMove {
    /// The pass, `0000`.
    pub const PASS: AtaxxMove = AtaxxMove {
        from: PASS_SQUARE,
        to: PASS_SQUARE,
    };

    /// A single (a new stone) to `to`.
    fn single(to: usize) -> AtaxxMove {
        AtaxxMove {
            from: to as u8,
            to: to as u8,
        }
    }

    /// A double (a jump) from `from` to `to`.
    fn double(from: usize, to: usize) -> AtaxxMove {
        AtaxxMove {
            from: from as u8,
            to: to as u8,
        }
    }

    /// Whether this is the pass.
    pub fn is_pass(self) -> bool {
        self == AtaxxMove::PASS
    }

    /// Whether this is a single (a new stone next to an own one).
    pub fn is_single(self) -> bool {
        self.from == self.to && !self.is_pass()
    }

    /// Whether this is a double (a jump).
    pub fn is_double(self) -> bool {
        self.from != self.to
    }
}

/// What unmaking a move needs beyond the move itself.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Undo {
    /// The stones that changed colour.
    captured: u64,
    /// The half-move clock before the move.
    halfmoves: u32,
}

/// How Ataxx is evaluated: the hand-crafted evaluation, or a net of one of its feature sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtaxxVariant {
    /// The NNUE network that evaluates positions; `None`: the hand-crafted evaluation.
    pub net: Option<Arc<crate::nnue::Network>>,
}

impl Default for AtaxxVariant {
    /// The default evaluation: the net built into the binary.
    fn default() -> AtaxxVariant {
        AtaxxVariant {
            net: nnue::embedded(),
        }
    }
}

impl AtaxxVariant {
    /// The hand-crafted evaluation (`UseNNUE false`).
    pub fn hand_crafted() -> AtaxxVariant {
        AtaxxVariant { net: None }
    }

    /// The variant the protocol's settings select: a net given by `EvalFile` (one of
    /// another feature set counts as none), the built-in net by default, or the
    /// hand-crafted evaluation.
    pub fn from_settings(settings: &VariantSettings) -> AtaxxVariant {
        let net = match &settings.evaluation {
            Evaluation::BuiltIn => nnue::embedded(),
            Evaluation::HandCrafted => None,
            Evaluation::Net(net) => net
                .clone()
                .downcast::<crate::nnue::Network>()
                .ok()
                .filter(|net| nnue::evaluates_with(net.features())),
        };
        AtaxxVariant { net }
    }
}

/// An Ataxx position: stones, gaps, side to move, the clocks and an undo stack.
#[derive(Clone, Debug)]
pub struct Ataxx {
    /// Stones of `x` and `o`.
    stones: [u64; 2],
    /// Blocked squares.
    gaps: u64,
    /// The side to move.
    side: Player,
    /// Half-moves since the last single.
    halfmoves: u32,
    /// Full-move number: 1 at the start, +1 after each move of `o`.
    fullmoves: u32,
    /// Zobrist key of the stones and the side to move.
    key: u64,
    /// One entry per move made since the position was set up.
    undo: Vec<Undo>,
    /// The accumulators when a net evaluates.
    nnue: Option<nnue::AtaxxNnue>,
}

impl PartialEq for Ataxx {
    /// Positions are equal when everything that decides play is (not the undo stack).
    fn eq(&self, other: &Ataxx) -> bool {
        self.stones == other.stones
            && self.gaps == other.gaps
            && self.side == other.side
            && self.halfmoves == other.halfmoves
            && self.fullmoves == other.fullmoves
    }
}

impl Eq for Ataxx {}

impl Ataxx {
    /// A position from its parts; computes the key.
    fn from_parts(
        stones: [u64; 2],
        gaps: u64,
        side: Player,
        halfmoves: u32,
        fullmoves: u32,
    ) -> Self {
        let mut key = if side == Player::Second { KEYS.side } else { 0 };
        for (player, &bits) in stones.iter().enumerate() {
            for square in Squares(bits) {
                key ^= KEYS.stones[player][square];
            }
        }
        Ataxx {
            stones,
            gaps,
            side,
            halfmoves,
            fullmoves,
            key,
            undo: Vec::with_capacity(256),
            nnue: None,
        }
    }

    /// This position evaluated as `variant` says: with a net, its accumulators computed.
    fn with_variant(mut self, variant: &AtaxxVariant) -> Self {
        self.nnue = variant
            .net
            .as_ref()
            .map(|net| nnue::new_state(Arc::clone(net), self.stones, self.gaps));
        self
    }

    /// The stones of the first player (`x`) and of the second (`o`), one bit a cell.
    pub fn stones(&self) -> [u64; 2] {
        self.stones
    }

    /// The gaps (blocked cells), one bit a cell.
    pub fn gaps(&self) -> u64 {
        self.gaps
    }

    /// The half-move clock and the full-move number, as the FEN writes them.
    pub fn clocks(&self) -> (u32, u32) {
        (self.halfmoves, self.fullmoves)
    }

    /// The accumulators, when a net evaluates.
    pub fn nnue(&self) -> Option<&nnue::AtaxxNnue> {
        self.nnue.as_ref()
    }

    /// The net's evaluation from scratch (no accumulator kept): the reference for the
    /// incremental updates; `None` without a net.
    pub fn evaluate_net_from_scratch(&self) -> Option<i32> {
        let net = self.nnue.as_ref()?.network();
        let us = self.side.index();
        Some(net.evaluate_features(
            nnue::active(net.features(), self.stones, self.gaps, us),
            nnue::active(net.features(), self.stones, self.gaps, 1 - us),
            nnue::output_bucket(self.stones, net.buckets()),
        ))
    }

    /// The stone difference and tempo share (the evaluation without a net).
    pub fn evaluate_hand_crafted(&self) -> i32 {
        let own = self.stones[self.side.index()].count_ones() as i32;
        let other = self.stones[self.side.other().index()].count_ones() as i32;
        STONE_VALUE * (own - other) + TEMPO_SHARE * self.best_gain() / 100
    }

    /// What the cell at `file` and `rank` (0-based, rank 0 at the bottom) holds, for the
    /// FEN and the drawing.
    fn mark(&self, file: usize, rank: usize) -> grid::Mark {
        let bit = 1u64 << (rank * SIDE + file);
        if self.stones[0] & bit != 0 {
            grid::Mark::Stone(Player::First)
        } else if self.stones[1] & bit != 0 {
            grid::Mark::Stone(Player::Second)
        } else if self.gaps & bit != 0 {
            grid::Mark::Gap
        } else {
            grid::Mark::Empty
        }
    }

    /// The stones of `player`.
    pub fn stones_of(&self, player: Player) -> u64 {
        self.stones[player.index()]
    }

    /// The half-move clock: half-moves since the last single.
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// Empty squares (neither stone nor gap).
    fn empty(&self) -> u64 {
        BOARD & !(self.stones[0] | self.stones[1] | self.gaps)
    }

    /// The stone count decides: the game is over because a side has no stones or no stone
    /// of either side can reach an empty square.
    fn decided_by_count(&self) -> bool {
        let [first, second] = self.stones;
        first == 0 || second == 0 || within_two(first | second) & self.empty() == 0
    }

    /// The end of the game by the rules and why, from the side to move's view.
    fn rule_end(&self) -> Option<(Outcome, EndReason)> {
        if self.decided_by_count() {
            let own = self.stones[self.side.index()].count_ones();
            let other = self.stones[self.side.other().index()].count_ones();
            let outcome = match own.cmp(&other) {
                std::cmp::Ordering::Greater => Outcome::Win,
                std::cmp::Ordering::Less => Outcome::Loss,
                std::cmp::Ordering::Equal => Outcome::Draw,
            };
            Some((outcome, EndReason::Rules))
        } else if self.halfmoves >= CLOCK_LIMIT {
            Some((Outcome::Draw, EndReason::FiftyMoveRule))
        } else {
            None
        }
    }

    /// Whether the side to move has a move other than passing.
    fn can_move(&self) -> bool {
        within_two(self.stones[self.side.index()]) & self.empty() != 0
    }

    /// The stones the side to move gains with its best move, counted as the stone
    /// difference changes: twice the stones it takes, plus one for a single.
    fn best_gain(&self) -> i32 {
        let own = self.stones[self.side.index()];
        let other = self.stones[self.side.other().index()];
        let empty = self.empty();
        let singles = neighbours(own) & empty;
        let mut best = i32::from(singles != 0);
        for to in Squares(within_two(own) & empty & neighbours(other)) {
            let taken = (SINGLES[to] & other).count_ones() as i32;
            let gain = 2 * taken + i32::from(singles & (1 << to) != 0);
            best = best.max(gain);
        }
        STONE_VALUE * best
    }

    /// Stones the move turns: the opponent's next to the destination.
    fn captures(&self, mv: AtaxxMove) -> u64 {
        if mv.is_pass() {
            return 0;
        }
        SINGLES[usize::from(mv.to)] & self.stones[self.side.other().index()]
    }
}

/// The board of Ataxx in the shared grid reader's terms.
const SHAPE: grid::GridShape = grid::GridShape {
    width: SIDE,
    height: SIDE,
    line: "rank",
    cell: "square",
    gaps: true,
};

/// What is wrong with a FEN, if anything; see [`Ataxx::from_fen`].
fn parse_fen(fen: &str) -> Result<Ataxx, String> {
    // Step 1. The board, the side to move, then optionally the two clocks.
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if !(2..=4).contains(&fields.len()) {
        return Err(format!(
            "expected the board, the side to move, the half-move clock and the full-move \
             number separated by spaces, found {} field(s)",
            fields.len()
        ));
    }
    let side = grid::read_side(fields[1])?;
    let number = |name: &str, text: Option<&&str>, default: u32| match text {
        None => Ok(default),
        Some(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => text
            .parse::<u32>()
            .map_err(|_| format!("the {name} '{text}' is too large")),
        Some(text) => Err(format!(
            "the {name} must be a non-negative integer, found '{text}'"
        )),
    };
    let halfmoves = number("half-move clock", fields.get(2), 0)?;
    let fullmoves = number("full-move number", fields.get(3), 1)?;
    if fullmoves == 0 {
        return Err("the full-move number starts at 1, found 0".to_string());
    }

    // Step 2. Seven ranks of seven squares, rank 7 first.
    let (mut stones, mut gaps) = ([0u64; 2], 0u64);
    for (square, mark) in grid::read_board(fields[0], &SHAPE)?.into_iter().enumerate() {
        match mark {
            grid::Mark::Stone(player) => stones[player.index()] |= 1u64 << square,
            grid::Mark::Gap => gaps |= 1u64 << square,
            grid::Mark::Empty => {}
        }
    }

    // Step 3. Positions no game reaches: no stones at all, or the side that just moved
    // without a stone (a move or a pass leaves the mover at least one).
    if stones == [0, 0] {
        return Err("there are no stones on the board".to_string());
    }
    let moved = side.other();
    let started = !(side == Player::First && fullmoves == 1);
    if started && stones[moved.index()] == 0 {
        return Err(format!(
            "{} has just moved yet has no stones",
            grid::symbol(moved)
        ));
    }
    Ok(Ataxx::from_parts(stones, gaps, side, halfmoves, fullmoves))
}

impl Rules for Ataxx {
    type Move = AtaxxMove;
    type Variant = AtaxxVariant;

    fn start(variant: &AtaxxVariant) -> Self {
        let corners = |a: usize, b: usize| (1u64 << a) | (1u64 << b);
        // x on a7 and g1, o on g7 and a1.
        Ataxx::from_parts(
            [corners(6 * SIDE, SIDE - 1), corners(0, CELLS - 1)],
            0,
            Player::First,
            0,
            1,
        )
        .with_variant(variant)
    }

    /// Parses `board side [halfmoves [fullmoves]]`; refuses malformed text and positions no
    /// game reaches (no stones at all, the side that just moved without stones).
    fn from_fen(variant: &AtaxxVariant, fen: &str) -> Result<Self, GameError> {
        parse_fen(fen)
            .map(|position| position.with_variant(variant))
            .map_err(|reason| GameError::position(fen, reason))
    }

    fn to_fen(&self) -> String {
        let mut fen = grid::write_board(SIDE, SIDE, |file, rank| self.mark(file, rank));
        let side = grid::symbol(self.side);
        let _ = write!(fen, " {side} {} {}", self.halfmoves, self.fullmoves);
        fen
    }

    fn render(&self) -> String {
        grid::draw_board(SIDE, SIDE, |file, rank| self.mark(file, rank))
    }

    fn side_to_move(&self) -> Player {
        self.side
    }

    fn ply(&self) -> u32 {
        let second = u32::from(self.side == Player::Second);
        self.fullmoves.saturating_sub(1).saturating_mul(2) + second
    }

    /// Singles by destination, then doubles by origin; the pass when there is nothing
    /// else; nothing once the game is over. At most 49 singles and, in the richest boards
    /// a search found, under 200 moves in all: within `MAX_MOVES` (256, libataxx's bound).
    fn generate_moves(&self, moves: &mut MoveList<AtaxxMove>) {
        if self.rule_end().is_some() {
            return;
        }
        let own = self.stones[self.side.index()];
        let empty = self.empty();
        for to in Squares(neighbours(own) & empty) {
            moves.push(AtaxxMove::single(to));
        }
        for from in Squares(own) {
            for to in Squares(DOUBLES[from] & empty) {
                moves.push(AtaxxMove::double(from, to));
            }
        }
        if moves.is_empty() {
            moves.push(AtaxxMove::PASS);
        }
    }

    fn make_move(&mut self, mv: AtaxxMove) {
        let (us, them) = (self.side.index(), self.side.other().index());
        let captured = self.captures(mv);
        self.undo.push(Undo {
            captured,
            halfmoves: self.halfmoves,
        });
        self.halfmoves = self.halfmoves.saturating_add(1);
        if self.side == Player::Second {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.key ^= KEYS.side;
        if let Some(state) = &mut self.nnue {
            let set = *state.network().features();
            let stones = self.stones;
            state.push_with(|delta| {
                if !mv.is_pass() {
                    let from = mv.is_double().then_some(usize::from(mv.from));
                    let cells = (usize::from(mv.to), from);
                    nnue::fill_delta(&set, stones, us, cells, captured, delta);
                }
            });
        }
        if !mv.is_pass() {
            let to = usize::from(mv.to);
            self.stones[us] |= 1 << to;
            self.key ^= KEYS.stones[us][to];
            if mv.is_double() {
                let from = usize::from(mv.from);
                self.stones[us] ^= 1 << from;
                self.key ^= KEYS.stones[us][from];
            } else {
                self.halfmoves = 0;
            }
            self.stones[us] |= captured;
            self.stones[them] ^= captured;
            self.key ^= flip_key(captured);
        }
        self.side = self.side.other();
    }

    fn unmake_move(&mut self, mv: AtaxxMove) {
        let Some(undo) = self.undo.pop() else {
            debug_assert!(false, "unmake_move without a move made");
            return;
        };
        if let Some(state) = &mut self.nnue {
            state.pop();
        }
        self.side = self.side.other();
        let (us, them) = (self.side.index(), self.side.other().index());
        if self.side == Player::Second {
            self.fullmoves -= 1;
        }
        self.halfmoves = undo.halfmoves;
        self.key ^= KEYS.side;
        if !mv.is_pass() {
            self.stones[us] ^= undo.captured;
            self.stones[them] |= undo.captured;
            self.key ^= flip_key(undo.captured);
            let to = usize::from(mv.to);
            self.stones[us] ^= 1 << to;
            self.key ^= KEYS.stones[us][to];
            if mv.is_double() {
                let from = usize::from(mv.from);
                self.stones[us] |= 1 << from;
                self.key ^= KEYS.stones[us][from];
            }
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.rule_end().map(|(outcome, _)| outcome)
    }

    fn game_end(&self) -> Option<GameEnd> {
        self.rule_end()
            .map(|(outcome, reason)| GameEnd::new(outcome, self.side, reason))
    }

    fn hash(&self) -> u64 {
        self.key ^ KEYS.clock[self.halfmoves.min(CLOCK_LIMIT) as usize]
    }

    fn parse_move(&self, text: &str) -> Result<AtaxxMove, GameError> {
        let trimmed = text.trim();
        let invalid = || GameError::InvalidMove(text.to_string());
        let mv = match trimmed.as_bytes() {
            b"0000" => AtaxxMove::PASS,
            [_, _] => AtaxxMove::single(parse_square(trimmed.as_bytes()).ok_or_else(invalid)?),
            [a, b, c, d] => {
                let from = parse_square(&[*a, *b]).ok_or_else(invalid)?;
                let to = parse_square(&[*c, *d]).ok_or_else(invalid)?;
                // A single is written as its destination alone (libataxx refuses `b2b3`).
                if distance(from, to) != 2 {
                    return Err(invalid());
                }
                AtaxxMove::double(from, to)
            }
            _ => return Err(invalid()),
        };
        if self.rule_end().is_some() {
            return Err(GameError::GameOver(text.to_string()));
        }
        let own = self.stones[self.side.index()];
        let legal = if mv.is_pass() {
            !self.can_move()
        } else {
            let to = usize::from(mv.to);
            let empty = self.empty() & (1 << to) != 0;
            let reaches = if mv.is_double() {
                own & (1 << mv.from) != 0
            } else {
                SINGLES[to] & own != 0
            };
            empty && reaches
        };
        if legal {
            Ok(mv)
        } else {
            Err(GameError::IllegalMove(text.to_string()))
        }
    }

    fn format_move(&self, mv: AtaxxMove) -> String {
        if mv.is_pass() {
            "0000".to_string()
        } else if mv.is_single() {
            square_name(usize::from(mv.to))
        } else {
            square_name(usize::from(mv.from)) + &square_name(usize::from(mv.to))
        }
    }
}

/// The distance between two classes of captures' hints: more than any history spread.
const CAPTURE_CLASS_STEP: i32 = 2 * HISTORY_MAX;

/// Ataxx's search constants: chess's defaults (margins set in the hand-crafted
/// evaluation's centipawns, the clock planned for 40 moves) with twelve of them tuned by
/// `scripts/spsa.py` (500 game pairs at 1 s + 0.01 s with the built-in net; the run and
/// the match that kept them are in docs/ataxx.md and docs/tuning.md).
pub const ATAXX_SEARCH_PARAMS: SearchParams = SearchParams {
    aspiration_window: 41,
    reverse_futility_depth: 9,
    reverse_futility_margin: 16,
    futility_base: 158,
    futility_margin: 101,
    late_move_pruning_depth: 10,
    history_pruning_margin: 2_047,
    null_move_base: 3,
    null_move_eval_divisor: 139,
    lmr_base: 0.31,
    lmr_divisor: 1.98,
    history_bonus_linear: 300,
    history_bonus_quadratic: 0,
    history_bonus_max: 1_500,
    planned_moves: 33,
    iir_depth: 3,
    ..SearchParams::DEFAULT
};

impl SearchHooks for Ataxx {
    /// The stone difference from the side to move's view, plus a share of what the side
    /// to move gains with its best move (see `Ataxx::best_gain`): without it the
    /// evaluation swings by several stones between odd and even depths.
    ///
    /// With a net: from the current accumulator if it is computed, else from the last
    /// computed ones and the pending moves, nothing stored (the search's leaves without
    /// quiescence ask this; [`SearchHooks::evaluate_mut`] stores what it computes).
    fn evaluate(&self) -> i32 {
        match &self.nnue {
            Some(state) => state.evaluate_lazily(
                self.side.index(),
                nnue::output_bucket(self.stones, state.network().buckets()),
            ),
            None => self.evaluate_hand_crafted(),
        }
    }

    /// With a net, brings the accumulators up to date (lazily: only now) and evaluates.
    fn evaluate_mut(&mut self) -> i32 {
        match &mut self.nnue {
            Some(state) => {
                let bucket = nnue::output_bucket(self.stones, state.network().buckets());
                state.evaluate(self.side.index(), bucket)
            }
            None => self.evaluate_hand_crafted(),
        }
    }

    fn encode_move(mv: AtaxxMove) -> u16 {
        u16::from(mv.from) << 6 | u16::from(mv.to)
    }

    const HISTORY_SIZE: usize = 2 * 64 * 64;

    const SEARCH_PARAMS: SearchParams = ATAXX_SEARCH_PARAMS;

    fn history_index(&self, mv: AtaxxMove) -> usize {
        self.side.index() * 64 * 64 + usize::from(Self::encode_move(mv))
    }

    /// Moves that take stones first, by the stones taken plus two for a single (a double
    /// leaves a hole), classes [`CAPTURE_CLASS_STEP`] apart (the shared history orders
    /// within a class only); quiet singles next; quiet doubles, which gain nothing, last.
    fn move_hint(&self, mv: AtaxxMove) -> i32 {
        let taken = self.captures(mv).count_ones() as i32;
        let weight = taken + 2 * i32::from(mv.is_single());
        match (taken, mv.is_double()) {
            (0, false) => 1,
            (0, true) => -1,
            _ => QUIET_HINT_LIMIT + weight * CAPTURE_CLASS_STEP,
        }
    }

    /// Null move, reverse futility, futility and late-move pruning, late move reductions,
    /// internal iterative reductions (at every node) and singular extensions (off the
    /// PV), each kept on a match (see `docs/ataxx.md`).
    fn pruning(&self) -> Pruning {
        Pruning {
            null_move: true,
            late_move_reductions: true,
            internal_reductions: true,
            internal_reductions_everywhere: true,
            reverse_futility: true,
            futility: true,
            singular_extensions: true,
            singular_off_pv_only: true,
            reduce_forcing: true,
            ..Pruning::default()
        }
    }

    /// Passing is sound while the side to move has a move: Ataxx zugzwang needs a board
    /// so full that a side runs out of moves.
    fn null_move_allowed(&self) -> bool {
        self.can_move()
    }

    /// Hands the turn over; the clocks stay, so the key changes by the side alone.
    fn make_null(&mut self) {
        self.side = self.side.other();
        self.key ^= KEYS.side;
        if let Some(state) = &mut self.nnue {
            state.push(crate::nnue::Delta::default());
        }
    }

    fn unmake_null(&mut self) {
        self.side = self.side.other();
        self.key ^= KEYS.side;
        if let Some(state) = &mut self.nnue {
            state.pop();
        }
    }
}

impl SearchRefinements for Ataxx {
    /// Ataxx has no check: a move late move pruning skips is never made.
    fn gives_check(&self, _mv: AtaxxMove) -> Option<bool> {
        Some(false)
    }

    /// Captures share the butterfly history with quiet moves (zataxx's single table).
    const FORCING_HISTORY: bool = true;
}

impl ExactHooks for Ataxx {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix;
    use crate::search::perft::perft;
    use crate::search::GameResult;

    fn fen(text: &str) -> Ataxx {
        Ataxx::from_fen(&AtaxxVariant::default(), text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn moves_of(position: &Ataxx) -> Vec<AtaxxMove> {
        let mut moves = MoveList::new();
        position.generate_moves(&mut moves);
        moves.to_vec()
    }

    /// A plain reference: the moves of the side to move by looking at every square pair.
    fn naive_moves(position: &Ataxx) -> Vec<String> {
        let own = position.stones_of(position.side);
        let empty = position.empty();
        let mut singles = Vec::new();
        let mut doubles = Vec::new();
        for to in 0..CELLS {
            if empty & (1 << to) == 0 {
                continue;
            }
            for from in 0..CELLS {
                if own & (1 << from) == 0 {
                    continue;
                }
                match distance(from, to) {
                    1 => singles.push(square_name(to)),
                    2 => doubles.push(square_name(from) + &square_name(to)),
                    _ => {}
                }
            }
        }
        singles.sort();
        singles.dedup();
        singles.extend(doubles);
        singles.sort();
        if singles.is_empty() {
            singles.push("0000".to_string());
        }
        singles
    }

    #[test]
    fn tables_have_the_right_sizes() {
        // a1 has 3 neighbours and 5 squares at distance 2; d4 has 8 and 16.
        assert_eq!(SINGLES[0].count_ones(), 3);
        assert_eq!(DOUBLES[0].count_ones(), 5);
        assert_eq!(SINGLES[24].count_ones(), 8);
        assert_eq!(DOUBLES[24].count_ones(), 16);
        for square in 0..CELLS {
            for other in 0..CELLS {
                let bit = 1u64 << other;
                assert_eq!(
                    SINGLES[square] & bit != 0,
                    distance(square, other) == 1,
                    "{square} {other}"
                );
                assert_eq!(
                    DOUBLES[square] & bit != 0,
                    distance(square, other) == 2,
                    "{square} {other} {:b}",
                    DOUBLES[square]
                );
            }
        }
    }

    #[test]
    fn start_position() {
        let start = Ataxx::start(&AtaxxVariant::default());
        assert_eq!(start.to_fen(), "x5o/7/7/7/7/7/o5x x 0 1");
        assert_eq!(fen("x5o/7/7/7/7/7/o5x x 0 1"), start);
        assert_eq!(fen("x5o/7/7/7/7/7/o5x x"), start);
        assert_eq!(fen("x5o/7/7/7/7/7/o5x x 0 1").hash(), start.hash());
        assert_eq!(start.ply(), 0);
        assert_eq!(moves_of(&start).len(), 16);
        // Level stones; the side to move is owed half of its best move's gain (a single).
        assert_eq!(
            start.evaluate_hand_crafted(),
            TEMPO_SHARE * STONE_VALUE / 100
        );
        assert_eq!(
            start.render(),
            "7 x . . . . . o\n\
             6 . . . . . . .\n\
             5 . . . . . . .\n\
             4 . . . . . . .\n\
             3 . . . . . . .\n\
             2 . . . . . . .\n\
             1 o . . . . . x\n  \
             a b c d e f g"
        );
    }

    #[test]
    fn moves_match_the_naive_reference_and_unmake_restores() {
        let mut rng = SplitMix::new(0x5eed_a7a8);
        for game in 0..200 {
            let mut position = if game % 3 == 1 {
                fen("x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1")
            } else {
                Ataxx::start(&AtaxxVariant::default())
            };
            loop {
                let moves = moves_of(&position);
                if moves.is_empty() {
                    assert!(position.game_end().is_some());
                    break;
                }
                let mut names: Vec<String> =
                    moves.iter().map(|&mv| position.format_move(mv)).collect();
                names.sort();
                assert_eq!(names, naive_moves(&position), "{}", position.to_fen());
                for &mv in &moves {
                    let name = position.format_move(mv);
                    assert_eq!(position.parse_move(&name), Ok(mv), "{name}");
                }
                let parsed = fen(&position.to_fen());
                assert_eq!(parsed, position);
                assert_eq!(parsed.hash(), position.hash());
                let before = (position.clone(), position.hash(), position.to_fen());
                let mv = moves[rng.below(moves.len())];
                position.make_move(mv);
                let after = position.clone();
                position.unmake_move(mv);
                assert_eq!(position, before.0);
                assert_eq!(position.hash(), before.1);
                assert_eq!(position.to_fen(), before.2);
                position = after;
            }
        }
    }

    #[test]
    fn captures_flip_neighbours_and_the_clock_follows_libataxx() {
        // x on c3 with o around it: a single to d4 takes c4, d3, e5; a double from c3 to
        // e3 leaves c3 empty and takes d3 and f4.
        let position = fen("7/7/7/2o1o2/2xo3/7/7 x 7 9");
        let mut single = position.clone();
        single.make_move(single.parse_move("d4").unwrap());
        assert_eq!(single.to_fen(), "7/7/7/2xxx2/2xx3/7/7 o 0 9");
        let mut double = position.clone();
        double.make_move(double.parse_move("c3e3").unwrap());
        assert_eq!(double.to_fen(), "7/7/7/2o1x2/3xx2/7/7 o 8 9");
        double.make_move(double.parse_move("b3").unwrap());
        assert_eq!(double.halfmoves(), 0);
        assert_eq!(double.to_fen(), "7/7/7/2o1x2/1o1xx2/7/7 x 0 10");
        // Taken stones plus two for a single: a single that takes one (b4 takes c4) comes
        // before a double that takes two.
        let hint = |mv: &str| position.move_hint(position.parse_move(mv).unwrap());
        assert_eq!(hint("d4"), QUIET_HINT_LIMIT + 5 * CAPTURE_CLASS_STEP);
        assert_eq!(hint("b4"), QUIET_HINT_LIMIT + 3 * CAPTURE_CLASS_STEP);
        assert_eq!(hint("c3e3"), QUIET_HINT_LIMIT + 2 * CAPTURE_CLASS_STEP);
        assert_eq!(hint("b2"), 1);
        assert_eq!(hint("c3a1"), -1);
    }

    #[test]
    fn the_evaluation_counts_half_the_best_immediate_gain() {
        // x to move: a single to b6 takes the three o stones around it (a7, b7, c7 are
        // next to b6): +1 stone and +3 taken, a difference of 7.
        let position = fen("ooo4/7/x6/7/7/7/7 x 0 1");
        assert_eq!(position.best_gain(), 7 * STONE_VALUE);
        assert_eq!(
            position.evaluate_hand_crafted(),
            -2 * STONE_VALUE + TEMPO_SHARE * 7
        );
        // Nothing to take: a single still adds a stone.
        let quiet = fen("o6/7/7/7/7/7/6x x 0 1");
        assert_eq!(quiet.best_gain(), STONE_VALUE);
        // The same board with o to move: the gain is o's.
        let other = fen("o6/7/7/7/7/7/6x o 0 1");
        assert_eq!(other.evaluate_hand_crafted(), TEMPO_SHARE);
    }

    #[test]
    fn passes_are_forced_and_counted() {
        // x is walled in by o (libataxx tests/passing.cpp): its only move is the pass.
        let walled = fen("7/7/7/7/4ooo/4ooo/4oox x 0 1");
        assert_eq!(moves_of(&walled), vec![AtaxxMove::PASS]);
        assert_eq!(walled.parse_move("0000"), Ok(AtaxxMove::PASS));
        let mut passed = walled.clone();
        passed.make_move(AtaxxMove::PASS);
        assert_eq!(passed.to_fen(), "7/7/7/7/4ooo/4ooo/4oox o 1 1");
        assert!(!moves_of(&passed).contains(&AtaxxMove::PASS));
        assert_eq!(
            passed.parse_move("0000"),
            Err(GameError::IllegalMove("0000".to_string()))
        );
        passed.unmake_move(AtaxxMove::PASS);
        assert_eq!(passed, walled);
        assert_eq!(
            Ataxx::start(&AtaxxVariant::default()).parse_move("0000"),
            Err(GameError::IllegalMove("0000".to_string()))
        );
    }

    /// libataxx `tests/result.cpp`: who wins, and that a decided count beats the clock.
    #[test]
    fn results_follow_libataxx() {
        use GameResult::{Draw, FirstWins, SecondWins};
        for (text, expected, reason) in [
            ("x5o/7/7/7/7/7/o5x x 99 1", None, None),
            (
                "x5o/7/7/7/7/7/o5x x 100 1",
                Some(Draw),
                Some(EndReason::FiftyMoveRule),
            ),
            (
                "xxo4/7/7/7/7/7/7 o 100 1",
                Some(Draw),
                Some(EndReason::FiftyMoveRule),
            ),
            (
                "x6/7/7/7/7/7/7 o 0 1",
                Some(FirstWins),
                Some(EndReason::Rules),
            ),
            (
                "o6/7/7/7/7/7/7 x 0 1",
                Some(SecondWins),
                Some(EndReason::Rules),
            ),
            (
                "xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx x 0 1",
                Some(FirstWins),
                Some(EndReason::Rules),
            ),
            (
                "ooooooo/ooooooo/ooooooo/oooxxxx/xxxxxxx/xxxxxxx/xxxxxxx o 0 1",
                Some(FirstWins),
                Some(EndReason::Rules),
            ),
            (
                "ooooooo/ooooooo/ooooooo/ooooxxx/xxxxxxx/xxxxxxx/xxxxxxx x 0 1",
                Some(SecondWins),
                Some(EndReason::Rules),
            ),
            (
                "ooooooo/ooooooo/ooooooo/ooo-xxx/xxxxxxx/xxxxxxx/xxxxxxx x 0 1",
                Some(Draw),
                Some(EndReason::Rules),
            ),
            (
                "7/7/7/7/-------/-------/xxxxooo x 100 1",
                Some(FirstWins),
                Some(EndReason::Rules),
            ),
            (
                "7/7/7/7/-------/-------/xxxoooo o 0 1",
                Some(SecondWins),
                Some(EndReason::Rules),
            ),
            (
                "7/7/7/7/-------/-------/xxx-ooo x 0 1",
                Some(Draw),
                Some(EndReason::Rules),
            ),
        ] {
            let position = fen(text);
            let end = position.game_end();
            assert_eq!(end.map(|e| e.result), expected, "{text}");
            assert_eq!(end.map(|e| e.reason), reason, "{text}");
            assert_eq!(position.outcome().is_some(), expected.is_some(), "{text}");
            if expected.is_some() {
                assert!(moves_of(&position).is_empty(), "{text}");
                assert_eq!(
                    position.parse_move("0000"),
                    Err(GameError::GameOver("0000".to_string()))
                );
            }
        }
        let won = fen("x6/7/7/7/7/7/7 o 0 1").game_end().unwrap();
        assert_eq!(won.describe(["x", "o"]), "x wins by the rules");
    }

    #[test]
    fn fen_rejections() {
        for (text, expected) in [
            ("", "found 0 field(s)"),
            ("x5o/7/7/7/7/7/o5x", "found 1 field(s)"),
            ("x5o/7/7/7/7/7/o5x x 0 1 5", "found 5 field(s)"),
            ("x5o/7/7/7/7/7/o5x b 0 1", "side to move must be"),
            ("x5o/7/7/7/7/7/o5x x -1 1", "non-negative integer"),
            ("x5o/7/7/7/7/7/o5x x 0 0", "starts at 1"),
            ("x5o/7/7/7/7/7/o5x x 0 99999999999", "too large"),
            ("x5o/7/7/7/7/o5x x 0 1", "7 ranks"),
            ("x5o/7/7/7/7/7/7/o5x x 0 1", "7 ranks"),
            ("x5o/7/7/7/7/6/o5x x 0 1", "has 6 squares"),
            ("x5o/7/7/7/7/8/o5x x 0 1", "unexpected character '8'"),
            ("x6o/7/7/7/7/7/o5x x 0 1", "more than 7 squares"),
            ("x5o/7/7/7/7/07/o5x x 0 1", "run of 0"),
            ("x5o/7/7/7/7/34/o5x x 0 1", "more than 7 empty"),
            ("X5o/7/7/7/7/7/o5x x 0 1", "unexpected character 'X'"),
            ("x5o/7/7/7/7/7/o5b x 0 1", "unexpected character 'b'"),
            ("7/7/7/7/7/7/7 x 0 1", "no stones"),
            ("o6/7/7/7/7/7/7 o 0 1", "x has just moved yet has no stones"),
            ("x6/7/7/7/7/7/7 x 3 5", "o has just moved yet has no stones"),
        ] {
            match Ataxx::from_fen(&AtaxxVariant::default(), text) {
                Err(GameError::InvalidPosition { text: t, reason }) => {
                    assert_eq!(t, text);
                    assert!(reason.contains(expected), "{text}: {reason}");
                }
                other => panic!("'{text}' gave {other:?}"),
            }
        }
        // The first player to move at the start may face an empty side (a setup).
        assert!(Ataxx::from_fen(&AtaxxVariant::default(), "o6/7/7/7/7/7/7 x 0 1").is_ok());
    }

    #[test]
    fn fen_never_panics_on_junk() {
        let mut rng = SplitMix::new(4242);
        let alphabet = b"xo-0123456789/ \tab\xc3\xa9";
        for _ in 0..20_000 {
            let len = (rng.next_u64() % 40) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let text = String::from_utf8_lossy(&bytes);
            let _ = Ataxx::from_fen(&AtaxxVariant::default(), &text);
            let _ = Ataxx::start(&AtaxxVariant::default()).parse_move(&text);
        }
    }

    #[test]
    fn move_text_errors() {
        let start = Ataxx::start(&AtaxxVariant::default());
        let invalid = |t: &str| Err(GameError::InvalidMove(t.to_string()));
        let illegal = |t: &str| Err(GameError::IllegalMove(t.to_string()));
        for bad in [
            "", "a", "a0", "a8", "h1", "A1", "g1g4", "g1g1", "00000", "g1f2", "f1f2", "a1b",
            "null", "é1",
        ] {
            assert_eq!(start.parse_move(bad), invalid(bad), "{bad:?}");
        }
        // c3 is two steps from every stone: a jump written as a single.
        assert_eq!(start.parse_move("c3"), illegal("c3"));
        // f6 is next to o's g7, not to an x: not x's single.
        assert_eq!(start.parse_move("f6"), illegal("f6"));
        assert_eq!(start.parse_move("a1c3"), illegal("a1c3"));
        assert_eq!(start.parse_move("g1g7"), invalid("g1g7"));
        assert_eq!(start.parse_move("a7a7"), invalid("a7a7"));
        assert_eq!(start.parse_move(" f2 "), Ok(AtaxxMove::single(12)));
        assert_eq!(start.parse_move("g1e3"), Ok(AtaxxMove::double(6, 18)));
        // A jump onto a gap or a stone.
        let gaps = fen("x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1");
        assert_eq!(gaps.parse_move("a7c5"), illegal("a7c5"));
        assert_eq!(gaps.parse_move("a7b5"), Ok(AtaxxMove::double(42, 29)));
        assert_eq!(start.parse_move("a7g7"), invalid("a7g7"));
        assert_eq!(start.parse_move("g1g3"), Ok(AtaxxMove::double(6, 20)));
    }

    #[test]
    fn hashes_tell_positions_apart_and_include_the_clock() {
        let mut seen = std::collections::HashMap::new();
        let mut rng = SplitMix::new(777);
        for _ in 0..2_000 {
            let mut position = Ataxx::start(&AtaxxVariant::default());
            for _ in 0..(rng.next_u64() % 24) {
                let moves = moves_of(&position);
                if moves.is_empty() {
                    break;
                }
                position.make_move(moves[rng.below(moves.len())]);
            }
            let key = position.to_fen();
            let board = key
                .rsplit_once(' ')
                .map_or("", |(board, _)| board)
                .to_string();
            if let Some(other) = seen.insert(position.hash(), board.clone()) {
                assert_eq!(other, board, "hash collision");
            }
        }
        let a = fen("x5o/7/7/7/7/7/o5x x 0 1");
        let b = fen("x5o/7/7/7/7/7/o5x x 3 1");
        assert_ne!(a.hash(), b.hash());
        assert_ne!(a.hash(), fen("x5o/7/7/7/7/7/o5x o 0 1").hash());
    }

    #[test]
    fn encodings_are_unique() {
        let mut codes = std::collections::HashSet::new();
        codes.insert(Ataxx::encode_move(AtaxxMove::PASS));
        for (to, &doubles) in DOUBLES.iter().enumerate() {
            assert!(codes.insert(Ataxx::encode_move(AtaxxMove::single(to))));
            for from in Squares(doubles) {
                assert!(codes.insert(Ataxx::encode_move(AtaxxMove::double(from, to))));
            }
        }
        let start = Ataxx::start(&AtaxxVariant::default());
        for mv in moves_of(&start) {
            assert!(start.history_index(mv) < Ataxx::HISTORY_SIZE);
        }
    }

    /// libataxx `tests/perft.cpp` (github.com/kz04px/libataxx): the start position.
    #[test]
    fn perft_from_start() {
        let mut position = Ataxx::start(&AtaxxVariant::default());
        for (depth, expected) in [(1, 16), (2, 256), (3, 6460), (4, 155888)] {
            assert_eq!(perft(&mut position, depth), expected, "depth {depth}");
        }
        assert_eq!(position, Ataxx::start(&AtaxxVariant::default()));
    }
}
