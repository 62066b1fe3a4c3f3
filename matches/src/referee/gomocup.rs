//! Gomocup (piskvork) engines as players of a refereed game: the protocol of the gomoku
//! world, spoken by the runner.
//!
//! The board's size and rule come from the game being refereed ([`GomocupGame::of`]): its
//! cells are the moves of its start position, and whether six in a row wins tells
//! freestyle (`INFO rule 0`) from exactly five (`INFO rule 1`) and renju (`INFO rule 4`:
//! the second player's six wins, the first player's is forbidden). Cells are converted
//! between cutoff's notation (`a1` bottom left) and Gomocup's `x,y` (0-based, top left):
//! `x` is the file, `y` is the board's height minus the rank. Before each game the engine
//! gets `START N` (`RECTSTART W,H` on a board that is not square) and its `INFO` lines;
//! before each move its clock (`time_left` and the rest) and the position: `BEGIN` on an
//! empty board, `TURN x,y` when its board lacks only the opponent's last move, otherwise
//! `BOARD` ... `DONE` with every stone in game order. It answers `x,y`; `MESSAGE`,
//! `DEBUG`, `OK` and other lines are skipped, `ERROR` or `UNKNOWN` forfeit the game.

use std::time::{Duration, Instant};

use super::clock::gomocup_time_info;
use super::engine::{EngineFailure, EngineProcess};
use super::game::{Choice, SideFailure, Turn};
use super::record::Termination;
use super::rules::RefereeSettings;
pub use super::session::GomocupGame;
use cutoff::search::{Game, MoveList};

/// Gomocup's `game_type`: a game against another engine.
const GAME_TYPE: u32 = 1;
/// Gomocup's `max_memory` when the engine's options set none: 0, "no limit".
const DEFAULT_MAX_MEMORY: &str = "0";
/// Some engines (Rapfi) drop a command that arrives while their search is still winding
/// down after they printed their move; the runner waits this long after a move before it
/// writes to the engine again.
const SETTLE: Duration = Duration::from_millis(30);

/// A cell in cutoff's notation: file letter and rank from 1, both counted from 0.
fn file_rank(text: &str) -> Option<(u32, u32)> {
    let mut chars = text.chars();
    let file = chars.next().filter(char::is_ascii_lowercase)?;
    let rank: u32 = chars.as_str().parse().ok()?;
    (rank >= 1 && !chars.as_str().starts_with('0'))
        .then(|| (u32::from(file) - u32::from('a'), rank - 1))
}

/// Whether `moves` can all be played from the start position and only the last one ends
/// the game; `None` when one is refused.
fn only_last_ends<G: Game>(variant: &G::Variant, moves: &[&str]) -> Option<bool> {
    let mut game = G::start(variant);
    for (i, text) in moves.iter().enumerate() {
        if game.game_end().is_some() {
            return Some(false);
        }
        let mv = game.parse_move(text).ok()?;
        game.make_move(mv);
        if i + 1 == moves.len() {
            return Some(game.game_end().is_some());
        }
    }
    Some(false)
}

impl GomocupGame {
    /// The board and rule of `G`: every move of its start position must be a cell, every
    /// cell of the rectangle a move, and five in a row must win (four not); the rule is
    /// freestyle when an overline (six) wins too, renju when only the second player's does.
    pub fn of<G: Game>(variant: &G::Variant) -> Result<GomocupGame, String> {
        let start = G::start(variant);
        let mut moves = MoveList::new();
        start.generate_moves(&mut moves);
        let mut cells = Vec::new();
        for &mv in moves.iter() {
            let text = start.format_move(mv);
            let cell = file_rank(&text)
                .ok_or_else(|| format!("its moves are not cells of a board ('{text}')"))?;
            cells.push(cell);
        }
        let width = cells.iter().map(|c| c.0 + 1).max().unwrap_or(0);
        let height = cells.iter().map(|c| c.1 + 1).max().unwrap_or(0);
        if cells.len() != (width * height) as usize || width < 5 || height < 5 {
            return Err("it is not played on an empty board of at least 5x5 cells".to_string());
        }
        let five = ["a1", "a3", "b1", "b3", "c1", "c3", "d1", "d3", "e1"];
        if only_last_ends::<G>(variant, &five) != Some(true) {
            return Err("five in a row does not win it".to_string());
        }
        let six = [
            "a1", "a3", "b1", "b3", "c1", "c3", "e1", "a5", "f1", "b5", "d1",
        ];
        let overline_wins = width < 6 || only_last_ends::<G>(variant, &six) == Some(true);
        let second_six = [
            "a3", "a1", "c3", "b1", "e3", "c1", "a5", "e1", "c5", "f1", "e5", "d1",
        ];
        let rule = if overline_wins {
            0
        } else if only_last_ends::<G>(variant, &second_six) == Some(true) {
            4
        } else {
            1
        };
        Ok(GomocupGame {
            width,
            height,
            rule,
        })
    }

