//! `datagen`: self-play chess games with the engine's own search at a fixed node count per
//! move, writing quiet positions labelled with the game result for the evaluation tuner
//! (`cutoff tune`, [`crate::chess::tune`]).
//!
//! Each game starts from a random line of the opening book followed by a few random legal
//! plies. Positions are kept when the side to move is not in check, the search's best move
//! is neither a capture nor a promotion, the score is not a mate score, neither side has a
//! bare king, and the game is past its opening plies. A game ends by the rules, by a mate
//! score (the side that has it wins), or by adjudication: a score of at least
//! [`WIN_SCORE`] for [`WIN_PLIES`] plies in a row wins; a score within [`DRAW_SCORE`] for
//! [`DRAW_PLIES`] plies in a row after [`DRAW_FROM_PLY`] is a draw (so dead-drawn endings
//! do not flood the data with near-identical positions), and [`MAX_PLIES`] plies are a
//! draw.
//!
//! Output, appended to the file, in one of three formats ([`DataFormat`]):
//! - text: one `FEN;result` line per position, result `1.0`, `0.5` or `0.0` from White's
//!   view (what `cutoff tune` reads);
//! - bullet: bullet's `ChessBoard` records (the `bulletformat` crate, 32 bytes each: the
//!   board from the side to move's view, the search score in centipawns and the result),
//!   which `cutoff train` and bullet's trainers read;
//! - records: the store's format, each game in viriformat (its start after the opening,
//!   every move with the search's score, the result; [`crate::chess::store`]), which
//!   `cutoff train` and `data` replay to exactly the bullet records of the same games.
//!
//! The run loop, the options and the openings are every game's ([`crate::selfplay`]):
//! the output depends only on the arguments, and a run can be continued with `first_game`.

use bulletformat::{BulletFormat, ChessBoard};
use cozy_chess::{Board, Move};

use super::records::{bullet_board, is_kept, BULLET_RECORD_BYTES};
use super::store;
use crate::blocks::{self, BlockKind};
use crate::selfplay::{self, opening_of, DataFormat, DatagenOptions, GameOutput, SelfPlay};
use cutoff::games::chess::{Chess, ChessVariant};
use cutoff::search::score::is_mate;
use cutoff::search::{GameResult, Limits, Player, Rules, ThreadPool};

/// A score (centipawns, side to move's view) that adjudicates the game when held long enough.
pub const WIN_SCORE: i32 = 1_500;
/// Plies in a row the score must stay beyond [`WIN_SCORE`] (same sign for the same side).
pub const WIN_PLIES: usize = 6;
/// A score (centipawns) within which the game counts as level for draw adjudication.
pub const DRAW_SCORE: i32 = 10;
/// Plies in a row the score must stay within [`DRAW_SCORE`] to adjudicate a draw.
pub const DRAW_PLIES: usize = 12;
/// The first ply at which a draw may be adjudicated.
pub const DRAW_FROM_PLY: usize = 80;
/// Plies after which an unfinished game is a draw.
pub const MAX_PLIES: usize = 400;

/// A kept position and the search's score of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The position.
    pub board: Board,
    /// The search score in centipawns from the side to move's view.
    pub score: i32,
}

/// One finished game: its start, its moves, its quiet positions and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The position self-play started from (after the opening).
    pub start: Board,
    /// Every move played, with the search's score (side to move's view, within `i16`).
    pub moves: Vec<(Move, i16)>,
    /// The positions kept.
    pub positions: Vec<Sample>,
    /// The result, 1.0 / 0.5 / 0.0 from White's view.
    pub result: f64,
    /// Plies played.
    pub plies: usize,
}

impl GameRecord {
    /// The record as `FEN;result` lines.
    pub fn lines(&self) -> String {
        let mut out = String::new();
        for sample in &self.positions {
            out.push_str(&sample.board.to_string());
            out.push(';');
            out.push_str(match self.result {
                r if r > 0.75 => "1.0",
                r if r < 0.25 => "0.0",
                _ => "0.5",
            });
            out.push('\n');
        }
        out
    }

