//! The UCI family's front end: UCI, UGI and UAI lines parsed into [`Command`]s and
//! executed against the [`Controller`]; search reports written as `info` and `bestmove`.
//!
//! The handshake chooses the dialect (UCI, UGI or UAI). UAI exists only for Ataxx, so `uai`
//! also selects Ataxx when another game is current (an Ataxx GUI starts the engine without
//! `--game`); `uci` and `ugi` keep the current game.
//!
//! `isready`, `stop` and `quit` are answered while a search runs because the front end
//! never blocks on a search except to wait for the one `bestmove` after a stop.

use super::command::{parse, Command};
use super::controller::{BenchCommand, Controller, ENGINE_AUTHOR, ENGINE_NAME};
use super::format::{format_bestmove, format_info, Dialect};
use super::frontend::{shorten_long_words, FrontEnd};
use super::genfens::{read_book, GenfensRequest};
use super::options::{missing_for_game, option_lines, parse_option};
use super::session::Reporter;
use crate::games;
use crate::search::{SearchInfo, Wdl};

/// The front end of UCI, UGI and UAI: the dialect the last handshake chose, `debug`, and
/// the `bench` command.
pub struct UciFamily {
    dialect: Dialect,
    debug: bool,
    bench: BenchCommand,
}

/// Writes a search's reports in a dialect of the UCI family.
struct UciReporter {
    dialect: Dialect,
    /// `UCI_ShowWDL`: write the chances after the score.
    show_wdl: bool,
}

impl Reporter for UciReporter {
    fn iteration(&mut self, info: &SearchInfo<String>, wdl: Option<Wdl>) -> Option<String> {
        Some(format_info(info, &info.pv, wdl.filter(|_| self.show_wdl)))
    }

    fn finished(&mut self, line: &[String]) -> Vec<String> {
        vec![format_bestmove(line, self.dialect)]
    }
}

impl FrontEnd for UciFamily {
    fn handle_line(&mut self, controller: &mut Controller, line: &str) -> bool {
        log::debug!("<< {}", line.trim_end());
        let command = match parse(line) {
            Ok(Some(command)) => command,
            Ok(None) => return true,
            Err(e) => {
                error(controller, e);
                return true;
            }
        };
        match command {
            Command::Quit => return false,
            Command::Uci | Command::Ugi | Command::Uai => self.handshake(controller, &command),
            Command::IsReady => controller.send("readyok"),
            Command::Debug(on) => self.debug = on,
            Command::Register => {}
            Command::Stop => controller.session_mut().stop(),
            Command::PonderHit => controller.session().ponderhit(),
            Command::SetOption { name, value } => {
                self.set_option(controller, &name, value.as_deref())
            }
            Command::NewGame(sent) => {
                if !refuse_while_searching(controller, sent.new_game()) {
                    controller.new_game();
                }
            }
            Command::Position { start, moves } => {
                if let Err(e) = controller.session_mut().set_position(&start, &moves) {
                    error(controller, format!("{e}; the position is unchanged"));
                }
            }
            Command::Go(params) => self.go(controller, params),
            Command::Genfens(request) => genfens(controller, &request),
            other => self.inspect(controller, other),
        }
        true
    }

    fn refuse_input(&mut self, controller: &mut Controller, reason: &str) {
        error(controller, reason);
    }
}

impl UciFamily {
    /// The front end before any handshake (UCI words), `bench` answered by `bench`.
    pub fn new(bench: BenchCommand) -> UciFamily {
        UciFamily {
            dialect: Dialect::Uci,
            debug: false,
            bench,
        }
    }

    /// `go`: a search, or `go perft N`.
    fn go(&self, controller: &mut Controller, params: super::command::GoParams) {
        if let Some(depth) = params.perft {
            if !refuse_while_searching(controller, "go perft") {
                send_all(controller, controller.session().perft(depth));
            }
            return;
        }
        let params = params.in_dialect(self.dialect);
        let reporter = Box::new(UciReporter {
            dialect: self.dialect,
            show_wdl: controller.show_wdl(),
        });
        let out = controller.output();
        if let Err(e) = controller.session_mut().go(&params, reporter, out) {
            error(controller, e);
        }
    }

