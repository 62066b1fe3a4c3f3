//! Connect Four in play: the first player wins every game, and a won position is never let
//! go. cutoff plays under a short clock (the code path of `go p1time .. p2time ..`: the
//! book, then the exact solver) against random and greedy second players, and from won
//! positions of Pascal Pons' middle-game set (`../shared/data`, skipped when absent).

use crate::common;

use cutoff::testdata::shared_data;
use std::time::{Duration, Instant};

use common::{bestmove_of, info_score, Engine};
use cutoff::games::connect4::book;
use cutoff::games::connect4::solver::Connect4Solver;
use cutoff::games::connect4::test_sets::parse_line;
use cutoff::games::connect4::Connect4;
use cutoff::rng::SplitMix;
use cutoff::search::{ExactSearch, Limits, MoveList, Outcome, Rules, ScoreReport, ThreadPool};

fn moves_of(game: &Connect4) -> Vec<<Connect4 as Rules>::Move> {
    let mut moves = MoveList::new();
    game.generate_moves(&mut moves);
    moves.to_vec()
}

/// The move that ends the game in a win for the side to move, if any.
fn winning_move(game: &Connect4) -> Option<<Connect4 as Rules>::Move> {
    moves_of(game).into_iter().find(|&mv| {
        let mut child = game.clone();
        child.make_move(mv);
        child.outcome() == Some(Outcome::Loss)
    })
}

/// Take a win, else a move after which the opponent cannot win at once (this blocks a
/// threat, and never plays under one), else a random move.
fn greedy(game: &Connect4, rng: &mut SplitMix) -> <Connect4 as Rules>::Move {
    if let Some(mv) = winning_move(game) {
        return mv;
    }
    let moves = moves_of(game);
    let safe: Vec<_> = moves
        .iter()
        .copied()
        .filter(|&mv| {
            let mut child = game.clone();
            child.make_move(mv);
            winning_move(&child).is_none()
        })
        .collect();
    if safe.is_empty() {
        moves[rng.below(moves.len())]
    } else {
        safe[rng.below(safe.len())]
    }
}

/// A random move.
fn random(game: &Connect4, rng: &mut SplitMix) -> <Connect4 as Rules>::Move {
    let moves = moves_of(game);
    moves[rng.below(moves.len())]
}

type Opponent = fn(&Connect4, &mut SplitMix) -> <Connect4 as Rules>::Move;

/// cutoff's move under a clock of `clock` ms with `inc` ms increments, through the
/// thread pool as `go` runs it.
fn engine_move(
    pool: &mut ThreadPool<Connect4>,
    game: &Connect4,
    clock: &mut i64,
    inc: i64,
) -> <Connect4 as Rules>::Move {
    let limits = Limits {
        clock: Some(Duration::from_millis((*clock).max(1) as u64)),
        increment: Duration::from_millis(inc as u64),
        ..Limits::default()
    };
    let started = Instant::now();
    let result = pool.search(game, &limits, &[]);
    *clock += inc - started.elapsed().as_millis() as i64;
    assert!(*clock > 0, "cutoff lost on time in {}", game.to_fen());
    result.best.expect("a move")
}

/// Plays one game from `opening` with cutoff as the first player; returns the outcome for
/// the first player and the moves.
fn play_game(opening: &str, opponent: Opponent, seed: u64) -> (Option<Outcome>, String) {
    let mut pool = ThreadPool::<Connect4>::new(16);
    let mut game = Connect4::from_moves(opening).expect("valid opening");
    let mut rng = SplitMix::new(seed);
    let mut record = opening.to_string();
    let mut clock = 2000;
    while game.outcome().is_none() && !moves_of(&game).is_empty() {
        let mv = if game.ply() % 2 == 0 {
            engine_move(&mut pool, &game, &mut clock, 20)
        } else {
            opponent(&game, &mut rng)
        };
        record.push_str(&game.format_move(mv));
        game.make_move(mv);
    }
    // The game's end from the first player's view.
    let outcome = game.outcome().map(|o| match (o, game.ply() % 2) {
        (Outcome::Draw, _) => Outcome::Draw,
        (Outcome::Loss, 0) | (Outcome::Win, 1) => Outcome::Loss,
        _ => Outcome::Win,
    });
    (outcome, record)
}

