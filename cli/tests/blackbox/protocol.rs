//! Protocol tests: drive the real binary line by line, with timeouts.

use crate::common;

use std::time::{Duration, Instant};

use common::{bestmove_of, info_field, info_score, Engine, TIMEOUT};
use cutoff::games::connect4::Connect4;
use cutoff::rng::SplitMix;
use cutoff::search::{MoveList, Rules};

const SHORT: Duration = Duration::from_millis(300);

#[test]
fn uci_handshake_lists_options_and_ends_with_uciok() {
    let mut engine = Engine::game("connect4");
    engine.send("uci");
    let lines = engine.read_until("uciok", TIMEOUT);
    assert!(lines[0].starts_with("id name cutoff"), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for option in ["Hash", "Clear Hash", "Move Overhead", "Game"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {option} type"))),
            "option {option} missing: {lines:?}"
        );
    }
    assert!(lines
        .iter()
        .any(|l| l.contains("option name Game type combo default connect4")));
    engine.sync();
}

#[test]
fn ugi_handshake_ends_with_ugiok_for_every_game() {
    for game in ["connect4", "tictactoe", "tictactoe4", "gomoku", "ataxx"] {
        let mut engine = Engine::game(game);
        engine.send("ugi");
        let lines = engine.read_until("ugiok", TIMEOUT);
        assert!(lines.iter().any(|l| l.starts_with("id name cutoff")));
        engine.send("uginewgame");
        engine.send("position startpos");
        engine.send("query p1turn");
        assert_eq!(engine.expect("response"), "response true");
        engine.send("go depth 2");
        let best = bestmove_of(&engine.expect("bestmove"));
        assert!(best.is_some(), "{game}: a move from the start position");
        assert!(
            !engine.transcript.last().unwrap().contains("ponder"),
            "UGI bestmove has one move"
        );
    }
}

#[test]
fn variant_options_are_offered_only_for_their_game() {
    // Connect Four has no Chess960: not listed, and refused.
    let mut engine = Engine::game("connect4");
    engine.send("ugi");
    let lines = engine.read_until("ugiok", TIMEOUT);
    assert!(!lines.iter().any(|l| l.contains("Chess960")), "{lines:?}");
    engine.send("setoption name UCI_Chess960 value true");
    assert!(engine
        .expect("info string error")
        .contains("not available for connect4"));
    // Switched to chess, the handshake lists it and it works; back to Connect Four, the
    // game still plays.
    engine.send("setoption name Game value chess");
    engine.send("uci");
    let lines = engine.read_until("uciok", TIMEOUT);
    assert!(lines.contains(&"option name UCI_Chess960 type check default false".to_string()));
    engine.send("setoption name UCI_Chess960 value true");
    engine.send("position startpos moves e2e4");
    assert!(
        engine.fen().contains(" HAha "),
        "Shredder castling fields in Chess960"
    );
    engine.send("setoption name Game value connect4");
    engine.send("position startpos moves 4");
    assert!(
        engine.fen().starts_with("7/7/7/7/7/3"),
        "a Connect Four FEN"
    );
    // Gomoku's board size, over UGI.
    engine.send("setoption name Game value gomoku");
    engine.send("ugi");
    let lines = engine.read_until("ugiok", TIMEOUT);
    assert!(lines
        .iter()
        .any(|l| l.starts_with("option name BoardSize type spin default 15")));
    assert!(!lines.iter().any(|l| l.contains("Chess960")), "{lines:?}");
    engine.send("setoption name BoardSize value 9");
    engine.send("position startpos moves e5");
    assert_eq!(engine.fen(), "9/9/9/9/4x4/9/9/9/9 o");
    engine.send("setoption name BoardSize value 23");
    assert!(engine.expect("info string error").contains("BoardSize"));
    engine.send("go depth 2");
    let best = bestmove_of(&engine.expect("bestmove")).unwrap();
    assert!(
        best.len() == 2 && best.as_bytes()[0] <= b'i',
        "{best} on 9x9"
    );
}

