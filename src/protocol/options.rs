//! The engine's options: how `uci`/`ugi` list them and how `setoption` values are checked.

use thiserror::Error;

use crate::games::{self, GameKind, VariantOption};

/// Default transposition table size in MiB.
pub const DEFAULT_HASH_MB: usize = 16;
/// Largest transposition table in MiB.
pub const MAX_HASH_MB: usize = 65_536;
/// Default `Move Overhead` in ms.
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 10;
/// Largest `Move Overhead` in ms.
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5_000;
/// Largest `Threads`.
pub const MAX_THREADS: usize = 256;
/// Largest `MultiPV`.
pub const MAX_MULTIPV: usize = 256;
/// Highest (and default) `Skill Level`: full strength.
pub const MAX_SKILL_LEVEL: u64 = 20;

/// Reads a `--hash` size in MiB on a tool's command line: from 1 to [`MAX_HASH_MB`], as the
/// `Hash` option takes it.
pub fn parse_hash_mb(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => Ok(mb),
        _ => Err(format!(
            "'{text}' is not a size from 1 to {MAX_HASH_MB} MiB"
        )),
    }
}

/// A validated `setoption`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionChange {
    /// `Hash`: table size in MiB.
    Hash(usize),
    /// `Clear Hash` (button).
    ClearHash,
    /// `Move Overhead` in ms.
    MoveOverhead(u64),
    /// `Game`: which game to play.
    Game(GameKind),
    /// `Threads`: number of search threads.
    Threads(usize),
    /// `Ponder`: the GUI may send `go ponder` (nothing to change in the engine).
    Ponder(bool),
    /// `MultiPV`: number of best lines to report.
    MultiPv(usize),
    /// A variant option of the current game (chess's `UCI_Chess960`, gomoku's
    /// `BoardSize`...), with its checked value.
    Variant {
        /// The option, as the game declares it.
        option: VariantOption,
        /// The value, as [`VariantOption::check`] writes it.
        value: String,
    },
    /// `EvalFile`: the path of an evaluation network file; `None` (`<empty>`) for none.
    EvalFile(Option<String>),
    /// `UseNNUE`: evaluate with the network (`EvalFile`'s, or the built-in one).
    UseNnue(bool),
    /// The endgame tables' directories (chess: `SyzygyPath`, `:`-separated); `None`
    /// (`<empty>`) for none.
    TablebasePath(Option<String>),
    /// `UCI_ShowWDL`: add the side to move's win/draw/loss chances to `info` lines (a game
    /// with a win/draw/loss model only).
    ShowWdl(bool),
    /// `Skill Level`: the playing level, 0 to 20 (full strength).
    SkillLevel(u8),
    /// `UCI_LimitStrength`: play at `UCI_Elo` (a game with an Elo scale only).
    LimitStrength(bool),
    /// `UCI_Elo`: the rating played at under `UCI_LimitStrength`, within the game's scale.
    Elo(u32),
    /// Tuning build only: one of the current game's search constants, by its option name
    /// (see [`super::tuning`]).
    #[cfg(feature = "tune")]
    SearchParam {
        /// The constant's option name.
        name: &'static str,
        /// Its value, in the option's units.
        value: i64,
    },
}

/// Why a `setoption` was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OptionError {
    /// No option of that name.
    #[error("unknown option '{0}'")]
    Unknown(String),
    /// The option needs a value.
    #[error("option '{0}' needs a value")]
    MissingValue(String),
    /// The option exists, but not for the current game.
    #[error("option '{name}' is not available for {game}")]
    NotForGame {
        /// Option name.
        name: String,
        /// The current game.
        game: GameKind,
    },
    /// The value is out of range or of the wrong type.
    #[error("invalid value '{value}' for option '{name}': {expected}")]
    BadValue {
        /// Option name.
        name: String,
        /// Value given.
        value: String,
        /// What was expected.
        expected: String,
    },
}

