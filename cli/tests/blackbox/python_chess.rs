//! python-chess, a strict UCI client, plays complete games against the real binary through
//! `scripts/python_chess_selfplay.py`: no protocol warning, no illegal move, no time loss.
//! 4 games at 1 s + 0.01 s in the test run, and the script's default 50 with `--ignored`,
//! with `Move Overhead` 25 ms: at its default 10 ms the engine plays a long game's clock down to
//! about 0.13 s (235 plies; 20 games measured), so one stall of a loaded machine lost a
//! game on time by 2 ms in CI; with 25 ms the clock stayed above 0.9 s (10 games).
//! Skipped, with a message, where python-chess is not installed (`.ci/run` installs it).

use crate::common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Longest the games may take (50 need two to three minutes).
const DEADLINE: Duration = Duration::from_secs(600);

fn python_chess_available() -> bool {
    Command::new("python3")
        .args(["-c", "import chess.engine"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

#[test]
fn python_chess_plays_complete_games_without_warnings() {
    play_games(4);
}

#[test]
#[ignore = "real clock: 50 games take two to three minutes; run with --ignored"]
fn python_chess_plays_fifty_games_without_warnings() {
    play_games(50);
}

/// Plays `games` games through the script and checks its verdict.
fn play_games(games: usize) {
    if !python_chess_available() {
        eprintln!("skipped: python-chess is not installed (pip install chess)");
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/python_chess_selfplay.py"
    );
    let mut child = Command::new("python3")
        .args([
            script,
            env!("CARGO_BIN_EXE_cutoff"),
            "--games",
            &games.to_string(),
        ])
        .args(["--move-overhead", "25"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let status = common::wait_or_kill(&mut child, DEADLINE);
    let mut output = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut output);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut output);
    }
    let status = status.unwrap_or_else(|| panic!("no result within {DEADLINE:?}:\n{output}"));
    assert!(status.success(), "the script failed:\n{output}");
    assert!(
        output.contains("protocol warnings/errors logged by python-chess: 0"),
        "{output}"
    );
    println!("{output}");
}
