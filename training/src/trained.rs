//! [`TRAINED`], the one list of the registered games that train a net (each a
//! [`TrainingSupport`]), and [`training_of`], through which the tools reach a game's
//! training and which refuses a game that has none.

use std::io::Write;
use std::marker::PhantomData;
use std::path::PathBuf;

use cutoff::games::ataxx::Ataxx;
use cutoff::games::chess::Chess;
use cutoff::games::gomoku::Gomoku;
use cutoff::games::{self, GameKind};
use cutoff::nnue::{FeatureSet, Network};

use crate::relabel::{self, RelabelStats};
use crate::selfplay::{self, DataFormat, DatagenOptions, DatagenSummary};
use crate::store::{StoreFilter, StoreStats};
use crate::support::TrainingSupport;
use crate::trainer::{self, EpochReport, TrainResult, TrainSettings, TrainingRecord};

/// The registered games that train a net, one line each; any other is refused by
/// [`training_of`].
pub static TRAINED: &[&dyn Trained] = &[
    &Of::<Chess>(PhantomData),
    &Of::<Ataxx>(PhantomData),
    &Of::<Gomoku>(PhantomData),
];

/// A game's [`TrainingSupport`] as the tools call it, without its type.
pub trait Trained: Sync {
    /// Whether the registered `game` is this one.
    fn plays(&self, game: GameKind) -> bool;
    /// The inputs a net may have (`cutoff train --features`), the default first.
    fn features(&self) -> &'static [FeatureSet];
    /// The formats its datagen writes.
    fn formats(&self) -> &'static [DataFormat];
    /// The size of one of its records in bytes.
    fn record_bytes(&self) -> usize;
    /// The number of its board symmetries, the identity included.
    fn symmetries(&self) -> usize;
    /// Appends the image of one record under symmetry `symmetry` to `out`.
    fn push_image(&self, record: &[u8], symmetry: usize, out: &mut Vec<u8>);
    /// Whether one record's side to move is in check.
    fn record_in_check(&self, record: &[u8]) -> bool;
    /// Appends the whole records of `records`, relabelled by `teacher`, to `out`
    /// ([`relabel::relabel`]).
    fn relabel(
        &self,
        records: &[u8],
        teacher: &Network,
        weight: f64,
        images: usize,
        out: &mut Vec<u8>,
    ) -> RelabelStats;
    /// Plays games `options.first_game ..` from the book lines (empty: none) on
    /// `options.threads` threads, appends them to `out` in game order in
    /// `options.format`, tells `progress` the totals after each game.
    fn datagen(
        &self,
        options: &DatagenOptions,
        book: &[Vec<String>],
        out: &mut dyn Write,
        progress: &mut dyn FnMut(&DatagenSummary),
    ) -> Result<DatagenSummary, String>;
    /// Decodes its records (whole ones) and trains a net on them, validated on
    /// `validation` (when empty, the last `--validation` fraction of `records` is held
    /// out), reporting each epoch.
    fn train(
        &self,
        records: &[u8],
        validation: &[u8],
        settings: &TrainSettings,
        report: &mut dyn FnMut(&EpochReport),
    ) -> Result<TrainResult, String>;
    /// Decodes its records (whole ones) and refuses the first that cannot be one of its
    /// positions (`data shuffle` checks its input with it).
    fn check(&self, records: &[u8]) -> Result<(), String>;
    /// Reads store files into its training records ([`TrainingSupport::read_store`]).
    fn read_store(
        &self,
        files: &[PathBuf],
        filter: &StoreFilter,
        symmetries: bool,
        out: &mut Vec<u8>,
    ) -> Result<StoreStats, String>;
}

/// The [`Trained`] of the game `G`.
pub struct Of<G>(PhantomData<fn() -> G>);

