//! The black-box tests in one binary (so the suite builds and links once, and the tests that
//! wait on outside processes, python-chess and Dask's, overlap the others): each module
//! drives the real `cutoff` binary, or the match runner and data tools through it, with
//! timeouts.

#[path = "../common/mod.rs"]
mod common;

mod ataxx;
mod chess;
mod connect4_play;
mod dask_cluster;
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
mod python_chess;
mod skill;
mod solve;
mod syzygy;
mod tuning;
