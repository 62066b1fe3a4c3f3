//! The `cutoff match` command line, in the style of fastchess and cutechess-cli:
//! `-engine cmd=./a name=a -each tc=10+0.1 proto=ugi option.Hash=16 -rounds 10 -repeat ...`.

use std::path::PathBuf;
use std::time::Duration;

use super::openings::BookFormat;
use super::stats::{EloModel, Sprt};
use crate::referee::{
    parse_num, parse_secs, parse_tc, DrawRule, EngineConfig, EngineProtocol, RefereeSettings,
    ResignRule, SearchLimits,
};
use cutoff::games::{self, GameKind};
use cutoff::protocol::dialect::Dialect;

/// Who plays whom when there are more than two engines.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tournament {
    /// Every engine against every other.
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
}

/// Where openings come from.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningConfig {
    /// The book file.
    pub file: PathBuf,
    /// How its lines are written.
    pub format: BookFormat,
    /// Shuffle the openings (with `seed`) instead of playing them in file order.
    pub random: bool,
    /// First opening to play (1-based, after shuffling).
    pub start: usize,
}

/// A whole match, as parsed from the command line.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// The game played.
    pub game: GameKind,
    /// Engines, two or more.
    pub engines: Vec<EngineConfig>,
    /// Pairing scheme for more than two engines.
    pub tournament: Tournament,
    /// Rounds: each plays every pairing once (a game pair with `games` = 2).
    pub rounds: usize,
    /// Games per round and pairing, 1 or 2 (2: the opening again with colours swapped).
    pub games: usize,
    /// Games played at the same time.
    pub concurrency: usize,
    /// Opening book; the start position when `None`.
    pub openings: Option<OpeningConfig>,
    /// Seed for shuffling openings.
    pub seed: u64,
    /// SPRT that may stop the match early (two engines only).
    pub sprt: Option<Sprt>,
    /// PGN output file.
    pub pgn_out: Option<PathBuf>,
    /// Plain record output file (one line per game).
    pub record_out: Option<PathBuf>,
    /// JSON results file.
    pub json_out: Option<PathBuf>,
    /// Timeouts and the time margin.
    pub referee: RefereeSettings,
    /// Event name in PGN.
    pub event: String,
    /// Print every finished game.
    pub verbose_games: bool,
}

/// Engine settings being collected from `-engine` and `-each` groups.
#[derive(Default, Clone)]
struct EngineDraft {
    name: Option<String>,
    cmd: Option<String>,
    args: Option<Vec<String>>,
    dir: Option<PathBuf>,
    proto: Option<EngineProtocol>,
    options: Vec<(String, String)>,
    tc: Option<SearchLimits>,
    movetime_ms: Option<u64>,
    depth: Option<u32>,
    nodes: Option<u64>,
    time_margin: Option<Duration>,
}