impl<G: TrainingSupport> Trained for Of<G>
where
    G::Variant: Default,
{
    fn plays(&self, game: GameKind) -> bool {
        game.plays::<G>() && G::trains(game)
    }

    fn features(&self) -> &'static [FeatureSet] {
        G::Record::FEATURE_SETS
    }

    fn formats(&self) -> &'static [DataFormat] {
        G::FORMATS
    }

    fn record_bytes(&self) -> usize {
        G::RECORD_BYTES
    }

    fn symmetries(&self) -> usize {
        G::SYMMETRIES
    }

    fn push_image(&self, record: &[u8], symmetry: usize, out: &mut Vec<u8>) {
        G::push_image(record, symmetry, out)
    }

    fn record_in_check(&self, record: &[u8]) -> bool {
        G::record_in_check(record)
    }

    fn relabel(
        &self,
        records: &[u8],
        teacher: &Network,
        weight: f64,
        images: usize,
        out: &mut Vec<u8>,
    ) -> RelabelStats {
        relabel::relabel::<G>(records, teacher, weight, images, out)
    }

    fn datagen(
        &self,
        options: &DatagenOptions,
        book: &[Vec<String>],
        out: &mut dyn Write,
        progress: &mut dyn FnMut(&DatagenSummary),
    ) -> Result<DatagenSummary, String> {
        selfplay::run::<G>(options, book, out, progress)
    }

    fn train(
        &self,
        records: &[u8],
        validation: &[u8],
        settings: &TrainSettings,
        report: &mut dyn FnMut(&EpochReport),
    ) -> Result<TrainResult, String> {
        trainer::train_on(
            &G::decode(records),
            &G::decode(validation),
            settings,
            report,
        )
    }

    fn check(&self, records: &[u8]) -> Result<(), String> {
        trainer::check_positions(&G::decode(records))
    }

    fn read_store(
        &self,
        files: &[PathBuf],
        filter: &StoreFilter,
        symmetries: bool,
        out: &mut Vec<u8>,
    ) -> Result<StoreStats, String> {
        G::read_store(files, filter, symmetries, out)
    }
}

/// How `game` trains its net, or an error for `tool` naming the games that train one.
pub fn training_of(game: GameKind, tool: &str) -> Result<&'static dyn Trained, String> {
    let find = |game: GameKind| TRAINED.iter().copied().find(|t| t.plays(game));
    find(game).ok_or_else(|| {
        let trained: Vec<&str> = games::all()
            .filter(|&kind| find(kind).is_some())
            .map(GameKind::name)
            .collect();
        format!(
            "{tool}: {game} has no learned evaluation to train (games with one: {})",
            trained.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_without_training_is_told_which_games_have_it() {
        let chess = games::find("chess").expect("chess is registered");
        let ataxx = games::find("ataxx").expect("ataxx is registered");
        let connect4 = games::find("connect4").expect("connect4 is registered");
        assert_eq!(
            training_of(chess, "train").map(|t| t.features()[0].name),
            Ok("Chess768")
        );
        assert_eq!(
            training_of(ataxx, "train").map(|t| t.features()[0].name),
            Ok("Ataxx147")
        );
        assert_eq!(
            training_of(connect4, "datagen").map(|t| t.features()[0].name),
            Err(
                "datagen: connect4 has no learned evaluation to train (games with one: chess, gomoku, ataxx)"
                    .to_string()
            )
        );
    }

    #[test]
    fn every_trained_game_is_registered_once_and_its_records_have_their_size() {
        for trained in TRAINED {
            let games: Vec<GameKind> = games::all().filter(|&g| trained.plays(g)).collect();
            assert_eq!(games.len(), 1, "{:?}", trained.features()[0].name);
            // bullet's 32-byte records for chess and Ataxx; gomoku's 15x15 board needs 72.
            let expected = if games[0].name() == "gomoku" { 72 } else { 32 };
            assert_eq!(trained.record_bytes(), expected, "{}", games[0]);
        }
        let gomoku20 = games::find("gomoku20").expect("gomoku20 is registered");
        assert!(training_of(gomoku20, "train").is_err());
    }
}
