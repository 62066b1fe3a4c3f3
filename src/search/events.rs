//! What a search tells the outside world. The search never prints: it hands these plain
//! values to a callback, and the protocol layer formats them.

use std::time::Duration;

use super::score::Score;

/// The result of one completed iteration (or of a game already over at the root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo<M> {
    /// Nominal depth of the iteration (0 when the game is over at the root).
    pub depth: u32,
    /// Deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// Rank of this line among the MultiPV lines (1 = best).
    pub multipv: u32,
    /// Score from the side to move's view.
    pub score: Score,
    /// Nodes searched so far by all threads.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Permille of the transposition table filled during this search.
    pub hashfull: u32,
    /// Endgame table probes that answered so far, by all threads (0 without tables).
    pub tbhits: u64,
    /// Principal variation, starting with the best move.
    pub pv: Vec<M>,
}

impl<M> SearchInfo<M> {
    /// Nodes per second, 0 before any time has passed.
    pub fn nps(&self) -> u64 {
        let micros = self.elapsed.as_micros().max(1);
        (u128::from(self.nodes) * 1_000_000 / micros) as u64
    }
}

/// The final answer of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult<M> {
    /// Best move, `None` when the game is over at the root.
    pub best: Option<M>,
    /// Expected reply (second PV move), if any.
    pub ponder: Option<M>,
    /// Score of the last completed iteration.
    pub score: Score,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Nodes searched in total.
    pub nodes: u64,
    /// Time the search took.
    pub elapsed: Duration,
}

/// An event streamed from a running search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchEvent<M> {
    /// An iteration finished.
    Iteration(SearchInfo<M>),
    /// The search ended; exactly one per search, always last.
    Finished(SearchResult<M>),
}
