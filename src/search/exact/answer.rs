//! The exact answer of a search that plays exactly (Step 2b of the root driver,
//! `Searcher::run`): the game's book move, or the best exact value found by the game's
//! solver within the time the move may take.

use std::sync::Arc;
use std::time::Duration;

use super::{best_exact_move_noting, win_bound, ExactChoice, ExactPlay};
use crate::search::limits::Deadlines;
use crate::search::params::INFINITE_EXACT_TIME;
use crate::search::score::DRAW;
use crate::search::{Game, MoveList, Outcome, SearchControl};

/// The exact answer at `root`, whose legal (or searched) moves are `root_moves`: a move of
/// the game's book, or of the best exact value by the game's solver ([`best_exact_move`](super::best_exact_move))
/// within the solver's time (`solver_time`; 5 s under `infinite`), with the solver's
/// nodes. `None` when neither answers in time, and then the normal search's deadlines
/// start again from now (its soft one, and its hard one when the solver went past it),
/// and the root moves the solver found to let the position's value go are left out of
/// `root_moves` (unless none would remain).
///
/// A solve makes the rest of the game instant (the solver's table keeps what it learnt),
/// so under a clock the solver may spend a large share of it where it expects to finish.
/// Never more than a third of the clock, and the normal search after a failed solve at
/// most its own hard limit: a move never takes more than about half the clock.
pub fn exact_answer<G: Game>(
    play: ExactPlay<'_, G>,
    root: &G,
    root_moves: &mut MoveList<G::Move>,
    control: &Arc<SearchControl>,
    deadlines: &mut Option<Deadlines>,
) -> Option<(ExactChoice<G::Move>, u64)> {
    // Step 1. The book: a move that keeps the value, whose distance it does not know.
    if let Some((mv, value)) = root.book_move().filter(|(mv, _)| root_moves.contains(mv)) {
        let (score, distance_known) = match value {
            Outcome::Win => (win_bound(root), false),
            Outcome::Draw => (DRAW, true),
            Outcome::Loss => (-win_bound(root), false),
        };
        let choice = ExactChoice {
            mv,
            score,
            distance_known,
        };
        return Some((choice, 0));
    }

    // Step 2. The solver, until `stop` or half the hard deadline.
    let clock = play.clock;
    let solver = play.solver?;
    let until = match deadlines {
        Some(deadlines) => solver_time(deadlines.hard, clock, solver.expected_time(root)),
        None => INFINITE_EXACT_TIME,
    };
    let watched = Arc::clone(control);
    solver.set_interrupt(Some(Arc::new(move || {
        watched.is_stopped() || (!watched.is_pondering() && watched.clock_elapsed() >= until)
    })));
    solver.reset_nodes();
    let mut spoilers = Vec::new();
    let choice = best_exact_move_noting(solver, root, root_moves, &mut spoilers);
    solver.set_interrupt(None);
    let nodes = solver.nodes();

    // Step 3. No answer in time: the normal search's deadlines start from now (its hard
    // one only when the solver went past half of it).
    if choice.is_none() {
        if root_moves.iter().any(|mv| !spoilers.contains(mv)) {
            root_moves.retain(|mv| !spoilers.contains(mv));
        }
        let spent = control.clock_elapsed();
        if let Some(deadlines) = deadlines.as_mut() {
            if spent > deadlines.hard / 2 {
                deadlines.hard = spent + deadlines.hard / 2;
            }
            deadlines.soft = (spent + deadlines.soft).min(deadlines.hard);
        }
    }
    choice.map(|choice| (choice, nodes))
}

/// Share of the clock the solver may take at most.
const SOLVER_CLOCK_SHARE: u32 = 3;
/// The solver is given this many times the time it expects to need.
const SOLVER_MARGIN: u32 = 2;

/// How long the solver may take for a move whose hard limit is `hard`, with `clock` left,
/// when it expects to need `expected`: half the hard limit, or more where it expects to
/// finish within a third of the clock (twice what it expects, at most that third).
pub fn solver_time(
    hard: Duration,
    clock: Option<Duration>,
    expected: Option<Duration>,
) -> Duration {
    let base = hard / 2;
    match (clock, expected) {
        (Some(clock), Some(expected)) => {
            let cap = clock / SOLVER_CLOCK_SHARE;
            if expected * SOLVER_MARGIN <= cap {
                base.max(expected * SOLVER_MARGIN)
            } else {
                base
            }
        }
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_solver_spends_up_to_a_third_of_the_clock_where_it_expects_to_finish() {
        let ms = Duration::from_millis;
        // Nothing expected, or no clock: half the hard limit.
        assert_eq!(solver_time(ms(1000), Some(ms(5000)), None), ms(500));
        assert_eq!(solver_time(ms(1000), None, Some(ms(100))), ms(500));
        // Expected 0.6 s with 5 s left: twice that, more than half the hard limit.
        assert_eq!(
            solver_time(ms(1000), Some(ms(5000)), Some(ms(600))),
            ms(1200)
        );
        // Expected 0.9 s: 1.8 s would pass a third of the clock; the cheap try only.
        assert_eq!(
            solver_time(ms(1000), Some(ms(5000)), Some(ms(900))),
            ms(500)
        );
        // Expected fast: never less than half the hard limit.
        assert_eq!(solver_time(ms(1000), Some(ms(5000)), Some(ms(1))), ms(500));
        // Never more than a third of the clock.
        for expected in 0..3000 {
            let time = solver_time(ms(300), Some(ms(3000)), Some(ms(expected)));
            assert!(time <= ms(1000).max(ms(150)), "{expected} ms: {time:?}");
        }
    }
}