    /// The command that starts a game: `START N`, or `RECTSTART W,H`.
    pub fn start_command(&self) -> String {
        if self.width == self.height {
            format!("START {}", self.width)
        } else {
            format!("RECTSTART {},{}", self.width, self.height)
        }
    }

    /// A cell in cutoff's notation as Gomocup's `x,y`; `None` off the board.
    pub fn to_gomocup(&self, text: &str) -> Option<String> {
        let (file, rank) = file_rank(text)?;
        (file < self.width && rank < self.height)
            .then(|| format!("{file},{}", self.height - 1 - rank))
    }

    /// Gomocup's `x,y` as a cell in cutoff's notation; `None` when it is no cell of the
    /// board.
    pub fn from_gomocup(&self, reply: &str) -> Option<String> {
        let (x, y) = reply.split_once(',')?;
        let (x, y): (u32, u32) = (x.trim().parse().ok()?, y.trim().parse().ok()?);
        (x < self.width && y < self.height && x < 26)
            .then(|| format!("{}{}", char::from(b'a' + x as u8), self.height - y))
    }
}

/// The forfeit of an engine that exited or closed its output.
fn crash() -> SideFailure {
    SideFailure::Forfeit(
        Termination::Crash,
        "disconnected (crashed or exited)".to_string(),
    )
}

/// Sends `lines`, after the engine's last move has had [`SETTLE`] to wind down.
fn send_all(engine: &mut EngineProcess, lines: &[String]) -> Result<(), SideFailure> {
    if let Some(answered) = engine.gomocup.as_mut().and_then(|s| s.answered.take()) {
        std::thread::sleep(SETTLE.saturating_sub(answered.elapsed()));
    }
    for line in lines {
        engine.send(line).map_err(|_| crash())?;
    }
    Ok(())
}

/// The first word of a line, upper case (the protocol's words are case-insensitive).
fn first_word(line: &str) -> String {
    line.split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_uppercase()
}

/// `ABOUT`, then the first line of the answer that is not a `MESSAGE` or `DEBUG` line,
/// within `startup`: the engine is alive and speaks the protocol.
pub(super) fn handshake(
    engine: &mut EngineProcess,
    startup: Duration,
    interrupted: &dyn Fn() -> bool,
) -> Result<(), EngineFailure> {
    engine.send("ABOUT")?;
    let deadline = Instant::now() + startup;
    loop {
        let line = engine.read_line(deadline, interrupted)?;
        if !matches!(first_word(&line).as_str(), "MESSAGE" | "DEBUG" | "") {
            return Ok(());
        }
    }
}

