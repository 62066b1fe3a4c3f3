//! Parsing of input lines into one typed [`Command`] for UCI, UGI and UAI.
//!
//! Parsing never fails silently: every unknown command, unknown token or bad number is a
//! [`CommandError`] that the controller prints as `info string error: ...`.

use thiserror::Error;

use super::dialect::{ClockKey, Dialect};
use super::genfens::{parse_genfens, GenfensRequest};

/// Where a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionStart {
    /// The game's start position.
    StartPos,
    /// A position in the game's FEN-like notation.
    Fen(String),
}

/// The parameters of a `go` command, still in protocol terms (moves as text).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    /// First player's clock in ms (`wtime`, `p1time`).
    pub first_time: Option<u64>,
    /// Second player's clock in ms (`btime`, `p2time`).
    pub second_time: Option<u64>,
    /// First player's increment in ms (`winc`, `p1inc`).
    pub first_inc: Option<u64>,
    /// Second player's increment in ms (`binc`, `p2inc`).
    pub second_inc: Option<u64>,
    /// Moves to the next time control.
    pub moves_to_go: Option<u32>,
    /// Depth limit.
    pub depth: Option<u32>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Fixed time per move in ms.
    pub movetime: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Search on the opponent's time.
    pub ponder: bool,
    /// Restrict the root to these moves.
    pub searchmoves: Vec<String>,
    /// `go perft N`: count leaves instead of searching.
    pub perft: Option<u32>,
    /// Clocks named by colour (`wtime`, `btime`, `winc`, `binc`, in that order), which
    /// mean different players in different dialects: [`GoParams::in_dialect`] moves them
    /// into the clocks above.
    pub colour_clocks: [Option<u64>; 4],
}

impl GoParams {
    /// The parameters as `dialect` means them: the colour-named clocks moved to the players
    /// they name. UCI and UGI read colours white first; in UAI black (`x`) moves first, so
    /// its `btime`/`binc` are the first player's clock and `wtime`/`winc` the second's.
    /// Player-named clocks (`p1time`...) mean the same in every dialect; where a colour and
    /// a player name the same clock, the colour's value is taken.
    pub fn in_dialect(self, dialect: Dialect) -> GoParams {
        let mut go = self;
        for key in ClockKey::ALL {
            let Some(value) = go.colour_clocks[key.index()].take() else {
                continue;
            };
            let word = PARSER_DIALECT.clock_word(key);
            if let Some(meant) = dialect.read_clock_word(word) {
                *go.clock_mut(meant) = Some(value);
            }
        }
        go
    }

    /// The clock value `key` names, to set it.
    fn clock_mut(&mut self, key: ClockKey) -> &mut Option<u64> {
        match key {
            ClockKey::FirstTime => &mut self.first_time,
            ClockKey::SecondTime => &mut self.second_time,
            ClockKey::FirstInc => &mut self.first_inc,
            ClockKey::SecondInc => &mut self.second_inc,
        }
    }
}

/// How the parser reads clock keys before it knows the dialect: colour names as UCI means
/// them, player names as everywhere. [`GoParams::in_dialect`] reads them again.
const PARSER_DIALECT: Dialect = Dialect::Uci;

/// What `query` asks (UGI).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// Is the game over?
    GameOver,
    /// Is it the first player's turn?
    P1Turn,
    /// Who won?
    Result,
}

/// One input line, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: handshake in the UCI dialect.
    Uci,
    /// `ugi`: handshake in the UGI dialect.
    Ugi,
    /// `uai`: handshake in the UAI dialect (Ataxx).
    Uai,
    /// `isready`.
    IsReady,
    /// `debug on|off`.
    Debug(bool),
    /// `setoption name N [value V]`.
    SetOption {
        /// Option name (may contain spaces).
        name: String,
        /// Value, absent for buttons.
        value: Option<String>,
    },
    /// `ucinewgame`, `uginewgame` or `uainewgame`: the dialect whose word was sent.
    NewGame(Dialect),
    /// `position startpos|fen F [moves M...]`.
    Position {
        /// Starting point.
        start: PositionStart,
        /// Moves to play from it.
        moves: Vec<String>,
    },
    /// `go ...`.
    Go(GoParams),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
    /// `query gameover|p1turn|result`.
    Query(Query),
    /// `d`: print the board.
    Display,
    /// `eval`: print the static evaluation.
    Eval,
    /// `perft N`.
    Perft(u32),
    /// `bench [depth]`.
    Bench(Option<u32>),
    /// `register ...`: accepted and ignored (no registration is needed).
    Register,
    /// `genfens N seed S book <None|FILE> [plies A[-B]]`: OpenBench's opening positions.
    Genfens(GenfensRequest),
}

