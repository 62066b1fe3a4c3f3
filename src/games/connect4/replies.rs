//! Connect Four's replies book: the positions the first player's book ([`book`])
//! leaves out. For every position the opponent can lead cutoff into in the first plies,
//! whatever it plays, one move that keeps the position's value, and that value:
//! - cutoff the second player: every position after any first-player move, cutoff replying
//!   from this book (plies 1, 3, ..);
//! - cutoff the first player after an opening stone other than the book's `4` (a one-stone
//!   opening forced on it): every position after any second-player reply (plies 2, 4, ..).
//!
//! The move keeps a win or a draw; in a lost position (every move loses) it is the latest
//! loss the solver finds within a node budget per move (a loss it cannot prove within the
//! budget counts as later than any it proves), so that the opponent still has to find its
//! win. Built by the game's own solver (`cutoff --game connect4 book replies --plies N
//! --out FILE`, [`build`]); [`lookup`] serves the engine's `go` through
//! [`ExactHooks::book_move`](crate::search::ExactHooks::book_move).
//!
//! The text format is the first player's book's with the value added: `#` comment lines,
//! then `<key hex> <column 1-7> <W|D|L>` sorted by key (the smaller of the position's and its
//! mirror image's key, the column in that orientation, the value for the side to move).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use super::book::{self, canonical_key, mirrored, partial_path};
use super::solver::Connect4Solver;
use super::{column_mask, Column, Connect4, WIDTH};
use crate::search::{ExactSearch, Outcome, Rules};

/// The shipped replies book.
const BOOK_TEXT: &str = include_str!("replies_book.txt");

/// Columns in the order the builder tries them: centre first.
const ORDER: [u8; WIDTH] = [3, 2, 4, 1, 5, 0, 6];

/// The first player's book's first move (column index): the openings this book covers
/// for the first player are the other six.
const BOOK_OPENING: u8 = 3;

/// One entry: the move (column index in the key's orientation) and the value it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The column index, `0..7`.
    pub column: u8,
    /// The value of the position for the side to move, which the move keeps.
    pub value: Outcome,
}

/// The letter of a value in the book's text.
fn letter(value: Outcome) -> char {
    match value {
        Outcome::Win => 'W',
        Outcome::Draw => 'D',
        Outcome::Loss => 'L',
    }
}

/// The entries of a book's text (malformed lines are skipped).
fn parse(text: &str) -> BTreeMap<u64, Reply> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let key = u64::from_str_radix(fields.next()?, 16).ok()?;
            let column: u8 = fields.next()?.parse().ok()?;
            let value = match fields.next()? {
                "W" => Outcome::Win,
                "D" => Outcome::Draw,
                "L" => Outcome::Loss,
                _ => return None,
            };
            (1..=WIDTH as u8).contains(&column).then_some((
                key,
                Reply {
                    column: column - 1,
                    value,
                },
            ))
        })
        .collect()
}

/// The shipped book, parsed once, sorted by key.
fn entries() -> &'static [(u64, Reply)] {
    static ENTRIES: OnceLock<Vec<(u64, Reply)>> = OnceLock::new();
    ENTRIES.get_or_init(|| parse(BOOK_TEXT).into_iter().collect())
}

/// Number of positions in the shipped replies book.
pub fn len() -> usize {
    entries().len()
}

/// Every position of the shipped book with its move (in the position's own orientation)
/// and value.
pub fn all() -> Vec<(Connect4, Column, Outcome)> {
    entries()
        .iter()
        .filter_map(|&(key, reply)| {
            Some((
                book::position_of_key(key)?,
                Column(reply.column),
                reply.value,
            ))
        })
        .collect()
}

/// The book's move in `game` and the value it keeps, if the book has the position.
pub fn lookup(game: &Connect4) -> Option<(Column, Outcome)> {
    let (key, is_mirrored) = canonical_key(game);
    let entries = entries();
    let index = entries.binary_search_by_key(&key, |e| e.0).ok()?;
    let Reply { column, value } = entries[index].1;
    let column = if is_mirrored {
        WIDTH as u8 - 1 - column
    } else {
        column
    };
    game.can_play(column as usize)
        .then_some((Column(column), value))
}

/// How `book replies` was asked to run.
#[derive(Clone, Debug)]
pub struct RepliesOptions {
    /// Positions at plies `1, 2, ..` below this get a move.
    pub plies: u32,
    /// The finished book.
    pub out: PathBuf,
    /// The solver's table in MiB (kept from one position to the next).
    pub hash_mb: usize,
    /// Nodes per move when the latest loss is looked for.
    pub loss_budget: u64,
    /// The command line, written into the book's header.
    pub command: String,
}

/// The position after `column`.
fn after(game: &Connect4, column: u8) -> Connect4 {
    let mut child = game.clone();
    child.make_move(Column(column));
    child
}

