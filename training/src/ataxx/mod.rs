//! Training the Ataxx evaluation: its [`TrainingSupport`]. Self-play (the one loop,
//! `crate::selfplay`, from the book `openings/ataxx.txt`) ends a game by the rules (the
//! board fills up or the clock reaches 100 half-moves), by a mate score (the side that has
//! it wins), or as a draw after [`MAX_PLIES`]; every position after [`SKIP_PLIES`] is kept
//! (but a mate score's) as a bullet `AtaxxBoard` record: the board and the search's score
//! from the side to move's view, and the game's result. The net has `Ataxx147` inputs (or
//! the 2x2 patterns of `Ataxx2x2` and `Ataxx2x2Plus147`, `--features`), records decoded as
//! bulletformat writes them ([`decode_records`]), and their features
//! ([`record_features`], [`set_features`]).

use std::sync::Arc;

use bulletformat::{AtaxxBoard, BulletFormat};
use cutoff::games::ataxx::nnue::{
    active, gap_feature, output_bucket, ATAXX147, CELLS, FEATURE_SETS,
};

use cutoff::games::ataxx::{Ataxx, AtaxxVariant};
use cutoff::nnue::{FeatureSet, Network};
use cutoff::search::{Player, Rules};

use crate::trainer::TrainingRecord;
use crate::TrainingSupport;

/// Plies after which an unfinished self-play game is a draw.
pub const MAX_PLIES: usize = 500;
/// Plies from the start of the self-play (after the opening) whose positions are left out.
pub const SKIP_PLIES: usize = 2;

/// How Ataxx trains its net: `Ataxx147` inputs by default (any of the engine's
/// [`FEATURE_SETS`] by `--features`), bullet `AtaxxBoard` records, the 8 symmetries of
/// the square.
impl TrainingSupport for Ataxx {
    const RECORD_NAME: &'static str = "ataxx";
    type Record = AtaxxBoard;
    const RECORD_BYTES: usize = 32;
    /// bulletformat's `AtaxxBoard`: three bitboards, then the score.
    const SCORE_OFFSET: usize = 24;

    fn datagen_variant(net: Option<Arc<Network>>) -> AtaxxVariant {
        AtaxxVariant { net }
    }

    /// Every position after [`SKIP_PLIES`].
    fn is_sample(&self, _best: Self::Move, ply: usize) -> bool {
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

    fn decode(bytes: &[u8]) -> Vec<AtaxxBoard> {
        decode_records(bytes)
    }

    const MAX_PLIES: usize = MAX_PLIES;
    const SYMMETRIES: usize = 8;

    fn push_image(record: &[u8], symmetry: usize, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(record);
        for word in out[start..start + 24].chunks_exact_mut(8) {
            let bits = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            word.copy_from_slice(&board_image(bits, symmetry).to_le_bytes());
        }
    }
}

/// The image of a 7x7 bitboard (bit `7 * rank + file`) under one of the square's 8
/// symmetries: bit 0 of `symmetry` mirrors the files, bit 1 the ranks, bit 2 swaps ranks
/// and files (after the mirrors); 0 is the identity.
pub fn board_image(bits: u64, symmetry: usize) -> u64 {
    let mut image = 0;
    let mut rest = bits;
    while rest != 0 {
        let square = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let (mut rank, mut file) = (square / 7, square % 7);
        if symmetry & 1 != 0 {
            file = 6 - file;
        }
        if symmetry & 2 != 0 {
            rank = 6 - rank;
        }
        if symmetry & 4 != 0 {
            (rank, file) = (file, rank);
        }
        image |= 1 << (7 * rank + file);
    }
    image
}

impl TrainingRecord for AtaxxBoard {
    const FEATURES: FeatureSet = ATAXX147;
    const FEATURE_SETS: &'static [FeatureSet] = &FEATURE_SETS;

    fn features(&self, set: &FeatureSet) -> impl Iterator<Item = (usize, usize)> + '_ {
        let pairs = (set.id != ATAXX147.id).then(|| set_features(self, set));
        let per_square = pairs.is_none().then(|| record_features(self));
        pairs
            .into_iter()
            .flatten()
            .chain(per_square.into_iter().flatten())
    }

    fn output_bucket(&self, buckets: usize) -> usize {
        let [ours, theirs, _] = self.bbs();
        output_bucket([ours, theirs], buckets)
    }

    fn problem(&self) -> Option<&'static str> {
        let [ours, theirs, gaps] = self.bbs();
        if (ours | theirs | gaps) >> CELLS != 0 {
            return Some("a stone or gap off the 7x7 board");
        }
        let overlap = ours & theirs != 0 || (ours | theirs) & gaps != 0;
        overlap.then_some("two things on one cell")
    }
}

