//! Training the chess evaluation on cutoff's own games: `cutoff datagen` plays the engine
//! against itself and writes labelled positions, `cutoff tune` fits the evaluation's
//! weights to them. Both are chess-only, so they live with the evaluation they train.

pub mod datagen;
pub mod tune;
