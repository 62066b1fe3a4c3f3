//! Self-play data for any game's learned evaluation: the settings of a `datagen` run
//! ([`DatagenOptions`], [`DataFormat`]), the opening of each game (a book line and random
//! plies drawn from the game's own seed, [`opening_of`]), the one self-play game loop
//! ([`play_game`]: what a game has to say about it is in its
//! [`TrainingSupport`]) and the run loop that plays numbered games on several threads and
//! writes them in order ([`run`], [`run_games`]).
//!
//! Games are numbered and each is played from its own seed (the run's seed and the game's
//! number) with fresh tables, and the output lists the games in order, so it depends only
//! on the arguments (not on the number of threads or their timing), and a run can be
//! continued with `first_game` set to the number of games already played.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::blocks::{BlockKind, BlockWriter};
use crate::records::{GameRecord, RecordedMove};
use crate::support::{Adjudication, TrainingSupport};
use cutoff::nnue::Network;
use cutoff::rng::SplitMix;
use cutoff::search::score::is_mate;
use cutoff::search::{Game, GameResult, Limits, MoveList, Player, ThreadPool};

/// How positions are written.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum DataFormat {
    /// The trainer's records of the game's training positions (bullet's 32-byte
    /// `ChessBoard`, `AtaxxBoard`), with the search score (for NNUE training).
    Bullet,
    /// Game records ([`crate::records`]): each game's start, moves with scores and result,
    /// compressed; the format of the store (`data/`).
    #[default]
    Records,
}

