//! Training gomoku's evaluation (15x15 freestyle): its [`TrainingSupport`]. Self-play (the
//! one loop, `crate::selfplay`, from the book `openings/gomoku.txt`; the random plies
//! among the cells the search considers, near the stones) ends a game by the rules (a
//! five, or a full board: a draw) or by a mate score (the side that has it wins); every
//! position before the end is kept unless its score is a mate score or its side to move is
//! in check (facing a four: the search never evaluates such a position statically), as a
//! 72-byte [`GomokuRecord`]. The net has `GomokuPcode15` inputs by default (or
//! `GomokuStones15`, `GomokuPcodeStones15`, `--features`), computed from the record's
//! stones by the engine's [`active_pairs`], and the 8 symmetries of the square board for
//! `data shuffle --symmetries`.
//!
//! # Record layout (72 bytes, little-endian)
//!
//! | bytes  | content                                                          |
//! |--------|------------------------------------------------------------------|
//! | 0..32  | the side to move's stones: bit `15 · rank + file` of four `u64`s |
//! | 32..64 | the other side's stones                                          |
//! | 64..66 | the search's score for the side to move (`i16`)                  |
//! | 66     | the result for the side to move: 0 loss, 1 draw, 2 win           |
//! | 67     | the board size (15)                                              |
//! | 68..72 | zero (the rule, freestyle, and room)                             |

pub mod policy;

use std::sync::Arc;

use bulletformat::BulletFormat;
use cutoff::games::gomoku::nnue::{
    active_pairs, has_four, output_bucket, NetRef, Stones, CELLS, FEATURE_SETS, PCODE, SIZE,
};

use cutoff::games::gomoku::{Gomoku, GomokuVariant};
use cutoff::games::{EvalNet, GameKind};
use cutoff::nnue::{FeatureSet, Network};
use cutoff::search::{Player, Rules, SearchHooks};

use crate::trainer::TrainingRecord;
use crate::TrainingSupport;

/// Bytes of one record.
pub const RECORD_BYTES: usize = 72;

/// A gomoku position for training: the stones from the side to move's view, the search's
/// score and the game's result for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GomokuRecord {
    /// The side to move's stones, then the other side's.
    pub stones: Stones,
    /// The search's score for the side to move.
    pub score: i16,
    /// The result for the side to move: 0 loss, 1 draw, 2 win.
    pub result: u8,
    /// The board size byte (15 for a record of this game).
    pub size: u8,
    /// The last four bytes (zero).
    pub rest: [u8; 4],
}

impl GomokuRecord {
    /// A record of `stones` (side to move first) with `score` and `result` (1.0 win, 0.5
    /// draw, 0.0 loss), both for the side to move.
    pub fn new(stones: Stones, score: i16, result: f32) -> GomokuRecord {
        GomokuRecord {
            stones,
            score,
            result: (result * 2.0).round().clamp(0.0, 2.0) as u8,
            size: SIZE as u8,
            rest: [0; 4],
        }
    }

    /// The record's 72 bytes.
    pub fn to_bytes(&self) -> [u8; RECORD_BYTES] {
        let mut bytes = [0; RECORD_BYTES];
        for (i, word) in self.stones.iter().flatten().enumerate() {
            bytes[8 * i..8 * i + 8].copy_from_slice(&word.to_le_bytes());
        }
        bytes[64..66].copy_from_slice(&self.score.to_le_bytes());
        bytes[66] = self.result;
        bytes[67] = self.size;
        bytes[68..72].copy_from_slice(&self.rest);
        bytes
    }

    /// The record of 72 bytes.
    pub fn from_bytes(bytes: &[u8; RECORD_BYTES]) -> GomokuRecord {
        let word = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8"));
        GomokuRecord {
            stones: [
                [word(0), word(1), word(2), word(3)],
                [word(4), word(5), word(6), word(7)],
            ],
            score: i16::from_le_bytes([bytes[64], bytes[65]]),
            result: bytes[66],
            size: bytes[67],
            rest: [bytes[68], bytes[69], bytes[70], bytes[71]],
        }
    }

    /// Stones on the board.
    pub fn stone_count(&self) -> usize {
        self.stones
            .iter()
            .flatten()
            .map(|w| w.count_ones() as usize)
            .sum()
    }
}

/// The cells of one side's stones.
fn cells(side: &[u64; 4]) -> impl Iterator<Item = usize> + '_ {
    (0..CELLS).filter(move |&c| side[c / 64] >> (c % 64) & 1 != 0)
}

impl IntoIterator for GomokuRecord {
    type Item = (usize, usize);
    type IntoIter = std::vec::IntoIter<(usize, usize)>;

    /// The stones as (side, cell): side 0 the side to move's.
    fn into_iter(self) -> Self::IntoIter {
        let stones: Vec<(usize, usize)> = (0..2)
            .flat_map(|side| {
                cells(&self.stones[side])
                    .map(move |c| (side, c))
                    .collect::<Vec<_>>()
            })
            .collect();
        stones.into_iter()
    }
}