impl EngineDraft {
    fn set(&mut self, pair: &str) -> Result<(), String> {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("expected key=value, got '{pair}'"))?;
        match key {
            "name" => self.name = Some(value.to_string()),
            "cmd" => self.cmd = Some(value.to_string()),
            "args" => self.args = Some(value.split_whitespace().map(String::from).collect()),
            "dir" => self.dir = Some(PathBuf::from(value)),
            "proto" => {
                self.proto = Some(EngineProtocol::from_name(value).ok_or_else(|| {
                    format!("unknown protocol '{value}' (uci, ugi, uai or gomocup)")
                })?)
            }
            "tc" => self.tc = Some(parse_tc(value)?),
            "st" => self.movetime_ms = Some(parse_secs(key, value)?),
            "depth" => self.depth = Some(parse_num(key, value)?),
            "nodes" => self.nodes = Some(parse_num(key, value)?),
            "timemargin" => self.time_margin = Some(Duration::from_millis(parse_num(key, value)?)),
            _ => match key.strip_prefix("option.") {
                Some(name) if !name.is_empty() => {
                    self.options.retain(|(n, _)| n != name);
                    self.options.push((name.to_string(), value.to_string()));
                }
                _ => return Err(format!("unknown engine setting '{key}'")),
            },
        }
        Ok(())
    }

    /// This engine's settings on top of the `-each` ones.
    fn merged(&self, each: &EngineDraft) -> EngineDraft {
        let mut options = each.options.clone();
        for (name, value) in &self.options {
            options.retain(|(n, _)| n != name);
            options.push((name.clone(), value.clone()));
        }
        EngineDraft {
            name: self.name.clone().or(each.name.clone()),
            cmd: self.cmd.clone().or(each.cmd.clone()),
            args: self.args.clone().or(each.args.clone()),
            dir: self.dir.clone().or(each.dir.clone()),
            proto: self.proto.or(each.proto),
            options,
            tc: self.tc.or(each.tc),
            movetime_ms: self.movetime_ms.or(each.movetime_ms),
            depth: self.depth.or(each.depth),
            nodes: self.nodes.or(each.nodes),
            time_margin: self.time_margin.or(each.time_margin),
        }
    }

    fn finish(self, index: usize) -> Result<EngineConfig, String> {
        let cmd = self
            .cmd
            .ok_or_else(|| format!("engine {} has no cmd=", index + 1))?;
        let mut limits = self.tc.unwrap_or_default();
        limits.movetime_ms = self.movetime_ms;
        limits.depth = self.depth;
        limits.nodes = self.nodes;
        if limits == SearchLimits::default() {
            return Err(format!(
                "engine {} has no limit: give tc=, st=, depth= or nodes=",
                index + 1
            ));
        }
        Ok(EngineConfig {
            name: self.name.unwrap_or_else(|| cmd.clone()),
            cmd,
            args: self.args.unwrap_or_default(),
            dir: self.dir,
            proto: self.proto.unwrap_or(EngineProtocol::Text(Dialect::Uci)),
            options: self.options,
            limits,
            time_margin: self.time_margin,
        })
    }
}

/// `key=value` pairs of one option group, as a lookup.
fn pairs(values: &[String]) -> Result<Vec<(&str, &str)>, String> {
    values
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .ok_or_else(|| format!("expected key=value, got '{pair}'"))
        })
        .collect()
}

/// Splits the arguments into groups: an option starting with '-' and the values after it.
fn groups(args: &[String]) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for arg in args {
        // A negative number (`-srand -5`) is a value, to be refused by its option.
        let is_number = arg.parse::<f64>().is_ok();
        let is_option = arg.starts_with('-') && !arg.contains('=') && arg.len() > 1 && !is_number;
        if is_option {
            groups.push((arg.trim_start_matches('-').to_string(), Vec::new()));
        } else {
            match groups.last_mut() {
                Some((_, values)) => values.push(arg.clone()),
                None => return Err(format!("unexpected argument '{arg}'")),
            }
        }
    }
    Ok(groups)
}

/// The one value of option `-name`.
fn single<'v>(name: &str, values: &'v [String]) -> Result<&'v str, String> {
    match values {
        [value] => Ok(value.as_str()),
        _ => Err(format!("-{name} takes one value")),
    }
}

/// The file of option `-name`, given as `file=PATH` or `PATH`.
fn file_value(name: &str, values: &[String]) -> Result<PathBuf, String> {
    match values {
        [value] => Ok(PathBuf::from(value.strip_prefix("file=").unwrap_or(value))),
        _ => Err(format!("-{name} takes file=PATH")),
    }
}

/// A time in ms, the one value of option `-name`.
fn millis(name: &str, values: &[String]) -> Result<Duration, String> {
    Ok(Duration::from_millis(parse_num(
        name,
        single(name, values)?,
    )?))
}

/// `-draw movenumber=N movecount=N score=N`.
fn parse_draw(values: &[String]) -> Result<DrawRule, String> {
    let mut rule = DrawRule {
        move_number: 40,
        move_count: 8,
        score: 10,
    };
    for (key, value) in pairs(values)? {
        match key {
            "movenumber" => rule.move_number = parse_num(key, value)?,
            "movecount" => rule.move_count = parse_num(key, value)?,
            "score" => rule.score = parse_num(key, value)?,
            _ => return Err(format!("unknown draw setting '{key}'")),
        }
    }
    Ok(rule)
}

