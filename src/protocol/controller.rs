//! The protocol loop: a reader thread forwards input lines, the controller executes them in
//! order (only `go` runs in the background), and a writer thread owns stdout.
//!
//! The handshake chooses the dialect (UCI, UGI or UAI). UAI exists only for Ataxx, so `uai`
//! also selects Ataxx when another game is current (an Ataxx GUI starts the engine without
//! `--game`); `uci` and `ugi` keep the current game.
//!
//! `isready`, `stop` and `quit` are answered while a search runs because the controller
//! never blocks on a search except to wait for the one `bestmove` after a stop.
//!
//! The protocol knows no tool: the `bench` command runs the [`BenchCommand`] that
//! `main.rs` passes to [`run`].

use std::io::{BufRead, Write};
use std::thread;
use std::time::Duration;

use crossbeam_channel::{unbounded, Receiver, Sender};

use super::command::{parse, Command};
use super::format::Dialect;
use super::options::{
    missing_for_game, net_by_default, option_lines, parse_option, OptionChange, DEFAULT_HASH_MB,
    DEFAULT_MOVE_OVERHEAD_MS,
};
use super::session::{new_session, Session};
use crate::games::{self, EvalNet, Evaluation, GameKind, VariantSettings};

/// Engine name printed by the handshake.
pub const ENGINE_NAME: &str = concat!("cutoff ", env!("CARGO_PKG_VERSION"));
/// Authors printed by the handshake.
pub const ENGINE_AUTHOR: &str = "the cutoff developers";

/// The `bench` command, wired in by the caller of [`run`]: given the depth that overrides
/// every game's default (if any) and the hash size in MiB, it returns the report's lines.
pub type BenchCommand = fn(Option<u32>, usize) -> Vec<String>;

/// What the reader thread hands the controller.
enum Input {
    Line(String),
    Eof,
}

/// Runs the protocol until `quit` or end of input, `bench` answered by `bench`. Returns the
/// process exit code.
pub fn run<R, W>(input: R, output: W, game: GameKind, bench: BenchCommand) -> i32
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let (out_tx, out_rx) = unbounded::<String>();
    let writer = thread::Builder::new()
        .name("writer".to_string())
        .spawn(move || write_lines(output, out_rx));
    let (in_tx, in_rx) = unbounded::<Input>();
    // The reader may stay blocked on stdin after `quit`; it is not joined.
    let reader = thread::Builder::new()
        .name("reader".to_string())
        .spawn(move || read_lines(input, in_tx));
    if reader.is_err() {
        log::error!("cannot start the reader thread");
        return 1;
    }
    let mut controller = Controller::new(game, out_tx, bench);
    for input in in_rx.iter() {
        match input {
            Input::Line(line) => {
                if !controller.handle_line(&line) {
                    break;
                }
            }
            Input::Eof => break,
        }
    }
    controller.shutdown();
    drop(controller);
    if let Ok(writer) = writer {
        let _ = writer.join();
    }
    0
}

fn read_lines<R: BufRead>(mut input: R, to_controller: Sender<Input>) {
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match input.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buffer).into_owned();
                if to_controller.send(Input::Line(line)).is_err() {
                    return;
                }
            }
        }
    }
    let _ = to_controller.send(Input::Eof);
}

fn write_lines<W: Write>(mut output: W, lines: Receiver<String>) {
    for line in lines.iter() {
        log::debug!(">> {line}");
        if writeln!(output, "{line}")
            .and_then(|_| output.flush())
            .is_err()
        {
            return;
        }
    }
}

/// Executes commands in order against the current game session.
struct Controller {
    out: Sender<String>,
    dialect: Dialect,
    session: Box<dyn Session>,
    game: GameKind,
    hash_mb: usize,
    move_overhead: Duration,
    threads: usize,
    multipv: usize,
    chess960: bool,
    /// The network `EvalFile` loaded, with the game it was loaded for.
    eval_file: Option<(GameKind, EvalNet)>,
    /// `UseNNUE` (on at the start, whatever the game): evaluate with `eval_file`'s
    /// network, else the game's default (its built-in network, if it has one); off: the
    /// hand-crafted evaluation.
    use_net: bool,
    debug: bool,
    bench: BenchCommand,
}

