//! `cutoff match-stats FILE... [--json PATH]`: the results of several matches of the same
//! two engines (a match played as several seeds, or the game pairs a cluster's workers
//! played) pooled into one count, with the Elo, interval, pentanomial and SPRT of
//! [`stats`](super::stats), printed as `cutoff match` prints its summary and, with
//! `--json`, written as the match runner's `-jsonout` results (the counts, not the games).
//!
//! A file is a `-jsonout` results file (its content starts with `{`), a PGN file
//! (`-pgnout`: every game with a result; the games of a round `N.1` and `N.2` form a pair)
//! or a match log (what `cutoff match` or fastchess print: the last `Results of A vs B`
//! block's `Wins: W, Losses: L, Draws: D` and `Ptnml(0-2): [...]` lines count).

use std::path::{Path, PathBuf};

use cutoff::games::GameKind;
use serde_json::Value;

use super::output::{pairing_summary, sprt_summary, write_json};
use super::stats::{EloModel, Penta, Sprt, SprtDecision, Wdl};
use super::tally::{MatchEnd, MatchResults, PairingResult, SprtReport};

/// `cutoff match-stats`: the files, and the SPRT to run on the pooled counts.
#[derive(clap::Args, Clone, Debug)]
pub struct MatchStatsArgs {
    /// `-jsonout` results, PGN files or match logs (`cutoff match`'s or fastchess's
    /// output) of one pairing.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Writes the pooled results as `cutoff match -jsonout` does (temp file + rename).
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// SPRT: Elo under the null hypothesis (with `--elo1`, the pooled counts are tested).
    #[arg(long, requires = "elo1", allow_negative_numbers = true)]
    pub elo0: Option<f64>,
    /// SPRT: Elo under the alternative hypothesis.
    #[arg(long, requires = "elo0", allow_negative_numbers = true)]
    pub elo1: Option<f64>,
    /// SPRT: probability of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// SPRT: probability of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// SPRT: `normalized` (fastchess's default) or `logistic` Elo.
    #[arg(long, default_value = "normalized")]
    pub model: String,
}

/// The counts of one file, or of all of them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    /// The game, when a file names it (a log's heading, a PGN's `Variant`, a results file).
    pub game: Option<String>,
    /// The two engines, first engine first (the view of the counts).
    pub engines: Option<(String, String)>,
    /// Wins, draws and losses of the first engine.
    pub wdl: Wdl,
    /// Game pairs; `None` when a file has none (a match of single games).
    pub penta: Option<Penta>,
}

impl Counts {
    /// Adds `other` (of the same pairing, in either order) to these counts.
    fn add(&mut self, other: Counts, name: &str) -> Result<(), String> {
        match (&self.game, other.game) {
            (Some(ours), Some(theirs)) if *ours != theirs => {
                return Err(format!(
                    "{name} is a {theirs} match, the files before it {ours}"
                ));
            }
            (None, theirs) => self.game = theirs,
            _ => {}
        }
        let (mut wdl, mut penta) = (other.wdl, other.penta);
        match (&self.engines, &other.engines) {
            (Some(ours), Some(theirs)) if ours != theirs => {
                if (&ours.0, &ours.1) != (&theirs.1, &theirs.0) {
                    return Err(format!(
                        "{name} is {} vs {}, the files before it {} vs {}: pool one pairing",
                        theirs.0, theirs.1, ours.0, ours.1
                    ));
                }
                wdl = wdl.flipped();
                penta = penta.map(|p| Penta {
                    counts: std::array::from_fn(|k| p.counts[4 - k]),
                });
            }
            (None, Some(_)) => self.engines = other.engines,
            _ => {}
        }
        self.wdl.wins += wdl.wins;
        self.wdl.draws += wdl.draws;
        self.wdl.losses += wdl.losses;
        self.penta = match (self.penta, penta) {
            (Some(a), Some(b)) => Some(Penta {
                counts: std::array::from_fn(|k| a.counts[k] + b.counts[k]),
            }),
            _ => None,
        };
        Ok(())
    }
}

