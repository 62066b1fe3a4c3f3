//! Solves Connect Four test sets (Pascal Pons' format) and checks every exact score, with
//! the game's own solver and with the engine's generic search; prints mean time and nodes
//! per position (a fresh table for each).
//!
//! `cargo bench --bench connect4_sets [-- SET...]` (default: Test_L2_R1), reading the sets
//! from `../shared/data/connect4/`.

use std::path::PathBuf;
use std::time::Duration;

use cutoff::games::connect4::solver::Connect4Solver;
use cutoff::games::connect4::test_sets::TestPosition;
use cutoff::games::connect4::Connect4;
use cutoff::search::ScoreReport;
use cutoff::tools::solve::Solver;

fn main() {
    let sets: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a.starts_with("Test_"))
        .collect();
    let sets = if sets.is_empty() {
        vec!["Test_L2_R1".to_string()]
    } else {
        sets
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/connect4");
    for set in sets {
        let path = dir.join(&set);
        let Ok(text) = std::fs::read_to_string(&path) else {
            println!("SKIPPED: {} not found", path.display());
            continue;
        };
        let tests: Vec<TestPosition> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .filter_map(|line| {
                let parsed = TestPosition::parse(line);
                if parsed.is_err() {
                    println!("bad line: {line}");
                }
                parsed.ok()
            })
            .collect();
        let solvers = [
            (
                "solver",
                Solver::with_search(Box::new(Connect4Solver::new(64))),
            ),
            ("core", Solver::<Connect4>::new(64)),
        ];
        for (name, mut solver) in solvers {
            let (mut wrong, mut nodes) = (0u64, 0u64);
            let mut time = Duration::ZERO;
            for test in &tests {
                solver.forget();
                let solution = solver.solve(&test.position, false, &mut |_| {});
                time += solution.elapsed;
                nodes += solution.nodes;
                let report = solution.value.map(ScoreReport::from_score);
                if report != Some(test.expected_report()) {
                    wrong += 1;
                    println!("WRONG: {} {} -> {report:?}", test.moves, test.score);
                }
            }
            let n = tests.len().max(1) as u64;
            println!(
                "{set} ({name}): {} positions, {wrong} wrong, mean time {:.3} ms, mean nodes {}, {:.0} positions/s",
                tests.len(),
                time.as_secs_f64() * 1000.0 / n as f64,
                nodes / n,
                tests.len() as f64 / time.as_secs_f64().max(1e-9)
            );
        }
    }
}
