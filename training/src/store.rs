//! The self-play store: files of stored games under `data/<game>/`, listed in
//! `data/MANIFEST.tsv`, read straight into the trainer's records. Every game's files are
//! `.cgr` files of the store's blocks ([`crate::blocks`]), each game in the game's
//! `TrainingSupport::STORE_FORMAT`: cutoff's game records ([`crate::records`], tag `CGR1`)
//! for every game but chess, viriformat games ([`crate::chess::store`], tag `VIR1`) for
//! chess. [`expand`] turns directories into their `.cgr` files; [`read_store`], the one
//! reader, decodes each into game records ([`read_games`]: a damaged block is reported
//! with the file and offset, and the rest is used), replays every game ([`replay`]) and
//! keeps the training positions that pass a [`StoreFilter`] (its `Keeper`), written as
//! the trainer's records with their images under the board's symmetries on request
//! ([`read_training_records`]) or as text (`data export`). Nothing here writes to the
//! store.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::blocks::{self, FileGames};
use crate::records::GameRecord;
use crate::support::TrainingSupport;
use cutoff::search::Rules;

/// Appends a record's image under one symmetry (`TrainingSupport::push_image`).
pub type ImageFn = fn(&[u8], usize, &mut Vec<u8>);

/// The extension of store files (of every game: their blocks' tag tells the format).
pub const EXTENSION: &str = "cgr";

/// Which positions of the store become training records.
#[derive(Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreFilter {
    /// Store files: leave out the first N plies of each game (after the opening it was
    /// played from).
    #[arg(long, default_value_t = 0)]
    pub skip_plies: usize,
    /// Store files: leave out positions whose search score is beyond +-N.
    #[arg(long)]
    pub max_score: Option<i16>,
    /// Store files: keep one copy of each position (by the game's hash), the first read.
    #[arg(long)]
    pub dedup: bool,
}

/// What reading store files found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoreStats {
    /// Files read.
    pub files: usize,
    /// Games decoded.
    pub games: usize,
    /// Moves of those games.
    pub moves: usize,
    /// Games won by the first player, drawn, won by the second.
    pub results: [usize; 3],
    /// The shortest and the longest game, in plies.
    pub plies: (usize, usize),
    /// Positions the game's self-play counts as training positions.
    pub samples: usize,
    /// Of those, left out as duplicates of a position read before.
    pub duplicates: usize,
    /// Left out because their score is beyond `--max-score`.
    pub beyond_score: usize,
    /// Left out as opening plies.
    pub opening: usize,
    /// Positions kept (before images).
    pub kept: usize,
    /// Sum of the kept positions' absolute scores.
    pub abs_score_sum: u64,
    /// The damaged parts of files, one line each (file, offset, what).
    pub errors: Vec<String>,
}

impl StoreStats {
    /// The report `data stats` prints.
    pub fn report(&self) -> String {
        let games = self.games.max(1) as f64;
        let [first, draws, second] = self.results;
        let mut lines = vec![
            format!(
                "{} files, {} games, {} moves ({:.1} plies a game, {} to {})",
                self.files,
                self.games,
                self.moves,
                self.moves as f64 / games,
                self.plies.0,
                self.plies.1
            ),
            format!(
                "results: first player {first} ({:.1}%), draws {draws} ({:.1}%), second player {second} ({:.1}%)",
                100.0 * first as f64 / games,
                100.0 * draws as f64 / games,
                100.0 * second as f64 / games
            ),
            format!(
                "training positions: {} of {} kept ({} duplicates, {} beyond the score bound, {} opening plies left out), mean |score| {:.0}",
                self.kept,
                self.samples,
                self.duplicates,
                self.beyond_score,
                self.opening,
                self.abs_score_sum as f64 / self.kept.max(1) as f64
            ),
        ];
        lines.extend(self.errors.iter().map(|e| format!("damaged: {e}")));
        lines.join("\n")
    }
}

/// The files named by `paths`: a directory stands for its `.cgr` files in name order.
pub fn expand(paths: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        let path = Path::new(path);
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == EXTENSION))
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(format!("{} holds no .{EXTENSION} file", path.display()));
            }
            files.extend(found);
        } else {
            files.push(path.to_path_buf());
        }
    }
    Ok(files)
}

