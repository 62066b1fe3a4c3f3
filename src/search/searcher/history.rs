//! What the search learns as it goes: the principal variation, where a node sits for the
//! ordering tables, killers, counter moves and histories from beta cut-offs, and the
//! correction of the static evaluation.

use super::super::game::Game;
use super::super::ordering::{history_bonus, NodeContext};
use super::super::score::{Score, MAX_PLY, TB_WIN_BOUND};
use super::{Node, Searcher, StaticEval};

impl<G: Game> Searcher<G> {
    /// `mv` raised alpha at `ply` on the principal variation: the line at `ply` becomes
    /// `mv` followed by the line of the child it led to.
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
    /// counter move of the previous move; it (or a forcing move, where the game shares the
    /// history: [`SearchRefinements::FORCING_HISTORY`]) gains butterfly and continuation
    /// history that the moves of `quiets_tried` (the quiet, and there forcing, moves tried
    /// before it) lose; a noisy move gains capture history. The noisy moves tried before it
    /// lose capture history either way.
    ///
    /// [`SearchRefinements::FORCING_HISTORY`]: super::super::game::SearchRefinements::FORCING_HISTORY
    pub(super) fn reward_cutoff(
        &mut self,
        game: &G,
        node: &Node,
        mv: G::Move,
        quiet: bool,
        quiets_tried: &[G::Move],
        noisy_tried: &[G::Move],
    ) {
        let bonus = history_bonus(node.depth, self.params());
        let context = self.context(node.ply);
        let tables = &mut self.tables;
        if quiet {
            tables.add_killer(node.ply, mv);
            tables.set_counter(context.previous[0], mv);
        }
        if shares_history(game, mv, quiet) {
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
            && best_score.abs() < TB_WIN_BOUND
            && !best_move.is_some_and(|mv| game.is_noisy(mv))
            && !(best_score >= node.beta && best_score <= corrected)
            && !(best_score <= node.alpha && best_score >= corrected);
        if informative {
            self.correction.update(game, node.depth, best_score, raw);
        }
    }
}

/// Whether `mv` (called `quiet` or not) is read, rewarded and punished in the butterfly
/// and continuation histories: a quiet move, or a forcing one that is not noisy where the
/// game shares the histories ([`SearchRefinements::FORCING_HISTORY`]).
///
/// [`SearchRefinements::FORCING_HISTORY`]: super::super::game::SearchRefinements::FORCING_HISTORY
pub(super) fn shares_history<G: Game>(game: &G, mv: G::Move, quiet: bool) -> bool {
    quiet || (G::FORCING_HISTORY && !game.is_noisy(mv))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::NodeKind;
    use super::*;
    use crate::games::mnk::{Cell, Mnk, MnkVariant};
    use crate::search::ordering::history_bonus;
    use crate::search::tt::TranspositionTable;
    use crate::search::Rules;

    fn searcher() -> Searcher<Mnk> {
        Searcher::new(Arc::new(TranspositionTable::new(1)))
    }

    fn node(depth: i32, ply: usize) -> Node {
        Node {
            depth,
            ply,
            alpha: -100,
            beta: 100,
            kind: NodeKind::Cut,
            in_check: false,
            excluded: None,
        }
    }

    #[test]
    fn a_pv_is_the_move_then_the_childs_line() {
        let mut searcher = searcher();
        searcher.pv[3].extend([Cell(1), Cell(2)]);
        searcher.pv[2].push(Cell(8));
        searcher.update_pv(2, Cell(0));
        assert_eq!(searcher.pv[2].as_slice(), &[Cell(0), Cell(1), Cell(2)]);
        searcher.update_pv(1, Cell(5));
        assert_eq!(
            searcher.pv[1].as_slice(),
            &[Cell(5), Cell(0), Cell(1), Cell(2)]
        );
        // A child's line as long as a line can be is cut to fit.
        searcher.pv[MAX_PLY].clear();
        while !searcher.pv[MAX_PLY].is_full() {
            searcher.pv[MAX_PLY].push(Cell(7));
        }
        searcher.update_pv(MAX_PLY - 1, Cell(6));
        assert_eq!(searcher.pv[MAX_PLY - 1].len(), MAX_PLY);
        assert_eq!(searcher.pv[MAX_PLY - 1][0], Cell(6));
    }

    #[test]
    fn a_quiet_cutoff_rewards_its_move_and_punishes_those_tried_before_within_bounds() {
        let mut searcher = searcher();
        let game = Mnk::start(&MnkVariant::TICTACTOE);
        let context = searcher.context(0);
        let history = |s: &Searcher<Mnk>, mv| s.tables.quiet_history(&game, mv, &context);
        searcher.reward_cutoff(&game, &node(3, 0), Cell(4), true, &[Cell(0), Cell(2)], &[]);
        assert_eq!(
            history(&searcher, Cell(4)),
            history_bonus(3, searcher.params())
        );
        assert_eq!(
            history(&searcher, Cell(0)),
            -history_bonus(3, searcher.params())
        );
        assert_eq!(history(&searcher, Cell(8)), 0);
        // However often, however deep: the histories stay bounded.
        for _ in 0..1_000 {
            searcher.reward_cutoff(&game, &node(60, 0), Cell(4), true, &[Cell(0)], &[]);
        }
        let (top, bottom) = (history(&searcher, Cell(4)), history(&searcher, Cell(0)));
        assert!((1..=16_384).contains(&top), "{top}");
        assert!((-16_384..0).contains(&bottom), "{bottom}");
    }

    #[test]
    fn where_captures_share_the_history_a_capture_cutoff_rewards_it_and_punishes_the_others() {
        use crate::games::ataxx::{Ataxx, AtaxxVariant};
        let mut searcher: Searcher<Ataxx> = Searcher::new(Arc::new(TranspositionTable::new(1)));
        let game = Ataxx::from_fen(&AtaxxVariant::default(), "7/7/7/2o1o2/2xo3/7/7 x 7 9").unwrap();
        let mv = |text: &str| game.parse_move(text).unwrap();
        let (capture, tried) = (mv("b4"), [mv("d4"), mv("b2")]);
        searcher.reward_cutoff(&game, &node(4, 2), capture, false, &tried, &[]);
        let history = |mv| {
            searcher
                .tables
                .quiet_history(&game, mv, &searcher.context(2))
        };
        assert_eq!(history(capture), history_bonus(4, searcher.params()));
        assert_eq!(history(mv("d4")), -history_bonus(4, searcher.params()));
        assert_eq!(history(mv("b2")), -history_bonus(4, searcher.params()));
        assert_eq!(history(mv("d2")), 0);
    }

    #[test]
    fn the_context_names_the_two_moves_before() {
        let mut searcher = searcher();
        searcher.continuations[0] = Some(7);
        searcher.continuations[1] = Some(9);
        let context = searcher.context(2);
        assert_eq!((context.ply, context.previous), (2, [Some(9), Some(7)]));
        assert_eq!(searcher.context(1).previous, [Some(7), None]);
        assert_eq!(searcher.context(0).previous, [None, None]);
    }
}
