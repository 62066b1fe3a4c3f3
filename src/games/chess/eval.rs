//! The chess evaluation: a tapered (middlegame/endgame) sum of weighted features.
//!
//! Every weight is an [`S`] pair in one flat table ([`Weights`], the values in
//! [`super::weights::WEIGHTS`]), laid out in the [`SECTIONS`] below. The evaluation code is
//! written once, generic over a [`Collector`] that receives `(weight index, count)` pairs:
//! the engine's collector adds the weights at once (no allocation, no table of features),
//! the tuner's collector records the counts, giving a linear [`Trace`] of the position
//! (`cutoff tune`, `cutoff_training::chess::tune`).
//!
//! Features, each counted for White minus Black: material, piece-square tables, mobility
//! per piece and number of safe squares (squares not held by own pawns or king and not
//! attacked by enemy pawns), bishop pair, rooks on open and half-open files, doubled,
//! isolated and backward pawns, passed pawns by rank, king safety (pawn shield, open files
//! at the king, attacks on the king zone per piece type, the number of pieces attacking the
//! zone, safe checks per piece type) and the tempo. The sum is tapered by the game phase
//! and scaled down in drawish material balances.

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_rook_moves, BitBoard, Board, Color,
    Piece, Rank,
};

// The layout is the evaluation's public face (the tuner reads it through here).
pub use super::layout::{
    Section, Weights, BACKWARD_PAWN, BISHOP_MOBILITY, BISHOP_PAIR, DOUBLED_PAWN, FROZEN,
    ISOLATED_PAWN, KING_ATTACKERS, KING_OPEN_FILE, KING_ZONE_ATTACKS, KNIGHT_MOBILITY, MATERIAL,
    MOP_UP, NUM_WEIGHTS, PASSED_PAWN, PAWN_SHIELD, PST, QUEEN_MOBILITY, ROOK_HALF_OPEN_FILE,
    ROOK_MOBILITY, ROOK_OPEN_FILE, S, SAFE_CHECKS, SECTIONS, TEMPO,
};
use super::weights::WEIGHTS;

/// Game phase weight of each piece; 24 is the opening.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
/// Full game phase.
pub const PHASE_MAX: i32 = 24;
/// Largest static evaluation.
pub const EVAL_LIMIT: i32 = 10_000;
/// Simple material values used to judge drawish endings, indexed by [`Piece`].
const SIMPLE_VALUE: [i32; 6] = [100, 300, 300, 500, 900, 0];

/// Receives the features of one side: `count` times the weight at `index`.
pub trait Collector {
    /// Adds `count` times weight `index`.
    fn add(&mut self, index: usize, count: i32);
}

/// The engine's collector: sums the weights at once.
struct Sum<'a> {
    weights: &'a Weights,
    mg: i32,
    eg: i32,
}

impl Collector for Sum<'_> {
    #[inline(always)]
    fn add(&mut self, index: usize, count: i32) {
        let S(mg, eg) = self.weights[index];
        self.mg += mg * count;
        self.eg += eg * count;
    }
}

/// The tuner's collector: counts per weight.
struct Counts(Vec<i32>);

impl Collector for Counts {
    fn add(&mut self, index: usize, count: i32) {
        self.0[index] += count;
    }
}

/// File masks.
const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Squares attacked by the pawns `pawns` of `color`.
fn pawn_attacks(pawns: BitBoard, color: Color) -> BitBoard {
    let p = pawns.0;
    BitBoard(match color {
        Color::White => ((p & !FILE_A) << 7) | ((p & !FILE_H) << 9),
        Color::Black => ((p & !FILE_A) >> 9) | ((p & !FILE_H) >> 7),
    })
}

/// `b` and every square north of it.
fn north_fill(b: u64) -> u64 {
    let b = b | b << 8;
    let b = b | b << 16;
    b | b << 32
}

/// `b` and every square south of it.
fn south_fill(b: u64) -> u64 {
    let b = b | b >> 8;
    let b = b | b >> 16;
    b | b >> 32
}

/// `b` and every square ahead of it from `color`'s view.
fn front_fill(b: u64, color: Color) -> u64 {
    match color {
        Color::White => north_fill(b),
        Color::Black => south_fill(b),
    }
}

/// `b` moved one rank forward from `color`'s view.
fn forward(b: u64, color: Color) -> u64 {
    match color {
        Color::White => b << 8,
        Color::Black => b >> 8,
    }
}