/// `-resign movecount=N score=N`.
fn parse_resign(values: &[String]) -> Result<ResignRule, String> {
    let mut rule = ResignRule {
        move_count: 3,
        score: 1000,
    };
    for (key, value) in pairs(values)? {
        match key {
            "movecount" => rule.move_count = parse_num(key, value)?,
            "score" => rule.score = parse_num(key, value)?,
            _ => return Err(format!("unknown resign setting '{key}'")),
        }
    }
    Ok(rule)
}

/// `-openings file=PATH format=epd|moves order=random|sequential start=N`.
fn parse_openings(values: &[String]) -> Result<OpeningConfig, String> {
    let mut openings = OpeningConfig {
        file: PathBuf::new(),
        format: BookFormat::Epd,
        random: false,
        start: 1,
    };
    for (key, value) in pairs(values)? {
        match key {
            "file" => openings.file = PathBuf::from(value),
            "format" => {
                openings.format = BookFormat::from_name(value)
                    .ok_or_else(|| format!("unknown opening format '{value}'"))?
            }
            "order" => {
                openings.random = match value {
                    "random" => true,
                    "sequential" => false,
                    _ => return Err(format!("unknown opening order '{value}'")),
                }
            }
            "start" => openings.start = parse_num(key, value)?,
            _ => return Err(format!("unknown openings setting '{key}'")),
        }
    }
    if openings.file.as_os_str().is_empty() {
        return Err("-openings needs file=PATH".to_string());
    }
    Ok(openings)
}

/// `-sprt elo0=X elo1=Y alpha=A beta=B model=M`.
pub(super) fn parse_sprt(values: &[String]) -> Result<Sprt, String> {
    let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
    let mut model = EloModel::Normalized;
    for (key, value) in pairs(values)? {
        match key {
            "elo0" => elo0 = Some(parse_num::<f64>(key, value)?),
            "elo1" => elo1 = Some(parse_num::<f64>(key, value)?),
            "alpha" => alpha = parse_num(key, value)?,
            "beta" => beta = parse_num(key, value)?,
            "model" => {
                model = EloModel::from_name(value)
                    .ok_or_else(|| format!("unknown SPRT model '{value}'"))?
            }
            _ => return Err(format!("unknown sprt setting '{key}'")),
        }
    }
    let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
        return Err("-sprt needs elo0= and elo1=".to_string());
    };
    Ok(Sprt::new(elo0, elo1, alpha, beta, model)
        .ok_or("invalid SPRT: need elo0 < elo1, 0 < alpha, beta and alpha + beta < 1")?)
}

impl MatchConfig {
    /// The settings before any option: one round of one game in `game`, one at a time.
    fn defaults(game: GameKind) -> MatchConfig {
        MatchConfig {
            game,
            engines: Vec::new(),
            tournament: Tournament::RoundRobin,
            rounds: 1,
            games: 1,
            concurrency: 1,
            openings: None,
            seed: 0,
            sprt: None,
            pgn_out: None,
            record_out: None,
            json_out: None,
            referee: RefereeSettings::default(),
            event: "cutoff match".to_string(),
            verbose_games: true,
        }
    }