impl MatchStatsArgs {
    /// Reads the files, prints the pooled summary and writes the JSON if asked; the error
    /// names the file.
    pub fn run(&self) -> Result<(), String> {
        let sprt = self.sprt()?;
        let counts = pool(&self.files)?;
        let results = pooled_results(&counts, sprt);
        print!(
            "{}",
            summary(&results, counts.penta.is_some(), self.files.len())
        );
        if let Some(path) = &self.json {
            if results.game.is_empty() {
                return Err("--json: no file names the game (a results file, a log's \
                            'Results of A vs B (GAME)' or a PGN's Variant tag)"
                    .to_string());
            }
            write_json(path, &results)?;
        }
        Ok(())
    }

    /// The SPRT asked for, if any.
    fn sprt(&self) -> Result<Option<Sprt>, String> {
        let (Some(elo0), Some(elo1)) = (self.elo0, self.elo1) else {
            return Ok(None);
        };
        let model = EloModel::from_name(&self.model)
            .ok_or_else(|| format!("unknown Elo model '{}'", self.model))?;
        Sprt::new(elo0, elo1, self.alpha, self.beta, model)
            .map(Some)
            .ok_or_else(|| {
                "SPRT needs elo0 < elo1, 0 < alpha, beta and alpha + beta < 1".to_string()
            })
    }
}

/// The counts of every file added up.
pub fn pool(files: &[PathBuf]) -> Result<Counts, String> {
    let mut total = Counts {
        penta: Some(Penta::default()),
        ..Counts::default()
    };
    for path in files {
        let name = path.display().to_string();
        total.add(read_file(path)?, &name)?;
    }
    if total.wdl.games() == 0 {
        return Err("no finished game in the files".to_string());
    }
    Ok(total)
}

/// The counts of one results file, PGN file or match log.
fn read_file(path: &Path) -> Result<Counts, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let counts = if text.trim_start().starts_with('{') {
        from_json(&text)
    } else if text.contains("[Result \"") {
        from_pgn(&text)
    } else {
        from_log(&text)
    };
    counts.map_err(|e| format!("{}: {e}", path.display()))
}

/// The game's own name, if `name` is one.
fn game_named(name: &str) -> Option<String> {
    GameKind::from_name(name.trim()).map(|kind| kind.name().to_string())
}

/// The counts of a `-jsonout` results file of one pairing.
pub fn from_json(text: &str) -> Result<Counts, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let string = |v: &Value, what: &str| {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("no {what}"))
    };
    let count = |v: &Value, what: &str| v.as_u64().ok_or_else(|| format!("no count {what}"));
    let [p] = json["pairings"].as_array().ok_or("no pairings")?.as_slice() else {
        return Err("not one pairing: match-stats pools one pairing".to_string());
    };
    let wdl = Wdl {
        wins: count(&p["wdl"]["wins"], "wins")?,
        draws: count(&p["wdl"]["draws"], "draws")?,
        losses: count(&p["wdl"]["losses"], "losses")?,
    };
    let counts = p["penta"]["counts"].as_array().ok_or("no penta counts")?;
    let counts: Vec<u64> = counts
        .iter()
        .map(|c| count(c, "in penta"))
        .collect::<Result<_, _>>()?;
    let penta = Penta {
        counts: counts.try_into().map_err(|_| "penta counts are not 5")?,
    };
    let game = string(&json["game"], "game")?;
    Ok(Counts {
        game: Some(game_named(&game).ok_or_else(|| format!("unknown game '{game}'"))?),
        engines: Some((
            string(&p["first"], "first engine")?,
            string(&p["second"], "second engine")?,
        )),
        wdl,
        // Games but no pair: a match of single games.
        penta: (penta.pairs() > 0 || wdl.games() == 0).then_some(penta),
    })
}

