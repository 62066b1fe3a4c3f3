//! `cutoff match -merge FILE... [-sprt ...] [-jsonout file=PATH]`: adds up the counts of
//! several matches' `-jsonout` results (the same game and pairings, e.g. the game pairs a
//! cluster's workers played) and gives the verdict a single match with all their games
//! would give: Elo from games and from pairs, and the SPRT on the first pairing, by the
//! same arithmetic ([`super::stats`]). The merged results hold the counts, not the games.

use std::path::PathBuf;

use serde_json::Value;

use super::config::parse_sprt;
use super::stats::{Penta, SprtDecision, Wdl};
use super::tally::{MatchEnd, MatchResults, PairingResult, SprtReport};

/// Merges the results files named in `args` (the arguments after `-merge`), prints the
/// summary and writes the JSON when `-jsonout file=PATH` asks.
pub fn run(args: &[String]) -> Result<MatchResults, String> {
    let (files, sprt_args, json_out) = split_args(args)?;
    let mut merged: Option<MatchResults> = None;
    for file in &files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let one = read_results(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        merged = Some(match merged {
            None => one,
            Some(sum) => add(sum, &one).map_err(|e| format!("{}: {e}", file.display()))?,
        });
    }
    let mut results = merged.ok_or("-merge needs at least one results file")?;
    for pairing in &mut results.pairings {
        pairing.elo = pairing.wdl.elo();
        pairing.elo_penta = pairing.penta.elo();
    }
    if let Some(values) = sprt_args {
        let sprt = parse_sprt(&values)?;
        let main = &results.pairings[0];
        let llr = if main.penta.pairs() > 0 {
            sprt.llr_penta(&main.penta)
        } else {
            sprt.llr_wdl(&main.wdl)
        };
        let (lower, upper) = sprt.bounds();
        let decision = sprt.decision(llr);
        if decision != SprtDecision::Continue {
            results.end = MatchEnd::SprtDecided;
        }
        results.sprt = Some(SprtReport {
            sprt,
            llr,
            lower,
            upper,
            decision,
        });
    }
    if let Some(path) = json_out {
        super::output::write_json(&path, &results)?;
    }
    Ok(results)
}

/// The files, the `-sprt` settings and the `-jsonout` path of the arguments.
type MergeArgs = (Vec<PathBuf>, Option<Vec<String>>, Option<PathBuf>);

/// Splits `FILE... [-sprt k=v...] [-jsonout file=PATH]`.
fn split_args(args: &[String]) -> Result<MergeArgs, String> {
    let mut files = Vec::new();
    let (mut sprt, mut json_out) = (None, None);
    let mut rest = args.iter().peekable();
    while let Some(arg) = rest.next() {
        let mut values = Vec::new();
        while let Some(v) = rest.next_if(|v| !v.starts_with('-')) {
            values.push(v.clone());
        }
        match arg.as_str() {
            "-sprt" => sprt = Some(values),
            "-jsonout" => match values.as_slice() {
                [v] if v.starts_with("file=") => json_out = Some(PathBuf::from(&v[5..])),
                _ => return Err("-jsonout takes file=PATH".to_string()),
            },
            file if !file.starts_with('-') => {
                files.push(PathBuf::from(file));
                files.extend(values.into_iter().map(PathBuf::from));
            }
            other => return Err(format!("unknown -merge option '{other}'")),
        }
    }
    Ok((files, sprt, json_out))
}

/// The game, engines and per pairing counts of one `-jsonout` file.
fn read_results(text: &str) -> Result<MatchResults, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let string = |v: &Value, what: &str| {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("no {what}"))
    };
    let count = |v: &Value, what: &str| v.as_u64().ok_or_else(|| format!("no count {what}"));
    let mut pairings = Vec::new();
    for p in json["pairings"].as_array().ok_or("no pairings")? {
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
        pairings.push(PairingResult {
            first: string(&p["first"], "first engine")?,
            second: string(&p["second"], "second engine")?,
            wdl,
            penta,
            elo: None,
            elo_penta: None,
        });
    }
    if pairings.is_empty() {
        return Err("no pairing".to_string());
    }
    let engines = json["engines"].as_array().ok_or("no engines")?;
    Ok(MatchResults {
        game: string(&json["game"], "game")?,
        engines: engines
            .iter()
            .map(|e| string(e, "engine name"))
            .collect::<Result<_, _>>()?,
        end: MatchEnd::Completed,
        pairings,
        sprt: None,
        games: Vec::new(),
    })
}

