//! fastchess's `fastchess --compliance <engine>` check (issue 79), replayed step by step
//! against the real binary, so CI runs it without fastchess.
//!
//! The steps and what each expects mirror fastchess's `app/src/engine/compliance.hpp`
//! (the 40 steps of fastchess 1.8: "Engine passed all compliance checks."), with the
//! helpers it calls read the way fastchess's `UciEngine` and POSIX `Process` read them:
//! - `start`: write `uci`, read until a line starting `uciok` (10 s); `id name ` and
//!   `id author ` are taken from the lines that start with them;
//! - `isready`: write `isready`, read until `readyok` (60 s); `ucinewgame` writes
//!   `ucinewgame`, then does the same;
//! - `readEngine(word)`: clears the output, then reads until a line starting with `word`
//!   (60 s);
//! - `lastInfoLine`: the last line read that has `info` and ` score ` (with `multipv`,
//!   only `multipv 1`), skipping `info string` lines, preferring one without a bound;
//! - `bestmove`: the token after `bestmove` on the last line, which must start with it;
//! - `isValidInfoLine`: the first token is `info`, and the values after `time`, `nps` and
//!   `score` have no `.`.
//!
//! Each step below carries fastchess's own description, numbered as fastchess prints it.

use crate::common;

use std::time::{Duration, Instant};

use common::Engine;

/// fastchess's `startup_time_`: how long `uciok` may take.
const STARTUP: Duration = Duration::from_secs(10);
/// fastchess's `ping_time_` (and `ucinewgame_time_`): how long any other answer may take.
const PING: Duration = Duration::from_secs(60);

/// The engine as fastchess's `UciEngine` sees it: the output of the last read, and the
/// `id` lines of the handshake.
struct Fastchess {
    engine: Engine,
    output: Vec<String>,
    id_name: Option<String>,
    id_author: Option<String>,
}

impl Fastchess {
    /// The engine started as `fastchess --compliance cutoff` starts it: no arguments.
    fn new() -> Fastchess {
        Fastchess {
            engine: Engine::start(&[]),
            output: Vec::new(),
            id_name: None,
            id_author: None,
        }
    }

    /// `UciEngine::writeEngine`.
    fn write(&mut self, line: &str) -> bool {
        self.engine.send(line);
        true
    }

    /// `Process::readOutput`: the lines up to the first starting with `word`, or `None`
    /// (fastchess's `TIMEOUT`) when none comes within `threshold`.
    fn read_output(&mut self, word: &str, threshold: Duration) -> Option<Vec<String>> {
        let deadline = Instant::now() + threshold;
        let mut lines = Vec::new();
        loop {
            let line = self
                .engine
                .read_line(deadline.saturating_duration_since(Instant::now()))?;
            let done = line.starts_with(word);
            lines.push(line);
            if done {
                return Some(lines);
            }
        }
    }

    /// `UciEngine::readEngine`: the output is replaced by what this read returns.
    fn read_engine(&mut self, word: &str, threshold: Duration) -> bool {
        self.output.clear();
        match self.read_output(word, threshold) {
            Some(lines) => {
                self.output = lines;
                true
            }
            None => false,
        }
    }

    /// `UciEngine::start`: `uci`, then `uciok` within the startup time; the `id` lines.
    fn start(&mut self) -> bool {
        let ok = self.write("uci") && self.read_engine("uciok", STARTUP);
        for line in &self.output {
            if let Some(name) = line.strip_prefix("id name ") {
                self.id_name = Some(name.to_string());
            } else if let Some(author) = line.strip_prefix("id author ") {
                self.id_author = Some(author.to_string());
            }
        }
        ok
    }

    /// `UciEngine::isready`: its lines go to a buffer of their own, not to the output.
    fn isready(&mut self) -> bool {
        self.write("isready") && self.read_output("readyok", PING).is_some()
    }

    /// `UciEngine::ucinewgame`.
    fn ucinewgame(&mut self) -> bool {
        self.write("ucinewgame") && self.isready()
    }

