//! Gomoku: five in a row on boards of 5x5 to 22x22, freestyle, exactly five or renju.
//!
//! Two players alternately place a stone on an empty cell; the first to make five in a row
//! (horizontally, vertically or diagonally) wins. Under the *freestyle* rule a longer line
//! (an overline) wins too; under *exactly five* (the Gomocup's "standard") it does not.
//! Under *renju* White wins with five or more, Black with exactly five, and Black may not
//! play a forbidden point (a double three, a double four or an overline: [`renju`]). A
//! full board without a five is a draw.
//!
//! The position keeps, for every cell and direction, the line key of its four neighbours
//! on each side (see `pattern`), and from it, per player, what a stone there would make:
//! its `pattern::Pattern` per direction, their combination into a [`Threat`] level and a
//! value. Placing a stone changes the keys of the 32 cells it sees, so all of this (the
//! evaluation's sums, the sets of cells that make fives and fours) is kept incrementally.
//! The search sees only candidate cells near the stones ([`Gomoku::generate_search_moves`]),
//! ordered by the threats they make and stop; fours are its noisy moves, so quiescence is
//! a search for wins by continuous fours (VCF), and a five threat is a check: the reply is
//! forced and extended.
//!
//! Notation: cells are named like chess squares, `a1` at the bottom left, files `a`, `b`,
//! `c`... consecutive. FEN: rows from top to bottom separated by `/`, `x` (first player)
//! and `o` for stones, decimal run lengths for empty cells, then the side to move.

pub mod nnue;
mod pattern;
pub mod policy;
pub mod renju;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::{Arc, OnceLock};

use pattern::{Pattern, PATTERNS, WALL_BITS};

use super::grid::{self, Mark};
use super::{
    BenchPosition, DialectSetting, Evaluation, GameInfo, PieceMarks, ProtocolSettings,
    ToolSettings, VariantOption, VariantOptionKind, VariantSettings,
};
use crate::search::game::{
    ExactHooks, GameError, MoveList, Outcome, Player, Pruning, Rules, SearchHooks,
    SearchRefinements, QUIET_HINT_LIMIT,
};
use crate::search::params::SearchParams;

/// Freestyle gomoku on 15x15 in the registry.
pub const INFO: GameInfo = GameInfo {
    name: "gomoku",
    aliases: &["freestyle"],
    summary: "gomoku: 15x15, five or more in a row (freestyle); moves are cells a1-o15",
    players: ["x", "o"],
    pieces: PieceMarks::Stones('x', 'o'),
    protocol: ProtocolSettings {
        own_dialect: Some("gomocup"),
        variant_options: &[size_option(15), rule_option(FREESTYLE)],
        dialect_settings: &[
            DialectSetting {
                setting: "size",
                option: SIZE_OPTION,
                values: &[],
            },
            DialectSetting {
                setting: "rule",
                option: RULE_OPTION,
                values: &[
                    ("0", FREESTYLE),
                    ("1", EXACT_FIVE),
                    ("2", RENJU),
                    ("4", RENJU),
                ],
            },
        ],
        pgn_variant: Some("gomoku"),
    },
    tools: ToolSettings {
        bench_positions: &[
            BenchPosition::from_start("h8"),
            BenchPosition::from_start("h8 h9 i8 g8 i9"),
            BenchPosition::from_start("h8 i9 g7 j10 f6 e5 g9 i7"),
        ],
        bench_depth: 6,
        opening_book: "openings/gomoku.txt",
        match_tc: "2+0.02",
        solvable: false,
        test_set: None,
    },
    eval_net: Some(nnue::NET_SUPPORT),
    tablebases: None,
    wdl: None,
    elo_scale: None,
};

/// Freestyle gomoku on 20x20 (the Gomocup's freestyle board) in the registry.
pub const INFO20: GameInfo = GameInfo {
    name: "gomoku20",
    aliases: &["freestyle20"],
    summary: "gomoku: 20x20, five or more in a row (freestyle); moves are cells a1-t20",
    protocol: ProtocolSettings {
        variant_options: &[size_option(20), rule_option(FREESTYLE)],
        pgn_variant: Some("gomoku20"),
        ..INFO.protocol
    },
    tools: ToolSettings {
        bench_positions: &[BenchPosition::from_start("k11 l12 j10 m13 i9 h8 j12 l10")],
        opening_book: "openings/gomoku20.txt",
        ..INFO.tools
    },
    ..INFO
};

/// Exactly-five gomoku on 15x15 (the Gomocup's "standard") in the registry.
pub const STANDARD_INFO: GameInfo = GameInfo {
    name: "gomoku-standard",
    aliases: &["exactfive", "standard"],
    summary: "gomoku: 15x15, exactly five in a row (overlines do not win); cells a1-o15",
    protocol: ProtocolSettings {
        variant_options: &[size_option(15), rule_option(EXACT_FIVE)],
        pgn_variant: Some("gomoku-standard"),
        ..INFO.protocol
    },
    tools: ToolSettings {
        bench_positions: &[BenchPosition::from_start("h8 h9 i8 g8 i9")],
        ..INFO.tools
    },
    ..INFO
};

/// Renju on 15x15 (the Renju International Federation's rule, Gomocup rule 4) in the
/// registry.
pub const RENJU_INFO: GameInfo = GameInfo {
    name: "gomoku-renju",
    aliases: &["renju"],
    summary: "gomoku: 15x15, renju (Black may not make 3x3, 4x4 or overlines); cells a1-o15",
    protocol: ProtocolSettings {
        variant_options: &[size_option(15), rule_option(RENJU)],
        pgn_variant: Some("gomoku-renju"),
        ..INFO.protocol
    },
    tools: ToolSettings {
        bench_positions: &[BenchPosition::from_start("h8 h9 i8 g8 i9 j10 g9 g7")],
        ..INFO.tools
    },
    ..INFO
};

/// The name of the `BoardSize` variant option (the Gomocup's setting `size`, from `START N`).
const SIZE_OPTION: &str = "BoardSize";
/// The name of the `Rule` variant option (the Gomocup's setting `rule`, from `INFO rule`).
const RULE_OPTION: &str = "Rule";
/// The `Rule` value of five or more in a row (Gomocup rule 0).
const FREESTYLE: &str = "freestyle";
/// The `Rule` value of exactly five (Gomocup rule 1).
const EXACT_FIVE: &str = "exact5";
/// The `Rule` value of renju (Gomocup rule 4).
const RENJU: &str = "renju";

/// The `BoardSize` option of an entry whose board is `default` cells a side.
const fn size_option(default: i64) -> VariantOption {
    VariantOption {
        name: SIZE_OPTION,
        kind: VariantOptionKind::Spin {
            default,
            min: MIN_SIZE as i64,
            max: MAX_SIZE as i64,
        },
    }
}

/// The `Rule` option of an entry whose rule is `default`.
const fn rule_option(default: &'static str) -> VariantOption {
    VariantOption {
        name: RULE_OPTION,
        kind: VariantOptionKind::Combo {
            default,
            vars: &[FREESTYLE, EXACT_FIVE, RENJU],
        },
    }
}

/// The variant of the `gomoku` entry that `settings` choose.
pub fn freestyle15(settings: &VariantSettings) -> GomokuVariant {
    GomokuVariant::from_settings(settings, &INFO)
}