/// `sum` with `one`'s counts added; refuses another game or other pairings.
fn add(mut sum: MatchResults, one: &MatchResults) -> Result<MatchResults, String> {
    if one.game != sum.game {
        return Err(format!("a {} match, not {}", one.game, sum.game));
    }
    let names = |r: &MatchResults| -> Vec<(String, String)> {
        r.pairings
            .iter()
            .map(|p| (p.first.clone(), p.second.clone()))
            .collect()
    };
    if names(one) != names(&sum) {
        return Err(format!("pairings {:?}, not {:?}", names(one), names(&sum)));
    }
    for (total, p) in sum.pairings.iter_mut().zip(&one.pairings) {
        total.wdl.wins += p.wdl.wins;
        total.wdl.draws += p.wdl.draws;
        total.wdl.losses += p.wdl.losses;
        for (t, c) in total.penta.counts.iter_mut().zip(p.penta.counts) {
            *t += c;
        }
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn write(path: &Path, text: &str) {
        std::fs::write(path, text).expect("write a test file");
    }

    fn result(wdl: [u64; 3], penta: [u64; 5]) -> String {
        format!(
            r#"{{"game":"ataxx","engines":["new","current"],"end":"completed",
            "pairings":[{{"first":"new","second":"current",
            "wdl":{{"wins":{},"draws":{},"losses":{}}},"penta":{{"counts":{:?}}}}}],
            "sprt":null,"games":[]}}"#,
            wdl[0], wdl[1], wdl[2], penta
        )
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn merged_counts_give_the_elo_of_one_match_with_all_the_pairs() {
        let dir = std::env::temp_dir().join(format!("merge-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b, out) = (dir.join("a.json"), dir.join("b.json"), dir.join("m.json"));
        write(&a, &result([3, 1, 0], [0, 0, 0, 1, 1]));
        write(&b, &result([1, 0, 3], [1, 1, 0, 0, 0]));
        let files = [a.to_str().unwrap(), b.to_str().unwrap()];
        let json = format!("file={}", out.display());
        let merged = run(&args(&[files[0], files[1], "-jsonout", &json])).unwrap();
        let main = &merged.pairings[0];
        assert_eq!((main.wdl.wins, main.wdl.draws, main.wdl.losses), (4, 1, 3));
        assert_eq!(main.penta.counts, [1, 1, 0, 1, 1]);
        let whole = Penta {
            counts: [1, 1, 0, 1, 1],
        };
        assert_eq!(main.elo_penta, whole.elo());
        let written: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(written["pairings"][0]["penta"]["counts"][0], 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sprt_decides_on_the_merged_pairs() {
        let dir = std::env::temp_dir().join(format!("merge-sprt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.json");
        write(&a, &result([720, 120, 40], [8, 12, 40, 120, 260]));
        let file = a.to_str().unwrap();
        let merged = run(&args(&[file, "-sprt", "elo0=0", "elo1=10"])).unwrap();
        let sprt = merged.sprt.unwrap();
        assert_eq!(sprt.decision, SprtDecision::H1);
        assert_eq!(merged.end, MatchEnd::SprtDecided);
        let sprt_of_one = parse_sprt(&args(&["elo0=0", "elo1=10"])).unwrap();
        assert_eq!(sprt.llr, sprt_of_one.llr_penta(&merged.pairings[0].penta));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_games_pairings_and_bad_files_are_refused() {
        let ataxx = read_results(&result([1, 0, 0], [0; 5])).unwrap();
        let gomoku = read_results(&result([1, 0, 0], [0; 5]).replace("ataxx", "gomoku")).unwrap();
        assert!(add(ataxx.clone(), &gomoku).unwrap_err().contains("gomoku"));
        let other = read_results(&result([1, 0, 0], [0; 5]).replace("\"new\"", "\"x\"")).unwrap();
        assert!(add(ataxx, &other).unwrap_err().contains("pairings"));
        assert!(read_results("{").unwrap_err().contains("not JSON"));
        let short = result([1, 0, 0], [0; 5]).replace("[0, 0, 0, 0, 0]", "[0, 0]");
        assert!(read_results(&short).unwrap_err().contains("not 5"));
        assert!(run(&args(&["-sprt", "elo0=0", "elo1=5"])).is_err());
        assert!(run(&args(&["-bogus"])).unwrap_err().contains("-bogus"));
        assert!(run(&args(&["/nonexistent.json"]))
            .unwrap_err()
            .contains("cannot read"));
    }
}
