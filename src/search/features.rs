//! Switches for the parts of the search that change how much of the tree is visited, and
//! the counters that show what each part saves.
//!
//! Play uses every feature. Tree statistics switch them off one at a time: with all of them
//! off the same core is plain minimax and visits the whole game tree.

use super::{Game, Pruning};

/// Which tree-shrinking parts of the search are switched on. None of them changes the
/// value of a search that the game's [`Pruning`] leaves exact.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SearchFeatures {
    /// Alpha-beta windows and cut-offs; off means every child is searched with the full
    /// window and no move is skipped (plain minimax).
    pub alpha_beta: bool,
    /// Move ordering (hash move, the game's hints, killers, history); off means generation
    /// order.
    pub ordering: bool,
    /// Killer moves and the history table in the ordering (when `ordering` is on); off
    /// orders by the hash move and the game's hints alone.
    pub learnt_ordering: bool,
    /// Probing and storing the transposition table.
    pub transposition: bool,
    /// Principal variation search: null windows after the first move, re-searched when they
    /// fail high. Off means every move gets the node's full window.
    pub pvs: bool,
    /// The game's value-changing pruning and reductions
    /// ([`SearchHooks::pruning`](super::SearchHooks::pruning));
    /// off means none of them, so the search returns exact minimax values at every depth
    /// (what `solve` and the equivalence tests need in a game that prunes, such as Ataxx).
    pub game_pruning: bool,
}

impl SearchFeatures {
    /// Everything on: the engine's normal search.
    pub const ALL: SearchFeatures = SearchFeatures {
        alpha_beta: true,
        ordering: true,
        learnt_ordering: true,
        transposition: true,
        pvs: true,
        game_pruning: true,
    };
    /// Everything off: plain minimax over the whole tree.
    pub const MINIMAX: SearchFeatures = SearchFeatures {
        alpha_beta: false,
        ordering: false,
        learnt_ordering: false,
        transposition: false,
        pvs: false,
        game_pruning: false,
    };
}

impl SearchFeatures {
    /// The pruning a search of `root` uses: the game's, or none when
    /// [`SearchFeatures::game_pruning`] is off.
    pub fn pruning_of<G: Game>(&self, root: &G) -> Pruning {
        if self.game_pruning {
            root.pruning()
        } else {
            Pruning::default()
        }
    }
}

impl Default for SearchFeatures {
    fn default() -> Self {
        SearchFeatures::ALL
    }
}

/// What one search did, counted by the searcher and formatted by the tools.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Nodes visited (every call of the search, the root included).
    pub nodes: u64,
    /// Nodes answered without looking at children: finished games and static evaluations
    /// at the horizon.
    pub leaves: u64,
    /// Beta cut-offs: nodes whose remaining moves were skipped.
    pub cutoffs: u64,
    /// Beta cut-offs caused by the first move searched.
    pub first_move_cutoffs: u64,
    /// Nodes answered by a transposition table entry.
    pub tt_cutoffs: u64,
}

impl SearchStats {
    /// The share of cut-offs that came from the first move (1.0 is perfect ordering), or
    /// `None` when there were no cut-offs.
    pub fn first_move_rate(&self) -> Option<f64> {
        (self.cutoffs > 0).then(|| self.first_move_cutoffs as f64 / self.cutoffs as f64)
    }

    /// Adds another search's counts.
    pub fn add(&mut self, other: &SearchStats) {
        self.nodes += other.nodes;
        self.leaves += other.leaves;
        self.cutoffs += other.cutoffs;
        self.first_move_cutoffs += other.first_move_cutoffs;
        self.tt_cutoffs += other.tt_cutoffs;
    }
}
