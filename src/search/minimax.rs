//! Plain negamax without pruning, ordering or tables: the reference every optimised
//! search must agree with, and the baseline of tree statistics.

use super::game::{Game, MoveList};
use super::score::{outcome_score, Score, DRAW, MATE};

/// The minimax value of `game` searched `depth` plies deep, scored exactly as the main
/// search scores it (mate distances from the root, evaluation at the horizon).
pub fn minimax<G: Game>(game: &mut G, depth: u32) -> Score {
    negamax(game, depth, 0)
}

fn negamax<G: Game>(game: &mut G, depth: u32, ply: usize) -> Score {
    if ply > 0 {
        if let Some(outcome) = game.outcome() {
            return outcome_score(outcome, ply);
        }
        if game.is_search_draw() {
            return DRAW;
        }
    }
    if depth == 0 {
        return game.evaluate();
    }
    let mut moves = MoveList::new();
    game.generate_moves(&mut moves);
    if moves.is_empty() {
        return if game.in_check() {
            -MATE + ply as Score
        } else {
            outcome_score(game.outcome_without_moves(), ply)
        };
    }
    let mut best = Score::MIN;
    for mv in moves {
        game.make_move(mv);
        let score = -negamax(game, depth - 1, ply + 1);
        game.unmake_move(mv);
        best = best.max(score);
    }
    best
}
