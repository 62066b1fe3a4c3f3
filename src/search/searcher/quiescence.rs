//! Quiescence: at the horizon, only noisy moves are searched (every evasion in check), so
//! that the static evaluation is only taken of quiet positions.

use std::ops::ControlFlow;

use super::super::game::{Game, QUIET_HINT_LIMIT};
use super::super::ordering::MovePicker;
use super::super::score::{outcome_score, Score, DRAW, MATE, MAX_PLY};
use super::super::tt::{Bound, TtEntry};
use super::Searcher;

impl<G: Game> Searcher<G> {
    /// Quiescence: stand pat on the static evaluation, then try noisy moves only. The
    /// table is probed and written as in the main search, at depth 0: any entry may cut,
    /// a stored evaluation saves evaluating, and a bound refines the standing pat.
    pub(super) fn quiescence(
        &mut self,
        game: &mut G,
        ply: usize,
        mut alpha: Score,
        beta: Score,
    ) -> Option<Score> {
        // Step 1. Count the node; game ends, rule draws and the ply ceiling.
        if let ControlFlow::Break(value) = self.open_quiescence(game, ply) {
            return value;
        }

        // Step 2. The table: every entry is at least as deep as quiescence.
        let uses_table = self.settings.features.transposition;
        let key = game.hash();
        let hit = if uses_table {
            self.links.tt.probe(key, ply)
        } else {
            None
        };
        if let Some(hit) = hit.filter(|hit| hit.cuts(alpha, beta)) {
            self.state.stats.tt_cutoffs += 1;
            return Some(hit.score);
        }

        // Step 3. Stand pat. In check there is none: every evasion is tried (the game's
        // noisy moves are all evasions then), and having none is a loss.
        let in_check = game.in_check();
        let original_alpha = alpha;
        let (best, raw_eval) = if in_check {
            (-MATE + ply as Score, None)
        } else {
            let (stand_pat, raw_eval) = self.stand_pat(game, hit.as_ref());
            if stand_pat >= beta {
                if uses_table && hit.is_none() {
                    self.store_quiescence(key, ply, stand_pat, None, Bound::Lower, raw_eval);
                }
                return Some(stand_pat);
            }
            alpha = alpha.max(stand_pat);
            (stand_pat, raw_eval)
        };

        // Step 4. The noisy moves, the table's move first.
        let tt_move = hit.and_then(|hit| hit.move_code);
        let (best, best_move) =
            self.search_noisy(game, ply, (alpha, beta), in_check, tt_move, best)?;

        // Step 5. Store the result.
        if uses_table {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.store_quiescence(key, ply, best, best_move, bound, raw_eval);
        }
        Some(best)
    }

    /// Step 1 of [`Searcher::quiescence`]: counts the node (`Break(None)`: aborted); the
    /// value of a finished game, a rule draw or the ply ceiling (`Break(Some(score))`).
    fn open_quiescence(&mut self, game: &G, ply: usize) -> ControlFlow<Option<Score>> {
        self.pv[ply].clear();
        if !self.enter_node() {
            return ControlFlow::Break(None);
        }
        self.state.seldepth = self.state.seldepth.max(ply);
        if let Some(outcome) = game.outcome() {
            return ControlFlow::Break(Some(outcome_score(outcome, ply)));
        }
        if game.is_search_draw() {
            return ControlFlow::Break(Some(DRAW));
        }
        if ply >= MAX_PLY - 1 {
            return ControlFlow::Break(Some(self.judged(game, game.evaluate())));
        }
        ControlFlow::Continue(())
    }

    /// Step 3 of [`Searcher::quiescence`], outside check: the standing pat (the static
    /// evaluation, the table's when stored, misjudged at a playing level, corrected and
    /// refined by the table's bound) and the game's own evaluation.
    fn stand_pat(&self, game: &mut G, hit: Option<&TtEntry>) -> (Score, Option<Score>) {
        let eval = hit
            .and_then(|hit| hit.eval)
            .unwrap_or_else(|| game.evaluate_mut());
        let corrected = self.corrected(game, self.judged(game, eval));
        let stand_pat = hit.map_or(corrected, |hit| hit.refine(corrected));
        (stand_pat, Some(eval))
    }

    /// Step 4 of [`Searcher::quiescence`]: searches the noisy moves (all evasions in check)
    /// inside `(alpha, beta)`, from `best` (the standing pat, or a loss in check). Returns
    /// the best score and the move that raised alpha last; `None` when aborted.
    fn search_noisy(
        &mut self,
        game: &mut G,
        ply: usize,
        (mut alpha, beta): (Score, Score),
        in_check: bool,
        tt_move: Option<u16>,
        mut best: Score,
    ) -> Option<(Score, Option<G::Move>)> {
        let mut picker = MovePicker::empty();
        game.generate_noisy(picker.moves_mut());
        picker.stage_moves(tt_move, self.context(ply));
        let mut best_move = None;
        while let Some(mv) = picker.next_move(&*game, &self.tables) {
            // Moves the game hints below the quiet limit lose material (SEE < 0 in chess):
            // they come last, and outside check they are not worth a node (the table's
            // move, handed out first whatever its hint, is asked again).
            if !in_check && picker.last_score() < QUIET_HINT_LIMIT {
                break;
            }
            let is_tt_move = tt_move == Some(G::encode_move(mv));
            if !in_check && is_tt_move && game.move_hint(mv) < QUIET_HINT_LIMIT {
                continue;
            }
            self.continuations[ply] = game.continuation_index(mv);
            self.make_prefetched(game, mv);
            let result = self.quiescence(game, ply + 1, -beta, -alpha);
            game.unmake_move(mv);
            let score = -result?;
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        Some((best, best_move))
    }

    /// Step 5 of [`Searcher::quiescence`] (and a standing pat's cut-off): stores `score`
    /// with its `bound` at depth 0, with the game's evaluation `raw_eval`.
    fn store_quiescence(
        &mut self,
        key: u64,
        ply: usize,
        score: Score,
        best_move: Option<G::Move>,
        bound: Bound,
        raw_eval: Option<Score>,
    ) {
        let result = TtEntry {
            move_code: best_move.map(G::encode_move),
            score,
            eval: raw_eval,
            depth: 0,
            bound,
        };
        self.links.tt.store(key, ply, result);
    }
}
