//! One search thread: iterative deepening over a fail-soft principal variation search
//! (negamax alpha-beta), with aspiration windows, a shared transposition table, move
//! ordering, optional quiescence and the per-game pruning the [`Pruning`] hooks switch on.
//!
//! A [`Searcher`] never starts a thread: the [`ThreadPool`](super::threads::ThreadPool)
//! runs one per thread and wires it to the others (`ThreadLinks`: table, stop switch,
//! shared iterations, node counters). Apart from that wiring a searcher holds its
//! [`SearchSettings`] (set in one place, [`Searcher::configure`]), the state of the current
//! search (`SearchState`, reset when a search starts) and the ordering, PV and evaluation
//! tables kept from one search to the next.
//!
//! Games that switch no pruning on get exact minimax values at every depth: transposition
//! cut-offs then only use entries searched to the same depth (or both to the game's end).

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use parking_lot::Mutex;

use super::correction::CorrectionHistory;
use super::events::{SearchEvent, SearchInfo, SearchResult};
use super::exact::{from_child, ExactSearch};
use super::features::{SearchFeatures, SearchStats};
use super::game::{Game, MoveList, Pruning, MAX_MOVES, QUIET_HINT_LIMIT};
use super::limits::{deadlines, Deadlines, IterationProgress, Limits};
use super::ordering::{history_bonus, MovePicker, NodeContext, OrderingTables};
use super::pool::{CompletedIteration, SharedIterations};
use super::reductions::{LateMoveReductions, ReductionContext};
use super::score::{is_mate, outcome_score, Score, DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY};
use super::tt::{Bound, TranspositionTable, TtEntry};

/// How often (in nodes) the clock and the stop flag are read.
const CHECK_INTERVAL: u64 = 1024;
/// First depth searched with an aspiration window.
const ASPIRATION_MIN_DEPTH: u32 = 4;
/// Half-width of the first aspiration window.
const ASPIRATION_WINDOW: Score = 30;
/// Reverse futility pruning: deepest remaining depth it applies to.
const REVERSE_FUTILITY_DEPTH: i32 = 8;
/// Reverse futility pruning: margin per ply of remaining depth (centipawns).
const REVERSE_FUTILITY_MARGIN: Score = 75;
/// Futility pruning: deepest remaining depth it applies to.
const FUTILITY_DEPTH: i32 = 6;
/// Futility pruning: a quiet move is skipped when the static evaluation plus
/// `FUTILITY_BASE + FUTILITY_MARGIN * depth` cannot reach alpha.
const FUTILITY_BASE: Score = 100;
/// See [`FUTILITY_BASE`].
const FUTILITY_MARGIN: Score = 90;
/// Late move pruning: deepest remaining depth it applies to.
const LATE_MOVE_PRUNING_DEPTH: i32 = 8;
/// History pruning: deepest remaining depth it applies to.
const HISTORY_PRUNING_DEPTH: i32 = 3;
/// History pruning: a quiet move is skipped when its history is below
/// `-HISTORY_PRUNING_MARGIN * depth`.
const HISTORY_PRUNING_MARGIN: i32 = 2_048;
/// Static exchange pruning: deepest remaining depth it applies to.
const EXCHANGE_PRUNING_DEPTH: i32 = 8;
/// Static exchange pruning: a quiet move is skipped when it loses more than this per ply
/// of remaining depth.
const EXCHANGE_QUIET_MARGIN: i32 = 64;
/// Static exchange pruning: a noisy move is skipped when it loses more than this times the
/// square of the remaining depth.
const EXCHANGE_NOISY_MARGIN: i32 = 20;
/// Null move pruning: the reduction is `NULL_MOVE_BASE + depth / NULL_MOVE_DEPTH_DIVISOR`
/// plus one ply per `NULL_MOVE_EVAL_DIVISOR` of static evaluation above beta (at most
/// `NULL_MOVE_EVAL_PLIES`).
const NULL_MOVE_BASE: i32 = 3;
/// See [`NULL_MOVE_BASE`].
const NULL_MOVE_DEPTH_DIVISOR: i32 = 3;
/// See [`NULL_MOVE_BASE`].
const NULL_MOVE_EVAL_DIVISOR: Score = 200;
/// See [`NULL_MOVE_BASE`].
const NULL_MOVE_EVAL_PLIES: i32 = 3;
/// Null move pruning: from this depth a null-move cut-off is verified by a reduced search
/// without null moves for the side to move (guards against zugzwang).
const NULL_MOVE_VERIFICATION_DEPTH: i32 = 12;
/// Singular extensions: shallowest remaining depth they apply to.
const SINGULAR_DEPTH: i32 = 8;
/// Singular extensions: the table's entry may be this many plies shallower than the node.
const SINGULAR_ENTRY_SLACK: i32 = 3;
/// Singular extensions: the other moves must fail below the entry's score minus this
/// times the depth.
const SINGULAR_MARGIN: Score = 1;
/// Internal iterative reduction: shallowest remaining depth it applies to.
const IIR_DEPTH: i32 = 4;
/// Time the exact solver may take under `go infinite` before the normal search starts.
const INFINITE_EXACT_TIME: Duration = Duration::from_secs(5);

/// Whether a search under `limits` may be answered by the game's book or exact solver:
/// only a search bounded by the clock (`wtime`/`p1time`...), `movetime` or `infinite`, and
/// not by `depth`, `nodes` or `mate`, nor pondering. So `go depth N` stays the minimax
/// value at depth N, `go nodes N` stays reproducible, and bench is unchanged.
pub fn plays_exactly(limits: &Limits) -> bool {
    limits.depth.is_none()
        && limits.nodes.is_none()
        && limits.mate.is_none()
        && !limits.ponder
        && (limits.clock.is_some() || limits.movetime.is_some() || limits.infinite)
}

/// A root move chosen by exact values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactChoice<M> {
    /// The move.
    pub mv: M,
    /// Its value for the side to move: exact, or for a win of unknown distance the latest
    /// the win can come ([`win_bound`]).
    pub score: Score,
    /// Whether `score` is the exact distance (not only win, draw or loss).
    pub distance_known: bool,
}

/// The score of a win whose distance is not known: a win on the side to move's last
/// possible move (`mate N` with N its moves left), or just past the mate bound in a game
/// without an end in sight.
pub fn win_bound<G: Game>(root: &G) -> Score {
    match root.remaining_plies_bound() {
        Some(plies) if (plies as usize) < MAX_PLY => MATE - plies.max(1) as Score,
        _ => MATE_BOUND,
    }
}

