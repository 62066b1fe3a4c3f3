//! Connect Four's own exact solver, in the manner of Pascal Pons' and John Tromp's.
//!
//! Scores follow Pons' convention inside: `+k` when the side to move wins with its
//! `(22 - k)`-th stone, `-k` when the opponent wins with its `(22 - k)`-th, `0` for a draw;
//! the solver converts to the core's mate scores only at the root ([`score_of`]).
//!
//! The tricks, each a step of `Connect4Solver::negamax`:
//! - bitboards, and a position as three words copied per move (no unmake);
//! - the side to move never searches a position where it wins at once: that is caught one
//!   ply earlier (`can_win_next`), so the search only asks about the opponent's threats;
//! - non-losing moves: a playable opponent threat forces the reply (two of them lose), and
//!   a move under an opponent threat is never tried;
//! - score bounds from the stones left (mate distance pruning) narrow every window;
//! - null-window searches only, chosen by `Connect4Solver::solve_board` as a binary search
//!   biased towards 0 (first "win?", then "loss?");
//! - a transposition table of 8-byte entries keyed by the position's 49-bit key: the
//!   bucket is the key modulo a prime and only the low 32 bits are stored, which with the
//!   bucket number determines the key (Chinese remainder theorem), leaving room for both
//!   bounds, the size of the subtree (a replacement priority) and a generation number, so
//!   forgetting the table is a counter increment; mirror images share entries;
//! - a child already known (from the table) to refute the position cuts before any search;
//! - a node with a single move (most often a forced block) plays it at once, without
//!   the table: its child's entry holds the same value;
//! - moves ordered by the number of live winning cells they create (not right above an
//!   opponent's winning cell), then centre first;
//! - the children's table buckets prefetched before the moves are ordered, later in the
//!   game (the search waits on memory at each node's probe more than on anything else).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use super::{column_mask, playable_cells, threat_cells, Connect4, CELLS, COLUMN_BITS, WIDTH};
use crate::search::exact::{one_by_one, Interrupt};
use crate::search::score::{outcome_score, MATE};
use crate::search::tt::prefetch_line;
use crate::search::{ExactSearch, Rules, Score};

/// Columns in the order moves are tried when nothing else tells them apart: centre first.
const ORDER: [usize; WIDTH] = [3, 2, 4, 1, 5, 0, 6];
/// Number of cells, as a score.
const N: i32 = CELLS as i32;
/// Plies up to which a position and its mirror image share a table entry (few symmetric
/// positions remain later, and the mirror costs a dozen operations per node).
const MIRROR_PLIES: i32 = 20;
/// Plies up to which the children's table entries are looked at for a cut-off first.
const ETC_PLIES: i32 = 24;

/// A position as the solver sees it: the side to move's stones, all stones, stones played.
#[derive(Clone, Copy, Debug)]
struct Board {
    current: u64,
    mask: u64,
    moves: i32,
}

impl Board {
    /// The position of a game.
    fn of(game: &Connect4) -> Board {
        Board {
            current: game.current,
            mask: game.mask,
            moves: game.moves as i32,
        }
    }

    /// Whether the side to move wins by dropping a stone somewhere now.
    fn can_win_next(&self) -> bool {
        threat_cells(self.current, self.mask) & playable_cells(self.mask) != 0
    }

    /// The empty cells where the opponent would complete four in a row.
    fn opponent_threats(&self) -> u64 {
        threat_cells(self.current ^ self.mask, self.mask)
    }

    /// The cells the side to move can play without letting the opponent win next move
    /// (`threats`: [`Board::opponent_threats`]): the one forced block if there is one,
    /// never the cell under an opponent threat; 0 when every move loses.
    fn non_losing_moves(&self, threats: u64) -> u64 {
        let mut possible = playable_cells(self.mask);
        let forced = possible & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        possible & !(threats >> 1)
    }

    /// The position after the side to move drops a stone on `cell`.
    fn play(&self, cell: u64) -> Board {
        Board {
            current: self.current ^ self.mask,
            mask: self.mask | cell,
            moves: self.moves + 1,
        }
    }

