//! Chess against outside truth: the standard perft suite, mates in N (with underpromotion
//! and castling), draws by rule inside the search, and chess over UCI.

use crate::common;

use std::time::{Duration, Instant};

use common::{bestmove_of, info_field, info_score, Engine, TIMEOUT};
use cutoff::games::chess::{Chess, ChessVariant};
use cutoff::search::perft::perft;
use cutoff::search::{Limits, Rules, ScoreReport, SearchResult, ThreadPool};

/// The standard perft positions with leaf counts (the chess programming literature;
/// `../shared/data/chess/perft.epd`), to depths that run in seconds.
const PERFT_SUITE: &[(&str, &[u64])] = &[
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[20, 400, 8902, 197281, 4865609],
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[48, 2039, 97862, 4085603],
    ),
    (
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        &[14, 191, 2812, 43238, 674624],
    ),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        &[6, 264, 9467, 422333],
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        &[44, 1486, 62379, 2103487],
    ),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[46, 2079, 89890, 3894594],
    ),
];

fn chess(fen: &str) -> Chess {
    Chess::from_fen(&ChessVariant::default(), fen).expect("valid test FEN")
}

fn search(game: &Chess, limits: &Limits) -> SearchResult<<Chess as Rules>::Move> {
    ThreadPool::<Chess>::new(16).search(game, limits, &[])
}

#[test]
fn perft_suite_matches_the_literature() {
    for (fen, counts) in PERFT_SUITE {
        let mut game = chess(fen);
        for (depth, &expected) in counts.iter().enumerate() {
            let depth = depth as u32 + 1;
            assert_eq!(perft(&mut game, depth), expected, "{fen} depth {depth}");
        }
    }
}

#[test]
fn perft_file_in_shared_data_matches_where_fast() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/chess/perft.epd");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("SKIPPED: {} not found", path.display());
        return;
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut fields = line.split(';');
        let mut game = chess(fields.next().expect("a FEN").trim());
        for field in fields {
            let (depth, count) = field.trim().split_once(' ').expect("';Dn count'");
            let depth: u32 = depth.trim_start_matches('D').parse().expect("depth");
            let count: u64 = count.trim().parse().expect("count");
            if count <= 5_000_000 {
                assert_eq!(perft(&mut game, depth), count, "{line} depth {depth}");
            }
        }
    }
}

/// (FEN, mate in N, the one mating first move where it is unique).
const MATES: &[(&str, i32, Option<&str>)] = &[
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1, Some("d1d8")),
    ("6r1/5Ppp/7k/6pp/8/3B4/8/K7 w - - 0 1", 1, Some("f7g8n")),
    (
        "rn3r2/pbppq1p1/1p2pN2/8/3P2NP/6P1/PPPQBP1R/R3K1k1 w Q - 0 1",
        1,
        Some("e1c1"),
    ),
    (
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
        2,
        None,
    ),
    ("1k6/3K3R/8/8/8/8/8/8 w - - 0 1", 3, None),
    ("8/8/8/7K/8/7k/5Q2/8 w - - 0 1", 4, None),
];

#[test]
fn mates_in_n_are_found_with_the_right_distance() {
    for &(fen, moves, first) in MATES {
        let game = chess(fen);
        // Late move pruning and reductions, internal iterative reductions (and no check
        // extensions) push the shortest mate past depth 2N: the KQK mate in 4 shows as
        // mate 5 up to depth 16 and as mate 4 from depth 17. Ten plies of margin let every
        // line of the mate be searched.
        let result = search(&game, &Limits::depth(2 * moves as u32 + 10));
        assert_eq!(
            ScoreReport::from_score(result.score),
            ScoreReport::Mate(moves),
            "{fen}"
        );
        if let Some(first) = first {
            assert_eq!(
                result.best.map(|m| game.format_move(m)).as_deref(),
                Some(first),
                "{fen}"
            );
        }
        // The side being mated sees the same distance, negated, one ply later. Its search
        // gets two plies more: reverse futility pruning cuts the mating side's replies
        // near the horizon (their static evaluation is far above beta), so the defence
        // proves the mate an iteration later than the attack finds it.
        let mut after = game.clone();
        let best = result.best.expect("a mating move");
        after.make_move(best);
        if moves > 1 {
            let reply = search(&after, &Limits::depth(2 * moves as u32 + 10));
            assert_eq!(
                ScoreReport::from_score(reply.score),
                ScoreReport::Mate(-(moves - 1)),
                "{fen}"
            );
        } else {
            assert!(after.outcome().is_some(), "{fen}: mate on the board");
        }
    }
}

#[test]
fn stalemate_traps_are_avoided() {
    // Several queen moves (Qf7, Qg5...) stalemate the lone king; the winning side must
    // keep the win and not play one of them.
    let game = chess("7k/8/6K1/8/8/8/8/6Q1 w - - 0 1");
    let result = search(&game, &Limits::depth(10));
    let best = result.best.expect("a move");
    let mut after = game.clone();
    after.make_move(best);
    assert_ne!(
        after.outcome(),
        Some(cutoff::search::Outcome::Draw),
        "played {}",
        game.format_move(best)
    );
    assert!(matches!(ScoreReport::from_score(result.score), ScoreReport::Mate(n) if n > 0));
}