/// Whether the side to move in `game` is lost because the first player's book wins here:
/// the last stone is the first player's, and the first player's book plays it in the
/// position before it.
fn lost_by_the_book(game: &Connect4) -> bool {
    if game.moves % 2 == 0 {
        return false;
    }
    let first_player = game.current ^ game.mask;
    (0..WIDTH).any(|column| {
        let stones = game.mask & column_mask(column);
        if stones == 0 {
            return false;
        }
        let top = 1u64 << (63 - stones.leading_zeros());
        if first_player & top == 0 {
            return false;
        }
        let before = Connect4 {
            current: first_player ^ top,
            mask: game.mask ^ top,
            moves: game.moves - 1,
            won: false,
        };
        book::lookup(&before) == Some(Column(column as u8))
    })
}

/// The playable columns of `game`, centre first.
fn playable(game: &Connect4) -> Vec<u8> {
    ORDER
        .into_iter()
        .filter(|&c| game.can_play(c as usize))
        .collect()
}

/// The book's entry for `game` (not over): an immediate win; else the value (by the
/// first player's book or a weak solve), then the first move (centre first) that keeps a
/// win or a draw, or in a lost position the latest loss found within `loss_budget` nodes a
/// move. `None` when the solver fails (it has no budget for the value, so never).
fn reply(solver: &mut Connect4Solver, game: &Connect4, loss_budget: u64) -> Option<Reply> {
    // Step 1. A win now.
    let columns = playable(game);
    if let Some(&column) = columns.iter().find(|&&c| after(game, c).won) {
        return Some(Reply {
            column,
            value: Outcome::Win,
        });
    }
    // Step 2. The value.
    let class = if lost_by_the_book(game) {
        -1
    } else {
        solver.value(game, true, None, &mut |_, _, _| {})?.signum()
    };
    // Step 3. A win or a draw: the first move that keeps it.
    if class >= 0 {
        for &column in &columns {
            let child = after(game, column);
            let child_class = if child.outcome().is_some() {
                0
            } else {
                solver
                    .value(&child, true, None, &mut |_, _, _| {})?
                    .signum()
            };
            if child_class == -class {
                let value = if class > 0 {
                    Outcome::Win
                } else {
                    Outcome::Draw
                };
                return Some(Reply { column, value });
            }
        }
        return None;
    }
    // Step 4. A loss: the move whose loss is latest (unproven within the budget: latest).
    let mut best: Option<(i32, u8)> = None;
    for &column in &columns {
        let child = after(game, column);
        let score = if child.outcome().is_some() {
            0
        } else {
            let budget = solver.nodes() + loss_budget;
            match solver.value(&child, false, Some(budget), &mut |_, _, _| {}) {
                // The opponent's win: the later, the smaller its score.
                Some(value) => -value,
                None => i32::MAX,
            }
        };
        if best.map_or(true, |(b, _)| score > b) {
            best = Some((score, column));
        }
    }
    best.map(|(_, column)| Reply {
        column,
        value: Outcome::Loss,
    })
}

/// The positions of the first level of each colour: the second player's after any first
/// move (ply 1), the first player's after an opening other than the book's and any reply
/// (ply 2); each in the orientation of its canonical key.
fn first_levels() -> BTreeMap<u32, BTreeMap<u64, Connect4>> {
    let start = Connect4::start(&());
    let mut levels: BTreeMap<u32, BTreeMap<u64, Connect4>> = BTreeMap::new();
    for opening in 0..WIDTH as u8 {
        let first = after(&start, opening);
        insert(levels.entry(1).or_default(), first.clone());
        if opening != BOOK_OPENING {
            for reply in 0..WIDTH as u8 {
                insert(levels.entry(2).or_default(), after(&first, reply));
            }
        }
    }
    levels
}

/// Adds `game` (unless over) to `level` under its canonical key, in that orientation.
fn insert(level: &mut BTreeMap<u64, Connect4>, game: Connect4) {
    if game.outcome().is_some() {
        return;
    }
    let (key, is_mirrored) = canonical_key(&game);
    level
        .entry(key)
        .or_insert_with(|| if is_mirrored { mirrored(&game) } else { game });
}

