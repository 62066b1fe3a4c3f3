//! The black-box tests in one binary (so the suite builds and links once): each module drives
//! the real `cutoff` binary, or the match runner and data tools through it, with timeouts.
//! python-chess and the Dask cluster, which run outside processes on a real clock, stay in
//! test binaries of their own (`cli/tests/python_chess.rs`, `cli/tests/dask_cluster.rs`).

#[path = "../common/mod.rs"]
mod common;

mod ataxx;
mod chess;
mod connect4_play;
mod experiments_ledger;
mod fastchess_compliance;
mod fuzz_protocol;
mod gomocup;
mod match_runner;
mod nnue;
mod openbench;
mod play;
mod poj1568;
mod protocol;
mod skill;
mod solve;
mod syzygy;
mod tuning;
