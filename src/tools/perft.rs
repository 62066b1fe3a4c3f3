//! Move-generation counting (perft) for any game, with bulk counting at the last ply.

use crate::search::{Game, MoveList};

/// Number of leaf positions exactly `depth` plies from `game`.
pub fn perft<G: Game>(game: &mut G, depth: u32) -> u64 {
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
        total += perft(game, depth - 1);
        game.unmake_move(mv);
    }
    total
}

/// Leaf counts below each root move (in the game's notation), in generation order.
pub fn perft_divide<G: Game>(game: &mut G, depth: u32) -> Vec<(String, u64)> {
    let mut moves = MoveList::new();
    game.generate_moves(&mut moves);
    let mut counts = Vec::with_capacity(moves.len());
    for mv in moves {
        let name = game.format_move(mv);
        game.make_move(mv);
        let count = perft(game, depth.saturating_sub(1));
        game.unmake_move(mv);
        counts.push((name, count));
    }
    counts
}
