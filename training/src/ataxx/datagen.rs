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

use crate::selfplay::{self, DatagenOptions, GameOutput, SelfPlay};
use cutoff::games::ataxx::{Ataxx, AtaxxVariant};
use cutoff::search::{Limits, Player, Rules, ThreadPool};

/// Plies after which an unfinished game is a draw.
pub const MAX_PLIES: usize = 500;
/// Plies from the start of the self-play (after the opening) whose positions are left out.
pub const SKIP_PLIES: usize = 2;

/// A position and its score from the side to move's view, before the result is known.
struct Sample {
    stones: [u64; 2],
    gaps: u64,
    second: bool,
    score: i32,
    fullmoves: u32,
    halfmoves: u32,
}

impl Sample {
    /// The bullet record with the game's result (first player's view).
    fn record(&self, result: f64) -> AtaxxBoard {
        let score = self.score.clamp(-32_000, 32_000) as i16;
        let (first_score, first_result) = if self.second {
            (-score, 1.0 - result)
        } else {
            (score, result)
        };
        AtaxxBoard::from_raw(
            [self.stones[0], self.stones[1], self.gaps],
            first_score,
            first_result as f32,
            self.second,
            self.fullmoves.min(u32::from(u16::MAX)) as u16,
            self.halfmoves.min(255) as u8,
        )
    }
}

/// Plays game number `index` with `pool` (cleared first) at `options.nodes` per move.
pub fn play_game(
    index: usize,
    book: &[Vec<String>],
    options: &DatagenOptions,
    pool: &mut ThreadPool<Ataxx>,
) -> GameOutput {
    let variant = AtaxxVariant {
        net: options.net.clone(),
    };
    let mut game: Ataxx = selfplay::opening_of(&variant, index, book, options);
    pool.new_game();
    let limits = Limits::nodes(options.nodes.max(1));
    let mut samples = Vec::new();
    let mut plies = 0;
    let result = loop {
        if let Some(end) = game.game_end() {
            break selfplay::first_player_score(end.result);
        }
        if plies >= MAX_PLIES {
            break 0.5;
        }
        let search = pool.search(&game, &limits, &[]);
        let Some(best) = search.best else {
            break 0.5;
        };
        if let Some(score) = selfplay::mate_first_player_score(game.side_to_move(), search.score) {
            break score;
        }
        if plies >= SKIP_PLIES {
            samples.push(Sample {
                stones: game.stones(),
                gaps: game.gaps(),
                second: game.side_to_move() == Player::Second,
                score: search.score,
                fullmoves: game.clocks().1,
                halfmoves: game.clocks().0,
            });
        }
        game.make_move(best);
        plies += 1;
    };
    let records: Vec<AtaxxBoard> = samples.iter().map(|s| s.record(result)).collect();
    GameOutput {
        bytes: AtaxxBoard::as_bytes_slice(&records).to_vec(),
        positions: records.len(),
        result,
    }
}

impl SelfPlay for Ataxx {
    /// [`play_game`] (bullet records only).
    fn record_game(
        index: usize,
        book: &[Vec<String>],
        options: &DatagenOptions,
        pool: &mut ThreadPool<Ataxx>,
    ) -> GameOutput {
        play_game(index, book, options, pool)
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
