//! The Gomocup (piskvork) protocol's front end: how gomoku managers (piskvork, Yixin Board,
//! c-gomoku-cli, the Gomocup tournament) drive an engine they start with no arguments.
//!
//! The manager sends `START N`, `INFO key value`, then `BEGIN` (the engine opens), `TURN x,y`
//! (the opponent's move) or `BOARD` ... `DONE` (a whole position); the engine answers with
//! its move `x,y`. Coordinates are 0-based, `x` the column and `y` the row counted from the
//! top-left. Moves are kept here as the game's own cell text (`a1` bottom-left: file `x`,
//! rank `height - y`) and every position goes through the game's move parser, so the rules
//! are the game's. The game is the one whose [`ProtocolSettings::own_dialect`] is
//! `gomocup`; its [`ProtocolSettings::dialect_settings`] say which of its variant options
//! the settings `size` (from `START`) and `rule` (from `INFO rule`: `0`, `1`, `4`) set, so
//! this front end names no game.
//!
//! Yixin Board's commands (`YXBOARD`, `YXNBEST`, `YXSHOWFORBID`, `YXBLOCK`, `YXBALANCEONE`,
//! `SWAP2BOARD`, `YXSHOWINFO`...) are read here too; what a search's end answers for them is
//! in [`super::yixin`].
//!
//! Bad input gets `ERROR ...` (unknown commands `UNKNOWN ...`) and the last good state is
//! kept. Every command, reply and error is in protocol.md.
//!
//! [`ProtocolSettings::own_dialect`]: crate::games::ProtocolSettings::own_dialect
//! [`ProtocolSettings::dialect_settings`]: crate::games::ProtocolSettings::dialect_settings

use crossbeam_channel::{unbounded, Receiver, Sender};

use super::command::{GoParams, PositionStart};
use super::controller::Controller;
use super::frontend::{shorten_long_words, FrontEnd};
use super::options::{OptionChange, DEFAULT_HASH_MB, MAX_THREADS};
use super::yixin::{self, Action, TurnReporter};
use crate::games::{self, GameKind, VariantOption};
use crate::search::EndReason;

/// The name of the protocol in [`ProtocolSettings::own_dialect`](crate::games::ProtocolSettings).
pub const PROTOCOL_NAME: &str = "gomocup";
/// The dialect setting that `START N` sets to `N`, the board's side.
pub const SIZE_SETTING: &str = "size";
/// The dialect setting that `INFO rule N` sets to `N` (`0` freestyle, `1` exactly five, `4`
/// renju; `2` is renju too, as Yixin Board numbers it).
pub const RULE_SETTING: &str = "rule";
/// `timeout_turn` until the manager tells it, in ms.
const DEFAULT_TIMEOUT_TURN_MS: u64 = 30_000;
/// The reserve kept from `timeout_turn` and `time_left`: this much in ms...
const MARGIN_MS: u64 = 50;
/// ...plus this fraction (1/n) of the time: on a loaded machine a reply may come tens of
/// ms after the search's deadline (the threads wait for a core), so a short turn keeps a
/// tenth; the core's clock planning then spends at most a fifth of what is left of
/// `time_left` on one move (and the game reads the clock every few hundred nodes).
const MARGIN_DIVISOR: u64 = 10;
/// `ABOUT`'s answer.
const ABOUT: &str = concat!(
    "name=\"cutoff\", version=\"",
    env!("CARGO_PKG_VERSION"),
    "\", author=\"the cutoff developers\", country=\"n/a\""
);

/// The cell text of the 0-based `(x, y)` from the top-left on a board `height` rows
/// high: file `x` as a letter from `a`, rank `height - y` (`a1` is the bottom-left).
pub fn cell_text(x: u32, y: u32, height: u32) -> String {
    let file = char::from_u32(u32::from(b'a') + x).unwrap_or('?');
    format!("{file}{}", height.saturating_sub(y))
}

/// The time and search limits the manager set with `INFO`.
#[derive(Clone, Debug)]
struct Limits {
    /// `timeout_turn` in ms (0: play as fast as possible).
    timeout_turn: u64,
    /// `timeout_match` in ms (0: no limit).
    timeout_match: u64,
    /// `time_left` in ms, if told.
    time_left: Option<u64>,
    /// `max_node` (0: none).
    max_node: u64,
    /// `max_depth` (0: none).
    max_depth: u32,
}

