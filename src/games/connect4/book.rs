//! Connect Four's first-player strategy book: for every position the first player (`x`)
//! can face in the first plies of a game when it follows the book, whatever the second
//! player replies, one winning move. Built by the game's own solver
//! (`cutoff --game connect4 book build --plies N --out FILE`, [`build`]); the engine plays
//! from it through [`ExactHooks::book_move`](crate::search::ExactHooks::book_move), and its
//! own exact solver takes over where the book ends.
//!
//! The book is text, shipped in the binary: `#` comment lines (how it was built), then one
//! line per position, `<key> <column>`, sorted by key: the key is the position's solver key
//! (the side to move's stones plus every stone, in hexadecimal) of whichever of the position
//! and its mirror image has the smaller key, and the column (`1`..`7`) is the winning move in
//! that orientation (mirrored back when the position looked up is the other one).

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use super::solver::{mirror, Connect4Solver};
use super::{Column, Connect4, BOARD, COLUMN_BITS, WIDTH};
use crate::search::{ExactSearch, MoveList, Rules};

/// The shipped book.
const BOOK_TEXT: &str = include_str!("first_player_book.txt");

/// Columns in the order the builder tries them: centre first.
const ORDER: [u8; WIDTH] = [3, 2, 4, 1, 5, 0, 6];

/// The position's key and its mirror image's, the smaller one, and whether that is the
/// mirror image's.
pub fn canonical_key(game: &Connect4) -> (u64, bool) {
    let key = game.current + game.mask;
    let mirrored = mirror(key);
    if mirrored < key {
        (mirrored, true)
    } else {
        (key, false)
    }
}

/// The position whose key is `key` (see [`canonical_key`]), if it is one: each column's
/// seven bits are its stones of the side to move plus `2^height - 1`.
pub fn position_of_key(key: u64) -> Option<Connect4> {
    let (mut current, mut mask) = (0u64, 0u64);
    for column in 0..WIDTH {
        let shift = column * COLUMN_BITS;
        let group = (key >> shift) & ((1 << COLUMN_BITS) - 1);
        let height = 63 - (group + 1).leading_zeros() as usize;
        let column_mask = (1u64 << height) - 1;
        let stones = group - column_mask;
        if stones & !column_mask != 0 {
            return None;
        }
        current |= stones << shift;
        mask |= column_mask << shift;
    }
    if key >> (WIDTH * COLUMN_BITS) != 0 || mask & !BOARD != 0 {
        return None;
    }
    let moves = mask.count_ones();
    let side = if moves % 2 == 0 { 'x' } else { 'o' };
    let fen_game = Connect4 {
        current,
        mask,
        moves,
        won: false,
    };
    // Through the FEN: the checks of stone counts and wins come for free.
    Connect4::from_fen(&(), &format!("{} {side}", board_field(&fen_game))).ok()
}

/// The board field of a position's FEN.
fn board_field(game: &Connect4) -> String {
    let fen = game.to_fen();
    fen.split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The shipped book, parsed once: `(key, column index)` sorted by key.
fn entries() -> &'static [(u64, u8)] {
    static ENTRIES: OnceLock<Vec<(u64, u8)>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        let mut entries: Vec<(u64, u8)> = parse(BOOK_TEXT).into_iter().collect();
        entries.sort_unstable();
        entries
    })
}

/// The entries of a book's text (malformed lines are skipped).
fn parse(text: &str) -> BTreeMap<u64, u8> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            if line.starts_with('#') {
                return None;
            }
            let (key, column) = line.split_once(' ')?;
            let key = u64::from_str_radix(key, 16).ok()?;
            let column: u8 = column.trim().parse().ok()?;
            (1..=WIDTH as u8)
                .contains(&column)
                .then_some((key, column - 1))
        })
        .collect()
}

/// Number of positions in the shipped book.
pub fn len() -> usize {
    entries().len()
}