#[test]
fn the_first_player_wins_against_random_and_greedy_players() {
    // The empty board, and every reply to the centre (4 wins against each: the book, built
    // by the solver, has a winning move for all seven).
    let mut openings = vec![String::new()];
    for reply in 1..=7 {
        let opening = format!("4{reply}");
        assert!(
            book::lookup(&Connect4::from_moves(&opening).expect("valid")).is_some(),
            "{opening}: the first player still wins"
        );
        openings.push(opening);
    }
    let started = Instant::now();
    let mut games = 0;
    for opening in &openings {
        for (name, opponent, seed) in [
            ("random", random as Opponent, 1),
            ("random", random as Opponent, 2),
            ("greedy", greedy as Opponent, 3),
            ("greedy", greedy as Opponent, 4),
        ] {
            let (outcome, record) = play_game(opening, opponent, seed);
            assert_eq!(outcome, Some(Outcome::Win), "against {name}: {record}");
            games += 1;
        }
    }
    println!(
        "{games} games won in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn the_real_binary_wins_over_ugi_with_a_short_clock() {
    let mut engine = Engine::game("connect4");
    engine.send("ugi");
    engine.expect("ugiok");
    engine.send("uginewgame");
    let mut game = Connect4::start(&());
    let mut rng = SplitMix::new(5);
    let mut moves: Vec<String> = Vec::new();
    let (mut p1, mut p2) = (2000i64, 2000i64);
    while game.outcome().is_none() {
        let mv = if game.ply() % 2 == 0 {
            engine.send(&format!("position startpos moves {}", moves.join(" ")));
            engine.send(&format!("go p1time {p1} p2time {p2} p1inc 20 p2inc 20"));
            let started = Instant::now();
            let lines = engine.read_until("bestmove", Duration::from_secs(10));
            p1 += 20 - started.elapsed().as_millis() as i64;
            assert!(p1 > 0, "lost on time");
            let info = lines
                .iter()
                .rev()
                .find(|l| l.starts_with("info depth"))
                .expect("info");
            let (kind, value) = info_score(info).expect("a score");
            assert!(
                kind == "mate" && value > 0,
                "a won game shows its win: {info}"
            );
            let text = bestmove_of(lines.last().expect("bestmove")).expect("a move");
            game.parse_move(&text).expect("legal")
        } else {
            p2 += 20;
            greedy(&game, &mut rng)
        };
        moves.push(game.format_move(mv));
        game.make_move(mv);
    }
    assert_eq!(
        game.ply() % 2,
        1,
        "the first player made the last move: {moves:?}"
    );
    assert_eq!(game.outcome(), Some(Outcome::Loss), "{moves:?}");
}

#[test]
fn from_won_positions_the_move_played_keeps_the_win() {
    let Some(path) = shared_data("connect4/Test_L2_R1") else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("readable test set");
    let mut solver = Connect4Solver::new(16);
    let mut pool = ThreadPool::<Connect4>::new(16);
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let test = parse_line(line).expect("a test line");
        let ScoreReport::Mate(n) = test.expected else {
            continue;
        };
        if n <= 0 {
            continue;
        }
        let game = Connect4::from_moves(&test.moves).expect("valid");
        pool.new_game();
        let mut clock = 2000;
        let mv = engine_move(&mut pool, &game, &mut clock, 20);
        let mut child = game.clone();
        child.make_move(mv);
        let won = child.outcome() == Some(Outcome::Loss)
            || solver
                .value(&child, true, None, &mut |_, _, _| {})
                .is_some_and(|v| v < 0);
        assert!(
            won,
            "{line}: played {} and let the win go",
            game.format_move(mv)
        );
        checked += 1;
        if checked == 40 {
            break;
        }
    }
    assert_eq!(checked, 40);
}

#[test]
fn a_sample_of_the_book_is_checked_by_the_solver() {
    // Every entry is legal (the unit tests); here the solver confirms that the moves of a
    // sample of deep entries win (deep ones: a solve takes milliseconds there).
    let entries = book::all();
    assert!(entries.len() > 1000, "{} entries", entries.len());
    let mut solver = Connect4Solver::new(64);
    let deep: Vec<_> = entries.iter().filter(|(g, _)| g.ply() >= 10).collect();
    let step = (deep.len() / 60).max(1);
    let mut checked = 0;
    for (game, column) in deep.iter().step_by(step) {
        let mut child = game.clone();
        child.make_move(*column);
        let won = child.outcome() == Some(Outcome::Loss)
            || solver
                .value(&child, true, None, &mut |_, _, _| {})
                .is_some_and(|v| v < 0);
        assert!(
            won,
            "{}: book move {} does not win",
            game.to_fen(),
            game.format_move(*column)
        );
        checked += 1;
    }
    assert!(checked >= 50);
}
