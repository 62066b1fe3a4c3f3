//! The worker threads: each keeps its own engine processes and plays games from the shared
//! queue; the calling thread receives the finished games and decides when to stop.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

use super::config::MatchConfig;
use super::schedule::Job;
use crate::referee::{
    self, loss_for, EngineFailure, EngineProcess, EngineProtocol, GameRecord, GomocupGame,
    Termination,
};
use cutoff::search::Game;

/// How often the collecting thread looks at the Ctrl-C flag while no game finishes.
const POLL: Duration = Duration::from_millis(100);

/// What the workers report to the collecting thread.
enum Message {
    /// A game finished (with or without a result).
    Done(Box<(Job, GameRecord)>),
    /// The match cannot go on (an engine cannot be started, a bad opening).
    Fatal(String),
}

/// What the collecting thread is told.
pub(super) enum Event {
    /// A game finished.
    Finished(Box<(Job, GameRecord)>),
    /// Ctrl-C was pressed: the workers are being stopped.
    Interrupted,
}

/// Plays the queued games on up to `config.concurrency` worker threads and hands every
/// event to `on_event`, on this thread. The workers stop (running games are abandoned, no
/// more are started) when it returns true for a finished game, after Ctrl-C, or after a
/// fatal error. Returns the first fatal error, if any.
pub(super) fn play_all<G: Game>(
    config: &MatchConfig,
    variant: &G::Variant,
    queue: VecDeque<Job>,
    interrupt: &AtomicBool,
    mut on_event: impl FnMut(Event) -> bool,
) -> Option<String> {
    let workers = config.concurrency.min(queue.len());
    let stop = AtomicBool::new(false);
    let jobs = Mutex::new(queue);
    let (send, receive) = channel::<Message>();
    let mut fatal = None;
    thread::scope(|scope| {
        for _ in 0..workers {
            let send = send.clone();
            let (jobs, stop) = (&jobs, &stop);
            scope.spawn(move || worker::<G>(config, variant, jobs, &send, stop));
        }
        drop(send);
        loop {
            let stopping = match receive.recv_timeout(POLL) {
                // A game that ends once Ctrl-C was pressed may have ended by it.
                Ok(Message::Done(_)) if interrupt.load(Ordering::Relaxed) => {
                    on_event(Event::Interrupted);
                    true
                }
                Ok(Message::Done(done)) => on_event(Event::Finished(done)),
                Ok(Message::Fatal(e)) => {
                    fatal.get_or_insert(e);
                    true
                }
                Err(RecvTimeoutError::Timeout) if interrupt.load(Ordering::Relaxed) => {
                    on_event(Event::Interrupted);
                    true
                }
                Err(RecvTimeoutError::Timeout) => false,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            if stopping {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    fatal
}

/// Why a job's engines could not all be started.
enum StartFailure {
    /// An engine failed its start-up: the job's game is forfeited.
    Forfeit(Box<GameRecord>),
    /// An engine program cannot be run at all.
    Fatal(String),
    /// The match is being stopped.
    Interrupted,
}

/// One worker's engine processes, by engine index; started when first needed.
struct Engines(Vec<Option<EngineProcess>>);

impl Engines {
    /// Starts (or reuses) both engines of `job`.
    fn start<G: Game>(
        &mut self,
        config: &MatchConfig,
        variant: &G::Variant,
        job: &Job,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<(), StartFailure> {
        for (seat, &index) in job.players.iter().enumerate() {
            if self.0[index].is_some() {
                continue;
            }
            let engine = &config.engines[index];
            let mut process = EngineProcess::spawn(engine).map_err(StartFailure::Fatal)?;
            if engine.proto == EngineProtocol::Gomocup {
                let game = GomocupGame::of::<G>(variant).map_err(StartFailure::Fatal)?;
                process.use_gomocup(game);
            }
            let referee = &config.referee;
            match process.init(referee.startup_timeout, referee.ready_timeout, interrupted) {
                Ok(()) => self.0[index] = Some(process),
                Err((EngineFailure::Interrupted, _)) => return Err(StartFailure::Interrupted),
                Err((failure, stage)) => {
                    let mut record = startup_forfeit(job, config, seat, &failure, stage);
                    // The book moves in record notation (SAN in chess), as in played games.
                    if let Ok((_, book)) = job.opening.position_and_record::<G>(variant) {
                        record.opening_record = book;
                    }
                    record.engine_tail = process.tail();
                    return Err(StartFailure::Forfeit(Box::new(record)));
                }
            }
        }
        Ok(())
    }

    /// Plays `job` with its started engines; after a forfeit both are dropped (stopped),
    /// to be restarted for the next game. An error is a bad opening.
    fn play<G: Game>(
        &mut self,
        config: &MatchConfig,
        variant: &G::Variant,
        job: &Job,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<GameRecord, String> {
        let [a, b] = job.players;
        let mut first = self.0[a].take().expect("started");
        let mut second = self.0[b].take().expect("started");
        let record = referee::play_game::<G>(
            variant,
            &job.opening,
            [&mut first, &mut second],
            &config.referee,
            interrupted,
        )?;
        if matches!(
            record.termination,
            Termination::Normal | Termination::Adjudication
        ) {
            self.0[a] = Some(first);
            self.0[b] = Some(second);
        }
        Ok(record)
    }
}

/// A game that was never played because the engine in `loser`'s seat failed to start up
/// at `stage`.
fn startup_forfeit(
    job: &Job,
    config: &MatchConfig,
    loser: usize,
    failure: &EngineFailure,
    stage: &str,
) -> GameRecord {
    let name = |i: usize| config.engines[job.players[i]].name.clone();
    let why = match failure {
        EngineFailure::Timeout => format!("did not answer {stage} in time"),
        _ => format!("disconnected at {stage} (crashed or exited)"),
    };
    GameRecord {
        first: name(0),
        second: name(1),
        opening: job.opening.clone(),
        start_fen: String::new(),
        opening_record: job.opening.moves.clone(),
        moves: Vec::new(),
        result: Some(loss_for(loser)),
        termination: Termination::NotReady,
        reason: format!("{} {why}", name(loser)),
        engine_tail: Vec::new(),
    }
}

/// One worker: plays jobs until the queue is empty, the match stops or cannot go on.
fn worker<G: Game>(
    config: &MatchConfig,
    variant: &G::Variant,
    jobs: &Mutex<VecDeque<Job>>,
    send: &Sender<Message>,
    stop: &AtomicBool,
) {
    let interrupted = || stop.load(Ordering::Relaxed);
    let mut engines = Engines((0..config.engines.len()).map(|_| None).collect());
    loop {
        if interrupted() {
            return;
        }
        let Some(job) = jobs.lock().expect("job queue").pop_front() else {
            return;
        };
        // Step 1. Start (or reuse) both engines.
        let record = match engines.start::<G>(config, variant, &job, &interrupted) {
            // Step 2. Play.
            Ok(()) => match engines.play::<G>(config, variant, &job, &interrupted) {
                Ok(record) => record,
                Err(e) => {
                    let _ = send.send(Message::Fatal(format!("opening: {e}")));
                    return;
                }
            },
            Err(StartFailure::Forfeit(record)) => *record,
            Err(StartFailure::Fatal(e)) => {
                let _ = send.send(Message::Fatal(e));
                return;
            }
            Err(StartFailure::Interrupted) => return,
        };
        // Step 3. Report; an interrupted game is not reported (nor counted if it ends after
        // the interrupt: see `play_all`).
        if record.termination == Termination::Interrupted {
            return;
        }
        if send.send(Message::Done(Box::new((job, record)))).is_err() {
            return;
        }
    }
}