/// A new game: `START` until `OK` (within the ready timeout), then the `INFO` lines of the
/// game: rule, memory, game type, depth and node limits, the engine's options.
pub(super) fn new_game(
    engine: &mut EngineProcess,
    settings: &RefereeSettings,
    interrupted: &dyn Fn() -> bool,
) -> Result<(), SideFailure> {
    let Some(session) = engine.gomocup.as_mut() else {
        return Err(SideFailure::Forfeit(
            Termination::NotReady,
            "was given no Gomocup board (runner error)".to_string(),
        ));
    };
    session.known = None;
    let game = session.game;
    let start = game.start_command();
    send_all(engine, std::slice::from_ref(&start))?;
    let deadline = Instant::now() + settings.ready_timeout;
    loop {
        let line = match engine.read_line(deadline, interrupted) {
            Ok(line) => line,
            Err(EngineFailure::Interrupted) => return Err(SideFailure::Interrupted),
            Err(EngineFailure::Timeout) => {
                let reason = format!(
                    "did not answer {start} with OK within {} ms",
                    settings.ready_timeout.as_millis()
                );
                return Err(SideFailure::Forfeit(Termination::NotReady, reason));
            }
            Err(_) => return Err(crash()),
        };
        match first_word(&line).as_str() {
            "OK" => break,
            "ERROR" | "UNKNOWN" => {
                let reason = format!("refused {start}: '{line}'");
                return Err(SideFailure::Forfeit(Termination::NotReady, reason));
            }
            _ => {}
        }
    }
    send_all(engine, &game_info(engine, game.rule))?;
    if let Some(session) = engine.gomocup.as_mut() {
        session.known = Some(Vec::new());
    }
    Ok(())
}

/// The `INFO` lines sent once a game: rule, `max_memory` (the engine's option, or "no
/// limit"), `game_type`, `max_depth` and `max_node` when the limits have them, then the
/// engine's options as `INFO NAME VALUE`.
fn game_info(engine: &EngineProcess, rule: u32) -> Vec<String> {
    let config = &engine.config;
    let option = |name: &str| config.options.iter().any(|(n, _)| n == name);
    let mut lines = vec![format!("INFO rule {rule}")];
    if !option("max_memory") {
        lines.push(format!("INFO max_memory {DEFAULT_MAX_MEMORY}"));
    }
    lines.push(format!("INFO game_type {GAME_TYPE}"));
    if let Some(depth) = config.limits.depth {
        lines.push(format!("INFO max_depth {depth}"));
    }
    if let Some(nodes) = config.limits.nodes {
        lines.push(format!("INFO max_node {nodes}"));
    }
    lines.extend(
        config
            .options
            .iter()
            .map(|(name, value)| format!("INFO {name} {value}")),
    );
    lines
}

/// The lines that give the engine the position whose moves are `history` (in cutoff's
/// notation) when its own board holds `known`.
fn position_lines(
    game: &GomocupGame,
    known: Option<&[String]>,
    history: &[&str],
) -> Option<Vec<String>> {
    let cell = |text: &str| game.to_gomocup(text);
    match (known, history.split_last()) {
        (Some([]), None) => Some(vec!["BEGIN".to_string()]),
        (Some(known), Some((last, before)))
            if before.len() == known.len() && before.iter().zip(known).all(|(a, b)| a == b) =>
        {
            Some(vec![format!("TURN {}", cell(last)?)])
        }
        _ => {
            // Field 1: the stones of the side to move; 2: its opponent's.
            let own = history.len() % 2;
            let mut lines = vec!["BOARD".to_string()];
            for (i, text) in history.iter().enumerate() {
                let field = if i % 2 == own { 1 } else { 2 };
                lines.push(format!("{},{field}", cell(text)?));
            }
            lines.push("DONE".to_string());
            Some(lines)
        }
    }
}

/// Score and depth of a `MESSAGE` line in Rapfi's style (`Depth 12-17 | Eval 230`, `Eval
/// +M5`): the score as `cp N` or `mate N`.
fn parse_message(line: &str) -> (Option<String>, Option<u32>) {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == '|')
        .filter(|w| !w.is_empty())
        .collect();
    let (mut score, mut depth) = (None, None);
    for pair in words.windows(2) {
        match pair[0].to_ascii_lowercase().as_str() {
            "eval" | "ev" => {
                let value = pair[1].trim_start_matches('+');
                score = if let Some(mate) = value.strip_prefix('M') {
                    mate.parse::<i32>().ok().map(|n| format!("mate {n}"))
                } else if let Some(mate) = value.strip_prefix("-M") {
                    mate.parse::<i32>().ok().map(|n| format!("mate -{n}"))
                } else {
                    value.parse::<i32>().ok().map(|n| format!("cp {n}"))
                }
                .or(score);
            }
            "depth" => {
                let first = pair[1].split('-').next().unwrap_or("");
                depth = first.parse().ok().or(depth);
            }
            _ => {}
        }
    }
    (score, depth)
}

