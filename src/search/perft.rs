//! Move-generation counting (perft) for any game, with bulk counting at the last ply: the
//! rules' own test, used by the protocol's `perft` command, the `perft` tool and the tests.

use std::time::{Duration, Instant};

use super::game::{Game, MoveList};

/// Number of leaf positions exactly `depth` plies from `game`, counted on a
/// [`Rules::rules_only`](crate::search::Rules::rules_only) copy: nothing is evaluated, so no
/// evaluation state is kept up to date (`game` itself is left as it was).
pub fn perft<G: Game>(game: &mut G, depth: u32) -> u64 {
    count(&mut game.rules_only(), depth)
}

/// [`perft`] on the position itself (already a rules-only copy).
fn count<G: Game>(game: &mut G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    game.generate_moves(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for mv in moves {
        game.make_move(mv);
        total += count(game, depth - 1);
        game.unmake_move(mv);
    }
    total
}

/// Leaf counts below each root move (in the game's notation), in generation order, counted
/// like [`perft`] on a rules-only copy of `game`.
pub fn perft_divide<G: Game>(game: &G, depth: u32) -> Vec<(String, u64)> {
    let mut game = game.rules_only();
    let mut moves = MoveList::new();
    game.generate_moves(&mut moves);
    let mut counts = Vec::with_capacity(moves.len());
    for mv in moves {
        let name = game.format_move(mv);
        game.make_move(mv);
        let leaves = count(&mut game, depth.saturating_sub(1));
        game.unmake_move(mv);
        counts.push((name, leaves));
    }
    counts
}

/// A timed [`perft_divide`]: the counts per root move and how long they took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftDivide {
    /// Plies counted (at least 1).
    pub depth: u32,
    /// Leaf count below each root move, in generation order.
    pub counts: Vec<(String, u64)>,
    /// Time taken.
    pub elapsed: Duration,
}

impl PerftDivide {
    /// Counts the leaves `depth` plies (at least 1) below each root move of `root`.
    pub fn run<G: Game>(root: &G, depth: u32) -> PerftDivide {
        let started = Instant::now();
        let depth = depth.max(1);
        let counts = perft_divide(root, depth);
        PerftDivide {
            depth,
            counts,
            elapsed: started.elapsed(),
        }
    }

    /// The total leaf count.
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|(_, n)| n).sum()
    }

    /// Leaves per second.
    pub fn nps(&self) -> u64 {
        (u128::from(self.total()) * 1_000_000 / self.elapsed.as_micros().max(1)) as u64
    }
}