    /// `UciEngine::lastInfoLine`.
    fn last_info_line(&self) -> String {
        let mut fallback = None;
        for line in self.output.iter().rev() {
            if line.contains("info string") {
                continue;
            }
            let multipv_ok = !line.contains(" multipv ") || line.contains(" multipv 1");
            if !line.contains("info") || !line.contains(" score ") || !multipv_ok {
                continue;
            }
            if !line.contains(" lowerbound") && !line.contains(" upperbound") {
                return line.clone();
            }
            fallback.get_or_insert_with(|| line.clone());
        }
        fallback.unwrap_or_default()
    }

    /// `UciEngine::bestmove`.
    fn bestmove(&self) -> Option<String> {
        let last = self.output.last()?;
        if !last.starts_with("bestmove") {
            return None;
        }
        let tokens: Vec<&str> = last.split(' ').collect();
        let at = tokens.iter().position(|&t| t == "bestmove")?;
        tokens.get(at + 1).map(|t| t.to_string())
    }

    /// `readEngine("bestmove")` with fastchess's threshold.
    fn read_bestmove(&mut self) -> bool {
        self.read_engine("bestmove", PING)
    }

    /// The last info line is there (`!lastInfoLine().empty()`).
    fn has_info_line(&self) -> bool {
        !self.last_info_line().is_empty()
    }

    /// `str_utils::contains(lastInfoLine(), "score")`.
    fn info_line_has_score(&self) -> bool {
        self.last_info_line().contains("score")
    }

    /// `isValidInfoLine(lastInfoLine())`.
    fn info_line_is_valid(&self) -> bool {
        is_valid_info_line(&self.last_info_line())
    }
}

/// fastchess's `isValidInfoLine`.
fn is_valid_info_line(line: &str) -> bool {
    let mut tokens = line.split_whitespace();
    if tokens.next() != Some("info") {
        return false;
    }
    while let Some(token) = tokens.next() {
        if matches!(token, "time" | "nps" | "score") {
            match tokens.next() {
                Some(value) if !value.contains('.') => {}
                _ => return false,
            }
        }
    }
    true
}

