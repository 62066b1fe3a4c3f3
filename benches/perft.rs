//! Chess perft at the depths too slow for the tests: the standard suite's deepest counts (the
//! chess programming literature, the same as `../shared/data/chess/perft.epd`), each checked,
//! with time and leaves per second (bulk counting at the last ply) per position and over the
//! suite, then Connect Four from the empty board at depth 9
//! (`../shared/data/perft-small-games.txt`).
//!
//! `cargo bench --bench perft [-- --quick]`: `--quick` runs one depth less (under a second).
//! Exits non-zero when a count is wrong.

use std::process::ExitCode;
use std::time::Instant;

use cutoff::games::chess::{Chess, ChessVariant};
use cutoff::games::connect4::Connect4;
use cutoff::search::perft::perft;
use cutoff::search::{Game, Rules};

/// (FEN, depth, leaf count at that depth, leaf count one ply shallower for `--quick`).
const CHESS: &[(&str, u32, u64, u64)] = &[
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        6,
        119_060_324,
        4_865_609,
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        5,
        193_690_690,
        4_085_603,
    ),
    (
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        6,
        11_030_083,
        674_624,
    ),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        5,
        15_833_292,
        422_333,
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        5,
        89_941_194,
        2_103_487,
    ),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        5,
        164_075_551,
        3_894_594,
    ),
];

/// Connect Four from the empty board, depth 9 (counted independently by Fairy-Stockfish).
const CONNECT4_DEPTH_9: u64 = 39_394_572;

/// One measured count: prints the line and says whether it matched.
fn measure<G: Game>(name: &str, game: &mut G, depth: u32, expected: u64) -> (bool, u64, f64) {
    let started = Instant::now();
    let nodes = perft(game, depth);
    let seconds = started.elapsed().as_secs_f64();
    let ok = nodes == expected;
    println!(
        "{name:<72} d{depth} {nodes:>11} {:>8.3} s {:>6.1} M leaves/s {}",
        seconds,
        nodes as f64 / seconds.max(1e-9) / 1e6,
        if ok {
            "ok".to_string()
        } else {
            format!("WRONG, expected {expected}")
        }
    );
    (ok, nodes, seconds)
}

fn main() -> ExitCode {
    let quick = std::env::args().any(|a| a == "--quick");
    let mut all_ok = true;
    let (mut nodes, mut seconds) = (0u64, 0f64);
    for &(fen, depth, count, quick_count) in CHESS {
        let mut game = Chess::from_fen(&ChessVariant::default(), fen).expect("suite FEN");
        let (depth, count) = if quick {
            (depth - 1, quick_count)
        } else {
            (depth, count)
        };
        let (ok, n, s) = measure(fen, &mut game, depth, count);
        all_ok &= ok;
        nodes += n;
        seconds += s;
    }
    println!(
        "chess perft suite: {nodes} leaves in {seconds:.2} s, {:.1} M leaves per second",
        nodes as f64 / seconds.max(1e-9) / 1e6
    );
    if !quick {
        let mut connect4 = Connect4::start(&());
        all_ok &= measure("connect4 (empty board)", &mut connect4, 9, CONNECT4_DEPTH_9).0;
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        println!("perft: a count is wrong");
        ExitCode::FAILURE
    }
}