/// Every position of the shipped book with its move (in the position's own orientation).
pub fn all() -> Vec<(Connect4, Column)> {
    entries()
        .iter()
        .filter_map(|&(key, column)| Some((position_of_key(key)?, Column(column))))
        .collect()
}

/// The book's winning move in `game`, if the book has the position.
pub fn lookup(game: &Connect4) -> Option<Column> {
    let (key, mirrored) = canonical_key(game);
    let entries = entries();
    let index = entries.binary_search_by_key(&key, |e| e.0).ok()?;
    let column = entries[index].1;
    let column = if mirrored {
        WIDTH as u8 - 1 - column
    } else {
        column
    };
    game.can_play(column as usize).then_some(Column(column))
}

/// How `book build` was asked to run.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Positions of the first player at plies `0, 2, ..` below this get a move.
    pub plies: u32,
    /// The finished book.
    pub out: PathBuf,
    /// The solver's table in MiB (kept from one position to the next).
    pub hash_mb: usize,
    /// The command line, written into the book's header.
    pub command: String,
}

/// The first player's winning move in `game` (centre first; an immediate win before any),
/// by weak solves of the positions after each move; `None` when no move wins.
fn winning_move(solver: &mut Connect4Solver, game: &Connect4) -> Option<u8> {
    let playable: Vec<u8> = ORDER
        .into_iter()
        .filter(|&c| game.can_play(c as usize))
        .collect();
    for &column in &playable {
        let mut child = game.clone();
        child.make_move(Column(column));
        if child.outcome().is_some() && child.won {
            return Some(column);
        }
    }
    for &column in &playable {
        let mut child = game.clone();
        child.make_move(Column(column));
        if child.outcome().is_some() {
            continue;
        }
        let value = solver.value(&child, true, None, &mut |_, _, _| {})?;
        if value < 0 {
            return Some(column);
        }
    }
    None
}

/// The mirror image of a position.
pub(super) fn mirrored(game: &Connect4) -> Connect4 {
    Connect4 {
        current: mirror(game.current),
        mask: mirror(game.mask),
        ..game.clone()
    }
}

/// Builds the book: every first-player position at plies `0, 2, .. < plies` reachable when
/// the first player plays the book's moves, one level (a chunk) after another, each with a
/// log line. Entries are appended to `<out>.partial` as they are found, so a run that is
/// stopped resumes where it was; the finished book, sorted, goes to `out`. Returns the
/// number of positions.
pub fn build(options: &BuildOptions, log: &mut dyn Write) -> Result<usize, String> {
    // Step 1. Resume from the entries an earlier run appended to the partial file.
    let mut builder = Builder::resume(options, log)?;
    let mut frontier: BTreeMap<u64, Connect4> = BTreeMap::new();
    frontier.insert(canonical_key(&Connect4::start(&())).0, Connect4::start(&()));
    let mut ply = 0;
    while ply < options.plies && !frontier.is_empty() {
        // Step 2. A winning move for every position of this level (a chunk), and the
        // positions of the next level: every reply of the second player.
        let expand = ply + 2 < options.plies;
        frontier = builder.build_level(ply, &frontier, expand)?;
        ply += 2;
    }
    // Step 3. The finished book: the entries of every level built, sorted.
    builder.finish()
}

/// A book being built: the solver, the entries found so far and where they go.
struct Builder<'a> {
    options: &'a BuildOptions,
    log: &'a mut dyn Write,
    solver: Connect4Solver,
    /// Every entry found, by this run or an earlier one (the partial file).
    known: HashMap<u64, u8>,
    /// The entries of this book: those of the levels built (the partial file may hold more).
    book: HashMap<u64, u8>,
    partial: std::fs::File,
    partial_path: PathBuf,
    /// Entries read from the partial file.
    resumed: usize,
    started: Instant,
}