/// The variant of the `gomoku20` entry that `settings` choose.
pub fn freestyle20(settings: &VariantSettings) -> GomokuVariant {
    GomokuVariant::from_settings(settings, &INFO20)
}

/// The variant of the `gomoku-standard` entry that `settings` choose.
pub fn standard15(settings: &VariantSettings) -> GomokuVariant {
    GomokuVariant::from_settings(settings, &STANDARD_INFO)
}

/// The variant of the `gomoku-renju` entry that `settings` choose.
pub fn renju15(settings: &VariantSettings) -> GomokuVariant {
    GomokuVariant::from_settings(settings, &RENJU_INFO)
}

/// Smallest board side.
pub const MIN_SIZE: u8 = 5;
/// Largest board side (files `a` to `v`).
pub const MAX_SIZE: u8 = 22;
/// Off-board cells kept around the board: a line key looks four cells away.
const PAD: usize = 4;
/// Stride of the padded board of the largest size.
const MAX_STRIDE: usize = MAX_SIZE as usize + 2 * PAD;
/// Cells of the padded board of the largest size (every cell index stays below it).
const PADDED: usize = MAX_STRIDE * MAX_STRIDE;
/// Words of a bit set over padded cells.
const SET_WORDS: usize = PADDED.div_ceil(64);
/// Content of an empty cell; stones are `player index + 1`, off-board cells `3`.
const EMPTY: u8 = 0;
/// Chebyshev distance within which a stone makes an empty cell a search candidate.
const NEAR: i32 = 2;
/// Static evaluations stay within this magnitude.
const EVAL_LIMIT: i32 = 15_000;
/// Seed of the splitmix64 generator for the Zobrist keys.
const ZOBRIST_SEED: u64 = 0x676f_6d6f_6b75_2135;

/// Which lines win, and which points are forbidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Five or more in a row wins.
    Freestyle = 0,
    /// Exactly five wins; six or more does not (Gomocup "standard").
    ExactlyFive = 1,
    /// Renju: White wins with five or more, Black with exactly five, and Black may not
    /// play a forbidden point ([`renju`]).
    Renju = 2,
}

/// The board size and rule of a gomoku game, and the net that evaluates it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GomokuVariant {
    /// Cells per side, `MIN_SIZE..=MAX_SIZE`.
    pub size: u8,
    /// Which lines win and which points are forbidden.
    pub rule: Rule,
    /// The net that evaluates instead of the hand-set cell values (the built-in one or
    /// `EvalFile`'s; a net with stone inputs on 15x15 only, see [`nnue`]); `None`: the
    /// hand-set values.
    pub net: Option<nnue::NetRef>,
}

impl Default for GomokuVariant {
    /// Freestyle on 15x15 with the hand-set evaluation.
    fn default() -> GomokuVariant {
        GomokuVariant::FREESTYLE15
    }
}

impl GomokuVariant {
    /// Freestyle on 15x15.
    pub const FREESTYLE15: GomokuVariant = GomokuVariant {
        size: 15,
        rule: Rule::Freestyle,
        net: None,
    };
    /// Freestyle on 20x20.
    pub const FREESTYLE20: GomokuVariant = GomokuVariant {
        size: 20,
        rule: Rule::Freestyle,
        net: None,
    };
    /// Exactly five on 15x15.
    pub const STANDARD15: GomokuVariant = GomokuVariant {
        size: 15,
        rule: Rule::ExactlyFive,
        net: None,
    };

    /// The variant that `settings` choose through the `BoardSize` and `Rule` options of
    /// `info` (one of this module's entries): their values, or the entry's defaults for
    /// those not set (the protocol checked the values against the options' ranges).
    pub fn from_settings(settings: &VariantSettings, info: &GameInfo) -> GomokuVariant {
        let option = |name| {
            info.protocol
                .variant_options
                .iter()
                .find(|option| option.name == name)
        };
        let size = option(SIZE_OPTION).map_or(15, |o| settings.spin(o));
        let rule = match option(RULE_OPTION).map(|o| settings.value(o)) {
            Some(value) if value == EXACT_FIVE => Rule::ExactlyFive,
            Some(value) if value == RENJU => Rule::Renju,
            _ => Rule::Freestyle,
        };
        let variant = u8::try_from(size)
            .ok()
            .and_then(|size| GomokuVariant::new(size, rule).ok())
            .unwrap_or(GomokuVariant::FREESTYLE15);
        let net = match &settings.evaluation {
            _ if info.eval_net.is_none() => None,
            Evaluation::Net(net) => nnue::NetRef::of(net),
            Evaluation::BuiltIn => nnue::embedded().map(|net| nnue::NetRef(Arc::clone(net))),
            Evaluation::HandCrafted => None,
        };
        GomokuVariant { net, ..variant }
    }

    /// A checked variant: `size` between [`MIN_SIZE`] and [`MAX_SIZE`].
    pub fn new(size: u8, rule: Rule) -> Result<GomokuVariant, GameError> {
        if (MIN_SIZE..=MAX_SIZE).contains(&size) {
            Ok(GomokuVariant {
                size,
                rule,
                net: None,
            })
        } else {
            Err(GameError::position(
                &format!("{size}x{size}"),
                format!("gomoku boards are {MIN_SIZE}x{MIN_SIZE} to {MAX_SIZE}x{MAX_SIZE}"),
            ))
        }
    }

    /// Whether the size is within the limits [`GomokuVariant::new`] checks.
    pub fn is_valid(&self) -> bool {
        (MIN_SIZE..=MAX_SIZE).contains(&self.size)
    }

    /// Number of cells on the board.
    pub fn cells(&self) -> usize {
        usize::from(self.size) * usize::from(self.size)
    }

    /// Distance between vertically adjacent cells in the padded board.
    fn stride(&self) -> usize {
        usize::from(self.size) + 2 * PAD
    }
}

/// A cell: its index in the padded board, `(rank + 4) * stride + file + 4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell(pub u16);

/// What a stone on a cell threatens, all directions together, weakest first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Threat {
    /// Less than an open three.
    None,
    /// One open three.
    Three,
    /// Two open threes: a win unless the opponent answers with fours.
    DoubleThree,
    /// A four.
    Four,
    /// A four and an open three: a win unless the opponent has fours.
    FourThree,
    /// An open four or two fours: a win unless the opponent makes five first.
    OpenFour,
    /// A five (pattern-wise; see the module doc of `pattern`).
    Five,
}

/// Number of [`Threat`] levels.
const THREATS: usize = 7;

impl Threat {
    /// The level of four direction patterns taken together.
    #[cfg(test)]
    fn of(patterns: [Pattern; 4]) -> Threat {
        let code: u16 = patterns.iter().map(|&p| COUNT_CODE[p as usize]).sum();
        threat_from(THREAT_OF_COUNTS[usize::from(code)])
    }

