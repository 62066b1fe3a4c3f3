//! The referee: plays one game between two engine processes, checking every move with
//! cutoff's own rules (generic over [`Game`]) and keeping the clocks itself.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::engine::{EngineFailure, EngineProcess, Proto};
use crate::search::{Game, GameResult, Player};

/// How long an engine may think, as `go` tells it and the referee enforces it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SearchLimits {
    /// Clock: base time in ms.
    pub base_ms: Option<u64>,
    /// Clock: increment per move in ms.
    pub inc_ms: u64,
    /// Clock: moves per period (the base is added again after them).
    pub moves_per_period: Option<u32>,
    /// Fixed time per move in ms.
    pub movetime_ms: Option<u64>,
    /// Fixed depth.
    pub depth: Option<u32>,
    /// Fixed node count.
    pub nodes: Option<u64>,
}

impl SearchLimits {
    /// Whether the limits bound the time the engine may think (a clock or a move time).
    pub fn is_timed(&self) -> bool {
        self.base_ms.is_some() || self.movetime_ms.is_some()
    }

    /// The time control in PGN's `TimeControl` style (`40/10+0.1`, `10+0.1`, `st=0.1`, `-`).
    pub fn describe(&self) -> String {
        let secs = |ms: u64| {
            let text = format!("{:.3}", ms as f64 / 1000.0);
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        let mut parts = Vec::new();
        if let Some(base) = self.base_ms {
            let moves = self
                .moves_per_period
                .map(|m| format!("{m}/"))
                .unwrap_or_default();
            parts.push(format!("{moves}{}+{}", secs(base), secs(self.inc_ms)));
        }
        if let Some(ms) = self.movetime_ms {
            parts.push(format!("st={}", secs(ms)));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if parts.is_empty() {
            "-".to_string()
        } else {
            parts.join(" ")
        }
    }
}

/// Referee settings shared by every game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RefereeSettings {
    /// Time an engine may overrun its clock or move time before it loses on time.
    pub time_margin: Duration,
    /// Time to answer the `uci`/`ugi` handshake after start-up before forfeiting.
    pub startup_timeout: Duration,
    /// Time to answer `isready` before forfeiting.
    pub ready_timeout: Duration,
    /// Longest wait for a `bestmove` when no clock bounds the search (depth/nodes limits).
    pub move_timeout: Duration,
    /// Draw adjudication by engine scores, if enabled.
    pub draw_rule: Option<DrawRule>,
    /// Resign adjudication by engine scores, if enabled.
    pub resign_rule: Option<ResignRule>,
}

/// Adjudicates a draw once both engines have reported scores within `±score` centipawns
/// for `move_count` consecutive moves each, from full move `move_number` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DrawRule {
    /// First full move at which a draw may be adjudicated.
    pub move_number: u32,
    /// Consecutive moves of each engine with a small score.
    pub move_count: u32,
    /// Largest absolute score (centipawns) that counts as drawn.
    pub score: i32,
}

/// Adjudicates a loss for an engine that reported `-score` centipawns or worse for
/// `move_count` consecutive moves of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ResignRule {
    /// Consecutive own moves with a losing score.
    pub move_count: u32,
    /// Score (centipawns, positive) at or below whose negation an engine is lost.
    pub score: i32,
}

/// An engine's reported score (`cp N` or `mate N`) in centipawns; mates are ±100,000
/// minus the distance.
fn score_centipawns(score: &str) -> Option<i32> {
    let (kind, value) = score.split_once(' ')?;
    let value: i32 = value.trim().parse().ok()?;
    match kind {
        "cp" => Some(value),
        "mate" if value > 0 => Some(100_000 - value),
        "mate" => Some(-100_000 - value),
        _ => None,
    }
}

