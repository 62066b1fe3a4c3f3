//! The node search, [`Searcher::negamax`], and its steps before the moves: game ends and
//! mate distance pruning, the horizon, the transposition table, internal iterative
//! reduction, the static evaluation, singular extensions, and the table's store.

use std::ops::ControlFlow;

use super::super::game::Game;
use super::super::game::Outcome;
use super::super::ordering::MovePicker;
use super::super::score::{
    outcome_score, tablebase_score, Score, DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY,
};
use super::super::tt::{Bound, TtEntry};
use super::{Node, NodeKind, Searcher, StaticEval};

/// How much deeper than searched a node the endgame tables valued is stored in the
/// transposition table: the tables' value holds at any depth.
const TABLEBASE_DEPTH_BONUS: i32 = 6;

impl<G: Game> Searcher<G> {
    /// Whether a table entry searched to `entry_depth` may stand for a search to `depth`.
    fn entry_is_deep_enough(&self, game: &G, entry_depth: i32, depth: i32) -> bool {
        if !self.state.pruning.is_exact() {
            return entry_depth >= depth;
        }
        if entry_depth == depth {
            return true;
        }
        // Both searches reached every end of the game: the values are the same.
        game.remaining_plies_bound()
            .is_some_and(|r| entry_depth >= r as i32 && depth >= r as i32)
    }

    /// Fail-soft negamax with PVS. Returns `None` when the search was aborted.
    pub(super) fn negamax(
        &mut self,
        game: &mut G,
        depth: i32,
        ply: usize,
        alpha: Score,
        beta: Score,
        kind: NodeKind,
    ) -> Option<Score> {
        // Steps 1 to 3. Count the node; game ends, mate distance pruning, the horizon.
        let mut node = match self.open_node(game, depth, ply, (alpha, beta), kind) {
            ControlFlow::Break(value) => return value,
            ControlFlow::Continue(node) => node,
        };
        let (alpha, in_check) = (node.alpha, node.in_check);

        // Step 4. Transposition table: maybe a cut-off, otherwise what the entry knows.
        let key = game.hash();
        let hit = match self.probe_table(game, key, &node) {
            ControlFlow::Break(score) => return Some(score),
            ControlFlow::Continue(hit) => hit,
        };
        let tt_move = hit.and_then(|hit| hit.move_code);

        // Step 4b. Endgame tables: their value cuts the node where its bound does;
        // otherwise, on the principal variation, it bounds the node's score (step 12).
        let table_bound = match self.probe_tablebase(game, key, &node) {
            ControlFlow::Break(score) => return Some(score),
            ControlFlow::Continue(bound) => bound,
        };

        // Step 5. Internal iterative reduction: a PV or cut node (any node, where the game
        // says so) the table knows no move for is searched a ply shallower (its ordering
        // is a guess; the next iteration finds it with a move).
        if self.reduces_internally(&node, tt_move) {
            node.depth -= 1;
        }

        // Step 6. Static evaluation (the table's when stored), refined by the table's
        // score, and whether it improved on our previous move.
        let eval = self.static_evaluation(game, ply, in_check, hit.as_ref());

        // Step 7. Reverse futility pruning: far enough above beta that no quiet line is
        // likely to bring the score back below it.
        if let Some(score) = self.reverse_futility(&node, eval) {
            return Some(score);
        }

        // Step 8. Null move pruning, where the game allows it.
        if let Some(score) = self.null_move(game, &node, eval.refined)? {
            return Some(score);
        }

        // Step 9. Singular extension of the hash move: the others all fail well below its
        // score (extend it), or reach beta too (cut the node, or reduce the hash move).
        let extension = match self.singular_extension(game, &node, hit.as_ref())? {
            ControlFlow::Break(score) => return Some(score),
            ControlFlow::Continue(extension) => extension,
        };

        // Step 10. Generate and order the moves; without any the game is over.
        let mut picker = MovePicker::empty();
        if !self.fill_move_picker(game, ply, tt_move, &mut picker) {
            self.state.stats.leaves += 1;
            return Some(if in_check {
                -MATE + ply as Score
            } else {
                outcome_score(game.outcome_without_moves(), ply)
            });
        }

        // Step 11. Search the moves.
        let (best_score, best_move) =
            self.search_moves(game, &node, &mut picker, eval, extension)?;
        if node.excluded.is_some() {
            // Only the singular search's bound matters; with no other move it fails low.
            return Some(if best_score == -INFINITY {
                alpha
            } else {
                best_score
            });
        }

        // Step 12. Store the result (held within the tables' bound), and learn how wrong
        // the static evaluation was.
        let best_score = match table_bound {
            Some((score, Bound::Lower)) => best_score.max(score),
            Some((score, Bound::Upper)) => best_score.min(score),
            _ => best_score,
        };
        self.store(key, &node, best_score, best_move, eval.raw);
        self.correct_evaluation(game, &node, best_score, best_move, eval);
        Some(best_score)
    }