    /// The record as bullet `ChessBoard` records.
    pub fn bullet_records(&self) -> Vec<ChessBoard> {
        self.positions
            .iter()
            .filter_map(|sample| bullet_board(&sample.board, sample.score, self.result as f32))
            .collect()
    }

    /// The record in `format`, as bytes to append to the output (a game in viriformat for
    /// `records`, which the store's blocks gather).
    pub fn encode(&self, format: DataFormat) -> Result<Vec<u8>, String> {
        match format {
            DataFormat::Text => Ok(self.lines().into_bytes()),
            DataFormat::Bullet => Ok(encode_bullet(&self.bullet_records())),
            DataFormat::Records => {
                let mut out = Vec::new();
                let white_result = (self.result * 2.0).round().clamp(0.0, 2.0) as u8;
                store::encode_game(&self.start, &self.moves, white_result, &mut out)?;
                Ok(out)
            }
        }
    }
}

/// White's score for a result.
fn white_score(result: GameResult) -> f64 {
    match result {
        GameResult::FirstWins => 1.0,
        GameResult::SecondWins => 0.0,
        GameResult::Draw => 0.5,
    }
}

/// White's score when `player` wins.
fn win_for(player: Player) -> f64 {
    match player {
        Player::First => 1.0,
        Player::Second => 0.0,
    }
}

/// Plays game number `index` of a run from its own seed: book line, random plies, then
/// the engine against itself at `options.nodes` per move, searching with `pool` (whose
/// tables are cleared first).
pub fn play_game(
    index: usize,
    book: &[Vec<String>],
    options: &DatagenOptions,
    pool: &mut ThreadPool<Chess>,
) -> GameRecord {
    // Step 1. The opening: a book line (if any), then random legal plies.
    let mut game = opening(index, book, options);
    let start = game.board().clone();
    // Step 2. Self-play.
    pool.new_game();
    let limits = Limits::nodes(options.nodes.max(1));
    let mut moves = Vec::new();
    let mut positions = Vec::new();
    let mut adjudication = Adjudication::default();
    let mut plies = 0;
    let result = loop {
        if let Some(end) = game.game_end() {
            break white_score(end.result);
        }
        if plies >= MAX_PLIES {
            break 0.5;
        }
        let search = pool.search(&game, &limits, &[]);
        let Some(best) = search.best else {
            break 0.5;
        };
        if let Some(result) = adjudication.verdict(game.side_to_move(), search.score, plies) {
            break result;
        }
        if is_kept(&game, best, plies) {
            positions.push(Sample {
                board: game.board().clone(),
                score: search.score,
            });
        }
        moves.push((best, search.score.clamp(-SCORE_BOUND, SCORE_BOUND) as i16));
        game.make_move(best);
        plies += 1;
    };
    GameRecord {
        start,
        moves,
        positions,
        result,
        plies,
    }
}

/// The bound of a stored score: bullet's records clamp theirs to it too.
const SCORE_BOUND: i32 = i16::MAX as i32;

/// The opening of chess game number `index` (see [`opening_of`]).
fn opening(index: usize, book: &[Vec<String>], options: &DatagenOptions) -> Chess {
    let variant = ChessVariant {
        chess960: false,
        net: options.net.clone(),
        tablebases: None,
    };
    opening_of(&variant, index, book, options)
}

/// What the scores of a self-play game have shown so far, for ending it early.
#[derive(Default)]
struct Adjudication {
    /// The side whose score has stayed beyond [`WIN_SCORE`], and for how many plies.
    streak: (Option<Player>, usize),
    /// Plies in a row with the score within [`DRAW_SCORE`].
    level_plies: usize,
}