/// A stone of `BOARD`: `x`, `y` and its field (1 own, 2 the opponent's).
type Stone = (u32, u32, u8);

/// A `BOARD` being read: its stones so far and its first error.
#[derive(Debug, Default)]
struct BoardInput {
    stones: Vec<Stone>,
    error: Option<String>,
}

/// A command whose lines run to `DONE`, being read.
#[derive(Debug)]
enum Pending {
    /// `BOARD` (the engine moves at `DONE`), `YXBOARD` (it does not) or `SWAP2BOARD`.
    Board(BoardInput, BoardCommand),
    /// `YXBLOCK` (`undo`: `YXBLOCKUNDO`): cells `x,y` to exclude from (or give back to)
    /// the engine's moves, and the first error.
    Block {
        cells: Vec<(u32, u32)>,
        undo: bool,
        error: Option<String>,
    },
}

/// Which command a [`Pending::Board`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BoardCommand {
    /// `BOARD`: the position, then the engine's move.
    Board,
    /// `YXBOARD`: the position only.
    YxBoard,
    /// `SWAP2BOARD`: the position, then the swap2 opening rule's answer.
    Swap2,
}

/// The Gomocup front end: the board size, the moves played, a `BOARD` being read.
pub struct Gomocup {
    /// The board's side once `START` was accepted.
    size: Option<u32>,
    /// The moves played, in game order, as the game's cell text.
    moves: Vec<String>,
    /// The `BOARD`, `YXBOARD`, `SWAP2BOARD` or `YXBLOCK` being read.
    pending: Option<Pending>,
    /// The cells excluded from the engine's moves (`YXBLOCK`), as `x,y`.
    blocked: Vec<(u32, u32)>,
    /// Live `MESSAGE REALTIME` lines while thinking (`YXSHOWINFO`, `INFO show_detail`).
    realtime: bool,
    /// The limits from `INFO`.
    limits: Limits,
    /// The last `INFO rule` refused: no move is made until a rule is accepted.
    refused_rule: Option<String>,
    /// The engine's moves as its searches end (cell text), to add to `moves`.
    played: Receiver<String>,
    /// The reporters' end of `played`.
    report_played: Sender<String>,
}

impl Default for Gomocup {
    fn default() -> Self {
        Gomocup::new()
    }
}

/// What a command did: the reply, or an error kept in the state.
type Reply = Result<Option<String>, String>;

impl FrontEnd for Gomocup {
    fn handle_line(&mut self, controller: &mut Controller, line: &str) -> bool {
        log::debug!("<< {}", line.trim_end());
        let line = line.trim_start_matches('\u{feff}').trim();
        if !controller.session().is_searching() {
            // The engine's last move is on the board once it was written.
            self.moves.extend(self.played.try_iter());
        }
        if self.pending.is_some() {
            self.pending_line(controller, line);
            return true;
        }
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let reply = match word.to_ascii_uppercase().as_str() {
            "" => Ok(None),
            "END" => return false,
            "ABOUT" => Ok(Some(ABOUT.to_string())),
            "YXSTOP" => {
                controller.session_mut().stop();
                Ok(None)
            }
            "INFO" => self.info(controller, rest.trim()),
            _ if controller.session().is_searching() => {
                Err(format!("{word} while thinking: the engine is busy"))
            }
            _ => self.command(controller, word, rest.trim()),
        };
        match reply {
            Ok(Some(line)) => controller.send(line),
            Ok(None) => {}
            Err(e) => controller.send(format!("ERROR {}", shorten_long_words(&e))),
        }
        true
    }

    fn refuse_input(&mut self, controller: &mut Controller, reason: &str) {
        controller.send(format!("ERROR {reason}"));
    }
}

impl Gomocup {
    /// Before `START`.
    pub fn new() -> Gomocup {
        let (report_played, played) = unbounded();
        Gomocup {
            played,
            report_played,
            size: None,
            moves: Vec::new(),
            pending: None,
            blocked: Vec::new(),
            realtime: false,
            limits: Limits {
                timeout_turn: DEFAULT_TIMEOUT_TURN_MS,
                timeout_match: 0,
                time_left: None,
                max_node: 0,
                max_depth: 0,
            },
            refused_rule: None,
        }
    }