/// One step: fastchess's description and its check.
type Step = (&'static str, fn(&mut Fastchess) -> bool);

/// Runs the steps in order; the first that fails fails the test, named as fastchess
/// names it, with everything the engine wrote.
fn run(steps: &[Step]) {
    let mut fastchess = Fastchess::new();
    for (number, (description, check)) in steps.iter().enumerate() {
        assert!(
            check(&mut fastchess),
            "fastchess --compliance: Failed Step {}: {description}\ntranscript:\n{}",
            number + 1,
            fastchess.engine.transcript.join("\n")
        );
    }
}

const FEN_STEP_8: &str =
    "position fen 3r2k1/p5n1/1pq1p2p/2p3p1/2P1P1n1/1P1P2pP/PN1Q2K1/5R2 w - - 0 27";
const BLACK_TO_MOVE: &str =
    "position fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

#[test]
fn fastchess_compliance_steps_pass() {
    run(&[
        ("Start the engine", |f| f.start()),
        ("Check if engine is ready", |f| f.isready()),
        ("Check id name", |f| f.id_name.is_some()),
        ("Check id author", |f| f.id_author.is_some()),
        ("Send ucinewgame", |f| f.ucinewgame()),
        ("Set position to startpos", |f| f.write("position startpos")),
        ("Check if engine is ready after startpos", |f| f.isready()),
        ("Set position to fen", |f| f.write(FEN_STEP_8)),
        ("Check if engine is ready after fen", |f| f.isready()),
        ("Send go wtime 100", |f| f.write("go wtime 100")),
        ("Read bestmove", |f| f.read_bestmove()),
        ("Check if engine prints an info line", |f| f.has_info_line()),
        ("Verify info line format is valid", |f| {
            f.info_line_is_valid()
        }),
        ("Verify info line contains score", |f| {
            f.info_line_has_score()
        }),
        ("Set position to black to move", |f| f.write(BLACK_TO_MOVE)),
        ("Send go btime 100", |f| f.write("go btime 100")),
        ("Read bestmove after go btime 100", |f| f.read_bestmove()),
        (
            "Check if engine prints an info line after go btime 100",
            |f| f.has_info_line(),
        ),
        ("Verify info line format is valid after go btime 100", |f| {
            f.info_line_is_valid()
        }),
        (
            "Check if engine prints an info line with the score after go btime 100",
            |f| f.info_line_has_score(),
        ),
        ("Send go wtime 100 winc 100 btime 100 binc 100", |f| {
            f.write("go wtime 100 winc 100 btime 100 binc 100")
        }),
        (
            "Read bestmove after go wtime 100 winc 100 btime 100 binc 100",
            |f| f.read_bestmove(),
        ),
        (
            "Check if engine prints an info line after go wtime 100 winc 100",
            |f| f.has_info_line(),
        ),
        (
            "Verify info line format is valid after go wtime 100 winc 100",
            |f| f.info_line_is_valid(),
        ),
        (
            "Check if engine prints an info line with the score after go wtime 100 winc 100",
            |f| f.info_line_has_score(),
        ),
        ("Send go btime 100 binc 100 wtime 100 winc 100", |f| {
            f.write("go btime 100 binc 100 wtime 100 winc 100")
        }),
        (
            "Read bestmove after go btime 100 binc 100 wtime 100 winc 100",
            |f| f.read_bestmove(),
        ),
        (
            "Check if engine prints an info line after go btime 100 binc 100",
            |f| f.has_info_line(),
        ),
        (
            "Verify info line format is valid after go btime 100 binc 100",
            |f| f.info_line_is_valid(),
        ),
        (
            "Check if engine prints an info line with the score after go btime 100 binc 100",
            |f| f.info_line_has_score(),
        ),
        // (fastchess repeats the score check under this description.)
        (
            "Check if engine prints an info line after go btime 100 binc 100",
            |f| f.info_line_has_score(),
        ),
        // "Simulate a game".
        ("Send ucinewgame", |f| f.ucinewgame()),
        ("Set position to startpos", |f| f.write("position startpos")),
        // (fastchess's description; it sends `go wtime 100 btime 100`.)
        ("Send go wtime 100", |f| f.write("go wtime 100 btime 100")),
        ("Read bestmove after go wtime 100 btime 100", |f| {
            f.read_bestmove() && f.bestmove().is_some()
        }),
        (
            "Verify info line format is valid after go wtime 100 btime 100",
            |f| f.info_line_is_valid(),
        ),
        ("Set position to startpos moves e2e4 e7e5", |f| {
            f.write("position startpos moves e2e4 e7e5")
        }),
        ("Send go wtime 100 btime 100", |f| {
            f.write("go wtime 100 btime 100")
        }),
        (
            "Read bestmove after position startpos moves e2e4 e7e5",
            |f| f.read_bestmove() && f.bestmove().is_some(),
        ),
        (
            "Verify info line format is valid after position startpos moves e2e4 e7e5",
            |f| f.info_line_is_valid(),
        ),
    ]);
}

/// Older fastchess (before its "Set position to black to move" step) sends `go btime 100`
/// in the White-to-move position of step 8, then waits up to 60 s for `bestmove` and an
/// info line with a score. cutoff reads the missing White clock as empty and plays at once
/// (it used to search without a time limit); 5 s here is far more than it needs.
#[test]
fn older_fastchess_go_btime_with_white_to_move_gets_a_bestmove() {
    run(&[
        ("Start the engine", |f| f.start()),
        ("Send ucinewgame", |f| f.ucinewgame()),
        ("Set position to fen", |f| f.write(FEN_STEP_8)),
        ("Check if engine is ready after fen", |f| f.isready()),
        ("Send go btime 100", |f| f.write("go btime 100")),
        ("Read bestmove after go btime 100", |f| {
            f.read_engine("bestmove", Duration::from_secs(5)) && f.bestmove().is_some()
        }),
        (
            "Check if engine prints an info line with the score after go btime 100",
            |f| f.info_line_has_score() && f.info_line_is_valid(),
        ),
    ]);
}

#[test]
fn info_line_check_matches_fastchess() {
    assert!(is_valid_info_line(
        "info depth 1 score cp 13 nodes 20 nps 1000 time 2 pv e2e4"
    ));
    assert!(!is_valid_info_line("info depth 1 time 2.5"));
    assert!(!is_valid_info_line("info depth 1 nps"));
    assert!(!is_valid_info_line("bestmove e2e4"));
}