/// The root move of the best exact value among `moves` (each must be legal in `root`), by
/// the exact `search`: the fastest win, else a draw, else the loss that comes latest.
///
/// Step 1 takes only win, draw or loss of every move (weak values, cheap); step 2 the
/// exact distances of the moves of the best class, when it is a win or a loss. Ties go to
/// the first such move in `moves`' order (the root order: the game's hints, so wins,
/// blocks, then threats and the centre). Returns `None` when the search gives up (its
/// interrupt or budget) before step 1 is done, or, for a loss, before step 2 is; a win
/// whose distance step 2 could not find is still returned, with
/// `distance_known: false`.
pub fn best_exact_move<G: Game>(
    search: &mut dyn ExactSearch<G>,
    root: &G,
    moves: &[G::Move],
) -> Option<ExactChoice<G::Move>> {
    // Step 1. The positions after each move; a move that ends the game in a win wins now.
    let children: Vec<G> = moves
        .iter()
        .map(|&mv| {
            let mut child = root.clone();
            child.make_move(mv);
            child
        })
        .collect();
    let ended = |child: &G| child.outcome().map(|o| from_child(outcome_score(o, 0)));
    if let Some(index) = children.iter().position(|c| ended(c) == Some(MATE - 1)) {
        return Some(ExactChoice {
            mv: moves[index],
            score: MATE - 1,
            distance_known: true,
        });
    }

    // Step 2. Win, draw or loss of every move (in the root's view: -1, 0, 1).
    let open: Vec<G> = children
        .iter()
        .filter(|c| c.outcome().is_none())
        .cloned()
        .collect();
    let mut weak = search
        .values(&open, true, None, &mut |_, _, _, _| {})
        .into_iter();
    let mut classes = Vec::with_capacity(children.len());
    for child in &children {
        classes.push(match ended(child) {
            Some(score) => score.signum(),
            None => -weak.next().flatten()?.signum(),
        });
    }
    let best_class = classes.iter().copied().max()?;
    let candidates: Vec<usize> = (0..moves.len())
        .filter(|&i| classes[i] == best_class)
        .collect();
    if best_class == 0 {
        return Some(ExactChoice {
            mv: moves[candidates[0]],
            score: DRAW,
            distance_known: true,
        });
    }

    // Step 3. The exact values of the best class: the fastest win, the latest loss.
    let open: Vec<G> = candidates
        .iter()
        .map(|&i| &children[i])
        .filter(|c| c.outcome().is_none())
        .cloned()
        .collect();
    let mut strong = search
        .values(&open, false, None, &mut |_, _, _, _| {})
        .into_iter();
    let mut best: Option<ExactChoice<G::Move>> = None;
    for &index in &candidates {
        let score = match ended(&children[index]) {
            Some(score) => Some(score),
            None => strong.next().flatten().map(from_child),
        };
        let Some(score) = score else {
            // Out of time: a win is still a win; a loss is left to the search.
            return (best_class > 0).then(|| ExactChoice {
                mv: moves[candidates[0]],
                score: win_bound(root),
                distance_known: false,
            });
        };
        if best.as_ref().map_or(true, |b| score > b.score) {
            best = Some(ExactChoice {
                mv: moves[index],
                score,
                distance_known: true,
            });
        }
    }
    best
}

/// Shared switches of a running search, set by the controller thread.
#[derive(Debug)]
pub struct SearchControl {
    stop: AtomicBool,
    pondering: AtomicBool,
    clock_origin: Mutex<Instant>,
}

impl Default for SearchControl {
    fn default() -> Self {
        SearchControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            clock_origin: Mutex::new(Instant::now()),
        }
    }
}

impl SearchControl {
    /// Fresh switches for a search whose clock starts at `origin` (when `go` arrived).
    pub fn new(origin: Instant, pondering: bool) -> SearchControl {
        SearchControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            clock_origin: Mutex::new(origin),
        }
    }

    /// Asks the search to stop as soon as possible.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The opponent played the expected move: the ponder search becomes a timed search
    /// whose clock starts now.
    pub fn ponderhit(&self) {
        *self.clock_origin.lock() = Instant::now();
        self.pondering.store(false, Ordering::Relaxed);
    }

    /// Whether the search still runs on the opponent's time.
    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }

    fn clock_elapsed(&self) -> Duration {
        self.clock_origin.lock().elapsed()
    }
}

/// Static settings of a searcher, given to it in one place: [`Searcher::configure`].
#[derive(Clone, Debug)]
pub struct SearchSettings {
    /// Time kept in reserve per move for communication delays.
    pub move_overhead: Duration,
    /// First depth of iterative deepening (Lazy SMP helpers start deeper to diverge).
    pub start_depth: u32,
    /// Number of best root moves to search and report per depth (MultiPV).
    pub multipv: usize,
    /// Which tree-shrinking parts of the search are on (all of them for play).
    pub features: SearchFeatures,
    /// Whether the game's book and exact solver may answer (Step 2b of `run`); off for
    /// Lazy SMP helpers, which only search.
    pub exact_answers: bool,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            move_overhead: Duration::from_millis(10),
            start_depth: 1,
            multipv: 1,
            features: SearchFeatures::ALL,
            exact_answers: true,
        }
    }
}

/// How a searcher is wired to the other threads of its search: the table they share, the
/// switches of the search, the iterations they share and the node counters they publish.
/// Set by the [`ThreadPool`](super::threads::ThreadPool) before each search.
struct ThreadLinks<M> {
    /// The transposition table, shared by every thread.
    tt: Arc<TranspositionTable>,
    /// Stop, ponder and clock origin of the running search.
    control: Arc<SearchControl>,
    /// Iterations shared with the other threads of a Lazy SMP search (`None`: alone).
    pool: Option<Arc<SharedIterations<M>>>,
    /// This thread's node count as the others see it (updated every few nodes).
    published: Arc<AtomicU64>,
    /// Node counters of the other threads, summed into reports.
    peers: Vec<Arc<AtomicU64>>,
}