/// Writes a kept position of `G`: appends what it becomes (its trainer's record, a line of
/// text) from the position, the search's score (side to move's view) and the first
/// player's result.
pub type WriteFn<'a, G> = &'a mut dyn FnMut(&G, i16, f64, &mut Vec<u8>);

/// Reads the store files `files` of `G` and appends the trainer's records of the training
/// positions `filter` keeps to `out` (exactly as `datagen --format bullet` writes them for
/// the same games), each with its images under the board's symmetries if `symmetries`.
pub fn read_training_records<G: TrainingSupport>(
    files: &[PathBuf],
    filter: &StoreFilter,
    symmetries: bool,
    out: &mut Vec<u8>,
) -> Result<StoreStats, String> {
    let images = if symmetries {
        (G::SYMMETRIES, G::push_image as ImageFn)
    } else {
        (1, copy as ImageFn)
    };
    let mut write = |position: &G, score, result, one: &mut Vec<u8>| {
        position.push_training_record(score, result, one)
    };
    read_store::<G>(files, filter, images, &mut write, out)
}

/// Reads the store files `files` of `G` and appends a line `FEN;result` of each training
/// position `filter` keeps to `out` (`data export`): the result is the first player's,
/// `1.0`, `0.5` or `0.0` (White's in chess: what `cutoff tune` reads).
pub fn read_text_lines<G: TrainingSupport>(
    files: &[PathBuf],
    filter: &StoreFilter,
    out: &mut Vec<u8>,
) -> Result<StoreStats, String> {
    let mut write = |position: &G, _score, result, line: &mut Vec<u8>| {
        let result = match result {
            r if r > 0.75 => "1.0",
            r if r < 0.25 => "0.0",
            _ => "0.5",
        };
        line.extend_from_slice(format!("{};{result}\n", position.to_fen()).as_bytes());
    };
    read_store::<G>(files, filter, (1, copy), &mut write, out)
}

/// A record as it is (the identity alone).
fn copy(record: &[u8], _symmetry: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(record);
}

/// Reads the store files `files` of `G`, replays every game and appends what `write` makes
/// of each training position ([`TrainingSupport::is_sample`]) that `filter` keeps to `out`,
/// each with its images when `images` is (`SYMMETRIES`, `push_image`) of the game, or as
/// it is when it is (1, a copy). A file that cannot be read is an error; a damaged block
/// or a game that does not replay is counted in the stats' errors, and the rest is used.
pub fn read_store<G: TrainingSupport>(
    files: &[PathBuf],
    filter: &StoreFilter,
    images: (usize, ImageFn),
    write: WriteFn<'_, G>,
    out: &mut Vec<u8>,
) -> Result<StoreStats, String> {
    let variant = G::datagen_variant(None);
    let mut keeper = Keeper::new(filter, images, G::RECORD_BYTES, out);
    for file in files {
        let (name, bytes) = read_file(file)?;
        let decoded = read_games::<G>(&bytes, &name);
        keeper.file(decoded.errors);
        for (index, game) in decoded.games.iter().enumerate() {
            keeper.game(game.moves.len(), game.result);
            let result = game.first_player_score();
            let replayed = replay::<G>(&variant, game, &mut |position, best, ply, score| {
                if position.is_sample(best, ply) {
                    keeper.offer(ply, score, position.hash(), &mut |one| {
                        write(position, score, result, one)
                    });
                }
            });
            if let Err(error) = replayed {
                keeper.error(format!("{name}: game {index}: {error}"));
            }
        }
    }
    Ok(keeper.finish())
}

/// Reads every block of `bytes` (the file `name`) as stored games of `G` (in its
/// `STORE_FORMAT`). A damaged block, or one of another game or format, is reported and
/// skipped ([`blocks::read_blocks`]).
pub fn read_games<G: TrainingSupport>(bytes: &[u8], name: &str) -> FileGames<GameRecord> {
    let format = G::STORE_FORMAT;
    blocks::read_blocks(bytes, name, format.blocks, &mut |raw| {
        let (record, used) = (format.decode)(raw)?;
        if record.game != G::RECORD_NAME {
            return Err(format!("a {} game, not {}", record.game, G::RECORD_NAME));
        }
        Ok((record, used))
    })
}

