//! Alpha-beta against plain minimax: on random positions of every small game, the search
//! with its exact parts on (PVS, aspiration, the table, ordering, quiescence where a game
//! has it) and the game's value-changing pruning off returns minimax's value at the same
//! depth.

use crate::games::ataxx::{Ataxx, AtaxxVariant};
use crate::games::connect4::Connect4;
use crate::games::mnk::{Mnk, MnkVariant};
use crate::rng::SplitMix;
use crate::search::minimax::minimax;
use crate::search::{Game, Limits, MoveList, Rules, SearchFeatures, SearchResult, ThreadPool};

/// The engine's search with every exact part on and the game's value-changing pruning
/// (Ataxx's null move, reductions and futility) off: it must return minimax values.
fn exact_search<G: Game>(game: &G, limits: &Limits) -> SearchResult<G::Move> {
    let mut pool = ThreadPool::<G>::new(1);
    pool.set_features(SearchFeatures {
        game_pruning: false,
        ..SearchFeatures::ALL
    });
    pool.search(game, limits, &[])
}

/// A position reached by up to `max_plies` random moves from `start` that is not over.
fn random_position<G: Game>(rng: &mut SplitMix, start: &G, max_plies: usize) -> G {
    loop {
        let mut game = start.clone();
        let plies = rng.below(max_plies + 1);
        for _ in 0..plies {
            let mut moves = MoveList::new();
            game.generate_moves(&mut moves);
            if moves.is_empty() || game.outcome().is_some() {
                break;
            }
            game.make_move(moves[rng.below(moves.len())]);
        }
        if game.outcome().is_none() {
            return game;
        }
    }
}

fn check_equivalence<G: Game>(
    start: &G,
    positions: usize,
    max_plies: usize,
    depths: &[u32],
    seed: u64,
) {
    let mut rng = SplitMix::new(seed);
    for i in 0..positions {
        let game = random_position(&mut rng, start, max_plies);
        let depth = depths[i % depths.len()];
        let mut reference = game.clone();
        let expected = minimax(&mut reference, depth);
        let result = exact_search(&game, &Limits::depth(depth));
        assert_eq!(
            result.score,
            expected,
            "position {} depth {depth}: PVS+TT disagrees with minimax",
            game.to_fen()
        );
    }
}

#[test]
fn alpha_beta_equals_minimax_on_random_tictactoe_positions() {
    check_equivalence(
        &Mnk::start(&MnkVariant::TICTACTOE),
        300,
        6,
        &[1, 2, 3, 4, 9],
        1,
    );
}

#[test]
fn alpha_beta_equals_minimax_on_random_4x4_positions() {
    check_equivalence(
        &Mnk::start(&MnkVariant::TICTACTOE4),
        200,
        12,
        &[1, 2, 3, 4, 5],
        2,
    );
}

#[test]
fn alpha_beta_equals_minimax_on_random_connect4_positions() {
    check_equivalence(&Connect4::start(&()), 300, 30, &[1, 2, 3, 4, 5, 6], 3);
}

#[test]
fn alpha_beta_equals_minimax_on_random_gomoku_positions() {
    let variant = MnkVariant::new(7, 7, 4).expect("a 7x7 board with four in a row");
    check_equivalence(&Mnk::start(&variant), 100, 20, &[1, 2, 3], 4);
}

#[test]
fn alpha_beta_equals_minimax_on_random_ataxx_positions() {
    // The start, a board with gaps, a clock close to its limit (so the search meets the
    // drawn end), and a side that must pass; by the hand-crafted evaluation, and the start
    // by the built-in net too (its accumulators updated through make and unmake).
    let hce = AtaxxVariant::hand_crafted();
    let starts = [
        Ataxx::start(&hce),
        Ataxx::from_fen(&hce, "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1").unwrap(),
        Ataxx::from_fen(&hce, "x5o/7/3-3/2-1-2/3-3/7/o5x x 95 60").unwrap(),
        Ataxx::from_fen(&hce, "7/7/7/7/4ooo/4ooo/4oox x 0 1").unwrap(),
    ];
    for (seed, start) in (5..).zip(&starts) {
        check_equivalence(start, 40, 40, &[1, 2, 3, 3], seed);
    }
    check_equivalence(&Ataxx::start(&Default::default()), 12, 40, &[1, 2, 3], 9);
}