/// Whether a line is a move reply, `x,y` (numbers, maybe negative or with spaces).
fn is_move_reply(line: &str) -> bool {
    line.split_once(',').is_some_and(|(x, y)| {
        let number = |s: &str| s.trim().trim_start_matches('-').parse::<u32>().is_ok();
        number(x) && number(y)
    })
}

/// The engine's reply to a move request: the `x,y` line with the last score and depth of
/// the `MESSAGE` lines before it, read at most until `deadline`.
fn read_reply(
    engine: &mut EngineProcess,
    deadline: Instant,
    allowed: Duration,
    timed: bool,
    interrupted: &dyn Fn() -> bool,
) -> Result<(String, Option<String>, Option<u32>), SideFailure> {
    let (mut score, mut depth) = (None, None);
    loop {
        let line = match engine.read_line(deadline, interrupted) {
            Ok(line) => line,
            Err(EngineFailure::Interrupted) => return Err(SideFailure::Interrupted),
            Err(EngineFailure::Timeout) => {
                let reason = if timed {
                    format!("loses on time ({} ms allowed)", allowed.as_millis())
                } else {
                    format!("sent no move within {} ms", allowed.as_millis())
                };
                return Err(SideFailure::Forfeit(Termination::TimeForfeit, reason));
            }
            Err(_) => return Err(crash()),
        };
        if is_move_reply(&line) {
            return Ok((line, score, depth));
        }
        match first_word(&line).as_str() {
            "MESSAGE" => {
                let (s, d) = parse_message(&line);
                score = s.or(score);
                depth = d.or(depth);
            }
            "ERROR" | "UNKNOWN" => {
                let reason = format!("answered '{line}' instead of a move");
                return Err(SideFailure::Forfeit(Termination::MalformedBestmove, reason));
            }
            _ => {}
        }
    }
}