    /// The commands that need the engine idle.
    fn command(&mut self, controller: &mut Controller, word: &str, rest: &str) -> Reply {
        match word.to_ascii_uppercase().as_str() {
            "START" => self.start(controller, rest),
            "RECTSTART" => {
                let (w, h) =
                    pair(rest).ok_or_else(|| "usage: RECTSTART width,height".to_string())?;
                if w != h {
                    return Err(format!("RECTSTART {w},{h}: only square boards are played"));
                }
                self.start(controller, &w.to_string())
            }
            "RESTART" => {
                self.size()?;
                self.moves.clear();
                controller.new_game();
                Ok(Some("OK".to_string()))
            }
            "BEGIN" => {
                self.ready()?;
                if !self.moves.is_empty() {
                    return Err("BEGIN on a board with stones: send RESTART first".to_string());
                }
                self.think(controller, Action::Move)
            }
            "TURN" => self.turn(controller, rest),
            "BOARD" => self.read_board(BoardCommand::Board),
            "YXBOARD" => self.read_board(BoardCommand::YxBoard),
            "SWAP2BOARD" => self.read_board(BoardCommand::Swap2),
            "TAKEBACK" => self.takeback(controller, rest),
            _ => self.yixin_command(controller, word, rest),
        }
    }

    /// Yixin Board's one-line commands (Rapfi's answers), and `UNKNOWN` for the rest.
    fn yixin_command(&mut self, controller: &mut Controller, word: &str, rest: &str) -> Reply {
        match word.to_ascii_uppercase().as_str() {
            "YXNBEST" => {
                let count: usize =
                    number(rest).ok_or_else(|| "usage: YXNBEST count".to_string())?;
                self.think(controller, Action::NBest(count.max(1)))
            }
            "YXBALANCEONE" | "YXBALANCETWO" => {
                let bias: i32 = signed(rest).ok_or_else(|| format!("usage: {word} bias"))?;
                let two = word.eq_ignore_ascii_case("YXBALANCETWO");
                // As Rapfi: balancing two stones aims at the bias from the other side.
                let action = if two {
                    Action::BalanceTwo(-bias)
                } else {
                    Action::BalanceOne(bias)
                };
                self.think(controller, action)
            }
            "YXSHOWFORBID" => self.show_forbid(controller).map(Some),
            "YXBLOCK" | "YXBLOCKUNDO" => {
                self.pending = Some(Pending::Block {
                    cells: Vec::new(),
                    undo: word.eq_ignore_ascii_case("YXBLOCKUNDO"),
                    error: self.size().err(),
                });
                Ok(None)
            }
            "YXBLOCKRESET" => {
                self.blocked.clear();
                Ok(None)
            }
            "YXHASHCLEAR" => {
                controller.session_mut().clear_hash();
                Ok(None)
            }
            "YXSHOWINFO" => {
                self.realtime = true;
                Ok(Some(format!(
                    "MESSAGE cutoff {}\nMESSAGE INFO MAX_THREAD_NUM {MAX_THREADS}\nMESSAGE INFO \
                     MAX_HASH_SIZE {}",
                    env!("CARGO_PKG_VERSION"),
                    (DEFAULT_HASH_MB * 1024).ilog2()
                )))
            }
            _ => Ok(Some(format!(
                "UNKNOWN command '{}'",
                shorten_long_words(word)
            ))),
        }
    }

    /// The board's side, or the error of a command sent before `START`.
    fn size(&self) -> Result<u32, String> {
        self.size
            .ok_or_else(|| "no board: send START first".to_string())
    }

    /// The board's side, or why the engine cannot be asked to move (no `START`, a rule
    /// refused); checked before a command changes the position.
    fn ready(&self) -> Result<u32, String> {
        match &self.refused_rule {
            Some(refused) => Err(refused.clone()),
            None => self.size(),
        }
    }

    /// `START N`: the gomoku game on an N x N board, empty.
    fn start(&mut self, controller: &mut Controller, rest: &str) -> Reply {
        let size: u32 = number(rest).ok_or_else(|| "usage: START size".to_string())?;
        let game = games::with_dialect(PROTOCOL_NAME)
            .ok_or_else(|| "no game plays the Gomocup protocol".to_string())?;
        let (option, value) = dialect_option(game, SIZE_SETTING, &size.to_string())
            .ok_or_else(|| format!("{game} has no board size for the Gomocup protocol"))?;
        let value = option
            .check(&value)
            .map_err(|expected| format!("unsupported size {size}: sizes are {expected}"))?;
        controller.set_game(game);
        controller.set_variant(&option, value);
        controller.new_game();
        self.size = Some(size);
        self.moves.clear();
        Ok(Some("OK".to_string()))
    }

