//! `cutoff --game ataxx datagen --format bullet`: Ataxx self-play at a fixed node count per
//! move, writing bullet `AtaxxBoard` records (the board and the search's score from the
//! side to move's view, and the game's result) for `cutoff --game ataxx train`.
//!
//! Each game starts from a random line of the opening book (`openings/ataxx.txt`) and a
//! few random legal plies, drawn from the game's own seed (the run's seed and the game's
//! number), so the output depends only on the arguments, as every game's datagen
//! ([`crate::selfplay`], whose run loop this shares). A game ends by
//! the rules (Ataxx ends by itself: the board fills up or the clock reaches 100 half-moves),
//! by a mate score (the side that has it wins), or as a draw after [`MAX_PLIES`]. Every
//! position after [`SKIP_PLIES`] is kept unless its score is a mate score.
//!
//! [`super`] hands this, the `Ataxx147` inputs and the record decoder to the tools.

use bulletformat::{AtaxxBoard, BulletFormat};

use crate::selfplay::{self, DatagenOptions, GameOutput, SelfPlay, SelfPlayHooks};
use cutoff::games::ataxx::{Ataxx, AtaxxVariant};
use cutoff::search::{Player, Rules, ThreadPool};

/// Plies after which an unfinished game is a draw.
pub const MAX_PLIES: usize = 500;
/// Plies from the start of the self-play (after the opening) whose positions are left out.
pub const SKIP_PLIES: usize = 2;

impl SelfPlayHooks for Ataxx {
    const RECORD_NAME: &'static str = "ataxx";
    const MAX_PLIES: usize = MAX_PLIES;

    fn datagen_variant(options: &DatagenOptions) -> AtaxxVariant {
        AtaxxVariant {
            net: options.net.clone(),
        }
    }

    /// Every position after [`SKIP_PLIES`].
    fn is_sample(&self, ply: usize) -> bool {
        ply >= SKIP_PLIES
    }

    /// A bullet `AtaxxBoard` with the score and result from the first player's view.
    fn push_training_record(&self, score: i16, first_result: f64, out: &mut Vec<u8>) {
        let second = self.side_to_move() == Player::Second;
        let first_score = if second { -score } else { score };
        let (halfmoves, fullmoves) = self.clocks();
        let [x, o] = self.stones();
        let record = AtaxxBoard::from_raw(
            [x, o, self.gaps()],
            first_score,
            first_result as f32,
            second,
            fullmoves.min(u32::from(u16::MAX)) as u16,
            halfmoves.min(255) as u8,
        );
        out.extend_from_slice(AtaxxBoard::as_bytes_slice(&[record]));
    }
}

impl SelfPlay for Ataxx {
    /// The one self-play loop ([`selfplay::record_played_game`]), as bullet records or game
    /// records.
    fn record_game(
        index: usize,
        book: &[Vec<String>],
        options: &DatagenOptions,
        pool: &mut ThreadPool<Ataxx>,
    ) -> GameOutput {
        selfplay::record_played_game(index, book, options, pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ataxx::decode_records;
    use crate::selfplay::DataFormat;

    fn options() -> DatagenOptions {
        DatagenOptions {
            games: 3,
            first_game: 0,
            nodes: 300,
            threads: 1,
            random_plies: (2, 4),
            format: DataFormat::Bullet,
            seed: 7,
            hash_mb: 1,
            net: None,
        }
    }

    #[test]
    fn ataxx_datagen_is_deterministic_and_decodes() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../openings/ataxx.txt"
        ))
        .expect("the Ataxx book");
        let book = selfplay::read_book(&text);
        let generate = |options: &DatagenOptions| {
            let mut bytes = Vec::new();
            let summary = selfplay::run::<Ataxx>(options, &book, &mut bytes, &mut |_| {}).unwrap();
            (bytes, summary)
        };
        let (first, summary) = generate(&options());
        assert_eq!(summary.games, 3);
        assert!(summary.positions > 20, "{summary:?}");
        assert_eq!(first.len(), 32 * summary.positions);
        let threaded = DatagenOptions {
            threads: 2,
            ..options()
        };
        assert_eq!(generate(&threaded).0, first);
        let records = decode_records(&first);
        assert_eq!(records.len(), summary.positions);
        assert!(records
            .iter()
            .all(|r| r.result() == 0.0 || r.result() == 0.5 || r.result() == 1.0));
        assert!(records.iter().any(|r| r.score() != 0));
        use crate::trainer::TrainingRecord;
        assert!(records.iter().all(|r| r.problem().is_none()));
        // Bytes that are no Ataxx record are refused before a feature is read.
        assert!(decode_records(&[0xff; 32])[0].problem().is_some());
    }
}
