//! Exact play, in one place: everything the search layer does with exact values.
//!
//! - [`ExactSearch`], the hook an exact search implements: the engine's own, [`CoreSearch`]
//!   (every game whose search is exact), or a game's dedicated one (Connect Four's,
//!   `games::connect4::solver`, brought by
//!   [`ExactHooks::dedicated_solver`](crate::search::ExactHooks::dedicated_solver));
//! - the decision "this search plays exactly" ([`ExactPlay::decide`], `play`), made once per
//!   search by the thread pool and passed to the main searcher;
//! - the choice of a root move by exact values ([`best_exact_move`], `choice`);
//! - the exact answer of a search that plays exactly: the book or the solver
//!   ([`exact_answer`], `answer`), Step 2b of the root driver.
//!
//! The `solve` tool only calls these.

mod answer;
mod choice;
mod core_search;
mod play;

pub use answer::exact_answer;
pub use choice::{best_exact_move, best_exact_move_noting, win_bound, ExactChoice};
pub use core_search::CoreSearch;
pub use play::{plays_exactly, ExactPlay};
// The trait a solver implements is a game hook's: it lives with the game traits.
pub use super::game::{one_by_one, ExactSearch, Interrupt};

use super::score::is_mate;
use super::{Game, Score};

/// A child position's value in its parent's view: negated, and a win or loss one ply
/// further from the parent.
pub fn from_child(value: Score) -> Score {
    if is_mate(value) {
        -value - (-value).signum()
    } else {
        -value
    }
}

/// The positions after each of `moves` (legal in `root`), in order.
pub fn children<G: Game>(root: &G, moves: &[G::Move]) -> Vec<G> {
    moves
        .iter()
        .map(|&mv| {
            let mut child = root.clone();
            child.make_move(mv);
            child
        })
        .collect()
}