    /// `TURN x,y`: the opponent's move, then the engine's.
    fn turn(&mut self, controller: &mut Controller, rest: &str) -> Reply {
        let size = self.ready()?;
        let (x, y) = pair(rest).ok_or_else(|| format!("TURN '{rest}': expected x,y"))?;
        if x >= size || y >= size {
            return Err(format!("TURN {x},{y}: off the {size}x{size} board"));
        }
        let mut moves = self.moves.clone();
        moves.push(cell_text(x, y, size));
        self.play(controller, moves)
            .map_err(|e| format!("TURN {x},{y}: {e}"))?;
        self.think(controller, Action::Move)
    }

    /// `BOARD`, `YXBOARD` or `SWAP2BOARD`: their stones are read (and refused at `DONE`)
    /// even before `START`.
    fn read_board(&mut self, command: BoardCommand) -> Reply {
        let input = BoardInput {
            stones: Vec::new(),
            error: self.ready().err(),
        };
        self.pending = Some(Pending::Board(input, command));
        Ok(None)
    }

    /// `YXSHOWFORBID`: `FORBID` and the cells Black may not play (none when White is to
    /// move or the rule forbids nothing).
    fn show_forbid(&mut self, controller: &mut Controller) -> Result<String, String> {
        let size = self.size()?;
        if self.moves.len() % 2 == 1 {
            return Ok(yixin::forbid_line(&[]));
        }
        let session = controller.session();
        let legal = session.legal_moves();
        let taken: std::collections::HashSet<&String> = self.moves.iter().collect();
        let mut forbidden = Vec::new();
        if !session.is_over() {
            for (x, y) in (0..size).flat_map(|y| (0..size).map(move |x| (x, y))) {
                let cell = cell_text(x, y, size);
                if !taken.contains(&cell) && !legal.contains(&cell) {
                    forbidden.push((x, y));
                }
            }
        }
        Ok(yixin::forbid_line(&forbidden))
    }

    /// `TAKEBACK x,y`: the last move, which must be at x,y, is taken back.
    fn takeback(&mut self, controller: &mut Controller, rest: &str) -> Reply {
        let size = self.size()?;
        let (x, y) = pair(rest).ok_or_else(|| format!("TAKEBACK '{rest}': expected x,y"))?;
        let cell = cell_text(x, y, size);
        if self.moves.last() != Some(&cell) {
            return Err(format!("TAKEBACK {x},{y}: not the last move"));
        }
        let mut moves = self.moves.clone();
        moves.pop();
        self.play(controller, moves)?;
        Ok(Some("OK".to_string()))
    }

    /// One line of a command read to `DONE`: a stone or a cell, or `DONE`, which ends it.
    fn pending_line(&mut self, controller: &mut Controller, line: &str) {
        let size = self.size.unwrap_or(0);
        let done = line.eq_ignore_ascii_case("DONE");
        if done {
            match self.pending {
                Some(Pending::Board(..)) => self.board_ended(controller),
                Some(Pending::Block { .. }) => self.block_ended(controller),
                None => {}
            }
            return;
        }
        if line.is_empty() {
            return;
        }
        match &mut self.pending {
            Some(Pending::Board(board, _)) if board.error.is_none() => {
                board.error = board_stone(line, size, &mut board.stones).err();
            }
            Some(Pending::Block { cells, error, .. }) if error.is_none() => {
                *error = block_cell(line, size, cells).err();
            }
            _ => {}
        }
    }

    /// `DONE` of `YXBLOCK` or `YXBLOCKUNDO`: the cells join (or leave) the blocked ones.
    fn block_ended(&mut self, controller: &mut Controller) {
        let Some(Pending::Block { cells, undo, error }) = self.pending.take() else {
            return;
        };
        if let Some(e) = error {
            let word = if undo { "YXBLOCKUNDO" } else { "YXBLOCK" };
            controller.send(format!("ERROR {word}: {}", shorten_long_words(&e)));
            return;
        }
        for cell in cells {
            let known = self.blocked.contains(&cell);
            if undo {
                self.blocked.retain(|&blocked| blocked != cell);
            } else if !known {
                self.blocked.push(cell);
            }
        }
    }

