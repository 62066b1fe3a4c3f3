//! Training the chess evaluation on cutoff's own games: `cutoff datagen` plays the engine
//! against itself and writes labelled positions, `cutoff tune` fits the hand-crafted
//! evaluation's weights to them, `cutoff train` trains an NNUE network on them (the trainer
//! itself is generic, [`crate::nnue::train`], re-exported here as [`train`]). `cutoff data`
//! shuffles and converts the records ([`records`]). Their command lines are in [`cli`].

pub mod cli;
pub mod datagen;
pub mod records;
pub use crate::nnue::train;
pub mod tune;