/// The `option ...` lines of the handshake, with `game` as the current default. The game's
/// own variant options follow the engine's; `EvalFile` and `UseNNUE` are listed only for a
/// game that takes a network, `UCI_ShowWDL` only for a game with a win/draw/loss model.
pub fn option_lines(game: GameKind) -> Vec<String> {
    let games: String = games::all().map(|kind| format!(" var {kind}")).collect();
    let mut lines = vec![
        format!("option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"),
        "option name Clear Hash type button".to_string(),
        format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"),
        "option name Ponder type check default false".to_string(),
        format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"),
        format!(
            "option name Move Overhead type spin default {DEFAULT_MOVE_OVERHEAD_MS} min 0 max {MAX_MOVE_OVERHEAD_MS}"
        ),
        format!("option name Game type combo default {game}{games}"),
        format!(
            "option name Skill Level type spin default {MAX_SKILL_LEVEL} min 0 max {MAX_SKILL_LEVEL}"
        ),
    ];
    lines.extend(
        game.info()
            .protocol
            .variant_options
            .iter()
            .map(VariantOption::line),
    );
    if game.info().eval_net.is_some() {
        lines.push("option name EvalFile type string default <empty>".to_string());
        lines.push(format!(
            "option name UseNNUE type check default {}",
            net_by_default(game)
        ));
    }
    if let Some(support) = game.info().tablebases {
        let name = support.path_option;
        lines.push(format!("option name {name} type string default <empty>"));
    }
    if let Some((min, max)) = elo_range(game) {
        lines.push("option name UCI_LimitStrength type check default false".to_string());
        lines.push(format!(
            "option name UCI_Elo type spin default {min} min {min} max {max}"
        ));
    }
    if game.info().wdl.is_some() {
        lines.push("option name UCI_ShowWDL type check default false".to_string());
    }
    #[cfg(feature = "tune")]
    lines.extend(super::tuning::option_lines(game));
    lines
}

/// `UseNNUE`'s default: on when `game` has a network built into the binary.
pub fn net_by_default(game: GameKind) -> bool {
    game.info()
        .eval_net
        .is_some_and(|support| (support.embedded)().is_some())
}

/// The `UCI_Elo` range of `game` (its Elo scale's first and last ratings; the default is
/// the first), if it has a scale.
pub fn elo_range(game: GameKind) -> Option<(u32, u32)> {
    let scale = game.info().elo_scale?;
    Some((scale.first()?.elo, scale.last()?.elo))
}

/// Whether `name` is an option that only some games have, and `game` lacks it.
pub fn missing_for_game(change: &OptionChange, game: GameKind) -> Option<OptionError> {
    let info = game.info();
    let (name, missing) = match change {
        OptionChange::EvalFile(_) => ("EvalFile", info.eval_net.is_none()),
        OptionChange::UseNnue(_) => ("UseNNUE", info.eval_net.is_none()),
        OptionChange::ShowWdl(_) => ("UCI_ShowWDL", info.wdl.is_none()),
        OptionChange::LimitStrength(_) => ("UCI_LimitStrength", info.elo_scale.is_none()),
        OptionChange::TablebasePath(_) => {
            let name = games::all()
                .find_map(|kind| kind.info().tablebases)
                .map_or("SyzygyPath", |support| support.path_option);
            (name, info.tablebases.is_none())
        }
        _ => return None,
    };
    missing.then(|| OptionError::NotForGame {
        name: name.to_string(),
        game,
    })
}

/// Whether `name` is the option of some game's endgame tables ([`OptionChange::TablebasePath`]).
fn is_tablebase_path(name: &str) -> bool {
    games::all()
        .filter_map(|kind| kind.info().tablebases)
        .any(|support| support.path_option.eq_ignore_ascii_case(name.trim()))
}

fn spin(name: &str, value: Option<&str>, min: u64, max: u64) -> Result<u64, OptionError> {
    let value = value.ok_or_else(|| OptionError::MissingValue(name.to_string()))?;
    value
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| OptionError::BadValue {
            name: name.to_string(),
            value: value.to_string(),
            expected: format!("an integer from {min} to {max}"),
        })
}

fn check(name: &str, value: Option<&str>) -> Result<bool, OptionError> {
    let value = value.ok_or_else(|| OptionError::MissingValue(name.to_string()))?;
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(OptionError::BadValue {
            name: name.to_string(),
            value: value.to_string(),
            expected: "true or false".to_string(),
        }),
    }
}

