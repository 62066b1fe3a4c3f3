//! `cutoff play`: a person plays any game against an engine in the terminal.
//!
//! The game runs through the referee `cutoff match` uses ([`referee::play_game`]): one side
//! is an engine process, the other a `Human` reading moves from stdin, so rules, game end
//! and records are those of `cutoff match`.

use std::io::{BufRead, IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::referee::{
    self, ask_engine, parse_tc, Choice, EngineConfig, EngineProcess, EngineProtocol, GameRecord,
    Opening, RefereeSettings, SearchLimits, Side, SideFailure, Turn,
};
use cutoff::games::{GameKind, GameVisitor, PieceMarks, Registered};
use cutoff::protocol::dialect::Dialect;
use cutoff::search::{Game, GameResult, MoveList, Player};

/// Time the engine gets for a `hint`.
const HINT_MOVETIME_MS: u64 = 500;

/// A game between a person and an engine.
#[derive(Clone, Debug)]
pub struct PlayConfig {
    /// The game.
    pub game: GameKind,
    /// The side the person plays.
    pub human: Player,
    /// The engine, with its limits per move.
    pub engine: EngineConfig,
}

/// `cutoff play`: the engine's limits, the person's side and the engine.
#[derive(clap::Args, Clone, Debug)]
pub struct PlayArgs {
    /// Clock for the engine, `[moves/]base+inc` in seconds (e.g. `5+0.1`).
    #[arg(long, conflicts_with_all = ["depth", "movetime"])]
    pub tc: Option<String>,
    /// Fixed search depth for the engine.
    #[arg(long, conflicts_with = "movetime")]
    pub depth: Option<u32>,
    /// Fixed time per engine move in ms (default 1000 when no limit is given).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Which side you play.
    #[arg(long, default_value = "first", value_parser = ["first", "second"])]
    pub human: String,
    /// Engine command line (default: this program, over UGI).
    #[arg(long)]
    pub engine: Option<String>,
    /// Protocol of `--engine`: ugi, uci or uai (Ataxx only).
    #[arg(long, default_value = "ugi", value_parser = ["ugi", "uci", "uai"])]
    pub proto: String,
}

impl PlayArgs {
    /// Plays the game with stdin as the person's input; the error is a usage or start-up
    /// error (exit status 2), whatever the end of a game that was played.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        let config = self.config(game)?;
        run(&config, Box::new(std::io::stdin().lock())).map(|_| ())
    }

    /// The game these arguments describe.
    fn config(&self, game: GameKind) -> Result<PlayConfig, String> {
        let mut limits = match self.tc.as_deref().map(parse_tc).transpose() {
            Ok(limits) => limits.unwrap_or_default(),
            Err(e) => return Err(format!("--tc: {e}")),
        };
        limits.depth = self.depth;
        limits.movetime_ms = self.movetime;
        if self.tc.is_none() && self.depth.is_none() && self.movetime.is_none() {
            limits.movetime_ms = Some(1000);
        }
        let (cmd, args) = match &self.engine {
            Some(line) => {
                let mut words = line.split_whitespace().map(str::to_string);
                let Some(cmd) = words.next() else {
                    return Err("--engine is empty".to_string());
                };
                (cmd, words.collect())
            }
            None => match std::env::current_exe() {
                Ok(exe) => (
                    exe.to_string_lossy().into_owned(),
                    vec!["--game".to_string(), game.name().to_string()],
                ),
                Err(e) => return Err(format!("cannot find this program: {e}")),
            },
        };
        let proto = Dialect::from_name(&self.proto)
            .ok_or_else(|| format!("unknown protocol '{}' (ugi, uci or uai)", self.proto))?;
        cutoff::games::check_dialect(game, proto.handshake())
            .map_err(|e| format!("--proto {e}"))?;
        let name = std::path::Path::new(&cmd)
            .file_name()
            .map_or(cmd.clone(), |n| n.to_string_lossy().into_owned());
        Ok(PlayConfig {
            game,
            human: if self.human == "second" {
                Player::Second
            } else {
                Player::First
            },
            engine: EngineConfig {
                name,
                cmd,
                args,
                dir: None,
                proto: EngineProtocol::Text(proto),
                options: Vec::new(),
                limits,
                time_margin: None,
            },
        })
    }
}