impl DataFormat {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            DataFormat::Bullet => "bullet",
            DataFormat::Records => "records",
        }
    }

    /// Reads `bullet` or `records` on the command line.
    fn parser() -> impl TypedValueParser<Value = DataFormat> {
        PossibleValuesParser::new(["bullet", "records"]).map(|name| match name.as_str() {
            "bullet" => DataFormat::Bullet,
            _ => DataFormat::Records,
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
    /// Output format: `records` (compressed game records, the store's format) or `bullet`
    /// (the trainer's records).
    #[arg(long, default_value = "records", value_parser = DataFormat::parser())]
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
        // Among the moves the search would consider (every legal move but in gomoku, where
        // a stone far from the others would leave the game as it was).
        let mut moves = MoveList::new();
        game.generate_search_moves(&mut moves);
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

/// An error naming the first line of `book` (counting opening lines from 1) that is not a
/// sequence of legal moves of `G` from the start: another game's book would otherwise be
/// dropped line by line, and every game start from the start position.
pub fn check_book<G: Game>(variant: &G::Variant, book: &[Vec<String>]) -> Result<(), String> {
    for (number, line) in book.iter().enumerate() {
        cutoff::games::setup::position_from::<G, _>(variant, None, line)
            .map_err(|e| format!("book opening {}: {e}", number + 1))?;
    }
    Ok(())
}

/// The first player's score (1, 1/2 or 0) for a game's result.
pub fn first_player_score(result: GameResult) -> f64 {
    match result {
        GameResult::FirstWins => 1.0,
        GameResult::SecondWins => 0.0,
        GameResult::Draw => 0.5,
    }
}

/// The first player's score once a search's mate `score` for the side to move `mover`
/// decides the game (a positive score wins for `mover`), or `None` for no mate score.
pub fn mate_first_player_score(mover: Player, score: i32) -> Option<f64> {
    is_mate(score).then(|| {
        let winner = if score > 0 { mover } else { mover.other() };
        if winner == Player::First {
            1.0
        } else {
            0.0
        }
    })
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

/// Most random plies `--random-plies` takes (far more than any game needs to diverge).
pub const MAX_RANDOM_PLIES: usize = 1000;

/// How many random plies a game plays after its book line, drawn from `rng`.
pub fn random_plies(options: &DatagenOptions, rng: &mut SplitMix) -> usize {
    let (fewest, most) = options.random_plies;
    fewest + rng.below(most.saturating_sub(fewest) + 1)
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
    /// Games won by the first player (White in chess, `x` in Ataxx).
    pub first_wins: usize,
    /// Drawn games.
    pub draws: usize,
    /// Games won by the second player.
    pub second_wins: usize,
}

/// One finished game as any game's datagen writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameOutput {
    /// The encoded positions, or why the game could not be encoded.
    pub bytes: Result<Vec<u8>, String>,
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
            r if r > 0.75 => self.first_wins += 1,
            r if r < 0.25 => self.second_wins += 1,
            _ => self.draws += 1,
        }
    }
}

/// A game of self-play: its record (the store's format) and its training positions with
/// their scores, kept as played.
pub struct PlayedGame<G> {
    /// The start position, each move with the search's score, and the result.
    pub record: GameRecord,
    /// The training positions ([`TrainingSupport::is_sample`]) and their scores.
    pub samples: Vec<(G, i16)>,
}

/// Plays game number `index` of a run of `G` (the opening from `book` and the game's
/// seed) with `pool`, cleared first, at `options.nodes` per move. A game ends by the rules,
/// by a mate score (the side that has it wins), by the game's adjudication
/// ([`TrainingSupport::ADJUDICATION`]), or as a draw after `G::MAX_PLIES`.
pub fn play_game<G: TrainingSupport>(
    index: usize,
    book: &[Vec<String>],
    options: &DatagenOptions,
    pool: &mut ThreadPool<G>,
) -> PlayedGame<G> {
    let variant = G::datagen_variant(options.net.clone());
    let mut game: G = opening_of(&variant, index, book, options);
    pool.new_game();
    let limits = Limits::nodes(options.nodes.max(1));
    let start = game.to_fen();
    let mut moves = Vec::new();
    let mut samples = Vec::new();
    let mut adjudicator = Adjudicator::new(G::ADJUDICATION);
    let result = loop {
        if let Some(end) = game.game_end() {
            break first_player_score(end.result);
        }
        if moves.len() >= G::MAX_PLIES {
            break 0.5;
        }
        let search = pool.search(&game, &limits, &[]);
        let Some(best) = search.best else {
            break 0.5;
        };
        let mover = game.side_to_move();
        if let Some(score) = mate_first_player_score(mover, search.score) {
            break score;
        }
        if let Some(score) = adjudicator.verdict(mover, search.score, moves.len()) {
            break score;
        }
        let score = search.score.clamp(-32_000, 32_000) as i16;
        if game.is_sample(best, moves.len()) {
            samples.push((game.clone(), score));
        }
        moves.push(RecordedMove {
            code: game.record_code(best),
            score,
        });
        game.make_move(best);
    };
    let record = GameRecord {
        game: G::RECORD_NAME.to_string(),
        start,
        moves,
        result: GameRecord::result_of(result),
    };
    PlayedGame { record, samples }
}

/// What the scores of a self-play game have shown so far, for its
/// [`Adjudication`] (none: it never ends a game).
struct Adjudicator {
    rules: Option<Adjudication>,
    /// The side whose score has stayed beyond the win score, and for how many plies.
    streak: (Option<Player>, usize),
    /// Plies in a row with the score within the draw score.
    level_plies: usize,
}

impl Adjudicator {
    fn new(rules: Option<Adjudication>) -> Self {
        Adjudicator {
            rules,
            streak: (None, 0),
            level_plies: 0,
        }
    }

    /// The first player's result if the search's `score` (for `mover`, `ply` plies into the
    /// game; no mate score) ends the game: a lasting large score or a lasting level score.
    fn verdict(&mut self, mover: Player, score: i32, ply: usize) -> Option<f64> {
        let rules = self.rules?;
        let leader = if score > 0 { mover } else { mover.other() };
        if score.abs() >= rules.win_score {
            self.streak = match self.streak {
                (Some(p), n) if p == leader => (Some(p), n + 1),
                _ => (Some(leader), 1),
            };
            if self.streak.1 >= rules.win_plies {
                return Some(if leader == Player::First { 1.0 } else { 0.0 });
            }
        } else {
            self.streak = (None, 0);
        }
        self.level_plies = if score.abs() <= rules.draw_score {
            self.level_plies + 1
        } else {
            0
        };
        (ply >= rules.draw_from_ply && self.level_plies >= rules.draw_plies).then_some(0.5)
    }
}

/// The positions a game of `moves` moves, `samples` of them training positions, writes in
/// `format`: a game record holds every position played with its score (viriformat's
/// count, the store's), the trainer's records the training positions.
pub fn positions_written(format: DataFormat, moves: usize, samples: usize) -> usize {
    match format {
        DataFormat::Records => moves,
        DataFormat::Bullet => samples,
    }
}

/// [`play_game`], written as the trainer's records (`bullet`) or as the game's stored
/// record (`records`, in its [`TrainingSupport::STORE_FORMAT`]).
pub fn record_played_game<G: TrainingSupport>(
    index: usize,
    book: &[Vec<String>],
    options: &DatagenOptions,
    pool: &mut ThreadPool<G>,
) -> GameOutput {
    let played = play_game(index, book, options, pool);
    let result = played.record.first_player_score();
    let mut bytes = Vec::new();
    let encoded = match options.format {
        DataFormat::Records => (G::STORE_FORMAT.encode)(&played.record, &mut bytes),
        DataFormat::Bullet => {
            for (position, score) in &played.samples {
                position.push_training_record(*score, result, &mut bytes);
            }
            Ok(())
        }
    };
    GameOutput {
        bytes: encoded.map(|()| bytes),
        positions: positions_written(
            options.format,
            played.record.moves.len(),
            played.samples.len(),
        ),
        result,
    }
}

/// Plays games `options.first_game ..` (`options.games` of them) of `G` from the `book`
/// lines on `options.threads` threads and appends them to `out` in game order; `progress`
/// is told the running totals after each game (`cutoff datagen`).
pub fn run<G: TrainingSupport>(
    options: &DatagenOptions,
    book: &[Vec<String>],
    out: &mut dyn Write,
    progress: &mut dyn FnMut(&DatagenSummary),
) -> Result<DatagenSummary, String> {
    check_book::<G>(&G::datagen_variant(None), book)?;
    run_games::<G>(options, out, progress, &|index, pool| {
        record_played_game(index, book, options, pool)
    })
}

/// Plays games `options.first_game ..` (`options.games` of them) of `G` with `play` on
/// `options.threads` threads and appends them to `out` in game order; `progress` is told
/// the running totals after each game. Any game's datagen runs through it.
pub fn run_games<G: TrainingSupport>(
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
        let mut sink = Sink::new(out, options.format, G::STORE_FORMAT.blocks);
        for (offset, record) in receiver {
            pending.insert(offset, record);
            while let Some(record) = pending.remove(&summary.games) {
                let number = options.first_game + summary.games;
                let bytes = record.bytes.as_deref();
                sink.write(bytes.map_err(|e| format!("game {number}: {e}"))?)?;
                summary.add(&record);
                progress(&summary);
            }
        }
        sink.finish()?;
        Ok(summary)
    })
}