/// The last result block of a match log.
pub fn from_log(text: &str) -> Result<Counts, String> {
    let start = text
        .rfind("Results of ")
        .ok_or("no 'Results of A vs B' line: not a match log, or a match that did not finish")?;
    let block = &text[start..];
    let heading = block.lines().next().unwrap_or_default();
    let engines = heading["Results of ".len()..]
        .split_once(" vs ")
        .map(|(a, b)| (a.to_string(), b.split(" (").next().unwrap_or(b).to_string()));
    // `(chess):` names the game; fastchess's `(10+0.1, ...)` and `(3 files pooled)` do not.
    let game = heading
        .rsplit_once(" (")
        .and_then(|(_, rest)| game_named(rest.trim_end().trim_end_matches("):")));
    let wdl = block
        .lines()
        .find_map(parse_wins_line)
        .ok_or("no 'Wins: W, Losses: L, Draws: D' line after 'Results of'")?;
    let penta = block.lines().find_map(parse_ptnml_line);
    Ok(Counts {
        game,
        engines,
        wdl,
        penta,
    })
}

/// The numbers after each `label` in `line`, in order (`None` if one is missing).
fn numbers_after<const N: usize>(line: &str, labels: [&str; N]) -> Option<[u64; N]> {
    let mut out = [0; N];
    for (slot, label) in out.iter_mut().zip(labels) {
        let rest = &line[line.find(label)? + label.len()..];
        let digits = rest.trim_start();
        let end = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        *slot = digits[..end].parse().ok()?;
    }
    Some(out)
}

/// `Wins: W, Losses: L, Draws: D` anywhere in the line.
fn parse_wins_line(line: &str) -> Option<Wdl> {
    let [wins, losses, draws] = numbers_after(line, ["Wins:", "Losses:", "Draws:"])?;
    Some(Wdl {
        wins,
        draws,
        losses,
    })
}

/// `Ptnml(0-2): [a, b, c, d, e]`.
fn parse_ptnml_line(line: &str) -> Option<Penta> {
    let inside = line.split_once("Ptnml(0-2):")?.1.trim();
    let inside = inside.strip_prefix('[')?.split(']').next()?;
    let numbers: Vec<u64> = inside
        .split(',')
        .map(|n| n.trim().parse().ok())
        .collect::<Option<_>>()?;
    let counts: [u64; 5] = numbers.try_into().ok()?;
    Some(Penta { counts })
}

/// One game of a PGN file: its round label, players and result.
#[derive(Default)]
struct PgnGame {
    round: String,
    variant: String,
    white: String,
    black: String,
    result: String,
}

/// The games of a PGN file, counted from the first game's White's view.
pub fn from_pgn(text: &str) -> Result<Counts, String> {
    let games = pgn_games(text);
    let Some(first) = games.first() else {
        return Err("no game in the PGN".to_string());
    };
    let engines = (first.white.clone(), first.black.clone());
    let mut counts = Counts {
        // Standard chess has no Variant tag.
        game: match first.variant.as_str() {
            "" => game_named("chess"),
            variant => game_named(variant),
        },
        engines: Some(engines.clone()),
        penta: Some(Penta::default()),
        ..Counts::default()
    };
    let mut open_pairs: Vec<(String, f64)> = Vec::new();
    for game in &games {
        let points = match game.result.as_str() {
            "1-0" => 1.0,
            "0-1" => 0.0,
            "1/2-1/2" => 0.5,
            _ => continue,
        };
        let points = if (&game.white, &game.black) == (&engines.0, &engines.1) {
            points
        } else if (&game.white, &game.black) == (&engines.1, &engines.0) {
            1.0 - points
        } else {
            let (w, b) = (&game.white, &game.black);
            return Err(format!(
                "round {}: {w} vs {b}, not a game of one pairing",
                game.round
            ));
        };
        count_game(&mut counts.wdl, points);
        let round = game.round.split('.').next().unwrap_or_default().to_string();
        match open_pairs.iter().position(|(r, _)| *r == round) {
            Some(i) => {
                let (_, earlier) = open_pairs.swap_remove(i);
                if let Some(penta) = &mut counts.penta {
                    penta.add_pair(earlier, points);
                }
            }
            None if game.round.contains('.') => open_pairs.push((round, points)),
            None => {}
        }
    }
    if counts.penta.is_some_and(|p| p.pairs() == 0) {
        counts.penta = None;
    }
    Ok(counts)
}

