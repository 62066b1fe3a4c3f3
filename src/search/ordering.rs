//! Move ordering: the hash move first, then the game's forcing hints (captures, wins,
//! blocks), then killer moves, then quiet moves by history plus the game's quiet hint.
//! Ordering never changes a search value, only how soon cut-offs come.

use arrayvec::ArrayVec;

use super::game::{Game, MoveList, MAX_MOVES, QUIET_HINT_LIMIT};
use super::score::MAX_PLY;

/// Largest magnitude a history value reaches (gravity keeps it inside).
const HISTORY_MAX: i32 = 16_384;
const TT_MOVE_SCORE: i32 = i32::MAX;
const KILLER_SCORES: [i32; 2] = [QUIET_HINT_LIMIT - 1, QUIET_HINT_LIMIT - 2];
/// Quiet moves stay below the killers.
const QUIET_CEILING: i32 = QUIET_HINT_LIMIT - 3;

/// Per-thread tables that learn which moves cut off: killers per ply and a history table.
pub struct OrderingTables<M> {
    killers: Vec<[Option<M>; 2]>,
    history: Vec<i32>,
}

impl<M: Copy + Eq> OrderingTables<M> {
    /// Empty tables for a game whose history index stays below `history_size`.
    pub fn new(history_size: usize) -> OrderingTables<M> {
        OrderingTables {
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; history_size],
        }
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h = 0);
    }

    /// Forgets the killers only (new search; history carries over, aged).
    pub fn new_search(&mut self) {
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h /= 2);
    }

    /// Records a quiet move that caused a beta cut-off at `ply`.
    pub fn add_killer(&mut self, ply: usize, mv: M) {
        let slot = &mut self.killers[ply];
        if slot[0] != Some(mv) {
            slot[1] = slot[0];
            slot[0] = Some(mv);
        }
    }

    /// Rewards (`bonus > 0`) or punishes a quiet move's history entry, with gravity.
    pub fn update_history(&mut self, index: usize, bonus: i32) {
        if let Some(entry) = self.history.get_mut(index) {
            let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
            *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
        }
    }

    fn killer_rank(&self, ply: usize, mv: M) -> Option<usize> {
        self.killers[ply].iter().position(|&k| k == Some(mv))
    }

    fn history(&self, index: usize) -> i32 {
        self.history.get(index).copied().unwrap_or(0)
    }
}

/// The history bonus for a cut-off at `depth`.
pub fn history_bonus(depth: i32) -> i32 {
    (depth * depth * 16).min(HISTORY_MAX / 4)
}

/// Hands out the moves of one node best-first by selection (lazy: a cut-off on the first
/// move costs one pass, not a sort).
pub struct MovePicker<M> {
    moves: MoveList<M>,
    scores: ArrayVec<i32, MAX_MOVES>,
    next: usize,
}

impl<M: Copy + Eq> MovePicker<M> {
    /// Scores `moves` for the node at `ply` of `game`.
    pub fn new<G: Game<Move = M>>(
        game: &G,
        moves: MoveList<M>,
        tt_move: Option<u16>,
        tables: &OrderingTables<M>,
        ply: usize,
    ) -> MovePicker<M> {
        let mut scores = ArrayVec::new();
        for &mv in &moves {
            let score = if tt_move == Some(G::encode_move(mv)) {
                TT_MOVE_SCORE
            } else {
                let hint = game.move_hint(mv);
                if hint >= QUIET_HINT_LIMIT {
                    hint
                } else if let Some(rank) = tables.killer_rank(ply, mv) {
                    KILLER_SCORES[rank]
                } else {
                    hint.saturating_add(tables.history(game.history_index(mv)))
                        .min(QUIET_CEILING)
                }
            };
            scores.push(score);
        }
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Orders `moves` by the hash move and the game's hints alone, without killers or
    /// history: for games whose hints already rank quiet moves well (Connect Four's
    /// threat counts), where learnt tables only add noise.
    pub fn with_hints<G: Game<Move = M>>(
        game: &G,
        moves: MoveList<M>,
        tt_move: Option<u16>,
    ) -> MovePicker<M> {
        let scores = moves
            .iter()
            .map(|&mv| {
                if tt_move == Some(G::encode_move(mv)) {
                    TT_MOVE_SCORE
                } else {
                    game.move_hint(mv)
                }
            })
            .collect();
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Hands `moves` out in the order given (no ordering: tree statistics' baseline).
    pub fn in_order(moves: MoveList<M>) -> MovePicker<M> {
        let scores = moves.iter().map(|_| 0).collect();
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }

    /// The next best move, or `None` when all were handed out.
    pub fn next_move(&mut self) -> Option<M> {
        let start = self.next;
        if start >= self.moves.len() {
            return None;
        }
        let mut best = start;
        for i in start + 1..self.moves.len() {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(start, best);
        self.scores.swap(start, best);
        self.next += 1;
        Some(self.moves[start])
    }

    /// The ordering score of the move last handed out.
    pub fn last_score(&self) -> i32 {
        self.scores[self.next.saturating_sub(1)]
    }

    /// How many moves were handed out so far.
    pub fn handed_out(&self) -> usize {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_stays_bounded() {
        let mut tables = OrderingTables::<u8>::new(4);
        for _ in 0..1000 {
            tables.update_history(1, history_bonus(40));
            tables.update_history(2, -history_bonus(40));
        }
        assert!(tables.history(1) <= HISTORY_MAX && tables.history(1) > 0);
        assert!(tables.history(2) >= -HISTORY_MAX && tables.history(2) < 0);
        tables.update_history(99, 5); // out of range: ignored, no panic
    }

    #[test]
    fn killers_shift() {
        let mut tables = OrderingTables::<u8>::new(1);
        tables.add_killer(3, 1);
        tables.add_killer(3, 1);
        tables.add_killer(3, 2);
        assert_eq!(tables.killer_rank(3, 2), Some(0));
        assert_eq!(tables.killer_rank(3, 1), Some(1));
        assert_eq!(tables.killer_rank(4, 1), None);
    }
}