    /// `DONE` of a board command: the position, then what the command asks.
    fn board_ended(&mut self, controller: &mut Controller) {
        let Some(Pending::Board(board, command)) = self.pending.take() else {
            return;
        };
        let reply = match board.error {
            Some(e) => Err(e),
            None => self.board_done(controller, &board.stones, command),
        };
        let word = match command {
            BoardCommand::Board => "BOARD",
            BoardCommand::YxBoard => "YXBOARD",
            BoardCommand::Swap2 => "SWAP2BOARD",
        };
        match reply {
            Ok(Some(line)) => controller.send(line),
            Ok(None) => {}
            Err(e) => controller.send(format!(
                "ERROR {word}: {}; the position is unchanged",
                shorten_long_words(&e)
            )),
        }
    }

    /// `DONE`: the stones become the position, the engine to move; with `BOARD` it moves,
    /// with `SWAP2BOARD` it answers as swap2 lets it.
    fn board_done(
        &mut self,
        controller: &mut Controller,
        stones: &[Stone],
        command: BoardCommand,
    ) -> Reply {
        let size = self.size()?;
        let own: Vec<String> = stones_of(stones, 1, size);
        let theirs: Vec<String> = stones_of(stones, 2, size);
        // The engine moves next: it opened if the counts are equal, else the opponent did.
        let (first, second) = match theirs.len().checked_sub(own.len()) {
            Some(0) => (own, theirs),
            Some(1) => (theirs, own),
            _ => {
                return Err(format!(
                    "{} own and {} opponent stones cannot be the engine's turn",
                    own.len(),
                    theirs.len()
                ))
            }
        };
        let mut moves = Vec::with_capacity(first.len() + second.len());
        for (index, cell) in first.into_iter().enumerate() {
            moves.push(cell);
            moves.extend(second.get(index).cloned());
        }
        self.play(controller, moves)?;
        match command {
            BoardCommand::Board => self.think(controller, Action::Move),
            BoardCommand::YxBoard => Ok(None),
            BoardCommand::Swap2 => self.swap2(controller, size),
        }
    }