/// `b` moved one file to each side.
fn sideways(b: u64) -> u64 {
    ((b & !FILE_A) >> 1) | ((b & !FILE_H) << 1)
}

/// What the first pass learns about one side's attacks.
#[derive(Default, Clone, Copy)]
struct Attacks {
    /// Squares attacked by each piece type (pawn..king).
    by: [BitBoard; 6],
    /// Squares attacked by any piece.
    all: BitBoard,
}

/// Material, piece-square tables and mobility of `color`; fills its attack maps and
/// counts the king-zone attacks on the enemy king.
fn pieces<C: Collector>(board: &Board, color: Color, out: &mut C, attacks: &mut Attacks) {
    let occupied = board.occupied();
    let our_pawns = board.colored_pieces(color, Piece::Pawn);
    let their_pawns = board.colored_pieces(!color, Piece::Pawn);
    let flip = if color == Color::White { 56 } else { 0 };
    let area = !(our_pawns | board.colored_pieces(color, Piece::King))
        & !pawn_attacks(their_pawns, !color);
    let their_king = board.king(!color);
    let zone = get_king_moves(their_king) | their_king.bitboard();
    let mut attackers = 0;

    attacks.by[Piece::Pawn as usize] = pawn_attacks(our_pawns, color);
    attacks.by[Piece::King as usize] = get_king_moves(board.king(color));
    for piece in Piece::ALL {
        let p = piece as usize;
        for square in board.colored_pieces(color, piece) {
            let index = square as usize ^ flip;
            if p < 5 {
                out.add(MATERIAL + p, 1);
            }
            out.add(PST + p * 64 + index, 1);
            let (targets, mobility) = match piece {
                Piece::Knight => (get_knight_moves(square), KNIGHT_MOBILITY),
                Piece::Bishop => (get_bishop_moves(square, occupied), BISHOP_MOBILITY),
                Piece::Rook => (get_rook_moves(square, occupied), ROOK_MOBILITY),
                Piece::Queen => (
                    get_bishop_moves(square, occupied) | get_rook_moves(square, occupied),
                    QUEEN_MOBILITY,
                ),
                Piece::Pawn | Piece::King => continue,
            };
            attacks.by[p] |= targets;
            out.add(mobility + (targets & area).len() as usize, 1);
            let on_zone = (targets & zone).len() as i32;
            if on_zone > 0 {
                out.add(KING_ZONE_ATTACKS + p - 1, on_zone);
                attackers += 1;
            }
        }
    }
    out.add(KING_ATTACKERS + attackers.min(7), 1);
    attacks.all = attacks.by.iter().fold(BitBoard::EMPTY, |all, &bb| all | bb);
}

/// Bishop pair, rook files, pawn structure and the own king's pawn cover of `color`.
fn structure<C: Collector>(board: &Board, color: Color, out: &mut C) {
    let our_pawns = board.colored_pieces(color, Piece::Pawn);
    let their_pawns = board.colored_pieces(!color, Piece::Pawn);
    let all_pawns = our_pawns | their_pawns;

    // Bishop pair.
    if board.colored_pieces(color, Piece::Bishop).len() >= 2 {
        out.add(BISHOP_PAIR, 1);
    }

    // Rooks on open and half-open files.
    for square in board.colored_pieces(color, Piece::Rook) {
        let file = square.file().bitboard();
        if (all_pawns & file).is_empty() {
            out.add(ROOK_OPEN_FILE, 1);
        } else if (our_pawns & file).is_empty() {
            out.add(ROOK_HALF_OPEN_FILE, 1);
        }
    }

    pawn_structure(color, our_pawns, their_pawns, out);
    king_cover(board, color, our_pawns, out);
}

