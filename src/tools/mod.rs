//! Tools built on the engine, one module each with its command-line arguments and `run`:
//! bench, perft, solve, tree-stats and the opening book builder; the evaluation options
//! `bench` and `datagen` share ([`EvalArgs`]). The match runner, its referee and `play`
//! (engine processes, clocks, tournaments) are the match crate, `matches/`; the training
//! tools (`datagen`, `train`, `data`, `tune`) the training crate, `training/`.

pub mod bench;
pub mod book;
mod eval;
pub mod perft;
pub mod solve;
pub mod tree_stats;

pub use eval::EvalArgs;

use crate::games;

/// `cutoff games`: one tab-separated line per registered game (`scripts/sprt.sh` reads it).
pub fn list_games() {
    println!("name\tplayers\tbench_depth\topening_book\tmatch_tc\tsummary");
    for kind in games::all() {
        let info = kind.info();
        println!(
            "{}\t{}/{}\t{}\t{}\t{}\t{}",
            info.name,
            info.players[0],
            info.players[1],
            info.tools.bench_depth,
            info.tools.opening_book,
            info.tools.match_tc,
            info.summary
        );
    }
}
