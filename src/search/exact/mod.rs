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

use std::sync::Arc;
use std::time::Duration;

use super::score::is_mate;
use super::{Game, Score};

/// A question an exact search asks every few thousand nodes: `true` means give up now (the
/// search then returns `None`, as when its node budget runs out). The engine's `go` passes
/// one that watches the clock and the `stop` switch.
pub type Interrupt = Arc<dyn Fn() -> bool + Send + Sync>;

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

/// An exact search over positions of one game.
pub trait ExactSearch<G: Game>: Send {
    /// The exact value of `root` (a position whose game is not over) in the core's score
    /// scale, or `None` when more than `budget` nodes would be needed (counted since the
    /// last [`ExactSearch::reset_nodes`]). `weak`: only the sign has to be right (win,
    /// draw or loss). `report` receives the known lower and upper bounds as they narrow,
    /// and the nodes searched so far.
    fn value(
        &mut self,
        root: &G,
        weak: bool,
        budget: Option<u64>,
        report: &mut dyn FnMut(Score, Score, u64),
    ) -> Option<Score>;

    /// The values of several positions (the positions after each root move), in order, as
    /// by [`ExactSearch::value`]; `report` also names the position (its index). A search
    /// may spread them over threads; by default they are solved one after another.
    fn values(
        &mut self,
        positions: &[G],
        weak: bool,
        budget: Option<u64>,
        report: &mut dyn FnMut(usize, Score, Score, u64),
    ) -> Vec<Option<Score>> {
        one_by_one(self, positions, weak, budget, report)
    }

    /// Forgets everything learnt: the next search runs as if with a fresh table.
    fn forget(&mut self);

    /// From now on, gives up whenever `interrupt` says so (`None`: only at the budget). A
    /// search that cannot be interrupted ignores it (the default): give it a node budget.
    fn set_interrupt(&mut self, interrupt: Option<Interrupt>) {
        let _ = interrupt;
    }

    /// Nodes searched since the last [`ExactSearch::reset_nodes`].
    fn nodes(&self) -> u64;

    /// How long finding the value of `root` and a move that keeps it should take, by the
    /// nodes such a search needs and the speed this search has shown; `None` when it
    /// cannot tell (the default). The clock of `go` spends more where this is short.
    fn expected_time(&self, root: &G) -> Option<Duration> {
        let _ = root;
        None
    }

    /// Starts counting nodes from zero.
    fn reset_nodes(&mut self);
}

/// [`ExactSearch::values`] one position after another.
pub fn one_by_one<G: Game, S: ExactSearch<G> + ?Sized>(
    search: &mut S,
    positions: &[G],
    weak: bool,
    budget: Option<u64>,
    report: &mut dyn FnMut(usize, Score, Score, u64),
) -> Vec<Option<Score>> {
    (0..positions.len())
        .map(|index| {
            let mut report = |lower, upper, nodes| report(index, lower, upper, nodes);
            search.value(&positions[index], weak, budget, &mut report)
        })
        .collect()
}