/// Applies the adjudication rules to the moves played so far; `opening_plies` counts the
/// book moves before them. Returns the result and the reason.
fn adjudicate(
    moves: &[PlayedMove],
    opening_plies: usize,
    last_mover: Player,
    settings: &RefereeSettings,
) -> Option<(GameResult, String)> {
    let scores = |count: usize, step: usize| -> Option<Vec<i32>> {
        let wanted: Vec<&PlayedMove> = moves.iter().rev().step_by(step).take(count).collect();
        if wanted.len() < count {
            return None;
        }
        wanted
            .iter()
            .map(|m| m.score.as_deref().and_then(score_centipawns))
            .collect()
    };
    if let Some(rule) = settings.resign_rule {
        if let Some(own) = scores(rule.move_count.max(1) as usize, 2) {
            if own.iter().all(|&s| s <= -rule.score) {
                let result = match last_mover {
                    Player::First => GameResult::SecondWins,
                    Player::Second => GameResult::FirstWins,
                };
                let reason = format!(
                    "adjudicated: the loser's score was at or below -{} cp for {} moves",
                    rule.score, rule.move_count
                );
                return Some((result, reason));
            }
        }
    }
    if let Some(rule) = settings.draw_rule {
        let full_move = (opening_plies + moves.len()) / 2 + 1;
        if full_move as u32 >= rule.move_number {
            if let Some(both) = scores(2 * rule.move_count.max(1) as usize, 1) {
                if both.iter().all(|s| s.abs() <= rule.score) {
                    let reason = format!(
                        "adjudicated draw: scores within ±{} cp for {} moves",
                        rule.score, rule.move_count
                    );
                    return Some((GameResult::Draw, reason));
                }
            }
        }
    }
    None
}

impl Default for RefereeSettings {
    fn default() -> Self {
        RefereeSettings {
            time_margin: Duration::ZERO,
            startup_timeout: Duration::from_secs(10),
            ready_timeout: Duration::from_secs(10),
            move_timeout: Duration::from_secs(60),
            draw_rule: None,
            resign_rule: None,
        }
    }
}

/// The start of a game: a position (start or FEN) and moves played from it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Opening {
    /// FEN of the first position; the game's start position when `None`.
    pub fen: Option<String>,
    /// Moves played from it before the engines take over.
    pub moves: Vec<String>,
}

impl Opening {
    /// The position after the opening, checking the FEN and every move.
    pub fn position<G: Game>(&self, variant: &G::Variant) -> Result<G, String> {
        self.position_and_record(variant)
            .map(|(position, _)| position)
    }

    /// The position after the opening and the opening's moves in record notation.
    pub fn position_and_record<G: Game>(
        &self,
        variant: &G::Variant,
    ) -> Result<(G, Vec<String>), String> {
        let mut position = match &self.fen {
            Some(fen) => G::from_fen(variant, fen).map_err(|e| e.to_string())?,
            None => G::start(variant),
        };
        let mut record = Vec::with_capacity(self.moves.len());
        for text in &self.moves {
            if position.game_end().is_some() {
                return Err(format!("opening move '{text}' after the game has ended"));
            }
            let mv = position.parse_move(text).map_err(|e| e.to_string())?;
            record.push(position.format_move_record(mv));
            position.make_move(mv);
        }
        if game_end(&position).is_some() {
            return Err("the opening ends the game".to_string());
        }
        Ok((position, record))
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// By the rules of the game.
    Normal,
    /// An engine played an illegal or unparsable move.
    IllegalMove,
    /// An engine overran its clock or move time, or never answered `go`.
    TimeForfeit,
    /// An engine exited or closed its output.
    Crash,
    /// An engine's `bestmove` line had no move, or `(none)` while moves were legal.
    MalformedBestmove,
    /// An engine did not answer `isready` in time.
    NotReady,
    /// The match was stopped during the game, or a person quit it; it has no result.
    Interrupted,
    /// Ended by the draw or resign rule on the engines' scores.
    Adjudication,
}

impl Termination {
    /// PGN `Termination` tag value.
    pub fn pgn_tag(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove | Termination::MalformedBestmove => "illegal move",
            Termination::Crash | Termination::NotReady => "abandoned",
            Termination::Interrupted => "unterminated",
            Termination::Adjudication => "adjudication",
        }
    }
}

/// One move as played, with the engine's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayedMove {
    /// The move in the game's notation.
    pub text: String,
    /// The move as game records write it (SAN in chess).
    pub record_text: String,
    /// Time from `go` to `bestmove`, in ms.
    pub time_ms: u64,
    /// Last `score` the engine reported (`cp N` or `mate N`), if any.
    pub score: Option<String>,
    /// Last `depth` the engine reported, if any.
    pub depth: Option<u32>,
}