    /// Steps 1 to 3 of [`Searcher::negamax`]: counts the node (`Break(None)`: aborted);
    /// the value of a finished game, a rule draw, the ply ceiling or a window closed by
    /// mate distance pruning (step 2), or at the horizon (step 3) the static evaluation or
    /// quiescence (`Break(Some(score))`); otherwise the node to search (`Continue`), its
    /// window narrowed and its depth extended in check.
    fn open_node(
        &mut self,
        game: &mut G,
        depth: i32,
        ply: usize,
        (alpha, beta): (Score, Score),
        kind: NodeKind,
    ) -> ControlFlow<Option<Score>, Node> {
        // Step 1. Count the node, check limits.
        self.pv[ply].clear();
        if !self.enter_node() {
            return ControlFlow::Break(None);
        }
        self.state.seldepth = self.state.seldepth.max(ply);

        // Step 2. Game end, rule draws, the ply ceiling, mate distance pruning.
        let (alpha, beta) = match self.terminal_or_window(game, ply, alpha, beta) {
            ControlFlow::Break(score) => return ControlFlow::Break(Some(score)),
            ControlFlow::Continue(window) => window,
        };
        let in_check = game.in_check();
        let depth = depth + i32::from(in_check && self.state.pruning.check_extensions);

        // Step 3. At the horizon: static evaluation, or quiescence where the game has it.
        if depth <= 0 {
            return ControlFlow::Break(self.horizon(game, ply, alpha, beta));
        }
        ControlFlow::Continue(Node {
            depth,
            ply,
            alpha,
            beta,
            kind,
            in_check,
            excluded: self.excluded[ply],
        })
    }

    /// Step 5 of [`Searcher::negamax`]: whether internal iterative reduction takes a ply
    /// off `node`, a node below the root for which the table knows no move (a PV or cut
    /// node, unless the game reduces all nodes).
    fn reduces_internally(&self, node: &Node, tt_move: Option<u16>) -> bool {
        let pruning = self.state.pruning;
        pruning.internal_reductions
            && node.ply > 0
            && node.depth >= self.params().iir_depth
            && (node.kind != NodeKind::All || pruning.internal_reductions_everywhere)
            && tt_move.is_none()
    }

    /// Whether `node` (whose table entry suits) is deep enough, and of a kind, for the
    /// singular search of step 9: below the root, not itself a singular search, off the PV
    /// if the game says so, and within twice the iteration's depth.
    fn tries_singular(&self, node: &Node) -> bool {
        let pruning = self.state.pruning;
        pruning.singular_extensions
            && node.ply > 0
            && node.excluded.is_none()
            && !(pruning.singular_off_pv_only && node.pv_node())
            && node.depth >= self.params().singular_depth
            && node.ply < 2 * self.state.root_depth as usize
    }

