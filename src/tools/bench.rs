//! `bench`: a fixed-depth search of fixed positions of every game, one thread, fresh tables
//! per position. The node count is the signature of the search's behaviour; the speed is
//! reported as nodes per second.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::games::connect4::Connect4;
use crate::games::mnk::{Mnk, MnkVariant};
use crate::search::{Game, Limits, SearchControl, Searcher, TranspositionTable};

/// A bench position: a start (FEN or the start position) and moves played from it.
struct BenchPosition {
    fen: Option<&'static str>,
    moves: &'static str,
}

const fn from_start(moves: &'static str) -> BenchPosition {
    BenchPosition { fen: None, moves }
}

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
    let tt = Arc::new(TranspositionTable::new(hash_mb));
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
        tt.clear();
        let mut searcher = Searcher::<G>::new(Arc::clone(&tt));
        let control = Arc::new(SearchControl::new(Instant::now(), false));
        let started = Instant::now();
        let result = searcher.run(&game, &Limits::depth(depth), &[], control, &mut |_| {});
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
