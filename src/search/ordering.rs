//! Move ordering: what each search thread learns about moves (killers, a counter-move
//! table, butterfly, continuation and capture histories) and the staged move picker that
//! hands a node's moves out best first. Ordering never changes a search value, only how
//! soon cut-offs come.
//!
//! The picker's stages: the hash move (nothing else is scored before it is searched), then
//! the forcing moves (the game's hints at or above [`QUIET_HINT_LIMIT`]: winning captures
//! in chess, by victim and capture history; Ataxx's captures by hint and the butterfly
//! history they share with quiet moves), then the rest scored at once: killers, the
//! counter move, quiet moves by their hint plus butterfly and continuation histories, and
//! last the noisy moves the game hints below the limit (losing captures) by hint and
//! capture history. A game without continuation or capture indices gets the plain
//! hint + history order.

use arrayvec::ArrayVec;

use super::game::{Game, MoveList, MAX_MOVES, QUIET_HINT_LIMIT};
use super::params::SearchParams;
pub use super::params::HISTORY_MAX;
use super::score::MAX_PLY;

const TT_MOVE_SCORE: i32 = i32::MAX;
const KILLER_SCORES: [i32; 2] = [QUIET_HINT_LIMIT - 1, QUIET_HINT_LIMIT - 2];
const COUNTER_SCORE: i32 = QUIET_HINT_LIMIT - 3;
/// Quiet moves stay below the killers and the counter move.
const QUIET_CEILING: i32 = QUIET_HINT_LIMIT - 4;
/// Capture history counts this many times less than the game's hint of a capture (a
/// full history is worth about two victim classes of chess's MVV hint).
const CAPTURE_HISTORY_DIVISOR: i32 = 8;

/// Where a node sits for the learnt tables: its ply (killers) and the continuation indices
/// of the moves one and two plies before it (`None`: no such move, a null move, or a game
/// without continuation indices).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeContext {
    /// Distance from the root.
    pub ply: usize,
    /// Continuation indices of the previous move and of the one before it.
    pub previous: [Option<usize>; 2],
}

/// Per-thread tables that learn which moves cut off: killers per ply, the move that
/// refuted each previous move (counter moves), and histories with gravity: butterfly
/// (side, from, to), continuation (the previous move's index by this move's, one and two
/// plies back) and capture (piece, target, victim).
pub struct OrderingTables<M> {
    killers: Vec<[Option<M>; 2]>,
    history: Vec<i32>,
    continuation_size: usize,
    continuation: [Vec<i16>; 2],
    counters: Vec<Option<M>>,
    captures: Vec<i16>,
}

impl<M: Copy + Eq> OrderingTables<M> {
    /// Empty tables for game `G` (sized by its index spaces; allocated once).
    pub fn for_game<G: Game<Move = M>>() -> OrderingTables<M> {
        OrderingTables::new(
            G::HISTORY_SIZE,
            G::CONTINUATION_SIZE,
            G::CAPTURE_HISTORY_SIZE,
        )
    }

