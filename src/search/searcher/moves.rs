//! The moves of a node: handed out best first, each searched with PVS (a null window after
//! the first, reduced for late quiet moves, re-searched when it beats alpha); futility,
//! late move and history pruning skip quiet moves.

use arrayvec::ArrayVec;

use super::super::game::{Game, MoveList, QUIET_HINT_LIMIT};
use super::super::ordering::MovePicker;
use super::super::params::{
    FUTILITY_BASE, FUTILITY_DEPTH, FUTILITY_MARGIN, HISTORY_PRUNING_DEPTH, HISTORY_PRUNING_MARGIN,
    LATE_MOVE_PRUNING_DEPTH,
};
use super::super::score::{Score, INFINITY, MATE_BOUND};
use super::{Node, NodeKind, Searcher, StaticEval};

impl<G: Game> Searcher<G> {
    /// Step 9 of [`Searcher::negamax`]: the moves (at the root, those not yet taken by a
    /// better MultiPV line), handed out best first as far as ordering is on; `None` when
    /// there is none.
    pub(super) fn move_picker(
        &self,
        game: &G,
        ply: usize,
        tt_move: Option<u16>,
    ) -> Option<MovePicker<G::Move>> {
        let mut moves = MoveList::new();
        if ply == 0 {
            moves.extend(
                self.state.root_moves[self.state.root_from..]
                    .iter()
                    .copied(),
            );
        } else {
            game.generate_moves(&mut moves);
        }
        if moves.is_empty() {
            return None;
        }
        let features = self.settings.features;
        Some(if features.ordering && features.learnt_ordering {
            MovePicker::new(moves, tt_move, self.context(ply))
        } else if features.ordering {
            MovePicker::with_hints(game, moves, tt_move)
        } else {
            MovePicker::in_order(moves)
        })
    }

    /// Step 10 of [`Searcher::negamax`]: searches the moves of `picker`, the first with the
    /// full window, the rest with a null window (reduced late quiet moves where allowed),
    /// re-searched when they beat alpha; futility and late move pruning skip quiet moves.
    /// Returns the best score and the last move that raised alpha; `None` when aborted.
    pub(super) fn search_moves(
        &mut self,
        game: &mut G,
        node: &Node,
        picker: &mut MovePicker<G::Move>,
        static_eval: StaticEval,
        tt_move_extension: i32,
    ) -> Option<(Score, Option<G::Move>)> {
        let (depth, ply, beta) = (node.depth, node.ply, node.beta);
        let mut alpha = node.alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        let mut quiets_tried: ArrayVec<G::Move, 64> = ArrayVec::new();
        let mut noisy_tried: ArrayVec<G::Move, 32> = ArrayVec::new();
        let mut quiets_seen = 0;
        // Futility, late move and history pruning skip quiet moves that do not give check,
        // once a move has kept us from being mated.
        let prune_quiets =
            self.state.pruning.futility && !node.pv_node() && ply > 0 && !node.in_check;
        let late_move_limit = (3 + depth * depth) / (2 - i32::from(static_eval.improving));
        let futile = static_eval.corrected.is_some_and(|eval| {
            depth <= FUTILITY_DEPTH && eval + FUTILITY_BASE + FUTILITY_MARGIN * depth <= alpha
        });
        let context = self.context(ply);
        let uses_history = self.state.pruning.late_move_reductions || prune_quiets;
        while let Some(mv) = picker.next_move(&*game, &self.tables) {
            if node.excluded == Some(G::encode_move(mv)) {
                continue;
            }
            let move_number = picker.handed_out();
            let noisy = game.is_noisy(mv);
            let extension = if picker.last_is_tt_move() {
                tt_move_extension
            } else {
                0
            };
            // The hash move is scored above everything: ask the game what it is.
            let hint = if picker.last_is_tt_move() && !noisy {
                game.move_hint(mv)
            } else {
                picker.last_score()
            };
            let quiet = hint < QUIET_HINT_LIMIT && !noisy;
            // Only reductions and history pruning read a quiet move's history.
            let history = if quiet {
                quiets_seen += 1;
                if uses_history {
                    self.tables.quiet_history(&*game, mv, &context)
                } else {
                    0
                }
            } else {
                0
            };
            if best_score > -MATE_BOUND && self.loses_exchange(game, node, mv, quiet, noisy) {
                continue;
            }
            let prune = prune_quiets
                && quiet
                && best_score > -MATE_BOUND
                && (futile
                    || (depth <= LATE_MOVE_PRUNING_DEPTH && quiets_seen > late_move_limit)
                    || (depth <= HISTORY_PRUNING_DEPTH
                        && history < -HISTORY_PRUNING_MARGIN * depth));
            self.continuations[ply] = game.continuation_index(mv);
            game.make_move(mv);
            if prune && !game.in_check() {
                game.unmake_move(mv);
                continue;
            }
            let reduction = self.reduction(game, node, move_number, quiet, history, static_eval);
            let plies = (extension, reduction);
            let nodes_before = self.state.nodes;
            let score = self.search_move(game, node, alpha, move_number, plies);
            game.unmake_move(mv);
            if ply == 0 {
                self.count_root_nodes(mv, self.state.nodes - nodes_before);
            }
            let score = score?;

            if score > best_score {
                best_score = score;
            }
            if score > alpha {
                best_move = Some(mv);
                alpha = score;
                if node.pv_node() {
                    self.update_pv(ply, mv);
                }
                if alpha >= beta && self.settings.features.alpha_beta {
                    self.state.stats.cutoffs += 1;
                    if move_number == 1 {
                        self.state.stats.first_move_cutoffs += 1;
                    }
                    self.reward_cutoff(game, node, mv, quiet, &quiets_tried, &noisy_tried);
                    break;
                }
            }
            if quiet {
                let _ = quiets_tried.try_push(mv);
            } else if noisy {
                let _ = noisy_tried.try_push(mv);
            }
        }
        Some((best_score, best_move))
    }

    /// Searches one child of `node` (the move is already made, `move_number` of the node's
    /// moves) with PVS, `alpha` being the node's alpha so far. `(extension, reduction)`:
    /// the move's full depth is the node's plus `extension` (which may be negative), and a
    /// late move is first searched `reduction` plies shallower than that.
    fn search_move(
        &mut self,
        game: &mut G,
        node: &Node,
        alpha: Score,
        move_number: usize,
        (extension, reduction): (i32, i32),
    ) -> Option<Score> {
        let (depth, beta) = (node.depth + extension, node.beta);
        let child = node.ply + 1;
        let features = self.settings.features;
        let first_kind = node.kind.first_child();
        if !features.alpha_beta {
            return Some(-self.negamax(game, depth - 1, child, -INFINITY, INFINITY, first_kind)?);
        }
        if move_number == 1 || !features.pvs {
            return Some(-self.negamax(game, depth - 1, child, -beta, -alpha, first_kind)?);
        }
        let later_kind = node.kind.later_child();
        let kind = if reduction > 0 {
            NodeKind::Cut
        } else {
            later_kind
        };
        let reduced = depth - 1 - reduction;
        let mut score = -self.negamax(game, reduced, child, -alpha - 1, -alpha, kind)?;
        if score > alpha && reduction > 0 {
            score = -self.negamax(game, depth - 1, child, -alpha - 1, -alpha, later_kind)?;
        }
        if score > alpha && score < beta && node.pv_node() {
            score = -self.negamax(game, depth - 1, child, -beta, -alpha, NodeKind::Pv)?;
        }
        Some(score)
    }
}