/// The state of one search, reset when it starts.
struct SearchState<M> {
    /// Root moves, best first once searched.
    root_moves: MoveList<M>,
    /// Root moves before this index are excluded (found as better MultiPV lines).
    root_from: usize,
    /// The game's pruning switches at the root.
    pruning: Pruning,
    /// Nodes searched by this thread.
    nodes: u64,
    /// What the search did (cut-offs, leaves...).
    stats: SearchStats,
    /// Deepest ply reached in the current iteration.
    seldepth: usize,
    /// Exact node budget.
    node_limit: Option<u64>,
    /// When to stop thinking, if the search has a clock.
    deadlines: Option<Deadlines>,
    /// A limit or `stop` ended the search: unwind.
    aborted: bool,
    /// The depth of the iteration being searched.
    iteration_depth: u32,
    /// Another thread completed the iteration being searched: abandon it.
    overtaken: bool,
    /// When this search started (for reports).
    started: Instant,
    /// Depth of the iteration being searched (the root's depth), which bounds extensions.
    root_depth: u32,
    /// How the completed iterations went, which scales the soft deadline.
    progress: IterationProgress,
    /// Nodes spent below each root move in this search (by the move's code).
    root_move_nodes: ArrayVec<(u16, u64), MAX_MOVES>,
    /// Null moves are not tried before this ply (set while a null-move cut-off is being
    /// verified).
    null_move_min_ply: usize,
}

impl<M> SearchState<M> {
    fn new() -> SearchState<M> {
        SearchState {
            root_moves: MoveList::new(),
            root_from: 0,
            pruning: Pruning::default(),
            nodes: 0,
            stats: SearchStats::default(),
            seldepth: 0,
            node_limit: None,
            deadlines: None,
            aborted: false,
            iteration_depth: 0,
            overtaken: false,
            started: Instant::now(),
            root_depth: 0,
            progress: IterationProgress::default(),
            root_move_nodes: ArrayVec::new(),
            null_move_min_ply: 0,
        }
    }
}

/// What a node of [`Searcher::negamax`] is expected to be: on the principal variation, or
/// off it with a null window and expected to fail high (a cut node: the refutation is
/// searched first) or low (an all node: every move is searched). Only the PV kind changes
/// what the search may do in an exact game; the cut/all guess only steers pruning that
/// such games switch off.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum NodeKind {
    /// A principal variation node, searched with an open window.
    Pv,
    /// Expected to fail high.
    Cut,
    /// Expected to fail low.
    All,
}

impl NodeKind {
    /// The kind of the first child: a PV node's first child is on the PV; the first child
    /// of a cut node is expected to fail low (it refutes), that of an all node to fail high.
    fn first_child(self) -> NodeKind {
        match self {
            NodeKind::Pv => NodeKind::Pv,
            NodeKind::Cut => NodeKind::All,
            NodeKind::All => NodeKind::Cut,
        }
    }

    /// The kind of a later child searched at full depth with a null window: off a PV or an
    /// all node it is expected to fail high, off a cut node (whose first move failed to
    /// cut) low. Reduced searches of late moves are cut nodes.
    fn later_child(self) -> NodeKind {
        match self {
            NodeKind::Pv | NodeKind::All => NodeKind::Cut,
            NodeKind::Cut => NodeKind::All,
        }
    }
}

/// A node of [`Searcher::negamax`] past its first steps: remaining depth (check extension
/// and internal reduction included), ply, window (narrowed by mate distance pruning) and
/// kind.
#[derive(Copy, Clone, Debug)]
struct Node {
    depth: i32,
    ply: usize,
    alpha: Score,
    beta: Score,
    kind: NodeKind,
    in_check: bool,
    /// The move left out (a singular extension's search of the other moves).
    excluded: Option<u16>,
}

impl Node {
    fn pv_node(&self) -> bool {
        self.kind == NodeKind::Pv
    }
}

/// The static evaluation of a node (`None` in check, or where no pruning uses it): as the
/// game gives it (stored in the table), corrected by the correction history (compared for
/// `improving`, used by move futility), and refined by the table's score where its bound
/// allows (for node pruning decisions).
#[derive(Copy, Clone, Debug)]
struct StaticEval {
    raw: Option<Score>,
    corrected: Option<Score>,
    refined: Option<Score>,
    improving: bool,
}

/// One search thread: its settings, its links to the other threads, the state of the
/// current search, and the ordering, PV and evaluation tables reused across searches so
/// that nothing is allocated per node.
pub struct Searcher<G: Game> {
    settings: SearchSettings,
    links: ThreadLinks<G::Move>,
    state: SearchState<G::Move>,
    tables: OrderingTables<G::Move>,
    pv: Vec<ArrayVec<G::Move, MAX_PLY>>,
    /// Static evaluation per ply of the current line (`None` in check), for `improving`.
    static_evals: Vec<Option<Score>>,
    /// Continuation index of the move played at each ply of the current line (`None`: a
    /// null move, or a game without continuation indices).
    continuations: Vec<Option<usize>>,
    /// Base late move reductions by depth and move number.
    reductions: LateMoveReductions,
    /// Corrections of the static evaluation learnt from search results.
    correction: CorrectionHistory,
    /// The move each ply of the current line leaves out (singular extension searches).
    excluded: Vec<Option<u16>>,
}

impl<G: Game> Searcher<G> {
    /// A searcher with default settings that shares `tt`.
    pub fn new(tt: Arc<TranspositionTable>) -> Searcher<G> {
        Searcher {
            settings: SearchSettings::default(),
            links: ThreadLinks {
                tt,
                control: Arc::new(SearchControl::default()),
                pool: None,
                published: Arc::new(AtomicU64::new(0)),
                peers: Vec::new(),
            },
            state: SearchState::new(),
            tables: OrderingTables::for_game::<G>(),
            pv: (0..=MAX_PLY).map(|_| ArrayVec::new()).collect(),
            static_evals: vec![None; MAX_PLY + 1],
            continuations: vec![None; MAX_PLY + 1],
            reductions: LateMoveReductions::new(),
            correction: CorrectionHistory::new(),
            excluded: vec![None; MAX_PLY + 1],
        }
    }

    /// Sets the settings of the following searches: the one place they change.
    pub fn configure(&mut self, settings: SearchSettings) {
        self.settings = settings;
    }

    /// The settings of the following searches.
    pub fn settings(&self) -> &SearchSettings {
        &self.settings
    }

