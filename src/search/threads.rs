//! The search's threads: [`ThreadPool`] is the facade every caller searches through (the
//! protocol session, bench, datagen, the tests). It owns the [`Searcher`]s of the main
//! thread and the helpers and the transposition table they share, and it is where search
//! threads start:
//!
//! - [`ThreadPool::start`] spawns the main search thread and returns at once; the search
//!   reports through an event sink and is ended by [`ThreadPool::stop`] (or ends by itself,
//!   see [`ThreadPool::wait`]).
//! - [`ThreadPool::search`] runs the main search on the calling thread and returns its
//!   result: for tools that just want a move.
//! - Either way the main search spreads over the helpers with Lazy SMP
//!   (`search_all_threads`): scoped helper threads search the same root into the shared
//!   table until the main search ends.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use thiserror::Error;

use super::events::{SearchEvent, SearchResult};
use super::exact::{ExactPlay, ExactSearch};
use super::features::SearchFeatures;
use super::game::Game;
use super::limits::Limits;
use super::pool::SharedIterations;
use super::searcher::{SearchControl, SearchSettings, Searcher};
use super::skill::Skill;
use super::tt::TranspositionTable;

/// Stack size of search threads: the recursion keeps move lists on the stack.
pub const SEARCH_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Why a search did not start.
#[derive(Debug, Error)]
pub enum StartError {
    /// A search is running and has not sent its result yet.
    #[error("a search is already running: send 'stop' first")]
    AlreadySearching,
    /// The operating system refused a thread.
    #[error("cannot start the search thread: {0}")]
    Spawn(#[from] std::io::Error),
}

/// A transposition table of the requested size could not be allocated; the pool keeps a
/// table of the previous size.
#[derive(Debug, Error)]
#[error("cannot allocate {requested} MiB for Hash; keeping {kept} MiB")]
pub struct HashError {
    /// The size asked for, in MiB.
    pub requested: usize,
    /// The size of the table kept, in MiB.
    pub kept: usize,
}

/// The searchers of all threads: the main one reports, the helpers share its table; and
/// the game's own exact solver, if it has one, made at the first search that may use it
/// (see [`ExactPlay::decide`]) and kept for the game (its table learns from move to move).
struct Searchers<G: Game> {
    main: Searcher<G>,
    helpers: Vec<Searcher<G>>,
    solver: ExactSolver<G>,
}

/// The game's exact solver for `go`: not made yet, made, or the game has none.
enum ExactSolver<G: Game> {
    /// Not asked for yet: made with a table of this many MiB when first needed.
    Later(usize),
    /// The game's solver.
    Ready(Box<dyn ExactSearch<G>>),
    /// The game has no dedicated solver.
    None,
}

impl<G: Game> ExactSolver<G> {
    /// The solver, made now if it was not yet (one thread: the helpers have the others).
    fn get(&mut self) -> Option<&mut dyn ExactSearch<G>> {
        if let ExactSolver::Later(hash_mb) = *self {
            *self = match G::dedicated_solver(hash_mb, 1) {
                Some(solver) => ExactSolver::Ready(solver),
                None => ExactSolver::None,
            };
        }
        match self {
            ExactSolver::Ready(solver) => Some(solver.as_mut()),
            _ => None,
        }
    }