/// Doubled, isolated, backward and passed pawns of `color`, set-wise.
fn pawn_structure<C: Collector>(color: Color, ours: BitBoard, theirs: BitBoard, out: &mut C) {
    let (p, t) = (ours.0, theirs.0);
    let files = south_fill(north_fill(p));
    // Doubled: pawns beyond the first of each file.
    let doubled = ours.len() as i32 - (files & 0xff).count_ones() as i32;
    if doubled > 0 {
        out.add(DOUBLED_PAWN, doubled);
    }
    // Isolated: no own pawn on a neighbouring file.
    let neighbour_files = sideways(files);
    let isolated = (p & !neighbour_files).count_ones() as i32;
    if isolated > 0 {
        out.add(ISOLATED_PAWN, isolated);
    }
    // Backward: neighbours exist but are all ahead, and an enemy pawn guards the stop
    // square.
    let their_attacks = pawn_attacks(theirs, !color).0;
    let support = front_fill(sideways(p), color);
    let stop_attacked = forward(their_attacks, !color);
    let backward = (p & neighbour_files & !support & stop_attacked).count_ones() as i32;
    if backward > 0 {
        out.add(BACKWARD_PAWN, backward);
    }
    // Passed: no enemy pawn ahead on the file or the neighbouring files, and no own pawn
    // ahead on the file.
    let their_front = front_fill(forward(t, !color), !color);
    let own_front = front_fill(forward(p, !color), !color);
    let blockers = their_front | sideways(their_front);
    let mut passed = BitBoard(p & !blockers & !own_front);
    while let Some(square) = passed.next_square() {
        passed ^= square.bitboard();
        let rank = square.rank() as usize;
        let relative = if color == Color::White {
            rank
        } else {
            7 - rank
        };
        out.add(PASSED_PAWN + relative, 1);
    }
}

/// The pawn shield of `color`'s king and the open files around it.
fn king_cover<C: Collector>(board: &Board, color: Color, our_pawns: BitBoard, out: &mut C) {
    let king = board.king(color);
    let king_files = king.file().bitboard() | king.file().adjacent();
    let rank = king.rank() as i32;
    let forward = if color == Color::White { 1 } else { -1 };
    for distance in 1..=2 {
        let shield_rank = rank + forward * distance;
        if let Some(r) = usize::try_from(shield_rank).ok().and_then(Rank::try_index) {
            let shield = (our_pawns & king_files & r.bitboard()).len() as i32;
            if shield > 0 {
                out.add(PAWN_SHIELD + distance as usize - 1, shield);
            }
        }
    }
    let pawn_files = south_fill(north_fill(our_pawns.0));
    let open = (king_files.0 & !pawn_files & 0xff).count_ones() as i32;
    if open > 0 {
        out.add(KING_OPEN_FILE, open);
    }
}

/// Safe checks of `color` against the enemy king: squares from which a piece of `color`
/// that can reach them would give check, not attacked by the enemy and not occupied by
/// `color`.
fn safe_checks<C: Collector>(
    board: &Board,
    color: Color,
    out: &mut C,
    ours: &Attacks,
    theirs: &Attacks,
) {
    let occupied = board.occupied();
    let their_king = board.king(!color);
    let safe = !board.colors(color) & !theirs.all;
    let diagonal = get_bishop_moves(their_king, occupied);
    let straight = get_rook_moves(their_king, occupied);
    let checks = [
        get_knight_moves(their_king),
        diagonal,
        straight,
        diagonal | straight,
    ];
    for (i, check) in checks.into_iter().enumerate() {
        let count = (check & safe & ours.by[i + 1]).len() as i32;
        if count > 0 {
            out.add(SAFE_CHECKS + i, count);
        }
    }
}

/// Mop-up of `color` against a bare enemy king, when it has at least a rook's worth of
/// pieces.
fn mop_up<C: Collector>(board: &Board, color: Color, out: &mut C) {
    if board.colors(!color).len() != 1 || non_pawn_material(board, color) < 500 {
        return;
    }
    let (theirs, ours) = (board.king(!color), board.king(color));
    let (file, rank) = (theirs.file() as i32, theirs.rank() as i32);
    let centre = (3 - file).max(file - 4) + (3 - rank).max(rank - 4);
    let distance = (file - ours.file() as i32).abs() + (rank - ours.rank() as i32).abs();
    out.add(MOP_UP, centre);
    out.add(MOP_UP + 1, 14 - distance);
}

/// Collects every feature of White into `white` and of Black into `black`; returns the
/// game phase (0..=24).
fn collect<C: Collector>(board: &Board, white: &mut C, black: &mut C) -> i32 {
    let mut attacks = [Attacks::default(); 2];
    pieces(board, Color::White, white, &mut attacks[0]);
    pieces(board, Color::Black, black, &mut attacks[1]);
    structure(board, Color::White, white);
    structure(board, Color::Black, black);
    safe_checks(board, Color::White, white, &attacks[0], &attacks[1]);
    safe_checks(board, Color::Black, black, &attacks[1], &attacks[0]);
    mop_up(board, Color::White, white);
    mop_up(board, Color::Black, black);
    match board.side_to_move() {
        Color::White => white.add(TEMPO, 1),
        Color::Black => black.add(TEMPO, 1),
    }
    let phase: i32 = Piece::ALL
        .iter()
        .map(|&p| PHASE_WEIGHT[p as usize] * board.pieces(p).len() as i32)
        .sum();
    phase.min(PHASE_MAX)
}

