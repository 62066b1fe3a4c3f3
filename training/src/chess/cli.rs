//! The command line of chess's own training tool, `cutoff tune` (Texel tuning of the
//! hand-crafted evaluation): an argument struct and a `run` that reads the positions, tunes
//! and writes the weights. The tools every game with a net shares (`datagen`, `train`,
//! `data`) are in `training/src/`.

use std::io;

use clap::Args;

use super::tune::{self, TuneSettings};
use cutoff::games::chess::Chess;
use cutoff::games::GameKind;

/// An error unless `game` is chess, the only game `tune` (and `data convert`) serve:
/// `what` says why.
pub fn chess_only(game: GameKind, what: &str) -> Result<(), String> {
    if game.plays::<Chess>() {
        Ok(())
    } else {
        Err(format!("{what}, not {game}"))
    }
}

/// `cutoff tune`: Texel tuning of the hand-crafted evaluation.
#[derive(Args, Clone, Debug)]
pub struct TuneArgs {
    /// The labelled positions.
    #[arg(long)]
    pub data: String,
    /// How the weights are fitted.
    #[command(flatten)]
    pub settings: TuneSettings,
    /// Write the weights here (e.g. src/games/chess/weights.rs) instead of stdout.
    #[arg(long)]
    pub out: Option<String>,
}

impl TuneArgs {
    /// Tunes from the built-in weights and writes the result as Rust source.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        chess_only(game, "tune tunes the chess evaluation only")?;
        if let Some(out) = &self.out {
            crate::check_output_path(out)?;
        }
        run_tune(&self.data, &self.settings, self.out.as_deref())
    }
}

/// `cutoff tune`: tunes from the built-in weights, writes the result.
fn run_tune(data: &str, settings: &TuneSettings, out: Option<&str>) -> Result<(), String> {
    use cutoff::games::chess::weights::WEIGHTS;

    let text = std::fs::read_to_string(data).map_err(|e| format!("cannot read {data}: {e}"))?;
    let result = tune::run(&text, &WEIGHTS, settings, &mut io::stderr())?;
    let note = format!(
        "Tuned on {} positions of `{data}` ({} iterations, learning rate {},\n\
         regularization {}): K = {:.4}, mean squared error {:.6} -> {:.6};\n\
         on {} held-out positions {:.6} -> {:.6}.",
        result.positions,
        settings.iterations,
        settings.learning_rate,
        settings.regularization,
        result.k,
        result.error_before,
        result.error_after,
        result.validation_positions,
        result.validation_before,
        result.validation_after
    );
    let source = tune::weights_source(&result.weights, &note);
    match out {
        Some(path) => {
            std::fs::write(path, source).map_err(|e| format!("cannot write {path}: {e}"))?;
            println!(
                "K {:.4} error {:.6} -> {:.6} (held out {:.6} -> {:.6}), weights written to {path}",
                result.k,
                result.error_before,
                result.error_after,
                result.validation_before,
                result.validation_after
            );
        }
        None => print!("{source}"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutoff::games;

    #[test]
    fn only_chess_is_trained() {
        let chess = games::find("chess").expect("chess is registered");
        let connect4 = games::find("connect4").expect("connect4 is registered");
        assert!(chess_only(chess, "datagen plays chess only").is_ok());
        assert_eq!(
            chess_only(connect4, "datagen plays chess only"),
            Err("datagen plays chess only, not connect4".to_string())
        );
    }
}