    /// Forgets what the solver learnt (a new game).
    fn forget(&mut self) {
        if let ExactSolver::Ready(solver) = self {
            solver.forget();
        }
    }
}

/// A search started by [`ThreadPool::start`]: its switches, whether it has reported its
/// result, and its thread, which hands the searchers back when it ends.
struct RunningSearch<G: Game> {
    control: Arc<SearchControl>,
    done: Arc<AtomicBool>,
    handle: JoinHandle<Searchers<G>>,
}

/// The searchers of N threads (one main thread, N - 1 helpers) and their shared table,
/// with the settings of the next search. At most one search runs at a time.
pub struct ThreadPool<G: Game> {
    tt: Arc<TranspositionTable>,
    /// The idle searchers; `None` while a started search has them.
    searchers: Option<Searchers<G>>,
    running: Option<RunningSearch<G>>,
    threads: usize,
    multipv: usize,
    move_overhead: Duration,
    /// Which parts of the search are on (all of them in play).
    features: SearchFeatures,
    /// Table size of the game's exact solver, in MiB (the `Hash` size).
    hash_mb: usize,
    /// The playing strength of the following searches (full by default).
    skill: Skill,
    /// Tuning build only: the search constants of every searcher.
    #[cfg(feature = "tune")]
    params: crate::search::SearchParams,
}

impl<G: Game> ThreadPool<G> {
    /// One thread, one line, 10 ms move overhead, and a table of `hash_mb` MiB.
    pub fn new(hash_mb: usize) -> ThreadPool<G> {
        let tt = Arc::new(TranspositionTable::new(hash_mb));
        ThreadPool {
            searchers: Some(Searchers {
                main: Searcher::new(Arc::clone(&tt)),
                helpers: Vec::new(),
                solver: ExactSolver::Later(hash_mb),
            }),
            tt,
            running: None,
            threads: 1,
            multipv: 1,
            move_overhead: SearchSettings::default().move_overhead,
            features: SearchFeatures::ALL,
            hash_mb,
            skill: Skill::FULL,
            #[cfg(feature = "tune")]
            params: G::SEARCH_PARAMS,
        }
    }

    /// Tuning build only: the search constants of the following searches, on every thread
    /// (checked by the caller with [`SearchParams::problem`](crate::search::SearchParams::problem)).
    #[cfg(feature = "tune")]
    pub fn set_params(&mut self, params: crate::search::SearchParams) {
        self.wait();
        self.params = params;
        self.for_each_searcher(|searcher| searcher.set_params(params));
    }