/// The engine's move in `turn`: its clock, the position, then its `x,y` reply within the
/// time it is allowed, as a cell in cutoff's notation.
pub(super) fn play<G: Game>(
    engine: &mut EngineProcess,
    turn: &Turn<'_, G>,
    settings: &RefereeSettings,
    interrupted: &dyn Fn() -> bool,
) -> Result<Choice, SideFailure> {
    let Some(session) = engine.gomocup.as_ref() else {
        return Err(crash());
    };
    let game = session.game;
    // Step 1. The position's moves, from `position startpos moves ...` (the runner
    // refuses FEN openings for Gomocup engines).
    let history: Vec<&str> = turn
        .command
        .split_whitespace()
        .skip_while(|&w| w != "moves")
        .skip(1)
        .collect();
    let Some(position) = position_lines(&game, session.known.as_deref(), &history) else {
        let reason = "cannot be told the position (a move is no cell)".to_string();
        return Err(SideFailure::Forfeit(Termination::Crash, reason));
    };

    // Step 2. The clock, then the position; the clock runs from here.
    let limits = engine.config.limits;
    let margin = engine.config.time_margin.unwrap_or(settings.time_margin);
    let clock = &turn.clocks[turn.index];
    let allowed = clock.allowed(&limits, margin, settings.move_timeout);
    let mut lines = gomocup_time_info(&limits, clock, settings.move_timeout).to_vec();
    lines.extend(position);
    send_all(engine, &lines)?;
    let started = Instant::now();

    // Step 3. The reply, as a cell of the board.
    let read = read_reply(
        engine,
        started + allowed,
        allowed,
        limits.is_timed(),
        interrupted,
    );
    let (reply, score, depth) = read?;
    let time_ms = started.elapsed().as_millis() as u64;
    let Some(text) = game.from_gomocup(&reply) else {
        let reason = format!(
            "played {}, no cell of the {}x{} board",
            reply.trim(),
            game.width,
            game.height
        );
        return Err(SideFailure::Forfeit(Termination::IllegalMove, reason));
    };
    if let Some(session) = engine.gomocup.as_mut() {
        let mut known: Vec<String> = history.iter().map(|m| m.to_string()).collect();
        known.push(text.clone());
        session.known = Some(known);
        session.answered = Some(Instant::now());
    }
    Ok(Choice::Move {
        text,
        time_ms,
        score,
        depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutoff::games::mnk::{Mnk, MnkVariant};

    fn gomoku() -> GomocupGame {
        GomocupGame::of::<Mnk>(&MnkVariant::new(15, 15, 5).unwrap()).unwrap()
    }

    #[test]
    fn the_board_and_rule_come_from_the_game() {
        assert_eq!(
            gomoku(),
            GomocupGame {
                width: 15,
                height: 15,
                rule: 0
            }
        );
        assert_eq!(gomoku().start_command(), "START 15");
        let wide = MnkVariant::new(16, 9, 5).unwrap();
        let game = GomocupGame::of::<Mnk>(&wide).unwrap();
        assert_eq!(game.start_command(), "RECTSTART 16,9");
        // Not five in a row: tic-tac-toe, and four in a row on a big board.
        assert!(GomocupGame::of::<Mnk>(&MnkVariant::TICTACTOE).is_err());
        let four = MnkVariant::new(15, 15, 4).unwrap();
        assert!(GomocupGame::of::<Mnk>(&four).is_err());
        assert!(GomocupGame::of::<cutoff::games::connect4::Connect4>(&()).is_err());
        // Gomoku's three rules.
        use cutoff::games::gomoku::{Gomoku, GomokuVariant, Rule};
        for (rule, number) in [
            (Rule::Freestyle, 0),
            (Rule::ExactlyFive, 1),
            (Rule::Renju, 4),
        ] {
            let variant = GomokuVariant::new(15, rule).unwrap();
            assert_eq!(GomocupGame::of::<Gomoku>(&variant).unwrap().rule, number);
        }
    }

    #[test]
    fn cells_convert_both_ways() {
        let game = gomoku();
        assert_eq!(game.to_gomocup("a15").as_deref(), Some("0,0"));
        assert_eq!(game.to_gomocup("a1").as_deref(), Some("0,14"));
        assert_eq!(game.to_gomocup("h8").as_deref(), Some("7,7"));
        assert_eq!(game.to_gomocup("p1"), None);
        assert_eq!(game.to_gomocup("a16"), None);
        assert_eq!(game.to_gomocup("a0"), None);
        assert_eq!(game.from_gomocup("9,8").as_deref(), Some("j7"));
        assert_eq!(game.from_gomocup(" 0 , 14").as_deref(), Some("a1"));
        assert_eq!(game.from_gomocup("15,0"), None);
        assert_eq!(game.from_gomocup("-1,3"), None);
        assert_eq!(game.from_gomocup("x,y"), None);
    }

    #[test]
    fn positions_go_as_begin_turn_or_board() {
        let game = gomoku();
        let known = vec!["h8".to_string()];
        assert_eq!(position_lines(&game, Some(&[]), &[]).unwrap(), ["BEGIN"]);
        assert_eq!(
            position_lines(&game, Some(&known), &["h8", "j7"]).unwrap(),
            ["TURN 9,8"]
        );
        // An opening the engine has not seen: every stone, the side to move's as 1.
        let board = position_lines(&game, Some(&[]), &["h8", "j7", "a1"]).unwrap();
        assert_eq!(board, ["BOARD", "7,7,2", "9,8,1", "0,14,2", "DONE"]);
        let board = position_lines(&game, None, &["h8"]).unwrap();
        assert_eq!(board, ["BOARD", "7,7,2", "DONE"]);
    }

    #[test]
    fn replies_and_messages_are_read() {
        assert!(is_move_reply("7,7"));
        assert!(is_move_reply(" -1 , 3"));
        assert!(!is_move_reply("MESSAGE 7,7 is good"));
        assert!(!is_move_reply("OK"));
        let line = "MESSAGE Depth 19-35 | Eval 258 | Time 710ms | J9 J7";
        assert_eq!(parse_message(line), (Some("cp 258".into()), Some(19)));
        let mate = "MESSAGE Depth 7-9 | Eval -M12 | Time 3ms";
        assert_eq!(parse_message(mate).0.as_deref(), Some("mate -12"));
        assert_eq!(parse_message("MESSAGE hello"), (None, None));
    }
}