/// Plays one game, reading the person's input from `input` and writing to stdout;
/// returns the record once the game has ended (by the rules, a forfeit, `quit` or EOF).
pub fn run(config: &PlayConfig, input: Box<dyn BufRead>) -> Result<GameRecord, String> {
    config.game.visit_default(PlayCommand { config, input })
}

/// `cutoff play` for the visited game.
struct PlayCommand<'a> {
    config: &'a PlayConfig,
    input: Box<dyn BufRead>,
}

impl GameVisitor for PlayCommand<'_> {
    type Output = Result<GameRecord, String>;

    fn visit<G: Game>(self, game: Registered<G>) -> Self::Output {
        run_game::<G>(self.config, &game, self.input)
    }
}

fn run_game<G: Game>(
    config: &PlayConfig,
    game: &Registered<G>,
    input: Box<dyn BufRead>,
) -> Result<GameRecord, String> {
    let variant = &game.variant;
    let never = || false;
    let settings = RefereeSettings {
        time_margin: Duration::from_millis(200),
        move_timeout: Duration::from_secs(24 * 3600),
        ..RefereeSettings::default()
    };
    let mut engine = start_engine(&config.engine, &settings)?;
    let names = game.info.players;
    let mut human = Human {
        input,
        colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        pieces: game.info.pieces,
        names,
        hint_config: EngineConfig {
            name: "hint".to_string(),
            ..config.engine.clone()
        },
        hint_engine: None,
        start_ply: None,
    };
    let record = {
        let sides: [&mut dyn Side<G>; 2] = match config.human {
            Player::First => [&mut human, &mut engine],
            Player::Second => [&mut engine, &mut human],
        };
        referee::play_game::<G>(variant, &Opening::default(), sides, &settings, &never)?
    };
    println!("\n{}", announce(&record, names));
    engine.quit();
    if let Some(hint) = human.hint_engine.take() {
        hint.quit();
    }
    Ok(record)
}

fn start_engine(
    config: &EngineConfig,
    settings: &RefereeSettings,
) -> Result<EngineProcess, String> {
    let mut engine = EngineProcess::spawn(config)?;
    engine
        .init(settings.startup_timeout, settings.ready_timeout, &|| false)
        .map_err(|(failure, stage)| {
            format!("engine '{}' failed at {stage}: {failure:?}", config.cmd)
        })?;
    Ok(engine)
}

/// The result line: `Result: x wins (you): reason`, `Result: draw: reason`, or the game
/// ended without a result.
pub fn announce(record: &GameRecord, names: [&str; 2]) -> String {
    match record.result {
        Some(GameResult::FirstWins) => format!(
            "Result: {} wins ({}): {}",
            names[0], record.first, record.reason
        ),
        Some(GameResult::SecondWins) => format!(
            "Result: {} wins ({}): {}",
            names[1], record.second, record.reason
        ),
        Some(GameResult::Draw) => format!("Result: draw: {}", record.reason),
        None => format!("Game over without a result: {}", record.reason),
    }
}

/// The person at the terminal: reads moves and commands, draws the board.
struct Human {
    input: Box<dyn BufRead>,
    colour: bool,
    pieces: PieceMarks,
    names: [&'static str; 2],
    hint_config: EngineConfig,
    hint_engine: Option<EngineProcess>,
    /// Ply of the first position shown: `undo` never goes before it.
    start_ply: Option<u32>,
}

impl Human {
    /// The board, coloured with ANSI codes when the terminal shows them.
    fn board<G: Game>(&self, position: &G) -> String {
        let text = position.render();
        if !self.colour {
            return text;
        }
        let lines: Vec<&str> = text.lines().collect();
        let last = lines.len().saturating_sub(1);
        let mut out = Vec::with_capacity(lines.len());
        for (i, line) in lines.iter().enumerate() {
            let board_line = match self.pieces {
                PieceMarks::Letters => {
                    line.starts_with(|c: char| c.is_ascii_digit()) && line.contains('|')
                }
                PieceMarks::Stones(..) => i < last,
            };
            if !board_line {
                out.push(line.to_string());
                continue;
            }
            let mut coloured = String::new();
            for c in line.chars() {
                let code = match self.pieces {
                    PieceMarks::Stones(first, _) if c == first => Some("1;31"),
                    PieceMarks::Stones(_, second) if c == second => Some("1;33"),
                    PieceMarks::Letters if c.is_ascii_uppercase() => Some("1;97"),
                    PieceMarks::Letters if c.is_ascii_lowercase() => Some("1;31"),
                    _ => None,
                };
                match code {
                    Some(code) => coloured += &format!("\x1b[{code}m{c}\x1b[0m"),
                    None => coloured.push(c),
                }
            }
            out.push(coloured);
        }
        out.join("\n")
    }

