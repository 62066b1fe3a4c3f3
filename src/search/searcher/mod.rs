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
//!
//! The files, by concern (the tuning constants are in [`super::params`], the exact answer
//! in [`super::exact`]):
//! - `root`: the root driver, `run` (Steps 1 to 5), iterative deepening and the reports;
//! - `aspiration`: the aspiration window around the previous score;
//! - `time`: when to stop deepening (the clock, the best move's stability);
//! - `node`: the node search, `negamax`, and its steps before the moves;
//! - `pruning`: reverse futility, null move, exchange pruning and late move reductions;
//! - `moves`: the moves of a node, searched with PVS (futility, late move and history
//!   pruning);
//! - `quiescence`: the search of noisy moves at the horizon;
//! - `history`: what the search learns: PV, killers, histories, evaluation corrections.

mod aspiration;
mod history;
mod moves;
mod node;
mod pruning;
mod quiescence;
mod root;
mod time;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use parking_lot::Mutex;

use super::correction::CorrectionHistory;
use super::features::{SearchFeatures, SearchStats};
use super::game::{Game, MoveList, Outcome, Pruning, MAX_MOVES};
use super::limits::{Deadlines, IterationProgress};
use super::ordering::OrderingTables;
use super::params::SearchParams;
use super::pool::SharedIterations;
use super::reductions::LateMoveReductions;
use super::score::{outcome_score, Score, MAX_PLY};
use super::skill::{misjudged, Skill};
use super::tt::TranspositionTable;

/// Shared switches of a running search, set by the controller thread.
#[derive(Debug)]
pub struct SearchControl {
    stop: AtomicBool,
    pondering: AtomicBool,
    clock_origin: Mutex<Instant>,
    /// Endgame table probes that answered, summed over the search's threads.
    tb_hits: AtomicU64,
}

impl Default for SearchControl {
    fn default() -> Self {
        SearchControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            clock_origin: Mutex::new(Instant::now()),
            tb_hits: AtomicU64::new(0),
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
            tb_hits: AtomicU64::new(0),
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

    /// Counts `hits` endgame table probes that answered (one atomic add per hit: probes
    /// are rare next to nodes, and only games with tables make them).
    pub(in crate::search) fn add_tb_hits(&self, hits: u64) {
        self.tb_hits.fetch_add(hits, Ordering::Relaxed);
    }

    /// Endgame table probes that answered so far in this search, every thread's.
    pub fn tb_hits(&self) -> u64 {
        self.tb_hits.load(Ordering::Relaxed)
    }

    /// Time since the search's clock started.
    pub(in crate::search) fn clock_elapsed(&self) -> Duration {
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
    /// The playing strength (full by default: the search unchanged).
    pub skill: Skill,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            move_overhead: Duration::from_millis(10),
            start_depth: 1,
            multipv: 1,
            features: SearchFeatures::ALL,
            skill: Skill::FULL,
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
    /// The playing level's node budget: no iteration after depth 1 may pass it.
    skill_nodes: Option<u64>,
    /// The playing level's largest misjudgement of an evaluation (0: none).
    misjudgement: Score,
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
    /// The result the game's endgame tables give the root, when they ranked its moves
    /// (the nodes below then ask no tables: the root's moves keep the result).
    tablebase_root: Option<Outcome>,
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
            skill_nodes: None,
            misjudgement: 0,
            deadlines: None,
            aborted: false,
            iteration_depth: 0,
            overtaken: false,
            started: Instant::now(),
            root_depth: 0,
            progress: IterationProgress::default(),
            root_move_nodes: ArrayVec::new(),
            null_move_min_ply: 0,
            tablebase_root: None,
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
    /// The search constants a tuning build's options set (`Searcher::set_params`); other
    /// builds search with the game's own, `G::SEARCH_PARAMS`.
    #[cfg(feature = "tune")]
    params: SearchParams,
}

impl<G: Game> Searcher<G> {
    /// A searcher with default settings that shares `tt`.
    pub fn new(tt: Arc<TranspositionTable>) -> Searcher<G> {
        // Every game's constants are checked whenever a test builds a searcher for it.
        let game = std::any::type_name::<G>();
        debug_assert_eq!(G::SEARCH_PARAMS.problem(), None, "constants of {game}");
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
            reductions: LateMoveReductions::new(&G::SEARCH_PARAMS),
            correction: CorrectionHistory::new(),
            excluded: vec![None; MAX_PLY + 1],
            #[cfg(feature = "tune")]
            params: G::SEARCH_PARAMS,
        }
    }

    /// The constants of the following searches: the game's own (`G::SEARCH_PARAMS`),
    /// unless a tuning build (cargo feature `tune`) set others with `Searcher::set_params`.
    /// Other builds read the game's constants directly, so nothing of theirs changes.
    #[inline(always)]
    fn params(&self) -> &SearchParams {
        #[cfg(feature = "tune")]
        return &self.params;
        #[cfg(not(feature = "tune"))]
        &G::SEARCH_PARAMS
    }

    /// Tuning build only: sets the constants of the following searches (checked by the
    /// caller with [`SearchParams::problem`]).
    #[cfg(feature = "tune")]
    pub fn set_params(&mut self, params: SearchParams) {
        if params != self.params {
            self.params = params;
            self.reductions = LateMoveReductions::new(&params);
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
        // Step 1. Per-search state: no clock, the given budget, full strength.
        self.state.node_limit = node_limit;
        self.state.skill_nodes = None;
        self.state.misjudgement = 0;
        self.state.deadlines = None;
        self.state.aborted = false;
        self.links.control = Arc::new(SearchControl::default());
        self.state.pruning = self.settings.features.pruning_of(root);
        self.state.root_from = 0;
        self.state.tablebase_root = None;
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
        root.generate_search_moves(&mut self.state.root_moves);
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

    /// Makes `mv`, fetching the child's table bucket as early as the game allows: before
    /// the move where
    /// [`SearchRefinements::hash_after`](super::game::SearchRefinements::hash_after) knows
    /// the key, else right after it.
    fn make_prefetched(&self, game: &mut G, mv: G::Move) {
        let early_key = game.hash_after(mv);
        if let Some(key) = early_key {
            self.links.tt.prefetch(key);
        }
        game.make_move(mv);
        if early_key.is_none() {
            self.links.tt.prefetch(game.hash());
        }
    }

    /// The game's evaluation of `game` as the search sees it: `raw` (the game's, or the
    /// table's copy of it), misjudged at a playing level below full strength.
    #[inline(always)]
    fn judged(&self, game: &G, raw: Score) -> Score {
        if self.state.misjudgement == 0 {
            return raw;
        }
        let seed = self.settings.skill.seed();
        misjudged(raw, game.hash(), seed, self.state.misjudgement)
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
        if self.state.nodes % G::CHECK_INTERVAL == 0 {
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
}