impl BulletFormat for GomokuRecord {
    type FeatureType = (usize, usize);
    const HEADER_SIZE: usize = 0;

    fn set_result(&mut self, result: f32) {
        self.result = (result * 2.0).round().clamp(0.0, 2.0) as u8;
    }

    fn score(&self) -> i16 {
        self.score
    }

    fn result(&self) -> f32 {
        f32::from(self.result.min(2)) / 2.0
    }

    fn result_idx(&self) -> usize {
        usize::from(self.result.min(2))
    }
}

impl TrainingRecord for GomokuRecord {
    const FEATURES: FeatureSet = PCODE;
    const FEATURE_SETS: &'static [FeatureSet] = &FEATURE_SETS;

    fn features(&self, set: &FeatureSet) -> impl Iterator<Item = (usize, usize)> + '_ {
        active_pairs(set, &self.stones).into_iter()
    }

    fn output_bucket(&self, buckets: usize) -> usize {
        output_bucket(self.stone_count(), buckets)
    }

    fn problem(&self) -> Option<&'static str> {
        if usize::from(self.size) != SIZE || self.rest != [0; 4] {
            return Some("not a 15x15 freestyle gomoku record");
        }
        if self.result > 2 {
            return Some("a result other than 0, 1 or 2");
        }
        let [ours, theirs] = self.stones;
        if ours[3] >> (CELLS - 192) != 0 || theirs[3] >> (CELLS - 192) != 0 {
            return Some("a stone off the 15x15 board");
        }
        if ours.iter().zip(&theirs).any(|(a, b)| a & b != 0) {
            return Some("two stones on one cell");
        }
        let count = |side: &[u64; 4]| side.iter().map(|w| w.count_ones()).sum::<u32>();
        let (us, them) = (count(&ours), count(&theirs));
        (us != them && us + 1 != them).then_some("stone counts that no game of turns makes")
    }
}

/// Decodes whole records (a trailing partial record is left out).
pub fn decode_records(bytes: &[u8]) -> Vec<GomokuRecord> {
    bytes
        .chunks_exact(RECORD_BYTES)
        .map(|chunk| GomokuRecord::from_bytes(chunk.try_into().expect("72 bytes")))
        .collect()
}

/// The image of a cell `15 · rank + file` under one of the square's 8 symmetries: bit 0
/// of `symmetry` mirrors the files, bit 1 the ranks, bit 2 swaps ranks and files (after
/// the mirrors); 0 is the identity.
pub fn cell_image(cell: usize, symmetry: usize) -> usize {
    let (mut rank, mut file) = (cell / SIZE, cell % SIZE);
    if symmetry & 1 != 0 {
        file = SIZE - 1 - file;
    }
    if symmetry & 2 != 0 {
        rank = SIZE - 1 - rank;
    }
    if symmetry & 4 != 0 {
        (rank, file) = (file, rank);
    }
    SIZE * rank + file
}

/// How gomoku trains its net: 15x15 freestyle only, the `gomoku` entry of the registry.
impl TrainingSupport for Gomoku {
    const RECORD_NAME: &'static str = "gomoku";
    type Record = GomokuRecord;
    const RECORD_BYTES: usize = RECORD_BYTES;
    /// After the stones (the module's record layout).
    const SCORE_OFFSET: usize = 64;

    /// 15x15 freestyle, evaluated by `net` when it is a gomoku net.
    fn datagen_variant(net: Option<Arc<Network>>) -> GomokuVariant {
        GomokuVariant {
            net: net.and_then(|net| NetRef::of(&(net as EvalNet))),
            ..GomokuVariant::FREESTYLE15
        }
    }