    /// Step 9 of [`Searcher::negamax`]: searches the moves other than the table's, reduced
    /// and with a null window just below the entry's score less a margin. `Continue(1)`:
    /// none reaches it, the table's move is singular and searched a ply deeper
    /// (`Continue(2)`, two plies, outside the PV when they fail the game's
    /// `singular_double_margin` further below);
    /// `Break(score)`: even that lowered window is above beta (multi-cut);
    /// `Continue(-1)`: the entry's score is above beta but other moves also reach the
    /// lowered window, so the table's move is searched a ply shallower; `Continue(0)`
    /// otherwise. `None` when aborted.
    fn singular_extension(
        &mut self,
        game: &mut G,
        node: &Node,
        hit: Option<&TtEntry>,
    ) -> Option<ControlFlow<Score, i32>> {
        let Some(hit) = hit.filter(|hit| {
            hit.move_code.is_some()
                && hit.bound != Bound::Upper
                && i32::from(hit.depth) >= node.depth - self.params().singular_entry_slack
                && hit.score.abs() < MATE_BOUND
        }) else {
            return Some(ControlFlow::Continue(0));
        };
        if !self.tries_singular(node) {
            return Some(ControlFlow::Continue(0));
        }
        let singular_beta = hit.score - self.params().singular_margin * node.depth;
        let kind = if node.kind == NodeKind::Cut {
            NodeKind::Cut
        } else {
            NodeKind::All
        };
        self.excluded[node.ply] = hit.move_code;
        let result = self.negamax(
            game,
            (node.depth - 1) / 2,
            node.ply,
            singular_beta - 1,
            singular_beta,
            kind,
        );
        self.excluded[node.ply] = None;
        let score = result?;
        let double_margin = self
            .params()
            .singular_double_margin
            .filter(|_| !node.pv_node());
        Some(singular_verdict(
            score,
            singular_beta,
            hit.score,
            node.beta,
            double_margin,
        ))
    }

    /// Step 2 of [`Searcher::negamax`], below the root: the score of a finished game, a
    /// rule draw or the ply ceiling, or of a window that mate distance pruning closed
    /// (`Break`); otherwise the window narrowed to the mates still possible (`Continue`).
    fn terminal_or_window(
        &mut self,
        game: &G,
        ply: usize,
        alpha: Score,
        beta: Score,
    ) -> ControlFlow<Score, (Score, Score)> {
        if ply == 0 {
            return ControlFlow::Continue((alpha, beta));
        }
        if let Some(outcome) = game.outcome() {
            self.state.stats.leaves += 1;
            return ControlFlow::Break(outcome_score(outcome, ply));
        }
        if game.is_search_draw() {
            self.state.stats.leaves += 1;
            return ControlFlow::Break(DRAW);
        }
        if ply >= MAX_PLY - 1 {
            self.state.stats.leaves += 1;
            return ControlFlow::Break(self.judged(game, game.evaluate()));
        }
        if !self.settings.features.alpha_beta {
            // Plain minimax: no window to narrow.
            return ControlFlow::Continue((alpha, beta));
        }
        let alpha = alpha.max(-MATE + ply as Score);
        let beta = beta.min(MATE - ply as Score - 1);
        if alpha >= beta {
            return ControlFlow::Break(alpha);
        }
        ControlFlow::Continue((alpha, beta))
    }

    /// Step 3 of [`Searcher::negamax`]: the value at the horizon.
    fn horizon(&mut self, game: &mut G, ply: usize, alpha: Score, beta: Score) -> Option<Score> {
        if self.state.pruning.quiescence {
            self.quiescence(game, ply, alpha, beta)
        } else {
            self.state.stats.leaves += 1;
            Some(self.judged(game, game.evaluate()))
        }
    }

    /// Step 4 of [`Searcher::negamax`]: the entry's score when it may stand for this
    /// node's search, away from the principal variation (`Break`); otherwise the entry, if
    /// any, for its move and evaluation (`Continue`).
    fn probe_table(
        &mut self,
        game: &G,
        key: u64,
        node: &Node,
    ) -> ControlFlow<Score, Option<TtEntry>> {
        if !self.settings.features.transposition {
            return ControlFlow::Continue(None);
        }
        let Some(hit) = self.links.tt.probe(key, node.ply) else {
            return ControlFlow::Continue(None);
        };
        if !node.pv_node()
            && node.excluded.is_none()
            && self.entry_is_deep_enough(game, i32::from(hit.depth), node.depth)
            && hit.cuts(node.alpha, node.beta)
        {
            self.state.stats.tt_cutoffs += 1;
            return ControlFlow::Break(hit.score);
        }
        ControlFlow::Continue(Some(hit))
    }