    /// `SWAP2BOARD`'s answer: three stones on an empty board (`x,y x,y x,y`, not played: the
    /// manager sends them back), else the search's choice on three or five stones, and a
    /// move on any other count.
    fn swap2(&mut self, controller: &mut Controller, size: u32) -> Reply {
        let action = match self.moves.len() {
            0 => {
                let seed = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |time| time.as_secs());
                let stones = yixin::swap2_opening(size, seed)
                    .ok_or_else(|| format!("no swap2 opening on {size}x{size}"))?;
                let text: Vec<String> = stones.iter().map(|(x, y)| format!("{x},{y}")).collect();
                return Ok(Some(text.join(" ")));
            }
            3 => Action::Swap2Three,
            5 => Action::Swap2Five,
            _ => Action::Move,
        };
        self.think(controller, action)
    }

    /// Makes `moves` the position if the game takes them and is not over after them.
    fn play(&mut self, controller: &mut Controller, moves: Vec<String>) -> Result<(), String> {
        let session = controller.session_mut();
        session
            .set_position(&PositionStart::StartPos, &moves)
            // The game's reason, without the UCI `position` command's move number.
            .map_err(|e| e.split(" (move ").next().unwrap_or_default().to_string())?;
        // Renju's Black left with forbidden cells only has lost, but a move is still due.
        let ended = session.game_end().map(|end| end.reason);
        if ended.is_some_and(|reason| reason != EndReason::NoLegalMoves) {
            let _ = session.set_position(&PositionStart::StartPos, &self.moves);
            return Err("the game is over after it".to_string());
        }
        self.moves = moves;
        Ok(())
    }

    /// `INFO key value`: limits, memory, threads and the rule; other keys are ignored.
    fn info(&mut self, controller: &mut Controller, rest: &str) -> Reply {
        let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let (key, value) = (key.to_ascii_lowercase(), value.trim());
        let bad = || format!("INFO {key}: '{value}' is not a non-negative integer");
        let limits = &mut self.limits;
        match key.as_str() {
            "timeout_turn" => limits.timeout_turn = number(value).ok_or_else(bad)?,
            "timeout_match" => limits.timeout_match = number(value).ok_or_else(bad)?,
            "time_left" => limits.time_left = Some(number(value).ok_or_else(bad)?),
            // Yixin Board sends -1 for no limit.
            "max_node" => limits.max_node = no_limit_or(value).ok_or_else(bad)?,
            "max_depth" => limits.max_depth = no_limit_or(value).ok_or_else(bad)?,
            "show_detail" => {
                let detail: u32 = number(value).ok_or_else(bad)?;
                self.realtime = detail & 1 == 1;
            }
            "hash_size" => {
                // Yixin Board's table size in KiB (0: the default).
                let kib: u64 = number(value).ok_or_else(bad)?;
                let mb = if kib == 0 {
                    DEFAULT_HASH_MB as u64
                } else {
                    kib >> 10
                };
                return self.set(
                    controller,
                    OptionChange::Hash(mb.clamp(1, DEFAULT_HASH_MB as u64) as usize),
                );
            }
            "max_memory" => {
                let bytes: u64 = number(value).ok_or_else(bad)?;
                let mb = if bytes == 0 {
                    DEFAULT_HASH_MB as u64
                } else {
                    bytes >> 21
                };
                return self.set(
                    controller,
                    OptionChange::Hash(mb.clamp(1, DEFAULT_HASH_MB as u64) as usize),
                );
            }
            "thread_num" => {
                // A manager's thread count, at most the machine's cores: more threads than
                // cores only slow a Gomocup turn down (Yixin Board sends what it is told).
                let threads: u64 = number(value).ok_or_else(bad)?;
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                let threads = threads.clamp(1, cores.min(MAX_THREADS) as u64) as usize;
                return self.set(controller, OptionChange::Threads(threads));
            }
            "rule" => return self.rule(controller, number(value).ok_or_else(bad)?),
            // game_type, folder, evaluate and Yixin Board's caution_factor, pondering,
            // usedatabase, checkmate, nbestsym, vcthread...: nothing to do.
            _ => {}
        }
        Ok(None)
    }

    /// Applies an engine setting between searches.
    fn set(&mut self, controller: &mut Controller, change: OptionChange) -> Reply {
        if controller.session().is_searching() {
            return Err("INFO while thinking: the engine is busy".to_string());
        }
        controller.apply(change)?;
        Ok(None)
    }

    /// `INFO rule N`: 0 freestyle, 1 exactly five, 4 renju (2 too, Yixin Board's number);
    /// other rules (caro, swap openings) are refused, and so is a rule the game has no
    /// value of `Rule` for.
    fn rule(&mut self, controller: &mut Controller, rule: u32) -> Reply {
        if controller.session().is_searching() {
            return Err("INFO rule while thinking: the engine is busy".to_string());
        }
        let result = accept_rule(controller, rule)
            .map_err(|why| format!("rule {rule}: {why}; the engine will not move"));
        self.refused_rule = result.as_ref().err().cloned();
        // The position again, in case the variant's change made a new session.
        if self.size.is_some() {
            let _ = controller
                .session_mut()
                .set_position(&PositionStart::StartPos, &self.moves);
        }
        result.map(|()| None)
    }

    /// Starts the engine's search on the current position; its answer (what `action`
    /// asks) comes from the reporter.
    fn think(&mut self, controller: &mut Controller, action: Action) -> Reply {
        let size = self.ready()?;
        let session = controller.session_mut();
        session.set_position(&PositionStart::StartPos, &self.moves)?;
        match session.game_end().map(|end| end.reason) {
            Some(EndReason::NoLegalMoves) => return Ok(Some(self.lost_turn(size))),
            Some(_) => return Err("the game is over".to_string()),
            None => {}
        }
        let lines = match action {
            Action::NBest(count) => count,
            Action::BalanceOne(_) | Action::BalanceTwo(_) => yixin::BALANCE_LINES,
            Action::Move | Action::Swap2Three | Action::Swap2Five => 1,
        };
        session.set_multipv(lines);
        let mut params = self.go_params();
        params.searchmoves = self.unblocked_moves(session.legal_moves(), size);
        let reporter = Box::new(TurnReporter {
            height: size,
            action,
            realtime: self.realtime,
            batch: Vec::new(),
            played: self.report_played.clone(),
        });
        let out = controller.output();
        controller.session_mut().go(&params, reporter, out)?;
        Ok(None)
    }

    /// The answer when every empty cell is forbidden to Black under renju: the game is
    /// lost, but the manager waits for a move, so the first empty cell is played (and
    /// judged a forbidden move) rather than none (a loss on time). The position stays.
    fn lost_turn(&self, size: u32) -> String {
        let taken: std::collections::HashSet<&String> = self.moves.iter().collect();
        let empty = (0..size)
            .flat_map(|y| (0..size).map(move |x| (x, y)))
            .find(|&(x, y)| !taken.contains(&cell_text(x, y, size)));
        let (x, y) = empty.unwrap_or_default();
        format!("MESSAGE every empty cell is forbidden to Black: the game is lost\n{x},{y}")
    }

    /// The moves the search may choose from: all of `legal` but the blocked cells, or none
    /// (no restriction) when nothing is blocked or every move is.
    fn unblocked_moves(&self, legal: Vec<String>, size: u32) -> Vec<String> {
        if self.blocked.is_empty() {
            return Vec::new();
        }
        let blocked: Vec<String> = self
            .blocked
            .iter()
            .map(|&(x, y)| cell_text(x, y, size))
            .collect();
        let allowed: Vec<String> = legal
            .into_iter()
            .filter(|cell| !blocked.contains(cell))
            .collect();
        allowed
    }

    /// The search's limits: `timeout_turn` less a margin as a fixed time, `time_left` (when
    /// the match is timed) as the clock, `max_node` and `max_depth`.
    fn go_params(&self) -> GoParams {
        let limits = &self.limits;
        let clock = limits
            .time_left
            .filter(|_| limits.timeout_match > 0)
            .map(less_margin);
        GoParams {
            movetime: Some(less_margin(limits.timeout_turn)),
            first_time: clock,
            second_time: clock,
            nodes: (limits.max_node > 0).then_some(limits.max_node),
            depth: (limits.max_depth > 0).then_some(limits.max_depth),
            ..GoParams::default()
        }
    }
}