    /// Empty tables for history, continuation and capture indices below the given sizes.
    pub fn new(
        history_size: usize,
        continuation_size: usize,
        capture_size: usize,
    ) -> OrderingTables<M> {
        let pairs = continuation_size * continuation_size;
        OrderingTables {
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; history_size],
            continuation_size,
            continuation: [vec![0; pairs], vec![0; pairs]],
            counters: vec![None; continuation_size],
            captures: vec![0; capture_size],
        }
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h = 0);
        for table in &mut self.continuation {
            table.iter_mut().for_each(|h| *h = 0);
        }
        self.counters.iter_mut().for_each(|c| *c = None);
        self.captures.iter_mut().for_each(|h| *h = 0);
    }

    /// Forgets the killers (new search); the butterfly history carries over, halved, the
    /// other tables as they are.
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

    /// Records `mv` as the refutation of the move with continuation index `previous`.
    pub fn set_counter(&mut self, previous: Option<usize>, mv: M) {
        if let Some(slot) = previous.and_then(|p| self.counters.get_mut(p)) {
            *slot = Some(mv);
        }
    }

    /// Rewards (`bonus > 0`) or punishes a quiet move's history entry, with gravity.
    pub fn update_history(&mut self, index: usize, bonus: i32) {
        if let Some(entry) = self.history.get_mut(index) {
            *entry = gravity(*entry, bonus);
        }
    }

    /// Rewards or punishes the quiet move of continuation index `index` in the
    /// continuation histories of the node's previous moves.
    pub fn update_continuation(&mut self, context: &NodeContext, index: Option<usize>, bonus: i32) {
        let Some(index) = index else {
            return;
        };
        for (table, previous) in self.continuation.iter_mut().zip(context.previous) {
            let slot = previous.map(|p| p * self.continuation_size + index);
            if let Some(entry) = slot.and_then(|s| table.get_mut(s)) {
                *entry = gravity(i32::from(*entry), bonus) as i16;
            }
        }
    }

    /// Rewards or punishes a noisy move's capture history entry.
    pub fn update_capture(&mut self, index: Option<usize>, bonus: i32) {
        if let Some(entry) = index.and_then(|i| self.captures.get_mut(i)) {
            *entry = gravity(i32::from(*entry), bonus) as i16;
        }
    }

    /// What the butterfly and continuation histories say of the quiet move `mv` at a node
    /// in `context` (the sum the picker orders quiet moves by, unbounded).
    pub fn quiet_history<G: Game<Move = M>>(&self, game: &G, mv: M, context: &NodeContext) -> i32 {
        self.history(game.history_index(mv))
            + self.continuation(context, game.continuation_index(mv))
    }

    fn killer_rank(&self, ply: usize, mv: M) -> Option<usize> {
        self.killers[ply].iter().position(|&k| k == Some(mv))
    }

    fn history(&self, index: usize) -> i32 {
        self.history.get(index).copied().unwrap_or(0)
    }

    fn continuation(&self, context: &NodeContext, index: Option<usize>) -> i32 {
        let Some(index) = index else {
            return 0;
        };
        let mut sum = 0;
        for (table, previous) in self.continuation.iter().zip(context.previous) {
            let slot = previous.map(|p| p * self.continuation_size + index);
            sum += slot.and_then(|s| table.get(s)).map_or(0, |&h| i32::from(h));
        }
        sum
    }

    fn capture(&self, index: Option<usize>) -> i32 {
        index
            .and_then(|i| self.captures.get(i))
            .map_or(0, |&h| i32::from(h))
    }

    fn counter(&self, context: &NodeContext) -> Option<M> {
        context.previous[0].and_then(|p| self.counters.get(p).copied().flatten())
    }

    /// The score of a forcing move (the game's hint at or above the limit), kept there.
    fn forcing_score<G: Game<Move = M>>(&self, game: &G, mv: M, hint: i32) -> i32 {
        if G::FORCING_HISTORY && !game.is_noisy(mv) {
            let history = self.history(game.history_index(mv));
            return hint.saturating_add(history).max(QUIET_HINT_LIMIT);
        }
        let history = self.capture(game.capture_history_index(mv)) / CAPTURE_HISTORY_DIVISOR;
        hint.saturating_add(history).max(QUIET_HINT_LIMIT)
    }

    /// The score of a move the game hints below the limit: a losing noisy move by hint and
    /// capture history; a killer, the counter move, or a quiet move by hint and histories.
    fn rest_score<G: Game<Move = M>>(
        &self,
        game: &G,
        mv: M,
        hint: i32,
        context: &NodeContext,
    ) -> i32 {
        if game.is_noisy(mv) {
            let history = self.capture(game.capture_history_index(mv));
            return hint.saturating_add(history / CAPTURE_HISTORY_DIVISOR);
        }
        if let Some(rank) = self.killer_rank(context.ply, mv) {
            return KILLER_SCORES[rank];
        }
        if self.counter(context) == Some(mv) {
            return COUNTER_SCORE;
        }
        let histories = self.quiet_history(game, mv, context);
        hint.saturating_add(histories).min(QUIET_CEILING)
    }
}

/// `entry` moved towards `±HISTORY_MAX` by `bonus`, the more slowly the closer it is.
fn gravity(entry: i32, bonus: i32) -> i32 {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    entry + bonus - entry * bonus.abs() / HISTORY_MAX
}

/// The history bonus for a cut-off at `depth` under the game's `params`
/// ([`SearchParams::history_bonus_linear`]).
pub fn history_bonus(depth: i32, params: &SearchParams) -> i32 {
    let depth = depth.max(0);
    let grown =
        params.history_bonus_linear * depth + params.history_bonus_quadratic * depth * depth;
    grown.min(params.history_bonus_max)
}

/// The stage a [`MovePicker`] is in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Stage {
    /// The hash move is next, if it is among the moves.
    TtMove,
    /// Nothing but the hash move is scored yet: score the forcing moves.
    ScoreForcing,
    /// Forcing moves are handed out; the rest hold their raw hints until scored.
    Forcing,
    /// Everything is scored.
    Rest,
}