#[test]
fn game_option_switches_games() {
    let mut engine = Engine::game("connect4");
    engine.send("setoption name Game value tictactoe");
    engine.send("position startpos moves b2");
    assert_eq!(engine.fen(), "3/1x1/3 o");
    engine.send("setoption name Game value gomoku");
    engine.send("position startpos moves h8");
    assert!(engine.fen().ends_with(" o"));
    engine.send("setoption name Game value nonsense");
    assert!(engine.expect("info string error").contains("nonsense"));
}

#[test]
fn isready_is_answered_during_a_long_search_and_stop_gives_one_bestmove() {
    let mut engine = Engine::game("gomoku");
    engine.send("position startpos moves h8 h9");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    let before = engine.sync();
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "readyok took {:?}",
        asked.elapsed()
    );
    assert!(
        before.iter().all(|l| !l.starts_with("bestmove")),
        "infinite search ended by itself"
    );
    engine.send("stop");
    let lines = engine.read_until("bestmove", TIMEOUT);
    assert!(bestmove_of(lines.last().unwrap()).is_some());
    let rest = engine.drain(SHORT);
    assert!(
        rest.iter().all(|l| !l.starts_with("bestmove")),
        "a second bestmove: {rest:?}"
    );
}

#[test]
fn stop_latency_is_small() {
    let mut engine = Engine::game("connect4");
    let mut latencies = Vec::new();
    for _ in 0..10 {
        engine.send("position startpos moves 4 4");
        engine.send("go infinite");
        std::thread::sleep(Duration::from_millis(30));
        let sent = Instant::now();
        engine.send("stop");
        engine.read_until("bestmove", TIMEOUT);
        latencies.push(sent.elapsed());
    }
    latencies.sort();
    eprintln!(
        "stop -> bestmove latency: median {:?}, worst {:?}",
        latencies[5], latencies[9]
    );
    // A generous bound: the point is that stop is answered, not a speed test.
    assert!(latencies[9] < Duration::from_secs(2));
}

#[test]
fn quit_during_a_search_exits_cleanly() {
    let mut engine = Engine::game("gomoku");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    engine.send("quit");
    let status = engine
        .wait_exit(TIMEOUT)
        .expect("the engine exits after quit");
    assert!(status.success());
}

#[test]
fn end_of_input_means_quit() {
    let mut engine = Engine::game("connect4");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(50));
    engine.close_stdin();
    let status = engine.wait_exit(TIMEOUT).expect("the engine exits at EOF");
    assert!(status.success());
}

#[test]
fn a_second_go_while_searching_is_refused() {
    let mut engine = Engine::game("connect4");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(50));
    engine.send("go depth 3");
    assert!(engine.expect("info string error").contains("already"));
    engine.send("stop");
    engine.expect("bestmove");
    let rest = engine.drain(SHORT);
    assert!(rest.iter().all(|l| !l.starts_with("bestmove")), "{rest:?}");
}

#[test]
fn uai_during_a_search_is_refused_and_the_dialect_kept() {
    let mut engine = Engine::game("chess");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(50));
    engine.send("uai");
    assert!(engine
        .expect("info string error")
        .contains("not allowed during a search"));
    engine.send("stop");
    engine.expect("bestmove");
    // Still UCI: `wtime` is White's clock, and White is to move. Read as UAI it would be
    // Black's, and the search would plan on White's 100 minutes, far past the timeout.
    engine.send("go wtime 300 btime 6000000");
    let lines = engine.read_until("bestmove", TIMEOUT);
    assert!(lines.iter().all(|l| !l.contains("error")), "{lines:?}");
    engine.send("position startpos moves e2e4");
    assert!(engine
        .fen()
        .starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b"));
}

#[test]
fn d_draws_the_board_then_one_fen_and_one_key_in_every_game() {
    for game in cutoff::games::all().map(|kind| kind.name()) {
        let mut engine = Engine::game(game);
        engine.send("d");
        engine.send("isready");
        let lines = engine.read_until("readyok", TIMEOUT);
        let count = |prefix: &str| lines.iter().filter(|l| l.starts_with(prefix)).count();
        assert_eq!(
            (count("Fen: "), count("Key: ")),
            (1, 1),
            "{game}: {lines:?}"
        );
        assert!(lines.len() > 3, "{game}: no board drawn: {lines:?}");
    }
}

