//! Quiescence: at the horizon, only noisy moves are searched (every evasion in check), so
//! that the static evaluation is only taken of quiet positions.

use super::super::game::{Game, MoveList, QUIET_HINT_LIMIT};
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
        self.pv[ply].clear();
        if !self.enter_node() {
            return None;
        }
        self.state.seldepth = self.state.seldepth.max(ply);
        if let Some(outcome) = game.outcome() {
            return Some(outcome_score(outcome, ply));
        }
        if game.is_search_draw() {
            return Some(DRAW);
        }
        if ply >= MAX_PLY - 1 {
            return Some(game.evaluate());
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
        let mut best = -MATE + ply as Score;
        let mut raw_eval = None;
        if !in_check {
            let eval = hit
                .and_then(|hit| hit.eval)
                .unwrap_or_else(|| game.evaluate());
            raw_eval = Some(eval);
            let corrected = self.corrected(game, eval);
            let stand_pat = hit.map_or(corrected, |hit| hit.refine(corrected));
            if stand_pat >= beta {
                if uses_table && hit.is_none() {
                    let result = TtEntry {
                        move_code: None,
                        score: stand_pat,
                        eval: raw_eval,
                        depth: 0,
                        bound: Bound::Lower,
                    };
                    self.links.tt.store(key, ply, result);
                }
                return Some(stand_pat);
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }

        // Step 4. The noisy moves, the table's move first.
        let mut moves = MoveList::new();
        game.generate_noisy(&mut moves);
        let tt_move = hit.and_then(|hit| hit.move_code);
        let mut picker = MovePicker::new(moves, tt_move, self.context(ply));
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
            game.make_move(mv);
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

        // Step 5. Store the result.
        if uses_table {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let result = TtEntry {
                move_code: best_move.map(G::encode_move),
                score: best,
                eval: raw_eval,
                depth: 0,
                bound,
            };
            self.links.tt.store(key, ply, result);
        }
        Some(best)
    }
}