/// A finished (or interrupted) game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameRecord {
    /// Name of the first player's engine.
    pub first: String,
    /// Name of the second player's engine.
    pub second: String,
    /// Where the game started.
    pub opening: Opening,
    /// FEN of the position after the opening.
    pub start_fen: String,
    /// The opening's moves as game records write them (SAN in chess).
    pub opening_record: Vec<String>,
    /// Moves played by the engines.
    pub moves: Vec<PlayedMove>,
    /// `None` when interrupted.
    #[serde(serialize_with = "serialize_result")]
    pub result: Option<GameResult>,
    /// How it ended.
    pub termination: Termination,
    /// The reason in words.
    pub reason: String,
    /// The faulty engine's last output lines, for forfeits.
    pub engine_tail: Vec<String>,
}

impl GameRecord {
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn result_text(&self) -> &'static str {
        match self.result {
            Some(GameResult::FirstWins) => "1-0",
            Some(GameResult::SecondWins) => "0-1",
            Some(GameResult::Draw) => "1/2-1/2",
            None => "*",
        }
    }
}

/// Writes a result as `1-0`, `0-1`, `1/2-1/2` or `*`.
fn serialize_result<S: serde::Serializer>(
    result: &Option<GameResult>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(match result {
        Some(GameResult::FirstWins) => "1-0",
        Some(GameResult::SecondWins) => "0-1",
        Some(GameResult::Draw) => "1/2-1/2",
        None => "*",
    })
}

/// The end of the game by the rules, if reached: result and reason. The rules are the
/// game's own ([`Game::game_end`]), as `query gameover` and datagen see them.
fn game_end<G: Game>(position: &G) -> Option<(GameResult, String)> {
    let end = position.game_end()?;
    let names = [player_name(Player::First), player_name(Player::Second)];
    Some((end.result, end.describe(names)))
}

fn player_name(player: Player) -> &'static str {
    match player {
        Player::First => "first player",
        Player::Second => "second player",
    }
}

/// The `go` command for the side to move.
fn go_command(proto: Proto, limits: &SearchLimits, clocks: &[Clock; 2], side: usize) -> String {
    let mut go = String::from("go");
    if limits.base_ms.is_some() {
        let (t1, t2, i1, i2) = match proto {
            Proto::Uci => ("wtime", "btime", "winc", "binc"),
            Proto::Ugi => ("p1time", "p2time", "p1inc", "p2inc"),
        };
        go += &format!(
            " {t1} {} {t2} {} {i1} {} {i2} {}",
            clocks[0].remaining_ms, clocks[1].remaining_ms, clocks[0].inc_ms, clocks[1].inc_ms
        );
    }
    if let Some(left) = clocks[side].moves_to_go {
        go += &format!(" movestogo {left}");
    }
    if let Some(ms) = limits.movetime_ms {
        go += &format!(" movetime {ms}");
    }
    if let Some(d) = limits.depth {
        go += &format!(" depth {d}");
    }
    if let Some(n) = limits.nodes {
        go += &format!(" nodes {n}");
    }
    go
}

/// One player's clock.
#[derive(Clone, Copy, Debug)]
struct Clock {
    remaining_ms: u64,
    inc_ms: u64,
    moves_to_go: Option<u32>,
}

impl Clock {
    fn new(limits: &SearchLimits) -> Clock {
        Clock {
            remaining_ms: limits.base_ms.unwrap_or(0),
            inc_ms: limits.inc_ms,
            moves_to_go: limits.moves_per_period,
        }
    }
}

/// Score and depth of an `info` line, when it has them.
fn parse_info(line: &str) -> (Option<String>, Option<u32>) {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut score = None;
    let mut depth = None;
    for (i, token) in tokens.iter().enumerate() {
        match *token {
            "score" if i + 2 < tokens.len() => {
                score = Some(format!("{} {}", tokens[i + 1], tokens[i + 2]))
            }
            "depth" if i + 1 < tokens.len() => depth = tokens[i + 1].parse().ok(),
            _ => {}
        }
    }
    (score, depth)
}