    /// How many live winning cells the side to move owns after playing `cell`: not right
    /// above one of the opponent's (`threats`), which nobody fills first, so the cell above
    /// it is all but dead (9% fewer nodes than counting every winning cell).
    fn move_score(&self, cell: u64, threats: u64) -> u32 {
        let dead = (threats & !cell) << 1;
        (threat_cells(self.current | cell, self.mask | cell) & !dead).count_ones()
    }

    /// A unique key below 2^49: the stones of the side to move plus every stone (each
    /// column's sum stays within its seven bits).
    fn key(&self) -> u64 {
        self.current + self.mask
    }
}

/// The key of the mirror image: the columns' seven-bit groups in reverse order.
pub(super) fn mirror(key: u64) -> u64 {
    const GROUP: u64 = (1 << COLUMN_BITS) - 1;
    let mut result = key & (GROUP << (3 * COLUMN_BITS));
    for column in 0..3 {
        let far = 6 - 2 * column;
        let shift = far * COLUMN_BITS;
        result |= (key >> shift) & (GROUP << (column * COLUMN_BITS));
        result |= (key << shift) & (GROUP << ((6 - column) * COLUMN_BITS));
    }
    result
}

/// A score of the solver for a position with `moves` stones, in the core's scale (a win
/// `p` plies ahead is `MATE - p`).
pub fn score_of(score: i32, moves: u32) -> Score {
    let moves = moves as i32;
    if score > 0 {
        // The side to move wins with its own stone number 22 - score: k moves from now.
        let k = (N + 2) / 2 - score - moves / 2;
        MATE - (2 * k - 1)
    } else if score < 0 {
        let k = (N + 2) / 2 + score - (moves + 1) / 2;
        -MATE + 2 * k
    } else {
        0
    }
}

/// Bits of an entry: the key's low 32 bits, then the bounds, the work, the generation.
const KEY_MASK: u64 = 0xffff_ffff;
/// Where the lower bound (plus [`BOUND_OFFSET`]) sits.
const LOWER_SHIFT: u32 = 32;
/// Where the upper bound (plus [`BOUND_OFFSET`]) sits.
const UPPER_SHIFT: u32 = 38;
/// Where the work (log2 of the subtree's nodes) sits.
const WORK_SHIFT: u32 = 44;
/// Where the generation sits: the top bits.
const GENERATION_SHIFT: u32 = 50;
/// Stored bounds are `score + BOUND_OFFSET` in six bits.
const BOUND_OFFSET: i32 = 32;
/// Six-bit fields.
const FIELD: u64 = 0x3f;
/// The stored lower bound when nothing better is known.
const NO_LOWER: i32 = -BOUND_OFFSET;
/// The stored upper bound when nothing better is known.
const NO_UPPER: i32 = BOUND_OFFSET - 1;
/// Generations before the table must really be cleared.
const GENERATIONS: u64 = 1 << (64 - GENERATION_SHIFT);

/// The solver's transposition table: buckets of two 8-byte entries (one kept by subtree
/// size, one always replaced), a prime number of buckets. Lock-free: an entry is one
/// atomic word that carries its own key, so threads may share the table.
pub struct SolverTable {
    slots: Vec<AtomicU64>,
    /// Buckets in use: a prime, [`SolverTable::small`] or [`SolverTable::full`].
    buckets: AtomicU64,
    /// Buckets used after [`SolverTable::forget`]: few, so that a small search touches few
    /// memory pages (the time of a small search is mostly address translation misses).
    small: u64,
    /// Buckets used after [`SolverTable::grow`]: the whole table.
    full: u64,
    generation: AtomicU64,
}

/// The largest prime at most `n` (n >= 2).
fn prime_at_most(n: u64) -> u64 {
    let is_prime = |p: u64| p >= 2 && (2..).take_while(|d| d * d <= p).all(|d| p % d != 0);
    (2..=n).rev().find(|&p| is_prime(p)).unwrap_or(2)
}

/// Buckets of a table in its small phase (4 MiB).
const SMALL_BUCKETS: u64 = 1 << 18;
/// Nodes searched in a table's small phase before it grows to its full size.
const GROW_NODES: u64 = 1 << 18;