    /// Starts searching `root` within `limits` on all threads and returns at once. The
    /// search's events go to `sink`, on the search thread; `Finished` comes exactly once,
    /// last. `searchmoves`, when not empty, restricts the root moves; `clock_origin` is
    /// when the clock of `limits` started (when `go` arrived).
    pub fn start(
        &mut self,
        root: &G,
        limits: &Limits,
        searchmoves: &[G::Move],
        clock_origin: Instant,
        mut sink: impl FnMut(SearchEvent<G::Move>) + Send + 'static,
    ) -> Result<(), StartError> {
        if self.is_searching() {
            return Err(StartError::AlreadySearching);
        }
        self.wait();
        let mut searchers = self.idle_searchers();
        let control = Arc::new(SearchControl::new(clock_origin, limits.ponder));
        let done = Arc::new(AtomicBool::new(false));
        let (root, limits, searchmoves) = (root.clone(), limits.clone(), searchmoves.to_vec());
        let thread_control = Arc::clone(&control);
        let thread_done = Arc::clone(&done);
        let handle = std::thread::Builder::new()
            .name("search".to_string())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let mut report = |event: SearchEvent<G::Move>| {
                    if matches!(event, SearchEvent::Finished(_)) {
                        // No longer searching once the result is out: the next `go` may
                        // come as soon as it is read.
                        thread_done.store(true, Ordering::SeqCst);
                    }
                    sink(event);
                };
                search_all_threads(
                    &mut searchers,
                    &root,
                    &limits,
                    &searchmoves,
                    thread_control,
                    &mut report,
                );
                searchers
            })?;
        self.running = Some(RunningSearch {
            control,
            done,
            handle,
        });
        Ok(())
    }

    /// Searches `root` within `limits` on all threads, the main search on the calling
    /// thread, and returns the result; no events. Nothing can stop it, so `infinite` and
    /// `ponder` are ignored: it ends at its other limits (without any, at the deepest
    /// depth). Stops a started search first.
    pub fn search(
        &mut self,
        root: &G,
        limits: &Limits,
        searchmoves: &[G::Move],
    ) -> SearchResult<G::Move> {
        self.stop();
        let mut searchers = self.idle_searchers();
        let limits = Limits {
            infinite: false,
            ponder: false,
            ..limits.clone()
        };
        let control = Arc::new(SearchControl::new(Instant::now(), false));
        let result = search_all_threads(
            &mut searchers,
            root,
            &limits,
            searchmoves,
            control,
            &mut |_| {},
        );
        self.searchers = Some(searchers);
        result
    }

    /// Whether a started search is still running (one that has reported `Finished` is not).
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.done.load(Ordering::SeqCst))
    }

    /// Waits for a started search to end by itself (an infinite or ponder search does not:
    /// [`ThreadPool::stop`] it) and takes its searchers back.
    pub fn wait(&mut self) {
        if let Some(running) = self.running.take() {
            match running.handle.join() {
                Ok(searchers) => self.searchers = Some(searchers),
                Err(_) => {
                    log::error!("search thread panicked; starting fresh searchers");
                    self.searchers = Some(self.fresh_searchers());
                }
            }
        }
    }

    /// Stops the started search, if any, and waits until it has reported its result.
    pub fn stop(&mut self) {
        if let Some(running) = &self.running {
            running.control.stop();
        }
        self.wait();
    }

    /// The opponent played the pondered move: the started search's clock starts now.
    pub fn ponderhit(&self) {
        if let Some(running) = &self.running {
            running.control.ponderhit();
        }
    }

    /// Number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Sets the number of search threads (at least one); stops a started search.
    pub fn set_threads(&mut self, threads: usize) {
        self.stop();
        self.threads = threads.max(1);
        if let Some(searchers) = self.searchers.as_mut() {
            let tt = &self.tt;
            searchers
                .helpers
                .resize_with(self.threads - 1, || Searcher::new(Arc::clone(tt)));
        }
        #[cfg(feature = "tune")]
        self.set_params(self.params);
    }

    /// Sets the number of best lines searched and reported (MultiPV) from the next search.
    pub fn set_multipv(&mut self, lines: usize) {
        self.multipv = lines.max(1);
    }

    /// Sets which parts of the search are on from the next search, on every thread (all of
    /// them in play; tests switch the game's pruning off to compare with minimax).
    pub fn set_features(&mut self, features: SearchFeatures) {
        self.features = features;
    }

    /// Sets the playing strength from the next search. Below full strength a search runs
    /// on one thread and never asks the game's book or solver (see [`super::skill`]).
    pub fn set_skill(&mut self, skill: Skill) {
        self.skill = skill;
    }

    /// Sets the time kept in reserve per move from the next search.
    pub fn set_move_overhead(&mut self, overhead: Duration) {
        self.move_overhead = overhead;
    }

    /// Replaces the table by one of `megabytes` MiB; on failure the old table stays, with
    /// its entries. Stops a started search.
    pub fn resize_hash(&mut self, megabytes: usize) -> Result<(), HashError> {
        self.stop();
        let previous_mb = (self.tt.bucket_count() * 64).div_ceil(1024 * 1024).max(1);
        // The new table is requested zeroed, so it costs no memory until it is used: asking
        // for it while the old one is still held does not double what the process uses.
        match TranspositionTable::try_new(megabytes) {
            Some(table) => {
                self.set_table(table);
                self.hash_mb = megabytes;
                if let Some(searchers) = self.searchers.as_mut() {
                    searchers.solver = ExactSolver::Later(megabytes);
                }
                Ok(())
            }
            None => Err(HashError {
                requested: megabytes,
                kept: previous_mb,
            }),
        }
    }

    /// Empties the table. Stops a started search.
    pub fn clear_hash(&mut self) {
        self.stop();
        self.tt.clear();
        if let Some(searchers) = self.searchers.as_mut() {
            searchers.solver.forget();
        }
    }

    /// Forgets the game: empties the table and every thread's ordering tables. Stops a
    /// started search.
    pub fn new_game(&mut self) {
        self.stop();
        self.tt.clear();
        self.for_each_searcher(|searcher| searcher.clear());
        if let Some(searchers) = self.searchers.as_mut() {
            searchers.solver.forget();
        }
    }

    /// Gives every searcher `table`.
    fn set_table(&mut self, table: TranspositionTable) {
        self.tt = Arc::new(table);
        let tt = Arc::clone(&self.tt);
        self.for_each_searcher(|searcher| searcher.set_table(Arc::clone(&tt)));
    }

    /// Applies a closure to every idle searcher (main and helpers).
    fn for_each_searcher(&mut self, mut apply: impl FnMut(&mut Searcher<G>)) {
        if let Some(searchers) = self.searchers.as_mut() {
            apply(&mut searchers.main);
            searchers.helpers.iter_mut().for_each(apply);
        }
    }

    /// New searchers for every thread (after a search thread was lost).
    fn fresh_searchers(&self) -> Searchers<G> {
        let searcher = || {
            #[allow(unused_mut)]
            let mut searcher = Searcher::new(Arc::clone(&self.tt));
            #[cfg(feature = "tune")]
            searcher.set_params(self.params);
            searcher
        };
        Searchers {
            main: searcher(),
            helpers: (1..self.threads).map(|_| searcher()).collect(),
            solver: ExactSolver::Later(self.hash_mb),
        }
    }

    /// The idle searchers, the main one configured for the next search. The pool is left
    /// without searchers until they are handed back.
    fn idle_searchers(&mut self) -> Searchers<G> {
        let mut searchers = self
            .searchers
            .take()
            .unwrap_or_else(|| self.fresh_searchers());
        searchers.main.configure(SearchSettings {
            move_overhead: self.move_overhead,
            multipv: self.multipv,
            features: self.features,
            skill: self.skill,
            ..SearchSettings::default()
        });
        searchers
    }
}

