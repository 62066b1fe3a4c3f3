//! Training cutoff's learned evaluations, apart from the engine that plays with them: the
//! engine library (`cutoff`) holds inference (`cutoff::nnue`), rules and search; this crate
//! holds what only training needs, and the `cutoff` binary links it for its training
//! subcommands.
//!
//! - [`datagen`], [`train`], [`data`]: `cutoff datagen`, `train` and `data`, each an
//!   argument struct and a `run` that reads the files, calls the game's training support
//!   and reports on stdout (progress on stderr);
//! - [`selfplay`]: the one self-play loop every game's datagen plays through; [`trainer`]:
//!   the generic NNUE trainer on any game's records;
//! - [`records`], [`blocks`] and [`store`]: the game records self-play writes, the store's
//!   blocks, and the one reader that replays them into training records;
//! - [`relabel`]: `cutoff data relabel`, scores mixed with a teacher net's evaluation;
//! - [`support`]: the [`TrainingSupport`] trait, the one trait a game implements to be
//!   trained;
//! - [`trained`]: the list of games that do ([`with_training`] runs a tool's work for the
//!   game's type); a game without one gets an error naming the games that have one;
//! - [`chess`], [`ataxx`] and [`gomoku`]: each game's [`TrainingSupport`] and records;
//!   chess's Texel tuning (`cutoff tune`) and store format (viriformat) are in [`chess`]
//!   too, gomoku's move-ordering policy (`cutoff train-policy`) in [`gomoku`].

#![warn(missing_docs)]

pub mod ataxx;
pub mod blocks;
pub mod chess;
pub mod data;
pub mod datagen;
pub mod gomoku;
pub mod records;
pub mod relabel;
pub mod selfplay;
pub mod store;
pub mod support;
pub mod train;
pub mod trained;
pub mod trainer;

use std::path::Path;

pub use support::TrainingSupport;
pub use trained::{with_training, TrainingTask};

/// An error unless `out` can be a file to write: its directory exists. Checked before a
/// long run, so that a typing error costs seconds, not the run.
pub fn check_output_path(out: &str) -> Result<(), String> {
    let dir = match Path::new(out).parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if dir.is_dir() {
        Ok(())
    } else {
        Err(format!(
            "cannot write {out}: {} is no directory",
            dir.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_paths_need_an_existing_directory() {
        assert!(check_output_path("net.nnue").is_ok());
        assert!(check_output_path("/tmp/net.nnue").is_ok());
        let error = check_output_path("/nonexistent/dir/net.nnue").unwrap_err();
        assert!(
            error.contains("/nonexistent/dir is no directory"),
            "{error}"
        );
    }
}
