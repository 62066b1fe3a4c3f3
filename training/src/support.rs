//! How a game is trained: the [`TrainingSupport`] trait a game implements (its self-play,
//! its bullet records, the formats its datagen writes), as monty's `DatagenSupport` is. The
//! list of the games that implement it is in `trained`.

use std::path::PathBuf;

use cutoff::games::GameKind;

use crate::selfplay::{DataFormat, SelfPlay, SelfPlayHooks};
use crate::store::{self, ImageFn, StoreFilter, StoreStats};
use crate::trainer::TrainingRecord;

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

#[cfg(test)]
mod tests {
    use super::*;
    use cutoff::games::ataxx::Ataxx;
    use cutoff::games::chess::Chess;
    use cutoff::games::gomoku::Gomoku;

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
}