    /// Wires this searcher into a search: its switches, the iterations shared with the
    /// other threads (`None`: alone) and the other threads' node counters.
    pub(super) fn link(
        &mut self,
        control: Arc<SearchControl>,
        pool: Option<Arc<SharedIterations<G::Move>>>,
        peers: Vec<Arc<AtomicU64>>,
    ) {
        self.links.control = control;
        self.links.pool = pool;
        self.links.peers = peers;
    }

    /// This searcher's node count as other threads see it (updated every few nodes).
    pub(super) fn node_counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.links.published)
    }

    /// Nodes of this searcher plus its peers.
    fn total_nodes(&self) -> u64 {
        self.state.nodes
            + self
                .links
                .peers
                .iter()
                .map(|p| p.load(Ordering::Relaxed))
                .sum::<u64>()
    }

    /// Replaces the shared table (after a `Hash` resize, or a fresh table for a solver).
    pub fn set_table(&mut self, tt: Arc<TranspositionTable>) {
        self.links.tt = tt;
    }

    /// Forgets what was learnt about move ordering (new game).
    pub fn clear(&mut self) {
        self.tables.clear();
        self.correction.clear();
    }

    /// Searches `root` within `limits`, reporting each iteration and the final result to
    /// `report`. `searchmoves`, when not empty, restricts the root moves. The threads are
    /// the [`ThreadPool`](super::threads::ThreadPool)'s: it links the searcher first.
    ///
    /// `solver`, the game's own exact search if it has one, answers instead of the search
    /// when [`plays_exactly`] allows it (see [`Searcher::exact_answer`]).
    pub(super) fn run(
        &mut self,
        root: &G,
        limits: &Limits,
        searchmoves: &[G::Move],
        solver: Option<&mut dyn ExactSearch<G>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> SearchResult<G::Move> {
        // Step 1. Reset the per-search state.
        self.begin(root, limits);

        // Step 2. The root moves; without any the game is over and is answered at once.
        // A position drawn by a claimable rule (chess repetition, fifty moves) still gets
        // a move: the GUI may not have claimed the draw.
        self.collect_root_moves(root, searchmoves);
        if self.state.root_moves.is_empty() {
            return self.finish_without_moves(root, report);
        }

        // Step 2b. Under a clock, the game's book or its exact solver may answer outright.
        if self.settings.exact_answers && self.settings.multipv == 1 && plays_exactly(limits) {
            if let Some(result) = self.exact_answer(root, limits, solver, report) {
                return result;
            }
        }

        // Step 3. Iterative deepening. Threads of a pool share single-line iterations: a
        // thread overtaken by another adopts that thread's iteration and goes deeper.
        let lines = self.settings.multipv.clamp(1, self.state.root_moves.len());
        let pool = self.links.pool.clone().filter(|_| lines == 1);
        let completed = self.iterative_deepening(root, limits, lines, pool.as_deref(), report);

        // Step 4. Infinite and ponder searches wait for `stop` (or `ponderhit`).
        self.wait_while_pondering(limits);

        // Step 5. The best move of the deepest completed iteration (or the best guess).
        self.finish(completed, pool.as_deref(), report)
    }

    /// Step 2b of [`Searcher::run`]: a move of the game's book, or of the best exact value
    /// by the game's solver ([`best_exact_move`]) within half the move's hard deadline
    /// (5 s under `infinite`). Returns the result, reported like a completed iteration as
    /// deep as the game can last; `None` when neither answers in time, and then the soft
    /// deadline of the normal search starts again from now (within the hard one).
    fn exact_answer(
        &mut self,
        root: &G,
        limits: &Limits,
        solver: Option<&mut dyn ExactSearch<G>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> Option<SearchResult<G::Move>> {
        // The book: a winning move, whose distance it does not know.
        if let Some(mv) = root
            .book_move()
            .filter(|mv| self.state.root_moves.contains(mv))
        {
            let choice = ExactChoice {
                mv,
                score: win_bound(root),
                distance_known: false,
            };
            return Some(self.finish_exact(root, limits, &choice, 0, report));
        }
        let solver = solver?;
        let until = match self.state.deadlines {
            Some(deadlines) => deadlines.hard / 2,
            None => INFINITE_EXACT_TIME,
        };
        let control = Arc::clone(&self.links.control);
        solver.set_interrupt(Some(Arc::new(move || {
            control.is_stopped() || (!control.is_pondering() && control.clock_elapsed() >= until)
        })));
        solver.reset_nodes();
        let choice = best_exact_move(solver, root, &self.state.root_moves);
        solver.set_interrupt(None);
        let nodes = solver.nodes();
        match choice {
            Some(choice) => Some(self.finish_exact(root, limits, &choice, nodes, report)),
            None => {
                let spent = self.links.control.clock_elapsed();
                if let Some(deadlines) = self.state.deadlines.as_mut() {
                    deadlines.soft = (spent + deadlines.soft).min(deadlines.hard);
                }
                None
            }
        }
    }

    /// Reports an exact (or book) answer as an iteration as deep as the game can last,
    /// waits while `infinite`, and reports the result.
    fn finish_exact(
        &mut self,
        root: &G,
        limits: &Limits,
        choice: &ExactChoice<G::Move>,
        nodes: u64,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> SearchResult<G::Move> {
        let depth = root.remaining_plies_bound().unwrap_or(1).max(1);
        report(SearchEvent::Iteration(SearchInfo {
            depth,
            seldepth: depth,
            multipv: 1,
            score: choice.score,
            nodes,
            elapsed: self.state.started.elapsed(),
            hashfull: self.links.tt.hashfull(),
            pv: vec![choice.mv],
        }));
        self.wait_while_pondering(limits);
        let result = SearchResult {
            best: Some(choice.mv),
            ponder: None,
            score: choice.score,
            depth,
            nodes,
            elapsed: self.state.started.elapsed(),
        };
        report(SearchEvent::Finished(result.clone()));
        result
    }

    /// Step 1 of [`Searcher::run`]: resets the per-search state.
    fn begin(&mut self, root: &G, limits: &Limits) {
        let state = &mut self.state;
        state.started = Instant::now();
        state.nodes = 0;
        state.stats = SearchStats::default();
        self.links.published.store(0, Ordering::Relaxed);
        state.aborted = false;
        state.overtaken = false;
        state.node_limit = limits.nodes;
        state.progress = IterationProgress::default();
        state.root_move_nodes.clear();
        state.null_move_min_ply = 0;
        let moves_left = root.remaining_plies_bound().map(|plies| plies.div_ceil(2));
        state.deadlines = deadlines(limits, self.settings.move_overhead, moves_left);
        state.pruning = root.pruning();
        self.tables.new_search();
        self.links.tt.new_search();
    }

    /// Step 2 of [`Searcher::run`]: the legal root moves (those of `searchmoves` only, when
    /// it is not empty), ordered by the game's hints.
    fn collect_root_moves(&mut self, root: &G, searchmoves: &[G::Move]) {
        let root_moves = &mut self.state.root_moves;
        root_moves.clear();
        let mut all = MoveList::new();
        root.generate_moves(&mut all);
        for mv in all {
            if searchmoves.is_empty() || searchmoves.contains(&mv) {
                root_moves.push(mv);
            }
        }
        let by_hint = |mv: &G::Move| std::cmp::Reverse(root.move_hint(*mv));
        root_moves.sort_by_key(by_hint);
    }

    /// Step 3 of [`Searcher::run`]: iterative deepening from the settings' start depth to
    /// the limits' depth, `lines` best lines per depth. With a `pool`, an iteration
    /// another thread completes first is adopted, and depths the pool has completed are
    /// skipped. Returns the deepest iteration completed (or adopted), if any.
    fn iterative_deepening(
        &mut self,
        root: &G,
        limits: &Limits,
        lines: usize,
        pool: Option<&SharedIterations<G::Move>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> Option<CompletedIteration<G::Move>> {
        let mut game = root.clone();
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .clamp(1, MAX_PLY as u32 - 1);
        let mut completed = None;
        let mut previous_scores: Vec<Score> = Vec::new();
        let mut depth = self.settings.start_depth.clamp(1, max_depth);
        // Helpers that start deeper stay that much ahead of the pool's deepest iteration.
        let skew = depth - 1;
        while depth <= max_depth {
            self.state.seldepth = 0;
            self.state.iteration_depth = if pool.is_some() { depth } else { u32::MAX };
            self.state.root_depth = depth;
            let (iteration, adopted) =
                match self.search_lines(&mut game, depth, lines, &previous_scores) {
                    Some(results) => {
                        let (iteration, scores) =
                            self.complete_iteration(depth, results, pool, report);
                        previous_scores = scores;
                        (iteration, false)
                    }
                    None => {
                        // Another thread completed this depth (or a deeper one) first?
                        let Some(iteration) = self.adopt_overtaking(pool, report) else {
                            break;
                        };
                        previous_scores = vec![iteration.score];
                        (iteration, true)
                    }
                };
            let best = iteration.pv.first().map(|&mv| G::encode_move(mv));
            self.state.progress.record(best, iteration.score);
            let ends = self.iteration_ends_search(root, limits, iteration.depth, &previous_scores);
            depth = match pool {
                _ if adopted => iteration.depth + 1 + skew,
                // Go straight past depths another thread has completed meanwhile.
                Some(pool) => (depth + 1).max(pool.depth() + 1 + skew),
                None => depth + 1,
            };
            completed = Some(iteration);
            if ends {
                break;
            }
        }
        self.state.root_from = 0;
        completed
    }

    /// One depth of [`Searcher::iterative_deepening`]: searches the `lines` best root
    /// moves, each line without the moves of the better ones (MultiPV), each inside an
    /// aspiration window around its score of the previous depth. Returns the lines (score
    /// and PV) best first, with their moves at the front of the root moves in that order;
    /// `None` when the search was aborted or overtaken.
    fn search_lines(
        &mut self,
        game: &mut G,
        depth: u32,
        lines: usize,
        previous_scores: &[Score],
    ) -> Option<Vec<(Score, Vec<G::Move>)>> {
        let mut results: Vec<(Score, Vec<G::Move>)> = Vec::with_capacity(lines);
        for line in 0..lines {
            self.state.root_from = line;
            let previous = previous_scores.get(line).copied();
            let score = self.aspiration(game, depth, previous)?;
            let pv: Vec<G::Move> = self.pv[0].to_vec();
            let root_moves = &mut self.state.root_moves;
            if let Some(offset) = pv
                .first()
                .and_then(|best| root_moves[line..].iter().position(|m| m == best))
            {
                root_moves.swap(line, line + offset);
            }
            results.push((score, pv));
        }
        if lines > 1 {
            // Keep the lines (and their root moves) sorted best first.
            let mut order: Vec<usize> = (0..lines).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(results[i].0));
            let root_moves = &mut self.state.root_moves;
            let moves: Vec<G::Move> = order.iter().map(|&i| root_moves[i]).collect();
            root_moves[..lines].copy_from_slice(&moves);
            results = order.iter().map(|&i| results[i].clone()).collect();
        }
        Some(results)
    }

    /// Reports the lines of a completed depth and shares the best one with the pool.
    /// Returns the best line as the completed iteration, and the scores of every line.
    fn complete_iteration(
        &mut self,
        depth: u32,
        mut results: Vec<(Score, Vec<G::Move>)>,
        pool: Option<&SharedIterations<G::Move>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> (CompletedIteration<G::Move>, Vec<Score>) {
        for (index, (score, pv)) in results.iter().enumerate() {
            report(SearchEvent::Iteration(SearchInfo {
                depth,
                seldepth: self.state.seldepth as u32,
                multipv: index as u32 + 1,
                score: *score,
                nodes: self.total_nodes(),
                elapsed: self.state.started.elapsed(),
                hashfull: self.links.tt.hashfull(),
                pv: pv.clone(),
            }));
        }
        let scores = results.iter().map(|r| r.0).collect();
        let (score, pv) = results.swap_remove(0);
        let iteration = CompletedIteration {
            depth,
            seldepth: self.state.seldepth as u32,
            score,
            pv,
        };
        if let Some(pool) = pool {
            pool.publish(iteration.clone());
        }
        (iteration, scores)
    }

    /// After an unfinished depth: when the search was overtaken (not stopped), the pool's
    /// deepest iteration, adopted as this thread's own.
    fn adopt_overtaking(
        &mut self,
        pool: Option<&SharedIterations<G::Move>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> Option<CompletedIteration<G::Move>> {
        let iteration = match pool {
            Some(pool) if self.state.overtaken && !self.state.aborted => pool.deepest(),
            _ => None,
        }?;
        self.state.overtaken = false;
        self.adopt(&iteration, report);
        Some(iteration)
    }

    /// Step 4 of [`Searcher::run`]: an infinite or ponder search that ended by itself
    /// waits for `stop` (or, pondering, for `ponderhit`).
    fn wait_while_pondering(&self, limits: &Limits) {
        if limits.ends_by_itself() {
            return;
        }
        let control = &self.links.control;
        while !control.is_stopped() && (limits.infinite || control.is_pondering()) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Step 5 of [`Searcher::run`]: the result from the deepest iteration completed by
    /// any thread (or, without one, the best guess), reported as `Finished`.
    fn finish(
        &mut self,
        mut completed: Option<CompletedIteration<G::Move>>,
        pool: Option<&SharedIterations<G::Move>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> SearchResult<G::Move> {
        if let Some(deeper) = pool
            .and_then(|pool| pool.deepest())
            .filter(|d| completed.as_ref().map_or(true, |c| d.depth > c.depth))
        {
            self.adopt(&deeper, report);
            completed = Some(deeper);
        }
        let (depth, score, pv) = match completed {
            Some(c) => (c.depth, c.score, c.pv),
            None => {
                let guess = self.pv[0]
                    .first()
                    .copied()
                    .unwrap_or(self.state.root_moves[0]);
                (0, 0, vec![guess])
            }
        };
        self.links
            .published
            .store(self.state.nodes, Ordering::Relaxed);
        let result = SearchResult {
            best: pv.first().copied(),
            ponder: pv.get(1).copied(),
            score,
            depth,
            nodes: self.total_nodes(),
            elapsed: self.state.started.elapsed(),
        };
        report(SearchEvent::Finished(result.clone()));
        result
    }

    /// Nodes searched by this searcher in the current (or last) search.
    pub fn nodes(&self) -> u64 {
        self.state.nodes
    }

    /// What the searches since the last [`Searcher::reset_stats`] (or `run`) did.
    pub fn stats(&self) -> SearchStats {
        SearchStats {
            nodes: self.state.nodes,
            ..self.state.stats
        }
    }

    /// Zeroes the node count and the statistics; a node budget counts from here.
    pub fn reset_stats(&mut self) {
        self.state.nodes = 0;
        self.state.stats = SearchStats::default();
    }

    /// One search of `root` exactly `depth` plies deep inside the window `(alpha, beta)`,
    /// without iterative deepening, aspiration or clock: the building block of tree
    /// statistics and of the solver's null-window searches. Nodes and statistics add up
    /// across calls until [`Searcher::reset_stats`]; `None` when the node count would pass
    /// `node_limit`. The score is fail-soft: at or below `alpha` an upper bound, at or
    /// above `beta` a lower bound, exact in between.
    pub fn search_root(
        &mut self,
        root: &G,
        depth: u32,
        alpha: Score,
        beta: Score,
        node_limit: Option<u64>,
    ) -> Option<Score> {
        // Step 1. Per-search state: no clock, the given budget.
        self.state.node_limit = node_limit;
        self.state.deadlines = None;
        self.state.aborted = false;
        self.links.control = Arc::new(SearchControl::default());
        self.state.pruning = root.pruning();
        self.state.root_from = 0;
        self.links.tt.new_search();

        // Step 2. A finished game is its own value; otherwise the root moves, ordered by
        // the game's hints only when ordering is on.
        if let Some(outcome) = root.outcome() {
            if !self.enter_node() {
                return None;
            }
            self.state.stats.leaves += 1;
            return Some(outcome_score(outcome, 0));
        }
        self.state.root_moves.clear();
        root.generate_moves(&mut self.state.root_moves);
        if self.settings.features.ordering {
            let by_hint = |mv: &G::Move| std::cmp::Reverse(root.move_hint(*mv));
            self.state.root_moves.sort_by_key(by_hint);
        }

        // Step 3. The search itself.
        let mut game = root.clone();
        let depth = depth.min(MAX_PLY as u32 - 1);
        self.state.root_depth = depth;
        self.negamax(&mut game, depth as i32, 0, alpha, beta, NodeKind::Pv)
    }

    /// The best root move of the last [`Searcher::search_root`] whose score was inside its
    /// window, if any.
    pub fn root_best(&self) -> Option<G::Move> {
        self.pv[0].first().copied()
    }

    /// Takes `iteration`, completed by another thread, as this thread's own: its best move
    /// goes first at the root, and it is reported.
    fn adopt(
        &mut self,
        iteration: &CompletedIteration<G::Move>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) {
        if let Some(offset) = iteration
            .pv
            .first()
            .and_then(|best| self.state.root_moves.iter().position(|m| m == best))
        {
            self.state.root_moves.swap(0, offset);
        }
        report(SearchEvent::Iteration(SearchInfo {
            depth: iteration.depth,
            seldepth: iteration.seldepth,
            multipv: 1,
            score: iteration.score,
            nodes: self.total_nodes(),
            elapsed: self.state.started.elapsed(),
            hashfull: self.links.tt.hashfull(),
            pv: iteration.pv.clone(),
        }));
    }

    fn finish_without_moves(
        &mut self,
        root: &G,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> SearchResult<G::Move> {
        let score = match root.outcome() {
            Some(outcome) => outcome_score(outcome, 0),
            None if root.in_check() => -MATE,
            None => DRAW,
        };
        report(SearchEvent::Iteration(SearchInfo {
            depth: 0,
            seldepth: 0,
            multipv: 1,
            score,
            nodes: 0,
            elapsed: self.state.started.elapsed(),
            hashfull: self.links.tt.hashfull(),
            pv: Vec::new(),
        }));
        let result = SearchResult {
            best: None,
            ponder: None,
            score,
            depth: 0,
            nodes: 0,
            elapsed: self.state.started.elapsed(),
        };
        report(SearchEvent::Finished(result.clone()));
        result
    }

    /// Whether the search should end after completing `depth` with `score`.
    fn iteration_ends_search(
        &self,
        root: &G,
        limits: &Limits,
        depth: u32,
        scores: &[Score],
    ) -> bool {
        let score = scores[0];
        if let Some(mate) = limits.mate {
            if score >= MATE_BOUND && (MATE - score + 1) / 2 <= mate as Score {
                return true;
            }
        }
        if limits.infinite || self.links.control.is_pondering() {
            return false;
        }
        // A full-width search that reached every game end has the exact value; so has a
        // proven win or loss when nothing is pruned.
        let to_the_end = root.remaining_plies_bound().is_some_and(|r| depth >= r);
        if self.state.pruning.is_exact() && (to_the_end || scores.iter().all(|&s| is_mate(s))) {
            return true;
        }
        if let Some(deadlines) = self.state.deadlines {
            // The planned time, scaled by how settled the search looks.
            let best_share = self.best_move_node_share();
            let scale = self.state.progress.soft_scale(best_share);
            let soft = deadlines.soft.mul_f64(scale).min(deadlines.hard);
            if !self.links.control.is_pondering() && self.links.control.clock_elapsed() >= soft {
                return true;
            }
        }
        false
    }

    /// The share of this search's root nodes spent below the best move so far (`None`
    /// before any).
    fn best_move_node_share(&self) -> Option<f64> {
        let best = G::encode_move(*self.state.root_moves.first()?);
        let total: u64 = self.state.root_move_nodes.iter().map(|&(_, n)| n).sum();
        let on_best = self
            .state
            .root_move_nodes
            .iter()
            .find(|&&(code, _)| code == best)
            .map_or(0, |&(_, n)| n);
        (total > 0).then(|| on_best as f64 / total as f64)
    }

    /// Adds the nodes just spent below root move `mv` to its count.
    fn count_root_nodes(&mut self, mv: G::Move, nodes: u64) {
        let code = G::encode_move(mv);
        let counts = &mut self.state.root_move_nodes;
        match counts.iter_mut().find(|(c, _)| *c == code) {
            Some((_, n)) => *n += nodes,
            None => {
                let _ = counts.try_push((code, nodes));
            }
        }
    }

    /// Searches the root at `depth`, first inside a window around the previous score.
    fn aspiration(&mut self, game: &mut G, depth: u32, previous: Option<Score>) -> Option<Score> {
        let depth_i = depth as i32;
        let centre = match previous {
            Some(score) if depth >= ASPIRATION_MIN_DEPTH && !is_mate(score) => score,
            _ => return self.negamax(game, depth_i, 0, -INFINITY, INFINITY, NodeKind::Pv),
        };
        let mut delta = ASPIRATION_WINDOW;
        let mut alpha = (centre - delta).max(-INFINITY);
        let mut beta = (centre + delta).min(INFINITY);
        loop {
            let score = self.negamax(game, depth_i, 0, alpha, beta, NodeKind::Pv)?;
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
            } else {
                return Some(score);
            }
            if alpha <= -MATE_BOUND {
                alpha = -INFINITY;
            }
            if beta >= MATE_BOUND {
                beta = INFINITY;
            }
            delta = delta.saturating_mul(2);
        }
    }

    /// Counts a node and checks the limits; `false` means abort.
    fn enter_node(&mut self) -> bool {
        if self.state.aborted || self.state.overtaken {
            return false;
        }
        if self
            .state
            .node_limit
            .is_some_and(|limit| self.state.nodes >= limit)
        {
            self.state.aborted = true;
            return false;
        }
        self.state.nodes += 1;
        if self.state.nodes % CHECK_INTERVAL == 0 {
            self.links
                .published
                .store(self.state.nodes, Ordering::Relaxed);
            if self.links.control.is_stopped() {
                self.state.aborted = true;
                return false;
            }
            if self
                .links
                .pool
                .as_ref()
                .is_some_and(|pool| pool.depth() >= self.state.iteration_depth)
            {
                self.state.overtaken = true;
                return false;
            }
            if let Some(deadlines) = self.state.deadlines {
                if !self.links.control.is_pondering()
                    && self.links.control.clock_elapsed() >= deadlines.hard
                {
                    self.state.aborted = true;
                    return false;
                }
            }
        }
        true
    }

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
    fn negamax(
        &mut self,
        game: &mut G,
        depth: i32,
        ply: usize,
        alpha: Score,
        beta: Score,
        kind: NodeKind,
    ) -> Option<Score> {
        // Step 1. Count the node, check limits.
        self.pv[ply].clear();
        if !self.enter_node() {
            return None;
        }
        self.state.seldepth = self.state.seldepth.max(ply);

        // Step 2. Game end, rule draws, the ply ceiling, mate distance pruning.
        let (alpha, beta) = match self.terminal_or_window(game, ply, alpha, beta) {
            ControlFlow::Break(score) => return Some(score),
            ControlFlow::Continue(window) => window,
        };
        let in_check = game.in_check();
        let depth = depth + i32::from(in_check && self.state.pruning.check_extensions);

        // Step 3. At the horizon: static evaluation, or quiescence where the game has it.
        if depth <= 0 {
            return self.horizon(game, ply, alpha, beta);
        }
        let mut node = Node {
            depth,
            ply,
            alpha,
            beta,
            kind,
            in_check,
            excluded: self.excluded[ply],
        };

        // Step 4. Transposition table: maybe a cut-off, otherwise what the entry knows.
        let key = game.hash();
        let hit = match self.probe_table(game, key, &node) {
            ControlFlow::Break(score) => return Some(score),
            ControlFlow::Continue(hit) => hit,
        };
        let tt_move = hit.and_then(|hit| hit.move_code);

        // Step 5. Internal iterative reduction: a PV or cut node the table knows no move
        // for is searched a ply shallower (its ordering is a guess; the next iteration
        // finds it with a move).
        if self.state.pruning.internal_reductions
            && ply > 0
            && node.depth >= IIR_DEPTH
            && node.kind != NodeKind::All
            && tt_move.is_none()
        {
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
        let Some(mut picker) = self.move_picker(game, ply, tt_move) else {
            self.state.stats.leaves += 1;
            return Some(if in_check { -MATE + ply as Score } else { DRAW });
        };

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

        // Step 12. Store the result, and learn how wrong the static evaluation was.
        self.store(key, &node, best_score, best_move, eval.raw);
        self.correct_evaluation(game, &node, best_score, best_move, eval);
        Some(best_score)
    }

    /// Step 9 of [`Searcher::negamax`]: searches the moves other than the table's, reduced
    /// and with a null window just below the entry's score less a margin. `Continue(1)`:
    /// none reaches it, the table's move is singular and searched a ply deeper;
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
                && i32::from(hit.depth) >= node.depth - SINGULAR_ENTRY_SLACK
                && hit.score.abs() < MATE_BOUND
        }) else {
            return Some(ControlFlow::Continue(0));
        };
        let applies = self.state.pruning.singular_extensions
            && node.ply > 0
            && node.excluded.is_none()
            && node.depth >= SINGULAR_DEPTH
            && node.ply < 2 * self.state.root_depth as usize;
        if !applies {
            return Some(ControlFlow::Continue(0));
        }
        let singular_beta = hit.score - SINGULAR_MARGIN * node.depth;
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
        Some(if score < singular_beta {
            ControlFlow::Continue(1)
        } else if singular_beta >= node.beta {
            ControlFlow::Break(singular_beta)
        } else if hit.score >= node.beta {
            ControlFlow::Continue(-1)
        } else {
            ControlFlow::Continue(0)
        })
    }

    /// Step 12 of [`Searcher::negamax`]: moves the correction history of the position's
    /// class towards the search's score, where the score says more than the static
    /// evaluation (not after a noisy best move, nor when its bound points the same way as
    /// the evaluation).
    fn correct_evaluation(
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
            && best_score.abs() < MATE_BOUND
            && !best_move.is_some_and(|mv| game.is_noisy(mv))
            && !(best_score >= node.beta && best_score <= corrected)
            && !(best_score <= node.alpha && best_score >= corrected);
        if informative {
            self.correction.update(game, node.depth, best_score, raw);
        }
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
            return ControlFlow::Break(game.evaluate());
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
            Some(game.evaluate())
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

    /// Step 6 of [`Searcher::negamax`]: the static evaluation where pruning uses it (not in
    /// check), taken from the table entry `hit` when it has one, refined by the entry's
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
        let corrected = raw.map(|eval| self.corrected(game, eval));
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
    fn corrected(&self, game: &G, eval: Score) -> Score {
        if self.state.pruning.eval_correction {
            self.correction.corrected(game, eval)
        } else {
            eval
        }
    }

    /// Step 7 of [`Searcher::negamax`]: the (refined) static evaluation, when it is so far
    /// above beta that no quiet line is likely to bring the score back below it.
    fn reverse_futility(&self, node: &Node, static_eval: StaticEval) -> Option<Score> {
        let eval = static_eval.refined?;
        let margin = REVERSE_FUTILITY_MARGIN * (node.depth - Score::from(static_eval.improving));
        let prunes = self.state.pruning.reverse_futility
            && !node.pv_node()
            && node.excluded.is_none()
            && node.ply > 0
            && node.depth <= REVERSE_FUTILITY_DEPTH
            && node.beta.abs() < MATE_BOUND
            && eval - margin >= node.beta;
        prunes.then_some(eval)
    }

    /// Step 8 of [`Searcher::negamax`]: passes the move, where the game allows it, and
    /// searches the rest reduced with a null window at beta. `Some(Some(score))`: the
    /// position is good enough to cut; `Some(None)`: search it; `None`: aborted.
    fn null_move(
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
        let reduction = NULL_MOVE_BASE
            + node.depth / NULL_MOVE_DEPTH_DIVISOR
            + ((eval - beta) / NULL_MOVE_EVAL_DIVISOR).min(NULL_MOVE_EVAL_PLIES);
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
        if node.depth < NULL_MOVE_VERIFICATION_DEPTH || self.state.null_move_min_ply > 0 {
            return Some(Some(score));
        }
        // Deep: verify with a reduced search in which this side may not pass for a while.
        self.state.null_move_min_ply = node.ply + (3 * reduced.max(0) / 4) as usize;
        let verified = self.negamax(game, reduced, node.ply, beta - 1, beta, NodeKind::Cut);
        self.state.null_move_min_ply = 0;
        Some((verified? >= beta).then_some(score))
    }

    /// Step 9 of [`Searcher::negamax`]: the moves (at the root, those not yet taken by a
    /// better MultiPV line), handed out best first as far as ordering is on; `None` when
    /// there is none.
    fn move_picker(
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
    fn search_moves(
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

    /// Step 11 of [`Searcher::negamax`]: stores the node's result in the table, bounded by
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

    /// Static exchange pruning in [`Searcher::search_moves`]: whether `mv` (not yet made)
    /// loses so much material near the horizon that it is not worth searching. Never the
    /// first move of a node, and never at the root.
    fn loses_exchange(&self, game: &G, node: &Node, mv: G::Move, quiet: bool, noisy: bool) -> bool {
        if !self.state.pruning.exchange_pruning
            || node.ply == 0
            || node.depth > EXCHANGE_PRUNING_DEPTH
            || !(quiet || noisy)
        {
            return false;
        }
        let threshold = if quiet {
            -EXCHANGE_QUIET_MARGIN * node.depth
        } else {
            -EXCHANGE_NOISY_MARGIN * node.depth * node.depth
        };
        !game.exchange_at_least(mv, threshold)
    }

    /// The late move reduction of a move just made at `node` (0: searched at full depth):
    /// only for quiet moves after the first (after the second on the principal
    /// variation), outside check, from depth 3; see [`LateMoveReductions::plies`].
    fn reduction(
        &self,
        game: &G,
        node: &Node,
        move_number: usize,
        quiet: bool,
        history: i32,
        static_eval: StaticEval,
    ) -> i32 {
        let first_reduced = if node.pv_node() { 3 } else { 2 };
        let reduces = self.state.pruning.late_move_reductions
            && self.settings.features.alpha_beta
            && self.settings.features.pvs
            && quiet
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

    /// Quiescence: stand pat on the static evaluation, then try noisy moves only. The
    /// table is probed and written as in the main search, at depth 0: any entry may cut,
    /// a stored evaluation saves evaluating, and a bound refines the standing pat.
    fn quiescence(
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
                .unwrap_or_else(|| game.evaluate_mut());
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

    fn update_pv(&mut self, ply: usize, mv: G::Move) {
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
    fn context(&self, ply: usize) -> NodeContext {
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
    /// counter move of the previous move, and gains butterfly and continuation history
    /// that the quiet moves tried before it lose; a noisy move gains capture history. The
    /// noisy moves tried before it lose capture history either way.
    fn reward_cutoff(
        &mut self,
        game: &G,
        node: &Node,
        mv: G::Move,
        quiet: bool,
        quiets_tried: &[G::Move],
        noisy_tried: &[G::Move],
    ) {
        let bonus = history_bonus(node.depth);
        let context = self.context(node.ply);
        let tables = &mut self.tables;
        if quiet {
            tables.add_killer(node.ply, mv);
            tables.set_counter(context.previous[0], mv);
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
}