impl SolverTable {
    /// A table of about `mb` MiB (at least 4 MiB: more than 2^17 buckets, which the key
    /// recovery needs).
    pub fn new(mb: usize) -> SolverTable {
        let entries = (mb as u64 * (1 << 20) / 8).max(2 * SMALL_BUCKETS);
        let full = prime_at_most(entries / 2);
        let small = prime_at_most(SMALL_BUCKETS);
        SolverTable {
            slots: (0..2 * full).map(|_| AtomicU64::new(0)).collect(),
            buckets: AtomicU64::new(small),
            small,
            full,
            generation: AtomicU64::new(1),
        }
    }

    /// Forgets every entry: a new generation (a real clear when the numbers run out), and
    /// the small phase again.
    pub fn forget(&self) {
        self.next_generation();
        self.buckets.store(self.small, Ordering::Relaxed);
    }

    /// Moves to the whole table (forgetting what the small phase knew).
    pub fn grow(&self) {
        if self.buckets.load(Ordering::Relaxed) != self.full {
            self.next_generation();
            self.buckets.store(self.full, Ordering::Relaxed);
        }
    }

    /// Starts a new generation: every entry becomes stale.
    fn next_generation(&self) {
        let next = self.generation.load(Ordering::Relaxed) + 1;
        if next == GENERATIONS {
            for slot in &self.slots {
                slot.store(0, Ordering::Relaxed);
            }
            self.generation.store(1, Ordering::Relaxed);
        } else {
            self.generation.store(next, Ordering::Relaxed);
        }
    }

    /// The bucket's first slot and the part of the entry that must match for `key`.
    fn locate(&self, key: u64) -> (usize, u64) {
        let generation = self.generation.load(Ordering::Relaxed);
        let index = 2 * (key % self.buckets.load(Ordering::Relaxed)) as usize;
        (index, (key & KEY_MASK) | (generation << GENERATION_SHIFT))
    }

    /// Whether `entry` is `tag`'s (same key bits, current generation).
    fn matches(entry: u64, tag: u64) -> bool {
        const TAG_BITS: u64 = KEY_MASK | (u64::MAX << GENERATION_SHIFT);
        entry & TAG_BITS == tag
    }

    /// Starts loading `key`'s bucket into the cache (a hint: nothing where the target has
    /// no prefetch). A node's own probe is where the solver waits most (on memory), so a
    /// parent prefetches its children's buckets before it orders them.
    #[inline]
    fn prefetch(&self, key: u64) {
        let (index, _) = self.locate(key);
        prefetch_line(&self.slots[index]);
    }

    /// The bounds known for `key`, `(lower, upper)`; `None` when nothing is known.
    fn probe(&self, key: u64) -> Option<(i32, i32)> {
        let (index, tag) = self.locate(key);
        for slot in &self.slots[index..index + 2] {
            let entry = slot.load(Ordering::Relaxed);
            if Self::matches(entry, tag) {
                return Some(bounds_of(entry));
            }
        }
        None
    }

    /// Records `lower <= value <= upper` for `key`, merged with what the entry knew, after
    /// a search of `work` (log2 of its nodes).
    fn store(&self, key: u64, lower: i32, upper: i32, work: u64) {
        let (index, tag) = self.locate(key);
        let (first, second) = (&self.slots[index], &self.slots[index + 1]);
        let kept = first.load(Ordering::Relaxed);
        let other = second.load(Ordering::Relaxed);
        let (mut lower, mut upper, mut work) = (lower, upper, work);
        for entry in [kept, other] {
            if Self::matches(entry, tag) {
                let (old_lower, old_upper) = bounds_of(entry);
                lower = lower.max(old_lower);
                upper = upper.min(old_upper);
                work = work.max((entry >> WORK_SHIFT) & FIELD);
            }
        }
        let entry = tag
            | (((lower + BOUND_OFFSET) as u64) << LOWER_SHIFT)
            | (((upper + BOUND_OFFSET) as u64) << UPPER_SHIFT)
            | (work.min(FIELD) << WORK_SHIFT);
        let generation_tag = tag & (u64::MAX << GENERATION_SHIFT);
        let kept_is_live = kept & (u64::MAX << GENERATION_SHIFT) == generation_tag;
        if Self::matches(kept, tag) || !kept_is_live || work >= (kept >> WORK_SHIFT) & FIELD {
            // The kept slot takes the bigger subtree; what it held moves to the other slot.
            if kept_is_live && !Self::matches(kept, tag) {
                second.store(kept, Ordering::Relaxed);
            } else if Self::matches(other, tag) {
                second.store(0, Ordering::Relaxed);
            }
            first.store(entry, Ordering::Relaxed);
        } else {
            second.store(entry, Ordering::Relaxed);
        }
    }
}

