//! When to stop deepening: a `go mate` found, an exact value reached, or the soft deadline
//! passed, scaled by how settled the best move looks (how often it changed, and the share
//! of the nodes spent below it).

use super::super::game::Game;
use super::super::limits::Limits;
use super::super::score::{is_mate, Score, MATE, MATE_BOUND};
use super::Searcher;

impl<G: Game> Searcher<G> {
    /// Whether the search should end after completing `depth` with `score`.
    pub(super) fn iteration_ends_search(
        &self,
        root: &G,
        limits: &Limits,
        depth: u32,
        scores: &[Score],
    ) -> bool {
        let score = scores[0];
        if let Some(mate) = limits.mate {
            if score >= MATE_BOUND && (MATE - score + 1) / 2 <= mate as Score {
                return true;
            }
        }
        if limits.infinite || self.links.control.is_pondering() {
            return false;
        }
        // A full-width search that reached every game end has the exact value; so has a
        // proven win or loss when nothing is pruned.
        let to_the_end = root.remaining_plies_bound().is_some_and(|r| depth >= r);
        if self.state.pruning.is_exact() && (to_the_end || scores.iter().all(|&s| is_mate(s))) {
            return true;
        }
        if let Some(deadlines) = self.state.deadlines {
            // The planned time, scaled by how settled the search looks; a soft deadline as
            // late as the hard one is exact (`go movetime`) and is not scaled.
            let best_share = self.best_move_node_share();
            let scale = self.state.progress.soft_scale(best_share);
            let soft = if deadlines.soft < deadlines.hard {
                deadlines.soft.mul_f64(scale).min(deadlines.hard)
            } else {
                deadlines.soft
            };
            if !self.links.control.is_pondering() && self.links.control.clock_elapsed() >= soft {
                return true;
            }
        }
        false
    }

    /// The share of this search's root nodes spent below the best move so far (`None`
    /// before any).
    fn best_move_node_share(&self) -> Option<f64> {
        let best = G::encode_move(*self.state.root_moves.first()?);
        let total: u64 = self.state.root_move_nodes.iter().map(|&(_, n)| n).sum();
        let on_best = self
            .state
            .root_move_nodes
            .iter()
            .find(|&&(code, _)| code == best)
            .map_or(0, |&(_, n)| n);
        (total > 0).then(|| on_best as f64 / total as f64)
    }