/// Why a line could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandError {
    /// The first word is no command.
    #[error("unknown command '{0}'")]
    Unknown(String),
    /// A token the command does not take.
    #[error("unexpected token '{token}' in '{command}'")]
    UnexpectedToken {
        /// The command.
        command: &'static str,
        /// The offending token.
        token: String,
    },
    /// A parameter lacks its value.
    #[error("'{0}' needs a value")]
    MissingValue(String),
    /// A parameter's value is not a non-negative integer in range.
    #[error("invalid value '{value}' for '{name}': expected a non-negative integer")]
    BadNumber {
        /// The parameter.
        name: String,
        /// The value given.
        value: String,
    },
    /// Something else malformed.
    #[error("{0}")]
    Malformed(String),
}

/// Parses one line. Returns `Ok(None)` for a blank line.
pub fn parse(line: &str) -> Result<Option<Command>, CommandError> {
    // A byte-order mark (a Windows tool's first line) is not part of the command.
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&head, rest)) = tokens.split_first() else {
        return Ok(None);
    };
    let command = match head {
        "uci" => no_args("uci", rest, Command::Uci)?,
        "ugi" => no_args("ugi", rest, Command::Ugi)?,
        "uai" => no_args("uai", rest, Command::Uai)?,
        "isready" => no_args("isready", rest, Command::IsReady)?,
        "ucinewgame" => no_args("ucinewgame", rest, Command::NewGame(Dialect::Uci))?,
        "uginewgame" => no_args("uginewgame", rest, Command::NewGame(Dialect::Ugi))?,
        "uainewgame" => no_args("uainewgame", rest, Command::NewGame(Dialect::Uai))?,
        "stop" => no_args("stop", rest, Command::Stop)?,
        "ponderhit" => no_args("ponderhit", rest, Command::PonderHit)?,
        "quit" => Command::Quit,
        "d" => no_args("d", rest, Command::Display)?,
        "eval" => no_args("eval", rest, Command::Eval)?,
        "register" => Command::Register,
        "debug" => match rest {
            ["on"] => Command::Debug(true),
            ["off"] => Command::Debug(false),
            _ => return Err(CommandError::Malformed("usage: debug on|off".into())),
        },
        "setoption" => parse_setoption(rest)?,
        "position" => parse_position(rest)?,
        "go" => parse_go(rest)?,
        "query" => match rest {
            ["gameover"] => Command::Query(Query::GameOver),
            ["p1turn"] => Command::Query(Query::P1Turn),
            ["result"] => Command::Query(Query::Result),
            _ => {
                return Err(CommandError::Malformed(
                    "usage: query gameover|p1turn|result".into(),
                ))
            }
        },
        "perft" => match rest {
            [n] => Command::Perft(number("perft", n)?),
            _ => return Err(CommandError::Malformed("usage: perft DEPTH".into())),
        },
        "bench" => match rest {
            [] => Command::Bench(None),
            [n] => Command::Bench(Some(number("bench", n)?)),
            _ => return Err(CommandError::Malformed("usage: bench [DEPTH]".into())),
        },
        "genfens" => Command::Genfens(parse_genfens(rest).map_err(CommandError::Malformed)?),
        other => return Err(CommandError::Unknown(other.to_string())),
    };
    Ok(Some(command))
}

fn no_args(name: &'static str, rest: &[&str], command: Command) -> Result<Command, CommandError> {
    match rest.first() {
        None => Ok(command),
        Some(token) => Err(CommandError::UnexpectedToken {
            command: name,
            token: token.to_string(),
        }),
    }
}