    /// The commands that only look at the position: `query`, `d`, `eval`, `perft`, and
    /// `bench`.
    fn inspect(&self, controller: &mut Controller, command: Command) {
        match command {
            Command::Query(query) => controller.send(controller.session().query(query)),
            Command::Display => send_all(controller, controller.session().display()),
            Command::Eval => send_all(controller, controller.session().eval()),
            Command::Perft(depth) => {
                if !refuse_while_searching(controller, "perft") {
                    send_all(controller, controller.session().perft(depth));
                }
            }
            Command::Bench(depth) => {
                if !refuse_while_searching(controller, "bench") {
                    send_all(controller, (self.bench)(depth, controller.hash_mb()));
                }
            }
            _ => log::error!("{command:?} reached the inspection commands"),
        }
    }

    /// Answers `uci`, `ugi` or `uai`: the dialect, the game it selects if it belongs to one
    /// (UAI: Ataxx), the engine's id and options (the current game's variant options
    /// among them).
    fn handshake(&mut self, controller: &mut Controller, command: &Command) {
        let dialect = match command {
            Command::Uci => Dialect::Uci,
            Command::Ugi => Dialect::Ugi,
            _ => Dialect::Uai,
        };
        let owner = games::with_dialect(dialect.handshake());
        if let Some(owner) = owner.filter(|&owner| owner != controller.game()) {
            // Refused, the engine keeps its dialect as well as its game.
            if refuse_while_searching(controller, dialect.handshake()) {
                return;
            }
            controller.set_game(owner);
        }
        self.dialect = dialect;
        controller.send(format!("id name {ENGINE_NAME}"));
        controller.send(format!("id author {ENGINE_AUTHOR}"));
        send_all(controller, option_lines(controller.game()));
        controller.send(self.dialect.reply());
    }

    fn set_option(&mut self, controller: &mut Controller, name: &str, value: Option<&str>) {
        let change = match parse_option(name, value, controller.game()) {
            Ok(change) => change,
            Err(e) => return error(controller, e),
        };
        if let Some(e) = missing_for_game(&change, controller.game()) {
            return error(controller, e);
        }
        if refuse_while_searching(controller, "setoption") {
            return;
        }
        match controller.apply(change) {
            Ok(note) => {
                if let Some(note) = note {
                    controller.send(format!("info string {note}"));
                }
                if self.debug {
                    controller.send(format!("info string option {name} set"));
                }
            }
            Err(e) => error(controller, e),
        }
    }
}

/// `genfens`: one `info string genfens <FEN>` line per opening, or an error (a search
/// running, a book that cannot be read, too few openings found).
fn genfens(controller: &Controller, request: &GenfensRequest) {
    if refuse_while_searching(controller, "genfens") {
        return;
    }
    let book = match &request.book {
        Some(path) => match read_book(path) {
            Ok(book) => book,
            Err(e) => return error(controller, e),
        },
        None => Vec::new(),
    };
    let mut emit = |fen: String| controller.send(format!("info string genfens {fen}"));
    if let Err(e) = controller.session().genfens(request, &book, &mut emit) {
        error(controller, e);
    }
}

/// Prints `info string error: ...`, huge quoted input shortened.
fn error(controller: &Controller, message: impl std::fmt::Display) {
    let message = message.to_string();
    controller.send(format!(
        "info string error: {}",
        shorten_long_words(&message)
    ));
}

/// Sends every line.
fn send_all(controller: &Controller, lines: Vec<String>) {
    for line in lines {
        controller.send(line);
    }
}

/// Whether a search runs, in which case `what` is refused with an error.
fn refuse_while_searching(controller: &Controller, what: &str) -> bool {
    let searching = controller.session().is_searching();
    if searching {
        error(
            controller,
            format!("'{what}' is not allowed during a search: send 'stop' first"),
        );
    }
    searching
}
