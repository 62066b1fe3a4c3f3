//! `cutoff play` driven through a pipe: the person's moves and commands go in on stdin,
//! boards, messages and the result come out on stdout. Every run has a hard timeout.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const CUTOFF: &str = env!("CARGO_BIN_EXE_cutoff");

/// Runs `cutoff play ARGS` with `input` on stdin (then EOF); returns exit code and stdout.
fn play(args: &[&str], input: &str) -> (i32, String) {
    let mut child = Command::new(CUTOFF)
        .arg("play")
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cutoff starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    // The game may end before all input is read: a broken pipe is fine.
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut stdout = child.stdout.take().unwrap();
    let reader = thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("cutoff play {args:?} did not finish in time");
        }
        thread::sleep(Duration::from_millis(20));
    };
    writer.join().unwrap();
    (status.code().unwrap_or(-1), reader.join().unwrap())
}

const EMPTY_TICTACTOE: &str = "Position:\n3 . . .\n2 . . .\n1 . . .\n  a b c\n";

#[test]
fn tictactoe_with_errors_undo_and_hint_ends_in_a_draw_or_engine_win() {
    // b2, a malformed move, an illegal move (b2 is taken), a hint, undo (back to the
    // empty board), then every cell in turn: taken cells are refused, so the game must
    // run to its end whatever the engine plays.
    let input = "b2\nzz\nb2\nhint\nundo\nmoves\na1 \nhint\na1\na2\na3\nb1\nb2\nb3\nc1\nc2\nc3\n";
    let (code, out) = play(&["--game", "tictactoe", "--depth", "9"], input);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("x plays b2\n3 . . .\n2 . x .\n1 . . .\n  a b c"),
        "{out}"
    );
    assert!(out.contains("invalid move 'zz'"), "{out}");
    assert!(out.contains("illegal move 'b2'"), "{out}");
    assert_eq!(out.matches("hint: ").count(), 2, "{out}");
    assert_eq!(
        out.matches(EMPTY_TICTACTOE).count(),
        2,
        "undo shows the empty board: {out}"
    );
    assert!(out.contains("legal moves: "), "{out}");
    assert!(out.contains("x plays a1"), "{out}");
    let result = out.lines().last().unwrap();
    assert!(
        result.starts_with("Result: draw") || result.starts_with("Result: o wins (cutoff)"),
        "{out}"
    );
}

#[test]
fn human_second_waits_for_the_engine_and_quits() {
    let (code, out) = play(
        &["--game", "tictactoe", "--depth", "2", "--human", "second"],
        "undo\nquit\n",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("x plays "), "the engine opens: {out}");
    assert!(out.contains("Your move (o): nothing to undo"), "{out}");
    assert_eq!(
        out.lines().last().unwrap(),
        "Game over without a result: you quit"
    );
}

#[test]
fn connect4_ends_cleanly_at_end_of_input() {
    let (code, out) = play(&["--game", "connect4", "--movetime", "50"], "4\n4\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 2 3 4 5 6 7"), "{out}");
    assert_eq!(out.matches("x plays 4").count(), 2, "{out}");
    assert!(out.matches("o plays ").count() >= 2, "{out}");
    assert_eq!(
        out.lines().last().unwrap(),
        "Game over without a result: you ended the game (end of input)"
    );
}

#[test]
fn uai_is_refused_for_a_game_other_than_ataxx() {
    let (code, out) = play(
        &["--game", "tictactoe", "--proto", "uai", "--depth", "1"],
        "b2\n",
    );
    assert_eq!(code, 2, "{out}");
    assert!(!out.contains("plays"), "{out}");
}
