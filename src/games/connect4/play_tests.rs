//! Connect Four's replies book and clock in play: the book's moves keep the values it
//! claims (the first player's book or the solver confirm a sample), a book position is
//! answered at once by `go` under a clock, and a position the solver cannot finish in
//! time is still answered well within the clock.

use std::time::{Duration, Instant};

use crate::games::connect4::solver::Connect4Solver;
use crate::games::connect4::{book, replies, Connect4};
use crate::search::{ExactHooks, ExactSearch, Limits, MoveList, Outcome, Rules, ThreadPool};

/// The class (1 win, 0 draw, -1 loss) of `game` for the side to move, if the solver finds
/// it within `budget` nodes; a finished game by its outcome.
fn class(solver: &mut Connect4Solver, game: &Connect4, budget: u64) -> Option<i32> {
    if let Some(outcome) = game.outcome() {
        return Some(match outcome {
            Outcome::Win => 1,
            Outcome::Draw => 0,
            Outcome::Loss => -1,
        });
    }
    solver.forget();
    solver.reset_nodes();
    solver
        .value(game, true, Some(budget), &mut |_, _, _| {})
        .map(i32::signum)
}

#[test]
fn the_replies_book_keeps_its_values() {
    let entries = replies::all();
    assert!(!entries.is_empty(), "the replies book is shipped");
    let mut solver = Connect4Solver::new(64);
    let (mut sampled, mut confirmed) = (0, 0);
    let mut seen_per_ply = [0usize; 43];
    for (game, column, value) in &entries {
        // Every entry is legal, looked up as stored, and the first player's book leaves
        // it out (it holds the positions where that book's own moves were played).
        let mut legal = MoveList::new();
        game.generate_moves(&mut legal);
        assert!(legal.contains(column), "{}", game.to_fen());
        assert_eq!(replies::lookup(game), Some((*column, *value)));
        assert_eq!(book::lookup(game), None, "{}", game.to_fen());
        assert_eq!(game.book_move(), Some((*column, *value)));
        let mut child = game.clone();
        child.make_move(*column);
        let want = match value {
            Outcome::Win => 1,
            Outcome::Draw => 0,
            Outcome::Loss => -1,
        };
        // The move keeps the value: the position after it has the opposite class. Checked
        // on a sample of each ply's entries from `FIRST_SAMPLED_PLY` on (every one would
        // take minutes), within a budget: what it confirms.
        let ply = game.moves_played() as usize;
        let seen = &mut seen_per_ply[ply];
        *seen += 1;
        if ply < FIRST_SAMPLED_PLY
            || (*seen - 1) % SAMPLE_EVERY != 0
            || *seen > SAMPLE_EVERY * SAMPLES_PER_PLY
        {
            continue;
        }
        sampled += 1;
        let budget = 2_000_000;
        if let Some(after) = class(&mut solver, &child, budget) {
            assert_eq!(
                -after,
                want,
                "{}: move {} does not keep {value:?}",
                game.to_fen(),
                game.format_move(*column)
            );
            if let Some(before) = class(&mut solver, game, budget) {
                assert_eq!(before, want, "{}: claims {value:?}", game.to_fen());
            }
            confirmed += 1;
        }
    }
    println!(
        "{confirmed} of {sampled} sampled entries (of {}) confirmed by the solver",
        entries.len()
    );
    // The sampled plies settle within the budget: a sample the solver cannot judge at all
    // would make this test empty.
    assert!(
        2 * confirmed >= sampled,
        "only {confirmed} of {sampled} confirmed"
    );
}

/// Every this many entries of a ply, one is checked by the solver.
const SAMPLE_EVERY: usize = 7;
/// Entries checked by the solver per ply, at most.
const SAMPLES_PER_PLY: usize = 12;
/// The first ply whose entries are sampled. The solver settles few earlier entries within
/// the budget (5 of 32 sampled at plies 1-5) and each one it cannot settle costs the whole
/// budget; from ply 6 on it settles most.
const FIRST_SAMPLED_PLY: usize = 6;