    /// Step 4b of [`Searcher::negamax`]: the value the game's endgame tables give this node
    /// (below the root, unless the tables ranked the root's moves). A draw, a win at or
    /// above beta or a loss at or below alpha cuts the node (`Break`), stored in the table
    /// [`TABLEBASE_DEPTH_BONUS`] plies deeper than searched; otherwise a PV node keeps the
    /// value as a bound on its score (`Continue(Some)`).
    fn probe_tablebase(
        &mut self,
        game: &G,
        key: u64,
        node: &Node,
    ) -> ControlFlow<Score, Option<(Score, Bound)>> {
        if node.ply == 0 || node.excluded.is_some() || self.state.tablebase_root.is_some() {
            return ControlFlow::Continue(None);
        }
        let Some(outcome) = game.tablebase_value(node.depth) else {
            return ControlFlow::Continue(None);
        };
        self.links.control.add_tb_hits(1);
        let score = tablebase_score(outcome, node.ply);
        let (bound, cuts) = match outcome {
            Outcome::Win => (Bound::Lower, score >= node.beta),
            Outcome::Loss => (Bound::Upper, score <= node.alpha),
            Outcome::Draw => (Bound::Exact, true),
        };
        if !cuts {
            return ControlFlow::Continue(node.pv_node().then_some((score, bound)));
        }
        if self.settings.features.transposition {
            let depth = (node.depth + TABLEBASE_DEPTH_BONUS).clamp(0, i32::from(u8::MAX));
            let entry = TtEntry {
                move_code: None,
                score,
                eval: None,
                depth: depth as u8,
                bound,
            };
            self.links.tt.store(key, node.ply, entry);
        }
        ControlFlow::Break(score)
    }

    /// Step 6 of [`Searcher::negamax`]: the static evaluation where pruning uses it (not in
    /// check), taken from the table entry `hit` when it has one (the table keeps the game's
    /// own; a playing level's misjudgement is added after), refined by the entry's
    /// score; the game's evaluation is recorded for this ply, and `improving` says whether
    /// it is better than two plies before.
    fn static_evaluation(
        &mut self,
        game: &mut G,
        ply: usize,
        in_check: bool,
        hit: Option<&TtEntry>,
    ) -> StaticEval {
        let pruning = self.state.pruning;
        let uses_static_eval = pruning.null_move || pruning.reverse_futility || pruning.futility;
        let raw = (uses_static_eval && !in_check).then(|| {
            hit.and_then(|hit| hit.eval)
                .unwrap_or_else(|| game.evaluate_mut())
        });
        let corrected = raw.map(|eval| self.corrected(game, self.judged(game, eval)));
        self.static_evals[ply] = corrected;
        let improving = match (corrected, ply.checked_sub(2)) {
            (Some(now), Some(before)) => self.static_evals[before].map_or(true, |b| now > b),
            _ => false,
        };
        let refined = corrected.map(|eval| hit.map_or(eval, |hit| hit.refine(eval)));
        StaticEval {
            raw,
            corrected,
            refined,
            improving,
        }
    }

    /// The game's static evaluation `eval` of `game`, corrected where the game allows it.
    pub(super) fn corrected(&self, game: &G, eval: Score) -> Score {
        if self.state.pruning.eval_correction {
            self.correction.corrected(game, eval)
        } else {
            eval
        }
    }

    /// Step 12 of [`Searcher::negamax`]: stores the node's result in the table, bounded by
    /// the window the node was searched with, with the game's static evaluation.
    fn store(
        &mut self,
        key: u64,
        node: &Node,
        best_score: Score,
        best_move: Option<G::Move>,
        eval: Option<Score>,
    ) {
        if node.ply == 0 && self.state.root_from > 0 {
            // A root searched without its best moves has no value of its own.
            return;
        }
        if !self.settings.features.transposition {
            return;
        }
        let bound = if best_score >= node.beta {
            Bound::Lower
        } else if best_score > node.alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let depth = node.depth.clamp(0, u8::MAX as i32) as u8;
        let result = TtEntry {
            move_code: best_move.map(G::encode_move),
            score: best_score,
            eval,
            depth,
            bound,
        };
        self.links.tt.store(key, node.ply, result);
    }
}

