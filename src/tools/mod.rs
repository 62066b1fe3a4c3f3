//! Tools built on the engine: perft, bench and the match runner.

pub mod bench;
pub mod matches;
pub mod perft;
pub mod play;
pub mod solve;
pub mod tree_stats;