/// What a side does on its turn.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    /// A move in the game's notation (the referee checks it), with the side's report.
    Move {
        /// The move as the side wrote it.
        text: String,
        /// Thinking time in ms.
        time_ms: u64,
        /// Last `score` reported, if any.
        score: Option<String>,
        /// Last `depth` reported, if any.
        depth: Option<u32>,
    },
    /// Take back the last full move: the last move of each side.
    Undo,
    /// Leave the game without a result; the reason in words.
    Quit(String),
}

/// Why a side gave no move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SideFailure {
    /// The match is being stopped: the game ends without a result.
    Interrupted,
    /// The side loses: how, and why in words (without its name).
    Forfeit(Termination, String),
}

/// What a side is told when it is its turn.
pub struct Turn<'a, G: Game> {
    /// The current position.
    pub position: &'a G,
    /// The protocol line that sets it up (`position startpos moves ...`).
    pub command: &'a str,
    /// 0 when the side plays first, 1 otherwise.
    pub index: usize,
    clocks: &'a [Clock; 2],
}

/// One side of a game: an engine process, or a person at the terminal (`cutoff play`).
/// The referee's game loop ([`play_game`]) is the same whoever plays.
pub trait Side<G: Game> {
    /// Name in records and messages.
    fn name(&self) -> &str;
    /// The limits the side's clock runs by (none for a person).
    fn limits(&self) -> SearchLimits;
    /// Gets ready for a new game.
    fn new_game(
        &mut self,
        settings: &RefereeSettings,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<(), SideFailure>;
    /// Chooses what to do in `turn.position`.
    fn play(
        &mut self,
        turn: &Turn<'_, G>,
        settings: &RefereeSettings,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<Choice, SideFailure>;
    /// The last lines the side printed, for forfeit reports.
    fn tail(&self) -> Vec<String> {
        Vec::new()
    }
    /// Sees the position after every change (start, each move, each undo); `last` is the
    /// move just played, in the game's notation, by `mover`.
    fn show(&mut self, position: &G, last: Option<(&str, Player)>) {
        let _ = (position, last);
    }
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
    let crash = || {
        SideFailure::Forfeit(
            Termination::Crash,
            "disconnected (crashed or exited)".to_string(),
        )
    };
    if engine.send(command).and_then(|()| engine.send(go)).is_err() {
        return Err(crash());
    }
    let started = Instant::now();
    let deadline = started + allowed;
    let (mut score, mut depth) = (None, None);
    let line = loop {
        match engine.read_line(deadline, interrupted) {
            Ok(line) => {
                let first = line.split_whitespace().next();
                if first == Some("bestmove") {
                    break line;
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
    };
    let time_ms = started.elapsed().as_millis() as u64;
    let Some(text) = line.split_whitespace().nth(1).map(str::to_string) else {
        let reason = "sent 'bestmove' without a move".to_string();
        return Err(SideFailure::Forfeit(Termination::MalformedBestmove, reason));
    };
    if text == "(none)" {
        let reason = format!("sent 'bestmove {text}' in a position with legal moves");
        return Err(SideFailure::Forfeit(Termination::MalformedBestmove, reason));
    }
    Ok(Choice::Move {
        text,
        time_ms,
        score,
        depth,
    })
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
        let newgame = match self.config.proto {
            Proto::Uci => "ucinewgame",
            Proto::Ugi => "uginewgame",
        };
        let status = self
            .send(newgame)
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
            Err(_) => Err(SideFailure::Forfeit(
                Termination::Crash,
                "disconnected (crashed or exited)".to_string(),
            )),
        }
    }

    fn play(
        &mut self,
        turn: &Turn<'_, G>,
        settings: &RefereeSettings,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<Choice, SideFailure> {
        let limits = self.config.limits;
        let clock = &turn.clocks[turn.index];
        let go = go_command(self.config.proto, &limits, turn.clocks, turn.index);
        let allowed = if limits.base_ms.is_some() {
            Duration::from_millis(clock.remaining_ms) + settings.time_margin
        } else if let Some(ms) = limits.movetime_ms {
            Duration::from_millis(ms) + settings.time_margin
        } else {
            settings.move_timeout
        };
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

/// Records a forfeit: the side at `index` loses.
fn forfeit<G: Game>(
    record: &mut GameRecord,
    side: &dyn Side<G>,
    index: usize,
    termination: Termination,
    reason: String,
) {
    record.result = Some(if index == 0 {
        GameResult::SecondWins
    } else {
        GameResult::FirstWins
    });
    record.termination = termination;
    record.reason = format!("{} {reason}", side.name());
    record.engine_tail = side.tail();
}

/// Plays one game from `opening`; `sides[0]` plays first. Engines must be initialised.
/// `interrupted` is polled while waiting; an interrupted or quit game has no result.
pub fn play_game<G: Game>(
    variant: &G::Variant,
    opening: &Opening,
    sides: [&mut dyn Side<G>; 2],
    settings: &RefereeSettings,
    interrupted: &dyn Fn() -> bool,
) -> Result<GameRecord, String> {
    let (mut position, opening_record) = opening.position_and_record::<G>(variant)?;
    let mut sides = sides;
    let mut record = GameRecord {
        first: sides[0].name().to_string(),
        second: sides[1].name().to_string(),
        opening: opening.clone(),
        start_fen: position.to_fen(),
        opening_record,
        moves: Vec::new(),
        result: None,
        termination: Termination::Interrupted,
        reason: "interrupted".to_string(),
        engine_tail: Vec::new(),
    };
    let limits = [sides[0].limits(), sides[1].limits()];
    let mut clocks = [Clock::new(&limits[0]), Clock::new(&limits[1])];

    // Step 1. New game for both sides (engines: `uginewgame` and isready).
    for (index, side) in sides.iter_mut().enumerate() {
        match side.new_game(settings, interrupted) {
            Ok(()) => {}
            Err(SideFailure::Interrupted) => return Ok(record),
            Err(SideFailure::Forfeit(termination, reason)) => {
                forfeit(&mut record, &**side, index, termination, reason);
                return Ok(record);
            }
        }
    }

    // Step 2. Moves until the rules end the game, a side forfeits or quits.
    let mut history: Vec<String> = opening.moves.clone();
    let mut played: Vec<G::Move> = Vec::new();
    let position_prefix = match &opening.fen {
        Some(fen) => format!("position fen {fen}"),
        None => "position startpos".to_string(),
    };
    for side in sides.iter_mut() {
        side.show(&position, None);
    }
    loop {
        if let Some((result, reason)) = game_end(&position) {
            record.result = Some(result);
            record.termination = Termination::Normal;
            record.reason = reason;
            return Ok(record);
        }
        let mover = position.side_to_move();
        let index = match mover {
            Player::First => 0,
            Player::Second => 1,
        };
        let mut command = position_prefix.clone();
        if !history.is_empty() {
            command += " moves ";
            command += &history.join(" ");
        }
        let turn = Turn {
            position: &position,
            command: &command,
            index,
            clocks: &clocks,
        };
        let choice = match sides[index].play(&turn, settings, interrupted) {
            Ok(choice) => choice,
            Err(SideFailure::Interrupted) => return Ok(record),
            Err(SideFailure::Forfeit(termination, reason)) => {
                forfeit(&mut record, &*sides[index], index, termination, reason);
                return Ok(record);
            }
        };
        let (text, time_ms, score, depth) = match choice {
            Choice::Move {
                text,
                time_ms,
                score,
                depth,
            } => (text, time_ms, score, depth),
            Choice::Undo => {
                // Takes back the last move of each side (never the opening).
                if played.len() >= 2 {
                    for _ in 0..2 {
                        let mv = played.pop().expect("two moves played");
                        position.unmake_move(mv);
                        history.pop();
                        record.moves.pop();
                    }
                    for side in sides.iter_mut() {
                        side.show(&position, None);
                    }
                }
                continue;
            }
            Choice::Quit(reason) => {
                record.reason = format!("{} {reason}", sides[index].name());
                return Ok(record);
            }
        };

        // Step 3. Check the move with our own rules. `0000` is UCI's null move, malformed
        // unless the game plays it (the Ataxx pass).
        let mv = match position.parse_move(&text) {
            Ok(mv) => mv,
            Err(_) if text == "0000" => {
                let reason = "sent 'bestmove 0000' in a position with legal moves".to_string();
                let termination = Termination::MalformedBestmove;
                forfeit(&mut record, &*sides[index], index, termination, reason);
                return Ok(record);
            }
            Err(e) => {
                let reason = format!("played {e} in {}", position.to_fen());
                let termination = Termination::IllegalMove;
                forfeit(&mut record, &*sides[index], index, termination, reason);
                return Ok(record);
            }
        };

        // Step 4. Clock: the margin forgives small overruns, the clock never goes negative.
        if limits[index].base_ms.is_some() {
            let clock = &mut clocks[index];
            clock.remaining_ms = clock.remaining_ms.saturating_sub(time_ms) + clock.inc_ms;
            if let Some(left) = clock.moves_to_go.as_mut() {
                *left -= 1;
                if *left == 0 {
                    *left = limits[index].moves_per_period.unwrap_or(1);
                    clock.remaining_ms += limits[index].base_ms.unwrap_or(0);
                }
            }
        }
        let notation = position.format_move(mv);
        record.moves.push(PlayedMove {
            text: notation.clone(),
            record_text: position.format_move_record(mv),
            time_ms,
            score,
            depth,
        });
        history.push(notation.clone());
        played.push(mv);
        position.make_move(mv);
        for side in sides.iter_mut() {
            side.show(&position, Some((&notation, mover)));
        }
        if position.game_end().is_none() {
            let opening_plies = opening.moves.len();
            if let Some((result, reason)) =
                adjudicate(&record.moves, opening_plies, mover, settings)
            {
                record.result = Some(result);
                record.termination = Termination::Adjudication;
                record.reason = reason;
                return Ok(record);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::ataxx::Ataxx;
    use crate::games::connect4::Connect4;

    #[test]
    fn info_lines_give_score_and_depth() {
        let line = "info depth 7 seldepth 9 multipv 1 score cp -12 nodes 5 pv 4";
        assert_eq!(parse_info(line), (Some("cp -12".into()), Some(7)));
        assert_eq!(parse_info("info string hello"), (None, None));
    }

    #[test]
    fn openings_are_checked() {
        let ok = Opening {
            fen: None,
            moves: vec!["4".into(), "4".into()],
        };
        assert!(ok.position::<Connect4>(&()).is_ok());
        let illegal = Opening {
            fen: None,
            moves: vec!["8".into()],
        };
        assert!(illegal.position::<Connect4>(&()).is_err());
        let over = Opening {
            fen: None,
            moves: "1 2 1 2 1 2 1".split(' ').map(String::from).collect(),
        };
        assert!(over.position::<Connect4>(&()).is_err());
    }

    /// A side that plays scripted choices, for the game loop without processes.
    struct Scripted(Vec<Choice>);

    impl<G: Game> Side<G> for Scripted {
        fn name(&self) -> &str {
            "scripted"
        }
        fn limits(&self) -> SearchLimits {
            SearchLimits::default()
        }
        fn new_game(
            &mut self,
            _: &RefereeSettings,
            _: &dyn Fn() -> bool,
        ) -> Result<(), SideFailure> {
            Ok(())
        }
        fn play(
            &mut self,
            _: &Turn<'_, G>,
            _: &RefereeSettings,
            _: &dyn Fn() -> bool,
        ) -> Result<Choice, SideFailure> {
            Ok(self.0.remove(0))
        }
    }

    fn mv(text: &str) -> Choice {
        Choice::Move {
            text: text.to_string(),
            time_ms: 0,
            score: None,
            depth: None,
        }
    }

    #[test]
    fn undo_takes_back_a_full_move_and_quit_ends_without_result() {
        let mut first = Scripted(vec![mv("4"), Choice::Undo, mv("3"), mv("3")]);
        let mut second = Scripted(vec![mv("4"), mv("5"), Choice::Quit("quit".into())]);
        let sides: [&mut dyn Side<Connect4>; 2] = [&mut first, &mut second];
        let settings = RefereeSettings::default();
        let record = play_game(&(), &Opening::default(), sides, &settings, &|| false).unwrap();
        let moves: Vec<&str> = record.moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(moves, ["3", "5", "3"]);
        assert_eq!(record.result, None);
        assert_eq!(record.reason, "scripted quit");
    }

    #[test]
    fn illegal_moves_forfeit_whoever_plays_them() {
        let mut first = Scripted(vec![mv("9")]);
        let mut second = Scripted(vec![]);
        let sides: [&mut dyn Side<Connect4>; 2] = [&mut first, &mut second];
        let settings = RefereeSettings::default();
        let record = play_game(&(), &Opening::default(), sides, &settings, &|| false).unwrap();
        assert_eq!(record.result, Some(GameResult::SecondWins));
        assert_eq!(record.termination, Termination::IllegalMove);
    }

    #[test]
    fn a_pass_is_a_move_only_where_the_game_has_one() {
        // x is walled in by o: its `0000` is the Ataxx pass; o's `0000` with moves at hand
        // is UCI's null move, malformed.
        let opening = Opening {
            fen: Some("7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1".into()),
            moves: Vec::new(),
        };
        let mut first = Scripted(vec![mv("0000")]);
        let mut second = Scripted(vec![mv("0000")]);
        let sides: [&mut dyn Side<Ataxx>; 2] = [&mut first, &mut second];
        let settings = RefereeSettings::default();
        let record = play_game(&(), &opening, sides, &settings, &|| false).unwrap();
        let moves: Vec<&str> = record.moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(moves, ["0000"]);
        assert_eq!(record.result, Some(GameResult::FirstWins));
        assert_eq!(record.termination, Termination::MalformedBestmove);
    }

    #[test]
    fn time_controls_are_described() {
        let limits = SearchLimits {
            base_ms: Some(10_000),
            inc_ms: 100,
            ..SearchLimits::default()
        };
        assert_eq!(limits.describe(), "10+0.1");
        let depth = SearchLimits {
            depth: Some(4),
            ..SearchLimits::default()
        };
        assert_eq!(depth.describe(), "depth=4");
        assert!(!depth.is_timed());
    }

    fn scored(score: &str) -> PlayedMove {
        PlayedMove {
            text: "m".into(),
            record_text: "m".into(),
            time_ms: 1,
            score: Some(score.to_string()),
            depth: Some(1),
        }
    }

    #[test]
    fn adjudication_rules() {
        let settings = RefereeSettings {
            draw_rule: Some(DrawRule {
                move_number: 5,
                move_count: 2,
                score: 10,
            }),
            resign_rule: Some(ResignRule {
                move_count: 3,
                score: 500,
            }),
            ..RefereeSettings::default()
        };
        assert_eq!(score_centipawns("cp -35"), Some(-35));
        assert_eq!(score_centipawns("mate 3"), Some(99_997));
        assert_eq!(score_centipawns("mate -2"), Some(-99_998));
        // Four small scores in a row, but before move 5: no draw yet.
        let quiet: Vec<PlayedMove> = ["cp 3", "cp -5", "cp 0", "cp 10"].map(scored).to_vec();
        assert_eq!(adjudicate(&quiet, 0, Player::Second, &settings), None);
        let result = adjudicate(&quiet, 6, Player::Second, &settings);
        assert_eq!(result.map(|r| r.0), Some(GameResult::Draw));
        // One larger score breaks the streak.
        let busy: Vec<PlayedMove> = ["cp 3", "cp -50", "cp 0", "cp 10"].map(scored).to_vec();
        assert_eq!(adjudicate(&busy, 6, Player::Second, &settings), None);
        // The last mover (second player) reported -500 or worse on its last three moves.
        let lost: Vec<PlayedMove> = ["cp -600", "cp 600", "mate -4", "cp 700", "cp -550"]
            .map(scored)
            .to_vec();
        let result = adjudicate(&lost, 0, Player::Second, &settings);
        assert_eq!(result.map(|r| r.0), Some(GameResult::FirstWins));
        // A missing score never adjudicates.
        let mut unscored = lost.clone();
        unscored[2].score = None;
        assert_eq!(adjudicate(&unscored, 0, Player::Second, &settings), None);
    }
}
