//! The evaluation options `bench` and `datagen` share ([`EvalArgs`]): the game's built-in
//! net, a net file, or the hand-crafted evaluation.

use std::path::Path;
use std::sync::Arc;

use clap::Args;

use crate::games::{EvalNet, Evaluation, GameKind, VariantSettings};
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
