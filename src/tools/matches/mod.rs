//! `cutoff match`: plays engines against each other in any game cutoff knows, refereed by
//! cutoff's own rules, with clocks, openings, concurrency, statistics and SPRT.
//!
//! The pieces: [`config`] parses the fastchess-style command line, [`engine`] runs engine
//! processes with deadlines, [`referee`] plays one game generically over [`Game`],
//! [`stats`] holds the arithmetic, [`pgn`] the game records. [`run`] ties them together:
//! worker threads take games from a queue, the calling thread collects results, prints
//! progress, checks SPRT and writes the outputs.

pub mod config;
pub mod engine;
pub mod openings;
pub mod pgn;
pub mod referee;
pub mod stats;

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{SystemTime, UNIX_EPOCH};

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::games::{GameVisitor, Registered};
use crate::search::{Game, GameResult};
use config::{MatchConfig, Tournament};
use engine::EngineProcess;
use referee::{GameRecord, Opening, Termination};
use stats::{EloEstimate, Penta, SprtDecision, Wdl};

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

/// One game to play.
#[derive(Clone, Debug)]
struct Job {
    pairing: usize,
    round: usize,
    game: usize,
    opening: Opening,
    /// Engine indices, first player first.
    players: [usize; 2],
}

enum Message {
    Done(Box<(Job, GameRecord)>),
    Fatal(String),
}

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

/// The openings to play, checked against the rules.
fn load_openings<G: Game>(
    config: &MatchConfig,
    variant: &G::Variant,
) -> Result<Vec<Opening>, String> {
    let Some(book) = &config.openings else {
        return Ok(vec![Opening::default()]);
    };
    let text = std::fs::read_to_string(&book.file)
        .map_err(|e| format!("cannot read {}: {e}", book.file.display()))?;
    let mut list = openings::parse_book(&text, book.format);
    for (i, opening) in list.iter().enumerate() {
        opening
            .position::<G>(variant)
            .map_err(|e| format!("{} line {}: {e}", book.file.display(), i + 1))?;
    }
    if list.is_empty() {
        return Err(format!("{} has no openings", book.file.display()));
    }
    if book.random {
        openings::shuffle(&mut list, config.seed);
    }
    let start = (book.start.max(1) - 1) % list.len();
    list.rotate_left(start);
    Ok(list)
}

/// Pairs of engine indices that play each other.
fn pairings(config: &MatchConfig) -> Vec<[usize; 2]> {
    let n = config.engines.len();
    match config.tournament {
        Tournament::Gauntlet => (1..n).map(|j| [0, j]).collect(),
        Tournament::RoundRobin => (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| [i, j]))
            .collect(),
    }
}

/// Today's date as `YYYY.MM.DD` (UTC).
fn pgn_date() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// A game that was never played because an engine failed to start up.
fn startup_forfeit(job: &Job, config: &MatchConfig, loser: usize, why: String) -> GameRecord {
    let name = |i: usize| config.engines[job.players[i]].name.clone();
    GameRecord {
        first: name(0),
        second: name(1),
        opening: job.opening.clone(),
        start_fen: String::new(),
        opening_record: job.opening.moves.clone(),
        moves: Vec::new(),
        result: Some(if loser == 0 {
            GameResult::SecondWins
        } else {
            GameResult::FirstWins
        }),
        termination: Termination::NotReady,
        reason: format!("{} {why}", name(loser)),
        engine_tail: Vec::new(),
    }
}

/// One worker: keeps its own engine processes and plays jobs until the queue is empty.
fn worker<G: Game>(
    config: &MatchConfig,
    variant: &G::Variant,
    jobs: &Mutex<VecDeque<Job>>,
    send: &std::sync::mpsc::Sender<Message>,
    stop: &AtomicBool,
) {
    let interrupted = || stop.load(Ordering::Relaxed);
    let mut processes: Vec<Option<EngineProcess>> =
        (0..config.engines.len()).map(|_| None).collect();
    loop {
        if interrupted() {
            return;
        }
        let Some(job) = jobs.lock().expect("job queue").pop_front() else {
            return;
        };
        // Step 1. Start (or reuse) both engines.
        let mut startup_failure = None;
        for (seat, &index) in job.players.iter().enumerate() {
            if processes[index].is_some() {
                continue;
            }
            let mut process = match EngineProcess::spawn(&config.engines[index]) {
                Ok(process) => process,
                Err(e) => {
                    let _ = send.send(Message::Fatal(e));
                    return;
                }
            };
            let referee = &config.referee;
            match process.init(referee.startup_timeout, referee.ready_timeout, &interrupted) {
                Ok(()) => processes[index] = Some(process),
                Err((engine::EngineFailure::Interrupted, _)) => return,
                Err((failure, stage)) => {
                    let mut record = startup_forfeit(
                        &job,
                        config,
                        seat,
                        match failure {
                            engine::EngineFailure::Timeout => {
                                format!("did not answer {stage} in time")
                            }
                            _ => format!("disconnected at {stage} (crashed or exited)"),
                        },
                    );
                    record.engine_tail = process.tail();
                    startup_failure = Some(record);
                    break;
                }
            }
        }
        if let Some(record) = startup_failure {
            let _ = send.send(Message::Done(Box::new((job, record))));
            continue;
        }
        // Step 2. Play; after a forfeit both engines are restarted for the next game.
        let [a, b] = job.players;
        let mut first = processes[a].take().expect("started");
        let mut second = processes[b].take().expect("started");
        let result = referee::play_game::<G>(
            variant,
            &job.opening,
            [&mut first, &mut second],
            &config.referee,
            &interrupted,
        );
        let record = match result {
            Ok(record) => record,
            Err(e) => {
                let _ = send.send(Message::Fatal(format!("opening: {e}")));
                return;
            }
        };
        if matches!(
            record.termination,
            Termination::Normal | Termination::Adjudication
        ) {
            processes[a] = Some(first);
            processes[b] = Some(second);
        }
        if record.termination == Termination::Interrupted {
            return;
        }
        if send.send(Message::Done(Box::new((job, record)))).is_err() {
            return;
        }
    }
}

