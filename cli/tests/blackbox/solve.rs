//! The `solve` and `tree-stats` tools: exact Connect Four scores on the fast test sets
//! (read from `../shared/data/connect4` when present), and the command lines end to end.

use std::path::PathBuf;
use std::process::Command;

use cutoff::games::connect4::solver::Connect4Solver;
use cutoff::games::connect4::test_sets::TestPosition;
use cutoff::games::connect4::Connect4;
use cutoff::search::ScoreReport;
use cutoff::tools::solve::Solver;

/// Solves every position of a set with `solver` (a fresh table each) and checks the score.
fn check_set(name: &str, mut solver: Solver<Connect4>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/connect4")
        .join(name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("SKIPPED: {} not found", path.display());
        return;
    };
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let test = TestPosition::parse(line).expect("a valid test line");
        solver.forget();
        let solution = solver.solve(&test.position, false, &mut |_| {});
        let value = solution.value.expect("no budget: always solved");
        assert_eq!(
            ScoreReport::from_score(value),
            test.expected_report(),
            "{line}"
        );
        count += 1;
    }
    assert_eq!(count, 1000);
}

fn dedicated() -> Solver<Connect4> {
    Solver::with_search(Box::new(Connect4Solver::new(16)))
}

#[test]
fn connect4_end_game_set_is_solved_exactly() {
    check_set("Test_L3_R1", dedicated());
    check_set("Test_L3_R1", Solver::new(16));
}

#[test]
fn connect4_middle_game_set_is_solved_exactly() {
    check_set("Test_L2_R1", dedicated());
    check_set("Test_L2_R1", Solver::new(16));
}

#[test]
fn connect4_opening_set_is_solved_exactly() {
    check_set("Test_L1_R1", dedicated());
}

use crate::common;
use common::run_ok as cutoff;

#[test]
fn tree_stats_prints_the_full_tictactoe_tree_for_minimax() {
    let out = cutoff(&["--game", "tictactoe", "tree-stats"]);
    let minimax = out
        .lines()
        .find(|l| l.starts_with("minimax "))
        .expect("a minimax row");
    assert!(minimax.contains("549,946"), "{out}");
    assert!(minimax.contains("255,168"), "{out}");
    assert_eq!(out.lines().filter(|l| l.ends_with("draw")).count(), 4);

    let csv = cutoff(&[
        "--game",
        "tictactoe",
        "tree-stats",
        "--csv",
        "--stones",
        "1",
    ]);
    assert_eq!(csv.lines().count(), 1 + 9 * 4);
    let minimax_nodes: u64 = csv
        .lines()
        .filter(|l| l.contains(",minimax,"))
        .map(|l| {
            l.split(',')
                .nth(3)
                .and_then(|n| n.parse::<u64>().ok())
                .expect("nodes")
        })
        .sum();
    assert_eq!(minimax_nodes + 1, 549_946);
}

#[test]
fn tree_stats_writes_an_svg_chart() {
    let file = std::env::temp_dir().join(format!("cutoff-tree-stats-{}.svg", std::process::id()));
    let path = file.to_string_lossy().into_owned();
    cutoff(&[
        "--game",
        "tictactoe",
        "tree-stats",
        "--moves",
        "b2",
        "--plot",
        &path,
    ]);
    let svg = std::fs::read_to_string(&file).expect("chart written");
    let _ = std::fs::remove_file(&file);
    assert!(svg.starts_with("<svg") && svg.contains("minimax") && svg.contains("pvs+ordering+tt"));
}

#[test]
fn solve_reports_values_and_best_moves() {
    // x to move wins at once on c3 (diagonal) and later after a2, c2 or a3: only the
    // fastest win is "best"; every move gets its own value.
    let out = cutoff(&["--game", "tictactoe", "solve", "--moves", "a1 b1 b2 c1"]);
    assert!(out.contains("value win in 1"), "{out}");
    assert!(out.contains("best moves c3"), "{out}");
    assert!(out.contains("move c3 win in 1"), "{out}");
    let out = cutoff(&["--game", "connect4", "solve", "--moves", "4455443"]);
    assert!(out.lines().any(|l| l.starts_with("value ")), "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("move ")).count(), 7);
    // Two threads, and the weak values: the same moves and signs.
    let values = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("move ") || l.starts_with("value "))
            .map(|l| l.to_string())
            .collect()
    };
    let threaded = cutoff(&[
        "--game",
        "connect4",
        "solve",
        "--moves",
        "4455443",
        "--threads",
        "2",
    ]);
    assert_eq!(values(&threaded), values(&out));
    let weak = cutoff(&[
        "--game", "connect4", "solve", "--moves", "4455443", "--weak",
    ]);
    let exact = values(&out);
    let weak = values(&weak);
    assert_eq!(exact.len(), weak.len());
    for (exact, weak) in exact.iter().zip(&weak) {
        // "move 3 loss in 7" reads "move 3 loss" when weak.
        let word = exact.split(" in ").next().unwrap_or(exact);
        assert_eq!(word, weak, "{exact} / {weak}");
    }
    // Gomoku's search prunes (and sees only candidate cells): no exact values from it.
    let out = Command::new(env!("CARGO_BIN_EXE_cutoff"))
        .args([
            "--game", "gomoku", "solve", "--moves", "h8", "--nodes", "1000",
        ])
        .output()
        .expect("cutoff runs");
    assert!(!out.status.success(), "gomoku cannot be solved exactly");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("prunes inexactly"), "{stderr}");
}
