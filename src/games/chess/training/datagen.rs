//! `datagen`: self-play chess games with the engine's own search at a fixed node count per
//! move, writing quiet positions labelled with the game result for the evaluation tuner
//! (`cutoff tune`, [`crate::games::chess::training::tune`]).
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
//! Output, appended to the file, in one of two formats ([`DataFormat`]):
//! - text: one `FEN;result` line per position, result `1.0`, `0.5` or `0.0` from White's
//!   view (what `cutoff tune` reads);
//! - bullet: bullet's `ChessBoard` records (the `bulletformat` crate, 32 bytes each: the
//!   board from the side to move's view, the search score in centipawns and the result),
//!   which `cutoff train` and bullet's trainers read.
//!
//! Games are numbered and each is played from its own seed (the run's seed and the game's
//! number) with fresh tables, and the file lists the games in order, so the output depends
//! only on the arguments (not on the number of threads or their timing), and a run can be
//! continued with `first_game` set to the number of games already played.

use bulletformat::{BulletFormat, ChessBoard};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use cozy_chess::{Board, Color, Piece};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::games::chess::nnue::Network;
use crate::games::chess::{Chess, ChessVariant};
use crate::rng::SplitMix;
use crate::search::score::is_mate;
use crate::search::{Game, GameResult, Limits, MoveList, Player, ThreadPool};

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
/// Plies played after the start (book and random plies) before positions are written.
pub const SKIP_PLIES: usize = 8;

/// How positions are written.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum DataFormat {
    /// `FEN;result` lines (for `cutoff tune`).
    #[default]
    Text,
    /// bullet's 32-byte `ChessBoard` records, with the search score (for NNUE training).
    Bullet,
}

impl DataFormat {
    /// Reads `text` or `bullet` on the command line.
    fn parser() -> impl TypedValueParser<Value = DataFormat> {
        PossibleValuesParser::new(["text", "bullet"]).map(|name| {
            if name == "bullet" {
                DataFormat::Bullet
            } else {
                DataFormat::Text
            }
        })
    }
}

/// Settings of a data generation run (the options of `cutoff datagen`).
#[derive(Args, Clone, Debug)]
pub struct DatagenOptions {
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Number of the first game: continue a run that played this many games.
    #[arg(long, default_value_t = 0)]
    pub first_game: usize,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Random legal plies after the book line: `N`, or `A-B` for A to B (per game).
    // At least the first, at most the second; each game draws its number from its seed.
    #[arg(long, default_value = "4", value_parser = parse_range)]
    pub random_plies: (usize, usize),
    /// Output format: `text` (FEN;result, for tune) or `bullet` (32-byte records).
    #[arg(long, default_value = "text", value_parser = DataFormat::parser())]
    pub format: DataFormat,
    /// Seed: the output depends only on the arguments.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Transposition table per worker, MiB.
    #[arg(skip = 16_usize)]
    pub hash_mb: usize,
    /// The network that evaluates in the self-play searches; `None`: the hand-crafted
    /// evaluation.
    #[arg(skip)]
    pub net: Option<Arc<Network>>,
}

/// A kept position and the search's score of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The position.
    pub board: Board,
    /// The search score in centipawns from the side to move's view.
    pub score: i32,
}

/// One finished game: its quiet positions and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
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

    /// The record in `format`, as bytes to append to the output.
    pub fn encode(&self, format: DataFormat) -> Vec<u8> {
        match format {
            DataFormat::Text => self.lines().into_bytes(),
            DataFormat::Bullet => encode_bullet(&self.bullet_records()),
        }
    }
}