    /// The level of four direction patterns given as a count code (see [`COUNT_CODE`]).
    const fn of_counts(code: u16) -> Threat {
        let (fives, open_fours) = (code & 7, (code >> 3) & 7);
        let (fours, threes) = ((code >> 6) & 7, (code >> 9) & 7);
        if fives > 0 {
            Threat::Five
        } else if open_fours > 0 || fours >= 2 {
            Threat::OpenFour
        } else if fours == 1 && threes > 0 {
            Threat::FourThree
        } else if fours == 1 {
            Threat::Four
        } else if threes >= 2 {
            Threat::DoubleThree
        } else if threes == 1 {
            Threat::Three
        } else {
            Threat::None
        }
    }

    /// Whether the stone makes a four or better (a noisy move).
    fn is_four(self) -> bool {
        self >= Threat::Four
    }
}

/// Value of a cell to a player per direction pattern a stone there would make.
const PATTERN_VALUE: [i16; PATTERNS] = [0, 2, 6, 10, 28, 40, 90, 110, 300, 1000];
/// Extra value of a cell to a player per threat level of a stone there.
const THREAT_VALUE: [i32; THREATS] = [0, 0, 200, 0, 400, 600, 1000];

/// What a direction's pattern adds to a cell's count code: three bits each for the
/// number of directions with a five, an open four, a four and an open three (the
/// patterns that decide the [`Threat`] level); the other patterns add nothing.
const COUNT_CODE: [u16; PATTERNS] = [0, 0, 0, 0, 0, 0, 1 << 9, 1 << 6, 1 << 3, 1];
/// Number of count codes.
const COUNT_CODES: usize = 1 << 12;
/// The [`Threat`] level (as `u8`) of every count code.
const THREAT_OF_COUNTS: [u8; COUNT_CODES] = {
    let mut table = [0; COUNT_CODES];
    let mut code = 0;
    while code < COUNT_CODES {
        table[code] = Threat::of_counts(code as u16) as u8;
        code += 1;
    }
    table
};

/// What the position knows about one empty cell for one player, from its patterns. An
/// occupied cell holds the default (every pattern dead), so it adds nothing to the sums.
#[derive(Copy, Clone, Debug, Default)]
struct CellInfo {
    /// The [`PATTERN_VALUE`]s of the four directions (at most 4,000).
    pattern_value: i16,
    /// The sum of the [`COUNT_CODE`]s of the four directions.
    counts: u16,
    /// The sum of the [`nnue::CODE_WEIGHT`]s of the four directions: the cell's net input
    /// code for the player ([`nnue::code_of_sum`]), kept with the patterns while a net
    /// with code inputs evaluates (stale otherwise: see [`NO_NET`]).
    code_sum: u16,
    /// The [`Threat`] level, as `u8`.
    threat: u8,
}

/// Everything the position keeps about one padded cell, together (32 bytes: what a
/// stone reads and writes of a neighbour is one cache line).
#[derive(Copy, Clone, Debug)]
struct CellState {
    /// The line key per direction (absolute colours).
    keys: [u16; 4],
    /// Per direction, both players' patterns (all dead while the cell is taken).
    pairs: [[Pattern; 2]; 4],
    /// Per player, the threat level and values of the patterns.
    info: [CellInfo; 2],
}

const _: () = assert!(std::mem::size_of::<CellState>() == 32);

impl CellState {
    /// A cell with no neighbours read yet and every pattern dead.
    const BLANK: CellState = CellState {
        keys: [0; 4],
        pairs: [[Pattern::Dead; 2]; 4],
        info: [CellInfo {
            pattern_value: 0,
            counts: 0,
            code_sum: 0,
            threat: 0,
        }; 2],
    };
}

impl CellInfo {
    /// The cell's value: its pattern values plus the [`THREAT_VALUE`] of its level.
    #[inline]
    fn value(&self) -> i32 {
        i32::from(self.pattern_value) + THREAT_VALUE[usize::from(self.threat)]
    }
}

/// What the pattern updates do with the cells' net input codes ([`CellInfo::code_sum`]):
/// nothing (no net with code inputs evaluates: the sums are stale, and
/// [`Gomoku::start_net`] computes them when a net starts),
const NO_NET: u8 = 0;
/// keep them (a take-back without its undo record, with such a net),
const NET_KEEP: u8 = 1;
/// keep them and record each change in the net's delta of the move being made.
const NET_RECORD: u8 = 2;

/// Cells whose state a stone changes: its own and four each way in four directions.
const TOUCHED: usize = 33;
/// Moves whose take-back the [`UndoLog`] keeps (the deepest search line and more).
const UNDO_DEPTH: usize = 160;

/// What a move changed, saved before it: the states of the cells it touched (in the
/// order of [`Gomoku::touch`]) and the value sums.
#[derive(Copy, Clone, Debug)]
struct Undo {
    /// The cell the stone went on.
    cell: u16,
    /// The value sums before the move.
    value: [i32; 2],
    /// The touched cells' states before the move.
    states: [CellState; TOUCHED],
}

/// The last [`UNDO_DEPTH`] moves' [`Undo`] records, a ring: taking a move back copies its
/// record back instead of recomputing the patterns. When the record is missing (older
/// than the ring, or a move taken back out of order), the take-back recomputes.
#[derive(Clone, Debug)]
struct UndoLog {
    /// The records, allocated once.
    entries: Box<[Undo]>,
    /// Where the next record goes.
    top: usize,
    /// Records kept (at most [`UNDO_DEPTH`]).
    len: usize,
}

impl UndoLog {
    /// An empty log.
    fn new() -> UndoLog {
        let blank = Undo {
            cell: 0,
            value: [0; 2],
            states: [CellState::BLANK; TOUCHED],
        };
        UndoLog {
            entries: vec![blank; UNDO_DEPTH].into_boxed_slice(),
            top: 0,
            len: 0,
        }
    }

    /// The index of the record `back` moves ago (1: the newest), if the log holds it.
    fn slot(&self, back: usize) -> Option<usize> {
        (back >= 1 && back <= self.len).then(|| (self.top + UNDO_DEPTH - back) % UNDO_DEPTH)
    }

    /// The record `back` moves ago (1: the newest), if the log holds it.
    fn recent(&self, back: usize) -> Option<&Undo> {
        self.slot(back).map(|slot| &self.entries[slot])
    }

    /// The slot of a new record for a stone on `cell` (overwriting the oldest when full).
    fn push(&mut self, cell: usize) -> &mut Undo {
        let slot = self.top;
        self.top = (self.top + 1) % UNDO_DEPTH;
        self.len = (self.len + 1).min(UNDO_DEPTH);
        let entry = &mut self.entries[slot];
        entry.cell = cell as u16;
        entry
    }

    /// The index of the newest record if it is the one of `cell`, removed from the log;
    /// otherwise `None`, and the log is emptied (its records no longer fit the board).
    fn pop(&mut self, cell: usize) -> Option<usize> {
        let slot = self.slot(1)?;
        if usize::from(self.entries[slot].cell) != cell {
            self.len = 0;
            return None;
        }
        self.top = slot;
        self.len -= 1;
        Some(slot)
    }
}

/// Zobrist keys of stones per padded cell and player, and of the side to move.
struct Zobrist {
    stones: Vec<[u64; 2]>,
    side: u64,
}

/// The Zobrist keys, built on first use.
static ZOBRIST: OnceLock<Zobrist> = OnceLock::new();

