//! One game's state behind the protocol: the current position and the search's threads
//! (a [`ThreadPool`], which owns the searchers and the table), with the search's events
//! turned into lines by the front end's [`Reporter`]. [`GameSession`] is generic over the
//! game and erased behind the object-safe [`Session`] so the controller can switch games
//! at run time.

use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use super::command::{GoParams, PositionStart, Query};
use super::format::format_perft;
use super::genfens::GenfensRequest;
use crate::games::setup;
use crate::games::{GameKind, GameVisitor, Registered, VariantSettings};
use crate::search::perft::PerftDivide;
use crate::search::score::DRAW;
use crate::search::threads::StartError;
use crate::search::{
    Game, GameEnd, GameResult, Limits, MoveList, Player, SearchEvent, SearchInfo, Skill,
    ThreadPool, Wdl, WdlModel,
};

/// Turns one search's events into the front end's lines (moves already in the game's
/// notation). One reporter serves one search and goes with it to the search's thread.
pub trait Reporter: Send + 'static {
    /// The line for a finished iteration (UCI: `info depth ...`), if the front end prints
    /// one; `wdl` is the side to move's chances by the game's win/draw/loss model, for a
    /// game that has one.
    fn iteration(&mut self, info: &SearchInfo<String>, wdl: Option<Wdl>) -> Option<String>;
    /// The lines that end the search, given the best move and the move to ponder on
    /// (either may be missing).
    fn finished(&mut self, line: &[String]) -> Vec<String>;
}

/// Error text for the controller to print.
pub type SessionError = String;