/// The bounds of an entry.
fn bounds_of(entry: u64) -> (i32, i32) {
    let lower = ((entry >> LOWER_SHIFT) & FIELD) as i32 - BOUND_OFFSET;
    let upper = ((entry >> UPPER_SHIFT) & FIELD) as i32 - BOUND_OFFSET;
    (lower, upper)
}

/// Connect Four's exact solver: a table and a node count.
pub struct Connect4Solver {
    /// Threads for [`ExactSearch::values`] (the root moves), sharing the table.
    pub threads: usize,
    table: Arc<SolverTable>,
    /// Nodes since the table was last forgotten (it grows after [`GROW_NODES`]).
    fresh_nodes: u64,
    nodes: u64,
    limit: u64,
    aborted: bool,
    /// Asked every [`INTERRUPT_INTERVAL`] nodes whether to give up.
    interrupt: Option<Interrupt>,
    /// Nodes of the timed searches (every [`ExactSearch::value`]), for the speed.
    timed_nodes: u64,
    /// Time of the timed searches.
    timed: Duration,
}

/// Nodes to find the weak value of the empty board and a move that keeps it, by the
/// model of [`Connect4Solver::expected_time`].
const EXPECTED_NODES_AT_START: f64 = 1.5e9;
/// Factor of the expected nodes per stone on the board.
const EXPECTED_NODES_PER_PLY: f64 = 0.5;
/// Speed assumed before the solver has shown its own (a loaded machine's).
const ASSUMED_NODES_PER_SECOND: f64 = 3e6;
/// Nodes the solver must have timed before its speed is trusted.
const TIMED_NODES_TRUSTED: u64 = 1 << 20;

/// Nodes between two questions to the interrupt (a power of two).
const INTERRUPT_INTERVAL: u64 = 4096;

impl Connect4Solver {
    /// A solver with a table of about `hash_mb` MiB.
    pub fn new(hash_mb: usize) -> Connect4Solver {
        Connect4Solver::with_table(Arc::new(SolverTable::new(hash_mb)))
    }

    /// A solver on a table that other solvers (threads) may share.
    pub fn with_table(table: Arc<SolverTable>) -> Connect4Solver {
        Connect4Solver {
            threads: 1,
            table,
            fresh_nodes: 0,
            nodes: 0,
            limit: u64::MAX,
            aborted: false,
            interrupt: None,
            timed_nodes: 0,
            timed: Duration::ZERO,
        }
    }

    /// The table's key of a position: shared with the mirror image early in the game.
    fn table_key(&self, board: &Board) -> u64 {
        let key = board.key();
        if board.moves <= MIRROR_PLIES {
            key.min(mirror(key))
        } else {
            key
        }
    }

    /// The solver's score of `board` (whose side to move must not have won or lost yet),
    /// by null-window searches; `weak`: only its sign. `None` when the node limit is hit.
    fn solve_board(
        &mut self,
        board: Board,
        weak: bool,
        report: &mut dyn FnMut(i32, i32, u64),
    ) -> Option<i32> {
        if board.can_win_next() {
            return Some((N + 1 - board.moves) / 2);
        }
        let (mut min, mut max) = if weak {
            (-1, 1)
        } else {
            (-(N - board.moves) / 2, (N + 1 - board.moves) / 2)
        };
        while min < max {
            // Halve the interval, but ask near 0 first: the answers there cut most.
            let mut probe = min + (max - min) / 2;
            if probe <= 0 && min / 2 < probe {
                probe = min / 2;
            } else if probe >= 0 && max / 2 > probe {
                probe = max / 2;
            }
            let score = self.negamax(board, probe, probe + 1);
            if self.aborted {
                return None;
            }
            if score <= probe {
                max = score;
            } else {
                min = score;
            }
            report(min, max.max(min), self.nodes);
        }
        Some(min)
    }