/// cutoff's answer to `game` under a clock of `clock` ms, as `go` runs it, and its time.
fn timed_answer(game: &Connect4, clock: u64) -> (<Connect4 as Rules>::Move, u64, Duration) {
    let mut pool = ThreadPool::<Connect4>::new(16);
    let limits = Limits {
        clock: Some(Duration::from_millis(clock)),
        ..Limits::default()
    };
    let started = Instant::now();
    let result = pool.search(game, &limits, &[]);
    (
        result.best.expect("a move"),
        result.nodes,
        started.elapsed(),
    )
}

#[test]
fn a_book_position_is_answered_at_once() {
    // Cutoff as the second player after every first move, and as the first player after
    // every other opening stone and each reply (both in the book's first levels).
    let mut positions: Vec<String> = (1..=7).map(|c| c.to_string()).collect();
    for opening in [1, 2, 3, 5, 6, 7] {
        for reply in 1..=7 {
            positions.push(format!("{opening}{reply}"));
        }
    }
    let mut answered = 0;
    for moves in &positions {
        let game = Connect4::from_moves(moves).expect("valid");
        let Some((column, _)) = game.book_move() else {
            continue;
        };
        let (mv, nodes, elapsed) = timed_answer(&game, 5000);
        assert_eq!(mv, column, "{moves}: the book's move");
        assert_eq!(nodes, 0, "{moves}: no search");
        assert!(elapsed < Duration::from_millis(500), "{moves}: {elapsed:?}");
        answered += 1;
    }
    assert!(
        answered >= 7,
        "{answered} book positions: every first move at least"
    );
}

#[test]
fn a_tight_clock_is_never_lost_on_time() {
    // Positions out of both books where the solver needs from milliseconds to seconds
    // (the hard opening set's first position takes seconds in release): the answer comes
    // well within a clock of 300 ms, and is legal.
    for moves in [
        "13712",
        "3246313",
        "44444343",
        "4453",
        "644442564",
        "334233222",
    ] {
        let game = Connect4::from_moves(moves).expect("valid");
        let (mv, _, elapsed) = timed_answer(&game, 300);
        let mut legal = MoveList::new();
        game.generate_moves(&mut legal);
        assert!(legal.contains(&mv), "{moves}");
        assert!(
            elapsed < Duration::from_millis(300),
            "{moves}: {elapsed:?} of a 300 ms clock"
        );
    }
}

/// Checks that every position the opponent can reach from `game` below `depth` plies,
/// cutoff moving at the plies of parity `ours` by its books, has a book move; returns
/// how many positions were cutoff's.
fn covered(game: &Connect4, ours: u32, depth: u32) -> usize {
    if game.outcome().is_some() || game.moves_played() >= depth {
        return 0;
    }
    let mut legal = MoveList::new();
    game.generate_moves(&mut legal);
    if game.moves_played() % 2 == ours {
        let (column, _) = game
            .book_move()
            .unwrap_or_else(|| panic!("no book move for {}", game.to_fen()));
        assert!(legal.contains(&column), "{}", game.to_fen());
        let mut child = game.clone();
        child.make_move(column);
        return 1 + covered(&child, ours, depth);
    }
    legal
        .iter()
        .map(|&column| {
            let mut child = game.clone();
            child.make_move(column);
            covered(&child, ours, depth)
        })
        .sum()
}

#[test]
fn the_books_cover_every_opponent_move_to_their_depth() {
    let depth = replies::all()
        .iter()
        .map(|(game, _, _)| game.moves_played() + 1)
        .max()
        .expect("the replies book is shipped");
    // cutoff the second player, and the first player from the empty board.
    let start = Connect4::default();
    let mut positions = covered(&start, 1, depth) + covered(&start, 0, depth);
    // cutoff the first player after any opening stone (the opponent moves at ply 1).
    for opening in 1..=7 {
        let mut game = Connect4::default();
        game.make_move(game.parse_move(&opening.to_string()).expect("a column"));
        positions += covered(&game, 0, depth);
    }
    println!("{positions} positions below ply {depth} answered by the books");
    assert!(positions > 0);
}