/// What [`Searcher::singular_extension`] makes of the singular search's `score` against
/// `singular_beta`, for a hash move whose entry scored `entry` at a node whose window top
/// is `beta`; `double_margin`: how much further below `singular_beta` the others must fail
/// for two plies (`None`: one at most).
fn singular_verdict(
    score: Score,
    singular_beta: Score,
    entry: Score,
    beta: Score,
    double_margin: Option<Score>,
) -> ControlFlow<Score, i32> {
    if double_margin.is_some_and(|margin| score < singular_beta - margin) {
        ControlFlow::Continue(2)
    } else if score < singular_beta {
        ControlFlow::Continue(1)
    } else if singular_beta >= beta {
        ControlFlow::Break(singular_beta)
    } else if entry >= beta {
        ControlFlow::Continue(-1)
    } else {
        ControlFlow::Continue(0)
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
    fn all_nodes_are_reduced_internally_only_where_the_game_says_so() {
        let mut searcher: Searcher<Ataxx> = Searcher::new(Arc::new(TranspositionTable::new(1)));
        let node = |kind| Node {
            depth: 10,
            ply: 3,
            alpha: 0,
            beta: 1,
            kind,
            in_check: false,
            excluded: None,
        };
        let everywhere = Ataxx::start(&AtaxxVariant::default()).pruning();
        searcher.state.pruning = Pruning {
            internal_reductions_everywhere: false,
            ..everywhere
        };
        assert!(searcher.reduces_internally(&node(NodeKind::Cut), None));
        assert!(!searcher.reduces_internally(&node(NodeKind::All), None));
        searcher.state.pruning = everywhere;
        assert!(searcher.reduces_internally(&node(NodeKind::All), None));
        assert!(!searcher.reduces_internally(&node(NodeKind::All), Some(7)));
    }

    #[test]
    fn ataxx_tries_singular_extensions_off_the_pv_only() {
        let mut searcher: Searcher<Ataxx> = Searcher::new(Arc::new(TranspositionTable::new(1)));
        searcher.state.root_depth = 12;
        let node = |kind| Node {
            depth: 10,
            ply: 3,
            alpha: 0,
            beta: if kind == NodeKind::Pv { 50 } else { 1 },
            kind,
            in_check: false,
            excluded: None,
        };
        let off_pv_only = Ataxx::start(&AtaxxVariant::default()).pruning();
        searcher.state.pruning = off_pv_only;
        assert!(searcher.tries_singular(&node(NodeKind::Cut)));
        assert!(searcher.tries_singular(&node(NodeKind::All)));
        assert!(!searcher.tries_singular(&node(NodeKind::Pv)));
        searcher.state.pruning = Pruning {
            singular_off_pv_only: false,
            ..off_pv_only
        };
        assert!(searcher.tries_singular(&node(NodeKind::Pv)));
    }

    #[test]
    fn a_singular_move_is_extended_once_or_twice_by_how_far_the_others_fail() {
        // Entry 100 at depth 10: singular beta 90, a double extension 20 below that.
        let verdict = |score, double| singular_verdict(score, 90, 100, 150, double);
        assert_eq!(verdict(89, None), ControlFlow::Continue(1));
        assert_eq!(verdict(0, None), ControlFlow::Continue(1));
        assert_eq!(verdict(70, Some(20)), ControlFlow::Continue(1));
        assert_eq!(verdict(69, Some(20)), ControlFlow::Continue(2));
        assert_eq!(verdict(90, Some(20)), ControlFlow::Continue(0));
    }

    #[test]
    fn other_moves_reaching_the_lowered_window_cut_or_reduce() {
        // Multi-cut: the lowered window itself is at or above beta.
        assert_eq!(
            singular_verdict(95, 90, 100, 90, Some(20)),
            ControlFlow::Break(90)
        );
        // The entry is above beta, but others come close: the hash move a ply shallower.
        assert_eq!(
            singular_verdict(95, 90, 100, 95, Some(20)),
            ControlFlow::Continue(-1)
        );
        assert_eq!(
            singular_verdict(95, 90, 100, 101, Some(20)),
            ControlFlow::Continue(0)
        );
    }
}
