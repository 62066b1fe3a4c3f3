//! Solves Connect Four test sets (Pascal Pons' format) with the engine's search and checks
//! every exact score; prints mean time and nodes per position.
//!
//! `cargo bench --bench connect4_sets [-- SET...]` (default: Test_L2_R1), reading the sets
//! from `../shared/data/connect4/`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cutoff::games::connect4::Connect4;
use cutoff::search::{Limits, ScoreReport, SearchControl, Searcher, TranspositionTable};
use cutoff::tools::connect4_sets::TestPosition;

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
    let tt = Arc::new(TranspositionTable::new(64));
    for set in sets {
        let path = dir.join(&set);
        let Ok(text) = std::fs::read_to_string(&path) else {
            println!("SKIPPED: {} not found", path.display());
            continue;
        };
        let (mut count, mut wrong, mut nodes) = (0u64, 0u64, 0u64);
        let mut time = Duration::ZERO;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(test) = TestPosition::parse(line) else {
                println!("bad line: {line}");
                continue;
            };
            tt.clear();
            let mut searcher = Searcher::<Connect4>::new(Arc::clone(&tt));
            let control = Arc::new(SearchControl::new(Instant::now(), false));
            let started = Instant::now();
            let result = searcher.run(
                &test.position,
                &Limits::depth(test.remaining_plies()),
                &[],
                control,
                &mut |_| {},
            );
            time += started.elapsed();
            nodes += result.nodes;
            count += 1;
            if ScoreReport::from_score(result.score) != test.expected_report() {
                wrong += 1;
                println!(
                    "WRONG: {line} -> {:?}",
                    ScoreReport::from_score(result.score)
                );
            }
        }
        let n = count.max(1);
        println!(
            "{set}: {count} positions, {wrong} wrong, mean time {:.3} ms, mean nodes {}, {:.0} positions/s",
            time.as_secs_f64() * 1000.0 / n as f64,
            nodes / n,
            count as f64 / time.as_secs_f64().max(1e-9)
        );
    }
}
