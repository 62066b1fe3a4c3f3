//! Ataxx over the protocol: the real binary driven over UAI and UGI, with timeouts.

use crate::common;

use std::time::{Duration, Instant};

use common::{bestmove_of, Engine, TIMEOUT};
use cutoff::games::ataxx::Ataxx;
use cutoff::search::{GameResult, Rules};

const START: &str = "x5o/7/7/7/7/7/o5x x 0 1";

/// Sends `line`, which must be refused with one `info string error` naming `needle`, and
/// checks that the position is still `fen`.
fn refused(engine: &mut Engine, line: &str, needle: &str, fen: &str) {
    engine.send(line);
    let error = engine.expect("info string error: ");
    assert!(error.contains(needle), "{line}: {error}");
    assert!(error.contains("unchanged"), "{line}: {error}");
    assert_eq!(engine.fen(), fen, "{line} changed the position");
}

/// `response X` to `query what`.
/// `go` in a finished game: one `info depth 0` line with `score`, then `bestmove (none)`.
fn game_over_search(engine: &mut Engine, score: &str) {
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", TIMEOUT);
    assert!(lines[0].contains(score), "{score}: {lines:?}");
    assert_eq!(bestmove_of(lines.last().unwrap()), None);
}

fn query(engine: &mut Engine, what: &str) -> String {
    engine.send(&format!("query {what}"));
    engine
        .expect("response ")
        .trim_start_matches("response ")
        .to_string()
}

#[test]
fn uai_handshake_selects_ataxx_and_plays_one_move() {
    // Started without --game (chess): an Ataxx GUI's `uai` makes it an Ataxx engine.
    let mut engine = Engine::start(&[]);
    engine.send("uai");
    let lines = engine.read_until("uaiok", TIMEOUT);
    assert!(lines[0].starts_with("id name cutoff"), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Game type combo default ataxx ")),
        "{lines:?}"
    );
    assert_eq!(lines.last().map(String::as_str), Some("uaiok"));
    engine.sync();
    engine.send("uainewgame");
    engine.send("position startpos");
    assert_eq!(engine.fen(), START);
    engine.send("position startpos moves f2 a1c3 g1g3");
    assert_eq!(engine.fen(), "x5o/7/7/7/2o3x/5x1/7 o 2 2");
    engine.send("go depth 3");
    let line = engine.expect("bestmove");
    assert_eq!(
        line.split_whitespace().count(),
        2,
        "one move, no ponder: {line}"
    );
    let best = bestmove_of(&line).expect("a move");
    let position = Ataxx::from_fen(&Default::default(), "x5o/7/7/7/2o3x/5x1/7 o 2 2").unwrap();
    assert!(position.parse_move(&best).is_ok(), "{best} is legal");
    // A second `uai` keeps the game and its position.
    engine.send("uai");
    engine.read_until("uaiok", TIMEOUT);
    assert_eq!(engine.fen(), "x5o/7/7/7/2o3x/5x1/7 o 2 2");
}

#[test]
fn uai_clocks_are_black_first() {
    // With its own clock nearly empty the side to move answers at once; were the colours
    // read as UCI's, it would think on the opponent's ten minutes.
    let mut engine = Engine::start(&[]);
    engine.send("uai");
    engine.read_until("uaiok", TIMEOUT);
    for (position, go) in [
        (
            "position startpos",
            "go btime 60 wtime 600000 binc 0 winc 0",
        ),
        (
            "position startpos moves f2",
            "go btime 600000 wtime 60 binc 0 winc 0",
        ),
    ] {
        engine.send(position);
        engine.sync();
        let sent = Instant::now();
        engine.send(go);
        let best = bestmove_of(&engine.expect("bestmove"));
        assert!(best.is_some(), "{position}");
        assert!(
            sent.elapsed() < Duration::from_secs(3),
            "{position} / {go}: took {:?}",
            sent.elapsed()
        );
    }
    engine.send("position startpos");
    engine.send("go movetime 100");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
    engine.send("go nodes 500");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    engine.send("stop");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
    engine.send("quit");
    assert!(engine.wait_exit(TIMEOUT).is_some());
}

#[test]
fn positions_with_fens_moves_and_passes() {
    let mut engine = Engine::game("ataxx");
    engine.send("ugi");
    engine.read_until("ugiok", TIMEOUT);
    // Gaps are kept, clocks are read and written.
    engine.send("position fen x5o/7/2-1-2/7/2-1-2/7/o5x o 7 12 moves b1 b6");
    assert_eq!(engine.fen(), "x5o/1x5/2-1-2/7/2-1-2/7/oo4x o 0 13");
    // x is walled in by o (libataxx's perft position): it must pass, and the search says so.
    let walled = "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1";
    engine.send(&format!("position fen {walled}"));
    assert_eq!(query(&mut engine, "gameover"), "false");
    engine.send("perft 2");
    assert_eq!(engine.expect("Nodes searched: "), "Nodes searched: 75");
    engine.send("go depth 2");
    assert_eq!(
        bestmove_of(&engine.expect("bestmove")).as_deref(),
        Some("0000")
    );
    engine.send(&format!("position fen {walled} moves 0000 d4"));
    assert_eq!(engine.fen(), "7/7/7/3o3/ooooooo/ooooooo/xxxxxxx x 0 2");
    assert_eq!(query(&mut engine, "p1turn"), "true");
    engine.send("go depth 2");
    assert_eq!(
        bestmove_of(&engine.expect("bestmove")).as_deref(),
        Some("0000")
    );
}

