//! `cutoff data relabel`: a record's score replaced by a mix of its search score and a
//! teacher net's evaluation averaged over the board's symmetries (self-distillation: the
//! teacher is one of cutoff's own nets, its mean over the images an evaluation that is
//! exactly symmetric and less noisy than the net alone).

use bulletformat::BulletFormat;
use cutoff::nnue::Network;

use crate::trainer::evaluate_quantised;
use crate::TrainingSupport;

/// What a relabelling did: records read, and the mean absolute change of the score and
/// the mean spread (largest minus smallest) of the teacher's evaluations over the images.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RelabelStats {
    /// Records read (each written `images` times).
    pub records: usize,
    /// Mean `|new score - old score|`, in the score's units.
    pub mean_change: f64,
    /// Mean of the largest minus the smallest teacher evaluation over a record's images.
    pub mean_spread: f64,
}

/// Appends each whole record of `records` to `out` as its images under the first `images`
/// symmetries of `G` (in symmetry order), each with the score
/// `round(weight · T + (1 - weight) · score)` (clamped to ±32,000), `T` the mean of
/// `teacher`'s evaluations of the images.
pub fn relabel<G: TrainingSupport>(
    records: &[u8],
    teacher: &Network,
    weight: f64,
    images: usize,
    out: &mut Vec<u8>,
) -> RelabelStats {
    let size = G::RECORD_BYTES;
    let mut stats = RelabelStats::default();
    let (mut change, mut spread) = (0.0, 0.0);
    for record in records.chunks_exact(size) {
        let start = out.len();
        for symmetry in 0..images {
            G::push_image(record, symmetry, out);
        }
        let decoded = G::decode(&out[start..]);
        let evals: Vec<i32> = decoded
            .iter()
            .map(|r| evaluate_quantised(teacher, r))
            .collect();
        let teacher_mean = evals.iter().map(|&e| f64::from(e)).sum::<f64>() / images as f64;
        let old = decoded[0].score();
        let mixed = weight * teacher_mean + (1.0 - weight) * f64::from(old);
        let new = mixed.round().clamp(-32_000.0, 32_000.0) as i16;
        for image in out[start..].chunks_exact_mut(size) {
            image[G::SCORE_OFFSET..G::SCORE_OFFSET + 2].copy_from_slice(&new.to_le_bytes());
        }
        stats.records += 1;
        change += (f64::from(new) - f64::from(old)).abs();
        let (low, high) = (evals.iter().min(), evals.iter().max());
        spread += f64::from(high.copied().unwrap_or(0) - low.copied().unwrap_or(0));
    }
    if stats.records > 0 {
        stats.mean_change = change / stats.records as f64;
        stats.mean_spread = spread / stats.records as f64;
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use bulletformat::AtaxxBoard;
    use cutoff::games::ataxx::nnue::ATAXX2X2_PLUS147;
    use cutoff::games::ataxx::Ataxx;
    use cutoff::nnue::{random_network, Activation};

    /// An Ataxx record (side to move's stones, the other's, gaps) with `score`.
    fn record(bbs: [u64; 3], score: i16) -> Vec<u8> {
        let board = AtaxxBoard::from_raw(bbs, score, 0.5, false, 1, 0);
        AtaxxBoard::as_bytes_slice(&[board]).to_vec()
    }

    #[test]
    fn scores_become_the_mix_of_the_search_and_the_teachers_mean_over_the_images() {
        let teacher = random_network(ATAXX2X2_PLUS147, 16, Activation::SCReLU, 5);
        let bbs = [0b1011 | 1 << 30, 1 << 48 | 1 << 20, 1 << 24];
        let input = record(bbs, 100);
        let mut out = Vec::new();
        let stats = relabel::<Ataxx>(&input, &teacher, 0.5, 8, &mut out);
        assert_eq!(out.len(), 8 * 32);
        let images = <Ataxx as TrainingSupport>::decode(&out);
        let evals: Vec<i32> = images
            .iter()
            .map(|r| evaluate_quantised(&teacher, r))
            .collect();
        let mean = evals.iter().sum::<i32>() as f64 / 8.0;
        let expected = (0.5 * mean + 50.0).round() as i16;
        for (symmetry, image) in images.iter().enumerate() {
            assert_eq!(image.score(), expected, "image {symmetry}");
            let mut alone = Vec::new();
            Ataxx::push_image(&input, symmetry, &mut alone);
            assert_eq!(
                image.bbs(),
                <Ataxx as TrainingSupport>::decode(&alone)[0].bbs()
            );
        }
        assert_eq!(stats.records, 1);
        assert_eq!(stats.mean_change, f64::from((expected - 100).abs()));
        let spread = evals.iter().max().unwrap() - evals.iter().min().unwrap();
        assert_eq!(stats.mean_spread, f64::from(spread));
        assert!(spread > 0, "a random net is not symmetric");
    }

    #[test]
    fn weight_zero_keeps_the_scores_and_one_image_keeps_the_record() {
        let teacher = random_network(ATAXX2X2_PLUS147, 16, Activation::SCReLU, 6);
        let mut input = record([1 << 3, 1 << 40, 0], -250);
        input.extend(record([1 << 9 | 1 << 10, 1 << 11, 1 << 47], 7));
        let mut out = Vec::new();
        relabel::<Ataxx>(&input, &teacher, 0.0, 1, &mut out);
        assert_eq!(out, input);
        let mut taught = Vec::new();
        relabel::<Ataxx>(&input, &teacher, 1.0, 1, &mut taught);
        let first = <Ataxx as TrainingSupport>::decode(&taught)[0];
        let eval = evaluate_quantised(&teacher, &<Ataxx as TrainingSupport>::decode(&input)[0]);
        assert_eq!(i32::from(first.score()), eval.clamp(-32_000, 32_000));
    }
}
