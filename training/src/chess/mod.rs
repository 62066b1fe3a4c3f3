//! Training the chess evaluation on cutoff's own games, reached by `cutoff datagen`,
//! `train` and `data` through its [`TrainingSupport`] below: chess's self-play (the one
//! loop, `crate::selfplay`) keeps the quiet positions ([`records::is_kept`]) as bullet
//! `ChessBoard` records ([`records`]) and stores its games in viriformat ([`store`]).
//! A game ends by the rules, by a mate score, by adjudication ([`ADJUDICATION`]: a
//! lasting large score wins, a lasting level score after ply 80 draws, so that dead-drawn
//! endings do not flood the data with near-identical positions) or as a draw after
//! [`MAX_PLIES`]. `cutoff tune` fits the hand-crafted evaluation's weights ([`tune`], its
//! command line in [`cli`]) on `FEN;result` lines (`cutoff data export` writes them from
//! the store); `cutoff data convert` turns such lines into records ([`records`]); `cutoff
//! data import` turns PGN games with engine scores into store files ([`import`],
//! [`pgn`]). The features of a bullet record are here too ([`record_features`]): the
//! engine reads boards, never records.

pub mod cli;
pub mod import;
pub mod pgn;
pub mod records;
pub mod store;
pub mod tune;

use std::sync::Arc;

use bulletformat::{BulletFormat, ChessBoard};
use cozy_chess::Move;
use cutoff::games::chess::nnue::{king_layout, output_bucket, KingLayout, CHESS768, FEATURE_SETS};
use cutoff::games::chess::{Chess, ChessVariant};
use cutoff::nnue::{FeatureSet, Network};

use crate::records::StoreFormat;
use crate::support::{Adjudication, TrainingSupport};
use crate::trainer::TrainingRecord;

/// How chess's self-play ends a game early: a score of 1,500 held by one side for 6 plies
/// wins; a score within 10 for 12 plies in a row, from ply 80 on, draws.
pub const ADJUDICATION: Adjudication = Adjudication {
    win_score: 1_500,
    win_plies: 6,
    draw_score: 10,
    draw_plies: 12,
    draw_from_ply: 80,
};

/// Plies after which an unfinished self-play game is a draw.
pub const MAX_PLIES: usize = 400;

/// How chess trains its net: standard chess's self-play with adjudication, the quiet
/// positions as bullet `ChessBoard` records, `Chess768` inputs (or mirrored and king
/// bucketed ones, [`FEATURE_SETS`]), its store in viriformat (whose move codes are its
/// record codes).
impl TrainingSupport for Chess {
    const RECORD_NAME: &'static str = "chess";
    type Record = ChessBoard;
    const RECORD_BYTES: usize = records::BULLET_RECORD_BYTES;
    /// bulletformat's `ChessBoard`: occupancy and pieces, then the score.
    const SCORE_OFFSET: usize = 24;

    /// Standard chess without tablebases.
    fn datagen_variant(net: Option<Arc<Network>>) -> ChessVariant {
        ChessVariant {
            chess960: false,
            net,
            tablebases: None,
        }
    }

    /// A quiet position past the opening plies ([`records::is_kept`]).
    fn is_sample(&self, best: Move, ply: usize) -> bool {
        records::is_kept(self, best, ply)
    }

    /// A bullet `ChessBoard` (the board from the side to move's view, the score, White's
    /// result).
    fn push_training_record(&self, score: i16, first_result: f64, out: &mut Vec<u8>) {
        let board = records::bullet_board(self.board(), score.into(), first_result as f32);
        if let Some(record) = board {
            out.extend_from_slice(ChessBoard::as_bytes_slice(&[record]));
        }
    }

    fn decode(bytes: &[u8]) -> Vec<ChessBoard> {
        records::decode_bullet(bytes)
    }

    const MAX_PLIES: usize = MAX_PLIES;
    const ADJUDICATION: Option<Adjudication> = Some(ADJUDICATION);
    const STORE_FORMAT: StoreFormat = store::VIRIFORMAT;

    /// viriformat's code ([`store::move_code`]).
    fn record_code(&self, mv: Move) -> u16 {
        store::move_code(self.board(), mv)
    }