/// The next value of a splitmix64 generator.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The Zobrist keys (deterministic: a fixed seed).
fn zobrist() -> &'static Zobrist {
    ZOBRIST.get_or_init(|| {
        let mut state = ZOBRIST_SEED;
        let stones = (0..PADDED)
            .map(|_| [splitmix64(&mut state), splitmix64(&mut state)])
            .collect();
        Zobrist {
            stones,
            side: splitmix64(&mut state),
        }
    })
}

/// A gomoku position with incremental line patterns, evaluation and hashing.
#[derive(Clone)]
pub struct Gomoku {
    variant: GomokuVariant,
    /// [`GomokuVariant::stride`], cached.
    stride: usize,
    /// The four direction steps in the padded board.
    steps: [usize; 4],
    /// The offsets of the cells a stone touches, in the order of the undo records: the
    /// cell itself, then per direction the cells 4, 3, 2, 1 before and 1 to 4 after.
    touch: [isize; TOUCHED],
    /// Both players' patterns per absolute line key under the rule.
    pairs: &'static [[Pattern; 2]],
    /// `EMPTY`, `player index + 1` or `WALL_BITS` per padded cell.
    board: [u8; PADDED],
    /// Keys, patterns and what a stone would make, per padded cell.
    cells: [CellState; PADDED],
    /// Stones within `NEAR` (Chebyshev) of each cell.
    near: [u8; PADDED],
    /// Per player, the empty cells whose threat is a five (pattern-wise).
    fives: [[u64; SET_WORDS]; 2],
    /// Per player, the empty cells whose threat is a four or better but no five.
    fours: [[u64; SET_WORDS]; 2],
    /// Per player, empty cells per threat level.
    threat_count: [[u16; THREATS]; 2],
    /// Per player, the sum of the values of the empty cells.
    value: [i32; 2],
    hash: u64,
    side: Player,
    stones: u16,
    ply: u32,
    /// Whether the player who just moved made a five.
    won: bool,
    /// The records that take the last moves back.
    undo: UndoLog,
    /// The accumulators when a net evaluates ([`nnue`]).
    nnue: Option<nnue::GomokuNnue>,
}

impl fmt::Debug for Gomoku {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gomoku")
            .field("variant", &self.variant)
            .field("fen", &self.to_fen())
            .field("hash", &format_args!("{:#018x}", self.hash))
            .finish()
    }
}

/// The offsets of [`Gomoku::touch`] on a padded board of `stride`.
fn touch_offsets(stride: usize) -> [isize; TOUCHED] {
    let steps = [1, stride, stride + 1, stride - 1].map(|step| step as isize);
    let mut offsets = [0; TOUCHED];
    let lines = steps
        .iter()
        .flat_map(|&step| (-4..=4).filter(|&s| s != 0).map(move |s| s * step));
    for (offset, delta) in offsets[1..].iter_mut().zip(lines) {
        *offset = delta;
    }
    offsets
}

/// Sets or clears `cell` in the bit set.
fn set_bit(set: &mut [u64; SET_WORDS], cell: usize, on: bool) {
    let bit = 1u64 << (cell % 64);
    if on {
        set[cell / 64] |= bit;
    } else {
        set[cell / 64] &= !bit;
    }
}

/// The cells of a bit set, lowest first.
fn cells_of(set: &[u64; SET_WORDS]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(word, &bits)| {
        let mut bits = bits;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let cell = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                cell
            })
        })
    })
}

impl Gomoku {
    /// The variant being played.
    pub fn variant(&self) -> &GomokuVariant {
        &self.variant
    }

    /// The cell at `file` (0 = `a`) and `rank` (0 = bottom), if it is on the board.
    pub fn cell(&self, file: u8, rank: u8) -> Option<Cell> {
        let size = self.variant.size;
        (file < size && rank < size).then(|| {
            Cell(((usize::from(rank) + PAD) * self.stride + usize::from(file) + PAD) as u16)
        })
    }

    /// The file and rank (0-based, rank 0 at the bottom) of a cell.
    pub fn coordinates(&self, cell: Cell) -> (u8, u8) {
        let index = usize::from(cell.0);
        (
            (index % self.stride - PAD) as u8,
            (index / self.stride - PAD) as u8,
        )
    }

    /// The stone on `cell`, if any.
    pub fn stone(&self, cell: Cell) -> Option<Player> {
        match self.board.get(usize::from(cell.0)) {
            Some(1) => Some(Player::First),
            Some(2) => Some(Player::Second),
            _ => None,
        }
    }

    /// Whether `cell` is an empty cell of the board.
    fn is_empty_cell(&self, cell: usize) -> bool {
        self.board.get(cell) == Some(&EMPTY)
    }

    /// The empty board of a valid variant.
    fn empty(variant: GomokuVariant) -> Gomoku {
        let (stride, rule) = (variant.stride(), variant.rule);
        let mut game = Gomoku {
            variant,
            stride,
            steps: [1, stride, stride + 1, stride - 1],
            touch: touch_offsets(stride),
            pairs: pattern::pair_table(rule),
            board: [WALL_BITS as u8; PADDED],
            cells: [CellState::BLANK; PADDED],
            near: [0; PADDED],
            fives: [[0; SET_WORDS]; 2],
            fours: [[0; SET_WORDS]; 2],
            threat_count: [[0; THREATS]; 2],
            value: [0; 2],
            hash: 0,
            side: Player::First,
            stones: 0,
            ply: 0,
            won: false,
            undo: UndoLog::new(),
            nnue: None,
        };
        for cell in game.board_cells() {
            game.board[cell] = EMPTY;
        }
        for cell in game.board_cells() {
            for dir in 0..4 {
                let mut key = 0;
                for step in (-4i32..=4).filter(|&s| s != 0) {
                    let other = game.offset(cell, dir, step);
                    if game.board[other] == WALL_BITS as u8 {
                        key |= WALL_BITS << pattern::shift(step);
                    }
                }
                game.cells[cell].keys[dir] = key;
            }
        }
        for cell in game.board_cells() {
            game.restore::<NO_NET>(cell);
        }
        game
    }

    /// The padded indices of the board's cells.
    fn board_cells(&self) -> impl Iterator<Item = usize> {
        let (size, stride) = (usize::from(self.variant.size), self.stride);
        (0..size)
            .flat_map(move |rank| (0..size).map(move |file| (rank + PAD) * stride + file + PAD))
    }

    /// The cell `step` cells from `cell` in direction `dir` (within the padding).
    #[inline]
    fn offset(&self, cell: usize, dir: usize, step: i32) -> usize {
        (cell as isize + step as isize * self.steps[dir] as isize) as usize
    }

