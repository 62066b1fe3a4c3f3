//! The match's running tallies: wins, draws and losses per pairing, game pairs for the
//! pentanomial model, Elo estimates, and the SPRT that may stop the match; and the
//! results they make ([`MatchResults`]). The arithmetic is in [`super::stats`].

use std::collections::HashMap;

use serde::Serialize;

use super::config::MatchConfig;
use super::schedule::Job;
use super::stats::{self, EloEstimate, Penta, SprtDecision, Wdl};
use crate::referee::GameRecord;
use cutoff::search::GameResult;

/// How a match ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchEnd {
    /// Every scheduled game was played.
    Completed,
    /// The SPRT reached a bound.
    SprtDecided,
    /// Stopped from outside (Ctrl-C) before the end.
    Interrupted,
}

/// The statistics of one pairing, from its first engine's view.
#[derive(Clone, Debug, Serialize)]
pub struct PairingResult {
    /// First engine's name.
    pub first: String,
    /// Second engine's name.
    pub second: String,
    /// Wins, draws and losses of the first engine.
    pub wdl: Wdl,
    /// Game pairs by the first engine's points.
    pub penta: Penta,
    /// Elo from game results.
    pub elo: Option<EloEstimate>,
    /// Elo from game pairs.
    pub elo_penta: Option<EloEstimate>,
}

/// SPRT state at the end.
#[derive(Clone, Debug, Serialize)]
pub struct SprtReport {
    /// The test.
    pub sprt: stats::Sprt,
    /// Log-likelihood ratio.
    pub llr: f64,
    /// Lower bound (accept H0).
    pub lower: f64,
    /// Upper bound (accept H1).
    pub upper: f64,
    /// Verdict.
    pub decision: SprtDecision,
}

/// One finished game in the results.
#[derive(Clone, Debug, Serialize)]
pub struct GameEntry {
    /// Round number (1-based).
    pub round: usize,
    /// Game number within the round's pair (1 or 2).
    pub game: usize,
    /// The game.
    pub record: GameRecord,
}

impl GameEntry {
    /// The round label in records: `3.2` for round 3, second game of the pair.
    pub(super) fn round_label(&self) -> String {
        format!("{}.{}", self.round, self.game)
    }
}

/// Everything a match produced; written as JSON with `-jsonout`.
#[derive(Clone, Debug, Serialize)]
pub struct MatchResults {
    /// Game name.
    pub game: String,
    /// Engine names.
    pub engines: Vec<String>,
    /// How the match ended.
    pub end: MatchEnd,
    /// Per pairing statistics.
    pub pairings: Vec<PairingResult>,
    /// SPRT, when one ran.
    pub sprt: Option<SprtReport>,
    /// Every finished game, in the order they finished.
    pub games: Vec<GameEntry>,
}

/// The results as games finish, and what is needed to count the next one.
pub(super) struct Tally {
    results: MatchResults,
    /// Engine indices of each pairing.
    pairs: Vec<[usize; 2]>,
    /// Games per round and pairing: 2 counts game pairs too.
    games_per_round: usize,
    /// The SPRT to run on the first pairing, if any.
    sprt: Option<stats::Sprt>,
    /// Points of the first finished game of each unfinished pair, by (pairing, round).
    pending_pairs: HashMap<(usize, usize), f64>,
}

impl Tally {
    /// Empty tallies for the pairings `pairs` of `config`'s engines.
    pub(super) fn new(config: &MatchConfig, pairs: Vec<[usize; 2]>) -> Tally {
        let name = |i: usize| config.engines[i].name.clone();
        let results = MatchResults {
            game: config.game.name().to_string(),
            engines: config.engines.iter().map(|e| e.name.clone()).collect(),
            end: MatchEnd::Completed,
            pairings: pairs
                .iter()
                .map(|&[i, j]| PairingResult {
                    first: name(i),
                    second: name(j),
                    wdl: Wdl::default(),
                    penta: Penta::default(),
                    elo: None,
                    elo_penta: None,
                })
                .collect(),
            sprt: None,
            games: Vec::new(),
        };
        Tally {
            results,
            pairs,
            games_per_round: config.games,
            sprt: config.sprt,
            pending_pairs: HashMap::new(),
        }
    }

    /// Whether finished games still count: not once the SPRT decided or Ctrl-C stopped
    /// the match.
    pub(super) fn counting(&self) -> bool {
        self.results.end == MatchEnd::Completed
    }

    /// Notes that Ctrl-C stopped the match.
    pub(super) fn interrupt(&mut self) {
        self.results.end = MatchEnd::Interrupted;
    }

    /// The games counted so far.
    pub(super) fn games(&self) -> usize {
        self.results.games.len()
    }

    /// The first pairing, the one the progress line and the SPRT follow.
    pub(super) fn main(&self) -> &PairingResult {
        &self.results.pairings[0]
    }

    /// Counts a finished game and keeps it; games without a result are not counted.
    pub(super) fn count(&mut self, job: Job, record: GameRecord) -> Option<&GameEntry> {
        let result = record.result?;
        let pair = self.pairs[job.pairing];
        let points = first_engine_points(&job, pair, result);
        let stats = &mut self.results.pairings[job.pairing];
        if points == 1.0 {
            stats.wdl.wins += 1;
        } else if points == 0.0 {
            stats.wdl.losses += 1;
        } else {
            stats.wdl.draws += 1;
        }
        if self.games_per_round == 2 {
            if let Some(other) = self.pending_pairs.remove(&(job.pairing, job.round)) {
                stats.penta.add_pair(other, points);
            } else {
                self.pending_pairs.insert((job.pairing, job.round), points);
            }
        }
        stats.elo = stats.wdl.elo();
        stats.elo_penta = stats.penta.elo();
        self.results.games.push(GameEntry {
            round: job.round + 1,
            game: job.game + 1,
            record,
        });
        self.results.games.last()
    }

    /// Runs the SPRT, if any, on the first pairing; returns true when it has just decided
    /// the match.
    pub(super) fn check_sprt(&mut self) -> bool {
        let Some(sprt) = self.sprt else {
            return false;
        };
        let main = &self.results.pairings[0];
        let llr = if self.games_per_round == 2 {
            sprt.llr_penta(&main.penta)
        } else {
            sprt.llr_wdl(&main.wdl)
        };
        let (lower, upper) = sprt.bounds();
        let decision = sprt.decision(llr);
        self.results.sprt = Some(SprtReport {
            sprt,
            llr,
            lower,
            upper,
            decision,
        });
        if decision != SprtDecision::Continue && self.counting() {
            self.results.end = MatchEnd::SprtDecided;
            return true;
        }
        false
    }

    /// The results once the workers have stopped; a match that played fewer than the
    /// `scheduled` games without being decided was interrupted.
    pub(super) fn finish(mut self, scheduled: usize) -> MatchResults {
        if self.counting() && self.results.games.len() < scheduled {
            self.results.end = MatchEnd::Interrupted;
        }
        self.results
    }
}

/// Points of the pairing's first engine in a game.
fn first_engine_points(job: &Job, pair: [usize; 2], result: GameResult) -> f64 {
    let first_player_points = match result {
        GameResult::FirstWins => 1.0,
        GameResult::Draw => 0.5,
        GameResult::SecondWins => 0.0,
    };
    if job.players[0] == pair[0] {
        first_player_points
    } else {
        1.0 - first_player_points
    }
}