#[test]
fn games_end_by_count_and_by_clock() {
    let mut engine = Engine::game("ataxx");
    engine.send("ugi");
    engine.read_until("ugiok", TIMEOUT);
    // A corridor on rank 1 (ranks 2 and 3 are gaps): x fills it and takes e1 last.
    let corridor = "7/7/7/7/-------/-------/x5o x 0 1";
    let line = ["b1", "f1", "c1", "e1", "d1"];
    for played in 0..line.len() {
        engine.send(&format!(
            "position fen {corridor} moves {}",
            line[..played].join(" ")
        ));
        assert_eq!(query(&mut engine, "gameover"), "false", "after {played}");
        assert_eq!(query(&mut engine, "result"), "none");
        let p1 = if played % 2 == 0 { "true" } else { "false" };
        assert_eq!(query(&mut engine, "p1turn"), p1);
    }
    engine.send(&format!("position fen {corridor} moves {}", line.join(" ")));
    assert_eq!(engine.fen(), "7/7/7/7/-------/-------/xxxxxoo o 0 3");
    assert_eq!(query(&mut engine, "gameover"), "true");
    assert_eq!(query(&mut engine, "result"), "p1win");
    // o has lost.
    game_over_search(&mut engine, "score mate 0");
    // x to move has already won (o has no stone): not `mate 0`, which is a loss.
    engine.send("position fen 7/7/7/7/7/7/6x x 0 1");
    assert_eq!(query(&mut engine, "result"), "p1win");
    game_over_search(&mut engine, "score cp 32000");
    // o takes the last stone of x.
    engine.send("position fen 7/7/7/7/7/1o5/x6 o 0 9 moves b1");
    assert_eq!(query(&mut engine, "result"), "p2win");
    // The hundredth half-move without a single is a draw, whatever the count.
    engine.send("position fen x5o/7/7/7/7/7/o5x x 99 60 moves a7c7");
    assert_eq!(engine.fen(), "2x3o/7/7/7/7/7/o5x o 100 60");
    assert_eq!(query(&mut engine, "gameover"), "true");
    assert_eq!(query(&mut engine, "result"), "draw");
}

#[test]
fn a_whole_game_over_ugi_ends_with_the_right_result() {
    // The engine plays both sides at depth 1 until it says the game is over; the result it
    // reports must be the rules' (checked by the library on the final FEN).
    let mut engine = Engine::game("ataxx");
    engine.send("ugi");
    engine.read_until("ugiok", TIMEOUT);
    engine.send("uginewgame");
    let mut moves: Vec<String> = Vec::new();
    let mut position = Ataxx::start(&Default::default());
    loop {
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        if query(&mut engine, "gameover") == "true" {
            break;
        }
        assert!(moves.len() < 1000, "the game does not end");
        engine.send("go depth 1");
        let best = bestmove_of(&engine.expect("bestmove")).expect("a move while not over");
        let mv = position.parse_move(&best).expect("a legal move");
        position.make_move(mv);
        moves.push(best);
    }
    assert_eq!(engine.fen(), position.to_fen());
    let end = position.game_end().expect("over by the rules");
    let expected = match end.result {
        GameResult::FirstWins => "p1win",
        GameResult::SecondWins => "p2win",
        GameResult::Draw => "draw",
    };
    assert_eq!(query(&mut engine, "result"), expected);
}

#[test]
fn bad_input_is_refused_and_the_position_stays() {
    let mut engine = Engine::start(&[]);
    engine.send("uai");
    engine.read_until("uaiok", TIMEOUT);
    engine.send("position startpos moves f2");
    let fen = "x5o/7/7/7/7/5x1/o5x o 0 1";
    assert_eq!(engine.fen(), fen);
    for (line, needle) in [
        ("position fen x5o/7/7/7/7/7/o5x y 0 1", "side to move"),
        ("position fen x5o/7/7/7/7/o5x x 0 1", "7 ranks"),
        ("position fen x5o/7/7/7/7/7/o5x x 0 0", "full-move"),
        ("position fen 7/7/7/7/7/7/7 x 0 1", "no stones"),
        ("position fen x5o/7/7/7/7/7/o5x", "field"),
        // o's stone is not x's to move, nor x's stone o's.
        ("position startpos moves a1c3", "illegal move 'a1c3'"),
        (
            "position startpos moves f2 g1e3",
            "illegal move 'g1e3' (move 2",
        ),
        // c3 is a jump away from every stone: a jump written as a single.
        ("position startpos moves c3", "illegal move 'c3'"),
        // A single written from-to, and no move at all.
        ("position startpos moves g1f2", "invalid move 'g1f2'"),
        ("position startpos moves g1g5", "invalid move 'g1g5'"),
        ("position startpos moves h1", "invalid move 'h1'"),
        // Passing while a move exists.
        ("position startpos moves 0000", "illegal move '0000'"),
        (
            "position fen x5o/7/7/7/7/7/o5x x 100 1 moves f2",
            "after the game has ended",
        ),
    ] {
        refused(&mut engine, line, needle, fen);
    }
    engine.send("go searchmoves c3");
    assert!(engine
        .expect("info string error: ")
        .contains("illegal move 'c3'"));
    engine.send("go btime -5");
    assert!(engine.expect("info string error: ").contains("btime"));
    assert_eq!(engine.fen(), fen);
    // Still answering.
    engine.send("go depth 2");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
}