    /// Sets both players' patterns in direction `dir` of the empty `cell` to `new`,
    /// updating the cell's threat levels and values, the sums and the sets of fives and
    /// fours. Nothing to do when the patterns stay (most key changes). `NET` says what
    /// happens to the cell's net input codes ([`NO_NET`], [`NET_KEEP`], [`NET_RECORD`]).
    #[inline]
    fn set_patterns<const NET: u8>(&mut self, cell: usize, dir: usize, new: [Pattern; 2]) {
        let old = self.cells[cell].pairs[dir];
        if old == new {
            return;
        }
        self.cells[cell].pairs[dir] = new;
        for player in 0..2 {
            let (old, new) = (old[player] as usize, new[player] as usize);
            if old == new {
                continue;
            }
            let info = &mut self.cells[cell].info[player];
            let (old_value, old_threat) = (info.value(), info.threat);
            let old_sum = info.code_sum;
            info.counts = info.counts - COUNT_CODE[old] + COUNT_CODE[new];
            info.pattern_value += PATTERN_VALUE[new] - PATTERN_VALUE[old];
            if NET != NO_NET {
                info.code_sum = old_sum + nnue::CODE_WEIGHT[new] - nnue::CODE_WEIGHT[old];
            }
            info.threat = THREAT_OF_COUNTS[usize::from(info.counts)];
            let (new_value, new_threat, new_sum) = (info.value(), info.threat, info.code_sum);
            if NET == NET_RECORD {
                self.record_code_change(player, old_sum, new_sum);
            }
            self.value[player] += new_value - old_value;
            if new_threat != old_threat {
                self.retally(player, cell, old_threat, new_threat);
            }
        }
    }

    /// Moves `cell` of `player` from threat level `old` to `new` in the counts and in the
    /// sets of fives and fours.
    fn retally(&mut self, player: usize, cell: usize, old: u8, new: u8) {
        if old != 0 {
            self.threat_count[player][usize::from(old)] -= 1;
        }
        if new != 0 {
            self.threat_count[player][usize::from(new)] += 1;
        }
        let five = Threat::Five as u8;
        let is_four = |level: u8| level >= Threat::Four as u8 && level != five;
        if (old == five) != (new == five) {
            set_bit(&mut self.fives[player], cell, new == five);
        }
        if is_four(old) != is_four(new) {
            set_bit(&mut self.fours[player], cell, is_four(new));
        }
    }

    /// Takes a cell that a stone now fills out of both players' sums and sets (and, with
    /// [`NET_RECORD`], its codes out of the net's delta of the move being made).
    fn clear<const NET: u8>(&mut self, cell: usize) {
        for player in 0..2 {
            let info = self.cells[cell].info[player];
            self.value[player] -= info.value();
            self.retally(player, cell, info.threat, 0);
            if NET == NET_RECORD {
                self.record_code_change(player, info.code_sum, 0);
            }
        }
        let state = &mut self.cells[cell];
        state.pairs = CellState::BLANK.pairs;
        state.info = CellState::BLANK.info;
    }

    /// Computes the patterns of a cell that has just become empty (or of every cell of
    /// the empty board) from its keys, for both players.
    fn restore<const NET: u8>(&mut self, cell: usize) {
        for dir in 0..4 {
            let pair = self.pairs[usize::from(self.cells[cell].keys[dir])];
            self.set_patterns::<NET>(cell, dir, pair);
        }
    }

    /// Places (`colour` 1 or 2) or removes (`colour` 0) a stone on `cell`, updating the
    /// keys of the cells that see it, their patterns, the nearness counts and the hash.
    /// Only the direction of the line through `cell` changes for each of those cells, so
    /// each cell's net code changes at most once a stone: with [`NET_RECORD`] (placing
    /// only), the changes go to the net's delta of the move being made
    /// ([`Gomoku::record_code_change`]).
    fn set_stone<const NET: u8>(&mut self, cell: usize, colour: u8, player: usize) {
        self.board[cell] = colour;
        self.hash ^= zobrist().stones[cell][player];
        if colour == EMPTY {
            self.restore::<NET>(cell);
        } else {
            self.clear::<NET>(cell);
        }
        for dir in 0..4 {
            for step in (-4i32..=4).filter(|&s| s != 0) {
                // `cell` is `-step` cells from `other`: that slot of `other`'s key changes.
                let other = self.offset(cell, dir, step);
                if self.board[other] == WALL_BITS as u8 {
                    continue;
                }
                let shift = pattern::shift(-step);
                let key = &mut self.cells[other].keys[dir];
                *key = (*key & !(3 << shift)) | (u16::from(colour) << shift);
                if self.board[other] == EMPTY {
                    let pair = self.pairs[usize::from(*key)];
                    self.set_patterns::<NET>(other, dir, pair);
                }
            }
        }
        self.update_near(cell, if colour == EMPTY { -1 } else { 1 });
    }

    /// Adds `delta` to the nearness counts of the cells within [`NEAR`] of `cell`.
    fn update_near(&mut self, cell: usize, delta: i8) {
        for dy in -NEAR..=NEAR {
            for dx in -NEAR..=NEAR {
                let other = cell as isize + dy as isize * self.stride as isize + dx as isize;
                if let Some(near) = self.near.get_mut(other as usize) {
                    *near = near.wrapping_add_signed(delta);
                }
            }
        }
    }

    /// Places a stone of `player` on `cell` as [`Gomoku::set_stone`] does, first saving
    /// what it changes in the undo log.
    fn place_logged<const NET: u8>(&mut self, cell: usize, player: usize) {
        let entry = self.undo.push(cell);
        entry.value = self.value;
        for (state, &delta) in entry.states.iter_mut().zip(&self.touch) {
            *state = self.cells[cell.wrapping_add_signed(delta)];
        }
        self.set_stone::<NET>(cell, player as u8 + 1, player);
    }

    /// Takes the stone of `player` off `cell`: from the undo log when it holds the
    /// record of that stone, else by recomputing ([`Gomoku::set_stone`]).
    fn remove_logged(&mut self, cell: usize, player: usize) {
        let Some(slot) = self.undo.pop(cell) else {
            self.remove_unlogged(cell, player);
            return;
        };
        self.board[cell] = EMPTY;
        self.hash ^= zobrist().stones[cell][player];
        for index in 0..TOUCHED {
            let other = cell.wrapping_add_signed(self.touch[index]);
            let saved = self.undo.entries[slot].states[index];
            for player in 0..2 {
                let (now, then) = (
                    self.cells[other].info[player].threat,
                    saved.info[player].threat,
                );
                if now != then {
                    self.retally(player, other, now, then);
                }
            }
            self.cells[other] = saved;
        }
        self.value = self.undo.entries[slot].value;
        self.update_near(cell, -1);
    }

    /// Takes the stone of `player` off `cell` by recomputing what it changed (no undo
    /// record): rare, and kept out of the take-back's code.
    #[cold]
    #[inline(never)]
    fn remove_unlogged(&mut self, cell: usize, player: usize) {
        if self.net_codes() {
            self.set_stone::<NET_KEEP>(cell, EMPTY, player);
        } else {
            self.set_stone::<NO_NET>(cell, EMPTY, player);
        }
    }

    /// Whether a stone of `player` on `cell` (there or not yet) is part of a winning line
    /// under the rule: only the neighbours are read.
    fn five_through(&self, cell: usize, player: usize) -> bool {
        let colour = player as u8 + 1;
        (0..4).any(|dir| {
            let step = self.steps[dir] as isize;
            let run = |sign: isize| {
                (1..)
                    .take_while(|&s: &isize| {
                        let other = cell as isize + sign * s * step;
                        self.board.get(other as usize) == Some(&colour)
                    })
                    .count()
            };
            let length = run(-1) + 1 + run(1);
            match self.variant.rule {
                Rule::Freestyle => length >= 5,
                Rule::ExactlyFive => length == 5,
                Rule::Renju => length == 5 || (player == 1 && length > 5),
            }
        })
    }

