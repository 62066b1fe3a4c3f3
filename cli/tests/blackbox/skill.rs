//! Playing levels over the protocol: `Skill Level`, `UCI_LimitStrength` and `UCI_Elo` set
//! with `setoption`, a clocked `go` answered quickly with a legal move within the level's
//! node budget, and bad values refused with the engine still answering.

use crate::common;

use std::time::{Duration, Instant};

use common::{bestmove_of, info_field, Engine};
use cutoff::games::chess::{Chess, ChessVariant, INFO};
use cutoff::search::skill::{level_of_elo, LEVELS_PER_DOUBLING, NODES_AT_LEVEL_0};
use cutoff::search::{MoveList, Rules};

/// The most nodes a move of `level` may search after depth 1 (the budget's spread included).
fn most_nodes(level: f64) -> u64 {
    (NODES_AT_LEVEL_0 * (level / LEVELS_PER_DOUBLING).exp2() * 1.125) as u64 + 1
}

/// Sends a clocked `go` and returns the last `info depth` line's depth and nodes, and the
/// move, checking that the answer came within two seconds although the clock allows more.
fn timed_go(engine: &mut Engine) -> (u32, u64, Option<String>) {
    let started = Instant::now();
    engine.send("go wtime 60000 btime 60000 winc 1000 binc 1000");
    let lines = engine.read_until("bestmove", Duration::from_secs(20));
    assert!(started.elapsed() < Duration::from_secs(2), "{lines:?}");
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    let depth = info_field(last, "depth").unwrap().parse().unwrap();
    let nodes = info_field(last, "nodes").unwrap().parse().unwrap();
    let bestmoves = lines.iter().filter(|l| l.starts_with("bestmove")).count();
    assert_eq!(bestmoves, 1);
    (depth, nodes, bestmove_of(lines.last().unwrap()))
}

fn assert_legal_chess(mv: Option<String>) {
    let game = Chess::start(&ChessVariant::default());
    let mut moves = MoveList::new();
    game.generate_moves(&mut moves);
    let mv = mv.expect("a move from the start position");
    assert!(
        moves.iter().any(|&m| game.format_move(m) == mv),
        "illegal {mv}"
    );
}

#[test]
fn a_chess_level_answers_quickly_within_its_budget() {
    let mut engine = Engine::start(&[]);
    engine.send("uci");
    let lines = engine.read_until("uciok", common::TIMEOUT);
    for option in [
        "option name Skill Level type spin default 20 min 0 max 20",
        "option name UCI_LimitStrength type check default false",
        "option name UCI_Elo type spin default 1320 min 1320 max 2690",
    ] {
        assert!(lines.iter().any(|l| l == option), "{option}: {lines:?}");
    }
    for level in [0u32, 6] {
        engine.send(&format!("setoption name Skill Level value {level}"));
        engine.send("ucinewgame");
        engine.send("position startpos");
        let (depth, nodes, mv) = timed_go(&mut engine);
        assert!(
            depth == 1 || nodes <= most_nodes(f64::from(level)),
            "{level}: {nodes}"
        );
        assert_legal_chess(mv);
    }
    // UCI_Elo takes over from Skill Level under UCI_LimitStrength: its lowest rating is
    // the chess scale's first level.
    engine.send("setoption name Skill Level value 20");
    engine.send("setoption name UCI_LimitStrength value true");
    engine.send("setoption name UCI_Elo value 1320");
    engine.send("position startpos");
    let (depth, nodes, mv) = timed_go(&mut engine);
    let lowest = level_of_elo(1320, INFO.elo_scale.expect("chess has an Elo scale"));
    assert!(lowest < 20.0, "{lowest}");
    assert!(depth == 1 || nodes <= most_nodes(lowest), "{nodes}");
    assert_legal_chess(mv);
    assert!(engine.sync().iter().all(|l| !l.contains("error")));
}

#[test]
fn bad_levels_are_refused_and_the_engine_keeps_answering() {
    let mut engine = Engine::start(&[]);
    for (option, value) in [
        ("Skill Level", "21"),
        ("Skill Level", "-3"),
        ("UCI_Elo", "100"),
        ("UCI_Elo", "9999"),
        ("UCI_Elo", "2691"),
        ("UCI_LimitStrength", "maybe"),
    ] {
        engine.send(&format!("setoption name {option} value {value}"));
        let error = engine.expect("info string error");
        assert!(error.contains(option) && error.contains(value), "{error}");
    }
    engine.send("setoption name Skill Level");
    assert!(engine.expect("info string error").contains("needs a value"));
    engine.send("setoption name Game value connect4");
    engine.send("setoption name UCI_Elo value 2000");
    assert!(engine.expect("info string error").contains("not available"));
    // Still full strength: the first player's book or solver proves the win.
    engine.send("position startpos");
    engine.send("go wtime 60000 btime 60000");
    let lines = engine.read_until("bestmove", common::TIMEOUT);
    assert_eq!(bestmove_of(lines.last().unwrap()).as_deref(), Some("4"));
    assert!(lines.iter().any(|l| l.contains("score mate")), "{lines:?}");
}

#[test]
fn a_limited_connect_four_searches_instead_of_solving() {
    let mut engine = Engine::game("connect4");
    engine.send("setoption name Skill Level value 2");
    engine.send("position startpos moves 4 4 3");
    let (depth, nodes, mv) = timed_go(&mut engine);
    assert!(
        depth < 10 && (depth == 1 || nodes <= most_nodes(2.0)),
        "{depth} {nodes}"
    );
    let column: u32 = mv.expect("a move").parse().unwrap();
    assert!((1..=7).contains(&column));
}