#[test]
fn go_right_after_bestmove_is_accepted() {
    let mut engine = Engine::game("connect4");
    for _ in 0..20 {
        engine.send("position startpos moves 4");
        engine.send("go depth 1");
        engine.expect("bestmove");
        engine.send("go depth 1");
        let lines = engine.read_until("bestmove", TIMEOUT);
        assert!(lines.iter().all(|l| !l.contains("error")), "{lines:?}");
    }
}

#[test]
fn bad_input_gets_an_error_and_keeps_the_position() {
    let mut engine = Engine::game("connect4");
    engine.send("position startpos moves 4 4 3");
    let good = "7/7/7/7/3o3/2xx3 o";
    assert_eq!(engine.fen(), good);
    let bad_lines = [
        "position fen 7/7/7/7/7 x",                // too few rows
        "position fen 7/7/7/7/7/7",                // no side to move
        "position fen 7/7/7/7/3x3/7 o",            // floating stone
        "position fen 7/7/7/7/7/xx5 x",            // counts do not fit x to move
        "position fen 8/7/7/7/7/7 x",              // row too long
        "position fen 7/7/7/7/7/7 x moves 8",      // no such column
        "position startpos moves 4 4 4 4 4 4 4",   // column full
        "position startpos moves 1 2 1 2 1 2 1 3", // move after the game ended
        "position fen",
        "position",
        "position startpos moves",
        "go depth -3",
        "go depth three",
        "go wtime 100 btime",
        "go movetime 1e3",
        "go nodes 123456789012345678901234567890",
        "go searchmoves 9",
        "go sideways",
        "setoption name Hash value 0",
        "setoption name Hash value lots",
        "setoption name Hash value 70000",
        "setoption name NoSuchOption value 1",
        "setoption name Move Overhead value -5",
        "setoption",
        "flibbertigibbet",
        "debug maybe",
        "query everything",
        "perft x",
        "isready please",
    ];
    for line in bad_lines {
        engine.send(line);
        let lines = engine.sync();
        let errors: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with("info string error: "))
            .collect();
        // "position startpos moves" with no moves is fine; everything else is an error.
        if line != "position startpos moves" {
            assert_eq!(
                errors.len(),
                1,
                "'{line}' should give one error line, got {lines:?}"
            );
        } else {
            engine.send("position startpos moves 4 4 3");
        }
        assert!(
            lines.iter().all(|l| !l.starts_with("bestmove")),
            "{line}: {lines:?}"
        );
        assert_eq!(engine.fen(), good, "after '{line}' the position changed");
    }
    // Errors name the offending text.
    engine.send("flibbertigibbet");
    assert!(engine
        .expect("info string error")
        .contains("flibbertigibbet"));
    engine.send("position startpos moves 4 9");
    let error = engine.expect("info string error");
    assert!(
        error.contains('9') && error.contains("unchanged"),
        "{error}"
    );
    // Still searching fine afterwards.
    engine.send("go depth 3");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
}

#[test]
fn crlf_tabs_and_repeated_spaces_are_accepted() {
    let mut engine = Engine::game("connect4");
    engine.send_raw("isready\r\n");
    engine.expect("readyok");
    engine.send_raw("position\tstartpos   moves \t4  4\r\n");
    assert_eq!(engine.fen(), "7/7/7/7/3o3/3x3 x");
    engine.send_raw("  go   depth\t2  \r\n");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
}