impl<'a> Builder<'a> {
    /// Opens the partial file of `options.out`, reading the entries it holds.
    fn resume(options: &'a BuildOptions, log: &'a mut dyn Write) -> Result<Self, String> {
        let partial_path = partial_path(&options.out);
        let known = read_partial(&partial_path)?;
        let partial = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&partial_path)
            .map_err(|e| format!("cannot open {}: {e}", partial_path.display()))?;
        let mut builder = Builder {
            options,
            log,
            solver: Connect4Solver::new(options.hash_mb),
            resumed: known.len(),
            known,
            book: HashMap::new(),
            partial,
            partial_path,
            started: Instant::now(),
        };
        builder.line(format!(
            "# {}\n# resuming with {} entries from {}",
            options.command,
            builder.resumed,
            builder.partial_path.display()
        ));
        Ok(builder)
    }

    /// Writes a line of the log at once.
    fn line(&mut self, text: String) {
        let _ = writeln!(self.log, "{text}");
        let _ = self.log.flush();
    }

    /// Finds a winning move for every position of `frontier` (plies `ply`); returns the
    /// positions after each move and reply when `expand`, else none.
    fn build_level(
        &mut self,
        ply: u32,
        frontier: &BTreeMap<u64, Connect4>,
        expand: bool,
    ) -> Result<BTreeMap<u64, Connect4>, String> {
        let level_started = Instant::now();
        let nodes_before = self.solver.nodes();
        let mut next: BTreeMap<u64, Connect4> = BTreeMap::new();
        let count = frontier.len();
        for (index, (&key, game)) in frontier.iter().enumerate() {
            let column = self.entry(key, game)?;
            self.book.insert(key, column);
            if (index + 1) % 500 == 0 {
                let seconds = level_started.elapsed().as_secs_f64();
                self.line(format!(
                    "ply {ply}: {}/{count} positions, {seconds:.1} s",
                    index + 1
                ));
            }
            if expand {
                add_replies(game, column, &mut next);
            }
        }
        let nodes = self.solver.nodes() - nodes_before;
        self.line(format!(
            "chunk ply {ply}: {count} positions in {:.1} s, {nodes} solver nodes; total {:.1} s",
            level_started.elapsed().as_secs_f64(),
            self.started.elapsed().as_secs_f64()
        ));
        Ok(next)
    }

    /// The winning move of `game` (key `key`): a known one, or one solved now and appended
    /// to the partial file.
    fn entry(&mut self, key: u64, game: &Connect4) -> Result<u8, String> {
        if let Some(&column) = self.known.get(&key) {
            return Ok(column);
        }
        let column = winning_move(&mut self.solver, game)
            .ok_or_else(|| format!("no winning move in {} (key {key:x})", game.to_fen()))?;
        writeln!(self.partial, "{key:x} {}", column + 1)
            .and_then(|()| self.partial.flush())
            .map_err(|e| format!("cannot write {}: {e}", self.partial_path.display()))?;
        self.known.insert(key, column);
        Ok(column)
    }

    /// Writes the book, sorted, to `options.out`; returns its number of positions.
    fn finish(mut self) -> Result<usize, String> {
        let options = self.options;
        let seconds = self.started.elapsed().as_secs_f64();
        let text = format_book(&self.book, options, seconds, self.resumed);
        std::fs::write(&options.out, text)
            .map_err(|e| format!("cannot write {}: {e}", options.out.display()))?;
        let count = self.book.len();
        self.line(format!(
            "book of {count} positions written to {}",
            options.out.display()
        ));
        Ok(count)
    }
}

/// Adds to `next` every position after the first player's `column` in `game` and a reply
/// of the second player, in the orientation of its canonical key, unless the game is over.
fn add_replies(game: &Connect4, column: u8, next: &mut BTreeMap<u64, Connect4>) {
    let mut after = game.clone();
    after.make_move(Column(column));
    if after.outcome().is_some() {
        return;
    }
    let mut replies = MoveList::new();
    after.generate_moves(&mut replies);
    for reply in replies {
        let mut child = after.clone();
        child.make_move(reply);
        if child.outcome().is_some() {
            continue;
        }
        let (child_key, is_mirrored) = canonical_key(&child);
        let child = if is_mirrored { mirrored(&child) } else { child };
        next.insert(child_key, child);
    }
}