    fn move_of_record_code(&self, code: u16) -> Option<Move> {
        store::move_of_code(self.board(), code)
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
    use crate::selfplay::{self, read_book, DataFormat, DatagenOptions, DatagenSummary};
    use crate::store::{self, StoreFilter};
    use cozy_chess::{Board, Color};
    use cutoff::games::chess::nnue::board_bucket;
    use cutoff::nnue::{random_bucketed_network, Activation};
    use cutoff::search::{Rules, SearchHooks};
    use records::{bullet_board, decode_bullet, encode_bullet};

    fn options(threads: usize, format: DataFormat) -> DatagenOptions {
        DatagenOptions {
            games: 3,
            first_game: 0,
            nodes: 300,
            threads,
            random_plies: (4, 4),
            format,
            seed: 7,
            hash_mb: 1,
            net: None,
        }
    }

    fn generate(options: &DatagenOptions, book: &[Vec<String>]) -> (Vec<u8>, DatagenSummary) {
        let mut out = Vec::new();
        let summary = selfplay::run::<Chess>(options, book, &mut out, &mut |_| {}).unwrap();
        (out, summary)
    }

    /// The `FEN;result` lines of the training positions of the store file `bytes`
    /// (`data export`).
    fn exported(bytes: &[u8], name: &str) -> String {
        let file = std::env::temp_dir().join(format!("cutoff-{name}-{}.cgr", std::process::id()));
        std::fs::write(&file, bytes).unwrap();
        let mut text = Vec::new();
        let filter = StoreFilter::default();
        let stats =
            store::read_text_lines::<Chess>(std::slice::from_ref(&file), &filter, &mut text);
        std::fs::remove_file(&file).unwrap();
        assert!(stats.unwrap().errors.is_empty());
        String::from_utf8(text).unwrap()
    }

    #[test]
    fn datagen_is_deterministic_and_quiet() {
        let book = read_book("# test\ne2e4 e7e5\nd2d4 d7d5 c2c4\n");
        let (one, s1) = generate(&options(1, DataFormat::Records), &book);
        let (two, s2) = generate(&options(2, DataFormat::Records), &book);
        assert_eq!(s1, s2);
        assert_eq!(one, two);
        let (bullet, summary) = generate(&options(1, DataFormat::Bullet), &book);
        assert_eq!(summary.games, s1.games);
        assert!(summary.positions > 0);
        assert_eq!(bullet.len(), 32 * summary.positions);
        let text = exported(&one, "chess-quiet");
        assert_eq!(text.lines().count(), summary.positions);
        for line in text.lines() {
            let (fen, result) = line.split_once(';').unwrap();
            assert!(["1.0", "0.5", "0.0"].contains(&result), "{line}");
            let game = Chess::from_fen(&Chess::datagen_variant(None), fen).unwrap();
            assert!(!game.in_check(), "{line}");
        }
    }

    #[test]
    fn a_continued_run_appends_the_same_games() {
        let book = read_book("e2e4 e7e5\nd2d4 d7d5 c2c4\n");
        let mut whole = options(1, DataFormat::Bullet);
        whole.games = 4;
        whole.random_plies = (2, 6);
        let (all, _) = generate(&whole, &book);
        let first = DatagenOptions {
            games: 2,
            ..whole.clone()
        };
        let rest = DatagenOptions {
            games: 2,
            first_game: 2,
            ..whole.clone()
        };
        let (mut joined, _) = generate(&first, &book);
        joined.extend(generate(&rest, &book).0);
        assert_eq!(all, joined);
    }

    #[test]
    fn bullet_records_hold_the_board_score_and_result() {
        let book = read_book("e2e4 e7e5\n");
        let (stored, _) = generate(&options(1, DataFormat::Records), &book);
        let (bytes, summary) = generate(&options(1, DataFormat::Bullet), &book);
        assert_eq!(bytes.len(), 32 * summary.positions);
        let records = decode_bullet(&bytes);
        assert_eq!(encode_bullet(&records), bytes);
        let text = exported(&stored, "chess-bullet");
        assert_eq!(text.lines().count(), records.len());
        for (line, record) in text.lines().zip(&records) {
            let (fen, result) = line.split_once(';').unwrap();
            let board: Board = fen.parse().unwrap();
            let stm_white = board.side_to_move() == Color::White;
            // Pieces and squares, from the side to move's view (Black's boards flipped).
            let mut expected: Vec<(u8, u8)> = Vec::new();
            for square in board.occupied() {
                let color = board.color_on(square).unwrap();
                let piece = board.piece_on(square).unwrap() as u8;
                let ours = (color == Color::White) == stm_white;
                let square = if stm_white {
                    square as u8
                } else {
                    square as u8 ^ 56
                };
                expected.push((u8::from(!ours) << 3 | piece, square));
            }
            expected.sort_by_key(|&(_, square)| square);
            let got: Vec<(u8, u8)> = (*record).into_iter().collect();
            assert_eq!(got, expected, "{fen}");
            let white_result = match result {
                "1.0" => 2,
                "0.0" => 0,
                _ => 1,
            };
            let stm_result = if stm_white {
                white_result
            } else {
                2 - white_result
            };
            assert_eq!(record.result, stm_result, "{fen}");
            assert_eq!(record.problem(), None, "{fen}");
        }
        // Bytes that are no chess record are refused before a feature is read.
        let junk = decode_bullet(&[0xff; 32]);
        assert_eq!(junk[0].problem(), Some("more than 32 pieces"));
        let text = decode_bullet(&b"# balanced openings, one a line.\n"[..32]);
        assert!(text[0].problem().is_some());
    }

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
