//! Training the chess evaluation on cutoff's own games: chess's self-play and records
//! ([`datagen`]: text `FEN;result` lines, bullet `ChessBoard` records, and the store's
//! viriformat games, [`store`]), reached by
//! `cutoff datagen`, `train` and `data` through its [`TrainingSupport`] below; `cutoff tune`
//! fits the hand-crafted evaluation's weights ([`tune`], its command line in [`cli`]);
//! `cutoff data convert` turns text lines into records ([`records`]); `cutoff data import`
//! turns PGN games with engine scores into store files ([`import`], [`pgn`]). The features of a
//! bullet record are here too ([`record_features`]): the engine reads boards, never
//! records.

pub mod cli;
pub mod datagen;
pub mod import;
pub mod pgn;
pub mod records;
pub mod store;
pub mod tune;

use bulletformat::ChessBoard;
use cutoff::games::chess::nnue::{king_layout, output_bucket, KingLayout, CHESS768, FEATURE_SETS};
use cutoff::games::chess::Chess;
use cutoff::nnue::FeatureSet;

use crate::selfplay::DataFormat;
use crate::trainer::TrainingRecord;
use crate::TrainingSupport;

/// How chess trains its net: `Chess768` inputs (or mirrored and king bucketed ones,
/// [`FEATURE_SETS`]), text or bullet `ChessBoard` records, its store in viriformat.
impl TrainingSupport for Chess {
    type Record = ChessBoard;
    const RECORD_BYTES: usize = records::BULLET_RECORD_BYTES;
    const FORMATS: &'static [DataFormat] =
        &[DataFormat::Text, DataFormat::Bullet, DataFormat::Records];
    /// bulletformat's `ChessBoard`: occupancy and pieces, then the score.
    const SCORE_OFFSET: usize = 24;

    fn decode(bytes: &[u8]) -> Vec<ChessBoard> {
        datagen::decode_bullet(bytes)
    }

    /// Replays the store's viriformat games ([`store::read_store`]).
    fn read_store(
        files: &[std::path::PathBuf],
        filter: &crate::store::StoreFilter,
        symmetries: bool,
        out: &mut Vec<u8>,
    ) -> Result<crate::store::StoreStats, String> {
        store::read_store(files, filter, symmetries, out)
    }
}

impl TrainingRecord for ChessBoard {
    const FEATURES: FeatureSet = CHESS768;
    const FEATURE_SETS: &'static [FeatureSet] = &FEATURE_SETS;

    fn features(&self, set: &FeatureSet) -> impl Iterator<Item = (usize, usize)> + '_ {
        record_features(self, king_layout(set))
    }

    fn output_bucket(&self, buckets: usize) -> usize {
        output_bucket(self.occ().count_ones() as usize, buckets)
    }

    fn problem(&self) -> Option<&'static str> {
        // The pieces are read by bulletformat from 16 bytes: at most 32 of them.
        if self.occ().count_ones() > 32 {
            return Some("more than 32 pieces");
        }
        if self.our_ksq() >= 64 || self.opp_ksq() >= 64 {
            return Some("a king square off the board");
        }
        let mut kings = [0; 2];
        for (piece, _) in *self {
            match piece & 7 {
                0..=4 => {}
                5 => kings[usize::from(piece & 8 > 0)] += 1,
                _ => return Some("a piece code that is no chess piece"),
            }
        }
        (kings != [1, 1]).then_some("not one king a side")
    }
}

/// The (side to move, other side) feature pairs of a bullet record in `layout`, exactly
/// as bullet's `Chess768` (plain layout) and `ChessBucketsMirrored` map them.
pub fn record_features<'a>(
    record: &'a ChessBoard,
    layout: &KingLayout,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let us = layout.view(usize::from(record.our_ksq()));
    let them = layout.view(usize::from(record.opp_ksq()));
    record.into_iter().map(move |(piece, square)| {
        let colour = usize::from(piece & 8 > 0);
        let kind = usize::from(piece & 7);
        let square = usize::from(square);
        (
            us.offset + colour * 384 + kind * 64 + (square ^ us.flip),
            them.offset + (1 - colour) * 384 + kind * 64 + (square ^ 56 ^ them.flip),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cozy_chess::Board;
    use cutoff::games::chess::nnue::board_bucket;
    use cutoff::nnue::Network;
    use cutoff::nnue::{random_bucketed_network, Activation};
    use records::bullet_board;

    #[test]
    fn a_record_falls_in_its_boards_output_bucket() {
        let bucket = |fen: &str, buckets| board_bucket(&fen.parse().unwrap(), buckets);
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let kings = "8/8/4k3/8/8/3K4/8/8 w - - 0 1";
        let six = "8/2p5/8/KP5r/8/7k/8/Q7 w - - 0 1";
        for fen in [start, kings, six] {
            let record = bullet_board(&fen.parse().unwrap(), 0, 0.5).unwrap();
            for buckets in 1..=8 {
                assert_eq!(record.output_bucket(buckets), bucket(fen, buckets), "{fen}");
            }
        }
    }

    #[test]
    fn board_and_bullet_record_features_agree() {
        for set in FEATURE_SETS {
            for buckets in [1, 8] {
                let net = random_bucketed_network(set, 16, buckets, Activation::SCReLU, 4);
                records_evaluate_like_boards(&net);
            }
        }
    }

    /// `net` evaluates bullet records of a few positions as it evaluates their boards.
    fn records_evaluate_like_boards(net: &Network) {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R b KQ - 1 8",
        ] {
            let board: Board = fen.parse().unwrap();
            let record = bullet_board(&board, 0, 0.5).unwrap();
            assert_eq!(
                net.evaluate(&board),
                crate::trainer::evaluate_quantised(net, &record),
                "{fen}"
            );
        }
    }
}
