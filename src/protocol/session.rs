//! One game's state behind the protocol: the current position, the transposition table,
//! the searcher and the running search. [`GameSession`] is generic over the game and
//! erased behind the object-safe [`Session`] so the controller can switch games at run time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use super::command::{GoParams, PositionStart, Query};
use super::format::{format_bestmove, format_info, Dialect};
use crate::games::{GameKind, GameVisitor, Registered, VariantSettings};
use crate::search::pool::SharedIterations;
use crate::search::{
    Game, GameError, GameResult, Limits, MoveList, Player, SearchControl, SearchEvent, Searcher,
    TranspositionTable,
};
use crate::tools::perft::perft_divide;

/// Stack size of search threads: the recursion keeps move lists on the stack.
const SEARCH_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Error text for the controller to print.
pub type SessionError = String;

/// What the controller can do with a game, whatever the game.
pub trait Session: Send {
    /// The game this session plays.
    fn kind(&self) -> GameKind;
    /// Sets the position; on error the previous position stays.
    fn set_position(&mut self, start: &PositionStart, moves: &[String])
        -> Result<(), SessionError>;
    /// Starts a search in the background; its lines go to `out`.
    fn go(
        &mut self,
        params: &GoParams,
        dialect: Dialect,
        out: Sender<String>,
    ) -> Result<(), SessionError>;
    /// Whether a search is still running (one that has sent its `bestmove` is not).
    fn is_searching(&self) -> bool;
    /// Stops the running search, if any, and waits until its `bestmove` is out.
    fn stop(&mut self);
    /// The opponent played the pondered move.
    fn ponderhit(&self);
    /// Forgets the game: start position, cleared tables.
    fn new_game(&mut self);
    /// Replaces the transposition table by one of `megabytes` MiB; on failure the
    /// current table stays.
    fn resize_hash(&mut self, megabytes: usize) -> Result<(), SessionError>;
    /// Empties the transposition table.
    fn clear_hash(&mut self);
    /// Sets the time kept in reserve per move.
    fn set_move_overhead(&mut self, overhead: Duration);
    /// Sets the number of search threads (Lazy SMP).
    fn set_threads(&mut self, threads: usize);
    /// Sets the number of best lines searched and reported (MultiPV).
    fn set_multipv(&mut self, lines: usize);
    /// Answers a UGI query about the current position.
    fn query(&self, query: Query) -> String;
    /// The board drawing and FEN (`d`).
    fn display(&self) -> Vec<String>;
    /// The static evaluation (`eval`).
    fn eval(&self) -> Vec<String>;
    /// Perft lines (`perft N`, `go perft N`).
    fn perft(&self, depth: u32) -> Vec<String>;
}

/// Creates the session of a game. `chess960` selects Chess960 castling notation.
pub fn new_session(kind: GameKind, hash_mb: usize, chess960: bool) -> Box<dyn Session> {
    kind.visit(&VariantSettings { chess960 }, NewSession { hash_mb })
}

/// Builds the session of the visited game.
struct NewSession {
    hash_mb: usize,
}

impl GameVisitor for NewSession {
    type Output = Box<dyn Session>;

    fn visit<G: Game>(self, game: Registered<G>) -> Box<dyn Session> {
        Box::new(GameSession::<G>::new(game.kind, game.variant, self.hash_mb))
    }
}

/// The searchers of all threads: the main one reports, the helpers share its table.
struct Searchers<G: Game> {
    main: Searcher<G>,
    helpers: Vec<Searcher<G>>,
}

struct RunningSearch<G: Game> {
    control: Arc<SearchControl>,
    done: Arc<AtomicBool>,
    handle: JoinHandle<Searchers<G>>,
}

/// A session for one concrete game.
pub struct GameSession<G: Game> {
    kind: GameKind,
    variant: G::Variant,
    position: G,
    tt: Arc<TranspositionTable>,
    searchers: Option<Searchers<G>>,
    running: Option<RunningSearch<G>>,
    move_overhead: Duration,
    threads: usize,
    multipv: usize,
}

impl<G: Game> GameSession<G> {
    /// A session at the start position with a table of `hash_mb` MiB.
    pub fn new(kind: GameKind, variant: G::Variant, hash_mb: usize) -> GameSession<G> {
        let tt = Arc::new(TranspositionTable::new(hash_mb));
        GameSession {
            kind,
            position: G::start(&variant),
            variant,
            searchers: Some(Searchers {
                main: Searcher::new(Arc::clone(&tt)),
                helpers: Vec::new(),
            }),
            tt,
            running: None,
            move_overhead: Duration::from_millis(10),
            threads: 1,
            multipv: 1,
        }
    }

    fn fresh_searchers(&self) -> Searchers<G> {
        Searchers {
            main: Searcher::new(Arc::clone(&self.tt)),
            helpers: (1..self.threads)
                .map(|_| Searcher::new(Arc::clone(&self.tt)))
                .collect(),
        }
    }

    /// Applies a closure to every idle searcher (main and helpers).
    fn for_each_searcher(&mut self, mut apply: impl FnMut(&mut Searcher<G>)) {
        if let Some(searchers) = self.searchers.as_mut() {
            apply(&mut searchers.main);
            searchers.helpers.iter_mut().for_each(apply);
        }
    }

