//! `cutoff --game gomoku datagen --format bullet`: 15x15 freestyle self-play at a fixed
//! node count per move, writing [`GomokuRecord`]s (the stones and the search's score from
//! the side to move's view, and the game's result) for `cutoff --game gomoku train`.
//!
//! Each game starts from a random line of the opening book (`openings/gomoku.txt`) and a
//! few random plies among the cells the search considers (near the stones), drawn from the
//! game's own seed, so the output
//! depends only on the arguments, as every game's datagen ([`crate::selfplay`], whose run
//! loop this shares). A game ends by the rules (a five, or a full board: a draw) or by a
//! mate score (the side that has it wins). Every position before the end is kept unless
//! its score is a mate score or its side to move is in check (facing a four: the search
//! never evaluates such a position statically).

use crate::gomoku::GomokuRecord;
use crate::selfplay::{self, DatagenOptions, GameOutput, SelfPlay, SelfPlayHooks};
use cutoff::games::gomoku::nnue::NetRef;
use cutoff::games::gomoku::{Gomoku, GomokuVariant};
use cutoff::games::EvalNet;
use cutoff::search::{Player, Rules, SearchHooks, ThreadPool};

impl SelfPlayHooks for Gomoku {
    const RECORD_NAME: &'static str = "gomoku";

    /// 15x15 freestyle, evaluated by `options.net` when it is a gomoku net.
    fn datagen_variant(options: &DatagenOptions) -> GomokuVariant {
        GomokuVariant {
            net: options
                .net
                .as_ref()
                .and_then(|net| NetRef::of(&(net.clone() as EvalNet))),
            ..GomokuVariant::FREESTYLE15
        }
    }

    /// Every position whose side to move is not facing a four.
    fn is_sample(&self, _ply: usize) -> bool {
        !self.in_check()
    }

    /// A [`GomokuRecord`]: the side to move's stones first, the score and result from its
    /// view.
    fn push_training_record(&self, score: i16, first_result: f64, out: &mut Vec<u8>) {
        let second = self.side_to_move() == Player::Second;
        let [x, o] = self.stones15().expect("a 15x15 board");
        let stones = if second { [o, x] } else { [x, o] };
        let result = if second {
            1.0 - first_result
        } else {
            first_result
        };
        out.extend_from_slice(&GomokuRecord::new(stones, score, result as f32).to_bytes());
    }
}

impl SelfPlay for Gomoku {
    /// The one self-play loop ([`selfplay::record_played_game`]), as gomoku records or
    /// game records.
    fn record_game(
        index: usize,
        book: &[Vec<String>],
        options: &DatagenOptions,
        pool: &mut ThreadPool<Gomoku>,
    ) -> GameOutput {
        selfplay::record_played_game(index, book, options, pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gomoku::decode_records;
    use crate::selfplay::DataFormat;
    use crate::trainer::TrainingRecord;
    use crate::TrainingSupport;
    use bulletformat::BulletFormat;

    fn options() -> DatagenOptions {
        DatagenOptions {
            games: 3,
            first_game: 0,
            nodes: 300,
            threads: 1,
            random_plies: (0, 2),
            format: DataFormat::Bullet,
            seed: 7,
            hash_mb: 1,
            net: None,
        }
    }

    #[test]
    fn gomoku_datagen_is_deterministic_and_decodes() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../openings/gomoku.txt"
        ))
        .expect("the gomoku book");
        let book = selfplay::read_book(&text);
        let generate = |options: &DatagenOptions| {
            let mut bytes = Vec::new();
            let summary = selfplay::run::<Gomoku>(options, &book, &mut bytes, &mut |_| {}).unwrap();
            (bytes, summary)
        };
        let (first, summary) = generate(&options());
        assert_eq!(summary.games, 3);
        assert!(summary.positions > 10, "{summary:?}");
        assert_eq!(first.len(), 72 * summary.positions);
        let threaded = DatagenOptions {
            threads: 2,
            ..options()
        };
        assert_eq!(generate(&threaded).0, first);
        let records = decode_records(&first);
        assert_eq!(records.len(), summary.positions);
        assert!(records.iter().all(|r| r.problem().is_none()));
        assert!(records.iter().any(|r| r.score() != 0));
        assert!(
            first.chunks_exact(72).all(|r| !Gomoku::record_in_check(r)),
            "no position in check"
        );
        // A decisive game: its last position's side to move won or lost, and the side
        // to move alternates, so consecutive records of a game have opposite results.
        assert!(records
            .iter()
            .all(|r| [0.0, 0.5, 1.0].contains(&r.result())));
        assert!(records
            .windows(2)
            .any(|w| w[0].result() + w[1].result() == 1.0));
        // Bytes that are no gomoku record are refused before a feature is read.
        assert!(decode_records(&[0xff; 72])[0].problem().is_some());
        assert!(
            decode_records(&[0; 72])[0].problem().is_some(),
            "no board size"
        );
    }

    #[test]
    fn random_plies_fall_near_the_stones() {
        let options = DatagenOptions {
            random_plies: (5, 5),
            ..options()
        };
        for index in 0..20 {
            let game: Gomoku =
                selfplay::opening_of(&GomokuVariant::FREESTYLE15, index, &[], &options);
            let [x, o] = game.stones15().unwrap();
            let cells: Vec<(i32, i32)> = (0..225)
                .filter(|&c| (x[c / 64] | o[c / 64]) >> (c % 64) & 1 == 1)
                .map(|c| ((c / 15) as i32, (c % 15) as i32))
                .collect();
            assert_eq!(cells.len(), 5, "game {index}");
            assert!(cells.contains(&(7, 7)), "the first stone in the centre");
            for &(row, col) in &cells {
                assert!(
                    cells
                        .iter()
                        .any(|&(r, c)| (r, c) != (row, col)
                            && (r - row).abs().max((c - col).abs()) <= 2),
                    "game {index}: a stone at {row},{col} far from the others"
                );
            }
        }
    }
}