/// Builds the book: the levels (plies 1, 2, .. < plies) one after another, each a logged
/// chunk; a position the first player's book holds is left to it. Entries are appended to
/// `<out>.partial` as they are found, so a stopped run resumes where it was; the finished
/// book, sorted, goes to `out`. Returns the number of positions.
pub fn build(options: &RepliesOptions, log: &mut dyn Write) -> Result<usize, String> {
    let started = Instant::now();
    let partial_path = partial_path(&options.out);
    let known = std::fs::read_to_string(&partial_path)
        .map(|text| parse(&text))
        .unwrap_or_default();
    let resumed = known.len();
    let mut known: HashMap<u64, Reply> = known.into_iter().collect();
    let mut partial = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&partial_path)
        .map_err(|e| format!("cannot open {}: {e}", partial_path.display()))?;
    let _ = writeln!(
        log,
        "# {}\n# resuming with {resumed} entries",
        options.command
    );
    let mut solver = Connect4Solver::new(options.hash_mb);
    let mut levels = first_levels();
    let mut book: BTreeMap<u64, Reply> = BTreeMap::new();
    let mut ply = 1;
    while ply < options.plies {
        // Step 1. A move for every position of this level, and the positions after it and
        // each reply (the level two plies on).
        let level = levels.remove(&ply).unwrap_or_default();
        let (level_started, nodes) = (Instant::now(), solver.nodes());
        let mut next = levels.remove(&(ply + 2)).unwrap_or_default();
        for (&key, game) in &level {
            if book::lookup(game).is_some() {
                continue;
            }
            let entry = match known.get(&key) {
                Some(&entry) => entry,
                None => {
                    let entry = reply(&mut solver, game, options.loss_budget)
                        .ok_or_else(|| format!("no move kept the value of {}", game.to_fen()))?;
                    writeln!(
                        partial,
                        "{key:x} {} {}",
                        entry.column + 1,
                        letter(entry.value)
                    )
                    .and_then(|()| partial.flush())
                    .map_err(|e| format!("cannot write {}: {e}", partial_path.display()))?;
                    known.insert(key, entry);
                    entry
                }
            };
            book.insert(key, entry);
            if ply + 2 < options.plies {
                let ours = after(game, entry.column);
                if ours.outcome().is_none() {
                    for theirs in 0..WIDTH as u8 {
                        if ours.can_play(theirs as usize) {
                            insert(&mut next, after(&ours, theirs));
                        }
                    }
                }
            }
        }
        let _ = writeln!(
            log,
            "chunk ply {ply}: {} positions in {:.1} s, {} solver nodes; total {:.1} s",
            level.len(),
            level_started.elapsed().as_secs_f64(),
            solver.nodes() - nodes,
            started.elapsed().as_secs_f64()
        );
        let _ = log.flush();
        levels.insert(ply + 2, next);
        ply += 1;
    }
    // Step 2. The finished book, sorted.
    let text = format_book(&book, options, started.elapsed().as_secs_f64(), resumed);
    std::fs::write(&options.out, text)
        .map_err(|e| format!("cannot write {}: {e}", options.out.display()))?;
    Ok(book.len())
}

/// The book's text: header, then the sorted entries.
fn format_book(
    book: &BTreeMap<u64, Reply>,
    options: &RepliesOptions,
    seconds: f64,
    resumed: usize,
) -> String {
    let mut text = format!(
        "# Connect Four replies book: a move keeping the value of every position at plies\n\
         # 1, 2, .. < {} that the opponent can reach against these replies: o after any x\n\
         # move, x after an opening stone other than 4 (the first player's book has the rest).\n\
         # Built by: {}\n\
         # {} positions; this run {seconds:.0} s ({resumed} entries resumed from earlier runs).\n\
         # Format: <key hex> <column 1-7> <W|D|L: the value for the side to move>; key as\n\
         # in the first player's book (smaller of the position's and its mirror image's).\n",
        options.plies,
        options.command,
        book.len()
    );
    for (key, reply) in book {
        text.push_str(&format!(
            "{key:x} {} {}\n",
            reply.column + 1,
            letter(reply.value)
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_and_bad_lines_are_skipped() {
        let parsed = parse("# c\n1a 4 W\n2b 8 D\n3c 1 X\nzz 1 L\n4d 7 L\n");
        assert_eq!(parsed.len(), 2);
        assert_eq!(
            parsed.get(&0x1a),
            Some(&Reply {
                column: 3,
                value: Outcome::Win
            })
        );
        assert_eq!(parsed.get(&0x4d).map(|r| r.value), Some(Outcome::Loss));
    }

    #[test]
    fn the_first_levels_cover_every_first_move_and_the_other_openings() {
        let levels = first_levels();
        // Seven first moves, four up to mirror images.
        assert_eq!(levels[&1].len(), 4);
        // Six openings (three up to mirror images), seven replies each.
        assert_eq!(levels[&2].len(), 21);
        assert!(lost_by_the_book(&Connect4::from_moves("4").expect("valid")));
        assert!(!lost_by_the_book(
            &Connect4::from_moves("3").expect("valid")
        ));
    }

    #[test]
    fn late_positions_get_a_move_that_keeps_their_value() {
        use crate::search::minimax::minimax;
        let mut rng = crate::rng::SplitMix::new(7);
        let mut solver = Connect4Solver::new(4);
        let mut seen = [0; 3];
        while seen.iter().sum::<usize>() < 120 {
            let mut game = Connect4::start(&());
            for _ in 0..30 + rng.next_u64() % 4 {
                let columns = playable(&game);
                if columns.is_empty() || game.outcome().is_some() {
                    break;
                }
                game.make_move(Column(columns[rng.below(columns.len())]));
            }
            if game.outcome().is_some() {
                continue;
            }
            let plies = 42 - game.moves;
            let class = minimax(&mut game.clone(), plies).signum();
            let entry = reply(&mut solver, &game, 10_000).expect("a reply");
            let mut child = after(&game, entry.column);
            let kept = match child.outcome() {
                Some(Outcome::Loss) => 1,
                Some(_) => 0,
                None => -minimax(&mut child, plies - 1).signum(),
            };
            let want = match entry.value {
                Outcome::Win => 1,
                Outcome::Draw => 0,
                Outcome::Loss => -1,
            };
            assert_eq!((class, kept), (want, want), "{}", game.to_fen());
            seen[(want + 1) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    }
}
