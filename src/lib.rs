//! cutoff: a game-playing engine with one generic search core and several games,
//! spoken to over UCI and UGI.
//!
//! - [`search`] knows no game and no protocol: the [`search::Game`] trait, scores, the
//!   transposition table, move ordering, limits, the iterative-deepening PVS search, and
//!   the threads that run it ([`search::ThreadPool`]).
//! - [`games`] implements the rules, evaluation and notation of each game.
//! - [`nnue`] is the learned evaluation any game with a feature set plugs into.
//! - [`protocol`] turns input lines into commands and search events into output lines.
//! - [`tools`] holds bench, perft and the other command-line tools that play.
//!
//! Training (self-play data, the trainer, Texel tuning) is another crate of the workspace,
//! `cutoff-training` in `training/`, and the `cutoff` binary is the package in `cli/`: this
//! library compiles without either.
//! - [`rng`] is a small seeded random generator shared by them.

#![warn(missing_docs)]

pub mod games;
pub mod nnue;
pub mod pgn;
pub mod protocol;
pub mod rng;
pub mod search;
pub mod testdata;
pub mod tools;