/// Hands out the moves of one node best-first, by stages (see the module): a cut-off on
/// the hash move costs no scoring, one on a winning capture no history look-up. Within a
/// stage, selection (a cut-off on the first move costs one pass, not a sort).
pub struct MovePicker<M> {
    moves: MoveList<M>,
    scores: ArrayVec<i32, MAX_MOVES>,
    next: usize,
    stage: Stage,
    tt_move: Option<u16>,
    context: NodeContext,
}

impl<M: Copy + Eq> MovePicker<M> {
    /// A staged picker of `moves` for the node `context` of `game`, the hash move first.
    pub fn new(moves: MoveList<M>, tt_move: Option<u16>, context: NodeContext) -> MovePicker<M> {
        let mut picker = MovePicker::empty();
        picker.moves = moves;
        picker.stage_moves(tt_move, context);
        picker
    }

    /// A picker without moves, for a node's moves to be generated straight into it
    /// ([`MovePicker::moves_mut`]) and then ordered by one of the `stage_`/`order_`
    /// methods: the search's nodes never copy their move lists.
    pub fn empty() -> MovePicker<M> {
        MovePicker {
            moves: ArrayVec::new(),
            scores: ArrayVec::new(),
            next: 0,
            stage: Stage::Rest,
            tt_move: None,
            context: NodeContext::default(),
        }
    }

    /// The moves to hand out, to be filled before ordering.
    pub fn moves_mut(&mut self) -> &mut MoveList<M> {
        &mut self.moves
    }

    /// Orders the moves as [`MovePicker::new`] does: staged, the hash move first.
    pub fn stage_moves(&mut self, tt_move: Option<u16>, context: NodeContext) {
        self.scores.clear();
        self.next = 0;
        self.stage = Stage::TtMove;
        self.tt_move = tt_move;
        self.context = context;
    }

    /// Orders the moves as [`MovePicker::with_hints`] does.
    pub fn order_by_hints<G: Game<Move = M>>(&mut self, game: &G, tt_move: Option<u16>) {
        self.scores.clear();
        let scores = self.moves.iter().map(|&mv| {
            if tt_move == Some(G::encode_move(mv)) {
                TT_MOVE_SCORE
            } else {
                game.move_hint(mv)
            }
        });
        self.scores.extend(scores);
        self.next = 0;
        self.stage = Stage::Rest;
    }

    /// Orders the moves as [`MovePicker::in_order`] does: as generated.
    pub fn order_as_generated(&mut self) {
        self.scores.clear();
        self.scores.extend(self.moves.iter().map(|_| 0));
        self.next = 0;
        self.stage = Stage::Rest;
    }

    /// Orders `moves` by the hash move and the game's hints alone, without killers or
    /// histories: for games whose hints already rank quiet moves well (Connect Four's
    /// threat counts), where learnt tables only add noise.
    pub fn with_hints<G: Game<Move = M>>(
        game: &G,
        moves: MoveList<M>,
        tt_move: Option<u16>,
    ) -> MovePicker<M> {
        let mut picker = MovePicker::empty();
        picker.moves = moves;
        picker.order_by_hints(game, tt_move);
        picker
    }

    /// Hands `moves` out in the order given (no ordering: tree statistics' baseline).
    pub fn in_order(moves: MoveList<M>) -> MovePicker<M> {
        let mut picker = MovePicker::empty();
        picker.moves = moves;
        picker.order_as_generated();
        picker
    }

    /// The next best move of `game`'s node as `tables` rank it, or `None` when all were
    /// handed out.
    pub fn next_move<G: Game<Move = M>>(
        &mut self,
        game: &G,
        tables: &OrderingTables<M>,
    ) -> Option<M> {
        if self.next >= self.moves.len() {
            return None;
        }
        if self.stage == Stage::TtMove {
            self.stage = Stage::ScoreForcing;
            if let Some(mv) = self.pick_tt_move::<G>() {
                return Some(mv);
            }
        }
        if self.stage == Stage::ScoreForcing {
            self.score_forcing(game, tables);
        }
        let mut best = self.select();
        if self.stage == Stage::Forcing && self.scores[best] < QUIET_HINT_LIMIT {
            self.score_rest(game, tables);
            best = self.select();
        }
        Some(self.hand_out(best))
    }

    /// Stage 1: the hash move, moved to the front, if it is among the moves. Only its
    /// score is set: the others are scored by the next stage.
    fn pick_tt_move<G: Game<Move = M>>(&mut self) -> Option<M> {
        let code = self.tt_move?;
        let index = self
            .moves
            .iter()
            .position(|&mv| G::encode_move(mv) == code)?;
        self.moves.swap(0, index);
        self.scores.push(TT_MOVE_SCORE);
        self.next = 1;
        Some(self.moves[0])
    }