    /// The value of `board` within `(alpha, beta)`, fail-hard on the window's edges: a
    /// result at or below `alpha` is an upper bound, at or above `beta` a lower bound.
    /// The side to move must not be able to win at once.
    fn negamax(&mut self, board: Board, alpha: i32, beta: i32) -> i32 {
        // Step 1. Count the node; stop when the budget is spent.
        if !self.count_node() {
            return alpha;
        }

        // Step 2. Moves that do not lose at once; none: the opponent wins next move.
        let threats = board.opponent_threats();
        let next = board.non_losing_moves(threats);
        if next == 0 {
            return -(N - board.moves) / 2;
        }
        // Two cells left and no win for anyone next move: a draw.
        if board.moves >= N - 2 {
            return 0;
        }

        // Step 2b. A single move (most often the block of a threat): the node's value is
        // its child's, which the child's own table entry keeps, so no probe or store here.
        // The memory access saved is worth more than the cut-offs this entry would give:
        // 4% more nodes, a fifth less time on the hard opening set.
        if next & (next - 1) == 0 {
            let (min, max) = score_range(board.moves);
            return match narrow(alpha, beta, min, max) {
                Ok((alpha, beta)) => -self.negamax(board.play(next), -beta, -alpha),
                Err(value) => value,
            };
        }

        // Steps 3 and 4. The window narrowed by the stones left and by the table.
        let key = self.table_key(&board);
        let (mut alpha, beta) = match self.narrowed(&board, key, alpha, beta) {
            Ok(window) => window,
            Err(value) => return value,
        };

        // Step 5. Early in the game, a child whose table entry already proves a cut-off
        // (enhanced transposition cut-off): 10% fewer nodes on the hard opening set.
        if board.moves < ETC_PLIES {
            if let Some(value) = self.child_cutoff(&board, next, key, beta) {
                return value;
            }
        }

        // Step 6. Order the moves: most live winning cells created first, then centre first.
        // Later in the game (no step 5 to load them), the children's table buckets are
        // prefetched first, so that their probes find them in the cache: a third less
        // time on the hard opening set (the node's own probe is where the solver waits).
        if board.moves >= ETC_PLIES {
            self.prefetch_children(&board, next);
        }
        let (cells, count) = ordered_moves(&board, next, threats);

        // Step 7. Search them; a cut-off stores a lower bound, otherwise an upper bound
        // (exact when some move landed inside the window).
        let started = self.nodes;
        let mut exact = None;
        for &cell in &cells[..count] {
            let score = -self.negamax(board.play(cell), -beta, -alpha);
            if self.aborted {
                return alpha;
            }
            if score >= beta {
                self.table
                    .store(key, score, NO_UPPER, work(self.nodes - started));
                return score;
            }
            if score > alpha {
                alpha = score;
                exact = Some(score);
            }
        }
        let lower = exact.unwrap_or(NO_LOWER);
        self.table
            .store(key, lower, alpha, work(self.nodes - started));
        alpha
    }

    /// Step 1 of [`Connect4Solver::negamax`]: counts a node (growing the table after
    /// [`GROW_NODES`] fresh ones); `false` when the budget is spent or the interrupt says
    /// to give up (the search is then aborted).
    fn count_node(&mut self) -> bool {
        self.nodes += 1;
        self.fresh_nodes += 1;
        if self.fresh_nodes == GROW_NODES {
            self.table.grow();
        }
        if self.nodes > self.limit {
            self.aborted = true;
            return false;
        }
        if self.nodes % INTERRUPT_INTERVAL == 0 && self.interrupt.as_ref().is_some_and(|i| i()) {
            self.aborted = true;
            return false;
        }
        true
    }