    /// Applies the match option `-name values` (anything but `-engine` and `-each`).
    fn apply(&mut self, name: &str, values: &[String]) -> Result<(), String> {
        let one = || single(name, values);
        match name {
            "game" | "variant" => {
                let value = one()?;
                self.game = games::find(value).ok_or_else(|| format!("unknown game '{value}'"))?;
            }
            "rounds" => self.rounds = parse_num(name, one()?)?,
            "games" => self.games = parse_num(name, one()?)?,
            "repeat" if values.is_empty() => self.games = 2,
            "repeat" => return Err("-repeat takes no value".to_string()),
            "concurrency" => self.concurrency = parse_num(name, one()?)?,
            "srand" | "seed" => self.seed = parse_num(name, one()?)?,
            "event" => self.event = one()?.to_string(),
            "tournament" => {
                self.tournament = match one()? {
                    "roundrobin" | "round-robin" => Tournament::RoundRobin,
                    "gauntlet" => Tournament::Gauntlet,
                    other => return Err(format!("unknown tournament '{other}'")),
                }
            }
            "timemargin" => self.referee.time_margin = millis(name, values)?,
            "draw" => self.referee.draw_rule = Some(parse_draw(values)?),
            "resign" => self.referee.resign_rule = Some(parse_resign(values)?),
            "readytimeout" => self.referee.ready_timeout = millis(name, values)?,
            "movetimeout" => self.referee.move_timeout = millis(name, values)?,
            "openings" => self.openings = Some(parse_openings(values)?),
            "sprt" => self.sprt = Some(parse_sprt(values)?),
            "pgnout" => self.pgn_out = Some(file_value(name, values)?),
            "recordout" => self.record_out = Some(file_value(name, values)?),
            "jsonout" | "json" => self.json_out = Some(file_value(name, values)?),
            "quiet" => self.verbose_games = false,
            _ => return Err(format!("unknown option '-{name}'")),
        }
        Ok(())
    }

    /// Checks the settings as a whole.
    fn check(&self) -> Result<(), String> {
        if self.engines.len() < 2 {
            return Err("a match needs at least two -engine".to_string());
        }
        if !(1..=2).contains(&self.games) {
            return Err("-games must be 1 or 2".to_string());
        }
        if self.rounds == 0 || self.concurrency == 0 {
            return Err("-rounds and -concurrency must be at least 1".to_string());
        }
        if self.sprt.is_some() && self.engines.len() != 2 {
            return Err("-sprt needs exactly two engines".to_string());
        }
        for engine in &self.engines {
            games::check_dialect(self.game, engine.proto.name())
                .map_err(|e| format!("proto={e}"))?;
        }
        Ok(())
    }
}