impl Controller {
    fn new(game: GameKind, out: Sender<String>, bench: BenchCommand) -> Controller {
        Controller {
            out,
            dialect: Dialect::Uci,
            session: new_session(game, DEFAULT_HASH_MB, &VariantSettings::default()),
            game,
            hash_mb: DEFAULT_HASH_MB,
            move_overhead: Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS),
            threads: 1,
            multipv: 1,
            chess960: false,
            eval_file: None,
            use_net: true,
            debug: false,
            bench,
        }
    }

    /// How the current game evaluates: with `UseNNUE` on, `EvalFile`'s network, else the
    /// game's default (its built-in network, if any); with it off, the hand-crafted
    /// evaluation.
    fn evaluation(&self) -> Evaluation {
        if !self.use_net {
            return Evaluation::HandCrafted;
        }
        match &self.eval_file {
            Some((kind, net)) if *kind == self.game => Evaluation::Net(net.clone()),
            _ => Evaluation::BuiltIn,
        }
    }

    /// Whether the current game would evaluate with a network if `UseNNUE` were on.
    fn has_net(&self) -> bool {
        matches!(&self.eval_file, Some((kind, _)) if *kind == self.game)
            || net_by_default(self.game)
    }

    /// Replaces the session (another game, variant or evaluation), carrying the settings
    /// over.
    fn rebuild_session(&mut self) {
        self.session.stop();
        let settings = VariantSettings {
            chess960: self.chess960,
            evaluation: self.evaluation(),
        };
        let mut session = new_session(self.game, self.hash_mb, &settings);
        session.set_move_overhead(self.move_overhead);
        session.set_threads(self.threads);
        session.set_multipv(self.multipv);
        self.session = session;
    }

    fn send(&self, line: impl Into<String>) {
        let _ = self.out.send(line.into());
    }

    fn error(&self, message: impl std::fmt::Display) {
        self.send(format!("info string error: {message}"));
    }

    /// Handles one input line; `false` means quit.
    fn handle_line(&mut self, line: &str) -> bool {
        log::debug!("<< {}", line.trim_end());
        let command = match parse(line) {
            Ok(Some(command)) => command,
            Ok(None) => return true,
            Err(e) => {
                self.error(e);
                return true;
            }
        };
        match command {
            Command::Uci | Command::Ugi | Command::Uai => self.handshake(&command),
            Command::IsReady => self.send("readyok"),
            Command::Debug(on) => self.debug = on,
            Command::Register => {}
            Command::Quit => return false,
            Command::Stop => self.session.stop(),
            Command::PonderHit => self.session.ponderhit(),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::NewGame(sent) => {
                if self.refuse_while_searching(sent.new_game()) {
                    return true;
                }
                self.session.new_game();
            }
            Command::Position { start, moves } => {
                if let Err(e) = self.session.set_position(&start, &moves) {
                    self.error(format!("{e}; the position is unchanged"));
                }
            }
            Command::Go(params) => {
                if let Some(depth) = params.perft {
                    if !self.refuse_while_searching("go perft") {
                        self.perft(depth);
                    }
                } else {
                    let params = params.in_dialect(self.dialect);
                    if let Err(e) = self.session.go(&params, self.dialect, self.out.clone()) {
                        self.error(e);
                    }
                }
            }
            Command::Query(query) => self.send(self.session.query(query)),
            Command::Display => {
                for line in self.session.display() {
                    self.send(line);
                }
            }
            Command::Eval => {
                for line in self.session.eval() {
                    self.send(line);
                }
            }
            Command::Perft(depth) => {
                if !self.refuse_while_searching("perft") {
                    self.perft(depth);
                }
            }
            Command::Bench(depth) => {
                if !self.refuse_while_searching("bench") {
                    for line in (self.bench)(depth, self.hash_mb) {
                        self.send(line);
                    }
                }
            }
        }
        true
    }

    /// Answers `uci`, `ugi` or `uai`: the dialect, the game it selects if it belongs to one
    /// (UAI: Ataxx), the engine's id and options.
    fn handshake(&mut self, command: &Command) {
        let dialect = match command {
            Command::Uci => Dialect::Uci,
            Command::Ugi => Dialect::Ugi,
            _ => Dialect::Uai,
        };
        let owner = games::with_dialect(dialect.handshake());
        if let Some(owner) = owner.filter(|&owner| owner != self.game) {
            // Refused, the engine keeps its dialect as well as its game.
            if self.refuse_while_searching(dialect.handshake()) {
                return;
            }
            self.game = owner;
            self.rebuild_session();
        }
        self.dialect = dialect;
        self.send(format!("id name {ENGINE_NAME}"));
        self.send(format!("id author {ENGINE_AUTHOR}"));
        for line in option_lines(self.game) {
            self.send(line);
        }
        self.send(self.dialect.reply());
    }

    fn refuse_while_searching(&self, what: &str) -> bool {
        let searching = self.session.is_searching();
        if searching {
            self.error(format!(
                "'{what}' is not allowed during a search: send 'stop' first"
            ));
        }
        searching
    }

    fn perft(&self, depth: u32) {
        for line in self.session.perft(depth) {
            self.send(line);
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let change = match parse_option(name, value) {
            Ok(change) => change,
            Err(e) => return self.error(e),
        };
        if let Some(e) = missing_for_game(&change, self.game) {
            return self.error(e);
        }
        if self.refuse_while_searching("setoption") {
            return;
        }
        match change {
            OptionChange::Hash(mb) => match self.session.resize_hash(mb) {
                Ok(()) => self.hash_mb = mb,
                Err(e) => return self.error(e),
            },
            OptionChange::ClearHash => self.session.clear_hash(),
            OptionChange::MoveOverhead(ms) => {
                self.move_overhead = Duration::from_millis(ms);
                self.session.set_move_overhead(self.move_overhead);
            }
            OptionChange::Threads(threads) => {
                self.threads = threads;
                self.session.set_threads(threads);
            }
            OptionChange::Ponder(_) => {}
            OptionChange::MultiPv(lines) => {
                self.multipv = lines;
                self.session.set_multipv(lines);
            }
            OptionChange::Game(kind) => {
                if kind != self.game {
                    self.game = kind;
                    self.rebuild_session();
                }
            }
            OptionChange::EvalFile(path) => {
                if !self.set_eval_file(path) {
                    return;
                }
            }
            OptionChange::UseNnue(on) => {
                if on && !self.has_net() {
                    return self.error(
                        "UseNNUE needs a network: set EvalFile first (none is built in); \
                         the evaluation is unchanged",
                    );
                }
                if on != self.use_net {
                    self.use_net = on;
                    self.rebuild_session();
                }
            }
            OptionChange::Chess960(on) => {
                if on != self.chess960 {
                    self.chess960 = on;
                    if self.game.info().chess960 {
                        self.rebuild_session();
                    }
                }
            }
        }
        if self.debug {
            self.send(format!("info string option {name} set"));
        }
    }

    /// Loads the net at `path` for the current game (`None`: back to the built-in one);
    /// false, with the evaluation unchanged, if the file is refused.
    fn set_eval_file(&mut self, path: Option<String>) -> bool {
        let Some(support) = self.game.info().eval_net else {
            return false;
        };
        match path {
            None => self.eval_file = None,
            Some(path) => match (support.load)(std::path::Path::new(&path)) {
                Ok(net) => {
                    self.eval_file = Some((self.game, net));
                    self.send(format!("info string EvalFile {path} loaded"));
                }
                Err(e) => {
                    self.error(format!(
                        "EvalFile refused: {e}; the evaluation is unchanged"
                    ));
                    return false;
                }
            },
        }
        if self.use_net {
            self.rebuild_session();
        }
        true
    }

    fn shutdown(&mut self) {
        self.session.stop();
    }
}