/// Where entries are appended while a book is built.
pub(super) fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// The entries found by an earlier run, if any.
fn read_partial(path: &Path) -> Result<HashMap<u64, u8>, String> {
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(HashMap::new());
    };
    let mut text = String::new();
    for line in std::io::BufReader::new(file).lines() {
        let line = line.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        text.push_str(&line);
        text.push('\n');
    }
    Ok(parse(&text).into_iter().collect())
}

/// The book's text: header, then the sorted entries.
fn format_book(
    book: &HashMap<u64, u8>,
    options: &BuildOptions,
    seconds: f64,
    resumed: usize,
) -> String {
    let mut entries: Vec<(u64, u8)> = book.iter().map(|(&k, &c)| (k, c)).collect();
    entries.sort_unstable();
    let mut text = format!(
        "# Connect Four first-player book: a winning move for every x-to-move position at plies\n\
         # 0, 2, .. < {} reachable when x follows this book, whatever o replies.\n\
         # Built by: {}\n\
         # {} positions; this run {seconds:.0} s ({resumed} entries resumed from earlier runs).\n\
         # Format: <key hex> <column 1-7>; key = side-to-move stones + all stones of the\n\
         # smaller-keyed of the position and its mirror image, the move in that orientation.\n",
        options.plies,
        options.command,
        entries.len()
    );
    for (key, column) in entries {
        text.push_str(&format!("{key:x} {}\n", column + 1));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_to_positions() {
        for moves in ["", "4", "44", "4453", "1234567", "444444", "7654321776655"] {
            let game = Connect4::from_moves(moves).expect("valid");
            let key = game.current + game.mask;
            assert_eq!(position_of_key(key), Some(game.clone()), "{moves}");
            let (canonical, is_mirrored) = canonical_key(&game);
            let back = position_of_key(canonical).expect("a position");
            let back = if is_mirrored { mirrored(&back) } else { back };
            assert_eq!(back, game, "{moves}");
        }
        assert_eq!(position_of_key(u64::MAX), None);
    }

    #[test]
    fn the_book_opens_in_the_centre_and_holds_legal_moves() {
        assert!(len() > 0);
        assert_eq!(lookup(&Connect4::start(&())), Some(Column(3)));
        for (game, column) in all() {
            assert_eq!(game.side_to_move(), crate::search::Player::First);
            assert!(game.can_play(column.0 as usize), "{}", game.to_fen());
            assert_eq!(lookup(&game), Some(column));
            // (A symmetric position is its own mirror image: its move is not mirrored.)
            if mirrored(&game) != game {
                assert_eq!(
                    lookup(&mirrored(&game)),
                    Some(Column(WIDTH as u8 - 1 - column.0))
                );
            }
        }
    }

    #[test]
    fn build_writes_a_sorted_book_and_resumes() {
        let dir = std::env::temp_dir().join(format!("cutoff-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let out = dir.join("book.txt");
        let _ = std::fs::remove_file(partial_path(&out));
        // From a late position the whole build is quick: start there by hand.
        let options = BuildOptions {
            plies: 2,
            out: out.clone(),
            hash_mb: 4,
            command: "test".to_string(),
        };
        // Ply 0 only: the start position's move. Too slow to solve in a test, so the
        // partial file provides it (as a resumed run would).
        let key = canonical_key(&Connect4::start(&())).0;
        std::fs::write(partial_path(&out), format!("{key:x} 4\n")).expect("write");
        let mut log = Vec::new();
        assert_eq!(build(&options, &mut log), Ok(1));
        let text = std::fs::read_to_string(&out).expect("book written");
        assert!(text.contains(&format!("{key:x} 4")), "{text}");
        assert!(String::from_utf8_lossy(&log).contains("chunk ply 0"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
