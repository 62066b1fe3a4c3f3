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
            // The planned time, scaled by how settled the search looks.
            let best_share = self.best_move_node_share();
            let scale = self.state.progress.soft_scale(best_share);
            let soft = deadlines.soft.mul_f64(scale).min(deadlines.hard);
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
