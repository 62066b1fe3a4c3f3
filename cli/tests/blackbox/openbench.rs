//! What OpenBench's client asks of the binary: command-line arguments run as protocol
//! lines (`cutoff uci quit`, `cutoff "genfens N seed S book B" quit`), and `genfens`'
//! openings: legal, distinct, the same for the same seed, bad arguments answered with an
//! error while the engine keeps answering.

use crate::common;

use std::collections::HashSet;
use std::time::Duration;

use common::{Engine, TIMEOUT};

/// Every line `cutoff ARGS` prints before it exits (stdin stays open: `quit` among the
/// arguments must end it).
fn lines_until_exit(args: &[&str]) -> Vec<String> {
    let mut engine = Engine::start(args);
    let mut lines = Vec::new();
    while let Some(line) = engine.read_line(TIMEOUT) {
        lines.push(line);
    }
    let status = engine.wait_exit(Duration::from_secs(5));
    assert!(
        status.is_some_and(|status| status.success()),
        "{args:?} did not exit with 0: {status:?}; {lines:?}"
    );
    lines
}

/// The FENs of the `info string genfens` lines.
fn genfens(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|line| line.strip_prefix("info string genfens "))
        .map(str::to_string)
        .collect()
}

#[test]
fn uci_quit_on_the_command_line_answers_uciok_and_exits() {
    let lines = lines_until_exit(&["uci", "quit"]);
    assert_eq!(lines.last().map(String::as_str), Some("uciok"), "{lines:?}");
    assert!(lines
        .iter()
        .any(|line| line.starts_with("option name Hash ")));
    assert!(lines
        .iter()
        .any(|line| line.starts_with("option name Threads ")));
}

#[test]
fn argument_lines_run_before_stdin_which_follows() {
    let mut engine = Engine::start(&["position startpos moves e2e4", "isready"]);
    assert_eq!(engine.expect("readyok"), "readyok");
    assert_eq!(
        engine.fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
    engine.send("quit");
    assert!(engine.wait_exit(TIMEOUT).is_some());
    // A tool's name is still the tool.
    let bench = common::run_ok(&["bench", "1"]);
    assert!(
        bench.lines().last().unwrap_or("").starts_with("Bench: "),
        "{bench}"
    );
}

#[test]
fn genfens_openings_are_legal_distinct_and_seeded() {
    let request = "genfens 12 seed 5 book None";
    let first = genfens(&lines_until_exit(&[request, "quit"]));
    assert_eq!(first.len(), 12, "{first:?}");
    assert_eq!(first, genfens(&lines_until_exit(&[request, "quit"])));
    let distinct: HashSet<&String> = first.iter().collect();
    assert_eq!(distinct.len(), 12);
    let other = genfens(&lines_until_exit(&["genfens 12 seed 6 book None", "quit"]));
    assert_ne!(first, other);
    // Each is a chess position the engine takes, with moves to play.
    let mut engine = Engine::start(&[]);
    for fen in &first {
        assert_eq!(fen.split_whitespace().count(), 6, "{fen}");
        engine.send(&format!("position fen {fen}"));
        assert_eq!(engine.fen(), *fen);
        engine.send("go perft 1");
        let total = engine.expect("Nodes searched: ");
        assert_ne!(total, "Nodes searched: 0", "{fen}");
    }
    let errors: Vec<&String> = engine
        .transcript
        .iter()
        .filter(|l| l.contains("error"))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn genfens_reads_an_epd_book() {
    let book = std::env::temp_dir().join(format!("cutoff-genfens-{}.epd", std::process::id()));
    std::fs::write(
        &book,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;\n\
         rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;\n",
    )
    .unwrap();
    let request = format!("genfens 5 seed 3 book {}", book.display());
    let lines = lines_until_exit(&[&request, "quit"]);
    let _ = std::fs::remove_file(&book);
    let found = genfens(&lines);
    assert_eq!(found.len(), 5, "{lines:?}");
    // 2 or 3 plies after a book line at move 2, White to move.
    assert!(
        found
            .iter()
            .all(|fen| fen.ends_with(" 3") || fen.ends_with(" 4")),
        "{found:?}"
    );
}

#[test]
fn genfens_bad_arguments_are_errors_and_the_engine_keeps_answering() {
    let bad = [
        "genfens",
        "genfens 0 seed 1 book None",
        "genfens x seed 1 book None",
        "genfens 4 seed -1 book None",
        "genfens 4 seeds 1 book None",
        "genfens 4 seed 1 book None something",
        "genfens 4 seed 1 book /no/such/book.epd",
    ];
    let mut args: Vec<&str> = bad.to_vec();
    args.extend(["isready", "quit"]);
    let lines = lines_until_exit(&args);
    let errors: Vec<&String> = lines
        .iter()
        .filter(|line| line.starts_with("info string error: genfens: "))
        .collect();
    assert_eq!(errors.len(), bad.len(), "{lines:?}");
    assert!(errors[6].contains("cannot read the book"), "{}", errors[6]);
    assert!(genfens(&lines).is_empty());
    assert_eq!(lines.last().map(String::as_str), Some("readyok"));
}