    /// The first empty cell where `player` would win at once, if any.
    fn winning_cell(&self, player: usize) -> Option<usize> {
        cells_of(&self.fives[player]).find(|&cell| self.five_through(cell, player))
    }

    /// When the opponent threatens to win by an open four or a four-three and the side to
    /// move has no such threat of its own, the moves that can still matter: its own fours
    /// (which force a reply) and the cells on the threatening lines (four cells each way
    /// from each threatening cell, in the directions where it makes a three or better).
    /// Returns whether it filled `moves`.
    fn defences(&self, moves: &mut MoveList<Cell>) -> bool {
        let own = self.side.index();
        let opponent = 1 - own;
        let counts = (self.playable_threats(own), self.playable_threats(opponent));
        let decisive =
            |c: &[u16; THREATS]| c[Threat::OpenFour as usize] + c[Threat::FourThree as usize];
        if decisive(&counts.1) == 0 || decisive(&counts.0) > 0 {
            return false;
        }
        let mut chosen = [0u64; SET_WORDS];
        for cell in cells_of(&self.fours[own]) {
            set_bit(&mut chosen, cell, true);
        }
        for cell in self.board_cells() {
            if self.board[cell] != EMPTY
                || self.cells[cell].info[opponent].threat < Threat::FourThree as u8
            {
                continue;
            }
            set_bit(&mut chosen, cell, true);
            for dir in 0..4 {
                if self.cells[cell].pairs[dir][opponent] < Pattern::Flex3 {
                    continue;
                }
                for step in (-4i32..=4).filter(|&s| s != 0) {
                    let other = self.offset(cell, dir, step);
                    if self.board[other] == EMPTY {
                        set_bit(&mut chosen, other, true);
                    }
                }
            }
        }
        let allowed = cells_of(&chosen).filter(|&cell| self.allowed(cell, own));
        moves.extend(allowed.map(|cell| Cell(cell as u16)));
        !moves.is_empty()
    }

    /// The undo record of the side to move's last stone, if the ring holds it (the newest
    /// record or the one before: after a null move the newest is the side's own).
    fn own_last_record(&self) -> Option<&Undo> {
        let own = self.side.index();
        (1..=2)
            .map_while(|back| self.undo.recent(back))
            .find(|entry| usize::from(self.board[usize::from(entry.cell)]) == own + 1)
    }

    /// Whether the side to move's last stone made an open three or more: an attack that a
    /// new three continues (read from the undo ring; false where the ring has no record).
    fn attacking(&self) -> bool {
        let own = self.side.index();
        self.own_last_record()
            .is_some_and(|entry| entry.states[0].info[own].threat >= Threat::Three as u8)
    }

    /// Whether `cell` is within reach of `stone` for a continuous four: in the 5x5
    /// square around it or on one of its lines within four cells (Rapfi's
    /// `RANGE_SQUARE2_LINE4`, where its VCF search looks for the next four).
    fn within_vcf_reach(&self, cell: usize, stone: usize) -> bool {
        let (dr, df) = self.rank_file_distances(cell, stone);
        let distance = dr.max(df);
        distance <= 2 || (distance <= 4 && (dr == 0 || df == 0 || dr == df))
    }

    /// What the move ordering's [`policy::Policy`] reads of `cell`: the net input codes
    /// ([`nnue::code`]: the multiset of the four directions' patterns) a stone there would
    /// make for the side to move and for the opponent, and its distance to the
    /// opponent's last stone and to the side's own last stone (from the undo ring).
    pub fn policy_inputs(&self, cell: Cell) -> policy::PolicyInputs {
        let index = usize::from(cell.0);
        let state = &self.cells[index];
        let own = self.side.index();
        let codes = [own, 1 - own].map(|player| nnue::code(state.pairs.map(|pair| pair[player])));
        // The newest record is the opponent's stone unless a null move came after it.
        let mut near = [policy::NEAR_UNKNOWN; 2];
        for back in 1..=2 {
            let Some(entry) = self.undo.recent(back) else {
                break;
            };
            let stone = usize::from(entry.cell);
            let owner = usize::from(self.board[stone]);
            let slot = usize::from(owner == own + 1);
            if owner != usize::from(EMPTY) && near[slot] == policy::NEAR_UNKNOWN {
                near[slot] = policy::near_bucket(self.chebyshev(index, stone));
            }
        }
        policy::PolicyInputs { codes, near }
    }

    /// The Chebyshev distance between two cells.
    fn chebyshev(&self, a: usize, b: usize) -> usize {
        let (dr, df) = self.rank_file_distances(a, b);
        dr.max(df)
    }

    /// How many ranks and how many files apart two cells are.
    fn rank_file_distances(&self, a: usize, b: usize) -> (usize, usize) {
        let (ra, fa) = (a / self.stride, a % self.stride);
        let (rb, fb) = (b / self.stride, b % self.stride);
        (ra.abs_diff(rb), fa.abs_diff(fb))
    }

    /// Total stones on the board.
    pub fn stone_count(&self) -> usize {
        usize::from(self.stones)
    }

    /// The moves forced on the side to move, pushed on `moves`: none when the game is won,
    /// a five if it has one, else the blocks of the opponent's fives. Returns whether that
    /// settles the list (won, a five to play, or a five threatened that only forbidden
    /// points block: no move); blocks leave it open to the caller.
    fn push_forced(&self, moves: &mut MoveList<Cell>) -> bool {
        if self.won {
            return true;
        }
        let own = self.side.index();
        if let Some(cell) = self.winning_cell(own) {
            moves.push(Cell(cell as u16));
            return true;
        }
        let mut threatened = false;
        for cell in cells_of(&self.fives[1 - own]) {
            if self.five_through(cell, 1 - own) {
                threatened = true;
                if self.allowed(cell, own) {
                    moves.push(Cell(cell as u16));
                }
            }
        }
        threatened && moves.is_empty()
    }

    /// Parses a cell name such as `h8` ([`grid::parse_cell_name`]) on this board.
    fn parse_cell(&self, text: &str) -> Option<Cell> {
        let (file, rank) = grid::parse_cell_name(text)?;
        self.cell(file, rank)
    }

    /// The threat levels of a cell for the side to move and the opponent (under renju,
    /// none for Black where the cell is forbidden to it).
    fn threats(&self, cell: usize) -> (Threat, Threat, i32) {
        let own = self.side.index();
        let [mine, theirs] = [own, 1 - own].map(|player| self.cells[cell].info[player]);
        let level = |player: usize, threat: u8| {
            let threat = threat_from(threat);
            if player == 0 && threat >= Threat::DoubleThree && !self.allowed(cell, 0) {
                Threat::None
            } else {
                threat
            }
        };
        (
            level(own, mine.threat),
            level(1 - own, theirs.threat),
            mine.value() + theirs.value(),
        )
    }

