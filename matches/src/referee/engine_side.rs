//! An engine process as a [`Side`] of a refereed game: `ucinewgame` (in its dialect) and
//! `isready` before the game; on each turn the position, `go` with both clocks, and the
//! engine's lines read until `bestmove` within the time it is allowed. Gomocup engines are
//! played by [`gomocup`](super::gomocup).

use std::time::{Duration, Instant};

use super::adjudication::parse_info;
use super::clock::{go_command, SearchLimits};
use super::engine::{EngineFailure, EngineProcess, EngineProtocol};
use super::game::{Choice, Side, SideFailure, Turn};
use super::gomocup;
use super::record::Termination;
use super::rules::RefereeSettings;
use cutoff::protocol::dialect::NO_MOVE;
use cutoff::search::Game;

// Starting an engine is the one step that differs by protocol as a whole, so it is here,
// beside both protocols, and not in the process's own file.
impl EngineProcess {
    /// Handshake in the engine's dialect (`uai` until `uaiok`, within `startup`), options,
    /// then `isready`/`readyok` (within `timeout`). A Gomocup engine is asked `ABOUT`
    /// instead; its options are sent before each game.
    pub fn init(
        &mut self,
        startup: Duration,
        timeout: Duration,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<(), (EngineFailure, &'static str)> {
        let dialect = match self.config.proto {
            EngineProtocol::Text(dialect) => dialect,
            EngineProtocol::Gomocup => {
                return gomocup::handshake(self, startup, interrupted).map_err(|e| (e, "ABOUT"))
            }
        };
        self.send(dialect.handshake())
            .map_err(|e| (e, "handshake"))?;
        self.wait_for(dialect.reply(), Instant::now() + startup, interrupted)
            .map_err(|e| (e, "handshake"))?;
        for (name, value) in self.config.options.clone() {
            self.send(&format!("setoption name {name} value {value}"))
                .map_err(|e| (e, "setoption"))?;
        }
        self.ready(timeout, interrupted).map_err(|e| (e, "isready"))
    }
}

/// The forfeit of an engine that exited or closed its output.
fn crash() -> SideFailure {
    SideFailure::Forfeit(
        Termination::Crash,
        "disconnected (crashed or exited)".to_string(),
    )
}

/// The engine's answer to `go`: its `bestmove` line with the last score and depth of the
/// `info` lines before it.
struct Answer {
    line: String,
    score: Option<String>,
    depth: Option<u32>,
}

/// Reads the engine's lines until `bestmove`, at most until `deadline`; `timed` words a
/// timeout as a loss on time, `allowed` is the time it had.
fn read_answer(
    engine: &mut EngineProcess,
    deadline: Instant,
    allowed: Duration,
    timed: bool,
    interrupted: &dyn Fn() -> bool,
) -> Result<Answer, SideFailure> {
    let (mut score, mut depth) = (None, None);
    loop {
        match engine.read_line(deadline, interrupted) {
            Ok(line) => {
                let first = line.split_whitespace().next();
                if first == Some("bestmove") {
                    return Ok(Answer { line, score, depth });
                }
                if first == Some("info") {
                    let (s, d) = parse_info(&line);
                    score = s.or(score);
                    depth = d.or(depth);
                }
            }
            Err(EngineFailure::Interrupted) => return Err(SideFailure::Interrupted),
            Err(EngineFailure::Timeout) => {
                let reason = if timed {
                    format!("loses on time ({} ms allowed)", allowed.as_millis())
                } else {
                    format!("sent no bestmove within {} ms", allowed.as_millis())
                };
                return Err(SideFailure::Forfeit(Termination::TimeForfeit, reason));
            }
            Err(_) => return Err(crash()),
        }
    }
}

/// The move of a `bestmove` line that took `time_ms`, or the forfeit of a line without
/// one.
fn bestmove(answer: Answer, time_ms: u64) -> Result<Choice, SideFailure> {
    let Some(text) = answer.line.split_whitespace().nth(1).map(str::to_string) else {
        let reason = "sent 'bestmove' without a move".to_string();
        return Err(SideFailure::Forfeit(Termination::MalformedBestmove, reason));
    };
    if text == NO_MOVE {
        let reason = format!("sent 'bestmove {text}' in a position with legal moves");
        return Err(SideFailure::Forfeit(Termination::MalformedBestmove, reason));
    }
    Ok(Choice::Move {
        text,
        time_ms,
        score: answer.score,
        depth: answer.depth,
    })
}

/// Asks `engine` for a move: sends `command` and `go`, then reads until `bestmove`, at
/// most until `allowed` has passed. `timed` words a timeout as a loss on time.
pub fn ask_engine(
    engine: &mut EngineProcess,
    command: &str,
    go: &str,
    allowed: Duration,
    timed: bool,
    interrupted: &dyn Fn() -> bool,
) -> Result<Choice, SideFailure> {
    if engine.send(command).and_then(|()| engine.send(go)).is_err() {
        return Err(crash());
    }
    let started = Instant::now();
    let answer = read_answer(engine, started + allowed, allowed, timed, interrupted)?;
    let time_ms = started.elapsed().as_millis() as u64;
    bestmove(answer, time_ms)
}

impl<G: Game> Side<G> for EngineProcess {
    fn name(&self) -> &str {
        &self.config.name
    }

    fn limits(&self) -> SearchLimits {
        self.config.limits
    }

    fn new_game(
        &mut self,
        settings: &RefereeSettings,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<(), SideFailure> {
        let dialect = match self.config.proto {
            EngineProtocol::Text(dialect) => dialect,
            EngineProtocol::Gomocup => return gomocup::new_game(self, settings, interrupted),
        };
        let status = self
            .send(dialect.new_game())
            .and_then(|()| self.ready(settings.ready_timeout, interrupted));
        match status {
            Ok(()) => Ok(()),
            Err(EngineFailure::Interrupted) => Err(SideFailure::Interrupted),
            Err(EngineFailure::Timeout) => Err(SideFailure::Forfeit(
                Termination::NotReady,
                format!(
                    "did not answer isready within {} ms",
                    settings.ready_timeout.as_millis()
                ),
            )),
            Err(_) => Err(crash()),
        }
    }

    fn play(
        &mut self,
        turn: &Turn<'_, G>,
        settings: &RefereeSettings,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<Choice, SideFailure> {
        let dialect = match self.config.proto {
            EngineProtocol::Text(dialect) => dialect,
            EngineProtocol::Gomocup => return gomocup::play(self, turn, settings, interrupted),
        };
        let limits = self.config.limits;
        let go = go_command(dialect, &limits, turn.clocks, turn.index);
        let margin = self.config.time_margin.unwrap_or(settings.time_margin);
        let allowed = turn.clocks[turn.index].allowed(&limits, margin, settings.move_timeout);
        ask_engine(
            self,
            turn.command,
            &go,
            allowed,
            limits.is_timed(),
            interrupted,
        )
    }

    fn tail(&self) -> Vec<String> {
        EngineProcess::tail(self)
    }
}