/// Middlegame and endgame sums blended by the phase (White's view).
pub fn taper(mg: i32, eg: i32, phase: i32) -> i32 {
    (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX
}

/// The simple non-pawn material of `color`.
fn non_pawn_material(board: &Board, color: Color) -> i32 {
    [Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen]
        .iter()
        .map(|&p| SIMPLE_VALUE[p as usize] * board.colored_pieces(color, p).len() as i32)
        .sum()
}

/// What a tapered score (White's view) is divided by: 1 normally, more when the side
/// ahead has no pawns and too little extra material to force mate.
pub fn scale_divisor(board: &Board, score: i32) -> i32 {
    let strong = if score > 0 {
        Color::White
    } else {
        Color::Black
    };
    if !board.colored_pieces(strong, Piece::Pawn).is_empty() {
        return 1;
    }
    let strong_material = non_pawn_material(board, strong);
    let weak_material = non_pawn_material(board, !strong);
    let only_knights = board.colored_pieces(strong, Piece::Knight).len() as i32 * 300;
    if strong_material <= 300 || (strong_material == only_knights && weak_material == 0) {
        // A lone minor, or two knights against a bare king: no forced mate.
        return 16;
    }
    let queen_against_none = !board.colored_pieces(strong, Piece::Queen).is_empty()
        && board.colored_pieces(!strong, Piece::Queen).is_empty();
    if strong_material - weak_material < SIMPLE_VALUE[Piece::Rook as usize] && !queen_against_none {
        return 4;
    }
    1
}

/// The final score from White's middlegame and endgame sums: tapered, scaled, turned to
/// the side to move's view and clamped.
fn finish(board: &Board, mg: i32, eg: i32, phase: i32) -> i32 {
    let tapered = taper(mg, eg, phase);
    let score = tapered / scale_divisor(board, tapered);
    let relative = match board.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    };
    relative.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// Static evaluation of `board` with `weights`, in centipawns from the side to move's view.
pub fn evaluate_with(board: &Board, weights: &Weights) -> i32 {
    let mut white = Sum {
        weights,
        mg: 0,
        eg: 0,
    };
    let mut black = Sum {
        weights,
        mg: 0,
        eg: 0,
    };
    let phase = collect(board, &mut white, &mut black);
    finish(board, white.mg - black.mg, white.eg - black.eg, phase)
}

/// Static evaluation of `board` in centipawns, from the side to move's view.
pub fn evaluate_board(board: &Board) -> i32 {
    evaluate_with(board, &WEIGHTS)
}

/// A position as the tuner sees it: White's evaluation before clamping is
/// `taper(Σ c·mg, Σ c·eg, phase) / divisor` over the sparse coefficients `c`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// (weight index, White's count minus Black's), nonzero counts only.
    pub coefficients: Vec<(u16, i16)>,
    /// Game phase, 0 (bare kings and pawns) to 24 (all pieces).
    pub phase: i32,
    /// The drawish-material divisor, fixed at the weights the trace was taken with.
    pub divisor: i32,
}

impl Trace {
    /// White's middlegame and endgame sums under `weights`.
    pub fn sums(&self, weights: &Weights) -> (i32, i32) {
        self.coefficients
            .iter()
            .fold((0, 0), |(mg, eg), &(index, count)| {
                let S(wm, we) = weights[usize::from(index)];
                (mg + wm * i32::from(count), eg + we * i32::from(count))
            })
    }

    /// White's evaluation (before clamping) under `weights`, in integers as the engine
    /// computes it.
    pub fn evaluate(&self, weights: &Weights) -> i32 {
        let (mg, eg) = self.sums(weights);
        taper(mg, eg, self.phase) / self.divisor
    }
}

/// The feature trace of `board`; the drawish divisor is taken under `weights`.
pub fn trace(board: &Board, weights: &Weights) -> Trace {
    let mut white = Counts(vec![0; NUM_WEIGHTS]);
    let mut black = Counts(vec![0; NUM_WEIGHTS]);
    let phase = collect(board, &mut white, &mut black);
    let coefficients: Vec<(u16, i16)> = white
        .0
        .iter()
        .zip(&black.0)
        .enumerate()
        .filter(|(_, (w, b))| w != b)
        .map(|(index, (w, b))| (index as u16, (w - b).clamp(-32_768, 32_767) as i16))
        .collect();
    let mut trace = Trace {
        coefficients,
        phase,
        divisor: 1,
    };
    let (mg, eg) = trace.sums(weights);
    trace.divisor = scale_divisor(board, taper(mg, eg, phase));
    trace
}