/// Parses the arguments after `match`; `default_game` is used without `-game`.
pub fn parse_args(args: &[String], default_game: GameKind) -> Result<MatchConfig, String> {
    // Step 1. Split into groups: an option starting with '-' and its values.
    let groups = groups(args)?;

    // Step 2. Interpret each group: engine settings are collected, the rest applied.
    let mut config = MatchConfig::defaults(default_game);
    let mut drafts: Vec<EngineDraft> = Vec::new();
    let mut each = EngineDraft::default();
    for (name, values) in &groups {
        match name.as_str() {
            "engine" => {
                let mut draft = EngineDraft::default();
                for value in values {
                    draft.set(value)?;
                }
                drafts.push(draft);
            }
            "each" => {
                for value in values {
                    each.set(value)?;
                }
            }
            _ => config.apply(name, values)?,
        }
    }

    // Step 3. Check the whole.
    config.engines = drafts
        .iter()
        .enumerate()
        .map(|(i, d)| d.merged(&each).finish(i))
        .collect::<Result<_, _>>()?;
    config.check()?;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn fastchess_style_command_line() {
        let config = parse_args(
            &args(
                "-game connect4 -engine cmd=./a name=a -engine cmd=./b name=b option.Hash=32 \
                 -each tc=10+0.1 proto=ugi option.Hash=16 -rounds 10 -games 2 -repeat \
                 -concurrency 2 -openings file=book.txt format=epd order=random \
                 -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 -pgnout file=games.pgn",
            ),
            games::find("chess").unwrap(),
        )
        .unwrap();
        assert_eq!(config.game.name(), "connect4");
        assert_eq!(config.engines.len(), 2);
        assert_eq!(config.engines[0].options, [("Hash".into(), "16".into())]);
        assert_eq!(config.engines[1].options, [("Hash".into(), "32".into())]);
        assert_eq!(config.engines[1].proto, EngineProtocol::Text(Dialect::Ugi));
        assert_eq!(config.engines[0].limits.base_ms, Some(10_000));
        assert_eq!(config.engines[0].limits.inc_ms, 100);
        assert_eq!(
            (config.rounds, config.games, config.concurrency),
            (10, 2, 2)
        );
        assert!(config.openings.as_ref().unwrap().random);
        assert_eq!(config.sprt.unwrap().elo1, 5.0);
        assert_eq!(config.pgn_out, Some(PathBuf::from("games.pgn")));
    }

    #[test]
    fn time_margins_are_per_engine_over_each_over_the_match() {
        let config = parse_args(
            &args(
                "-engine cmd=a timemargin=2000 -engine cmd=b -engine cmd=c timemargin=0 \
                 -each depth=1 timemargin=300 -timemargin 50",
            ),
            games::find("connect4").unwrap(),
        )
        .unwrap();
        let margins: Vec<_> = config.engines.iter().map(|e| e.time_margin).collect();
        let ms = |n| Some(Duration::from_millis(n));
        assert_eq!(margins, [ms(2000), ms(300), ms(0)]);
        assert_eq!(config.referee.time_margin, Duration::from_millis(50));
    }

    #[test]
    fn time_controls() {
        assert!(parse_tc("0").is_err() && parse_tc("0+0").is_err());
        assert_eq!(parse_tc("0+0.1").unwrap().inc_ms, 100);
        assert_eq!(parse_tc("40/60+0.5").unwrap().moves_per_period, Some(40));
        assert_eq!(parse_tc("1:30").unwrap().base_ms, Some(90_000));
        assert_eq!(parse_tc("0.5+0.01").unwrap().inc_ms, 10);
        assert!(parse_tc("x+1").is_err());
    }

    #[test]
    fn errors_name_the_problem() {
        let connect4 = games::find("connect4").unwrap();
        let err = |text: &str| parse_args(&args(text), connect4).unwrap_err();
        assert!(err("-engine cmd=a depth=2").contains("two"));
        assert!(err("-engine cmd=a -engine cmd=b").contains("no limit"));
        assert!(err("-bogus 1").contains("-bogus"));
        let negative = err("-engine cmd=a depth=1 -engine cmd=b depth=1 -rounds -1");
        assert!(negative.contains("'-1'"), "{negative}");
        assert!(
            err("-engine cmd=a -engine cmd=b -each depth=1 -sprt elo0=5 elo1=0").contains("SPRT")
        );
        assert!(err("-engine cmd=a -engine cmd=b -each depth=1 proto=uai").contains("ataxx"));
        let gomocup = err("-engine cmd=a -engine cmd=b -each depth=1 proto=gomocup");
        assert!(gomocup.contains("gomoku20"), "{gomocup}");
        let text = "-game gomoku20 -engine cmd=a -engine cmd=b -each depth=1 proto=gomocup";
        assert!(parse_args(&args(text), connect4).is_ok());
        assert!(err("-engine cmd=a -engine cmd=b -each depth=1 proto=xboard").contains("uai"));
    }

    #[test]
    fn ataxx_engines_speak_uai() {
        let text = "-game ataxx -engine cmd=a -engine cmd=b proto=ugi -each depth=1 proto=uai";
        let config = parse_args(&args(text), games::find("chess").unwrap()).unwrap();
        assert_eq!(config.engines[0].proto, EngineProtocol::Text(Dialect::Uai));
        assert_eq!(config.engines[1].proto, EngineProtocol::Text(Dialect::Ugi));
    }

    #[test]
    fn gomoku_engines_speak_gomocup() {
        let text = "-game gomoku -engine cmd=a proto=GOMOCUP -engine cmd=b proto=ugi -each st=1";
        let config = parse_args(&args(text), games::find("chess").unwrap()).unwrap();
        assert_eq!(config.engines[0].proto, EngineProtocol::Gomocup);
        assert_eq!(config.engines[0].proto.name(), "gomocup");
    }
}
