//! How a game is trained: the [`TrainingSupport`] trait a game implements (its self-play,
//! its bullet records, the formats its datagen writes), as monty's `DatagenSupport` is, and
//! [`TRAINED`], the one list of the registered games that implement it. The tools reach a
//! game's training through [`training_of`], which refuses a game that has none.

use std::io::Write;
use std::marker::PhantomData;
use std::path::PathBuf;

use cutoff::games::ataxx::Ataxx;
use cutoff::games::chess::Chess;
use cutoff::games::gomoku::Gomoku;
use cutoff::games::{self, GameKind};
use cutoff::nnue::{FeatureSet, Network};

use crate::relabel::{self, RelabelStats};
use crate::selfplay::{self, DataFormat, DatagenOptions, DatagenSummary, SelfPlay, SelfPlayHooks};
use crate::store::{self, ImageFn, StoreFilter, StoreStats};
use crate::trainer::{self, EpochReport, TrainResult, TrainSettings, TrainingRecord};

/// A game whose learned evaluation is trained on its own games (`cutoff datagen`, `train`,
/// `data shuffle`); its net is loaded through the engine's `GameInfo::eval_net`.
pub trait TrainingSupport: SelfPlay
where
    Self::Variant: Default,
{
    /// Its bullet record (`ChessBoard`, `AtaxxBoard`): a position, score and result, and
    /// the input features of the net's feature sets ([`TrainingRecord::FEATURE_SETS`]).
    type Record: TrainingRecord;
    /// The size of one record in a file, in bytes.
    const RECORD_BYTES: usize;
    /// The formats its datagen writes (`--format`; any other is refused).
    const FORMATS: &'static [DataFormat];
    /// Where a record's search score (`i16`, little-endian) sits (`data relabel` writes it).
    const SCORE_OFFSET: usize;

    /// Decodes the whole records of `bytes` (a trailing partial record is left out).
    fn decode(bytes: &[u8]) -> Vec<Self::Record>;

    /// Whether the registered `game` (one played by this type) is the one trained: a
    /// type that plays several registry entries (gomoku's sizes and rules) trains one.
    fn trains(_game: GameKind) -> bool {
        true
    }

    /// The board's symmetries that keep every position's value (rotations and
    /// reflections), the identity included: `data shuffle --symmetries` writes each
    /// record's image under each. 1 (the identity alone) by default.
    const SYMMETRIES: usize = 1;

    /// Appends the image of `record` (one record of [`Self::RECORD_BYTES`]) under
    /// symmetry `symmetry` (`0..SYMMETRIES`, 0 the identity) to `out`.
    fn push_image(record: &[u8], symmetry: usize, out: &mut Vec<u8>) {
        debug_assert_eq!(symmetry, 0, "a game without symmetries");
        out.extend_from_slice(record);
    }

    /// Whether the side to move of `record` (one record of [`Self::RECORD_BYTES`]) is in
    /// check: the search never evaluates such a position statically, so `data shuffle
    /// --skip-in-check` leaves it out. False by default (a game without check, or whose
    /// datagen writes no such position, as chess's).
    fn record_in_check(_record: &[u8]) -> bool {
        false
    }

    /// Reads the store's game-record files `files` and appends the training records of
    /// the positions `filter` keeps to `out`, with their images under the board's
    /// symmetries if `symmetries` ([`store::read_store`]). By default an error: the game
    /// keeps no stored games.
    fn read_store(
        _files: &[PathBuf],
        _filter: &StoreFilter,
        _symmetries: bool,
        _out: &mut Vec<u8>,
    ) -> Result<StoreStats, String> {
        Err("this game's self-play is not kept as game records".to_string())
    }
}

/// [`TrainingSupport::read_store`] of a game with [`SelfPlayHooks`], replaying its games in
/// `variant` (one without a net: replaying evaluates nothing).
pub fn read_store_of<G: TrainingSupport + SelfPlayHooks>(
    variant: &G::Variant,
    files: &[PathBuf],
    filter: &StoreFilter,
    symmetries: bool,
    out: &mut Vec<u8>,
) -> Result<StoreStats, String>
where
    G::Variant: Default,
{
    let images = images_of::<G>(symmetries);
    store::read_store::<G>(variant, files, filter, images, G::RECORD_BYTES, out)
}

/// How the store's reader writes each record of `G`: with its images under the board's
/// symmetries if `symmetries` (`SYMMETRIES`, `push_image`), else as it is (1, a copy).
pub fn images_of<G: TrainingSupport>(symmetries: bool) -> (usize, ImageFn)
where
    G::Variant: Default,
{
    if symmetries {
        (G::SYMMETRIES, G::push_image as ImageFn)
    } else {
        (1, copy as ImageFn)
    }
}

/// A record as it is (the identity alone).
fn copy(record: &[u8], _symmetry: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(record);
}

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

    /// A zeroed record of `G` with `score` written at its `SCORE_OFFSET` decodes to it.
    fn score_offset_is_the_score<G: TrainingSupport>()
    where
        G::Variant: Default,
    {
        use bulletformat::BulletFormat;
        let mut record = vec![0u8; G::RECORD_BYTES];
        record[G::SCORE_OFFSET..G::SCORE_OFFSET + 2].copy_from_slice(&(-1234i16).to_le_bytes());
        assert_eq!(G::decode(&record)[0].score(), -1234);
    }

    #[test]
    fn each_game_says_where_its_records_hold_the_score() {
        score_offset_is_the_score::<Chess>();
        score_offset_is_the_score::<Ataxx>();
        score_offset_is_the_score::<Gomoku>();
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
