//! `bench`: a fixed-depth search of fixed positions of every game, one thread, fresh tables
//! per position. The node count is the signature of the search's behaviour; the speed is
//! reported as nodes per second. The searches go through the [`ThreadPool`], blocking and
//! silent.

use std::time::{Duration, Instant};

use crate::games::chess::{Chess, ChessVariant};
use crate::games::connect4::Connect4;
use crate::games::mnk::{Mnk, MnkVariant};
use crate::search::{Game, Limits, ThreadPool};

/// A bench position: a start (FEN or the start position) and moves played from it.
struct BenchPosition {
    fen: Option<&'static str>,
    moves: &'static str,
}

const fn from_start(moves: &'static str) -> BenchPosition {
    BenchPosition { fen: None, moves }
}

const fn fen(fen: &'static str) -> BenchPosition {
    BenchPosition {
        fen: Some(fen),
        moves: "",
    }
}

const CHESS: &[BenchPosition] = &[
    from_start(""),
    fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    fen("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"),
    fen("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"),
    fen("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"),
    fen("r3k2r/2pb1ppp/2pp1q2/p7/1nP1B3/1P2P3/P2N1PPP/R2QK2R w KQkq a6 0 14"),
    fen("4rrk1/2p1b1p1/p1p3q1/4p3/2P2n1p/1P1NR2P/PB3PP1/3R1QK1 b - - 2 24"),
    fen("r3qbrk/6p1/2b2pPp/p3pP1Q/PpPpP2P/3P1B2/2PB3K/R5R1 w - - 16 42"),
    fen("6k1/1R3p2/6p1/2Bp3p/3P2q1/P7/1P2rQ1K/5R2 b - - 4 44"),
    fen("8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54"),
    fen("7r/2p3k1/1p1p1qp1/1P1Bp3/p1P2r1P/P7/4R3/Q4RK1 w - - 0 36"),
    fen("r1bq1rk1/pp2b1pp/n1pp1n2/3P1p2/2P1p3/2N1P2N/PP2BPPP/R1BQ1RK1 b - - 2 10"),
    fen("3r3k/2r4p/1p1b3q/p4P2/P2Pp3/1B2P3/3BQ1RP/6K1 w - - 3 87"),
    fen("8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1"),
    fen("8/8/3P3k/8/1p6/8/1P6/1K3n2 b - - 0 1"),
    fen("8/R7/2q5/8/6k1/8/1P5p/K6R w - - 0 124"),
    fen("6k1/3b3r/1p1p4/p1n2p2/1PPNpP1q/P3Q1p1/1R1RB1P1/5K2 b - - 0 1"),
    from_start("e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"),
    from_start("d2d4 g8f6 c2c4 e7e6 b1c3 f8b4 e2e3 e8g8 f1d3 d7d5"),
    fen("4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19"),
    fen("rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14"),
    fen("r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4Pp2/1BNP4/PPP2PPP/3R1RK1 w - - 2 14"),
    fen("r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15"),
    fen("r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13"),
    fen("r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16"),
    fen("4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17"),
    fen("2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11"),
    fen("r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16"),
    fen("3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22"),
    fen("r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18"),
    fen("4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22"),
    fen("3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26"),
    fen("6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1"),
    fen("3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1"),
    fen("2K5/p7/7P/5pR1/8/5k2/r7/8 w - - 0 1"),
    fen("8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1"),
    fen("7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1"),
    fen("8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1"),
    fen("1r3k2/4q3/2Pp3b/3Bp3/2Q2p2/1p1P2P1/1P2KP2/3N4 w - - 0 1"),
];

const CONNECT4: &[BenchPosition] = &[
    from_start(""),
    from_start("4 4 4 4 3 5"),
    from_start("4 3 4 4 3 5 5 2"),
    from_start("3 4 5 4 4 3 2 6 6"),
    from_start("4 4 4 4 4 4 3 3 3 5 5"),
    from_start("1 2 3 4 5 6 7 7 6 5 4 3"),
];
const TICTACTOE: &[BenchPosition] = &[from_start(""), from_start("b2 a1"), from_start("a1 b2 c3")];
const TICTACTOE4: &[BenchPosition] = &[from_start("b2 c3"), from_start("a1 b2 c3 d4 a4")];
const GOMOKU: &[BenchPosition] = &[
    from_start("h8"),
    from_start("h8 h9 i8 g8 i9"),
    from_start("h8 i9 g7 j10 f6 e5 g9 i7"),
];

