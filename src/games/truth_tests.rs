//! The small games against outside truth: Ataxx's perft counts from libataxx, solved
//! values (tic-tac-toe is a draw, the POJ 1568 sample, Connect Four's short wins), and
//! Connect Four's endgame test set from `../shared/data` when it is there.

use crate::games::ataxx::Ataxx;
use crate::games::connect4::test_sets::TestPosition;
use crate::games::connect4::Connect4;
use crate::games::mnk::{Mnk, MnkVariant};
use crate::search::perft::perft;
use crate::search::{Game, Limits, MoveList, Rules, ScoreReport, SearchResult, ThreadPool};
use crate::testdata::shared_data;

fn search<G: Game>(game: &G, limits: &Limits, searchmoves: &[G::Move]) -> SearchResult<G::Move> {
    ThreadPool::<G>::new(16).search(game, limits, searchmoves)
}

fn play(game: &mut impl Game, moves: &str) {
    for text in moves.split_whitespace() {
        let mv = game.parse_move(text).expect("legal test move");
        game.make_move(mv);
    }
}

/// Ataxx leaf counts at depths 1, 2, ... from libataxx's `tests/perft.cpp`
/// (github.com/kz04px/libataxx), whose rules (clock, passes, game end) cutoff follows:
/// the start position, three boards with gaps, a side that must pass (x walled in by o on
/// ranks 2 and 3), the opening of the central-stones board, a position where the clock has
/// run out, and a narrow corridor where play ends by the stone count within a few moves.
const ATAXX_PERFT: &[(&str, &[u64])] = &[
    ("x5o/7/7/7/7/7/o5x x 0 1", &[16, 256, 6460, 155888, 4752668]),
    ("x5o/7/7/7/7/7/o5x o 0 1", &[16, 256, 6460, 155888, 4752668]),
    (
        "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
        &[14, 196, 4184, 86528, 2266352],
    ),
    (
        "x5o/7/2-1-2/3-3/2-1-2/7/o5x o 0 1",
        &[14, 196, 4100, 83104, 2114588],
    ),
    (
        "x5o/7/3-3/2-1-2/3-3/7/o5x x 0 1",
        &[16, 256, 5948, 133264, 3639856],
    ),
    (
        "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1",
        &[1, 75, 249, 14270, 452980],
    ),
    (
        "7/7/7/7/ooooooo/ooooooo/xxxxxxx o 0 1",
        &[75, 249, 14270, 452980],
    ),
    (
        "7/7/7/7/xxxxxxx/xxxxxxx/ooooooo o 0 1",
        &[1, 75, 249, 14270, 452980],
    ),
    ("7/7/7/2x1o2/7/7/7 x 0 1", &[23, 419, 7887, 168317, 4266992]),
    ("x5o/7/7/7/7/7/o5x x 100 1", &[0, 0, 0, 0]),
    (
        "7/7/7/7/-------/-------/x5o x 0 1",
        &[2, 4, 13, 30, 73, 174],
    ),
];

#[test]
fn ataxx_perft_matches_libataxx() {
    for &(fen, counts) in ATAXX_PERFT {
        let mut game = Ataxx::from_fen(&Default::default(), fen).expect("a libataxx test position");
        for (depth, &expected) in (1..).zip(counts) {
            assert_eq!(perft(&mut game, depth), expected, "{fen} depth {depth}");
        }
        assert_eq!(
            game.to_fen(),
            Ataxx::from_fen(&Default::default(), fen).unwrap().to_fen()
        );
    }
}

#[test]
fn tictactoe_is_a_draw_and_so_is_every_first_move() {
    let game = Mnk::start(&MnkVariant::TICTACTOE);
    let result = search(&game, &Limits::depth(9), &[]);
    assert_eq!(
        ScoreReport::from_score(result.score),
        ScoreReport::Centipawns(0)
    );
    assert_eq!(result.depth, 9);
    let mut moves = MoveList::new();
    game.generate_moves(&mut moves);
    assert_eq!(moves.len(), 9);
    for mv in moves {
        let one = search(&game, &Limits::depth(9), &[mv]);
        assert_eq!(one.best, Some(mv));
        assert_eq!(
            ScoreReport::from_score(one.score),
            ScoreReport::Centipawns(0),
            "first move {}",
            game.format_move(mv)
        );
    }
}

/// POJ 1568 "Find the Winning Move": the first winning move of x in row-major order.
fn poj1568_answer(rows: &[&str]) -> String {
    let fen_rows: Vec<String> = rows
        .iter()
        .map(|row| {
            let mut out = String::new();
            let mut empty = 0;
            for c in row.chars() {
                if c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(c);
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            out
        })
        .collect();
    let fen = format!("{} x", fen_rows.join("/"));
    let game = Mnk::from_fen(&MnkVariant::TICTACTOE4, &fen).expect("valid POJ board");
    let empties = rows
        .iter()
        .flat_map(|r| r.chars())
        .filter(|&c| c == '.')
        .count() as u32;
    for (row, line) in rows.iter().enumerate() {
        for (col, c) in line.chars().enumerate() {
            if c != '.' {
                continue;
            }
            let name = format!("{}{}", (b'a' + col as u8) as char, 4 - row);
            let mv = game.parse_move(&name).expect("empty cell is legal");
            let result = search(&game, &Limits::depth(empties.max(1)), &[mv]);
            if matches!(ScoreReport::from_score(result.score), ScoreReport::Mate(n) if n > 0) {
                return format!("({row},{col})");
            }
        }
    }
    "#####".to_string()
}

#[test]
fn poj1568_sample_is_answered() {
    let first = ["....", ".xo.", ".ox.", "...."];
    let second = ["o...", ".ox.", ".xxx", "xooo"];
    assert_eq!(poj1568_answer(&first), "#####");
    assert_eq!(poj1568_answer(&second), "(0,1)");
}

#[test]
fn connect4_endgame_set_scores_are_exact() {
    let Some(path) = shared_data("connect4/Test_L3_R1") else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("readable test set");
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let test = TestPosition::parse(line).expect("a valid test line");
        let result = search(&test.position, &Limits::depth(test.remaining_plies()), &[]);
        assert_eq!(
            ScoreReport::from_score(result.score),
            test.expected_report(),
            "line '{line}'"
        );
        checked += 1;
    }
    assert_eq!(checked, 1000);
}

#[test]
fn connect4_known_values() {
    // A position where the side to move wins at once, and one where it cannot stop a loss.
    let mut game = Connect4::start(&());
    play(&mut game, "1 2 1 2 1 2");
    let result = search(&game, &Limits::depth(10), &[]);
    assert_eq!(ScoreReport::from_score(result.score), ScoreReport::Mate(1));
    assert_eq!(
        result.best.map(|m| game.format_move(m)),
        Some("1".to_string())
    );
    let mut game = Connect4::start(&());
    play(&mut game, "4 1 3 1 5");
    // o to move cannot block both ends of x's open three: lost on x's next move.
    let result = search(&game, &Limits::depth(10), &[]);
    assert_eq!(ScoreReport::from_score(result.score), ScoreReport::Mate(-1));
}