/// The (side to move, other side) feature pairs of a bullet record, whose bitboards are
/// the side to move's stones, the other side's, the gaps.
pub fn record_features(record: &AtaxxBoard) -> impl Iterator<Item = (usize, usize)> + '_ {
    record.into_iter().map(|(plane, square)| {
        let square = usize::from(square);
        match plane {
            0 => (square, CELLS + square),
            1 => (CELLS + square, square),
            _ => (gap_feature(square), gap_feature(square)),
        }
    })
}

/// The (side to move, other side) feature pairs of a bullet record in `set` (one of the
/// engine's [`FEATURE_SETS`]), computed by the engine's [`active`]: the side to move is
/// perspective 0, so the pairs follow the engine's order (windows, then squares).
pub fn set_features(
    record: &AtaxxBoard,
    set: &FeatureSet,
) -> impl Iterator<Item = (usize, usize)> + use<> {
    let [ours, theirs, gaps] = record.bbs();
    let us = active(set, [ours, theirs], gaps, 0);
    let them = active(set, [ours, theirs], gaps, 1);
    us.into_iter().zip(them)
}

/// Decodes bullet `AtaxxBoard` records (32 bytes each, as bulletformat writes them: the
/// side to move's stones, the other side's, the gaps, score, result, side to move, clocks);
/// a trailing partial record is ignored.
pub fn decode_records(bytes: &[u8]) -> Vec<AtaxxBoard> {
    bytes
        .chunks_exact(32)
        .map(|chunk| {
            let word = |i: usize| {
                let mut le = [0; 8];
                le.copy_from_slice(&chunk[8 * i..8 * i + 8]);
                u64::from_le_bytes(le)
            };
            let score = i16::from_le_bytes([chunk[24], chunk[25]]);
            let result = f32::from(chunk[26].min(2)) / 2.0;
            let stm = chunk[27] != 0;
            let fullm = u16::from_le_bytes([chunk[28], chunk[29]]);
            // `from_raw` takes the first player's view and turns it to the side to move's.
            let (bbs, score, result) = if stm {
                (
                    [word(1), word(0), word(2)],
                    score.saturating_neg(),
                    1.0 - result,
                )
            } else {
                ([word(0), word(1), word(2)], score, result)
            };
            AtaxxBoard::from_raw(bbs, score, result, stm, fullm, chunk[30])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::{self, DataFormat, DatagenOptions};
    use crate::trainer::testing::random_records;
    use crate::trainer::{mean_loss, train, TrainSettings};
    use cutoff::games::ataxx::nnue::ATAXX2X2_PLUS147;
    use cutoff::games::ataxx::nnue::SAMPLE_FENS as FENS;
    use cutoff::nnue::{random_bucketed_network, Activation};
    use cutoff::search::SearchHooks;

    /// The FEN of a record's board (side to move's stones as `x`), the side to move `x`.
    fn fen_of(record: &[u8]) -> String {
        let word = |i: usize| u64::from_le_bytes(record[8 * i..8 * i + 8].try_into().unwrap());
        let ranks: Vec<String> = (0..7)
            .rev()
            .map(|rank| {
                let mut text = String::new();
                let mut empty = 0;
                for file in 0..7 {
                    let bit = 1u64 << (7 * rank + file);
                    let piece = [(0, 'x'), (1, 'o'), (2, '-')]
                        .into_iter()
                        .find(|&(i, _)| word(i) & bit != 0);
                    match piece {
                        Some((_, c)) => {
                            if empty > 0 {
                                text.push_str(&empty.to_string());
                                empty = 0;
                            }
                            text.push(c);
                        }
                        None => empty += 1,
                    }
                }
                if empty > 0 {
                    text.push_str(&empty.to_string());
                }
                text
            })
            .collect();
        format!("{} x 0 1", ranks.join("/"))
    }

    #[test]
    fn board_images_are_the_eight_symmetries_and_keep_the_game() {
        use bulletformat::BulletFormat;
        use cutoff::search::perft::perft;
        // A lone stone on b1 (no symmetry of its own) has 8 distinct images; the start
        // position is its own image under the half turn and the two diagonals, and the
        // other 4 swap its colours.
        let images: std::collections::BTreeSet<u64> =
            (0..8).map(|k| board_image(1 << 1, k)).collect();
        assert_eq!(images.len(), 8);
        let start = [1 << 42 | 1 << 6, 1 | 1 << 48];
        for k in 0..8 {
            let image = start.map(|b| board_image(b, k));
            let kept = [0, 3, 4, 7].contains(&k);
            assert_eq!(
                image,
                if kept { start } else { [start[1], start[0]] },
                "{k}"
            );
        }
        let records = synthetic(40, 11);
        let bytes = bulletformat::AtaxxBoard::as_bytes_slice(&records).to_vec();
        for record in bytes.chunks_exact(32) {
            let mut game = Ataxx::from_fen(&AtaxxVariant::default(), &fen_of(record)).unwrap();
            let expected = perft(&mut game, 2);
            let mut out = Vec::new();
            for k in 0..8 {
                Ataxx::push_image(record, k, &mut out);
            }
            assert_eq!(&out[..32], record, "the identity comes first");
            for image in out.chunks_exact(32) {
                assert_eq!(image[24..], record[24..], "score, result and clocks kept");
                let mut game = Ataxx::from_fen(&AtaxxVariant::default(), &fen_of(image)).unwrap();
                assert_eq!(perft(&mut game, 2), expected, "{}", fen_of(image));
            }
        }
    }

    #[test]
    fn board_and_bullet_record_features_agree() {
        let net = random_bucketed_network(ATAXX147, 16, 4, Activation::SCReLU, 3);
        let mut buckets = Vec::new();
        for fen in FENS {
            let game = Ataxx::from_fen(&AtaxxVariant::default(), fen).expect("test FEN");
            let record: AtaxxBoard = format!("{fen} | 0 | 0.5").parse().unwrap();
            let (us, them): (Vec<usize>, Vec<usize>) = record_features(&record).unzip();
            let stm = game.side_to_move().index();
            let bucket = output_bucket(game.stones(), 4);
            assert_eq!(record.output_bucket(4), bucket, "{fen}");
            buckets.push(bucket);
            let expected = net.evaluate_features(
                active(&ATAXX147, game.stones(), game.gaps(), stm),
                active(&ATAXX147, game.stones(), game.gaps(), 1 - stm),
                bucket,
            );
            assert_eq!(net.evaluate_features(us, them, bucket), expected, "{fen}");
        }
        // 4 stones: bucket 0 of 4 (13 stones a bucket); a full board: the last.
        assert_eq!(buckets[0], 0);
        assert_eq!(output_bucket([u64::MAX >> 15, 0], 4), 3);
        assert_eq!(output_bucket([0b1111, 0], 1), 0);
        assert!(buckets.contains(&3), "{buckets:?}");
    }

    #[test]
    fn the_trainer_reads_every_feature_set_as_the_engine_does() {
        for set in FEATURE_SETS {
            let net = random_bucketed_network(set, 8, 2, Activation::SCReLU, 4);
            for fen in FENS {
                let game = Ataxx::from_fen(&AtaxxVariant::default(), fen).expect("test FEN");
                let record: AtaxxBoard = format!("{fen} | 0 | 0.5").parse().unwrap();
                let (us, them): (Vec<usize>, Vec<usize>) = record.features(&set).unzip();
                let stm = game.side_to_move().index();
                let mut engine =
                    [stm, 1 - stm].map(|p| active(&set, game.stones(), game.gaps(), p).to_vec());
                let mut trainer = [us, them];
                for list in engine.iter_mut().chain(&mut trainer) {
                    list.sort_unstable();
                }
                assert_eq!(trainer, engine, "{} {fen}", set.name);
                let bucket = output_bucket(game.stones(), 2);
                // The engine's incremental evaluation agrees (the net built into a game).
                let variant = AtaxxVariant {
                    net: Some(std::sync::Arc::new(net.clone())),
                };
                let mut played = Ataxx::from_fen(&variant, fen).expect("test FEN");
                let (us, them): (Vec<usize>, Vec<usize>) = record.features(&set).unzip();
                assert_eq!(
                    played.evaluate_mut(),
                    net.evaluate_features(us, them, bucket),
                    "{} {fen}",
                    set.name
                );
            }
        }
    }

    /// Positions of random games from the start and gapped boards, labelled with the
    /// hand-crafted evaluation as the score and a result that follows it.
    fn synthetic(count: usize, seed: u64) -> Vec<AtaxxBoard> {
        let start = |rng: &mut cutoff::rng::SplitMix| {
            Ataxx::from_fen(&AtaxxVariant::default(), FENS[rng.below(3)]).unwrap()
        };
        random_records(count, seed, start, (2, 40), |game: &Ataxx| {
            let score = game.evaluate_hand_crafted();
            let stm_result = match score {
                s if s > 200 => 1.0,
                s if s < -200 => 0.0,
                _ => 0.5,
            };
            let second = game.side_to_move() == Player::Second;
            let [x, o] = game.stones();
            let (halfmoves, fullmoves) = game.clocks();
            let (first_score, first_result) = if second {
                (-score, 1.0 - stm_result)
            } else {
                (score, stm_result)
            };
            Some(AtaxxBoard::from_raw(
                [x, o, game.gaps()],
                first_score as i16,
                first_result,
                second,
                fullmoves as u16,
                halfmoves as u8,
            ))
        })
    }

    #[test]
    fn records_decode_as_bulletformat_writes_them() {
        use bulletformat::BulletFormat;
        let records = synthetic(50, 8);
        let bytes = bulletformat::AtaxxBoard::as_bytes_slice(&records).to_vec();
        assert_eq!(bytes.len(), 32 * records.len());
        assert_eq!(decode_records(&bytes), records);
        assert!(records.iter().any(|r| r.stm() == 1) && records.iter().any(|r| r.stm() == 0));
    }

    /// The settings of the training tests: a small net, a few epochs, one thread.
    fn small_settings(feature_set: Option<&str>) -> TrainSettings {
        TrainSettings {
            hidden: 16,
            epochs: 8,
            batch: 256,
            lr: 0.01,
            threads: 1,
            validation: 0.1,
            feature_set: feature_set.map(str::to_string),
            ..TrainSettings::default()
        }
    }

    #[test]
    fn chess_records_are_refused_as_ataxx_records() {
        use crate::chess::records::{bullet_board, encode_bullet};
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let boards = vec![bullet_board(&start.parse().unwrap(), 0, 0.5).unwrap(); 50];
        let records = decode_records(&encode_bullet(&boards));
        let error = train(&records, &small_settings(None), |_| {}).unwrap_err();
        assert!(error.contains("is no position of the game"), "{error}");
    }

    #[test]
    fn the_trainer_lowers_the_loss_on_ataxx_records() {
        let records = synthetic(3000, 9);
        let settings = small_settings(None);
        let result = train(&records, &settings, |_| {}).expect("training runs");
        let last = result.epochs.last().expect("an epoch").validation_loss;
        assert!(
            last < 0.7 * result.initial_validation_loss,
            "{} -> {last}",
            result.initial_validation_loss
        );
        // The quantised net is an Ataxx net and evaluates like the float one.
        let net = result.net.quantise();
        assert_eq!(*net.features(), ATAXX147);
        let back = Network::from_bytes_for(&net.to_bytes(), &ATAXX147).expect("loads");
        for record in &records[..20] {
            let (us, them): (Vec<usize>, Vec<usize>) = record_features(record).unzip();
            let quantised = back.evaluate_features(us, them, 0) as f32;
            let float = result.net.evaluate_record(record);
            assert!((quantised - float).abs() < 30.0, "{quantised} vs {float}");
        }
        assert!(mean_loss(&result.net, &records, &settings).is_finite());
    }

    #[test]
    fn the_trainer_lowers_the_loss_with_pattern_inputs() {
        let records = synthetic(3000, 10);
        let settings = small_settings(Some("ataxx2x2plus147"));
        let result = train(&records, &settings, |_| {}).expect("training runs");
        let last = result.epochs.last().expect("an epoch").validation_loss;
        assert!(last < 0.7 * result.initial_validation_loss);
        let net = result.net.quantise();
        let back = Network::from_bytes_among(&net.to_bytes(), &FEATURE_SETS).expect("loads");
        assert_eq!(*back.features(), ATAXX2X2_PLUS147);
        for record in &records[..20] {
            let (us, them): (Vec<usize>, Vec<usize>) = record.features(&ATAXX2X2_PLUS147).unzip();
            let quantised = back.evaluate_features(us, them, 0) as f32;
            let float = result.net.evaluate_record(record);
            assert!((quantised - float).abs() < 30.0, "{quantised} vs {float}");
        }
    }

    fn datagen_options() -> DatagenOptions {
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
        let (first, summary) = selfplay::datagen_twice::<Ataxx>("ataxx.txt", &datagen_options());
        assert_eq!(summary.games, 3);
        assert!(summary.positions > 20, "{summary:?}");
        assert_eq!(first.len(), 32 * summary.positions);
        let records = decode_records(&first);
        assert_eq!(records.len(), summary.positions);
        assert!(records
            .iter()
            .all(|r| r.result() == 0.0 || r.result() == 0.5 || r.result() == 1.0));
        assert!(records.iter().any(|r| r.score() != 0));
        assert!(records.iter().all(|r| r.problem().is_none()));
        // Bytes that are no Ataxx record are refused before a feature is read.
        assert!(decode_records(&[0xff; 32])[0].problem().is_some());
    }
}
