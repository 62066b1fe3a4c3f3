//! The moves of a node: handed out best first, each searched with PVS (a null window after
//! the first, reduced for late quiet moves, re-searched when it beats alpha); futility,
//! late move and history pruning skip quiet moves.

use arrayvec::ArrayVec;

use super::super::game::{Game, QUIET_HINT_LIMIT};
use super::super::ordering::{MovePicker, NodeContext};
use super::super::params::SearchParams;
use super::super::score::{Score, INFINITY, MATE_BOUND};
use super::history::shares_history;
use super::pruning::MoveKind;
use super::{Node, NodeKind, Searcher, StaticEval};

/// What [`Searcher::search_moves`] knows of a move before making it.
#[derive(Copy, Clone, Debug)]
struct MoveFacts {
    /// Its number among the node's moves handed out (1: the first).
    number: usize,
    /// Whether the game calls it noisy (captures, promotions...).
    noisy: bool,
    /// Not noisy, and not hinted as a forcing move (a win, a block...).
    quiet: bool,
    /// Quiet, or forcing where the game shares the history
    /// (`SearchRefinements::FORCING_HISTORY`): read, rewarded and punished in the butterfly
    /// and continuation histories.
    shares_history: bool,
    /// Plies added to (or, negative, taken from) its depth: the hash move's singular
    /// extension.
    extension: i32,
    /// Its butterfly and continuation history (0 unless it shares them, or when nothing
    /// reads it).
    history: i32,
}

/// Step 11a of [`Searcher::negamax`]: what futility, late move and history pruning may
/// skip at a node, decided once per node; each skips quiet moves only.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct QuietPruning {
    /// Whether they apply at all (the game allows them; not on the PV, at the root or in
    /// check).
    on: bool,
    /// Futility: the static evaluation plus a margin cannot reach alpha.
    futile: bool,
    /// Late move pruning: quiet moves after this many are skipped (`None`: too far from
    /// the horizon).
    late_move_limit: Option<i32>,
    /// History pruning: quiet moves whose history is below this are skipped (`None`: too
    /// far from the horizon).
    history_floor: Option<i32>,
}

impl QuietPruning {
    /// The pruning of a node `depth` plies from the horizon with the window's lower edge
    /// `alpha`, whose static evaluation is `static_eval`, under the game's `params`; `on`:
    /// whether it applies.
    fn new(
        on: bool,
        depth: i32,
        alpha: Score,
        static_eval: StaticEval,
        params: &SearchParams,
    ) -> QuietPruning {
        let late_move_limit = (depth <= params.late_move_pruning_depth)
            .then(|| (3 + depth * depth) / (2 - i32::from(static_eval.improving)));
        let history_floor =
            (depth <= params.history_pruning_depth).then(|| -params.history_pruning_margin * depth);
        let margin = params.futility_base + params.futility_margin * depth;
        let futile = static_eval
            .corrected
            .is_some_and(|eval| depth <= params.futility_depth && eval + margin <= alpha);
        QuietPruning {
            on,
            futile,
            late_move_limit,
            history_floor,
        }
    }

    /// Whether a quiet move, the `quiets_seen`-th of the node, with quiet history
    /// `history`, is skipped (unless it gives check).
    fn prunes(&self, quiets_seen: i32, history: i32) -> bool {
        self.prunes_every_later(quiets_seen - 1)
            || (self.on && self.history_floor.is_some_and(|floor| history < floor))
    }

    /// Whether every quiet move after the `quiets_seen`-th is skipped whatever its history
    /// (the node is futile, or late move pruning's count is reached).
    fn prunes_every_later(&self, quiets_seen: i32) -> bool {
        self.on
            && (self.futile
                || self
                    .late_move_limit
                    .is_some_and(|limit| quiets_seen >= limit))
    }
}

impl<G: Game> Searcher<G> {
    /// Step 10 of [`Searcher::negamax`]: fills `picker` with the moves (at the root, those
    /// not yet taken by a better MultiPV line), handed out best first as far as ordering is
    /// on; `false` when there is none. The moves are generated in place: a node's list is
    /// never copied (gomoku's lists hold up to 484 moves).
    pub(super) fn fill_move_picker(
        &self,
        game: &G,
        ply: usize,
        tt_move: Option<u16>,
        picker: &mut MovePicker<G::Move>,
    ) -> bool {
        let moves = picker.moves_mut();
        if ply == 0 {
            moves.extend(
                self.state.root_moves[self.state.root_from..]
                    .iter()
                    .copied(),
            );
        } else {
            game.generate_search_moves(moves);
        }
        if moves.is_empty() {
            return false;
        }
        let features = self.settings.features;
        if features.ordering && features.learnt_ordering {
            picker.stage_moves(tt_move, self.context(ply));
        } else if features.ordering {
            picker.order_by_hints(game, tt_move);
        } else {
            picker.order_as_generated();
        }
        true
    }