#[test]
fn uci_chess_session_with_clock_plays_legal_moves() {
    let mut engine = Engine::start(&[]);
    engine.send("uci");
    let lines = engine.read_until("uciok", TIMEOUT);
    assert!(lines
        .iter()
        .any(|l| l.contains("option name Game type combo default chess")));
    assert!(lines
        .iter()
        .any(|l| l == "option name UCI_Chess960 type check default false"));
    engine.send("ucinewgame");
    let mut moves: Vec<String> = Vec::new();
    let mut game = Chess::start(&ChessVariant::default());
    for _ in 0..12 {
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        engine.send("go wtime 2000 btime 2000 winc 20 binc 20");
        let lines = engine.read_until("bestmove", TIMEOUT);
        let best = bestmove_of(lines.last().unwrap()).expect("a move");
        let last_info = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .expect("an info line");
        assert_eq!(
            info_field(last_info, "pv"),
            Some(best.as_str()),
            "bestmove is the PV's first move"
        );
        let mv = game.parse_move(&best).expect("legal bestmove");
        game.make_move(mv);
        moves.push(best);
    }
}

#[test]
fn chess960_castling_is_king_takes_rook() {
    let mut engine = Engine::start(&[]);
    engine.send("setoption name UCI_Chess960 value true");
    engine.send("position fen rn3r2/pbppq1p1/1p2pN2/8/3P2NP/6P1/PPPQBP1R/R3K1k1 w A - 0 1");
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", TIMEOUT);
    assert_eq!(
        bestmove_of(lines.last().unwrap()).as_deref(),
        Some("e1a1"),
        "{lines:?}"
    );
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert_eq!(info_score(info), Some(("mate".to_string(), 1)));
    engine.send("setoption name UCI_Chess960 value false");
    engine.send("position fen rn3r2/pbppq1p1/1p2pN2/8/3P2NP/6P1/PPPQBP1R/R3K1k1 w Q - 0 1");
    engine.send("go depth 3");
    assert_eq!(
        bestmove_of(&engine.expect("bestmove")).as_deref(),
        Some("e1c1")
    );
}

#[test]
fn checkmate_and_stalemate_at_the_root_answer_bestmove_none() {
    let mut engine = Engine::start(&[]);
    engine.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    engine.send("go depth 4");
    let lines = engine.read_until("bestmove", TIMEOUT);
    assert!(
        lines.iter().any(|l| l == "info depth 0 score mate 0"),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove (none)");
    engine.send("query result");
    assert_eq!(engine.expect("response"), "response p2win");
    engine.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    engine.send("go movetime 50");
    let lines = engine.read_until("bestmove", TIMEOUT);
    assert!(
        lines.iter().any(|l| l == "info depth 0 score cp 0"),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove (none)");
    engine.send("query result");
    assert_eq!(engine.expect("response"), "response draw");
}

#[test]
fn long_games_in_one_position_line_are_accepted() {
    let mut engine = Engine::start(&[]);
    // 400 plies of knight shuffles: legal moves, a drawn position by repetition.
    let shuffle = "g1f3 g8f6 f3g1 f6g8 ";
    let line = format!("position startpos moves {}", shuffle.repeat(100));
    engine.send(&line);
    engine.send("query result");
    assert_eq!(engine.expect("response"), "response draw");
    engine.send("position startpos moves e2e4 e7e5 e1e3");
    let error = engine.expect("info string error");
    assert!(error.contains("e1e3"), "{error}");
    engine.send("go depth 2");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
}

/// The moves after `pv` in an info line.
fn pv_of(line: &str) -> Vec<&str> {
    line.split_whitespace()
        .skip_while(|&t| t != "pv")
        .skip(1)
        .collect()
}

/// Checks one PV as fastchess does, from `game` (the searched position with its history):
/// every move legal, nothing after a mate, stalemate or draw by rule, and a mate score whose
/// sign and distance agree with the line when the line reaches the mate.
fn check_pv(game: &Chess, line: &str) {
    let pv = pv_of(line);
    assert!(!pv.is_empty(), "empty pv: {line}");
    let mut position = game.clone();
    for (ply, text) in pv.iter().enumerate() {
        assert!(
            position.outcome().is_none(),
            "the pv goes on after the game ended (before move {ply} {text}): {line}"
        );
        let mv = position
            .parse_move(text)
            .unwrap_or_else(|_| panic!("illegal pv move {ply} {text}: {line}"));
        position.make_move(mv);
    }
    if let Some((kind, value)) = info_score(line) {
        if kind == "mate" {
            assert_ne!(value, 0, "{line}");
            // Mate in N for the side to move is 2N - 1 plies away; mated in N is 2N.
            let plies = if value > 0 { 2 * value - 1 } else { -2 * value };
            assert!(
                pv.len() as i32 <= plies,
                "the pv is longer than the mate: {line}"
            );
            if pv.len() as i32 == plies {
                assert_eq!(
                    position.outcome(),
                    Some(cutoff::search::Outcome::Loss),
                    "the pv of a mate score ends in mate: {line}"
                );
                // Loss for the side to move after the line: the winner moved last.
                assert_eq!(
                    pv.len() % 2 == 1,
                    value > 0,
                    "the mate score has the wrong sign: {line}"
                );
            }
        }
    }
}

#[test]
fn pv_hygiene_as_fastchess_checks_it() {
    // (FEN, moves played from it, depth, expected final score).
    let cases: &[(&str, &str, u32, Option<&str>)] = &[
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "",
            9,
            None,
        ),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "",
            8,
            None,
        ),
        // Mates for and against the side to move.
        ("1k6/3K3R/8/8/8/8/8/8 w - - 0 1", "", 12, Some("mate 3")),
        ("k7/8/1K6/8/8/8/8/7R b - - 0 1", "", 6, Some("mate -1")),
        ("8/8/8/7K/8/7k/5Q2/8 w - - 0 1", "", 18, Some("mate 4")),
        // A stalemate trap: the pv must not walk into stalemate and go on.
        ("7k/8/6K1/8/8/8/8/6Q1 w - - 0 1", "", 10, None),
        // The fifty-move rule falls two plies from the root: the pv stops there.
        ("8/8/8/4k3/8/8/2R5/4K3 w - - 98 80", "", 8, Some("cp 0")),
        // The start position has occurred twice: repeating it again ends the game.
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "g1f3 g8f6 f3g1 f6g8",
            8,
            None,
        ),
    ];
    let mut engine = Engine::start(&[]);
    engine.send("uci");
    engine.read_until("uciok", TIMEOUT);
    for &(fen, moves, depth, expected) in cases {
        let mut game = chess(fen);
        for text in moves.split_whitespace() {
            let mv = game.parse_move(text).expect("legal test move");
            game.make_move(mv);
        }
        engine.send("ucinewgame");
        if moves.is_empty() {
            engine.send(&format!("position fen {fen}"));
        } else {
            engine.send(&format!("position fen {fen} moves {moves}"));
        }
        engine.send(&format!("go depth {depth}"));
        let lines = engine.read_until("bestmove", TIMEOUT);
        let infos: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with("info") && l.contains(" pv "))
            .collect();
        assert!(!infos.is_empty(), "{fen}: no pv: {lines:?}");
        for info in &infos {
            check_pv(&game, info);
        }
        let last = infos.last().unwrap();
        let best = bestmove_of(lines.last().unwrap()).expect("a move");
        assert_eq!(
            pv_of(last).first().copied(),
            Some(best.as_str()),
            "{fen}: bestmove is the first move of the last pv"
        );
        if let Some(expected) = expected {
            let (kind, value) = info_score(last).expect("a score");
            assert_eq!(format!("{kind} {value}"), expected, "{fen}: {last}");
        }
    }
}