/// Adds a game the first engine scored `points` in.
fn count_game(wdl: &mut Wdl, points: f64) {
    if points == 1.0 {
        wdl.wins += 1;
    } else if points == 0.0 {
        wdl.losses += 1;
    } else {
        wdl.draws += 1;
    }
}

/// The games of a PGN text (`cutoff::pgn`): their round, variant, players and result tags.
fn pgn_games(text: &str) -> Vec<PgnGame> {
    let tag = |game: &cutoff::pgn::PgnGame, name: &str| game.tag(name).unwrap_or("").to_string();
    cutoff::pgn::PgnGames::new(text.as_bytes())
        .filter_map(Result::ok)
        .map(|game| PgnGame {
            round: tag(&game, "Round"),
            variant: tag(&game, "Variant"),
            white: tag(&game, "White"),
            black: tag(&game, "Black"),
            result: tag(&game, "Result"),
        })
        .collect()
}

/// The pooled counts as a match's results: Elo from games and from pairs, the SPRT (on
/// the pairs, or on the games when a file has none) and `end` = `sprt_decided` when it
/// decided; no games (the files' games are not kept), `game` empty when no file named it.
fn pooled_results(counts: &Counts, sprt: Option<Sprt>) -> MatchResults {
    let (first, second) = counts
        .engines
        .clone()
        .unwrap_or_else(|| ("first".to_string(), "second".to_string()));
    let penta = counts.penta.unwrap_or_default();
    let pairing = PairingResult {
        first,
        second,
        wdl: counts.wdl,
        penta,
        elo: counts.wdl.elo(),
        elo_penta: penta.elo(),
    };
    let sprt = sprt.map(|sprt| {
        let llr = match counts.penta {
            Some(penta) => sprt.llr_penta(&penta),
            None => sprt.llr_wdl(&counts.wdl),
        };
        let (lower, upper) = sprt.bounds();
        let decision = sprt.decision(llr);
        SprtReport {
            sprt,
            llr,
            lower,
            upper,
            decision,
        }
    });
    let decided = sprt
        .as_ref()
        .is_some_and(|s| s.decision != SprtDecision::Continue);
    MatchResults {
        game: counts.game.clone().unwrap_or_default(),
        engines: vec![pairing.first.clone(), pairing.second.clone()],
        end: if decided {
            MatchEnd::SprtDecided
        } else {
            MatchEnd::Completed
        },
        pairings: vec![pairing],
        sprt,
        games: Vec::new(),
    }
}

