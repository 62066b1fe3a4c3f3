//! The match crate, on top of the engine library: `cutoff match` plays engines against each
//! other in any game cutoff knows, refereed by cutoff's own rules, with clocks, openings,
//! concurrency, statistics and SPRT; `cutoff play` ([`play`]) puts a person in front of an
//! engine through the same [`referee`]. The engine library links none of it: a GUI author
//! who embeds the engine gets no tournament manager.
//!
//! The pieces, one job each:
//! - [`config`] parses the fastchess-style command line;
//! - [`openings`] reads books of openings, `schedule` orders them and makes the queue of
//!   games;
//! - `workers` plays the queue on worker threads, each with its own engines, every game
//!   through the [`referee`](crate::referee) that `cutoff play` uses too (rules,
//!   clocks, engines over UCI, UGI, UAI or the Gomocup protocol, adjudication, the record
//!   of a game);
//! - `pgn` writes a game's record as PGN or a record line;
//! - `tally` counts results and runs the SPRT, with [`stats`] doing the arithmetic;
//! - `output` writes files, progress and the summary;
//! - [`pooled`] adds up the results, logs or PGN of several matches (`cutoff match-stats`),
//!   e.g. a cluster's game pairs.
//!
//! [`run`] ties them together: the workers play, the calling thread counts and writes each
//! game as it finishes, and stops the workers when the SPRT decides or on Ctrl-C.

pub mod cli;
pub mod config;
pub mod openings;
mod output;
mod pgn;
pub mod play;
pub mod pooled;
pub mod referee;
mod schedule;
pub mod stats;
mod tally;
mod workers;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::referee::{EngineProtocol, GameRecord, GomocupGame, Opening};
use config::MatchConfig;
use cutoff::games::{GameVisitor, Registered};
use cutoff::search::Game;
use output::Output;
use schedule::Job;
use tally::Tally;
use workers::Event;

pub use output::summary;
pub use tally::{GameEntry, MatchEnd, MatchResults, PairingResult, SprtReport};

/// Plays the match. `interrupt` (set by Ctrl-C) stops it cleanly: running games are
/// abandoned, engines stopped, finished games and partial results written.
pub fn run(config: &MatchConfig, interrupt: Arc<AtomicBool>) -> Result<MatchResults, String> {
    config
        .game
        .visit_default(MatchCommand { config, interrupt })
}

/// The match for the visited game.
struct MatchCommand<'a> {
    config: &'a MatchConfig,
    interrupt: Arc<AtomicBool>,
}

impl GameVisitor for MatchCommand<'_> {
    type Output = Result<MatchResults, String>;

    fn visit<G: Game>(self, game: Registered<G>) -> Self::Output {
        run_game::<G>(self.config, &game.variant, self.interrupt)
    }
}

/// Plays the match in the game `G`.
fn run_game<G: Game>(
    config: &MatchConfig,
    variant: &G::Variant,
    interrupt: Arc<AtomicBool>,
) -> Result<MatchResults, String> {
    // Step 1. Schedule: rounds x pairings x games, the opening shared by a pair. A missing
    // engine program is found now, before any output file is created or game played.
    if let Some(problem) = config.engines.iter().find_map(|e| e.program_problem()) {
        return Err(problem);
    }
    let openings = schedule::openings::<G>(config, variant)?;
    check_gomocup::<G>(config, variant, &openings)?;
    let pairs = schedule::pairings(config);
    let queue = schedule::jobs(config, &pairs, &openings);
    let scheduled = queue.len();

    // Step 2. Open the outputs (the JSON file too, so that a path that cannot be written
    // is known before the games, not after them), start the tallies.
    if let Some(path) = &config.json_out {
        std::fs::File::create(path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    }
    let mut output = Output::open(config, scheduled)?;
    let mut tally = Tally::new(config, pairs);

    // Step 3. Workers play; this thread counts and writes each game as it finishes.
    let fatal = workers::play_all::<G>(config, variant, queue, &interrupt, |event| match event {
        Event::Finished(done) => {
            let (job, record) = *done;
            count_game(&mut tally, &mut output, job, record)
        }
        Event::Interrupted => {
            tally.interrupt();
            true
        }
    });
    output.finish();
    if let Some(e) = fatal {
        return Err(e);
    }

    // Step 4. The results, also as JSON.
    let results = tally.finish(scheduled);
    if let Some(path) = &config.json_out {
        output::write_json(path, &results)?;
    }
    Ok(results)
}

/// Refuses a match with a Gomocup engine in a game that is not five in a row on a board,
/// or from openings given as a FEN (the runner tells a Gomocup engine the moves).
fn check_gomocup<G: Game>(
    config: &MatchConfig,
    variant: &G::Variant,
    openings: &[Opening],
) -> Result<(), String> {
    if !config
        .engines
        .iter()
        .any(|e| e.proto == EngineProtocol::Gomocup)
    {
        return Ok(());
    }
    let name = config.game.name();
    GomocupGame::of::<G>(variant)
        .map_err(|why| format!("proto=gomocup cannot play {name}: {why}"))?;
    if openings.iter().any(|o| o.fen.is_some()) {
        return Err("proto=gomocup takes openings as moves (format=moves), not FENs".to_string());
    }
    Ok(())
}

/// Counts a finished game, writes it out and runs the SPRT; returns true when the match
/// is decided. Games without a result, and games finishing after the match was decided
/// or interrupted, are not counted.
fn count_game(tally: &mut Tally, output: &mut Output, job: Job, record: GameRecord) -> bool {
    if !tally.counting() {
        return false;
    }
    let number = tally.games() + 1;
    let Some(entry) = tally.count(job, record) else {
        return false;
    };
    output.game(number, entry);
    output.progress(tally.main());
    tally.check_sprt()
}