/// Searches with `go ARGS` from the start position; the lines and the time taken.
fn timed_go(engine: &mut Engine, args: &str) -> (Vec<String>, Duration) {
    engine.send("position startpos moves e2e4 e7e5");
    let sent = Instant::now();
    engine.send(&format!("go {args}"));
    let lines = engine.read_until("bestmove", TIMEOUT);
    (lines, sent.elapsed())
}

fn deepest_depth(lines: &[String]) -> u32 {
    lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .filter_map(|l| info_field(l, "depth")?.parse().ok())
        .max()
        .unwrap_or(0)
}

#[test]
fn combined_limits_stop_at_whichever_comes_first() {
    let mut engine = Engine::start(&[]);
    engine.send("uci");
    engine.read_until("uciok", TIMEOUT);
    // lichess-bot style: a clock, a depth and a movetime. The depth comes first.
    let (lines, took) = timed_go(
        &mut engine,
        "wtime 60000 btime 60000 winc 0 binc 0 depth 5 movetime 2000",
    );
    assert_eq!(deepest_depth(&lines), 5, "{lines:?}");
    assert!(took < Duration::from_millis(2000), "depth 5 took {took:?}");
    // The movetime comes first.
    let (lines, took) = timed_go(
        &mut engine,
        "wtime 60000 btime 60000 winc 0 binc 0 depth 60 movetime 300",
    );
    assert!(deepest_depth(&lines) < 60, "{lines:?}");
    assert!(
        took >= Duration::from_millis(250),
        "stopped early: {took:?}"
    );
    assert!(
        took < Duration::from_millis(1500),
        "movetime 300 took {took:?}"
    );
    // The clock comes first: 400 ms left must not be spent on a 5 s movetime.
    let (_, took) = timed_go(
        &mut engine,
        "wtime 400 btime 400 winc 0 binc 0 depth 60 movetime 5000",
    );
    assert!(
        took < Duration::from_millis(400),
        "a 400 ms clock took {took:?}"
    );
    // Nodes come first.
    let (lines, _) = timed_go(&mut engine, "depth 60 nodes 20000 movetime 5000");
    let nodes: u64 = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .filter_map(|l| info_field(l, "nodes")?.parse().ok())
        .max()
        .expect("info lines");
    assert!(nodes <= 20000, "{lines:?}");
}