    /// The counts of empty cells per threat level of `player` that it may play: the
    /// incremental counts, but under renju Black's open fours and four-threes only where
    /// they are not forbidden, and none of its double threes (each is forbidden, or one of
    /// its threes is false).
    fn playable_threats(&self, player: usize) -> [u16; THREATS] {
        let mut counts = self.threat_count[player];
        if player != 0 || self.variant.rule != Rule::Renju {
            return counts;
        }
        counts[Threat::DoubleThree as usize] = 0;
        for level in [Threat::OpenFour, Threat::FourThree] {
            if counts[level as usize] > 0 {
                let playable = cells_of(&self.fours[0]).filter(|&cell| {
                    self.cells[cell].info[0].threat == level as u8 && self.allowed(cell, 0)
                });
                counts[level as usize] = playable.count() as u16;
            }
        }
        counts
    }
}

/// The [`Threat`] stored as `u8`.
fn threat_from(level: u8) -> Threat {
    match level {
        1 => Threat::Three,
        2 => Threat::DoubleThree,
        3 => Threat::Four,
        4 => Threat::FourThree,
        5 => Threat::OpenFour,
        6 => Threat::Five,
        _ => Threat::None,
    }
}

/// Ordering hint bands, by what a move makes (own) or stops (theirs).
const Q: i32 = QUIET_HINT_LIMIT;

impl Rules for Gomoku {
    type Move = Cell;

    type Variant = GomokuVariant;

    /// The empty board; panics if the variant is not valid (see [`GomokuVariant::new`]).
    fn start(variant: &GomokuVariant) -> Gomoku {
        assert!(
            variant.is_valid(),
            "invalid gomoku variant {variant:?}: build it with GomokuVariant::new"
        );
        let mut game = Gomoku::empty(variant.clone());
        game.start_net();
        game
    }

    fn from_fen(variant: &GomokuVariant, fen: &str) -> Result<Gomoku, GameError> {
        let error = |reason: String| GameError::position(fen, reason);
        if !variant.is_valid() {
            return Err(error(format!("invalid variant {variant:?}")));
        }
        // Steps 1 and 2. The board, top row first, and the side to move, which must fit
        // the stone counts.
        let size = usize::from(variant.size);
        let (marks, side) = grid::read_stone_fen(fen, size, size).map_err(error)?;

        // Step 3. Place the stones.
        let mut game = Gomoku::empty(variant.clone());
        for (index, &mark) in marks.iter().enumerate() {
            if let Mark::Stone(player) = mark {
                let cell = game.cell((index % size) as u8, (index / size) as u8);
                let cell = usize::from(cell.map_or(0, |c| c.0));
                game.set_stone::<NO_NET>(cell, player.index() as u8 + 1, player.index());
            }
        }
        game.stones = marks.iter().filter(|m| matches!(m, Mark::Stone(_))).count() as u16;
        game.ply = game.stones.into();
        game.side = side;
        if side == Player::Second {
            game.hash ^= zobrist().side;
        }

        // Step 4. At most the player who just moved may have a five.
        let has_five = |player: usize| {
            game.board_cells()
                .any(|cell| game.board[cell] == player as u8 + 1 && game.five_through(cell, player))
        };
        let mover = side.index();
        if has_five(mover) {
            return Err(error("the side to move already has a five".to_string()));
        }
        game.won = has_five(1 - mover);
        game.start_net();
        Ok(game)
    }

    fn to_fen(&self) -> String {
        let size = usize::from(self.variant.size);
        let stone = |file: usize, rank: usize| {
            self.cell(file as u8, rank as u8)
                .and_then(|cell| self.stone(cell))
        };
        grid::write_fen(size, size, stone, self.side)
    }

    fn render(&self) -> String {
        let size = usize::from(self.variant.size);
        grid::draw_board(size, size, |file, rank| {
            let stone = self
                .cell(file as u8, rank as u8)
                .and_then(|c| self.stone(c));
            stone.map_or(Mark::Empty, Mark::Stone)
        })
    }