    /// Steps 3 and 4 of [`Connect4Solver::negamax`]: the window `(alpha, beta)` narrowed
    /// by the stones left (the opponent cannot win before its next stone, the side to move
    /// not before its stone after next) and then by the table's bounds for `key`; `Err`
    /// with the node's value when the window closes.
    fn narrowed(&self, board: &Board, key: u64, alpha: i32, beta: i32) -> Result<(i32, i32), i32> {
        let (min, max) = score_range(board.moves);
        let (alpha, beta) = narrow(alpha, beta, min, max)?;
        match self.table.probe(key) {
            Some((lower, upper)) => narrow(alpha, beta, lower, upper),
            None => Ok((alpha, beta)),
        }
    }

    /// Step 6 of [`Connect4Solver::negamax`]: prefetches the table buckets of the
    /// positions after each of `next`.
    fn prefetch_children(&self, board: &Board, next: u64) {
        let mut rest = next;
        while rest != 0 {
            let cell = rest & rest.wrapping_neg();
            rest ^= cell;
            self.table.prefetch(self.table_key(&board.play(cell)));
        }
    }

    /// Step 5 of [`Connect4Solver::negamax`]: the value of a cut-off that a child's table
    /// entry already proves (stored as the node's lower bound), if one does.
    fn child_cutoff(&self, board: &Board, next: u64, key: u64, beta: i32) -> Option<i32> {
        let mut rest = next;
        while rest != 0 {
            let cell = rest & rest.wrapping_neg();
            rest ^= cell;
            let child = board.play(cell);
            if child.can_win_next() {
                continue;
            }
            if let Some((_, upper)) = self.table.probe(self.table_key(&child)) {
                if -upper >= beta {
                    self.table.store(key, -upper, NO_UPPER, 0);
                    return Some(-upper);
                }
            }
        }
        None
    }
}

/// The scores a node of `moves` stones can have once neither side wins next move: the
/// opponent cannot win before its next stone, the side to move not before its stone after
/// next.
fn score_range(moves: i32) -> (i32, i32) {
    (-(N - 2 - moves) / 2, (N - 1 - moves) / 2)
}

/// The window `(alpha, beta)` narrowed to the bounds `lower..=upper`: `Err` with the
/// closing edge when it closes (alpha raised to beta or above: alpha; beta lowered to
/// alpha or below: beta).
fn narrow(mut alpha: i32, mut beta: i32, lower: i32, upper: i32) -> Result<(i32, i32), i32> {
    if alpha < lower {
        alpha = lower;
        if alpha >= beta {
            return Err(alpha);
        }
    }
    if beta > upper {
        beta = upper;
        if alpha >= beta {
            return Err(beta);
        }
    }
    Ok((alpha, beta))
}

/// Step 6 of [`Connect4Solver::negamax`]: the cells of `next` (one per column at most),
/// the most live winning cells created first ([`Board::move_score`], `threats` the
/// opponent's), ties centre first; and how many there are.
fn ordered_moves(board: &Board, next: u64, threats: u64) -> ([u64; WIDTH], usize) {
    let mut cells = [0u64; WIDTH];
    let mut scores = [0u32; WIDTH];
    let mut count = 0;
    for column in ORDER {
        let cell = next & column_mask(column);
        if cell == 0 {
            continue;
        }
        let score = board.move_score(cell, threats);
        let mut at = count;
        while at > 0 && scores[at - 1] < score {
            cells[at] = cells[at - 1];
            scores[at] = scores[at - 1];
            at -= 1;
        }
        cells[at] = cell;
        scores[at] = score;
        count += 1;
    }
    (cells, count)
}

/// A subtree's size as a replacement priority: log2 of its nodes.
fn work(nodes: u64) -> u64 {
    u64::from(64 - nodes.leading_zeros())
}

