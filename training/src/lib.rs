//! The learned-evaluation tools of every game: `cutoff datagen` ([`datagen`]), `train`
//! ([`train`]) and `data` ([`data`]), each an argument struct and a `run` that reads the
//! files, calls the game's [`TrainingSupport`] from the registry and reports on stdout
//! (progress on stderr). A game without one gets an error naming the games that have one.
//! The evaluation options of `datagen` and `bench` ([`EvalArgs`]) are here too. The
//! chess-only `cutoff tune` is in `games/chess/training/cli.rs`.

pub mod data;
pub mod datagen;
pub mod train;

use std::path::Path;
use std::sync::Arc;

use clap::Args;

use crate::games::{self, EvalNet, Evaluation, GameKind, TrainingSupport, VariantSettings};
use crate::nnue::Network;

/// How a game evaluates in `bench` and `datagen`: the built-in net unless told otherwise.
#[derive(Args, Clone, Debug, Default)]
pub struct EvalArgs {
    /// Evaluate the game of `--game` (chess by default) with this NNUE net file instead of
    /// its built-in evaluation (what `setoption name EvalFile` does); other games unchanged
    /// in `bench`.
    #[arg(long, value_name = "NET", conflicts_with = "hce")]
    pub evalfile: Option<String>,
    /// Evaluate with the hand-crafted evaluation even when a net is built in (what
    /// `setoption name UseNNUE value false` does).
    #[arg(long)]
    pub hce: bool,
}

impl EvalArgs {
    /// The net of `--evalfile`, read as `game`'s `EvalFile` option reads it (`None`
    /// without `--evalfile`).
    fn evalfile_net(&self, game: GameKind) -> Result<Option<EvalNet>, String> {
        let Some(path) = &self.evalfile else {
            return Ok(None);
        };
        let support = game
            .info()
            .eval_net
            .ok_or_else(|| format!("--evalfile: {game} takes no evaluation net"))?;
        let net = (support.load)(Path::new(path)).map_err(|e| format!("{path}: {e}"))?;
        Ok(Some(net))
    }

    /// The network of `game` these arguments select for its self-play: `--evalfile`, else
    /// none with `--hce`, else the game's built-in net (`None`: hand-crafted evaluation).
    pub fn net(&self, game: GameKind) -> Result<Option<Arc<Network>>, String> {
        let net = match self.evalfile_net(game)? {
            Some(net) => Some(net),
            None if self.hce => None,
            None => game
                .info()
                .eval_net
                .and_then(|support| (support.embedded)()),
        };
        net.map(|net| {
            net.downcast::<Network>()
                .map_err(|_| format!("{game}'s evaluation net is no NNUE network"))
        })
        .transpose()
    }

    /// The same choice as protocol settings, for tools that run every game: `--evalfile`
    /// is a net of `game` (read as its `EvalFile` option reads it), which only `game`
    /// uses; `--hce` is every game's hand-crafted evaluation.
    pub fn settings(&self, game: GameKind) -> Result<VariantSettings, String> {
        let evaluation = match self.evalfile_net(game)? {
            Some(net) => Evaluation::Net(net),
            None if self.hce => Evaluation::HandCrafted,
            None => Evaluation::BuiltIn,
        };
        Ok(VariantSettings {
            evaluation,
            ..VariantSettings::default()
        })
    }
}

/// How `game` trains its net, or an error for `tool` naming the games that train one.
pub fn training_of(game: GameKind, tool: &str) -> Result<TrainingSupport, String> {
    game.info().training.ok_or_else(|| {
        let trained: Vec<&str> = games::all()
            .filter(|kind| kind.info().training.is_some())
            .map(GameKind::name)
            .collect();
        format!(
            "{tool}: {game} has no learned evaluation to train (games with one: {})",
            trained.join(", ")
        )
    })
}

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

    #[test]
    fn a_game_without_training_is_told_which_games_have_it() {
        let chess = games::find("chess").expect("chess is registered");
        let ataxx = games::find("ataxx").expect("ataxx is registered");
        let connect4 = games::find("connect4").expect("connect4 is registered");
        assert_eq!(
            training_of(chess, "train").map(|t| t.features[0].name),
            Ok("Chess768")
        );
        assert_eq!(
            training_of(ataxx, "train").map(|t| t.features[0].name),
            Ok("Ataxx147")
        );
        assert_eq!(
            training_of(connect4, "datagen").map(|t| t.features[0].name),
            Err(
                "datagen: connect4 has no learned evaluation to train (games with one: chess, ataxx)"
                    .to_string()
            )
        );
    }
}
