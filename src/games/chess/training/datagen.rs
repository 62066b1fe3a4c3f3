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
//! Output: one `FEN;result` line per position, result `1.0`, `0.5` or `0.0` from White's
//! view. Games are numbered and each is played from its own seed with fresh tables, and
//! the file lists the games in order, so the output depends only on the arguments (not on
//! the number of threads or their timing).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

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

/// Settings of a data generation run.
#[derive(Clone, Debug)]
pub struct DatagenOptions {
    /// Games to play.
    pub games: usize,
    /// Nodes searched per move.
    pub nodes: u64,
    /// Worker threads (games are played in parallel, one search thread each).
    pub threads: usize,
    /// Random legal plies played after the book line.
    pub random_plies: usize,
    /// Seed of the whole run.
    pub seed: u64,
    /// Transposition table per worker, MiB.
    pub hash_mb: usize,
}

/// One finished game: its quiet positions (FENs) and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// FENs of the positions kept.
    pub positions: Vec<String>,
    /// The result, 1.0 / 0.5 / 0.0 from White's view.
    pub result: f64,
    /// Plies played.
    pub plies: usize,
}

impl GameRecord {
    /// The record as `FEN;result` lines.
    pub fn lines(&self) -> String {
        let mut out = String::new();
        for fen in &self.positions {
            out.push_str(fen);
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
    let mut rng = SplitMix::new(
        options
            .seed
            .wrapping_mul(0x2545_f491_4f6c_dd1d)
            .wrapping_add(index as u64),
    );
    let variant = ChessVariant::default();
    let mut game = Chess::start(&variant);
    // Step 1. The opening: a book line (if any), then random legal plies.
    if !book.is_empty() {
        for text in &book[rng.below(book.len())] {
            match game.parse_move(text) {
                Ok(mv) => game.make_move(mv),
                Err(_) => break,
            }
        }
    }
    for _ in 0..options.random_plies {
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        if moves.is_empty() || game.outcome().is_some() {
            break;
        }
        game.make_move(moves[rng.below(moves.len())]);
    }
    // A fresh position history, so that the book's moves do not linger in the key stack.
    let mut game = match Chess::from_fen(&variant, &game.to_fen()) {
        Ok(fresh) => fresh,
        Err(_) => Chess::start(&variant),
    };

    // Step 2. Self-play.
    pool.new_game();
    let limits = Limits::nodes(options.nodes.max(1));
    let mut positions = Vec::new();
    let mut streak: (Option<Player>, usize) = (None, 0);
    let mut level_plies = 0;
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
        let mover = game.side_to_move();
        if is_mate(search.score) {
            break win_for(if search.score > 0 {
                mover
            } else {
                mover.other()
            });
        }
        // Adjudication by a lasting large score.
        if search.score.abs() >= WIN_SCORE {
            let leader = if search.score > 0 {
                mover
            } else {
                mover.other()
            };
            streak = match streak {
                (Some(p), n) if p == leader => (Some(p), n + 1),
                _ => (Some(leader), 1),
            };
            if streak.1 >= WIN_PLIES {
                break win_for(leader);
            }
        } else {
            streak = (None, 0);
        }
        // Adjudication of a lasting level score as a draw.
        level_plies = if search.score.abs() <= DRAW_SCORE {
            level_plies + 1
        } else {
            0
        };
        if plies >= DRAW_FROM_PLY && level_plies >= DRAW_PLIES {
            break 0.5;
        }
        if plies >= SKIP_PLIES && !game.in_check() && !game.is_noisy(best) && !bare_king(&game) {
            positions.push(game.to_fen());
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

/// Plays `options.games` games on `options.threads` threads and writes their positions to
/// `out` in game order; progress goes to `log`. Returns the number of positions written.
pub fn run(
    options: &DatagenOptions,
    book: &[Vec<String>],
    out: &mut dyn Write,
    log: &mut dyn Write,
) -> Result<usize, String> {
    let threads = options.threads.clamp(1, 256);
    let next = Arc::new(AtomicUsize::new(0));
    let (sender, receiver) = crossbeam_channel::unbounded::<(usize, GameRecord)>();
    let started = Instant::now();
    let written = std::thread::scope(|scope| -> Result<usize, String> {
        for _ in 0..threads {
            let sender = sender.clone();
            let next = Arc::clone(&next);
            scope.spawn(move || {
                let mut pool = ThreadPool::<Chess>::new(options.hash_mb.clamp(1, 1024));
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= options.games {
                        break;
                    }
                    let record = play_game(index, book, options, &mut pool);
                    if sender.send((index, record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // Write finished games in order.
        let mut pending: BTreeMap<usize, GameRecord> = BTreeMap::new();
        let mut next_to_write = 0;
        let mut positions = 0;
        let (mut wins, mut draws, mut losses) = (0, 0, 0);
        for (index, record) in receiver {
            pending.insert(index, record);
            while let Some(record) = pending.remove(&next_to_write) {
                out.write_all(record.lines().as_bytes())
                    .map_err(|e| format!("cannot write positions: {e}"))?;
                positions += record.positions.len();
                match record.result {
                    r if r > 0.75 => wins += 1,
                    r if r < 0.25 => losses += 1,
                    _ => draws += 1,
                }
                next_to_write += 1;
                if next_to_write % 50 == 0 || next_to_write == options.games {
                    let _ = writeln!(
                        log,
                        "games {next_to_write}/{} positions {positions} (white +{wins} ={draws} -{losses}) {:.0} s",
                        options.games,
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        }
        out.flush()
            .map_err(|e| format!("cannot write positions: {e}"))?;
        Ok(positions)
    })?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(threads: usize) -> DatagenOptions {
        DatagenOptions {
            games: 3,
            nodes: 300,
            threads,
            random_plies: 4,
            seed: 7,
            hash_mb: 1,
        }
    }

    #[test]
    fn datagen_is_deterministic_and_quiet() {
        let book = read_book("# test\ne2e4 e7e5\nd2d4 d7d5 c2c4\n");
        let mut one = Vec::new();
        let mut two = Vec::new();
        let n1 = run(&options(1), &book, &mut one, &mut std::io::sink()).unwrap();
        let n2 = run(&options(2), &book, &mut two, &mut std::io::sink()).unwrap();
        assert_eq!(n1, n2);
        assert_eq!(one, two);
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
}