#[cfg(test)]
mod tests {
    use super::*;
    use cozy_chess::{File, Square};

    /// The squares strictly in front of `rank` from `color`'s view, on all files.
    fn ranks_ahead(color: Color, rank: usize) -> BitBoard {
        match color {
            Color::White if rank >= 7 => BitBoard::EMPTY,
            Color::White => BitBoard(!0u64 << (8 * (rank + 1))),
            Color::Black => BitBoard((1u64 << (8 * rank)) - 1),
        }
    }

    /// The former per-file and per-pawn loops of the pawn structure and the king's open
    /// files, kept to check the set-wise version.
    fn structure_by_loops<C: Collector>(board: &Board, color: Color, out: &mut C) {
        let our_pawns = board.colored_pieces(color, Piece::Pawn);
        let their_pawns = board.colored_pieces(!color, Piece::Pawn);
        for file in File::ALL {
            let on_file = (our_pawns & file.bitboard()).len() as i32;
            if on_file == 0 {
                continue;
            }
            if on_file > 1 {
                out.add(DOUBLED_PAWN, on_file - 1);
            }
            if (our_pawns & file.adjacent()).is_empty() {
                out.add(ISOLATED_PAWN, on_file);
            }
        }
        let their_pawn_attacks = pawn_attacks(their_pawns, !color);
        for square in our_pawns {
            let rank = square.rank() as usize;
            let relative = if color == Color::White {
                rank
            } else {
                7 - rank
            };
            let ahead = ranks_ahead(color, rank);
            let file = square.file();
            let span = ahead & (file.bitboard() | file.adjacent());
            let blocked_by_own = !(ahead & file.bitboard() & our_pawns).is_empty();
            if (span & their_pawns).is_empty() && !blocked_by_own {
                out.add(PASSED_PAWN + relative, 1);
            }
            let neighbours = our_pawns & file.adjacent();
            if !neighbours.is_empty() && relative < 7 {
                let stop = if color == Color::White {
                    square as usize + 8
                } else {
                    square as usize - 8
                };
                let level_or_behind = neighbours & !ahead;
                if level_or_behind.is_empty() && their_pawn_attacks.has(Square::index(stop)) {
                    out.add(BACKWARD_PAWN, 1);
                }
            }
        }

        // The open files around the own king (the shield is not checked here).
        let king = board.king(color);
        let king_files = king.file().bitboard() | king.file().adjacent();
        let open = File::ALL
            .iter()
            .filter(|file| {
                let bb = file.bitboard();
                !(bb & king_files).is_empty() && (our_pawns & bb).is_empty()
            })
            .count() as i32;
        if open > 0 {
            out.add(KING_OPEN_FILE, open);
        }
    }

    #[test]
    fn sections_cover_every_weight_once() {
        let mut next = 0;
        for section in SECTIONS {
            assert_eq!(section.start, next, "{}", section.name);
            next += section.len;
        }
        assert_eq!(next, NUM_WEIGHTS);
    }