    fn side_to_move(&self) -> Player {
        self.side
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    /// Every empty cell (the rules allow them all; the search asks
    /// [`SearchHooks::generate_search_moves`]).
    fn generate_moves(&self, moves: &mut MoveList<Cell>) {
        if self.won {
            return;
        }
        let own = self.side.index();
        for cell in self.board_cells() {
            if self.board[cell] == EMPTY && self.allowed(cell, own) {
                moves.push(Cell(cell as u16));
            }
        }
    }

    fn make_move(&mut self, mv: Cell) {
        let cell = usize::from(mv.0);
        debug_assert!(self.is_empty_cell(cell) && !self.won);
        let player = self.side.index();
        if self.push_net_move(cell, player) {
            self.place_logged::<NET_RECORD>(cell, player);
        } else {
            self.place_logged::<NO_NET>(cell, player);
        }
        self.won = self.five_through(cell, player);
        self.stones += 1;
        self.ply += 1;
        self.side = self.side.other();
        self.hash ^= zobrist().side;
    }

    fn unmake_move(&mut self, mv: Cell) {
        let cell = usize::from(mv.0);
        let player = self.side.other().index();
        debug_assert_eq!(self.board[cell], player as u8 + 1);
        self.remove_logged(cell, player);
        self.pop_net_move();
        self.won = false;
        self.stones -= 1;
        self.ply -= 1;
        self.side = self.side.other();
        self.hash ^= zobrist().side;
    }

    fn outcome(&self) -> Option<Outcome> {
        grid::placement_outcome(self.won, self.stone_count(), self.variant.cells())
    }

    /// Renju: Black with empty cells left, every one forbidden to it, has lost (as Rapfi
    /// counts it; a Gomocup manager would judge the forbidden move it must play).
    fn outcome_without_moves(&self) -> Outcome {
        if self.variant.rule == Rule::Renju {
            Outcome::Loss
        } else {
            Outcome::Draw
        }
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn parse_move(&self, text: &str) -> Result<Cell, GameError> {
        let over = self.outcome().is_some();
        let cell = grid::parse_placement(
            text,
            |text| self.parse_cell(text),
            over,
            |cell| !self.is_empty_cell(usize::from(cell.0)),
        )?;
        if !self.allowed(usize::from(cell.0), self.side.index()) {
            return Err(GameError::IllegalMove(format!(
                "{}: a forbidden point for Black under renju (double three, double four or \
                 overline)",
                text.trim()
            )));
        }
        Ok(cell)
    }

    fn format_move(&self, mv: Cell) -> String {
        let (file, rank) = self.coordinates(mv);
        format!("{}{}", char::from(b'a' + file), u32::from(rank) + 1)
    }
}

impl SearchHooks for Gomoku {
    /// The moves worth searching: a win at once if there is one, else the blocks of the
    /// opponent's fives if there are any (under renju, when Black may block none, the near
    /// cells: every move loses), else the empty cells near the stones.
    fn generate_search_moves(&self, moves: &mut MoveList<Cell>) {
        if self.push_forced(moves) {
            if self.won || !moves.is_empty() {
                return;
            }
            // Renju: only forbidden points block the five. The game is lost, but a move is
            // due (the root must play one): the near cells, each answered by the five.
        } else if !moves.is_empty() || self.defences(moves) {
            return;
        }
        let own = self.side.index();
        for cell in self.board_cells() {
            if self.board[cell] == EMPTY && self.near[cell] > 0 && self.allowed(cell, own) {
                moves.push(Cell(cell as u16));
            }
        }
        if moves.is_empty() {
            self.generate_moves(moves);
            if self.stones == 0 && !moves.is_empty() {
                // The empty board: the centre is as good as any.
                let half = self.variant.size / 2;
                moves.clear();
                moves.extend(self.cell(half, half));
            }
        }
    }

    /// The net's value for the side to move, averaged with its value (negated) of the
    /// position before the opponent's last move: the mean damps the swing of the tempo
    /// from one ply to the next, as Rapfi's classical evaluation does. Without a net, the
    /// side to move's cell values against the opponent's. Either way the threats that
    /// decide the game in a few moves are scored as nearly won or lost.
    fn evaluate(&self) -> i32 {
        let own = self.side.index();
        let (mine, theirs) = (self.playable_threats(own), self.playable_threats(1 - own));
        let (mine, theirs) = (&mine, &theirs);
        let level = |counts: &[u16; THREATS], threat: Threat| counts[threat as usize];
        let base = self
            .net_value_mean()
            .unwrap_or_else(|| (self.value[own] * 5 / 4 - self.value[1 - own]) / 4);
        let threat = if level(mine, Threat::Five) > 0 {
            8_000
        } else if level(theirs, Threat::Five) > 1 {
            -6_000
        } else if level(theirs, Threat::Five) == 0 && level(mine, Threat::OpenFour) > 0 {
            5_000
        } else if level(theirs, Threat::Five) == 0
            && (level(theirs, Threat::OpenFour) + level(theirs, Threat::FourThree)) == 0
            && (level(mine, Threat::FourThree) > 0)
        {
            2_000
        } else if level(theirs, Threat::Five) == 0
            && (level(theirs, Threat::OpenFour) + level(theirs, Threat::FourThree)) == 0
            && level(mine, Threat::DoubleThree) > 0
        {
            1_000
        } else {
            0
        };
        (base + threat).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// [`SearchHooks::evaluate`], with a net's accumulators brought up to date first.
    fn evaluate_mut(&mut self) -> i32 {
        self.update_net();
        self.evaluate()
    }

    fn encode_move(mv: Cell) -> u16 {
        mv.0
    }

    const HISTORY_SIZE: usize = 2 * PADDED;

    /// Late move pruning up to 6 plies from the horizon (quiet moves after the first
    /// few, ordered by their threats and the learned policy, are skipped: after 2 to 19
    /// of them, twice as many while the evaluation improves); futility pruning all but
    /// off (a margin of 5,000, one ply) and history pruning one ply from the horizon
    /// only. The clock is planned for 14 more moves (not 40): a game between strong
    /// players is decided in 15 to 30 moves a side, and its opening moves decide it.
    const SEARCH_PARAMS: SearchParams = SearchParams {
        planned_moves: 14,
        futility_depth: 1,
        futility_base: 5_000,
        late_move_pruning_depth: 6,
        history_pruning_depth: 1,
        ..SearchParams::DEFAULT
    };

    fn history_index(&self, mv: Cell) -> usize {
        self.side.index() * PADDED + usize::from(mv.0)
    }

    /// Wins first, then blocks of fives, open fours and four-threes made, then stopped,
    /// then fours, then a three that continues an attack (the side's last stone made a
    /// three or more: not reduced nor pruned, as Rapfi reduces such moves less); the quiet
    /// rest by the learned [`policy`] (the cell's codes and its distances to the last
    /// stones).
    fn move_hint(&self, mv: Cell) -> i32 {
        let cell = usize::from(mv.0);
        if !self.is_empty_cell(cell) {
            return 0;
        }
        let (mine, theirs, value) = self.threats(cell);
        let band = match (mine, theirs) {
            (Threat::Five, _) => 12,
            (_, Threat::Five) => 11,
            (Threat::OpenFour, _) => 10,
            (Threat::FourThree, _) => 9,
            (_, Threat::OpenFour) => 8,
            (_, Threat::FourThree) => 7,
            (Threat::Four, _) | (_, Threat::DoubleThree) | (Threat::DoubleThree, _) => 6,
            (Threat::Three, _) if self.attacking() => 1,
            _ => return policy::BUILT_IN.score(&self.policy_inputs(mv)),
        };
        band * Q + value.min(Q / 2)
    }

    /// Null move, late move reductions, reverse futility, late move pruning (through the
    /// core's futility switch, [`SearchHooks::SEARCH_PARAMS`]), internal reductions, and
    /// quiescence over fours with five threats answered as checks.
    fn pruning(&self) -> Pruning {
        Pruning {
            null_move: true,
            late_move_reductions: true,
            reverse_futility: true,
            futility: true,
            internal_reductions: true,
            quiescence: true,
            check_extensions: true,
            ..Pruning::default()
        }
    }

    /// A win at once, else the blocks of the opponent's fives (every move that does not
    /// lose at once), else the moves that make a four within reach of the side's last
    /// stone (`Gomoku::within_vcf_reach`; every four when the ring has no record of it),
    /// as Rapfi's VCF search takes them: every four anywhere at every step made
    /// quiescence's tree explode where both sides hold many threes.
    fn generate_noisy(&self, moves: &mut MoveList<Cell>) {
        if self.push_forced(moves) {
            return;
        }
        let own = self.side.index();
        if moves.is_empty() {
            let last = self.own_last_record().map(|entry| usize::from(entry.cell));
            let fours = cells_of(&self.fours[own])
                .filter(|&cell| last.map_or(true, |stone| self.within_vcf_reach(cell, stone)))
                .filter(|&cell| self.allowed(cell, own));
            moves.extend(fours.map(|cell| Cell(cell as u16)));
        }
    }

    /// The opponent threatens a five.
    fn in_check(&self) -> bool {
        !self.won && self.winning_cell(self.side.other().index()).is_some()
    }

    fn is_noisy(&self, mv: Cell) -> bool {
        let (mine, theirs, _) = self.threats(usize::from(mv.0));
        mine.is_four() || theirs == Threat::Five
    }

    fn null_move_allowed(&self) -> bool {
        !self.won
    }

    fn make_null(&mut self) {
        self.side = self.side.other();
        self.hash ^= zobrist().side;
        self.push_net_null();
    }

    fn unmake_null(&mut self) {
        self.side = self.side.other();
        self.hash ^= zobrist().side;
        self.pop_net_move();
    }
}

impl SearchRefinements for Gomoku {
    /// A gomoku node costs several chess nodes (a move rewrites 32 cells' patterns), so
    /// the clock is read every 256 nodes: a few hundred microseconds, a few ms loaded.
    const CHECK_INTERVAL: u64 = 256;

    /// The stone's key and the side's: known before the move's pattern updates.
    fn hash_after(&self, mv: Cell) -> Option<u64> {
        let keys = zobrist();
        Some(self.hash ^ keys.stones[usize::from(mv.0)][self.side.index()] ^ keys.side)
    }

    /// A five threat (the opponent's check) comes only from a stone that makes a four.
    fn gives_check(&self, mv: Cell) -> Option<bool> {
        let own = self.cells[usize::from(mv.0)].info[self.side.index()];
        Some(threat_from(own.threat).is_four())
    }
}

impl ExactHooks for Gomoku {
    fn remaining_plies_bound(&self) -> Option<u32> {
        Some((self.variant.cells() - self.stone_count()) as u32)
    }
}
