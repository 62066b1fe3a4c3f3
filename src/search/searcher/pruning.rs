//! The pruning a node decides on its own: reverse futility and null move pruning of the
//! whole node, static exchange pruning of one move, and the late move reduction of one
//! move. (Futility, late move and history pruning of quiet moves are in `moves`.)

use super::super::game::Game;
use super::super::reductions::ReductionContext;
use super::super::score::{is_mate, Score, MATE_BOUND};
use super::{Node, NodeKind, Searcher, StaticEval};

/// What a move is to late move reductions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum MoveKind {
    /// Neither noisy nor hinted as forcing.
    Quiet,
    /// Hinted as forcing ([`QUIET_HINT_LIMIT`](crate::search::game::QUIET_HINT_LIMIT) and
    /// up) but not noisy.
    Forcing,
    /// Noisy (captures, promotions...): never reduced.
    Noisy,
}

impl MoveKind {
    /// The kind of a move the game calls `quiet` (not noisy, hinted below the limit) or
    /// `noisy`; neither is a forcing move.
    pub(super) fn of(quiet: bool, noisy: bool) -> MoveKind {
        match (quiet, noisy) {
            (true, _) => MoveKind::Quiet,
            (false, false) => MoveKind::Forcing,
            (false, true) => MoveKind::Noisy,
        }
    }
}

impl<G: Game> Searcher<G> {
    /// Step 7 of [`Searcher::negamax`]: the (refined) static evaluation, when it is so far
    /// above beta that no quiet line is likely to bring the score back below it.
    pub(super) fn reverse_futility(&self, node: &Node, static_eval: StaticEval) -> Option<Score> {
        let eval = static_eval.refined?;
        let params = *self.params();
        let margin =
            params.reverse_futility_margin * (node.depth - Score::from(static_eval.improving));
        let prunes = self.state.pruning.reverse_futility
            && !node.pv_node()
            && node.excluded.is_none()
            && node.ply > 0
            && node.depth <= params.reverse_futility_depth
            && node.beta.abs() < MATE_BOUND
            && eval - margin >= node.beta;
        prunes.then_some(eval)
    }

    /// Step 8 of [`Searcher::negamax`]: passes the move, where the game allows it, and
    /// searches the rest reduced with a null window at beta. `Some(Some(score))`: the
    /// position is good enough to cut; `Some(None)`: search it; `None`: aborted.
    pub(super) fn null_move(
        &mut self,
        game: &mut G,
        node: &Node,
        static_eval: Option<Score>,
    ) -> Option<Option<Score>> {
        let beta = node.beta;
        let Some(eval) = static_eval else {
            return Some(None);
        };
        let tries = self.state.pruning.null_move
            && !node.pv_node()
            && node.ply > 0
            && node.ply >= self.state.null_move_min_ply
            && node.excluded.is_none()
            && node.depth >= 3
            && game.null_move_allowed()
            && beta.abs() < MATE_BOUND
            && eval >= beta;
        if !tries {
            return Some(None);
        }
        let params = *self.params();
        let reduction = params.null_move_base
            + node.depth / params.null_move_depth_divisor
            + ((eval - beta) / params.null_move_eval_divisor).min(params.null_move_eval_plies);
        let reduced = node.depth - 1 - reduction;
        self.continuations[node.ply] = None;
        game.make_null();
        let result = self.negamax(
            game,
            reduced,
            node.ply + 1,
            -beta,
            -beta + 1,
            node.kind.first_child(),
        );
        game.unmake_null();
        let score = -result?;
        if score < beta {
            return Some(None);
        }
        let score = if is_mate(score) { beta } else { score };
        if node.depth < params.null_move_verification_depth || self.state.null_move_min_ply > 0 {
            return Some(Some(score));
        }
        // Deep: verify with a reduced search in which this side may not pass for a while.
        self.state.null_move_min_ply = node.ply + (3 * reduced.max(0) / 4) as usize;
        let verified = self.negamax(game, reduced, node.ply, beta - 1, beta, NodeKind::Cut);
        self.state.null_move_min_ply = 0;
        Some((verified? >= beta).then_some(score))
    }