#[test]
fn huge_position_lines_are_handled() {
    let mut engine = Engine::game("tictactoe");
    let mut line = String::from("position startpos moves");
    for _ in 0..100_000 {
        line.push_str(" a1");
    }
    engine.send(&line);
    let error = engine.expect("info string error");
    assert!(error.contains("a1"), "{error}");
    assert_eq!(engine.fen(), "3/3/3 x");
    // A complete Connect Four game, replayed in one line, is over afterwards.
    engine.send("setoption name Game value connect4");
    let mut game = Connect4::start(&());
    let mut moves = Vec::new();
    let mut rng = SplitMix::new(12345);
    while game.outcome().is_none() {
        let mut legal = MoveList::new();
        game.generate_moves(&mut legal);
        let mv = legal[rng.below(legal.len())];
        moves.push(game.format_move(mv));
        game.make_move(mv);
    }
    engine.send(&format!("position startpos moves {}", moves.join(" ")));
    engine.send("query gameover");
    assert_eq!(engine.expect("response"), "response true");
    engine.sync();
}

/// A line over the reader's limit (1 MiB) is skipped with one error and never held; a long
/// unknown word is quoted shortened; the state is kept and the engine answers on.
#[test]
fn overlong_lines_and_words_get_short_errors() {
    let mut engine = Engine::game("tictactoe");
    engine.send("position startpos moves b2");
    engine.send(&format!(
        "position startpos moves {}",
        "a1 ".repeat(1_000_000)
    ));
    let error = engine.expect("info string error");
    assert!(error.contains("of 3000025 bytes ignored"), "{error}");
    engine.send(&"x".repeat(200_000));
    let error = engine.expect("info string error");
    assert!(
        error.len() < 200 && error.contains("...[200002 bytes]"),
        "{error}"
    );
    engine.sync();
    assert_eq!(engine.fen(), "3/1x1/3 o");
}

/// Chess over UGI: a position seen twice is not the end of the game, a third time is
/// (threefold repetition), and `query result` then says draw.
#[test]
fn query_gameover_waits_for_the_third_repetition() {
    let mut engine = Engine::game("chess");
    engine.send("ugi");
    engine.expect("ugiok");
    engine.send("position startpos moves g1f3 g8f6 f3g1 f6g8");
    engine.send("query gameover");
    assert_eq!(engine.expect("response"), "response false");
    engine.send("query result");
    assert_eq!(engine.expect("response"), "response none");
    engine.send("position startpos moves g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
    engine.send("query gameover");
    assert_eq!(engine.expect("response"), "response true");
    engine.send("query result");
    assert_eq!(engine.expect("response"), "response draw");
    engine.sync();
}

#[test]
fn a_finished_game_answers_bestmove_none_at_once() {
    let mut engine = Engine::game("connect4");
    // x wins with a vertical four in column 1.
    engine.send("position startpos moves 1 2 1 2 1 2 1");
    engine.send("go depth 5");
    let lines = engine.read_until("bestmove", TIMEOUT);
    assert_eq!(lines.last().unwrap(), "bestmove (none)");
    assert!(
        lines.iter().any(|l| l == "info depth 0 score mate 0"),
        "{lines:?}"
    );
    engine.send("setoption name Game value tictactoe");
    engine.send("position startpos moves a1 b2 c3 a3 c1 b1 b3 c2 a2");
    engine.send("go movetime 100");
    let lines = engine.read_until("bestmove", TIMEOUT);
    assert_eq!(lines.last().unwrap(), "bestmove (none)");
    assert!(
        lines.iter().any(|l| l == "info depth 0 score cp 0"),
        "{lines:?}"
    );
}

#[test]
fn info_lines_carry_every_field_and_the_pv_starts_with_bestmove() {
    let mut engine = Engine::game("connect4");
    engine.send("position startpos moves 4 4");
    engine.send("go depth 8");
    let lines = engine.read_until("bestmove", TIMEOUT);
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert_eq!(infos.len(), 8, "{lines:?}");
    for (i, info) in infos.iter().enumerate() {
        assert_eq!(
            info_field(info, "depth"),
            Some((i + 1).to_string().as_str())
        );
        for key in [
            "seldepth", "score", "nodes", "nps", "hashfull", "time", "pv",
        ] {
            assert!(info_field(info, key).is_some(), "{key} missing in {info}");
        }
    }
    let last_pv = info_field(infos[7], "pv").unwrap().to_string();
    assert_eq!(bestmove_of(lines.last().unwrap()), Some(last_pv));
}

#[test]
fn go_nodes_is_reproducible() {
    let run = || {
        let mut engine = Engine::game("connect4");
        engine.send("position startpos moves 4 3");
        engine.send("go nodes 20000");
        engine.read_until("bestmove", TIMEOUT)
    };
    let (a, b) = (run(), run());
    let strip = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                let tokens: Vec<&str> = l.split_whitespace().collect();
                let mut kept = Vec::new();
                let mut skip = false;
                for t in tokens {
                    if skip {
                        skip = false;
                        continue;
                    }
                    if t == "nps" || t == "time" {
                        skip = true;
                        continue;
                    }
                    kept.push(t);
                }
                kept.join(" ")
            })
            .collect()
    };
    assert_eq!(strip(&a), strip(&b));
}