/// Where a run's games go: straight to the output, or through a [`BlockWriter`] for the
/// store's games.
enum Sink<'a> {
    Plain(&'a mut dyn Write),
    Blocks(BlockWriter<'a>),
}

impl<'a> Sink<'a> {
    fn new(out: &'a mut dyn Write, format: DataFormat, kind: BlockKind) -> Self {
        match format {
            DataFormat::Records => Sink::Blocks(BlockWriter::new(out, kind)),
            _ => Sink::Plain(out),
        }
    }

    fn write(&mut self, game: &[u8]) -> Result<(), String> {
        match self {
            Sink::Plain(out) => out
                .write_all(game)
                .map_err(|e| format!("cannot write positions: {e}")),
            Sink::Blocks(blocks) => blocks.push(game),
        }
    }

    fn finish(self) -> Result<(), String> {
        match self {
            Sink::Plain(out) => out
                .flush()
                .map_err(|e| format!("cannot write positions: {e}")),
            Sink::Blocks(blocks) => blocks.finish(),
        }
    }
}

/// Reads `N` as (N, N) and `A-B` as (A, B).
pub fn parse_range(text: &str) -> Result<(usize, usize), String> {
    let number = |t: &str| match t.trim().parse::<usize>() {
        Ok(n) if n <= MAX_RANDOM_PLIES => Ok(n),
        Ok(_) => Err(format!(
            "at most {MAX_RANDOM_PLIES} random plies, got '{text}'"
        )),
        Err(_) => Err(format!("expected N or A-B, got '{text}'")),
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

/// For the games' datagen tests: plays `options` of `G` from the repository's book
/// `openings/<book>` on one thread, checks that two threads write the same bytes, and
/// returns the bytes and the summary.
#[cfg(test)]
pub(crate) fn datagen_twice<G: TrainingSupport>(
    book: &str,
    options: &DatagenOptions,
) -> (Vec<u8>, DatagenSummary) {
    let path = format!("{}/../openings/{book}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the game's book");
    let book = read_book(&text);
    let generate = |options: &DatagenOptions| {
        let mut bytes = Vec::new();
        let summary = run::<G>(options, &book, &mut bytes, &mut |_| {}).unwrap();
        (bytes, summary)
    };
    let (first, summary) = generate(options);
    let threaded = DatagenOptions {
        threads: 2,
        ..options.clone()
    };
    assert_eq!(
        generate(&threaded).0,
        first,
        "two threads wrote other bytes"
    );
    (first, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_plies_read_a_number_or_a_range() {
        assert_eq!(parse_range("4"), Ok((4, 4)));
        assert_eq!(parse_range(" 2-6"), Ok((2, 6)));
        assert!(parse_range("6-2").is_err());
        assert!(parse_range("x").is_err());
        assert_eq!(parse_range("0-1000"), Ok((0, 1000)));
        assert!(parse_range("0-18446744073709551615").is_err());
    }

    /// Plays a few games of `G` from `book` as the trainer's records and as game records:
    /// the game records replay to the same training positions, scores and results.
    fn records_replay_to_the_played_positions<G: TrainingSupport>(book: &str) {
        let options = |format| DatagenOptions {
            games: 3,
            first_game: 0,
            nodes: 300,
            threads: 2,
            random_plies: (2, 4),
            format,
            seed: 11,
            hash_mb: 1,
            net: None,
        };
        let book = read_book(book);
        let generate = |format| {
            let mut bytes = Vec::new();
            let options = options(format);
            let summary = run::<G>(&options, &book, &mut bytes, &mut |_| {}).unwrap();
            (bytes, summary)
        };
        let (bullet, summary) = generate(DataFormat::Bullet);
        let (stored, stored_summary) = generate(DataFormat::Records);
        // The same games; a game record counts every position played, bullet the kept.
        assert_eq!(summary.games, stored_summary.games);
        assert!(summary.positions > 20, "{summary:?}");
        assert!(
            stored_summary.positions >= summary.positions,
            "{stored_summary:?}"
        );
        let path = std::env::temp_dir().join(format!(
            "cutoff-replay-{}-{}.cgr",
            G::RECORD_NAME,
            std::process::id()
        ));
        std::fs::write(&path, &stored).unwrap();
        let mut replayed = Vec::new();
        let filter = crate::store::StoreFilter::default();
        let files = std::slice::from_ref(&path);
        let stats =
            crate::store::read_training_records::<G>(files, &filter, false, &mut replayed).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(stats.errors.is_empty(), "{:?}", stats.errors);
        assert_eq!(stats.games, 3);
        assert_eq!(stats.kept, summary.positions);
        assert_eq!(stats.moves, stored_summary.positions);
        assert_eq!(replayed, bullet);
    }

    #[test]
    fn every_games_records_replay_to_the_played_positions() {
        use cutoff::games::ataxx::Ataxx;
        use cutoff::games::chess::Chess;
        use cutoff::games::gomoku::Gomoku;
        let book = |name: &str| {
            let path = format!("{}/../openings/{name}.txt", env!("CARGO_MANIFEST_DIR"));
            std::fs::read_to_string(path).expect("the book")
        };
        records_replay_to_the_played_positions::<Chess>(&book("chess"));
        records_replay_to_the_played_positions::<Ataxx>(&book("ataxx"));
        records_replay_to_the_played_positions::<Gomoku>(&book("gomoku"));
    }

    #[test]
    fn adjudication_ends_lasting_wins_and_level_endings() {
        let rules = Adjudication {
            win_score: 1_500,
            win_plies: 3,
            draw_score: 10,
            draw_plies: 4,
            draw_from_ply: 20,
        };
        // The mover alternates; a large score for the same side (the first player).
        let mut adjudicator = Adjudicator::new(Some(rules));
        let first = |ply: usize| {
            if ply % 2 == 0 {
                Player::First
            } else {
                Player::Second
            }
        };
        let lead = |ply: usize| if ply % 2 == 0 { 1_600 } else { -1_600 };
        assert_eq!(adjudicator.verdict(first(0), lead(0), 0), None);
        assert_eq!(adjudicator.verdict(first(1), lead(1), 1), None);
        assert_eq!(adjudicator.verdict(first(2), lead(2), 2), Some(1.0));
        // A large score that changes sides starts over.
        let mut adjudicator = Adjudicator::new(Some(rules));
        for ply in 0..6 {
            let score = if ply == 2 { -1_600 } else { lead(ply) };
            let expected = (ply == 5).then_some(1.0);
            assert_eq!(
                adjudicator.verdict(first(ply), score, ply),
                expected,
                "{ply}"
            );
        }
        // Level scores draw only from `draw_from_ply`, after `draw_plies` of them.
        let mut adjudicator = Adjudicator::new(Some(rules));
        for ply in 0..20 {
            assert_eq!(adjudicator.verdict(first(ply), 5, ply), None, "{ply}");
        }
        assert_eq!(adjudicator.verdict(first(20), -5, 20), Some(0.5));
        // Without rules, nothing is adjudicated.
        let mut none = Adjudicator::new(None);
        assert!((0..100).all(|ply| none.verdict(first(ply), 5_000, ply).is_none()));
    }

    #[test]
    fn a_book_of_another_game_is_refused() {
        use cutoff::games::connect4::Connect4;
        let good = read_book("4 4 3\n# a comment\n4 4 5 3\n");
        assert_eq!(check_book::<Connect4>(&(), &good), Ok(()));
        let chess = read_book("e2e4 e7e5\n");
        let error = check_book::<Connect4>(&(), &chess).unwrap_err();
        assert!(error.starts_with("book opening 1:"), "{error}");
    }
}