    /// Stage 2: the forcing moves get their scores, the rest their raw hints (below the
    /// limit, so they wait).
    fn score_forcing<G: Game<Move = M>>(&mut self, game: &G, tables: &OrderingTables<M>) {
        for i in self.scores.len()..self.moves.len() {
            let mv = self.moves[i];
            let hint = game.move_hint(mv);
            let score = if hint >= QUIET_HINT_LIMIT {
                tables.forcing_score(game, mv, hint)
            } else {
                hint
            };
            self.scores.push(score);
        }
        self.stage = Stage::Forcing;
    }

    /// Stage 3: the forcing moves are all out; the rest get their scores.
    fn score_rest<G: Game<Move = M>>(&mut self, game: &G, tables: &OrderingTables<M>) {
        for i in self.next..self.moves.len() {
            let hint = self.scores[i];
            self.scores[i] = tables.rest_score(game, self.moves[i], hint, &self.context);
        }
        self.stage = Stage::Rest;
    }

    /// The index of the best-scored move not handed out yet (the first of equals).
    fn select(&self) -> usize {
        let start = self.next;
        let (mut best, mut best_score) = (start, self.scores[start]);
        for (i, &score) in self.scores[start..].iter().enumerate().skip(1) {
            if score > best_score {
                (best, best_score) = (start + i, score);
            }
        }
        best
    }

    /// Hands out at once the moves not handed out yet that are not noisy and that the game
    /// knows give no check
    /// ([`SearchRefinements::gives_check`](super::SearchRefinements::gives_check)
    /// `Some(false)`), for a search that prunes every later quiet move (late move pruning's
    /// count is reached, or the node is futile): they count in
    /// [`MovePicker::handed_out`] as if each had been selected and skipped, and the node's
    /// last moves cost no selection each. Only in the last stage, where the unscored rest
    /// is known to be quiet; the moves left keep their scores (equals may change order).
    pub fn skip_quiets<G: Game<Move = M>>(&mut self, game: &G) {
        if self.stage != Stage::Rest {
            return;
        }
        for i in self.next..self.moves.len() {
            let mv = self.moves[i];
            if !game.is_noisy(mv) && game.gives_check(mv) == Some(false) {
                self.moves.swap(self.next, i);
                self.scores.swap(self.next, i);
                self.next += 1;
            }
        }
    }

    fn hand_out(&mut self, index: usize) -> M {
        let slot = self.next;
        self.moves.swap(slot, index);
        self.scores.swap(slot, index);
        self.next += 1;
        self.moves[slot]
    }

    /// The ordering score of the move last handed out.
    pub fn last_score(&self) -> i32 {
        self.scores[self.next.saturating_sub(1)]
    }

    /// Whether the move last handed out is the hash move (scored as nothing else).
    pub fn last_is_tt_move(&self) -> bool {
        self.last_score() == TT_MOVE_SCORE
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
        let mut tables = OrderingTables::<u8>::new(4, 2, 2);
        let context = NodeContext {
            ply: 0,
            previous: [Some(1), Some(0)],
        };
        for _ in 0..1000 {
            tables.update_history(1, history_bonus(40, &SearchParams::DEFAULT));
            tables.update_history(2, -history_bonus(40, &SearchParams::DEFAULT));
            tables.update_continuation(
                &context,
                Some(1),
                history_bonus(40, &SearchParams::DEFAULT),
            );
            tables.update_capture(Some(0), -history_bonus(40, &SearchParams::DEFAULT));
        }
        assert!(tables.history(1) <= HISTORY_MAX && tables.history(1) > 0);
        assert!(tables.history(2) >= -HISTORY_MAX && tables.history(2) < 0);
        let both = tables.continuation(&context, Some(1));
        assert!(both <= 2 * HISTORY_MAX && both > HISTORY_MAX);
        assert!(tables.capture(Some(0)) >= -HISTORY_MAX && tables.capture(Some(0)) < 0);
        tables.update_history(99, 5); // out of range: ignored, no panic
        tables.update_capture(Some(99), 5);
        tables.update_continuation(&context, Some(99), 5);
    }