/// Output files opened at the start and appended to as games finish.
struct Outputs {
    pgn: Option<File>,
    record: Option<File>,
}

fn create(path: &Option<std::path::PathBuf>) -> Result<Option<File>, String> {
    path.as_ref()
        .map(|p| File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display())))
        .transpose()
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

fn run_game<G: Game>(
    config: &MatchConfig,
    variant: &G::Variant,
    interrupt: Arc<AtomicBool>,
) -> Result<MatchResults, String> {
    // Step 1. Schedule: rounds x pairings x games, the opening shared by a pair.
    let openings = load_openings::<G>(config, variant)?;
    let pairs = pairings(config);
    let mut queue = VecDeque::new();
    for round in 0..config.rounds {
        let opening = &openings[round % openings.len()];
        for (pairing, pair) in pairs.iter().enumerate() {
            for game in 0..config.games {
                let players = if game % 2 == 0 {
                    *pair
                } else {
                    [pair[1], pair[0]]
                };
                queue.push_back(Job {
                    pairing,
                    round,
                    game,
                    opening: opening.clone(),
                    players,
                });
            }
        }
    }
    let total = queue.len();
    let mut outputs = Outputs {
        pgn: create(&config.pgn_out)?,
        record: create(&config.record_out)?,
    };
    let date = pgn_date();
    let time_control = config.engines[0].limits.describe();

    let mut results = MatchResults {
        game: config.game.name().to_string(),
        engines: config.engines.iter().map(|e| e.name.clone()).collect(),
        end: MatchEnd::Completed,
        pairings: pairs
            .iter()
            .map(|&[i, j]| PairingResult {
                first: config.engines[i].name.clone(),
                second: config.engines[j].name.clone(),
                wdl: Wdl::default(),
                penta: Penta::default(),
                elo: None,
                elo_penta: None,
            })
            .collect(),
        sprt: None,
        games: Vec::new(),
    };
    let mut pending_pairs: HashMap<(usize, usize), f64> = HashMap::new();

    let progress = ProgressBar::new(total as u64);
    progress.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed} {msg}")
            .expect("valid template"),
    );

    // Step 2. Workers play; this thread collects.
    let stop = AtomicBool::new(false);
    let jobs = Mutex::new(queue);
    let (send, receive) = channel::<Message>();
    let mut fatal = None;
    thread::scope(|scope| {
        for _ in 0..config.concurrency.min(total) {
            let send = send.clone();
            let (jobs, stop) = (&jobs, &stop);
            scope.spawn(move || worker::<G>(config, variant, jobs, &send, stop));
        }
        drop(send);
        loop {
            let message = match receive.recv_timeout(std::time::Duration::from_millis(100)) {
                Ok(message) => message,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if interrupt.load(Ordering::Relaxed) {
                        stop.store(true, Ordering::Relaxed);
                        results.end = MatchEnd::Interrupted;
                    }
                    continue;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            };
            let (job, record) = match message {
                Message::Done(done) => *done,
                Message::Fatal(e) => {
                    fatal.get_or_insert(e);
                    stop.store(true, Ordering::Relaxed);
                    continue;
                }
            };
            if stop.load(Ordering::Relaxed) && results.end != MatchEnd::Completed {
                continue; // decided or interrupted: late games are not counted
            }
            let number = results.games.len() + 1;
            let round_label = format!("{}.{}", job.round + 1, job.game + 1);
            let Some(result) = record.result else {
                continue;
            };
            // Step 3. Statistics.
            let pair = pairs[job.pairing];
            let points = first_engine_points(&job, pair, result);
            let stats = &mut results.pairings[job.pairing];
            if points == 1.0 {
                stats.wdl.wins += 1;
            } else if points == 0.0 {
                stats.wdl.losses += 1;
            } else {
                stats.wdl.draws += 1;
            }
            if config.games == 2 {
                if let Some(other) = pending_pairs.remove(&(job.pairing, job.round)) {
                    stats.penta.add_pair(other, points);
                } else {
                    pending_pairs.insert((job.pairing, job.round), points);
                }
            }
            stats.elo = stats.wdl.elo();
            stats.elo_penta = stats.penta.elo();
            // Step 4. Outputs of this game.
            if let Some(file) = outputs.pgn.as_mut() {
                let ctx = pgn::PgnContext {
                    event: &config.event,
                    game: config.game,
                    round: &round_label,
                    time_control: &time_control,
                    date: &date,
                };
                let _ = file.write_all(pgn::to_pgn(&record, &ctx).as_bytes());
                let _ = file.flush();
            }
            if let Some(file) = outputs.record.as_mut() {
                let _ = file.write_all(pgn::to_record_line(&record, &round_label).as_bytes());
                let _ = file.flush();
            }
            if config.verbose_games {
                let mut text = format!(
                    "Finished game {number} ({} vs {}): {} {{{}}}",
                    record.first,
                    record.second,
                    record.result_text(),
                    record.reason
                );
                if !record.engine_tail.is_empty() {
                    text += "\n  last lines of the engine:";
                    for line in &record.engine_tail {
                        text += &format!("\n    {line}");
                    }
                }
                progress.suspend(|| println!("{text}"));
            }
            let main = &results.pairings[0];
            progress.set_message(format!(
                "{} vs {}: {} - {} - {} [{:.3}]",
                main.first,
                main.second,
                main.wdl.wins,
                main.wdl.losses,
                main.wdl.draws,
                main.wdl.score().unwrap_or(0.5)
            ));
            progress.inc(1);
            results.games.push(GameEntry {
                round: job.round + 1,
                game: job.game + 1,
                record,
            });
            // Step 5. SPRT.
            if let Some(sprt) = config.sprt {
                let main = &results.pairings[0];
                let llr = if config.games == 2 {
                    sprt.llr_penta(&main.penta)
                } else {
                    sprt.llr_wdl(&main.wdl)
                };
                let (lower, upper) = sprt.bounds();
                let decision = sprt.decision(llr);
                results.sprt = Some(SprtReport {
                    sprt,
                    llr,
                    lower,
                    upper,
                    decision,
                });
                if decision != SprtDecision::Continue && results.end == MatchEnd::Completed {
                    results.end = MatchEnd::SprtDecided;
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    progress.finish_and_clear();
    if let Some(e) = fatal {
        return Err(e);
    }
    if results.end == MatchEnd::Completed && results.games.len() < total {
        results.end = MatchEnd::Interrupted;
    }
    if let Some(path) = &config.json_out {
        let json = serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?;
        std::fs::write(path, json + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(results)
}

/// The final table: per pairing W/D/L, score, Elo ± interval, LOS, pentanomial, and SPRT.
pub fn summary(results: &MatchResults) -> String {
    let mut out = String::new();
    for p in &results.pairings {
        let games = p.wdl.games();
        out += &format!(
            "Results of {} vs {} ({}):\n",
            p.first, p.second, results.game
        );
        out += &format!(
            "  Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({:.2} %)\n",
            p.wdl.wins,
            p.wdl.losses,
            p.wdl.draws,
            p.wdl.points(),
            100.0 * p.wdl.score().unwrap_or(0.0)
        );
        let format_elo = |e: &EloEstimate| {
            if !e.elo.is_finite() {
                return format!("Elo: {:.2} (every game won or lost: no interval)", e.elo);
            }
            format!(
                "Elo: {:.2} +/- {:.2} [{:.2}, {:.2}], nElo: {:.2}, LOS: {:.2} %",
                e.elo,
                e.error(),
                e.lower,
                e.upper,
                e.nelo,
                100.0 * e.los
            )
        };
        if let Some(e) = &p.elo {
            out += &format!("  Trinomial   {}\n", format_elo(e));
        }
        if p.penta.pairs() > 0 {
            let c = p.penta.counts;
            out += &format!(
                "  Ptnml(0-2): [{}, {}, {}, {}, {}]\n",
                c[0], c[1], c[2], c[3], c[4]
            );
            if let Some(e) = &p.elo_penta {
                out += &format!("  Pentanomial {}\n", format_elo(e));
            }
        }
    }
    if let Some(s) = &results.sprt {
        out += &format!(
            "SPRT ({:?} model): elo0 {:.2}, elo1 {:.2}, alpha {}, beta {}: LLR {:.2} ({:.2}, {:.2}): {}\n",
            s.sprt.model, s.sprt.elo0, s.sprt.elo1, s.sprt.alpha, s.sprt.beta, s.llr, s.lower, s.upper, s.decision
        );
    }
    let end = match results.end {
        MatchEnd::Completed => "completed",
        MatchEnd::SprtDecided => "stopped: SPRT decided",
        MatchEnd::Interrupted => "interrupted",
    };
    out += &format!("Match {end} after {} games\n", results.games.len());
    out
}