/// Sets the gomoku game's `Rule` for Gomocup rule `rule`, or says why it cannot.
fn accept_rule(controller: &mut Controller, rule: u32) -> Result<(), String> {
    if ![0, 1, 2, 4].contains(&rule) {
        return Err("only 0 (freestyle), 1 (exactly five) and 4 (renju) are played".to_string());
    }
    let game = games::with_dialect(PROTOCOL_NAME).unwrap_or(controller.game());
    let checked = dialect_option(game, RULE_SETTING, &rule.to_string())
        .and_then(|(option, value)| Some((option, option.check(&value).ok()?)));
    match checked {
        Some((option, value)) => {
            controller.set_game(game);
            controller.set_variant(&option, value);
            Ok(())
        }
        // Rule 0, freestyle, is what a game without a rule plays.
        None if rule == 0 => Ok(()),
        None => Err(format!("{game} here plays freestyle only")),
    }
}

/// The variant option, and its value, that `game` maps the Gomocup's `setting` at `value`
/// to, if it maps them.
fn dialect_option(game: GameKind, setting: &str, value: &str) -> Option<(VariantOption, String)> {
    game.info().protocol.dialect_option(setting, value)
}

/// A non-negative decimal number, digits only.
fn number<T: std::str::FromStr>(text: &str) -> Option<T> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A decimal number that may be negative.
fn signed(text: &str) -> Option<i32> {
    let text = text.trim();
    let digits = text.strip_prefix('-').unwrap_or(text);
    number::<i32>(digits)?;
    text.parse().ok()
}

/// A limit: a non-negative number, or a negative one for no limit (0).
fn no_limit_or<T: std::str::FromStr + Default>(text: &str) -> Option<T> {
    match signed(text) {
        Some(value) if value < 0 => Some(T::default()),
        _ => number(text),
    }
}

/// Reads `x,y` of a `YXBLOCK` into `cells`: on the board.
fn block_cell(line: &str, size: u32, cells: &mut Vec<(u32, u32)>) -> Result<(), String> {
    let (x, y) = pair(line).ok_or_else(|| format!("'{line}' is not x,y"))?;
    if x >= size || y >= size {
        return Err(format!("{x},{y} is off the {size}x{size} board"));
    }
    cells.push((x, y));
    Ok(())
}

/// `x,y` (spaces allowed around the numbers).
fn pair(text: &str) -> Option<(u32, u32)> {
    let (x, y) = text.split_once(',')?;
    Some((number(x)?, number(y)?))
}

