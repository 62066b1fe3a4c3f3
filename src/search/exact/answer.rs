//! The exact answer of a search that plays exactly (Step 2b of the root driver,
//! `Searcher::run`): the game's book move, or the best exact value found by the game's
//! solver within the time the move may take.

use std::sync::Arc;

use super::{best_exact_move, win_bound, ExactChoice, ExactPlay};
use crate::search::limits::Deadlines;
use crate::search::params::INFINITE_EXACT_TIME;
use crate::search::{Game, SearchControl};

/// The exact answer at `root`, whose legal (or searched) moves are `root_moves`: a move of
/// the game's book, or of the best exact value by the game's solver ([`best_exact_move`])
/// within half the move's hard deadline (5 s under `infinite`), with the solver's nodes.
/// `None` when neither answers in time, and then the soft deadline of the normal search
/// starts again from now (within the hard one).
pub fn exact_answer<G: Game>(
    play: ExactPlay<'_, G>,
    root: &G,
    root_moves: &[G::Move],
    control: &Arc<SearchControl>,
    deadlines: &mut Option<Deadlines>,
) -> Option<(ExactChoice<G::Move>, u64)> {
    // Step 1. The book: a winning move, whose distance it does not know.
    if let Some(mv) = root.book_move().filter(|mv| root_moves.contains(mv)) {
        let choice = ExactChoice {
            mv,
            score: win_bound(root),
            distance_known: false,
        };
        return Some((choice, 0));
    }

    // Step 2. The solver, until `stop` or half the hard deadline.
    let solver = play.solver?;
    let until = match deadlines {
        Some(deadlines) => deadlines.hard / 2,
        None => INFINITE_EXACT_TIME,
    };
    let watched = Arc::clone(control);
    solver.set_interrupt(Some(Arc::new(move || {
        watched.is_stopped() || (!watched.is_pondering() && watched.clock_elapsed() >= until)
    })));
    solver.reset_nodes();
    let choice = best_exact_move(solver, root, root_moves);
    solver.set_interrupt(None);
    let nodes = solver.nodes();

    // Step 3. No answer in time: the normal search's soft deadline starts from now.
    if choice.is_none() {
        let spent = control.clock_elapsed();
        if let Some(deadlines) = deadlines.as_mut() {
            deadlines.soft = (spent + deadlines.soft).min(deadlines.hard);
        }
    }
    choice.map(|choice| (choice, nodes))
}