#[test]
fn go_nodes_stops_at_the_limit_exactly() {
    let mut engine = Engine::game("gomoku");
    engine.send("position startpos moves h8");
    engine.send("go nodes 5000");
    let lines = engine.read_until("bestmove", TIMEOUT);
    for info in lines.iter().filter(|l| l.starts_with("info depth")) {
        let nodes: u64 = info_field(info, "nodes").unwrap().parse().unwrap();
        assert!(nodes <= 5000, "{info}");
    }
    assert!(bestmove_of(lines.last().unwrap()).is_some());
}

#[test]
fn clock_limits_are_respected() {
    let mut engine = Engine::game("gomoku");
    engine.send("position startpos moves h8");
    let sent = Instant::now();
    engine.send("go p1time 500 p2time 500 p1inc 0 p2inc 0");
    engine.expect("bestmove");
    let used = sent.elapsed();
    assert!(
        used < Duration::from_millis(500),
        "used {used:?} of a 500 ms clock"
    );
    let sent = Instant::now();
    engine.send("go movetime 200");
    engine.expect("bestmove");
    assert!(sent.elapsed() < Duration::from_millis(1500));
}

#[test]
fn query_answers_follow_a_whole_game() {
    let mut engine = Engine::game("connect4");
    engine.send("ugi");
    engine.expect("ugiok");
    engine.send("uginewgame");
    let mut moves: Vec<String> = Vec::new();
    let mut game = Connect4::start(&());
    loop {
        let position = format!("position startpos moves {}", moves.join(" "));
        engine.send(&position);
        engine.send("query gameover");
        let over = engine.expect("response") == "response true";
        engine.send(&position);
        engine.send("query p1turn");
        let p1 = engine.expect("response") == "response true";
        engine.send(&position);
        engine.send("query result");
        let result = engine.expect("response");
        assert_eq!(p1, moves.len() % 2 == 0);
        assert_eq!(over, game.outcome().is_some());
        if !over {
            assert_eq!(result, "response none");
            engine.send(&position);
            engine.send("go depth 4");
            let best = bestmove_of(&engine.expect("bestmove")).expect("a move while not over");
            let mv = game.parse_move(&best).expect("the engine's move is legal");
            game.make_move(mv);
            moves.push(best);
        } else {
            let expected = match (game.outcome(), moves.len() % 2) {
                (Some(cutoff::search::Outcome::Draw), _) => "response draw",
                (_, 1) => "response p1win",
                _ => "response p2win",
            };
            assert_eq!(result, expected);
            let mut left = MoveList::new();
            game.generate_moves(&mut left);
            assert!(left.is_empty());
            break;
        }
    }
    assert!(moves.len() >= 7);
}

#[test]
fn a_huge_hash_request_does_not_crash() {
    let mut engine = Engine::game("connect4");
    engine.send("setoption name Hash value 65536");
    let lines = engine.sync();
    // Either the memory is granted lazily or the request is refused with an error line.
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("info string error: cannot allocate")),
        "{lines:?}"
    );
    engine.send("setoption name Hash value 8");
    engine.send("go depth 6");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
}