/// One game's share of the bench.
#[derive(Clone, Debug)]
pub struct BenchLine {
    /// Game name.
    pub game: &'static str,
    /// Positions searched.
    pub positions: usize,
    /// Depth searched.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

/// The whole bench.
#[derive(Clone, Debug)]
pub struct BenchReport {
    /// Per-game results.
    pub games: Vec<BenchLine>,
}

impl BenchReport {
    /// Total nodes: the bench signature.
    pub fn nodes(&self) -> u64 {
        self.games.iter().map(|g| g.nodes).sum()
    }

    /// Nodes per second over the whole bench.
    pub fn nps(&self) -> u64 {
        let micros: u128 = self.games.iter().map(|g| g.elapsed.as_micros()).sum();
        (u128::from(self.nodes()) * 1_000_000 / micros.max(1)) as u64
    }

    /// The report as text; the last line is `Bench: <nodes> nodes <nps> nps`.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .games
            .iter()
            .map(|g| {
                format!(
                    "info string bench {} positions {} depth {} nodes {} time {}",
                    g.game,
                    g.positions,
                    g.depth,
                    g.nodes,
                    g.elapsed.as_millis()
                )
            })
            .collect();
        lines.push(format!("Bench: {} nodes {} nps", self.nodes(), self.nps()));
        lines
    }
}

fn bench_game<G: Game>(
    name: &'static str,
    variant: &G::Variant,
    positions: &[BenchPosition],
    depth: u32,
    hash_mb: usize,
) -> BenchLine {
    let mut pool = ThreadPool::<G>::new(hash_mb);
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    for position in positions {
        let mut game = match position.fen {
            Some(fen) => G::from_fen(variant, fen).expect("bench FENs are valid"),
            None => G::start(variant),
        };
        for text in position.moves.split_whitespace() {
            let mv = game.parse_move(text).expect("bench moves are legal");
            game.make_move(mv);
        }
        // Fresh tables: every position is searched as the first of a game.
        pool.new_game();
        let started = Instant::now();
        let result = pool.search(&game, &Limits::depth(depth), &[]);
        elapsed += started.elapsed();
        nodes += result.nodes;
    }
    BenchLine {
        game: name,
        positions: positions.len(),
        depth,
        nodes,
        elapsed,
    }
}

/// Runs the bench; `depth` overrides every game's default depth.
pub fn run(depth: Option<u32>, hash_mb: usize) -> BenchReport {
    let hash_mb = hash_mb.clamp(1, 64);
    BenchReport {
        games: vec![
            bench_game::<Chess>(
                "chess",
                &ChessVariant::default(),
                CHESS,
                depth.unwrap_or(11),
                hash_mb,
            ),
            bench_game::<Connect4>("connect4", &(), CONNECT4, depth.unwrap_or(14), hash_mb),
            bench_game::<Mnk>(
                "tictactoe",
                &MnkVariant::TICTACTOE,
                TICTACTOE,
                depth.unwrap_or(9),
                hash_mb,
            ),
            bench_game::<Mnk>(
                "tictactoe4",
                &MnkVariant::TICTACTOE4,
                TICTACTOE4,
                depth.unwrap_or(8),
                hash_mb,
            ),
            bench_game::<Mnk>(
                "gomoku",
                &MnkVariant::GOMOKU,
                GOMOKU,
                depth.unwrap_or(4),
                hash_mb,
            ),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_is_deterministic() {
        let a = run(Some(3), 1);
        let b = run(Some(3), 1);
        assert_eq!(a.nodes(), b.nodes());
        assert!(a.nodes() > 0);
        let last = a.lines().pop().expect("a final line");
        assert!(last.starts_with(&format!("Bench: {} nodes ", a.nodes())));
    }
}