/// A position as bullet's `ChessBoard`: `score` is the side to move's (centipawns),
/// `white_result` White's result (1, 0.5, 0).
pub fn bullet_board(board: &Board, score: i32, white_result: f32) -> Option<ChessBoard> {
    let bits = |bitboard: cozy_chess::BitBoard| bitboard.0;
    let bbs = [
        bits(board.colors(Color::White)),
        bits(board.colors(Color::Black)),
        bits(board.pieces(Piece::Pawn)),
        bits(board.pieces(Piece::Knight)),
        bits(board.pieces(Piece::Bishop)),
        bits(board.pieces(Piece::Rook)),
        bits(board.pieces(Piece::Queen)),
        bits(board.pieces(Piece::King)),
    ];
    let stm = usize::from(board.side_to_move() == Color::Black);
    let score = score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16;
    let white_score = if stm == 0 { score } else { -score };
    ChessBoard::from_raw(bbs, stm, white_score, white_result).ok()
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
    // Step 2. Self-play.
    pool.new_game();
    let limits = Limits::nodes(options.nodes.max(1));
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
        if plies >= SKIP_PLIES && !game.in_check() && !game.is_noisy(best) && !bare_king(&game) {
            positions.push(Sample {
                board: game.board().clone(),
                score: search.score,
            });
        }
        game.make_move(best);
        plies += 1;
    };
    GameRecord {
        positions,
        result,
        plies,
    }
}

/// The opening of chess game number `index` (see [`opening_of`]).
fn opening(index: usize, book: &[Vec<String>], options: &DatagenOptions) -> Chess {
    let variant = ChessVariant {
        chess960: false,
        net: options.net.clone(),
    };
    opening_of(&variant, index, book, options)
}

/// The opening of game number `index` of any game: a book line (if any), then random legal
/// plies, drawn from the game's own seed; the position comes with a fresh history.
pub fn opening_of<G: Game>(
    variant: &G::Variant,
    index: usize,
    book: &[Vec<String>],
    options: &DatagenOptions,
) -> G {
    let mut rng = game_rng(options, index);
    let random_plies = random_plies(options, &mut rng);
    let mut game = G::start(variant);
    if !book.is_empty() {
        for text in &book[rng.below(book.len())] {
            match game.parse_move(text) {
                Ok(mv) => game.make_move(mv),
                Err(_) => break,
            }
        }
    }
    for _ in 0..random_plies {
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        if moves.is_empty() || game.outcome().is_some() {
            break;
        }
        game.make_move(moves[rng.below(moves.len())]);
    }
    // A fresh position history, so that the book's moves do not linger in the key stack.
    match G::from_fen(variant, &game.to_fen()) {
        Ok(fresh) => fresh,
        Err(_) => G::start(variant),
    }
}

/// The generator of game number `index`: from the run's seed and the number alone.
pub fn game_rng(options: &DatagenOptions, index: usize) -> SplitMix {
    SplitMix::new(
        options
            .seed
            .wrapping_mul(0x2545_f491_4f6c_dd1d)
            .wrapping_add(index as u64),
    )
}

/// How many random plies a game plays after its book line, drawn from `rng`.
pub fn random_plies(options: &DatagenOptions, rng: &mut SplitMix) -> usize {
    let (fewest, most) = options.random_plies;
    fewest + rng.below(most.saturating_sub(fewest) + 1)
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

/// Size of one bullet `ChessBoard` record in bytes.
pub const BULLET_RECORD_BYTES: usize = 32;

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

/// Whether a side has nothing but its king. Such positions are left out: at a few thousand
/// nodes a move the engine often fails to convert them and draws by the fifty-move rule,
/// which would teach the tuner that a queen is worth little in the endgame.
fn bare_king(game: &Chess) -> bool {
    let board = game.board();
    [cozy_chess::Color::White, cozy_chess::Color::Black]
        .into_iter()
        .any(|color| board.colors(color).len() == 1)
}

/// Reads an opening book of move lines (`#` comments and blank lines skipped).
pub fn read_book(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| line.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// What a run wrote.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DatagenSummary {
    /// Games played.
    pub games: usize,
    /// Positions written.
    pub positions: usize,
    /// Games won by White, drawn, won by Black.
    pub white_wins: usize,
    /// Drawn games.
    pub draws: usize,
    /// Games won by Black.
    pub black_wins: usize,
}

/// One finished game as any game's datagen writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameOutput {
    /// The encoded positions.
    pub bytes: Vec<u8>,
    /// How many positions they are.
    pub positions: usize,
    /// The result, 1.0 / 0.5 / 0.0 from the first player's view.
    pub result: f64,
}

