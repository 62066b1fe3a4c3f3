//! How a game is trained: the [`TrainingSupport`] trait, the one trait a game implements
//! (statically) for `cutoff datagen`, `train` and `data`: how its self-play plays and
//! keeps its games, and its records for the trainer, as monty's `DatagenSupport` is. The
//! list of the games that implement it is in `trained`.

use std::sync::Arc;

use cutoff::games::GameKind;
use cutoff::nnue::Network;
use cutoff::search::{Game, MoveList};

use crate::records::StoreFormat;
use crate::trainer::TrainingRecord;

/// A game whose learned evaluation is trained on its own games; its net is loaded through
/// the engine's `GameInfo::eval_net`. A game says how its self-play goes (the variant, the
/// training positions and their records, when a game ends early), how its games are kept
/// (by default cutoff's game records) and how the trainer reads its records; the defaults
/// are for a game with nothing to say.
pub trait TrainingSupport: Game {
    /// The game's registry name, written in its game records.
    const RECORD_NAME: &'static str;
    /// Its trainer's record (`ChessBoard`, `AtaxxBoard`): a position, score and result,
    /// and the input features of the net's feature sets ([`TrainingRecord::FEATURE_SETS`]).
    type Record: TrainingRecord;
    /// The size of one record in a file, in bytes.
    const RECORD_BYTES: usize;
    /// Where a record's search score (`i16`, little-endian) sits (`data relabel` writes it).
    const SCORE_OFFSET: usize;

    /// The variant self-play plays and the store replays, evaluated by `net` (`None`: the
    /// hand-crafted evaluation; replaying evaluates nothing).
    fn datagen_variant(net: Option<Arc<Network>>) -> Self::Variant;

    /// Whether this position, `ply` plies after the opening, whose search chose `best`, is
    /// a training position (the store's reader keeps the same).
    fn is_sample(&self, best: Self::Move, ply: usize) -> bool;

    /// Appends the trainer's record of this position, with the search's `score` (side to
    /// move's view) and the game's result (`first_result`, the first player's score).
    fn push_training_record(&self, score: i16, first_result: f64, out: &mut Vec<u8>);

    /// Decodes the whole records of `bytes` (a trailing partial record is left out).
    fn decode(bytes: &[u8]) -> Vec<Self::Record>;

    /// Plies after which an unfinished self-play game is a draw.
    const MAX_PLIES: usize = usize::MAX;

    /// When self-play ends a game early by its scores; none by default (a game then ends
    /// by the rules, a mate score or [`Self::MAX_PLIES`]).
    const ADJUDICATION: Option<Adjudication> = None;

    /// How its games are kept in the store: cutoff's game records by default.
    const STORE_FORMAT: StoreFormat = StoreFormat::GAME_RECORDS;

    /// The code of `mv`, a move of this position, in its game records:
    /// `SearchHooks::encode_move` by default.
    fn record_code(&self, mv: Self::Move) -> u16 {
        Self::encode_move(mv)
    }

    /// The legal move of this position whose code in its game records is `code`, if there
    /// is one (the inverse of [`Self::record_code`]).
    fn move_of_record_code(&self, code: u16) -> Option<Self::Move> {
        let mut moves = MoveList::new();
        self.generate_moves(&mut moves);
        moves
            .iter()
            .copied()
            .find(|&mv| self.record_code(mv) == code)
    }

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
}

/// Ending a self-play game early by its scores (chess's datagen), so that won games and
/// dead-drawn endings do not flood the data with near-identical positions: a score of at
/// least `win_score` (side to move's view) held by the same side for `win_plies` plies in a
/// row wins; a score within `draw_score` for `draw_plies` plies in a row, from ply
/// `draw_from_ply` on, draws.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// A score that wins when held long enough.
    pub win_score: i32,
    /// Plies in a row the score must stay beyond `win_score` for the same side.
    pub win_plies: usize,
    /// A score within which the game counts as level.
    pub draw_score: i32,
    /// Plies in a row the score must stay within `draw_score` to draw.
    pub draw_plies: usize,
    /// The first ply at which a draw may be adjudicated.
    pub draw_from_ply: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutoff::games::ataxx::Ataxx;
    use cutoff::games::chess::Chess;
    use cutoff::games::gomoku::Gomoku;

    /// A zeroed record of `G` with `score` written at its `SCORE_OFFSET` decodes to it.
    fn score_offset_is_the_score<G: TrainingSupport>() {
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

    /// Every legal move of `G`'s start position is found again by its record code.
    fn record_codes_find_their_moves<G: TrainingSupport>() {
        let game = G::start(&G::datagen_variant(None));
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        assert!(!moves.is_empty());
        for &mv in moves.iter() {
            assert_eq!(game.move_of_record_code(game.record_code(mv)), Some(mv));
        }
    }

    #[test]
    fn record_codes_are_found_again() {
        record_codes_find_their_moves::<Chess>();
        record_codes_find_their_moves::<Ataxx>();
        record_codes_find_their_moves::<Gomoku>();
    }
}