/// Sees a position of a replayed game of `G`: the position before its move, the move, its
/// ply and the search's score.
pub type Visit<'a, G> = &'a mut dyn FnMut(&G, <G as Rules>::Move, usize, i16);

/// Replays `record` in `G` (of `variant`): `visit` sees each position before its move,
/// the move, its ply (from the record's start) and the search's score. An error if the
/// start position does not parse or a move is not legal where it was played.
pub fn replay<G: TrainingSupport>(
    variant: &G::Variant,
    record: &GameRecord,
    visit: Visit<'_, G>,
) -> Result<(), String> {
    let mut game = G::from_fen(variant, &record.start)
        .map_err(|e| format!("start position '{}': {e}", record.start))?;
    for (ply, recorded) in record.moves.iter().enumerate() {
        let mv = game
            .move_of_record_code(recorded.code)
            .ok_or_else(|| format!("move {} (code {}) is not legal", ply + 1, recorded.code))?;
        visit(&game, mv, ply, recorded.score);
        game.make_move(mv);
    }
    Ok(())
}

/// The name and the bytes of a store file.
pub fn read_file(file: &Path) -> Result<(String, Vec<u8>), String> {
    let name = file.display().to_string();
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {name}: {e}"))?;
    Ok((name, bytes))
}

/// The store's filter at work: it is told each file, each game and each training
/// position replay finds, keeps those `filter` passes (their records with their images
/// appended to the output) and counts the rest.
struct Keeper<'a> {
    filter: &'a StoreFilter,
    images: (usize, ImageFn),
    seen: HashSet<u64>,
    one: Vec<u8>,
    out: &'a mut Vec<u8>,
    stats: StoreStats,
}

impl<'a> Keeper<'a> {
    /// A keeper appending records of `record_bytes` (with their `images`) to `out`.
    fn new(
        filter: &'a StoreFilter,
        images: (usize, ImageFn),
        record_bytes: usize,
        out: &'a mut Vec<u8>,
    ) -> Self {
        Keeper {
            filter,
            images,
            seen: HashSet::new(),
            one: Vec::with_capacity(record_bytes),
            out,
            stats: StoreStats {
                plies: (usize::MAX, 0),
                ..StoreStats::default()
            },
        }
    }

    /// Counts a file read, with the errors of its damaged parts.
    fn file(&mut self, errors: Vec<String>) {
        self.stats.files += 1;
        self.stats.errors.extend(errors);
    }

    /// Counts a game of `moves` moves and `result` (the first player's points doubled).
    fn game(&mut self, moves: usize, result: u8) {
        let stats = &mut self.stats;
        stats.games += 1;
        stats.moves += moves;
        stats.results[2 - usize::from(result.min(2))] += 1;
        stats.plies.0 = stats.plies.0.min(moves);
        stats.plies.1 = stats.plies.1.max(moves);
    }

    /// Counts an error (a game that does not replay).
    fn error(&mut self, error: String) {
        self.stats.errors.push(error);
    }

    /// Offers a training position, `ply` plies into its game, with the search's `score`
    /// and the position's `hash`: if the filter keeps it, `record` appends its record.
    fn offer(&mut self, ply: usize, score: i16, hash: u64, record: &mut dyn FnMut(&mut Vec<u8>)) {
        let stats = &mut self.stats;
        stats.samples += 1;
        if ply < self.filter.skip_plies {
            stats.opening += 1;
        } else if self
            .filter
            .max_score
            .is_some_and(|bound| score.unsigned_abs() > bound.unsigned_abs())
        {
            stats.beyond_score += 1;
        } else if self.filter.dedup && !self.seen.insert(hash) {
            stats.duplicates += 1;
        } else {
            stats.kept += 1;
            stats.abs_score_sum += u64::from(score.unsigned_abs());
            self.one.clear();
            record(&mut self.one);
            for symmetry in 0..self.images.0 {
                (self.images.1)(&self.one, symmetry, self.out);
            }
        }
    }