    /// Static exchange pruning in [`Searcher::search_moves`]: whether `mv` (not yet made)
    /// loses so much material near the horizon that it is not worth searching. Never the
    /// first move of a node, and never at the root.
    pub(super) fn loses_exchange(
        &self,
        game: &G,
        node: &Node,
        mv: G::Move,
        quiet: bool,
        noisy: bool,
    ) -> bool {
        let params = *self.params();
        if !self.state.pruning.exchange_pruning
            || node.ply == 0
            || node.depth > params.exchange_pruning_depth
            || !(quiet || noisy)
        {
            return false;
        }
        let threshold = if quiet {
            -params.exchange_quiet_margin * node.depth
        } else {
            -params.exchange_noisy_margin * node.depth * node.depth
        };
        !game.exchange_at_least(mv, threshold)
    }

    /// The late move reduction of a move just made at `node` (0: searched at full depth):
    /// only for quiet moves (and forcing ones where the game says so) after the first
    /// (after the second on the principal variation), outside check, from depth 3; see
    /// [`LateMoveReductions::plies`](crate::search::reductions::LateMoveReductions::plies).
    pub(super) fn reduction(
        &self,
        game: &G,
        node: &Node,
        move_number: usize,
        kind: MoveKind,
        history: i32,
        static_eval: StaticEval,
    ) -> i32 {
        let first_reduced = if node.pv_node() { 3 } else { 2 };
        let reducible = match kind {
            MoveKind::Quiet => true,
            MoveKind::Forcing => self.state.pruning.reduce_forcing,
            MoveKind::Noisy => false,
        };
        let reduces = self.state.pruning.late_move_reductions
            && self.settings.features.alpha_beta
            && self.settings.features.pvs
            && reducible
            && !node.in_check
            && node.depth >= 3
            && move_number >= first_reduced;
        if !reduces {
            return 0;
        }
        let context = ReductionContext {
            pv_node: node.pv_node(),
            cut_node: node.kind == NodeKind::Cut,
            improving: static_eval.improving,
            gives_check: game.in_check(),
            history,
        };
        self.reductions.plies(node.depth, move_number, context)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::NodeKind;
    use super::*;
    use crate::games::ataxx::{Ataxx, AtaxxVariant};
    use crate::search::tt::TranspositionTable;
    use crate::search::{Pruning, Rules, SearchHooks};

    #[test]
    fn forcing_moves_are_reduced_only_where_the_game_says_so() {
        let mut searcher: Searcher<Ataxx> = Searcher::new(Arc::new(TranspositionTable::new(1)));
        let game = Ataxx::start(&AtaxxVariant::default());
        let node = Node {
            depth: 12,
            ply: 3,
            alpha: -100,
            beta: -99,
            kind: NodeKind::Cut,
            in_check: false,
            excluded: None,
        };
        let eval = StaticEval {
            raw: Some(0),
            corrected: Some(0),
            refined: Some(0),
            improving: false,
        };
        let reduction = |s: &Searcher<Ataxx>, kind| s.reduction(&game, &node, 20, kind, 0, eval);
        searcher.state.pruning = game.pruning();
        assert!(searcher.state.pruning.reduce_forcing);
        let quiet = reduction(&searcher, MoveKind::Quiet);
        assert!(quiet > 0);
        assert_eq!(reduction(&searcher, MoveKind::Forcing), quiet);
        assert_eq!(reduction(&searcher, MoveKind::Noisy), 0);
        searcher.state.pruning = Pruning {
            reduce_forcing: false,
            ..game.pruning()
        };
        assert_eq!(reduction(&searcher, MoveKind::Forcing), 0);
        assert_eq!(reduction(&searcher, MoveKind::Quiet), quiet);
    }
}