    /// Adds the nodes just spent below root move `mv` to its count.
    pub(super) fn count_root_nodes(&mut self, mv: G::Move, nodes: u64) {
        let code = G::encode_move(mv);
        let counts = &mut self.state.root_move_nodes;
        match counts.iter_mut().find(|(c, _)| *c == code) {
            Some((_, n)) => *n += nodes,
            None => {
                let _ = counts.try_push((code, nodes));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use super::super::SearchControl;
    use super::*;
    use crate::games::mnk::{Cell, Mnk, MnkVariant};
    use crate::search::game::Pruning;
    use crate::search::limits::Deadlines;
    use crate::search::tt::TranspositionTable;
    use crate::search::Rules;

    /// A searcher at tic-tac-toe's start, its game's pruning switched to `exact` or not.
    fn searcher(exact: bool) -> (Mnk, Searcher<Mnk>) {
        let root = Mnk::start(&MnkVariant::TICTACTOE);
        let mut searcher = Searcher::new(Arc::new(TranspositionTable::new(1)));
        searcher.state.pruning = Pruning {
            null_move: !exact,
            ..Pruning::default()
        };
        (root, searcher)
    }

    #[test]
    fn a_mate_within_the_go_mate_limit_ends_the_search() {
        let (root, searcher) = searcher(false);
        let limits = Limits {
            mate: Some(2),
            ..Limits::default()
        };
        assert!(searcher.iteration_ends_search(&root, &limits, 3, &[MATE - 3]));
        assert!(!searcher.iteration_ends_search(&root, &limits, 5, &[MATE - 5]));
        assert!(!searcher.iteration_ends_search(&root, &limits, 5, &[-MATE + 4]));
    }

    #[test]
    fn an_exact_search_ends_at_the_game_end_or_when_every_line_is_decided() {
        let (root, exact) = searcher(true);
        let limits = Limits::default();
        assert!(!exact.iteration_ends_search(&root, &limits, 8, &[0]));
        assert!(exact.iteration_ends_search(&root, &limits, 9, &[0]));
        assert!(exact.iteration_ends_search(&root, &limits, 4, &[MATE - 3, -MATE + 4]));
        assert!(!exact.iteration_ends_search(&root, &limits, 4, &[MATE - 3, 0]));
        // Pruning makes neither exact; `infinite` waits for `stop` whatever it finds.
        let (_, pruning) = searcher(false);
        assert!(!pruning.iteration_ends_search(&root, &limits, 9, &[0]));
        let infinite = Limits {
            infinite: true,
            ..Limits::default()
        };
        assert!(!exact.iteration_ends_search(&root, &infinite, 9, &[0]));
    }

    /// Deadlines `soft_ms` and `hard_ms` after the start.
    fn deadlines(soft_ms: u64, hard_ms: u64) -> Option<Deadlines> {
        Some(Deadlines {
            soft: Duration::from_millis(soft_ms),
            hard: Duration::from_millis(hard_ms),
        })
    }

    #[test]
    fn the_soft_deadline_ends_the_search_once_passed() {
        let (root, mut searcher) = searcher(false);
        let limits = Limits::default();
        let started = Instant::now() - Duration::from_millis(200);
        searcher.links.control = Arc::new(SearchControl::new(started, false));
        searcher.state.deadlines = deadlines(100_000, 200_000);
        assert!(!searcher.iteration_ends_search(&root, &limits, 5, &[0]));
        searcher.state.deadlines = deadlines(100, 200_000);
        assert!(searcher.iteration_ends_search(&root, &limits, 5, &[0]));
        // Pondering, the clock is the opponent's: no deadline yet.
        searcher.links.control = Arc::new(SearchControl::new(started, true));
        assert!(!searcher.iteration_ends_search(&root, &limits, 5, &[0]));
    }

    #[test]
    fn a_settled_search_stops_before_a_planned_deadline_but_not_before_a_movetime() {
        let (root, mut searcher) = searcher(false);
        let started = Instant::now() - Duration::from_millis(250);
        searcher.links.control = Arc::new(SearchControl::new(started, false));
        // Five iterations with the same best move, which took nearly all the nodes.
        for _ in 0..5 {
            searcher.state.progress.record(Some(4), 0);
        }
        searcher.state.root_moves.extend([Cell(4), Cell(0)]);
        searcher.count_root_nodes(Cell(4), 95);
        searcher.count_root_nodes(Cell(0), 5);
        assert!(searcher.state.progress.soft_scale(Some(0.95)) < 0.8);
        let ends = |searcher: &Searcher<Mnk>| {
            searcher.iteration_ends_search(&root, &Limits::default(), 5, &[0])
        };
        searcher.state.deadlines = deadlines(300, 10_000);
        assert!(ends(&searcher));
        searcher.state.deadlines = deadlines(300, 300);
        assert!(!ends(&searcher));
    }

    #[test]
    fn root_nodes_add_up_per_move_and_give_the_best_moves_share() {
        let (_, mut searcher) = searcher(false);
        assert_eq!(searcher.best_move_node_share(), None);
        searcher.state.root_moves.extend([Cell(4), Cell(0)]);
        assert_eq!(searcher.best_move_node_share(), None);
        searcher.count_root_nodes(Cell(4), 30);
        searcher.count_root_nodes(Cell(0), 20);
        searcher.count_root_nodes(Cell(4), 30);
        assert_eq!(searcher.state.root_move_nodes.len(), 2);
        assert_eq!(searcher.best_move_node_share(), Some(0.75));
        searcher.state.root_moves.swap(0, 1);
        assert_eq!(searcher.best_move_node_share(), Some(0.25));
    }
}