impl DatagenSummary {
    fn add(&mut self, record: &GameOutput) {
        self.games += 1;
        self.positions += record.positions;
        match record.result {
            r if r > 0.75 => self.white_wins += 1,
            r if r < 0.25 => self.black_wins += 1,
            _ => self.draws += 1,
        }
    }
}

/// Plays games `options.first_game ..` (`options.games` of them) on `options.threads`
/// threads and appends their positions to `out` in game order; `progress` is told the
/// running totals after each game. Returns the totals.
pub fn run(
    options: &DatagenOptions,
    book: &[Vec<String>],
    out: &mut dyn Write,
    progress: &mut dyn FnMut(&DatagenSummary),
) -> Result<DatagenSummary, String> {
    run_games::<Chess>(options, out, progress, &|index, pool| {
        let record = play_game(index, book, options, pool);
        GameOutput {
            bytes: record.encode(options.format),
            positions: record.positions.len(),
            result: record.result,
        }
    })
}

/// Plays games `options.first_game ..` (`options.games` of them) of `G` with `play` on
/// `options.threads` threads and appends them to `out` in game order; `progress` is told
/// the running totals after each game. Any game's datagen runs through it.
pub fn run_games<G: Game>(
    options: &DatagenOptions,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(&DatagenSummary),
    play: &(dyn Fn(usize, &mut ThreadPool<G>) -> GameOutput + Sync),
) -> Result<DatagenSummary, String> {
    let threads = options.threads.clamp(1, 256);
    let next = Arc::new(AtomicUsize::new(0));
    let (sender, receiver) = crossbeam_channel::unbounded::<(usize, GameOutput)>();
    std::thread::scope(|scope| -> Result<DatagenSummary, String> {
        for _ in 0..threads {
            let sender = sender.clone();
            let next = Arc::clone(&next);
            scope.spawn(move || {
                let mut pool = ThreadPool::<G>::new(options.hash_mb.clamp(1, 1024));
                loop {
                    let offset = next.fetch_add(1, Ordering::Relaxed);
                    if offset >= options.games {
                        break;
                    }
                    let record = play(options.first_game + offset, &mut pool);
                    if sender.send((offset, record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // Write finished games in order.
        let mut pending: BTreeMap<usize, GameOutput> = BTreeMap::new();
        let mut summary = DatagenSummary::default();
        for (offset, record) in receiver {
            pending.insert(offset, record);
            while let Some(record) = pending.remove(&summary.games) {
                out.write_all(&record.bytes)
                    .map_err(|e| format!("cannot write positions: {e}"))?;
                summary.add(&record);
                progress(&summary);
            }
        }
        out.flush()
            .map_err(|e| format!("cannot write positions: {e}"))?;
        Ok(summary)
    })
}

/// Reads `N` as (N, N) and `A-B` as (A, B).
pub fn parse_range(text: &str) -> Result<(usize, usize), String> {
    let number = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("expected N or A-B, got '{text}'"))
    };
    match text.split_once('-') {
        Some((a, b)) => {
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                return Err(format!("empty range '{text}'"));
            }
            Ok((a, b))
        }
        None => number(text).map(|n| (n, n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let summary = run(options, book, &mut out, &mut |_| {}).unwrap();
        (out, summary)
    }

    #[test]
    fn random_plies_read_a_number_or_a_range() {
        assert_eq!(parse_range("4"), Ok((4, 4)));
        assert_eq!(parse_range(" 2-6"), Ok((2, 6)));
        assert!(parse_range("6-2").is_err());
        assert!(parse_range("x").is_err());
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
        }
    }
}