    /// Step 11 of [`Searcher::negamax`]: searches the moves of `picker`, the first with the
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
        let (ply, beta) = (node.ply, node.beta);
        let mut alpha = node.alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        let mut quiets_tried: ArrayVec<G::Move, 64> = ArrayVec::new();
        let mut noisy_tried: ArrayVec<G::Move, 32> = ArrayVec::new();
        let mut quiets_seen = 0;
        // Step 11a. What futility, late move and history pruning may skip at this node.
        let on = self.state.pruning.futility && !node.pv_node() && ply > 0 && !node.in_check;
        let pruning = QuietPruning::new(on, node.depth, alpha, static_eval, self.params());
        let context = self.context(ply);
        let uses_history = self.state.pruning.late_move_reductions || on;
        while let Some(mv) = picker.next_move(&*game, &self.tables) {
            if node.excluded == Some(G::encode_move(mv)) {
                continue;
            }
            // Step 11b. The move: noisy or quiet, its extension, its history.
            let history_context = uses_history.then_some(&context);
            let facts = self.move_facts(game, picker, mv, tt_move_extension, history_context);
            quiets_seen += i32::from(facts.quiet);

            // Step 11c. Exchange pruning; futility, late move and history pruning of quiet
            // moves that do not give check, once a move has kept us from being mated.
            let (quiet, noisy) = (facts.quiet, facts.noisy);
            if best_score > -MATE_BOUND && self.loses_exchange(game, node, mv, quiet, noisy) {
                continue;
            }
            let prune =
                quiet && best_score > -MATE_BOUND && pruning.prunes(quiets_seen, facts.history);
            self.continuations[ply] = game.continuation_index(mv);
            if prune {
                if pruning.prunes_every_later(quiets_seen) {
                    picker.skip_quiets(&*game);
                }
                match game.gives_check(mv) {
                    Some(false) => continue,
                    Some(true) => self.make_prefetched(game, mv),
                    None => {
                        // Made only to see whether it gives check: fetch its bucket once
                        // it stays.
                        game.make_move(mv);
                        if !game.in_check() {
                            game.unmake_move(mv);
                            continue;
                        }
                        self.links.tt.prefetch(game.hash());
                    }
                }
            } else {
                self.make_prefetched(game, mv);
            }

            // Step 11d. Search it: PVS, a late quiet move reduced first.
            let score = self.search_made_move(game, node, mv, alpha, &facts, static_eval)?;

            // Step 11e. A better move: the PV; a cut-off: learn from it and stop.
            best_score = best_score.max(score);
            if score > alpha {
                best_move = Some(mv);
                alpha = score;
                if node.pv_node() {
                    self.update_pv(ply, mv);
                }
                if alpha >= beta && self.settings.features.alpha_beta {
                    self.count_cutoff(facts.number);
                    self.reward_cutoff(game, node, mv, quiet, &quiets_tried, &noisy_tried);
                    break;
                }
            }
            if facts.shares_history {
                let _ = quiets_tried.try_push(mv);
            } else if noisy {
                let _ = noisy_tried.try_push(mv);
            }
        }
        Some((best_score, best_move))
    }

    /// Step 11b of [`Searcher::negamax`]: what `mv`, just handed out by `picker`, is. Its
    /// quiet history is read only with a `context` (reductions or history pruning use it).
    fn move_facts(
        &self,
        game: &G,
        picker: &MovePicker<G::Move>,
        mv: G::Move,
        tt_move_extension: i32,
        context: Option<&NodeContext>,
    ) -> MoveFacts {
        let noisy = game.is_noisy(mv);
        let is_tt_move = picker.last_is_tt_move();
        // The hash move is scored above everything: ask the game what it is.
        let hint = if is_tt_move && !noisy {
            game.move_hint(mv)
        } else {
            picker.last_score()
        };
        let quiet = hint < QUIET_HINT_LIMIT && !noisy;
        let shares_history = shares_history(game, mv, quiet);
        let history = match context {
            Some(context) if shares_history => self.tables.quiet_history(game, mv, context),
            _ => 0,
        };
        MoveFacts {
            number: picker.handed_out(),
            noisy,
            quiet,
            shares_history,
            extension: if is_tt_move { tt_move_extension } else { 0 },
            history,
        }
    }

    /// Step 11d of [`Searcher::negamax`]: searches `mv`, already made, with its reduction,
    /// unmakes it, and counts its nodes at the root. `None` when aborted.
    fn search_made_move(
        &mut self,
        game: &mut G,
        node: &Node,
        mv: G::Move,
        alpha: Score,
        facts: &MoveFacts,
        static_eval: StaticEval,
    ) -> Option<Score> {
        let kind = MoveKind::of(facts.quiet, facts.noisy);
        let reduction = self.reduction(game, node, facts.number, kind, facts.history, static_eval);
        let plies = (facts.extension, reduction);
        let nodes_before = self.state.nodes;
        let score = self.search_move(game, node, alpha, facts.number, plies);
        game.unmake_move(mv);
        if node.ply == 0 {
            self.count_root_nodes(mv, self.state.nodes - nodes_before);
        }
        score
    }

    /// Counts a beta cut-off by the `move_number`-th move.
    fn count_cutoff(&mut self, move_number: usize) {
        self.state.stats.cutoffs += 1;
        if move_number == 1 {
            self.state.stats.first_move_cutoffs += 1;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The constants the tests' figures are worked out with.
    const P: SearchParams = SearchParams::DEFAULT;

    fn eval(corrected: Option<Score>, improving: bool) -> StaticEval {
        StaticEval {
            raw: corrected,
            corrected,
            refined: corrected,
            improving,
        }
    }

    #[test]
    fn futility_needs_the_evaluation_far_below_alpha_near_the_horizon() {
        // At depth 2 the margin is 100 + 2 * 90 = 280.
        let futile = QuietPruning::new(true, 2, 300, eval(Some(20), false), &P);
        assert!(futile.futile && futile.prunes(1, 0) && futile.prunes_every_later(0));
        let close = QuietPruning::new(true, 2, 300, eval(Some(21), false), &P);
        assert!(!close.futile && !close.prunes(1, 0));
        let deep = QuietPruning::new(true, P.futility_depth + 1, 10_000, eval(Some(0), false), &P);
        assert!(!deep.futile);
        let in_check = QuietPruning::new(true, 2, 300, eval(None, false), &P);
        assert!(!in_check.futile);
        // Switched off, nothing is skipped.
        let off = QuietPruning::new(false, 2, 300, eval(Some(20), false), &P);
        assert!(!off.prunes(100, -1_000_000) && !off.prunes_every_later(100));
    }

    #[test]
    fn late_quiet_moves_are_skipped_later_when_improving() {
        let settled = QuietPruning::new(true, 3, 0, eval(Some(0), false), &P);
        assert_eq!(settled.late_move_limit, Some(6));
        assert!(!settled.prunes(6, 0) && settled.prunes(7, 0));
        // From the 6th quiet move on every later one goes, whatever its history.
        assert!(!settled.prunes_every_later(5) && settled.prunes_every_later(6));
        let improving = QuietPruning::new(true, 3, 0, eval(Some(0), true), &P);
        assert_eq!(improving.late_move_limit, Some(12));
        assert!(!improving.prunes(12, 0) && improving.prunes(13, 0));
        let deep = QuietPruning::new(
            true,
            P.late_move_pruning_depth + 1,
            0,
            eval(Some(0), false),
            &P,
        );
        assert!(!deep.prunes(1_000, 0) && !deep.prunes_every_later(1_000));
    }

    #[test]
    fn a_bad_history_is_skipped_near_the_horizon() {
        let node = QuietPruning::new(true, 2, 0, eval(Some(0), false), &P);
        assert!(!node.prunes(1, -2 * P.history_pruning_margin));
        assert!(node.prunes(1, -2 * P.history_pruning_margin - 1));
        assert!(
            !node.prunes_every_later(1),
            "a bad history skips that move only"
        );
        let deeper = QuietPruning::new(
            true,
            P.history_pruning_depth + 1,
            0,
            eval(Some(0), false),
            &P,
        );
        assert!(!deeper.prunes(1, i32::MIN / 2));
    }
}