/// Sends `go`/`stop` pairs with short varying delays and checks each gets exactly one
/// legal `bestmove`.
fn go_stop_stress(threads: u32, pairs: u32) {
    let mut engine = Engine::game("connect4");
    engine.send(&format!("setoption name Threads value {threads}"));
    engine.send("position startpos moves 4 4 3");
    engine.sync();
    let game = {
        let mut g = Connect4::start(&());
        for m in ["4", "4", "3"] {
            let mv = g.parse_move(m).unwrap();
            g.make_move(mv);
        }
        g
    };
    let mut rng = SplitMix::new(0x9E37_79B9_7F4A_7C15);
    for i in 0..pairs {
        let pause = rng.next_u64() % 3000;
        engine.send(if i % 3 == 0 {
            "go infinite"
        } else {
            "go wtime 50 btime 50"
        });
        std::thread::sleep(Duration::from_micros(pause));
        engine.send("stop");
        let lines = engine.read_until("bestmove", TIMEOUT);
        assert!(lines.iter().all(|l| !l.contains("error")), "{lines:?}");
        let best = bestmove_of(lines.last().unwrap()).expect("a move");
        assert!(game.parse_move(&best).is_ok(), "illegal bestmove {best}");
    }
    let rest = engine.sync();
    assert!(
        rest.iter().all(|l| !l.starts_with("bestmove")),
        "extra bestmove: {rest:?}"
    );
}

#[test]
fn go_stop_pairs_with_four_threads_never_hang_or_duplicate() {
    go_stop_stress(4, 300);
}

#[test]
#[ignore = "slow stress test: thousands of go/stop pairs"]
fn go_stop_stress_thousands() {
    go_stop_stress(4, 3000);
}

#[test]
fn threads_change_between_searches_and_quit_ends_every_thread() {
    let mut engine = Engine::game("gomoku");
    for threads in [2, 1, 3] {
        engine.send(&format!("setoption name Threads value {threads}"));
        engine.send("position startpos moves h8");
        engine.send("go depth 3");
        let lines = engine.read_until("bestmove", TIMEOUT);
        assert!(bestmove_of(lines.last().unwrap()).is_some(), "{lines:?}");
    }
    engine.send("setoption name Threads value 4");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    engine.send("quit");
    let status = engine
        .wait_exit(TIMEOUT)
        .expect("exits with helpers running");
    assert!(status.success());
}

#[test]
fn several_threads_keep_small_game_values_exact() {
    let mut engine = Engine::game("tictactoe");
    engine.send("setoption name Threads value 2");
    engine.send("go depth 9");
    let lines = engine.read_until("bestmove", TIMEOUT);
    let last_info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(last_info.contains("score cp 0"), "{last_info}");
}

#[test]
fn multipv_lines_are_complete_and_sorted_at_every_depth() {
    let mut engine = Engine::game("connect4");
    engine.send("setoption name MultiPV value 3");
    engine.send("position startpos moves 4 4 3");
    engine.send("go depth 7");
    let lines = engine.read_until("bestmove", TIMEOUT);
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert_eq!(infos.len(), 21, "{lines:?}");
    for depth in 1..=7 {
        let at_depth: Vec<&&String> = infos
            .iter()
            .filter(|l| info_field(l, "depth") == Some(depth.to_string().as_str()))
            .collect();
        assert_eq!(at_depth.len(), 3);
        let mut previous = i32::MAX;
        let mut firsts = Vec::new();
        for (k, info) in at_depth.iter().enumerate() {
            assert_eq!(
                info_field(info, "multipv"),
                Some((k + 1).to_string().as_str())
            );
            let value = match info_score(info).expect("a score") {
                (kind, n) if kind == "cp" => n,
                (_, n) if n > 0 => 100_000 - n,
                (_, n) => -100_000 - n,
            };
            assert!(
                value <= previous,
                "lines not sorted at depth {depth}: {at_depth:?}"
            );
            previous = value;
            firsts.push(info_field(info, "pv").unwrap().to_string());
        }
        firsts.sort();
        firsts.dedup();
        assert_eq!(firsts.len(), 3, "each line starts with its own move");
    }
    let best_line_move = info_field(infos[18], "pv").unwrap().to_string();
    assert_eq!(bestmove_of(lines.last().unwrap()), Some(best_line_move));
    // More lines than moves: one line per legal move.
    engine.send("setoption name Game value tictactoe");
    engine.send("setoption name MultiPV value 20");
    engine.send("position startpos moves a1 b2 c3 a3 c1 b1 b3");
    engine.send("go depth 2");
    let lines = engine.read_until("bestmove", TIMEOUT);
    let last_depth: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 2 "))
        .collect();
    assert_eq!(last_depth.len(), 2, "{lines:?}");
}