    /// Asks the hint engine for a move in `turn.position`.
    fn hint<G: Game>(&mut self, turn: &Turn<'_, G>, settings: &RefereeSettings) -> String {
        if self.hint_engine.is_none() {
            match start_engine(&self.hint_config, settings) {
                Ok(engine) => self.hint_engine = Some(engine),
                Err(e) => return format!("no hint: {e}"),
            }
        }
        let engine = self.hint_engine.as_mut().expect("started");
        let mut go = format!("go movetime {HINT_MOVETIME_MS}");
        if let Some(depth) = self.hint_config.limits.depth {
            go += &format!(" depth {depth}");
        }
        let allowed = Duration::from_millis(HINT_MOVETIME_MS) + Duration::from_secs(10);
        match ask_engine(engine, turn.command, &go, allowed, false, &|| false) {
            Ok(Choice::Move { text, score, .. }) => match score {
                Some(score) => format!("hint: {text} (score {score})"),
                None => format!("hint: {text}"),
            },
            Ok(_) | Err(SideFailure::Interrupted) => "no hint".to_string(),
            Err(SideFailure::Forfeit(_, reason)) => {
                self.hint_engine = None;
                format!("no hint: the engine {reason}")
            }
        }
    }
}

impl<G: Game> Side<G> for Human {
    fn name(&self) -> &str {
        "you"
    }

    fn limits(&self) -> SearchLimits {
        SearchLimits::default()
    }

    fn new_game(
        &mut self,
        _settings: &RefereeSettings,
        _interrupted: &dyn Fn() -> bool,
    ) -> Result<(), SideFailure> {
        self.start_ply = None;
        println!("Type a move, or: undo, hint, moves, quit.");
        Ok(())
    }

    fn play(
        &mut self,
        turn: &Turn<'_, G>,
        settings: &RefereeSettings,
        _interrupted: &dyn Fn() -> bool,
    ) -> Result<Choice, SideFailure> {
        let started = Instant::now();
        let me = self.names[turn.index];
        loop {
            print!("Your move ({me}): ");
            let _ = std::io::stdout().flush();
            let mut line = String::new();
            match self.input.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    println!();
                    return Ok(Choice::Quit("ended the game (end of input)".to_string()));
                }
                Ok(_) => {}
            }
            let text = line.trim();
            match text.to_ascii_lowercase().as_str() {
                "" => continue,
                "quit" | "exit" => return Ok(Choice::Quit("quit".to_string())),
                "undo" => {
                    let start = self.start_ply.unwrap_or(0);
                    if turn.position.ply() >= start + 2 {
                        return Ok(Choice::Undo);
                    }
                    println!("nothing to undo");
                }
                "hint" => println!("{}", self.hint(turn, settings)),
                "moves" | "help" | "?" => {
                    let mut moves = MoveList::new();
                    turn.position.generate_moves(&mut moves);
                    let list: Vec<String> = moves
                        .iter()
                        .map(|&mv| turn.position.format_move(mv))
                        .collect();
                    println!("legal moves: {}", list.join(" "));
                }
                _ => match turn.position.parse_move(text) {
                    Ok(mv) => {
                        return Ok(Choice::Move {
                            text: turn.position.format_move(mv),
                            time_ms: started.elapsed().as_millis() as u64,
                            score: None,
                            depth: None,
                        })
                    }
                    Err(e) => println!("{e}; try again ('moves' lists the legal moves)"),
                },
            }
        }
    }

    fn show(&mut self, position: &G, last: Option<(&str, Player)>) {
        if self.start_ply.is_none() {
            self.start_ply = Some(position.ply());
        }
        println!();
        match last {
            Some((text, mover)) => println!("{} plays {text}", self.names[mover.index()]),
            None => println!("Position:"),
        }
        println!("{}", self.board(position));
    }
}