    /// The current position.
    pub fn position(&self) -> &G {
        &self.position
    }

    /// Waits for a finished or stopped search and takes its searcher back.
    fn join(&mut self) {
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

    fn limits(&self, params: &GoParams) -> Limits {
        let ms = Duration::from_millis;
        let (own_time, own_inc) = match self.position.side_to_move() {
            Player::First => (params.first_time, params.first_inc),
            Player::Second => (params.second_time, params.second_inc),
        };
        Limits {
            depth: params.depth,
            nodes: params.nodes,
            movetime: params.movetime.map(ms),
            clock: own_time.map(ms),
            increment: ms(own_inc.unwrap_or(0)),
            moves_to_go: params.moves_to_go,
            infinite: params.infinite,
            mate: params.mate,
            ponder: params.ponder,
        }
    }
}

/// Formats the moves of `line` in notation, replaying them from `root`.
fn line_notation<G: Game>(root: &G, line: &[G::Move]) -> Vec<String> {
    let mut game = root.clone();
    let mut moves = MoveList::new();
    let mut out = Vec::with_capacity(line.len());
    for &mv in line {
        moves.clear();
        game.generate_moves(&mut moves);
        if !moves.contains(&mv) {
            log::error!("dropping an illegal PV move from the report");
            break;
        }
        out.push(game.format_move(mv));
        game.make_move(mv);
    }
    out
}

impl<G: Game> Session for GameSession<G> {
    fn kind(&self) -> GameKind {
        self.kind
    }

    fn set_position(
        &mut self,
        start: &PositionStart,
        moves: &[String],
    ) -> Result<(), SessionError> {
        let mut game = match start {
            PositionStart::StartPos => G::start(&self.variant),
            PositionStart::Fen(fen) => {
                G::from_fen(&self.variant, fen).map_err(|e| e.to_string())?
            }
        };
        for (index, text) in moves.iter().enumerate() {
            let mv = game.parse_move(text).map_err(|e: GameError| {
                format!("{e} (move {} of the position command)", index + 1)
            })?;
            game.make_move(mv);
        }
        self.position = game;
        Ok(())
    }

    fn go(
        &mut self,
        params: &GoParams,
        dialect: Dialect,
        out: Sender<String>,
    ) -> Result<(), SessionError> {
        let started = Instant::now();
        if self.is_searching() {
            return Err("a search is already running: send 'stop' first".to_string());
        }
        self.join();
        let mut searchmoves = Vec::new();
        for text in &params.searchmoves {
            searchmoves.push(
                self.position
                    .parse_move(text)
                    .map_err(|e| format!("searchmoves: {e}"))?,
            );
        }
        let limits = self.limits(params);
        let Some(mut searchers) = self.searchers.take() else {
            return Err("internal: no searcher available".to_string());
        };
        searchers.main.settings.move_overhead = self.move_overhead;
        searchers.main.settings.multipv = self.multipv;
        let control = Arc::new(SearchControl::new(started, params.ponder));
        let done = Arc::new(AtomicBool::new(false));
        let root = self.position.clone();
        let thread_control = Arc::clone(&control);
        let thread_done = Arc::clone(&done);
        let spawned = std::thread::Builder::new()
            .name("search".to_string())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let mut report = |event: SearchEvent<G::Move>| match event {
                    SearchEvent::Iteration(info) => {
                        let pv = line_notation(&root, &info.pv);
                        let _ = out.send(format_info(&info, &pv));
                    }
                    SearchEvent::Finished(result) => {
                        let line = [result.best, result.ponder]
                            .into_iter()
                            .flatten()
                            .collect::<Vec<_>>();
                        let names = line_notation(&root, &line);
                        thread_done.store(true, Ordering::SeqCst);
                        let _ = out.send(format_bestmove(&names, dialect));
                    }
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
            });
        match spawned {
            Ok(handle) => {
                self.running = Some(RunningSearch {
                    control,
                    done,
                    handle,
                });
                Ok(())
            }
            Err(e) => {
                self.searchers = Some(self.fresh_searchers());
                Err(format!("cannot start the search thread: {e}"))
            }
        }
    }

    fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.done.load(Ordering::SeqCst))
    }

    fn stop(&mut self) {
        if let Some(running) = &self.running {
            running.control.stop();
        }
        self.join();
    }

    fn ponderhit(&self) {
        if let Some(running) = &self.running {
            running.control.ponderhit();
        }
    }

    fn new_game(&mut self) {
        self.stop();
        self.position = G::start(&self.variant);
        self.tt.clear();
        self.for_each_searcher(|searcher| searcher.clear());
    }

    fn resize_hash(&mut self, megabytes: usize) -> Result<(), SessionError> {
        self.stop();
        let previous_mb = (self.tt.bucket_count() * 64).div_ceil(1024 * 1024).max(1);
        // Free the old table first so that its memory can be reused.
        self.tt = Arc::new(TranspositionTable::new(1));
        let tt = Arc::clone(&self.tt);
        self.for_each_searcher(|searcher| searcher.set_table(Arc::clone(&tt)));
        let result = match TranspositionTable::try_new(megabytes) {
            Some(table) => {
                self.tt = Arc::new(table);
                Ok(())
            }
            None => {
                self.tt = Arc::new(TranspositionTable::new(previous_mb));
                Err(format!(
                    "cannot allocate {megabytes} MiB for Hash; keeping {previous_mb} MiB"
                ))
            }
        };
        let tt = Arc::clone(&self.tt);
        self.for_each_searcher(|searcher| searcher.set_table(Arc::clone(&tt)));
        result
    }

    fn clear_hash(&mut self) {
        self.stop();
        self.tt.clear();
    }

    fn set_move_overhead(&mut self, overhead: Duration) {
        self.move_overhead = overhead;
    }

    fn set_multipv(&mut self, lines: usize) {
        self.multipv = lines.max(1);
    }

    fn set_threads(&mut self, threads: usize) {
        self.stop();
        self.threads = threads.max(1);
        if let Some(searchers) = self.searchers.as_mut() {
            let tt = &self.tt;
            searchers
                .helpers
                .resize_with(self.threads - 1, || Searcher::new(Arc::clone(tt)));
        }
    }

    fn query(&self, query: Query) -> String {
        let answer = match query {
            Query::P1Turn => (self.position.side_to_move() == Player::First).to_string(),
            Query::GameOver => game_result(&self.position).is_some().to_string(),
            Query::Result => match game_result(&self.position) {
                None => "none".to_string(),
                Some(GameResult::FirstWins) => "p1win".to_string(),
                Some(GameResult::SecondWins) => "p2win".to_string(),
                Some(GameResult::Draw) => "draw".to_string(),
            },
        };
        format!("response {answer}")
    }

    fn display(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.position.render().lines().map(str::to_string).collect();
        lines.push(format!("Fen: {}", self.position.to_fen()));
        lines.push(format!("Key: {:016X}", self.position.hash()));
        lines
    }

    fn eval(&self) -> Vec<String> {
        vec![format!(
            "info string eval {} (side to move's view)",
            self.position.evaluate()
        )]
    }

    fn perft(&self, depth: u32) -> Vec<String> {
        let started = Instant::now();
        let mut game = self.position.clone();
        let counts = perft_divide(&mut game, depth.max(1));
        let total: u64 = counts.iter().map(|(_, n)| n).sum();
        let mut lines: Vec<String> = counts.iter().map(|(m, n)| format!("{m}: {n}")).collect();
        let elapsed = started.elapsed();
        lines.push(String::new());
        lines.push(format!("Nodes searched: {total}"));
        lines.push(format!(
            "info string perft depth {} nodes {total} time {} nps {}",
            depth.max(1),
            elapsed.as_millis(),
            (u128::from(total) * 1_000_000 / elapsed.as_micros().max(1)) as u64
        ));
        lines
    }
}

/// Runs one search on all threads: helpers search the same root into the shared table
/// (odd helpers start, and stay, one depth ahead so the threads diverge) until the main
/// searcher, which alone reports, has finished. Completed iterations are shared: a thread
/// overtaken at its depth moves on, and the best move comes from the deepest one.
fn search_all_threads<G: Game>(
    searchers: &mut Searchers<G>,
    root: &G,
    limits: &Limits,
    searchmoves: &[G::Move],
    control: Arc<SearchControl>,
    report: &mut dyn FnMut(SearchEvent<G::Move>),
) {
    let Searchers { main, helpers } = searchers;
    if helpers.is_empty() {
        main.set_peers(Vec::new());
        main.set_pool(None);
        main.run(root, limits, searchmoves, control, report);
        return;
    }
    main.set_peers(helpers.iter().map(|h| h.node_counter()).collect());
    let pool = Arc::new(SharedIterations::default());
    main.set_pool(Some(Arc::clone(&pool)));
    let helper_control = Arc::new(SearchControl::new(Instant::now(), false));
    let helper_limits = Limits {
        infinite: true,
        depth: limits.depth,
        ..Limits::default()
    };
    std::thread::scope(|scope| {
        for (index, helper) in helpers.iter_mut().enumerate() {
            helper.settings.start_depth = 1 + (index as u32 + 1) % 2;
            helper.set_pool(Some(Arc::clone(&pool)));
            let helper_control = Arc::clone(&helper_control);
            let helper_limits = &helper_limits;
            let spawned = std::thread::Builder::new()
                .name(format!("helper-{}", index + 1))
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(scope, move || {
                    helper.run(
                        root,
                        helper_limits,
                        searchmoves,
                        helper_control,
                        &mut |_| {},
                    );
                });
            if let Err(e) = spawned {
                log::error!("cannot start helper thread {}: {e}", index + 1);
            }
        }
        main.run(root, limits, searchmoves, control, report);
        helper_control.stop();
    });
}

/// The result of the game in `position` by the game's rules, if it is over.
fn game_result<G: Game>(position: &G) -> Option<GameResult> {
    position.game_end().map(|end| end.result)
}

impl<G: Game> Drop for GameSession<G> {
    fn drop(&mut self) {
        self.stop();
    }
}