#[test]
fn ponder_sequences_as_guis_send_them() {
    let mut engine = Engine::game("gomoku");
    engine.send("uci");
    engine.expect("uciok");
    engine.send("setoption name Ponder value true");
    // go ponder, then ponderhit: the search becomes a timed one and ends by itself.
    engine.send("position startpos moves h8 h9");
    engine.send("go ponder wtime 300 btime 300");
    std::thread::sleep(Duration::from_millis(400));
    let early = engine.drain(Duration::from_millis(50));
    assert!(
        early.iter().all(|l| !l.starts_with("bestmove")),
        "bestmove while pondering: {early:?}"
    );
    engine.send("ponderhit");
    let lines = engine.read_until("bestmove", Duration::from_secs(5));
    assert!(bestmove_of(lines.last().unwrap()).is_some());
    // stop right after go ponder (the opponent played another move).
    engine.send("go ponder wtime 300 btime 300");
    engine.send("stop");
    let line = engine.expect("bestmove");
    assert!(bestmove_of(&line).is_some());
    engine.send("position startpos moves h8 h9 i8 g8");
    engine.send("go wtime 200 btime 200");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
    let rest = engine.sync();
    assert!(rest.iter().all(|l| !l.starts_with("bestmove")), "{rest:?}");
}

#[test]
fn uci_bestmove_names_a_ponder_move_when_the_pv_has_one() {
    let mut engine = Engine::game("connect4");
    engine.send("uci");
    engine.expect("uciok");
    engine.send("position startpos");
    engine.send("go depth 6");
    let line = engine.expect("bestmove");
    let tokens: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(tokens.len(), 4, "{line}");
    assert_eq!(tokens[2], "ponder");
}

/// The nodes of `go depth 7` from Ataxx's start after the `setoption` lines `options`.
#[cfg(feature = "tune")]
fn ataxx_depth7_nodes(options: &[&str]) -> u64 {
    let mut engine = Engine::game("ataxx");
    engine.send("uai");
    engine.read_until("uaiok", TIMEOUT);
    for option in options {
        engine.send(option);
    }
    engine.send("position startpos");
    engine.send("go depth 7");
    let lines = engine.read_until("bestmove", TIMEOUT);
    let last = lines.iter().rev().find(|l| l.contains(" nodes "));
    let nodes = last.and_then(|l| info_field(l, "nodes")).expect("nodes");
    nodes.parse().expect("a node count")
}

#[cfg(feature = "tune")]
#[test]
fn a_tuning_build_offers_the_search_constants_and_keeps_the_last_good_ones() {
    let mut engine = Engine::game("ataxx");
    engine.send("uai");
    let lines = engine.read_until("uaiok", TIMEOUT);
    let margin = "option name FutilityMargin type spin default 101 min 10 max 400";
    assert!(lines.iter().any(|l| l == margin), "{lines:?}");
    engine.send("setoption name FutilityMargin value 5");
    assert!(engine
        .expect("info string")
        .starts_with("info string error: "));
    engine.sync();
    let defaults = ataxx_depth7_nodes(&[]);
    // A refused value keeps the constants; an accepted one changes the search.
    let refused = ataxx_depth7_nodes(&["setoption name NullMoveBase value 0"]);
    assert_eq!(refused, defaults);
    let as_default = ataxx_depth7_nodes(&["setoption name LmrBase value 31"]);
    assert_eq!(as_default, defaults);
    let fewer = ataxx_depth7_nodes(&["setoption name LmrBase value 200"]);
    assert_ne!(fewer, defaults);
}