    /// Every position whose side to move is not facing a four.
    fn is_sample(&self, _best: Self::Move, _ply: usize) -> bool {
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

    fn decode(bytes: &[u8]) -> Vec<GomokuRecord> {
        decode_records(bytes)
    }

    fn trains(game: GameKind) -> bool {
        game.name() == "gomoku"
    }

    const SYMMETRIES: usize = 8;

    fn push_image(record: &[u8], symmetry: usize, out: &mut Vec<u8>) {
        let mut image = GomokuRecord::from_bytes(record.try_into().expect("72 bytes"));
        for side in 0..2 {
            let mut mapped = [0u64; 4];
            for cell in cells(&image.stones[side]) {
                let to = cell_image(cell, symmetry);
                mapped[to / 64] |= 1 << (to % 64);
            }
            image.stones[side] = mapped;
        }
        out.extend_from_slice(&image.to_bytes());
    }

    /// The other side has a four ([`has_four`]).
    fn record_in_check(record: &[u8]) -> bool {
        has_four(
            &GomokuRecord::from_bytes(record.try_into().expect("72 bytes")).stones,
            1,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::{self, DataFormat, DatagenOptions};
    use crate::trainer::testing::random_records;
    use crate::trainer::{train, TrainSettings};
    use cutoff::games::gomoku::nnue::{PCODE_STONES, STONES};

    /// Positions of random games (stones anywhere), labelled with the hand-set
    /// evaluation as the score and a result that follows it.
    fn synthetic(count: usize, seed: u64) -> Vec<GomokuRecord> {
        let start = |_: &mut cutoff::rng::SplitMix| Gomoku::start(&GomokuVariant::FREESTYLE15);
        random_records(count, seed, start, (4, 40), |game: &Gomoku| {
            let score = game.evaluate();
            let result = match score {
                s if s > 100 => 1.0,
                s if s < -100 => 0.0,
                _ => 0.5,
            };
            let [x, o] = game.stones15()?;
            let stones = if game.side_to_move() == Player::Second {
                [o, x]
            } else {
                [x, o]
            };
            Some(GomokuRecord::new(stones, score as i16, result))
        })
    }

    #[test]
    fn records_round_trip_and_bad_ones_are_named() {
        let records = synthetic(50, 3);
        let bytes: Vec<u8> = records.iter().flat_map(|r| r.to_bytes()).collect();
        assert_eq!(bytes.len(), RECORD_BYTES * 50);
        assert_eq!(decode_records(&bytes), records);
        assert!(records.iter().all(|r| r.problem().is_none()));
        let mut bad = records[0];
        bad.size = 20;
        assert!(bad.problem().is_some());
        let mut off = records[0];
        off.stones[0][3] |= 1 << 40;
        assert_eq!(off.problem(), Some("a stone off the 15x15 board"));
        let mut twice = records[0];
        twice.stones[1] = twice.stones[0];
        assert!(twice.problem().is_some());
        // Another game's bytes: a chess or Ataxx file read as gomoku records.
        assert!(decode_records(&[0x5a; 72])[0].problem().is_some());
    }

    #[test]
    fn images_are_the_eight_symmetries_and_keep_the_codes() {
        let images: std::collections::BTreeSet<usize> = (0..8).map(|k| cell_image(1, k)).collect();
        assert_eq!(images.len(), 8);
        assert!(
            (0..8).all(|k| cell_image(112, k) == 112),
            "the centre stays"
        );
        for record in synthetic(30, 5) {
            let bytes = record.to_bytes();
            let mut out = Vec::new();
            for k in 0..8 {
                Gomoku::push_image(&bytes, k, &mut out);
            }
            assert_eq!(&out[..RECORD_BYTES], &bytes, "the identity comes first");
            let sorted = |r: &GomokuRecord, set| {
                let mut f: Vec<(usize, usize)> = r.features(set).collect();
                f.sort_unstable();
                f
            };
            for image in decode_records(&out) {
                assert_eq!((image.score, image.result), (record.score, record.result));
                assert!(image.problem().is_none());
                assert_eq!(image.stone_count(), record.stone_count());
                // A code forgets the order of the directions: the symmetries keep them.
                assert_eq!(sorted(&image, &PCODE), sorted(&record, &PCODE));
            }
            let stones: std::collections::BTreeSet<Vec<(usize, usize)>> = decode_records(&out)
                .iter()
                .map(|r| sorted(r, &STONES))
                .collect();
            assert!(stones.len() > 1);
        }
    }

    #[test]
    fn the_trainer_learns_the_hand_set_evaluation_from_codes() {
        let records = synthetic(1000, 9);
        for set in ["GomokuPcode15", "GomokuPcodeStones15"] {
            let settings = TrainSettings {
                hidden: 16,
                epochs: 5,
                batch: 256,
                lr: 0.01,
                threads: 1,
                validation: 0.1,
                feature_set: Some(set.to_string()),
                ..TrainSettings::default()
            };
            let result = train(&records, &settings, |_| {}).expect("training runs");
            let last = result.epochs.last().expect("an epoch").validation_loss;
            assert!(
                last < 0.5 * result.initial_validation_loss,
                "{set}: {} -> {last}",
                result.initial_validation_loss
            );
            let net = result.net.quantise();
            let back = Network::from_bytes_among(&net.to_bytes(), &FEATURE_SETS).expect("loads");
            assert_eq!(back.features().name, set);
            for record in &records[..20] {
                let (us, them): (Vec<usize>, Vec<usize>) = record.features(back.features()).unzip();
                let quantised = back.evaluate_features(us, them, 0) as f32;
                let float = result.net.evaluate_record(record);
                // Rows added many times (a code on many cells) add their rounding errors.
                let bound = 30.0 + 0.1 * float.abs();
                assert!((quantised - float).abs() < bound, "{quantised} vs {float}");
            }
        }
        assert_eq!(PCODE_STONES.inputs, 1850);
    }

    fn datagen_options() -> DatagenOptions {
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
        let (first, summary) = selfplay::datagen_twice::<Gomoku>("gomoku.txt", &datagen_options());
        assert_eq!(summary.games, 3);
        assert!(summary.positions > 10, "{summary:?}");
        assert_eq!(first.len(), 72 * summary.positions);
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
            ..datagen_options()
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
