//! The layout of the chess evaluation's weights: the [`S`] pair, the flat table
//! ([`Weights`]) and where each feature's weights sit in it ([`SECTIONS`]). The evaluation
//! (`eval`) and the tuned values (`weights`, written by `cutoff tune`) both read it, so
//! neither imports the other's file back.

/// A weight: (middlegame, endgame) centipawns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S(pub i32, pub i32);

/// Every weight of the evaluation, indexed by the offsets below.
pub type Weights = [S; NUM_WEIGHTS];

/// Material of pawn, knight, bishop, rook, queen.
pub const MATERIAL: usize = 0;
/// Piece-square tables: 64 per piece (pawn..king), a8 first from White's view.
pub const PST: usize = MATERIAL + 5;
/// Knight mobility by number of safe squares (0..=8).
pub const KNIGHT_MOBILITY: usize = PST + 6 * 64;
/// Bishop mobility (0..=13).
pub const BISHOP_MOBILITY: usize = KNIGHT_MOBILITY + 9;
/// Rook mobility (0..=14).
pub const ROOK_MOBILITY: usize = BISHOP_MOBILITY + 14;
/// Queen mobility (0..=27).
pub const QUEEN_MOBILITY: usize = ROOK_MOBILITY + 15;
/// Two bishops or more.
pub const BISHOP_PAIR: usize = QUEEN_MOBILITY + 28;
/// Rook on a file without pawns.
pub const ROOK_OPEN_FILE: usize = BISHOP_PAIR + 1;
/// Rook on a file without own pawns.
pub const ROOK_HALF_OPEN_FILE: usize = ROOK_OPEN_FILE + 1;
/// Each pawn beyond the first on a file.
pub const DOUBLED_PAWN: usize = ROOK_HALF_OPEN_FILE + 1;
/// Each pawn without own pawns on the neighbouring files.
pub const ISOLATED_PAWN: usize = DOUBLED_PAWN + 1;
/// A pawn whose neighbours have all advanced past it and whose stop square an enemy pawn
/// attacks.
pub const BACKWARD_PAWN: usize = ISOLATED_PAWN + 1;
/// Passed pawn by relative rank (0..=7).
pub const PASSED_PAWN: usize = BACKWARD_PAWN + 1;
/// Own pawns one and two ranks in front of the king, on its file and the neighbours.
pub const PAWN_SHIELD: usize = PASSED_PAWN + 8;
/// Each file at or next to the king without own pawns.
pub const KING_OPEN_FILE: usize = PAWN_SHIELD + 2;
/// Squares of the enemy king zone attacked, per attacking knight, bishop, rook, queen.
pub const KING_ZONE_ATTACKS: usize = KING_OPEN_FILE + 1;
/// Number of pieces (knights to queens) attacking the enemy king zone (0..=7, capped).
pub const KING_ATTACKERS: usize = KING_ZONE_ATTACKS + 4;
/// Safe checks (squares giving check, not attacked by the enemy) per knight, bishop, rook,
/// queen.
pub const SAFE_CHECKS: usize = KING_ATTACKERS + 8;
/// Against a bare king, with at least a rook's worth of pieces: the lone king's distance
/// from the centre (0..=6) and the closeness of the kings (14 minus their Manhattan
/// distance), so that the search drives the king to the edge for mate.
pub const MOP_UP: usize = SAFE_CHECKS + 4;
/// The side to move.
pub const TEMPO: usize = MOP_UP + 2;
/// Weights `cutoff tune` leaves at their values: the mop-up terms only count against a bare
/// king, positions `cutoff datagen` does not write (most games are adjudicated as won
/// before they occur), so its data says nothing about them (a free run turned them
/// negative and lost a KQK mate in 4).
pub const FROZEN: std::ops::Range<usize> = MOP_UP..MOP_UP + 2;
/// Number of weights.
pub const NUM_WEIGHTS: usize = TEMPO + 1;

/// A named run of weights, for reports and the weights file.
#[derive(Clone, Copy, Debug)]
pub struct Section {
    /// Name, as a comment in the weights file.
    pub name: &'static str,
    /// First index.
    pub start: usize,
    /// Number of weights.
    pub len: usize,
    /// Weights per line in the weights file.
    pub row: usize,
}

const fn section(name: &'static str, start: usize, len: usize, row: usize) -> Section {
    Section {
        name,
        start,
        len,
        row,
    }
}

/// The layout of [`Weights`], in order, covering every index once.
pub const SECTIONS: [Section; 25] = [
    section(
        "material: pawn, knight, bishop, rook, queen",
        MATERIAL,
        5,
        5,
    ),
    section("pawn squares (a8..h8, ..., a1..h1)", PST, 64, 8),
    section("knight squares", PST + 64, 64, 8),
    section("bishop squares", PST + 128, 64, 8),
    section("rook squares", PST + 192, 64, 8),
    section("queen squares", PST + 256, 64, 8),
    section("king squares", PST + 320, 64, 8),
    section("knight mobility (0..=8 squares)", KNIGHT_MOBILITY, 9, 5),
    section("bishop mobility (0..=13)", BISHOP_MOBILITY, 14, 5),
    section("rook mobility (0..=14)", ROOK_MOBILITY, 15, 5),
    section("queen mobility (0..=27)", QUEEN_MOBILITY, 28, 5),
    section("bishop pair", BISHOP_PAIR, 1, 1),
    section("rook on an open file", ROOK_OPEN_FILE, 1, 1),
    section("rook on a half-open file", ROOK_HALF_OPEN_FILE, 1, 1),
    section("doubled pawn", DOUBLED_PAWN, 1, 1),
    section("isolated pawn", ISOLATED_PAWN, 1, 1),
    section("backward pawn", BACKWARD_PAWN, 1, 1),
    section("passed pawn by relative rank (1..8)", PASSED_PAWN, 8, 4),
    section("pawn shield: one, two ranks ahead", PAWN_SHIELD, 2, 2),
    section("open file at the king", KING_OPEN_FILE, 1, 1),
    section(
        "king zone squares attacked by knight, bishop, rook, queen",
        KING_ZONE_ATTACKS,
        4,
        4,
    ),
    section(
        "pieces attacking the king zone (0..=7)",
        KING_ATTACKERS,
        8,
        4,
    ),
    section(
        "safe checks by knight, bishop, rook, queen",
        SAFE_CHECKS,
        4,
        4,
    ),
    section(
        "mop-up: lone king from the centre, kings close",
        MOP_UP,
        2,
        2,
    ),
    section("tempo", TEMPO, 1, 1),
];