impl Adjudication {
    /// White's result if the search's `score` (for `mover`, at ply `plies`) ends the game:
    /// a mate score, a lasting large score or a lasting level score.
    fn verdict(&mut self, mover: Player, score: i32, plies: usize) -> Option<f64> {
        let leader = if score > 0 { mover } else { mover.other() };
        if is_mate(score) {
            return Some(win_for(leader));
        }
        // Adjudication by a lasting large score.
        if score.abs() >= WIN_SCORE {
            self.streak = match self.streak {
                (Some(p), n) if p == leader => (Some(p), n + 1),
                _ => (Some(leader), 1),
            };
            if self.streak.1 >= WIN_PLIES {
                return Some(win_for(leader));
            }
        } else {
            self.streak = (None, 0);
        }
        // Adjudication of a lasting level score as a draw.
        self.level_plies = if score.abs() <= DRAW_SCORE {
            self.level_plies + 1
        } else {
            0
        };
        (plies >= DRAW_FROM_PLY && self.level_plies >= DRAW_PLIES).then_some(0.5)
    }
}

/// Decodes bullet `ChessBoard` records (little-endian, 32 bytes each; a trailing partial
/// record is ignored).
pub fn decode_bullet(bytes: &[u8]) -> Vec<ChessBoard> {
    bytes
        .chunks_exact(BULLET_RECORD_BYTES)
        .map(|chunk| {
            let mut pcs = [0; 16];
            pcs.copy_from_slice(&chunk[8..24]);
            ChessBoard {
                occ: u64::from_le_bytes(chunk[0..8].try_into().unwrap_or_default()),
                pcs,
                score: i16::from_le_bytes([chunk[24], chunk[25]]),
                result: chunk[26],
                ksq: chunk[27],
                opp_ksq: chunk[28],
                extra: [chunk[29], chunk[30], chunk[31]],
            }
        })
        .collect()
}

/// Encodes bullet `ChessBoard` records as bullet writes them.
pub fn encode_bullet(records: &[ChessBoard]) -> Vec<u8> {
    ChessBoard::as_bytes_slice(records).to_vec()
}

impl SelfPlay for Chess {
    const STORE_BLOCKS: BlockKind = blocks::VIRIFORMAT;

    /// [`play_game`], encoded in `options.format`.
    fn record_game(
        index: usize,
        book: &[Vec<String>],
        options: &DatagenOptions,
        pool: &mut ThreadPool<Chess>,
    ) -> GameOutput {
        let record = play_game(index, book, options, pool);
        let positions =
            selfplay::positions_written(options.format, record.moves.len(), record.positions.len());
        GameOutput {
            bytes: record.encode(options.format),
            positions,
            result: record.result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::{self, read_book, DatagenSummary};
    use crate::trainer::TrainingRecord;
    use cozy_chess::Color;
    use cutoff::search::SearchHooks;

    fn options(threads: usize) -> DatagenOptions {
        DatagenOptions {
            games: 3,
            first_game: 0,
            nodes: 300,
            threads,
            random_plies: (4, 4),
            format: DataFormat::Text,
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

    #[test]
    fn datagen_is_deterministic_and_quiet() {
        let book = read_book("# test\ne2e4 e7e5\nd2d4 d7d5 c2c4\n");
        let (one, s1) = generate(&options(1), &book);
        let (two, s2) = generate(&options(2), &book);
        assert_eq!(s1, s2);
        assert_eq!(one, two);
        let n1 = s1.positions;
        let text = String::from_utf8(one).unwrap();
        assert_eq!(text.lines().count(), n1);
        assert!(n1 > 0);
        for line in text.lines() {
            let (fen, result) = line.split_once(';').unwrap();
            assert!(["1.0", "0.5", "0.0"].contains(&result), "{line}");
            let game = Chess::from_fen(&ChessVariant::default(), fen).unwrap();
            assert!(!game.in_check(), "{line}");
        }
    }

    #[test]
    fn a_continued_run_appends_the_same_games() {
        let book = read_book("e2e4 e7e5\nd2d4 d7d5 c2c4\n");
        let mut whole = options(1);
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
        let text_options = options(1);
        let bullet_options = DatagenOptions {
            format: DataFormat::Bullet,
            ..options(1)
        };
        let (text, summary) = generate(&text_options, &book);
        let (bytes, _) = generate(&bullet_options, &book);
        assert_eq!(bytes.len(), 32 * summary.positions);
        let records = decode_bullet(&bytes);
        assert_eq!(encode_bullet(&records), bytes);
        for (line, record) in String::from_utf8(text).unwrap().lines().zip(&records) {
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
}
