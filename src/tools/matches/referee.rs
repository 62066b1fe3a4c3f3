//! The referee: plays one game between two engine processes, checking every move with
//! cutoff's own rules (generic over [`Game`]) and keeping the clocks itself.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::engine::{EngineFailure, EngineProcess, Proto};
use crate::search::{Game, GameResult, MoveList, Outcome, Player};

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
}

impl Default for RefereeSettings {
    fn default() -> Self {
        RefereeSettings {
            time_margin: Duration::ZERO,
            startup_timeout: Duration::from_secs(10),
            ready_timeout: Duration::from_secs(10),
            move_timeout: Duration::from_secs(60),
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
            if position.outcome().is_some() {
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
    /// The match was stopped during the game; it has no result.
    Interrupted,
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

/// The end of the game by the rules, if reached: result and reason.
fn game_end<G: Game>(position: &G) -> Option<(GameResult, String)> {
    let to_move = position.side_to_move();
    if let Some(outcome) = position.outcome() {
        let result = GameResult::from_outcome(outcome, to_move);
        let reason = match result {
            GameResult::Draw => "draw by the rules".to_string(),
            _ if outcome == Outcome::Loss && position.in_check() => {
                format!("{} mates", player_name(to_move.other()))
            }
            GameResult::FirstWins => "first player wins by the rules".to_string(),
            GameResult::SecondWins => "second player wins by the rules".to_string(),
        };
        return Some((result, reason));
    }
    if position.is_rule_draw() {
        return Some((
            GameResult::Draw,
            "draw by rule (repetition or move count)".into(),
        ));
    }
    let mut moves = MoveList::new();
    position.generate_moves(&mut moves);
    moves
        .is_empty()
        .then(|| (GameResult::Draw, "draw: no legal moves".to_string()))
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

/// Plays one game from `opening`; `engines[0]` plays first. Both engines must be
/// initialised. `interrupted` is polled while waiting; an interrupted game has no result.
pub fn play_game<G: Game>(
    variant: &G::Variant,
    opening: &Opening,
    engines: [&mut EngineProcess; 2],
    settings: &RefereeSettings,
    interrupted: &dyn Fn() -> bool,
) -> Result<GameRecord, String> {
    let (mut position, opening_record) = opening.position_and_record::<G>(variant)?;
    let mut record = GameRecord {
        first: engines[0].config.name.clone(),
        second: engines[1].config.name.clone(),
        opening: opening.clone(),
        start_fen: position.to_fen(),
        opening_record,
        moves: Vec::new(),
        result: None,
        termination: Termination::Interrupted,
        reason: "interrupted".to_string(),
        engine_tail: Vec::new(),
    };
    let [e0, e1] = engines;
    let mut engines = [e0, e1];
    let limits = [engines[0].config.limits, engines[1].config.limits];
    let mut clocks = [Clock::new(&limits[0]), Clock::new(&limits[1])];

    // A forfeit: the engine at `index` loses.
    let forfeit = |record: &mut GameRecord,
                   engine: &EngineProcess,
                   index: usize,
                   termination: Termination,
                   reason: String| {
        record.result = Some(if index == 0 {
            GameResult::SecondWins
        } else {
            GameResult::FirstWins
        });
        record.termination = termination;
        record.reason = format!("{} {reason}", engine.config.name);
        record.engine_tail = engine.tail();
    };

    // Step 1. New game and isready for both engines.
    for (index, engine) in engines.iter_mut().enumerate() {
        let engine = &mut **engine;
        let newgame = match engine.config.proto {
            Proto::Uci => "ucinewgame",
            Proto::Ugi => "uginewgame",
        };
        let status = engine
            .send(newgame)
            .and_then(|()| engine.ready(settings.ready_timeout, interrupted));
        match status {
            Ok(()) => {}
            Err(EngineFailure::Interrupted) => return Ok(record),
            Err(EngineFailure::Timeout) => {
                let reason = format!(
                    "did not answer isready within {} ms",
                    settings.ready_timeout.as_millis()
                );
                forfeit(&mut record, engine, index, Termination::NotReady, reason);
                return Ok(record);
            }
            Err(_) => {
                let reason = "disconnected (crashed or exited)".to_string();
                forfeit(&mut record, engine, index, Termination::Crash, reason);
                return Ok(record);
            }
        }
    }

    // Step 2. Moves until the rules end the game or an engine forfeits.
    let mut history: Vec<String> = opening.moves.clone();
    let position_prefix = match &opening.fen {
        Some(fen) => format!("position fen {fen}"),
        None => "position startpos".to_string(),
    };
    loop {
        if let Some((result, reason)) = game_end(&position) {
            record.result = Some(result);
            record.termination = Termination::Normal;
            record.reason = reason;
            return Ok(record);
        }
        let index = match position.side_to_move() {
            Player::First => 0,
            Player::Second => 1,
        };
        let engine = &mut *engines[index];
        let mut command = position_prefix.clone();
        if !history.is_empty() {
            command += " moves ";
            command += &history.join(" ");
        }
        let go = go_command(engine.config.proto, &limits[index], &clocks, index);
        let allowed = if limits[index].base_ms.is_some() {
            Duration::from_millis(clocks[index].remaining_ms) + settings.time_margin
        } else if let Some(ms) = limits[index].movetime_ms {
            Duration::from_millis(ms) + settings.time_margin
        } else {
            settings.move_timeout
        };
        if engine
            .send(&command)
            .and_then(|()| engine.send(&go))
            .is_err()
        {
            let reason = "disconnected (crashed or exited)".to_string();
            forfeit(&mut record, engine, index, Termination::Crash, reason);
            return Ok(record);
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
                Err(EngineFailure::Interrupted) => return Ok(record),
                Err(EngineFailure::Timeout) => {
                    let reason = if limits[index].is_timed() {
                        format!("loses on time ({} ms allowed)", allowed.as_millis())
                    } else {
                        format!("sent no bestmove within {} ms", allowed.as_millis())
                    };
                    forfeit(&mut record, engine, index, Termination::TimeForfeit, reason);
                    return Ok(record);
                }
                Err(_) => {
                    let reason = "disconnected (crashed or exited)".to_string();
                    forfeit(&mut record, engine, index, Termination::Crash, reason);
                    return Ok(record);
                }
            }
        };
        let elapsed = started.elapsed();

        // Step 3. Check the move with our own rules.
        let Some(text) = line.split_whitespace().nth(1).map(str::to_string) else {
            let reason = "sent 'bestmove' without a move".to_string();
            forfeit(
                &mut record,
                engine,
                index,
                Termination::MalformedBestmove,
                reason,
            );
            return Ok(record);
        };
        if text == "(none)" || text == "0000" {
            let reason = format!("sent 'bestmove {text}' in a position with legal moves");
            forfeit(
                &mut record,
                engine,
                index,
                Termination::MalformedBestmove,
                reason,
            );
            return Ok(record);
        }
        let mv = match position.parse_move(&text) {
            Ok(mv) => mv,
            Err(e) => {
                let reason = format!("played {e} in {}", position.to_fen());
                forfeit(&mut record, engine, index, Termination::IllegalMove, reason);
                return Ok(record);
            }
        };

        // Step 4. Clock: the margin forgives small overruns, the clock never goes negative.
        if limits[index].base_ms.is_some() {
            let clock = &mut clocks[index];
            let used = elapsed.as_millis() as u64;
            clock.remaining_ms = clock.remaining_ms.saturating_sub(used) + clock.inc_ms;
            if let Some(left) = clock.moves_to_go.as_mut() {
                *left -= 1;
                if *left == 0 {
                    *left = limits[index].moves_per_period.unwrap_or(1);
                    clock.remaining_ms += limits[index].base_ms.unwrap_or(0);
                }
            }
        }
        record.moves.push(PlayedMove {
            text: position.format_move(mv),
            record_text: position.format_move_record(mv),
            time_ms: elapsed.as_millis() as u64,
            score,
            depth,
        });
        history.push(position.format_move(mv));
        position.make_move(mv);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