/// What the controller can do with a game, whatever the game.
pub trait Session: Send {
    /// The game this session plays.
    fn kind(&self) -> GameKind;
    /// Sets the position; on error the previous position stays.
    fn set_position(&mut self, start: &PositionStart, moves: &[String])
        -> Result<(), SessionError>;
    /// Starts a search in the background; `reporter` turns its events into lines, which
    /// go to `out`.
    fn go(
        &mut self,
        params: &GoParams,
        reporter: Box<dyn Reporter>,
        out: Sender<String>,
    ) -> Result<(), SessionError>;
    /// How the game ended in the current position, if it is over.
    fn game_end(&self) -> Option<GameEnd>;
    /// Whether the game is over in the current position.
    fn is_over(&self) -> bool {
        self.game_end().is_some()
    }
    /// The legal moves of the current position, in the game's notation (none when the
    /// game is over).
    fn legal_moves(&self) -> Vec<String>;
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
    /// Sets the playing strength of the following searches.
    fn set_skill(&mut self, skill: Skill);
    /// Tuning build only: searches with the game's constants overridden by `values`
    /// (option name and value, applied in order); on error the constants stay.
    #[cfg(feature = "tune")]
    fn set_search_params(&mut self, values: &[(&'static str, i64)]) -> Result<(), SessionError>;
    /// Answers a UGI query about the current position.
    fn query(&self, query: Query) -> String;
    /// The board drawing and FEN (`d`).
    fn display(&self) -> Vec<String>;
    /// The static evaluation (`eval`).
    fn eval(&self) -> Vec<String>;
    /// Perft lines (`perft N`, `go perft N`).
    fn perft(&self, depth: u32) -> Vec<String>;
    /// OpenBench's opening positions (`genfens`) in this session's variant and evaluation,
    /// each FEN handed to `emit` as it is found (`book`: the book's lines as FENs).
    fn genfens(
        &self,
        request: &GenfensRequest,
        book: &[String],
        emit: &mut dyn FnMut(String),
    ) -> Result<(), SessionError>;
}

/// Creates the session of a game in the variant and with the evaluation `settings` select.
pub fn new_session(kind: GameKind, hash_mb: usize, settings: &VariantSettings) -> Box<dyn Session> {
    kind.visit(settings, NewSession { hash_mb })
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

/// A session for one concrete game: its position, and the search's threads.
pub struct GameSession<G: Game> {
    kind: GameKind,
    variant: G::Variant,
    position: G,
    search: ThreadPool<G>,
}

impl<G: Game> GameSession<G> {
    /// A session at the start position with a table of `hash_mb` MiB.
    pub fn new(kind: GameKind, variant: G::Variant, hash_mb: usize) -> GameSession<G> {
        GameSession {
            kind,
            position: G::start(&variant),
            variant,
            search: ThreadPool::new(hash_mb),
        }
    }

    /// The current position.
    pub fn position(&self) -> &G {
        &self.position
    }

    fn limits(&self, params: &GoParams) -> Limits {
        let ms = Duration::from_millis;
        let (own_time, own_inc, other_time) = match self.position.side_to_move() {
            Player::First => (params.first_time, params.first_inc, params.second_time),
            Player::Second => (params.second_time, params.second_inc, params.first_time),
        };
        // A timed `go` that gives only the opponent's clock (older fastchess `--compliance`
        // sends `go btime 100` with White to move) leaves the side to move no time: it
        // plays at once, as Stockfish does, rather than searching without a time limit.
        let timed = !params.infinite && !params.ponder;
        let own_time = own_time.or(other_time.filter(|_| timed).map(|_| 0));
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

/// Turns the events of a search of `root` into protocol lines sent to `out`: moves are
/// written in the game's notation, scores turned into chances by `wdl` (the game's model,
/// if it has one), and `reporter` writes the lines.
fn event_lines<G: Game>(
    root: G,
    wdl: Option<WdlModel>,
    mut reporter: Box<dyn Reporter>,
    out: Sender<String>,
) -> impl FnMut(SearchEvent<G::Move>) + Send + 'static {
    let phase = root.wdl_phase();
    move |event| match event {
        SearchEvent::Iteration(info) => {
            let info = SearchInfo {
                pv: line_notation(&root, &info.pv),
                depth: info.depth,
                seldepth: info.seldepth,
                multipv: info.multipv,
                score: info.score,
                nodes: info.nodes,
                elapsed: info.elapsed,
                hashfull: info.hashfull,
                tbhits: info.tbhits,
            };
            let chances = wdl.map(|model| chances(&model, &info, phase));
            if let Some(line) = reporter.iteration(&info, chances) {
                let _ = out.send(line);
            }
        }
        SearchEvent::Finished(result) => {
            let line = [result.best, result.ponder]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>();
            let names = line_notation(&root, &line);
            for line in reporter.finished(&names) {
                let _ = out.send(line);
            }
        }
    }
}

/// The side to move's chances after an iteration, by the game's `model` at `phase`; a
/// game drawn at the root (depth 0, score 0) is a certain draw.
fn chances<M>(model: &WdlModel, info: &SearchInfo<M>, phase: i32) -> Wdl {
    if info.depth == 0 && info.score == DRAW {
        return Wdl::DRAWN;
    }
    model.wdl(info.score, phase)
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
        let fen = match start {
            PositionStart::StartPos => None,
            PositionStart::Fen(fen) => Some(fen.as_str()),
        };
        self.position =
            setup::position_from(&self.variant, fen, moves).map_err(|e| e.to_string())?;
        Ok(())
    }

    fn go(
        &mut self,
        params: &GoParams,
        reporter: Box<dyn Reporter>,
        out: Sender<String>,
    ) -> Result<(), SessionError> {
        let started = Instant::now();
        // A running search is refused before the search moves are read: this error first.
        if self.search.is_searching() {
            return Err(StartError::AlreadySearching.to_string());
        }
        let mut searchmoves = Vec::new();
        for text in &params.searchmoves {
            searchmoves.push(
                self.position
                    .parse_move(text)
                    .map_err(|e| format!("searchmoves: {e}"))?,
            );
        }
        let limits = self.limits(params);
        let wdl = self.kind.info().wdl;
        let sink = event_lines(self.position.clone(), wdl, reporter, out);
        self.search
            .start(&self.position, &limits, &searchmoves, started, sink)
            .map_err(|e| e.to_string())
    }

    fn is_searching(&self) -> bool {
        self.search.is_searching()
    }

    fn game_end(&self) -> Option<GameEnd> {
        self.position.game_end()
    }

    fn legal_moves(&self) -> Vec<String> {
        if self.position.outcome().is_some() {
            return Vec::new();
        }
        let mut moves = MoveList::new();
        self.position.generate_moves(&mut moves);
        moves
            .iter()
            .map(|&mv| self.position.format_move(mv))
            .collect()
    }

    fn stop(&mut self) {
        self.search.stop();
    }

    fn ponderhit(&self) {
        self.search.ponderhit();
    }

    fn new_game(&mut self) {
        self.search.new_game();
        self.position = G::start(&self.variant);
    }

    fn resize_hash(&mut self, megabytes: usize) -> Result<(), SessionError> {
        self.search
            .resize_hash(megabytes)
            .map_err(|e| e.to_string())
    }

    fn clear_hash(&mut self) {
        self.search.clear_hash();
    }

    fn set_move_overhead(&mut self, overhead: Duration) {
        self.search.set_move_overhead(overhead);
    }

    fn set_multipv(&mut self, lines: usize) {
        self.search.set_multipv(lines);
    }

    fn set_skill(&mut self, skill: Skill) {
        self.search.set_skill(skill);
    }

    fn set_threads(&mut self, threads: usize) {
        self.search.set_threads(threads);
    }

    #[cfg(feature = "tune")]
    fn set_search_params(&mut self, values: &[(&'static str, i64)]) -> Result<(), SessionError> {
        let params = super::tuning::apply(G::SEARCH_PARAMS, values)?;
        self.search.set_params(params);
        Ok(())
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
        format_perft(&PerftDivide::run(&self.position, depth))
    }

    fn genfens(
        &self,
        request: &GenfensRequest,
        book: &[String],
        emit: &mut dyn FnMut(String),
    ) -> Result<(), SessionError> {
        super::genfens::generate::<G>(&self.variant, request, book, emit)
    }
}

/// The result of the game in `position` by the game's rules, if it is over.
fn game_result<G: Game>(position: &G) -> Option<GameResult> {
    position.game_end().map(|end| end.result)
}