impl ExactSearch<Connect4> for Connect4Solver {
    fn value(
        &mut self,
        root: &Connect4,
        weak: bool,
        budget: Option<u64>,
        report: &mut dyn FnMut(Score, Score, u64),
    ) -> Option<Score> {
        if let Some(outcome) = root.outcome() {
            return Some(outcome_score(outcome, 0));
        }
        self.limit = budget.unwrap_or(u64::MAX);
        self.aborted = false;
        let board = Board::of(root);
        let moves = root.moves;
        let (started, nodes) = (Instant::now(), self.nodes);
        let score = self.solve_board(board, weak, &mut |lower, upper, nodes| {
            report(score_of(lower, moves), score_of(upper, moves), nodes);
        });
        self.timed_nodes += self.nodes - nodes;
        self.timed += started.elapsed();
        Some(score_of(score?, moves))
    }

    /// With several threads: the positions are shared out (largest work first: the middle
    /// of the list, the centre columns at the root), each thread on the one table, and a
    /// mirror image of a position already in the list is not searched again. The budget
    /// counts per thread.
    fn values(
        &mut self,
        positions: &[Connect4],
        weak: bool,
        budget: Option<u64>,
        report: &mut dyn FnMut(usize, Score, Score, u64),
    ) -> Vec<Option<Score>> {
        if self.threads <= 1 {
            return one_by_one(self, positions, weak, budget, report);
        }
        // Step 1. One search per shape, middle of the list first.
        let shapes: Vec<u64> = positions
            .iter()
            .map(|p| {
                let key = Board::of(p).key();
                key.min(mirror(key))
            })
            .collect();
        let mut order: Vec<usize> = (0..positions.len())
            .filter(|&i| !shapes[..i].contains(&shapes[i]))
            .collect();
        let middle = positions.len() as i64 - 1;
        order.sort_by_key(|&i| (2 * i as i64 - middle).abs());

        // Step 2. Threads take the next position until none is left; this thread relays
        // their progress and results.
        enum Event {
            Progress(usize, Score, Score, u64),
            Done(usize, Option<Score>, u64),
        }
        let next = AtomicUsize::new(0);
        let mut values = vec![None; positions.len()];
        let (sender, receiver) = mpsc::channel();
        std::thread::scope(|scope| {
            for _ in 0..self.threads {
                let sender = sender.clone();
                let (table, order, next) = (Arc::clone(&self.table), &order, &next);
                let interrupt = self.interrupt.clone();
                scope.spawn(move || {
                    let mut worker = Connect4Solver::with_table(table);
                    worker.interrupt = interrupt;
                    while let Some(&index) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let before = worker.nodes;
                        let mut report = |lower, upper, nodes| {
                            let _ = sender.send(Event::Progress(index, lower, upper, nodes));
                        };
                        let value = worker.value(&positions[index], weak, budget, &mut report);
                        let _ = sender.send(Event::Done(index, value, worker.nodes - before));
                    }
                });
            }
            drop(sender);
            for event in receiver {
                match event {
                    Event::Progress(index, lower, upper, nodes) => {
                        report(index, lower, upper, self.nodes + nodes);
                    }
                    Event::Done(index, value, nodes) => {
                        values[index] = value;
                        self.nodes += nodes;
                    }
                }
            }
        });