    #[test]
    fn trace_times_weights_is_the_evaluation() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            "8/8/4k3/8/8/3RK3/8/7b b - - 0 1",
            "6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 1",
            "r1bq1rk1/pp2b1pp/n1pp1n2/3P1p2/2P1p3/2N1P2N/PP2BPPP/R1BQ1RK1 b - - 2 10",
            "6k1/1R3p2/6p1/2Bp3p/3P2q1/P7/1P2rQ1K/5R2 b - - 4 44",
        ] {
            let board: Board = fen.parse().expect("test FEN");
            let trace = trace(&board, &WEIGHTS);
            let white = trace.evaluate(&WEIGHTS).clamp(-EVAL_LIMIT, EVAL_LIMIT);
            let expected = match board.side_to_move() {
                Color::White => white,
                Color::Black => -white,
            };
            assert_eq!(evaluate_board(&board), expected, "{fen}");
            // Other weights too: the trace is linear in them.
            let mut doubled = WEIGHTS;
            for w in doubled.iter_mut() {
                *w = S(w.0 * 2 + 1, w.1 * 3 - 2);
            }
            let again = trace.sums(&doubled);
            let mut white_sum = (0, 0);
            let mut counts_w = Counts(vec![0; NUM_WEIGHTS]);
            let mut counts_b = Counts(vec![0; NUM_WEIGHTS]);
            collect(&board, &mut counts_w, &mut counts_b);
            for ((w, b), weight) in counts_w.0.iter().zip(&counts_b.0).zip(&doubled) {
                white_sum.0 += (w - b) * weight.0;
                white_sum.1 += (w - b) * weight.1;
            }
            assert_eq!(again, white_sum, "{fen}");
        }
    }

    #[test]
    fn set_wise_pawn_structure_matches_the_loops_and_traces_match_on_random_games() {
        let mut rng = crate::rng::SplitMix::new(0x2545_f491_4f6c_dd1d);
        let mut positions = 0;
        for _ in 0..200 {
            let mut board = Board::default();
            for _ in 0..120 {
                let mut moves = Vec::new();
                board.generate_moves(|m| {
                    moves.extend(m);
                    false
                });
                if moves.is_empty() {
                    break;
                }
                board.play_unchecked(moves[rng.below(moves.len())]);
                for color in [Color::White, Color::Black] {
                    let mut fast = Counts(vec![0; NUM_WEIGHTS]);
                    let ours = board.colored_pieces(color, Piece::Pawn);
                    let theirs = board.colored_pieces(!color, Piece::Pawn);
                    pawn_structure(color, ours, theirs, &mut fast);
                    king_cover(&board, color, ours, &mut fast);
                    fast.0[PAWN_SHIELD] = 0;
                    fast.0[PAWN_SHIELD + 1] = 0;
                    let mut slow = Counts(vec![0; NUM_WEIGHTS]);
                    structure_by_loops(&board, color, &mut slow);
                    assert_eq!(fast.0, slow.0, "{board} {color:?}");
                }
                // The trace reproduces the evaluation everywhere, not only on the samples.
                let white = trace(&board, &WEIGHTS).evaluate(&WEIGHTS);
                let white = white.clamp(-EVAL_LIMIT, EVAL_LIMIT);
                let relative = match board.side_to_move() {
                    Color::White => white,
                    Color::Black => -white,
                };
                assert_eq!(evaluate_board(&board), relative, "{board}");
                positions += 1;
            }
        }
        assert!(positions > 10_000);
    }

    #[test]
    fn pawn_features() {
        let count = |fen: &str, index: usize| {
            let board: Board = fen.parse().expect("test FEN");
            let trace = trace(&board, &WEIGHTS);
            trace
                .coefficients
                .iter()
                .find(|&&(i, _)| usize::from(i) == index)
                .map_or(0, |&(_, c)| i32::from(c))
        };
        // d3 is backward: c4 and e4 are ahead of it and e5... the black pawn on c4 would
        // not matter; the stop square d4 is attacked by the black pawn on e5.
        assert_eq!(
            count("4k3/8/8/4p3/2P1P3/3P4/8/4K3 w - - 0 1", BACKWARD_PAWN),
            1
        );
        // Supported from behind: not backward.
        assert_eq!(
            count("4k3/8/8/4p3/2P5/3P4/4P3/4K3 w - - 0 1", BACKWARD_PAWN),
            0
        );
        // Black's mirror image counts for Black.
        assert_eq!(
            count("4k3/8/3p4/2p1p3/4P3/8/8/4K3 b - - 0 1", BACKWARD_PAWN),
            -1
        );
        // Safe checks: a white knight can check from f6 or d6 (unguarded).
        assert_eq!(count("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1", SAFE_CHECKS), 2);
        // Mop-up against a bare king: edge distance and king closeness.
        assert_eq!(count("7k/8/8/8/8/8/8/R3K3 w - - 0 1", MOP_UP), 6);
        assert_eq!(count("7k/8/8/8/8/8/8/R3K3 w - - 0 1", MOP_UP + 1), 4);
        assert_eq!(count("8/8/8/3k4/8/8/8/R3K3 w - - 0 1", MOP_UP), 0);
        assert_eq!(count("7k/8/8/8/8/8/8/N3K3 w - - 0 1", MOP_UP), 0);
        // Isolated and doubled.
        assert_eq!(count("4k3/8/8/8/8/P7/P7/4K3 w - - 0 1", ISOLATED_PAWN), 2);
        assert_eq!(count("4k3/8/8/8/8/P7/P7/4K3 w - - 0 1", DOUBLED_PAWN), 1);
    }
}
