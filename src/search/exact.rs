//! The hook for exact searches: what the `solve` tool drives to find a position's value.
//!
//! The engine's own searcher provides one for every game whose search is exact; a game may
//! bring a dedicated one (Connect Four does: `games::connect4::solver`).

use super::{Game, Score};

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

    /// Forgets everything learnt: the next search runs as if with a fresh table.
    fn forget(&mut self);

    /// Nodes searched since the last [`ExactSearch::reset_nodes`].
    fn nodes(&self) -> u64;

    /// Starts counting nodes from zero.
    fn reset_nodes(&mut self);
}