        // Step 3. Mirror images share the value of the one searched.
        for index in 0..positions.len() {
            if let Some(first) = shapes.iter().position(|&s| s == shapes[index]) {
                values[index] = values[first];
            }
        }
        values
    }

    fn forget(&mut self) {
        self.table.forget();
        self.fresh_nodes = 0;
    }

    fn set_interrupt(&mut self, interrupt: Option<Interrupt>) {
        self.interrupt = interrupt;
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }

    /// A model: the nodes fall by half per stone on the board from the empty board's
    /// (measured with a fresh table; the table learns from move to move, so later moves
    /// need fewer), at the speed of this solver's searches so far once it has done
    /// enough (the machine may be loaded), else an assumed slow speed.
    fn expected_time(&self, root: &Connect4) -> Option<Duration> {
        let nodes = EXPECTED_NODES_AT_START * EXPECTED_NODES_PER_PLY.powi(root.moves as i32);
        let speed = if self.timed_nodes >= TIMED_NODES_TRUSTED && !self.timed.is_zero() {
            self.timed_nodes as f64 / self.timed.as_secs_f64()
        } else {
            ASSUMED_NODES_PER_SECOND
        };
        Some(Duration::from_secs_f64(nodes / speed))
    }

    fn reset_nodes(&mut self) {
        self.nodes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix;
    use crate::search::minimax::minimax;
    use crate::search::MoveList;

    fn random_position(rng: &mut SplitMix, plies: u32) -> Option<Connect4> {
        let mut game = Connect4::start(&());
        for _ in 0..plies {
            let mut moves = MoveList::new();
            game.generate_moves(&mut moves);
            if moves.is_empty() {
                return None;
            }
            game.make_move(moves[rng.below(moves.len())]);
        }
        game.outcome().is_none().then_some(game)
    }

    #[test]
    fn mirror_reverses_columns() {
        let game = Connect4::from_moves("1123").expect("valid");
        let mirrored = Connect4::from_moves("7765").expect("valid");
        assert_eq!(mirror(Board::of(&game).key()), Board::of(&mirrored).key());
        assert_eq!(
            mirror(mirror(Board::of(&game).key())),
            Board::of(&game).key()
        );
        let centre = Connect4::from_moves("444").expect("valid");
        assert_eq!(mirror(Board::of(&centre).key()), Board::of(&centre).key());
    }

    #[test]
    fn prime_sizes() {
        assert_eq!(prime_at_most(10), 7);
        assert_eq!(prime_at_most(1 << 17), 131_071);
        assert!(SolverTable::new(1).small > 1 << 17);
    }

    #[test]
    fn table_keeps_both_bounds_and_forgets() {
        let table = SolverTable::new(16);
        let key = 12345;
        assert_eq!(table.probe(key), None);
        table.store(key, 2, NO_UPPER, 3);
        table.store(key, NO_LOWER, 5, 1);
        assert_eq!(table.probe(key), Some((2, 5)));
        // Same bucket, another key: no false hit.
        assert_eq!(table.probe(key + table.small), None);
        table.forget();
        assert_eq!(table.probe(key), None);
        table.store(key, 1, 1, 0);
        table.grow();
        assert_eq!(table.probe(key), None);
        assert!(table.buckets.load(Ordering::Relaxed) > SMALL_BUCKETS);
    }

    #[test]
    fn agrees_with_minimax_on_random_end_games() {
        let mut rng = SplitMix::new(2024);
        let mut solver = Connect4Solver::new(1);
        let mut checked = 0;
        while checked < 200 {
            let plies = 28 + (rng.next_u64() % 8) as u32;
            let Some(mut game) = random_position(&mut rng, plies) else {
                continue;
            };
            let expected = minimax(&mut game, 42 - plies);
            solver.forget();
            let value = solver.value(&game, false, None, &mut |_, _, _| {});
            assert_eq!(value, Some(expected), "{}", game.to_fen());
            let weak = solver.value(&game, true, None, &mut |_, _, _| {});
            assert_eq!(weak.map(i32::signum), Some(expected.signum()));
            checked += 1;
        }
    }

    #[test]
    fn threads_agree_with_one_thread_and_mirrors_share() {
        let mut rng = SplitMix::new(99);
        let mut positions = Vec::new();
        while positions.len() < 6 {
            if let Some(game) = random_position(&mut rng, 24) {
                positions.push(game);
            }
        }
        positions.push(Connect4::from_moves("4411223").expect("valid"));
        positions.push(Connect4::from_moves("4477665").expect("valid"));
        let mut one = Connect4Solver::new(4);
        let expected = one.values(&positions, false, None, &mut |_, _, _, _| {});
        let mut two = Connect4Solver::new(4);
        two.threads = 2;
        let mut reports = 0;
        let values = two.values(&positions, false, None, &mut |_, _, _, _| reports += 1);
        assert_eq!(values, expected);
        assert!(values.iter().all(Option::is_some));
        assert!(reports > 0 && two.nodes() > 0);
    }

    #[test]
    fn budget_runs_out() {
        let mut solver = Connect4Solver::new(1);
        let game = Connect4::start(&());
        assert_eq!(
            solver.value(&game, false, Some(1000), &mut |_, _, _| {}),
            None
        );
        assert!(solver.nodes() > 1000);
    }
}