/// The `W D L` after `wdl` in an `info` line, if it has them.
fn wdl_of(line: &str) -> Option<[u32; 3]> {
    let mut words = line.split_whitespace().skip_while(|&w| w != "wdl").skip(1);
    let mut chances = [0; 3];
    for chance in &mut chances {
        *chance = words.next()?.parse().ok()?;
    }
    Some(chances)
}

/// The `info` lines of `go depth 5` from `position` (with a score each).
fn scored_lines(engine: &mut Engine, position: &str) -> Vec<String> {
    engine.send(position);
    engine.send("go depth 5");
    let lines = engine.read_until("bestmove", TIMEOUT);
    let scored: Vec<String> = lines
        .into_iter()
        .filter(|l| l.starts_with("info") && l.contains(" score "))
        .collect();
    assert!(!scored.is_empty(), "no scored info line");
    scored
}

#[test]
fn show_wdl_adds_the_chances_to_every_scored_info_line() {
    let positions = [
        ("chess", "position startpos moves e2e4 d7d5 e4d5"),
        // Mate in one, checkmated, stalemated.
        ("chess", "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"),
        ("chess", "position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"),
        ("chess", "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
        ("ataxx", "position startpos moves f1 a2 g2"),
        // The opponent's move filled the board: `x` has lost, at the root.
        (
            "ataxx",
            "position fen xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/ooooooo/oooooo1 o 0 30",
        ),
    ];
    for (game, position) in positions {
        let mut engine = Engine::game(game);
        engine.send("uci");
        let lines = engine.read_until("uciok", TIMEOUT);
        let option = "option name UCI_ShowWDL type check default false".to_string();
        assert!(lines.contains(&option), "{game}: {lines:?}");
        for line in scored_lines(&mut engine, position) {
            assert!(wdl_of(&line).is_none(), "off by default: {line}");
        }
        engine.send("setoption name UCI_ShowWDL value true");
        for line in scored_lines(&mut engine, position) {
            let Some([win, draw, loss]) = wdl_of(&line) else {
                panic!("{game}: no wdl in {line}");
            };
            assert_eq!(win + draw + loss, 1000, "{line}");
            assert!(
                line.contains(" wdl ") && line.split(" wdl ").next().unwrap().contains(" score ")
            );
            if line.contains("score mate -") || line.contains("score mate 0") {
                assert_eq!([win, draw, loss], [0, 0, 1000], "{line}");
            } else if line.contains("score mate ") {
                assert_eq!([win, draw, loss], [1000, 0, 0], "{line}");
            } else if line.starts_with("info depth 0 score cp 0") {
                assert_eq!([win, draw, loss], [0, 1000, 0], "{line}");
            }
        }
        engine.send("setoption name UCI_ShowWDL value false");
        for line in scored_lines(&mut engine, position) {
            assert!(wdl_of(&line).is_none(), "switched off: {line}");
        }
    }
}

#[test]
fn show_wdl_is_offered_only_for_games_with_a_model() {
    for game in ["connect4", "tictactoe", "gomoku"] {
        let mut engine = Engine::game(game);
        engine.send("ugi");
        let lines = engine.read_until("ugiok", TIMEOUT);
        assert!(
            !lines.iter().any(|l| l.contains("UCI_ShowWDL")),
            "{lines:?}"
        );
        engine.send("setoption name UCI_ShowWDL value true");
        let error = engine.expect("info string error");
        assert!(error.contains("not available for"), "{error}");
    }
    // UAI (Ataxx's own dialect) and UGI carry it as UCI does.
    let mut engine = Engine::game("ataxx");
    engine.send("uai");
    let lines = engine.read_until("uaiok", TIMEOUT);
    assert!(lines.iter().any(|l| l.contains("UCI_ShowWDL")), "{lines:?}");
    engine.send("setoption name UCI_ShowWDL value true");
    for line in scored_lines(&mut engine, "position startpos") {
        assert!(wdl_of(&line).is_some(), "{line}");
    }
}