/// Checks a `setoption name NAME value VALUE` while `game` is current (names are
/// case-insensitive): the engine's options, then the game's variant options; another
/// game's variant option is refused as not available.
pub fn parse_option(
    name: &str,
    value: Option<&str>,
    game: GameKind,
) -> Result<OptionChange, OptionError> {
    #[cfg(feature = "tune")]
    if let Some(change) = parse_search_param(name, value) {
        return change;
    }
    match name.to_ascii_lowercase().as_str() {
        "hash" => Ok(OptionChange::Hash(
            spin("Hash", value, 1, MAX_HASH_MB as u64)? as usize,
        )),
        "clear hash" => Ok(OptionChange::ClearHash),
        "move overhead" => Ok(OptionChange::MoveOverhead(spin(
            "Move Overhead",
            value,
            0,
            MAX_MOVE_OVERHEAD_MS,
        )?)),
        "threads" => Ok(OptionChange::Threads(
            spin("Threads", value, 1, MAX_THREADS as u64)? as usize,
        )),
        "ponder" => Ok(OptionChange::Ponder(check("Ponder", value)?)),
        "evalfile" => {
            let path = value.map(str::trim).unwrap_or_default();
            Ok(OptionChange::EvalFile(
                (!path.is_empty() && path != "<empty>").then(|| path.to_string()),
            ))
        }
        "usennue" => Ok(OptionChange::UseNnue(check("UseNNUE", value)?)),
        _ if is_tablebase_path(name) => {
            let path = value.map(str::trim).unwrap_or_default();
            Ok(OptionChange::TablebasePath(
                (!path.is_empty() && path != "<empty>").then(|| path.to_string()),
            ))
        }
        "uci_showwdl" => Ok(OptionChange::ShowWdl(check("UCI_ShowWDL", value)?)),
        "skill level" => Ok(OptionChange::SkillLevel(
            spin("Skill Level", value, 0, MAX_SKILL_LEVEL)? as u8,
        )),
        "uci_limitstrength" => Ok(OptionChange::LimitStrength(check(
            "UCI_LimitStrength",
            value,
        )?)),
        "uci_elo" => {
            let (min, max) = elo_range(game).ok_or_else(|| OptionError::NotForGame {
                name: "UCI_Elo".to_string(),
                game,
            })?;
            let elo = spin("UCI_Elo", value, u64::from(min), u64::from(max))?;
            Ok(OptionChange::Elo(elo as u32))
        }
        "multipv" => Ok(OptionChange::MultiPv(
            spin("MultiPV", value, 1, MAX_MULTIPV as u64)? as usize,
        )),
        "game" => {
            let value = value.ok_or_else(|| OptionError::MissingValue("Game".to_string()))?;
            games::find(value)
                .map(OptionChange::Game)
                .ok_or_else(|| OptionError::BadValue {
                    name: "Game".to_string(),
                    value: value.to_string(),
                    expected: format!("one of {}", games::names(", ")),
                })
        }
        _ => parse_variant_option(name, value, game),
    }
}

/// Tuning build only: reads `setoption name NAME value VALUE` when NAME is a tunable
/// search constant (`None`: it is not); the range is checked here, the whole set by
/// `tuning::apply`.
#[cfg(feature = "tune")]
fn parse_search_param(
    name: &str,
    value: Option<&str>,
) -> Option<Result<OptionChange, OptionError>> {
    let tunable = crate::search::params::tunable(name)?;
    let Some(value) = value else {
        return Some(Err(OptionError::MissingValue(tunable.name.to_string())));
    };
    Some(
        value
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|v| (tunable.min..=tunable.max).contains(v))
            .map(|value| OptionChange::SearchParam {
                name: tunable.name,
                value,
            })
            .ok_or_else(|| OptionError::BadValue {
                name: tunable.name.to_string(),
                value: value.to_string(),
                expected: format!("an integer from {} to {}", tunable.min, tunable.max),
            }),
    )
}