/// Reads `x,y,field` of a `BOARD` into `stones`: on the board, no cell twice, field 1
/// (own) or 2 (opponent's).
fn board_stone(line: &str, size: u32, stones: &mut Vec<Stone>) -> Result<(), String> {
    let mut parts = line.split(',');
    let (Some(x), Some(y), Some(field), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("'{line}' is not x,y,field"));
    };
    let (Some(x), Some(y), Some(field)) = (number::<u32>(x), number::<u32>(y), number::<u8>(field))
    else {
        return Err(format!("'{line}' is not x,y,field"));
    };
    if x >= size || y >= size {
        return Err(format!("{x},{y} is off the {size}x{size} board"));
    }
    if !(1..=2).contains(&field) {
        return Err(format!(
            "field {field} at {x},{y}: only 1 (own) and 2 (opponent's) stones are played"
        ));
    }
    if stones.iter().any(|&(sx, sy, _)| (sx, sy) == (x, y)) {
        return Err(format!("two stones at {x},{y}"));
    }
    stones.push((x, y, field));
    Ok(())
}

/// The cells of the stones of `field`, in the order given.
fn stones_of(stones: &[Stone], field: u8, size: u32) -> Vec<String> {
    stones
        .iter()
        .filter(|stone| stone.2 == field)
        .map(|&(x, y, _)| cell_text(x, y, size))
        .collect()
}

/// The part of `ms` the engine may spend: less [`MARGIN_MS`] and a [`MARGIN_DIVISOR`]th,
/// at least 1 ms.
fn less_margin(ms: u64) -> u64 {
    ms.saturating_sub(MARGIN_MS + ms / MARGIN_DIVISOR).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_coordinates_round_trip() {
        assert_eq!(cell_text(0, 14, 15), "a1");
        assert_eq!(cell_text(7, 7, 15), "h8");
        assert_eq!(cell_text(14, 0, 15), "o15");
        assert_eq!(cell_text(19, 0, 20), "t20");
        for size in [5, 15, 20, 22] {
            for x in 0..size {
                for y in 0..size {
                    assert_eq!(yixin::cell_xy(&cell_text(x, y, size), size), Some((x, y)));
                }
            }
        }
        assert_eq!(yixin::cell_xy("a16", 15), None);
        assert_eq!(yixin::cell_xy("a0", 15), None);
        assert_eq!(yixin::cell_xy("A1", 15), None);
        assert_eq!(yixin::cell_xy("", 15), None);
    }

    #[test]
    fn board_lines_are_checked() {
        let mut stones = Vec::new();
        assert!(board_stone("7,7,1", 15, &mut stones).is_ok());
        assert!(board_stone(" 8 , 7 , 2", 15, &mut stones).is_ok());
        for bad in [
            "7,7,2", "15,0,1", "1,2", "1,2,3", "1,2,1,4", "a,b,c", "-1,2,1", "1,2,0",
        ] {
            assert!(board_stone(bad, 15, &mut stones).is_err(), "{bad}");
        }
        assert_eq!(stones.len(), 2);
    }

    #[test]
    fn the_gomocup_game_maps_size_and_rule() {
        let game = games::with_dialect(PROTOCOL_NAME).unwrap();
        let (size, value) = dialect_option(game, SIZE_SETTING, "20").unwrap();
        assert_eq!((size.name, value.as_str()), ("BoardSize", "20"));
        let (rule, value) = dialect_option(game, RULE_SETTING, "1").unwrap();
        assert_eq!((rule.name, value.as_str()), ("Rule", "exact5"));
        let (_, value) = dialect_option(game, RULE_SETTING, "0").unwrap();
        assert_eq!(value, "freestyle");
        let (_, value) = dialect_option(game, RULE_SETTING, "4").unwrap();
        assert_eq!(value, "renju");
        assert_eq!(dialect_option(game, RULE_SETTING, "8"), None);
        let connect4 = games::find("connect4").unwrap();
        assert_eq!(dialect_option(connect4, SIZE_SETTING, "15"), None);
    }

    #[test]
    fn the_turn_keeps_a_margin() {
        assert_eq!(less_margin(200), 130);
        assert_eq!(less_margin(30_000), 26_950);
        assert_eq!(less_margin(0), 1);
    }
}