impl<G: Game> Drop for ThreadPool<G> {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Runs one search on all threads (Lazy SMP): helpers search the same root into the shared
/// table (odd helpers start, and stay, one depth ahead so the threads diverge) until the
/// main searcher, which alone reports, has finished. Completed iterations are shared: a
/// thread overtaken at its depth moves on, and the best move comes from the deepest one.
/// Returns the main searcher's result.
fn search_all_threads<G: Game>(
    searchers: &mut Searchers<G>,
    root: &G,
    limits: &Limits,
    searchmoves: &[G::Move],
    control: Arc<SearchControl>,
    report: &mut dyn FnMut(SearchEvent<G::Move>),
) -> SearchResult<G::Move> {
    let Searchers {
        main,
        helpers,
        solver,
    } = searchers;
    // Whether this search plays exactly, decided here once: only the main thread may
    // answer with the game's book or exact solver. A playing level below full strength
    // plays neither exactly nor on more than one thread.
    let limited = main.settings().skill.is_limited();
    let exact = match limited {
        true => None,
        false => ExactPlay::decide(limits, main.settings().multipv, || solver.get()),
    };
    if helpers.is_empty() || limited {
        main.link(control, None, Vec::new());
        return main.run(root, limits, searchmoves, exact, report);
    }
    let pool = Arc::new(SharedIterations::default());
    let peers = helpers.iter().map(|h| h.node_counter()).collect();
    main.link(control, Some(Arc::clone(&pool)), peers);
    let helper_control = Arc::new(SearchControl::new(Instant::now(), false));
    let helper_limits = Limits {
        infinite: true,
        depth: limits.depth,
        ..Limits::default()
    };
    std::thread::scope(|scope| {
        for (index, helper) in helpers.iter_mut().enumerate() {
            helper.configure(SearchSettings {
                start_depth: 1 + (index as u32 + 1) % 2,
                features: main.settings().features,
                ..SearchSettings::default()
            });
            helper.link(
                Arc::clone(&helper_control),
                Some(Arc::clone(&pool)),
                Vec::new(),
            );
            // Zeroed before the main thread starts reading it: the first `info nodes` of
            // a search must not count the previous search's helper nodes.
            helper.node_counter().store(0, Ordering::Relaxed);
            let helper_limits = &helper_limits;
            let spawned = std::thread::Builder::new()
                .name(format!("helper-{}", index + 1))
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(scope, move || {
                    helper.run(root, helper_limits, searchmoves, None, &mut |_| {});
                });
            if let Err(e) = spawned {
                log::error!("cannot start helper thread {}: {e}", index + 1);
            }
        }
        let result = main.run(root, limits, searchmoves, exact, report);
        helper_control.stop();
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chess::Chess;
    use crate::search::Rules;

    #[test]
    fn a_refused_hash_size_keeps_the_table_and_its_entries() {
        let mut pool = ThreadPool::<Chess>::new(1);
        let root = Chess::start(&Default::default());
        pool.search(&root, &Limits::depth(6), &[]);
        let (buckets, full) = (pool.tt.bucket_count(), pool.tt.hashfull());
        assert!(full > 0);
        let refused = pool.resize_hash(usize::MAX);
        assert_eq!(refused.map_err(|e| e.kept), Err(1));
        assert_eq!(
            (pool.tt.bucket_count(), pool.tt.hashfull()),
            (buckets, full)
        );
        assert!(pool.resize_hash(2).is_ok());
        assert_eq!(pool.tt.hashfull(), 0);
    }
}
