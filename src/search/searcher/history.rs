//! What the search learns as it goes: the principal variation, where a node sits for the
//! ordering tables, killers, counter moves and histories from beta cut-offs, and the
//! correction of the static evaluation.

use super::super::game::Game;
use super::super::ordering::{history_bonus, NodeContext};
use super::super::score::{Score, MATE_BOUND, MAX_PLY};
use super::{Node, Searcher, StaticEval};

impl<G: Game> Searcher<G> {
    pub(super) fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        for &m in tail[0].iter().take(MAX_PLY - 1) {
            line.push(m);
        }
    }

    /// Where the node at `ply` sits for the ordering tables: its ply and the continuation
    /// indices of the two moves before it.
    pub(super) fn context(&self, ply: usize) -> NodeContext {
        let back = |plies: usize| {
            ply.checked_sub(plies)
                .and_then(|before| self.continuations[before])
        };
        NodeContext {
            ply,
            previous: [back(1), back(2)],
        }
    }

    /// Learns from a beta cut-off by `mv` at `node`: a quiet move becomes a killer and the
    /// counter move of the previous move, and gains butterfly and continuation history
    /// that the quiet moves tried before it lose; a noisy move gains capture history. The
    /// noisy moves tried before it lose capture history either way.
    pub(super) fn reward_cutoff(
        &mut self,
        game: &G,
        node: &Node,
        mv: G::Move,
        quiet: bool,
        quiets_tried: &[G::Move],
        noisy_tried: &[G::Move],
    ) {
        let bonus = history_bonus(node.depth);
        let context = self.context(node.ply);
        let tables = &mut self.tables;
        if quiet {
            tables.add_killer(node.ply, mv);
            tables.set_counter(context.previous[0], mv);
            tables.update_history(game.history_index(mv), bonus);
            tables.update_continuation(&context, game.continuation_index(mv), bonus);
            for &other in quiets_tried {
                tables.update_history(game.history_index(other), -bonus);
                tables.update_continuation(&context, game.continuation_index(other), -bonus);
            }
        } else if game.is_noisy(mv) {
            tables.update_capture(game.capture_history_index(mv), bonus);
        }
        for &other in noisy_tried {
            tables.update_capture(game.capture_history_index(other), -bonus);
        }
    }

    /// Step 12 of [`Searcher::negamax`]: moves the correction history of the position's
    /// class towards the search's score, where the score says more than the static
    /// evaluation (not after a noisy best move, nor when its bound points the same way as
    /// the evaluation).
    pub(super) fn correct_evaluation(
        &mut self,
        game: &G,
        node: &Node,
        best_score: Score,
        best_move: Option<G::Move>,
        eval: StaticEval,
    ) {
        let (Some(raw), Some(corrected)) = (eval.raw, eval.corrected) else {
            return;
        };
        let informative = self.state.pruning.eval_correction
            && !node.in_check
            && best_score.abs() < MATE_BOUND
            && !best_move.is_some_and(|mv| game.is_noisy(mv))
            && !(best_score >= node.beta && best_score <= corrected)
            && !(best_score <= node.alpha && best_score >= corrected);
        if informative {
            self.correction.update(game, node.depth, best_score, raw);
        }
    }
}
