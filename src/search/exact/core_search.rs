//! The engine's own searcher as an exact search ([`CoreSearch`]), for every game whose
//! search is exact (no pruning that changes values): what `solve` uses for a game without
//! a solver of its own.
//!
//! A position whose game must end within the search's reach (Connect Four, tic-tac-toe,
//! 4x4) is searched to the end of the game with null windows only, by a binary search over
//! the few values a finished game can have (a loss or a win at each ply, or a draw), as
//! dedicated Connect Four solvers do: each probe asks "is the value at least v?", mate
//! distance pruning cuts every line longer than v allows, and the transposition table
//! carries the bounds of one probe into the next. Positions of bigger games (gomoku) are
//! deepened one ply at a time under a node budget until a win or a loss is proven.
//!
//! The searches run on the engine's one core ([`Searcher::search_root`]), driven on the
//! caller's thread rather than through the [`ThreadPool`](crate::search::ThreadPool): they
//! are single exact searches of the root at a chosen depth and window, with node counts and
//! a budget that add up across them; the pool's iterative deepening, aspiration windows and
//! Lazy SMP threads would only hide those behind results they do not want.

use std::sync::Arc;

use super::ExactSearch;
use crate::search::score::{is_mate, MATE, MAX_PLY};
use crate::search::{Game, Score, SearchFeatures, SearchSettings, Searcher, TranspositionTable};

/// The engine's own searcher as an exact search (every game whose search is exact).
///
/// A position whose game must end within the search's reach is searched to the end with
/// null windows only, by a binary search over the few values a finished game can have;
/// otherwise the search deepens one ply at a time until a win or a loss is proven.
pub struct CoreSearch<G: Game> {
    searcher: Searcher<G>,
    hash_mb: usize,
}

impl<G: Game> CoreSearch<G> {
    /// A search with a transposition table of `hash_mb` MiB.
    pub fn new(hash_mb: usize) -> CoreSearch<G> {
        let mut searcher = Searcher::new(Arc::new(TranspositionTable::new(hash_mb)));
        // Null-window probes to the end: the games' hints order better than killers and
        // history learnt from probes with other windows (half the nodes in Connect Four).
        searcher.configure(SearchSettings {
            // Exact values: none of the game's value-changing pruning (Ataxx has some).
            features: SearchFeatures {
                learnt_ordering: false,
                game_pruning: false,
                ..SearchFeatures::ALL
            },
            ..SearchSettings::default()
        });
        CoreSearch { searcher, hash_mb }
    }

    /// Binary search on the value with null-window searches to the end of the game.
    fn null_window_value(
        &mut self,
        root: &G,
        remaining: u32,
        budget: Option<u64>,
        report: &mut dyn FnMut(Score, Score, u64),
    ) -> Option<Score> {
        // Every value a search to the end can return, ascending: a loss at ply 0..=R+1,
        // a draw, a win at ply R+1..=0 (ply 0: the root is over; one spare ply for bounds).
        let r = remaining as Score + 1;
        let values: Vec<Score> = (0..=r)
            .map(|p| -MATE + p)
            .chain(std::iter::once(0))
            .chain((0..=r).rev().map(|p| MATE - p))
            .collect();
        let zero = r as usize + 1;
        let (mut lo, mut hi) = (0, values.len() - 1);
        while lo < hi {
            // Ask first "win?", then "not a loss?", like Pons' solver; then bisect.
            let mid = if lo <= zero && zero < hi {
                zero + 1
            } else if lo < zero && zero <= hi {
                zero
            } else {
                (lo + hi).div_ceil(2)
            };
            let v = values[mid];
            let score = self
                .searcher
                .search_root(root, remaining, v - 1, v, budget)?;
            if score >= v {
                lo = values.partition_point(|&x| x < score).min(hi);
            } else {
                hi = values
                    .partition_point(|&x| x <= score)
                    .saturating_sub(1)
                    .max(lo);
            }
            report(values[lo], values[hi], self.searcher.stats().nodes);
        }
        Some(values[lo])
    }

    /// Iterative deepening with full windows until a win or loss is proven (or the game's
    /// end is reached); the budget decides when to give up.
    fn deepening_value(
        &mut self,
        root: &G,
        budget: Option<u64>,
        report: &mut dyn FnMut(Score, Score, u64),
    ) -> Option<Score> {
        let to_end = root.remaining_plies_bound();
        for depth in 1..MAX_PLY as u32 - 1 {
            let score = self
                .searcher
                .search_root(root, depth, -MATE, MATE, budget)?;
            let exact = is_mate(score) || to_end.is_some_and(|r| depth >= r);
            if exact {
                report(score, score, self.searcher.stats().nodes);
                return Some(score);
            }
            report(-MATE, MATE, self.searcher.stats().nodes);
        }
        None
    }
}

impl<G: Game> ExactSearch<G> for CoreSearch<G> {
    /// Exact values only (`weak` changes nothing).
    fn value(
        &mut self,
        root: &G,
        _weak: bool,
        budget: Option<u64>,
        report: &mut dyn FnMut(Score, Score, u64),
    ) -> Option<Score> {
        match root.remaining_plies_bound() {
            Some(remaining) if remaining < MAX_PLY as u32 - 1 => {
                self.null_window_value(root, remaining, budget, report)
            }
            _ => self.deepening_value(root, budget, report),
        }
    }

    /// A fresh (lazily zeroed) table and empty ordering tables.
    fn forget(&mut self) {
        self.searcher
            .set_table(Arc::new(TranspositionTable::new(self.hash_mb)));
        self.searcher.clear();
    }

    fn nodes(&self) -> u64 {
        self.searcher.stats().nodes
    }

    fn reset_nodes(&mut self) {
        self.searcher.reset_stats();
    }
}
