//! Property test: random and mutated command streams never crash the engine, never stop it
//! answering `isready`, and never make it play an illegal move.

use crate::common;

use common::{bestmove_of, Engine, TIMEOUT};
use cutoff::games::connect4::Connect4;
use cutoff::search::{MoveList, Rules};
use proptest::prelude::*;

/// Commands that could start long work or end the process are not produced by mutation.
const GUARDED: [&str; 4] = ["go", "bench", "perft", "quit"];

fn valid_command() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(1u8..=7, 0..20).prop_map(|cols| {
            let moves: Vec<String> = cols.iter().map(|c| c.to_string()).collect();
            format!("position startpos moves {}", moves.join(" "))
        }),
        Just("position fen 7/7/7/7/3o3/2xx3 o".to_string()),
        Just("position fen 7/7/7/7/7/7 x moves 4 4 4".to_string()),
        Just("ucinewgame".to_string()),
        Just("uginewgame".to_string()),
        Just("isready".to_string()),
        Just("stop".to_string()),
        Just("ponderhit".to_string()),
        Just("query gameover".to_string()),
        Just("query p1turn".to_string()),
        Just("query result".to_string()),
        Just("d".to_string()),
        Just("eval".to_string()),
        Just("uci".to_string()),
        Just("ugi".to_string()),
        (1u32..=64).prop_map(|mb| format!("setoption name Hash value {mb}")),
        Just("setoption name Clear Hash".to_string()),
        (0u32..100).prop_map(|ms| format!("setoption name Move Overhead value {ms}")),
    ]
}

fn search_command() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u32..=5).prop_map(|d| format!("go depth {d}")),
        (1u64..=3000).prop_map(|n| format!("go nodes {n}")),
        (1u64..=30).prop_map(|ms| format!("go movetime {ms}")),
        (0u64..=200).prop_map(|ms| format!("go wtime {ms} btime {ms} winc 0 binc 0")),
        Just("go p1time 100 p2time 100 p1inc 1 p2inc 1".to_string()),
        Just("go depth 3 searchmoves 4".to_string()),
    ]
}

fn mutated(line: String, position: usize, byte: u8, delete: bool) -> String {
    let mut bytes = line.into_bytes();
    let at = position % (bytes.len() + 1);
    if delete && at < bytes.len() {
        bytes.remove(at);
    } else {
        bytes.insert(at, byte);
    }
    String::from_utf8_lossy(&bytes).replace(['\n', '\r'], " ")
}

#[derive(Clone, Debug)]
enum Step {
    Send(String),
    Search(String),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => valid_command().prop_map(Step::Send),
        2 => search_command().prop_map(Step::Search),
        2 => (valid_command(), any::<usize>(), 32u8..127, any::<bool>())
            .prop_map(|(line, at, byte, delete)| Step::Send(mutated(line, at, byte, delete))),
        1 => "[ -~\t]{0,40}".prop_map(Step::Send),
    ]
}

fn is_guarded(line: &str) -> bool {
    line.split_whitespace()
        .next()
        .is_some_and(|head| GUARDED.contains(&head))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_streams_keep_the_engine_answering(steps in proptest::collection::vec(step(), 1..40)) {
        let mut engine = Engine::game("connect4");
        for step in steps {
            match step {
                Step::Send(line) => {
                    if is_guarded(&line) {
                        continue;
                    }
                    engine.send(&line);
                }
                Step::Search(go) => {
                    let fen = engine.fen();
                    let position = Connect4::from_fen(&(), &fen);
                    prop_assert!(position.is_ok(), "the engine reported an invalid FEN {}", fen);
                    let position = position.unwrap();
                    engine.send(&go);
                    if go.contains("searchmoves") && position.parse_move("4").is_err() {
                        let error = engine.expect("info string error");
                        prop_assert!(error.contains("searchmoves"), "{}", error);
                        continue;
                    }
                    let lines = engine.read_until("bestmove", TIMEOUT);
                    let best = bestmove_of(lines.last().unwrap());
                    let mut legal = MoveList::new();
                    position.generate_moves(&mut legal);
                    match best {
                        None => prop_assert!(
                            legal.is_empty(),
                            "bestmove (none) with legal moves in {}", fen
                        ),
                        Some(mv) => prop_assert!(
                            position.parse_move(&mv).is_ok(),
                            "illegal bestmove {} in {}", mv, fen
                        ),
                    }
                }
            }
        }
        engine.sync();
    }
}