/// Checks `setoption` of a game's variant option.
fn parse_variant_option(
    name: &str,
    value: Option<&str>,
    game: GameKind,
) -> Result<OptionChange, OptionError> {
    let declared = |kind: GameKind| {
        kind.info()
            .protocol
            .variant_options
            .iter()
            .find(|option| option.name.eq_ignore_ascii_case(name.trim()))
            .copied()
    };
    let Some(option) = declared(game) else {
        return Err(match games::all().find_map(declared) {
            Some(option) => OptionError::NotForGame {
                name: option.name.to_string(),
                game,
            },
            None => OptionError::Unknown(name.to_string()),
        });
    };
    let value = value.ok_or_else(|| OptionError::MissingValue(option.name.to_string()))?;
    let checked = option
        .check(value)
        .map_err(|expected| OptionError::BadValue {
            name: option.name.to_string(),
            value: value.to_string(),
            expected,
        })?;
    Ok(OptionChange::Variant {
        option,
        value: checked,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`parse_option`] while chess is current.
    fn parse_for_chess(name: &str, value: Option<&str>) -> Result<OptionChange, OptionError> {
        parse_option(name, value, games::find("chess").unwrap())
    }

    #[test]
    fn checks_values() {
        assert_eq!(
            parse_for_chess("hash", Some("64")),
            Ok(OptionChange::Hash(64))
        );
        assert!(parse_for_chess("Hash", Some("0")).is_err());
        assert!(parse_for_chess("Hash", Some("65537")).is_err());
        assert!(parse_for_chess("Hash", Some("-1")).is_err());
        assert!(parse_for_chess("Hash", None).is_err());
        assert_eq!(
            parse_for_chess("Game", Some("Connect4")),
            Ok(OptionChange::Game(games::find("connect4").unwrap()))
        );
        assert!(parse_for_chess("Game", Some("go")).is_err());
        assert_eq!(
            parse_for_chess("Clear Hash", None),
            Ok(OptionChange::ClearHash)
        );
        assert_eq!(
            parse_for_chess("EvalFile", Some(" nets/a b.nnue ")),
            Ok(OptionChange::EvalFile(Some("nets/a b.nnue".to_string())))
        );
        assert_eq!(
            parse_for_chess("evalfile", Some("<empty>")),
            Ok(OptionChange::EvalFile(None))
        );
        assert_eq!(
            parse_for_chess("UseNNUE", Some("true")),
            Ok(OptionChange::UseNnue(true))
        );
        assert_eq!(
            parse_for_chess("syzygypath", Some(" /tb/a:/tb/b ")),
            Ok(OptionChange::TablebasePath(Some("/tb/a:/tb/b".to_string())))
        );
        assert_eq!(
            parse_for_chess("SyzygyPath", Some("<empty>")),
            Ok(OptionChange::TablebasePath(None))
        );
        assert!(parse_for_chess("SyzygyProbeLimit", Some("8")).is_err());
        assert!(parse_for_chess("Syzygy50MoveRule", Some("maybe")).is_err());
        let connect4 = games::find("connect4").unwrap();
        assert!(missing_for_game(&OptionChange::TablebasePath(None), connect4).is_some());
        assert!(missing_for_game(&OptionChange::UseNnue(true), connect4).is_some());
        assert!(missing_for_game(&OptionChange::UseNnue(true), games::default_game()).is_none());
        assert_eq!(
            parse_for_chess("uci_showwdl", Some("True")),
            Ok(OptionChange::ShowWdl(true))
        );
        assert!(parse_for_chess("UCI_ShowWDL", Some("1")).is_err());
        assert!(missing_for_game(&OptionChange::ShowWdl(true), connect4).is_some());
        assert!(missing_for_game(&OptionChange::ShowWdl(true), games::default_game()).is_none());
        assert!(matches!(
            parse_for_chess("Contempt", Some("1")),
            Err(OptionError::Unknown(_))
        ));
    }

    #[test]
    fn playing_levels_are_checked() {
        let connect4 = games::find("connect4").unwrap();
        assert_eq!(
            parse_option("skill level", Some(" 0 "), connect4),
            Ok(OptionChange::SkillLevel(0))
        );
        for bad in ["21", "-1", "5.5", "", "max"] {
            assert!(
                parse_option("Skill Level", Some(bad), connect4).is_err(),
                "{bad}"
            );
        }
        assert_eq!(
            parse_for_chess("UCI_Elo", Some("2000")),
            Ok(OptionChange::Elo(2000))
        );
        assert!(parse_for_chess("UCI_Elo", Some("1319")).is_err());
        // The range ends at full strength as measured (protocol.md): above it is refused.
        assert_eq!(
            parse_for_chess("UCI_Elo", Some("2690")),
            Ok(OptionChange::Elo(2690))
        );
        assert!(parse_for_chess("UCI_Elo", Some("2691")).is_err());
        assert!(parse_for_chess("UCI_Elo", Some("2850")).is_err());
        assert!(matches!(
            parse_option("UCI_Elo", Some("2000"), connect4),
            Err(OptionError::NotForGame { .. })
        ));
        let limit = parse_for_chess("UCI_LimitStrength", Some("true"));
        assert_eq!(limit, Ok(OptionChange::LimitStrength(true)));
        assert!(missing_for_game(&OptionChange::LimitStrength(true), connect4).is_some());
        let chess = option_lines(games::default_game());
        assert!(chess
            .contains(&"option name UCI_Elo type spin default 1320 min 1320 max 2690".to_string()));
        assert!(chess
            .contains(&"option name Skill Level type spin default 20 min 0 max 20".to_string()));
    }

    #[test]
    fn variant_options_belong_to_their_game() {
        let connect4 = games::find("connect4").unwrap();
        assert_eq!(
            parse_option("UCI_Chess960", Some("true"), connect4),
            Err(OptionError::NotForGame {
                name: "UCI_Chess960".to_string(),
                game: connect4
            })
        );
        assert!(matches!(
            parse_for_chess("uci_chess960", Some("TRUE")),
            Ok(OptionChange::Variant { value, .. }) if value == "true"
        ));
        assert!(parse_for_chess("UCI_Chess960", Some("yes")).is_err());
        assert!(parse_for_chess("UCI_Chess960", None).is_err());
        let gomoku = games::find("gomoku").unwrap();
        assert!(matches!(
            parse_option("boardsize", Some(" 9 "), gomoku),
            Ok(OptionChange::Variant { value, .. }) if value == "9"
        ));
        for bad in ["4", "23", "+9", "9.0", "nine", ""] {
            assert!(
                parse_option("BoardSize", Some(bad), gomoku).is_err(),
                "{bad}"
            );
        }
        assert!(parse_option("Rule", Some("renju"), gomoku).is_ok());
        assert!(parse_option("Rule", Some("caro"), gomoku).is_err());
        assert!(matches!(
            parse_option("BoardSize", Some("9"), games::find("chess").unwrap()),
            Err(OptionError::NotForGame { .. })
        ));
    }

    #[test]
    fn lists_every_option() {
        let lines = option_lines(games::find("connect4").unwrap());
        assert!(lines
            .iter()
            .any(|l| l.starts_with("option name Game type combo default connect4 var chess")));
        // A tuning build adds the search constants.
        let tuning = if cfg!(feature = "tune") {
            crate::search::params::TUNABLES.len()
        } else {
            0
        };
        assert_eq!(lines.len(), 8 + tuning);
        assert!(!lines.iter().any(|l| l.contains("UCI_Chess960")));
        let chess = option_lines(games::find("chess").unwrap());
        assert_eq!(chess.len(), 18 + tuning);
        assert!(chess.contains(&"option name SyzygyPath type string default <empty>".to_string()));
        assert!(chess.contains(
            &"option name SyzygyProbeDepth type spin default 1 min 1 max 100".to_string()
        ));
        assert!(chess.contains(&"option name Syzygy50MoveRule type check default true".to_string()));
        assert!(chess
            .contains(&"option name SyzygyProbeLimit type spin default 7 min 0 max 7".to_string()));
        let show_wdl = "option name UCI_ShowWDL type check default false".to_string();
        assert_eq!(chess.last(), Some(&show_wdl).filter(|_| tuning == 0));
        assert!(option_lines(games::find("ataxx").unwrap()).contains(&show_wdl));
        assert!(!lines.contains(&show_wdl));
        assert!(chess.contains(&"option name UCI_Chess960 type check default false".to_string()));
        let gomoku = option_lines(games::find("gomoku").unwrap());
        assert!(
            gomoku.contains(&"option name BoardSize type spin default 15 min 5 max 22".to_string())
        );
        let rule =
            "option name Rule type combo default freestyle var freestyle var exact5 var renju";
        assert!(gomoku.contains(&rule.to_string()));
        let gomoku20 = option_lines(games::find("gomoku20").unwrap());
        assert!(gomoku20
            .contains(&"option name BoardSize type spin default 20 min 5 max 22".to_string()));
        assert!(chess.contains(&"option name EvalFile type string default <empty>".to_string()));
        assert!(
            lines.contains(&"option name Threads type spin default 1 min 1 max 256".to_string())
        );
    }

    #[cfg(feature = "tune")]
    #[test]
    fn search_constants_are_checked_one_by_one() {
        assert_eq!(parse_search_param("Hash", Some("16")), None);
        assert_eq!(
            parse_search_param("futilitymargin", Some(" 120 ")),
            Some(Ok(OptionChange::SearchParam {
                name: "FutilityMargin",
                value: 120
            }))
        );
        for bad in [None, Some("9"), Some("401"), Some("ten"), Some("")] {
            assert!(
                matches!(parse_search_param("FutilityMargin", bad), Some(Err(_))),
                "{bad:?}"
            );
        }
    }
}