    /// The totals.
    fn finish(mut self) -> StoreStats {
        if self.stats.games == 0 {
            self.stats.plies = (0, 0);
        }
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{encode_block, RecordedMove};
    use cutoff::games::ataxx::{Ataxx, AtaxxVariant};
    use cutoff::search::{MoveList, Rules, SearchHooks};

    /// A store file of `count` short Ataxx games: each plays its moves in generation order
    /// from the start (so every game is the same), scores 10 a ply.
    fn store_file(count: usize, plies: usize) -> Vec<u8> {
        let mut raw = Vec::new();
        for index in 0..count {
            let mut game = Ataxx::start(&AtaxxVariant::hand_crafted());
            let start = game.to_fen();
            let mut moves = Vec::new();
            for ply in 0..plies {
                let mut list = MoveList::new();
                game.generate_moves(&mut list);
                moves.push(RecordedMove {
                    code: Ataxx::encode_move(list[0]),
                    score: 10 * ply as i16,
                });
                game.make_move(list[0]);
            }
            let record = GameRecord {
                game: "ataxx".into(),
                start,
                moves,
                result: (index % 3) as u8,
            };
            record.encode(&mut raw).unwrap();
        }
        encode_block(&raw, count).unwrap()
    }

    /// The trainer's record of a kept position.
    fn records(position: &Ataxx, score: i16, result: f64, out: &mut Vec<u8>) {
        position.push_training_record(score, result, out);
    }

    fn identity(record: &[u8], _: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(record);
    }

    fn twice(record: &[u8], _: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(record);
    }

    #[test]
    fn filters_count_what_they_leave_out() {
        let dir = std::env::temp_dir().join(format!("cutoff-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.cgr"), store_file(3, 12)).unwrap();
        std::fs::write(dir.join("notes.txt"), "not a store file").unwrap();
        let files = expand(&[dir.display().to_string()]).unwrap();
        assert_eq!(files, vec![dir.join("a.cgr")]);
        let read = |filter: &StoreFilter, symmetries: bool| {
            let mut out = Vec::new();
            let images = if symmetries {
                (8, twice as ImageFn)
            } else {
                (1, identity as ImageFn)
            };
            let stats = read_store::<Ataxx>(&files, filter, images, &mut records, &mut out);
            (stats.unwrap(), out.len() / 32)
        };
        // Ataxx leaves out the first two plies: 10 samples a game.
        let (all, records) = read(&StoreFilter::default(), false);
        assert_eq!(
            (all.games, all.moves, all.samples, all.kept, records),
            (3, 36, 30, 30, 30)
        );
        assert_eq!(all.results, [1, 1, 1]);
        assert_eq!(all.plies, (12, 12));
        let (dedup, records) = read(
            &StoreFilter {
                dedup: true,
                ..Default::default()
            },
            false,
        );
        assert_eq!((dedup.kept, dedup.duplicates, records), (10, 20, 10));
        let (bounded, _) = read(
            &StoreFilter {
                max_score: Some(50),
                skip_plies: 4,
                ..Default::default()
            },
            false,
        );
        // Plies 2-3 are opening plies; of 4..11, scores 60..110 are beyond 50.
        assert_eq!(
            (bounded.opening, bounded.beyond_score, bounded.kept),
            (6, 18, 6)
        );
        let (_, images) = read(&StoreFilter::default(), true);
        assert_eq!(images, 8 * 30);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_damaged_file_is_reported_and_the_others_used() {
        let dir = std::env::temp_dir().join(format!("cutoff-damaged-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = store_file(2, 8);
        let mut bad = store_file(2, 8);
        let last = bad.len() - 3;
        bad[last] ^= 0xff;
        std::fs::write(dir.join("1.cgr"), &bad).unwrap();
        std::fs::write(dir.join("2.cgr"), &good).unwrap();
        let files = expand(&[dir.display().to_string()]).unwrap();
        let mut out = Vec::new();
        let stats =
            read_training_records::<Ataxx>(&files, &StoreFilter::default(), false, &mut out)
                .unwrap();
        assert_eq!(stats.games, 2);
        assert_eq!(stats.errors.len(), 1, "{:?}", stats.errors);
        assert!(
            stats.errors[0].contains("1.cgr: offset 0:"),
            "{}",
            stats.errors[0]
        );
        assert!(stats.report().contains("damaged: "), "{}", stats.report());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A game of Ataxx of `plies` first-generated moves, as a record.
    fn ataxx_game(plies: usize, seed: i16) -> GameRecord {
        let mut game = Ataxx::start(&AtaxxVariant::hand_crafted());
        let start = game.to_fen();
        let mut moves = Vec::new();
        let mut list = MoveList::new();
        for ply in 0..plies {
            list.clear();
            game.generate_moves(&mut list);
            if list.is_empty() {
                break;
            }
            let mv = list[(ply * 7 + seed as usize) % list.len()];
            moves.push(RecordedMove {
                code: Ataxx::encode_move(mv),
                score: seed.wrapping_mul(31).wrapping_add(ply as i16),
            });
            game.make_move(mv);
        }
        GameRecord {
            game: "ataxx".into(),
            start,
            moves,
            result: (seed % 3) as u8,
        }
    }

    fn file_of(games: &[GameRecord], per_block: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in games.chunks(per_block) {
            let mut raw = Vec::new();
            for game in chunk {
                game.encode(&mut raw).unwrap();
            }
            out.extend(encode_block(&raw, chunk.len()).unwrap());
        }
        out
    }

    #[test]
    fn games_round_trip_and_replay() {
        let games: Vec<GameRecord> = (0..5).map(|i| ataxx_game(20 + i, i as i16)).collect();
        let file = file_of(&games, 2);
        let read = read_games::<Ataxx>(&file, "f");
        assert!(read.errors.is_empty(), "{:?}", read.errors);
        assert_eq!(read.games, games);
        let mut seen = Vec::new();
        let variant = AtaxxVariant::hand_crafted();
        replay::<Ataxx>(&variant, &games[1], &mut |g, mv, ply, score| {
            seen.push((g.ply(), Ataxx::encode_move(mv), ply, score))
        })
        .unwrap();
        assert_eq!(seen.len(), 21);
        assert_eq!(seen[3].1, games[1].moves[3].code);
        assert_eq!(seen[3].3, games[1].moves[3].score);
    }

    #[test]
    fn damage_costs_only_its_block() {
        let games: Vec<GameRecord> = (0..6).map(|i| ataxx_game(30, i as i16)).collect();
        let file = file_of(&games, 2);
        // A flipped byte inside the second block's frame.
        let second = blocks::next_tag(&file, 1, blocks::GAME_RECORDS);
        let mut flipped = file.clone();
        flipped[second + blocks::HEADER_BYTES + 20] ^= 0x40;
        let read = read_games::<Ataxx>(&flipped, "data/x.cgr");
        assert_eq!(read.games.len(), 4);
        assert_eq!(read.games[..2], games[..2]);
        assert_eq!(read.games[2..], games[4..]);
        assert_eq!(read.errors.len(), 1, "{:?}", read.errors);
        assert!(
            read.errors[0].starts_with(&format!("data/x.cgr: offset {second}:")),
            "{}",
            read.errors[0]
        );
        // A file cut short keeps its whole blocks.
        let cut = read_games::<Ataxx>(&file[..file.len() - 5], "f");
        assert_eq!(cut.games[..], games[..4]);
        assert_eq!(cut.errors.len(), 1);
        assert!(cut.errors[0].contains("cut short"), "{:?}", cut.errors);
    }

    #[test]
    fn another_game_and_junk_are_refused() {
        let mut gomoku = ataxx_game(4, 1);
        gomoku.game = "gomoku".into();
        let file = file_of(&[gomoku], 1);
        let read = read_games::<Ataxx>(&file, "f");
        assert!(read.games.is_empty());
        assert!(
            read.errors[0].contains("a gomoku game, not ataxx"),
            "{:?}",
            read.errors
        );
        let junk = read_games::<Ataxx>(&[0x55; 100], "junk");
        assert!(junk.games.is_empty());
        assert_eq!(junk.errors.len(), 1);
        assert!(!blocks::is_store_file(&[0x55; 100]));
    }

    #[test]
    fn an_illegal_move_is_named() {
        let mut game = ataxx_game(6, 2);
        game.moves[3].code = 0xfff0;
        let variant = AtaxxVariant::hand_crafted();
        let error = replay::<Ataxx>(&variant, &game, &mut |_, _, _, _| {});
        assert_eq!(error, Err("move 4 (code 65520) is not legal".to_string()));
    }
}