    #[test]
    fn continuation_histories_and_counters_follow_the_previous_moves() {
        let mut tables = OrderingTables::<u8>::new(1, 3, 0);
        let after = |previous| NodeContext { ply: 1, previous };
        tables.update_continuation(&after([Some(2), None]), Some(1), 100);
        assert_eq!(tables.continuation(&after([Some(2), None]), Some(1)), 100);
        assert_eq!(tables.continuation(&after([Some(1), None]), Some(1)), 0);
        assert_eq!(tables.continuation(&after([None, Some(2)]), Some(1)), 0);
        assert_eq!(tables.continuation(&after([Some(2), Some(2)]), None), 0);
        tables.set_counter(Some(2), 7);
        tables.set_counter(None, 8);
        assert_eq!(tables.counter(&after([Some(2), None])), Some(7));
        assert_eq!(tables.counter(&after([None, Some(2)])), None);
        tables.clear();
        assert_eq!(tables.counter(&after([Some(2), None])), None);
        assert_eq!(tables.continuation(&after([Some(2), None]), Some(1)), 0);
    }

    /// Hands out the best move of `game`'s node, skips the quiet rest at once, then hands
    /// out what is left: (the node's moves, those skipped, those handed out after).
    fn after_first_with_skip<G: Game>(game: &G) -> (usize, usize, usize) {
        let tables = OrderingTables::for_game::<G>();
        let mut picker = MovePicker::empty();
        game.generate_search_moves(picker.moves_mut());
        let total = picker.moves.len();
        picker.stage_moves(None, NodeContext::default());
        assert!(picker.next_move(game, &tables).is_some());
        picker.skip_quiets(game);
        let skipped = picker.handed_out() - 1;
        let mut rest = 0;
        while picker.next_move(game, &tables).is_some() {
            rest += 1;
        }
        assert_eq!(picker.handed_out(), total);
        (total, skipped, rest)
    }

    #[test]
    fn skipping_quiets_hands_out_only_moves_known_to_give_no_check() {
        use crate::games::chess::Chess;
        use crate::games::gomoku::{Gomoku, GomokuVariant};
        use crate::search::Rules;
        // Gomoku knows a quiet move never gives check: all the rest goes at once.
        let mut gomoku = Gomoku::start(&GomokuVariant::FREESTYLE15);
        for text in ["h8", "g9", "j7"] {
            let mv = gomoku.parse_move(text).unwrap();
            gomoku.make_move(mv);
        }
        let (total, skipped, rest) = after_first_with_skip(&gomoku);
        assert!(total > 10);
        assert_eq!((skipped, rest), (total - 1, 0));
        // Chess does not know beforehand: nothing is skipped, every move is still handed out.
        let chess = Chess::start(&Default::default());
        assert_eq!(after_first_with_skip(&chess), (20, 0, 19));
    }

    #[test]
    fn forcing_history_orders_captures_within_their_hint_only() {
        use crate::games::ataxx::{Ataxx, AtaxxVariant};
        use crate::search::{Rules, SearchHooks};
        // x to move: d4 takes three, b4 and d2 one each (same hint), quiet moves after.
        let game = Ataxx::from_fen(&AtaxxVariant::default(), "7/7/7/2o1o2/2xo3/7/7 x 7 9").unwrap();
        let mv = |text: &str| game.parse_move(text).unwrap();
        assert_eq!(game.move_hint(mv("b4")), game.move_hint(mv("d2")));
        let order = |tables: &OrderingTables<_>| {
            let mut picker = MovePicker::empty();
            game.generate_search_moves(picker.moves_mut());
            picker.stage_moves(None, NodeContext::default());
            let first: Vec<_> = (0..3)
                .map(|_| picker.next_move(&game, tables).unwrap())
                .collect();
            first
        };
        let mut tables = OrderingTables::for_game::<Ataxx>();
        tables.update_history(game.history_index(mv("b4")), HISTORY_MAX);
        assert_eq!(order(&tables), [mv("d4"), mv("b4"), mv("d2")]);
        for _ in 0..100 {
            tables.update_history(game.history_index(mv("d2")), HISTORY_MAX);
            tables.update_history(game.history_index(mv("b4")), -HISTORY_MAX);
        }
        // Even a full history does not lift d2 above a capture of a higher hint.
        assert_eq!(order(&tables)[..2], [mv("d4"), mv("d2")]);
    }

    #[test]
    fn killers_shift() {
        let mut tables = OrderingTables::<u8>::new(1, 0, 0);
        tables.add_killer(3, 1);
        tables.add_killer(3, 1);
        tables.add_killer(3, 2);
        assert_eq!(tables.killer_rank(3, 2), Some(0));
        assert_eq!(tables.killer_rank(3, 1), Some(1));
        assert_eq!(tables.killer_rank(4, 1), None);
    }
}