fn number<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, CommandError> {
    // Only plain digits: "+5", "-5", "5.0" and "1e3" are refused.
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CommandError::BadNumber {
            name: name.to_string(),
            value: value.to_string(),
        });
    }
    value.parse().map_err(|_| CommandError::BadNumber {
        name: name.to_string(),
        value: value.to_string(),
    })
}

fn parse_setoption(rest: &[&str]) -> Result<Command, CommandError> {
    if rest.first() != Some(&"name") {
        return Err(CommandError::Malformed(
            "usage: setoption name NAME [value VALUE]".into(),
        ));
    }
    let body = &rest[1..];
    let value_at = body.iter().position(|&t| t == "value");
    let (name_tokens, value) = match value_at {
        Some(i) => (&body[..i], Some(body[i + 1..].join(" "))),
        None => (body, None),
    };
    if name_tokens.is_empty() {
        return Err(CommandError::MissingValue("setoption name".into()));
    }
    Ok(Command::SetOption {
        name: name_tokens.join(" "),
        value,
    })
}

fn parse_position(rest: &[&str]) -> Result<Command, CommandError> {
    let moves_at = rest.iter().position(|&t| t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let start = match setup {
        ["startpos"] => PositionStart::StartPos,
        ["fen", fen @ ..] if !fen.is_empty() => PositionStart::Fen(fen.join(" ")),
        ["fen"] => return Err(CommandError::MissingValue("fen".into())),
        ["startpos", token, ..] => {
            return Err(CommandError::UnexpectedToken {
                command: "position",
                token: token.to_string(),
            })
        }
        _ => {
            return Err(CommandError::Malformed(
                "usage: position startpos|fen FEN [moves MOVE...]".into(),
            ))
        }
    };
    Ok(Command::Position {
        start,
        moves: moves.iter().map(|m| m.to_string()).collect(),
    })
}

fn parse_go(rest: &[&str]) -> Result<Command, CommandError> {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i];
        let value = || {
            rest.get(i + 1)
                .copied()
                .ok_or_else(|| CommandError::MissingValue(key.to_string()))
        };
        if let Some(clock) = PARSER_DIALECT.read_clock_word(key) {
            let value = Some(number(key, value()?)?);
            // A key of the parser's own dialect is named by colour, not by player.
            if PARSER_DIALECT.clock_word(clock) == key {
                go.colour_clocks[clock.index()] = value;
            } else {
                *go.clock_mut(clock) = value;
            }
            i += 2;
            continue;
        }
        match key {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                go.searchmoves = rest[i + 1..].iter().map(|m| m.to_string()).collect();
                if go.searchmoves.is_empty() {
                    return Err(CommandError::MissingValue("searchmoves".into()));
                }
                break;
            }
            "movestogo" => go.moves_to_go = Some(number(key, value()?)?),
            "depth" => go.depth = Some(number(key, value()?)?),
            "nodes" => go.nodes = Some(number(key, value()?)?),
            "movetime" => go.movetime = Some(number(key, value()?)?),
            "mate" => go.mate = Some(number(key, value()?)?),
            "perft" => go.perft = Some(number(key, value()?)?),
            other => {
                return Err(CommandError::UnexpectedToken {
                    command: "go",
                    token: other.to_string(),
                })
            }
        }
        i += match key {
            "infinite" | "ponder" => 1,
            _ => 2,
        };
    }
    Ok(Command::Go(go))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_handshakes_and_simple_commands() {
        assert_eq!(parse("uci"), Ok(Some(Command::Uci)));
        assert_eq!(parse("  ugi \r"), Ok(Some(Command::Ugi)));
        assert_eq!(parse("\u{feff}uci"), Ok(Some(Command::Uci)));
        assert_eq!(parse("\tisready"), Ok(Some(Command::IsReady)));
        assert_eq!(
            parse("uginewgame"),
            Ok(Some(Command::NewGame(Dialect::Ugi)))
        );
        assert_eq!(parse("uai"), Ok(Some(Command::Uai)));
        assert_eq!(
            parse("uainewgame"),
            Ok(Some(Command::NewGame(Dialect::Uai)))
        );
        assert!(parse("uai now").is_err());
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse(" \t \r"), Ok(None));
        assert!(matches!(
            parse("isready now"),
            Err(CommandError::UnexpectedToken { .. })
        ));
        assert_eq!(
            parse("xyzzy 1 2"),
            Err(CommandError::Unknown("xyzzy".into()))
        );
    }

    #[test]
    fn parses_setoption_with_spaces() {
        assert_eq!(
            parse("setoption name Move Overhead value 25"),
            Ok(Some(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("25".into())
            }))
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Ok(Some(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }))
        );
        assert!(parse("setoption Hash 5").is_err());
        assert!(parse("setoption name").is_err());
    }

    #[test]
    fn parses_positions() {
        assert_eq!(
            parse("position fen 7/7/7/7/7/7 x moves 4 4"),
            Ok(Some(Command::Position {
                start: PositionStart::Fen("7/7/7/7/7/7 x".into()),
                moves: vec!["4".into(), "4".into()]
            }))
        );
        assert_eq!(
            parse("position startpos"),
            Ok(Some(Command::Position {
                start: PositionStart::StartPos,
                moves: vec![]
            }))
        );
        assert!(parse("position").is_err());
        assert!(parse("position fen").is_err());
        assert!(parse("position startpos e2e4").is_err());
    }

    #[test]
    fn parses_go_in_both_dialects() {
        let Ok(Some(Command::Go(go))) =
            parse("go wtime 1000 btime 2000 winc 10 binc 20 movestogo 5 depth 7")
        else {
            panic!("go should parse");
        };
        let go = go.in_dialect(Dialect::Uci);
        assert_eq!(go.first_time, Some(1000));
        assert_eq!(go.second_inc, Some(20));
        assert_eq!(go.moves_to_go, Some(5));
        assert_eq!(go.depth, Some(7));
        let Ok(Some(Command::Go(ugi))) = parse("go p1time 1000 p2time 2000 p1inc 10 p2inc 20")
        else {
            panic!("go should parse");
        };
        assert_eq!((ugi.first_time, ugi.second_inc), (Some(1000), Some(20)));
        assert_eq!(go.colour_clocks, [None; 4]);
        assert_eq!(ugi.colour_clocks, [None; 4]);
        let Ok(Some(Command::Go(sm))) = parse("go infinite searchmoves 4 5") else {
            panic!("go should parse");
        };
        assert!(sm.infinite);
        assert_eq!(sm.searchmoves, vec!["4", "5"]);
    }

    #[test]
    fn uai_clocks_are_black_first() {
        let go = |line: &str| match parse(line) {
            Ok(Some(Command::Go(go))) => go,
            other => panic!("{line}: {other:?}"),
        };
        let colours = go("go btime 1000 wtime 2000 binc 10 winc 20");
        let uai = colours.clone().in_dialect(Dialect::Uai);
        assert_eq!((uai.first_time, uai.first_inc), (Some(1000), Some(10)));
        assert_eq!((uai.second_time, uai.second_inc), (Some(2000), Some(20)));
        let uci = colours.in_dialect(Dialect::Uci);
        assert_eq!((uci.first_time, uci.second_time), (Some(2000), Some(1000)));
        let players = go("go p1time 1000 p2time 2000").in_dialect(Dialect::Uai);
        assert_eq!(
            (players.first_time, players.second_time),
            (Some(1000), Some(2000))
        );
        // A colour word moves only its own clock, not the players' named beside it.
        let mixed = go("go p1time 20000 p2time 200 binc 0").in_dialect(Dialect::Uai);
        assert_eq!(
            (mixed.first_time, mixed.second_time, mixed.first_inc),
            (Some(20000), Some(200), Some(0))
        );
    }

    #[test]
    fn refuses_bad_go_numbers() {
        for line in [
            "go depth -1",
            "go depth x",
            "go wtime",
            "go movetime 1.5",
            "go nodes 99999999999999999999999",
            "go depth +3",
            "go banana 3",
            "go searchmoves",
        ] {
            assert!(parse(line).is_err(), "{line} should be refused");
        }
    }
}