/// The summary of the pooled results, as `cutoff match` prints a pairing's.
fn summary(results: &MatchResults, has_pairs: bool, files: usize) -> String {
    let mut out = pairing_summary(&results.pairings[0], &format!("{files} files pooled"));
    if !has_pairs {
        out += "  (no pentanomial: a file has no game pairs)\n";
    }
    if let Some(sprt) = &results.sprt {
        out += &sprt_summary(sprt);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\
Results of new vs old (chess):
  Games: 10, Wins: 4, Losses: 2, Draws: 4, Points: 6.0 (60.00 %)
  Trinomial   Elo: 70.44 +/- 1.00 [0, 1], nElo: 1, LOS: 90 %
  Ptnml(0-2): [0, 1, 2, 1, 1]
Match completed after 10 games
";

    #[test]
    fn logs_give_their_last_block() {
        let earlier = LOG.replace("Wins: 4", "Wins: 1");
        let counts = from_log(&(earlier + "noise\n" + LOG)).unwrap();
        assert_eq!(counts.engines, Some(("new".into(), "old".into())));
        let wdl = Wdl {
            wins: 4,
            draws: 4,
            losses: 2,
        };
        assert_eq!(counts.wdl, wdl);
        assert_eq!(counts.penta.unwrap().counts, [0, 1, 2, 1, 1]);
        assert!(from_log("Wins: 1, Losses: 2, Draws: 3").is_err());
        assert!(from_log("Results of a vs b (x):\n  Ptnml(0-2): [1, 2]\n").is_err());
    }

    #[test]
    fn pgn_games_pair_by_round_and_count_from_the_first_white() {
        let game = |round: &str, white: &str, black: &str, result: &str| {
            format!(
                "[Event \"m\"]\n[Round \"{round}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
                 [Result \"{result}\"]\n\n1. e4 {{book}} e5 {result}\n\n"
            )
        };
        let pgn = game("1.1", "new", "old", "1-0")
            + &game("2.1", "new", "old", "1/2-1/2")
            + &game("1.2", "old", "new", "1-0")
            + &game("2.2", "old", "new", "0-1")
            + &game("3.1", "new", "old", "*");
        let counts = from_pgn(&pgn).unwrap();
        let wdl = Wdl {
            wins: 2,
            draws: 1,
            losses: 1,
        };
        assert_eq!(counts.wdl, wdl);
        // Round 1: 1 + 0 points; round 2: 0.5 + 1.
        assert_eq!(counts.penta.unwrap().counts, [0, 0, 1, 1, 0]);
        let stranger = pgn + &game("4.1", "new", "third", "1-0");
        assert!(from_pgn(&stranger).unwrap_err().contains("third"));
    }

    #[test]
    fn files_of_either_order_pool_and_others_are_refused() {
        let mut total = Counts {
            penta: Some(Penta::default()),
            ..Counts::default()
        };
        total.add(from_log(LOG).unwrap(), "a").unwrap();
        let swapped = LOG.replace("new vs old", "old vs new");
        total.add(from_log(&swapped).unwrap(), "b").unwrap();
        assert_eq!(
            (total.wdl.wins, total.wdl.draws, total.wdl.losses),
            (6, 8, 6)
        );
        assert_eq!(total.penta.unwrap().counts, [1, 2, 4, 2, 1]);
        let other = LOG.replace("new vs old", "new vs third");
        assert!(total.add(from_log(&other).unwrap(), "c").is_err());
        let single = LOG.replace("  Ptnml(0-2): [0, 1, 2, 1, 1]\n", "");
        total.add(from_log(&single).unwrap(), "d").unwrap();
        assert!(total.penta.is_none());
        let text = summary(&pooled_results(&total, None), false, 3);
        assert!(
            text.starts_with("Results of new vs old (3 files pooled):"),
            "{text}"
        );
        assert!(
            text.contains("Games: 30, Wins: 10, Losses: 8, Draws: 12"),
            "{text}"
        );
    }

    #[test]
    fn the_sprt_runs_on_the_pooled_pairs() {
        let counts = from_log(LOG).unwrap();
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        let text = summary(&pooled_results(&counts, Some(sprt)), true, 1);
        let llr = sprt.llr_penta(&counts.penta.unwrap());
        assert!(text.contains(&format!("LLR {llr:.2}")), "{text}");
    }

    /// A `-jsonout` results file of one ataxx pairing with these counts.
    fn result(wdl: [u64; 3], penta: [u64; 5]) -> String {
        format!(
            r#"{{"game":"ataxx","engines":["new","current"],"end":"completed",
            "pairings":[{{"first":"new","second":"current",
            "wdl":{{"wins":{},"draws":{},"losses":{}}},"penta":{{"counts":{:?}}}}}],
            "sprt":null,"games":[]}}"#,
            wdl[0], wdl[1], wdl[2], penta
        )
    }

    /// `cutoff match-stats FILES --json OUT [--elo0 0 --elo1 10]`, run; the JSON written.
    fn pool_to_json(dir: &Path, files: &[String], sprt: bool) -> Result<Value, String> {
        let out = dir.join("pooled.json");
        let args = MatchStatsArgs {
            files: files.iter().map(|f| dir.join(f)).collect(),
            json: Some(out.clone()),
            elo0: sprt.then_some(0.0),
            elo1: sprt.then_some(10.0),
            alpha: 0.05,
            beta: 0.05,
            model: "normalized".to_string(),
        };
        args.run()?;
        Ok(serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap())
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pooled-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn pooled_json_is_the_sum_of_the_results_files() {
        let dir = scratch("sum");
        std::fs::write(dir.join("a.json"), result([3, 1, 0], [0, 0, 0, 1, 1])).unwrap();
        std::fs::write(dir.join("b.json"), result([1, 0, 3], [1, 1, 0, 0, 0])).unwrap();
        let files = ["a.json".to_string(), "b.json".to_string()];
        let json = pool_to_json(&dir, &files, false).unwrap();
        let main = &json["pairings"][0];
        assert_eq!(
            main["wdl"],
            serde_json::json!({"wins": 4, "draws": 1, "losses": 3})
        );
        assert_eq!(main["penta"]["counts"], serde_json::json!([1, 1, 0, 1, 1]));
        let whole = Penta {
            counts: [1, 1, 0, 1, 1],
        };
        assert_eq!(
            main["elo_penta"],
            serde_json::to_value(whole.elo()).unwrap()
        );
        assert_eq!(
            (&json["game"], &json["end"]),
            (&"ataxx".into(), &"completed".into())
        );
        assert_eq!(json["games"], serde_json::json!([]));
        assert!(!dir.join("pooled.json.tmp").exists());
        // A log of the same pairing (the other way round) pools with them.
        let log = LOG.replace("new vs old (chess)", "current vs new (ataxx)");
        std::fs::write(dir.join("c.log"), log).unwrap();
        let files = [files[0].clone(), files[1].clone(), "c.log".to_string()];
        let json = pool_to_json(&dir, &files, false).unwrap();
        let main = &json["pairings"][0];
        assert_eq!(
            main["wdl"],
            serde_json::json!({"wins": 6, "draws": 5, "losses": 7})
        );
        assert_eq!(main["penta"]["counts"], serde_json::json!([2, 2, 2, 2, 1]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sprt_decides_on_the_pooled_pairs_and_ends_the_json() {
        let dir = scratch("sprt");
        let counts = ([720, 120, 40], [8, 12, 40, 120, 260]);
        std::fs::write(dir.join("a.json"), result(counts.0, counts.1)).unwrap();
        let json = pool_to_json(&dir, &["a.json".to_string()], true).unwrap();
        assert_eq!(json["sprt"]["decision"], "h1");
        assert_eq!(json["end"], "sprt_decided");
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        let llr = sprt.llr_penta(&Penta { counts: counts.1 });
        assert_eq!(json["sprt"]["llr"].as_f64(), Some(llr));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_games_pairings_and_bad_results_files_are_refused() {
        let dir = scratch("bad");
        let ataxx = result([1, 0, 0], [0; 5]);
        let files = [
            ("ataxx.json", ataxx.clone()),
            ("gomoku.json", ataxx.replace("ataxx", "gomoku")),
            ("other.json", ataxx.replace("\"new\"", "\"x\"")),
            ("broken.json", "{".to_string()),
            ("short.json", ataxx.replace("[0, 0, 0, 0, 0]", "[0, 0]")),
            ("two.json", ataxx.replace("}],", "}, {\"first\": \"a\"}],")),
            ("chess.log", LOG.replace("new vs old", "new vs current")),
        ];
        for (name, text) in &files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let refusal = |second: &str| {
            let files = ["ataxx.json".to_string(), second.to_string()];
            pool_to_json(&dir, &files, false).unwrap_err()
        };
        assert!(refusal("gomoku.json").contains("gomoku"));
        assert!(refusal("other.json").contains("x vs current"));
        assert!(refusal("broken.json").contains("not JSON"));
        assert!(refusal("short.json").contains("not 5"));
        assert!(refusal("two.json").contains("one pairing"));
        assert!(refusal("chess.log").contains("chess match"));
        assert!(refusal("missing.json").contains("cannot read"));
        // Without a game named, the summary is printed but no JSON written.
        let unnamed = LOG.replace("(chess)", "(10+0.1, 1t)");
        std::fs::write(dir.join("unnamed.log"), unnamed).unwrap();
        let err = pool_to_json(&dir, &["unnamed.log".to_string()], false).unwrap_err();
        assert!(err.contains("names the game"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
