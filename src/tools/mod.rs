//! Tools built on the engine: perft and bench.

pub mod bench;
pub mod connect4_sets;
pub mod perft;
pub mod solve;
pub mod tree_stats;
