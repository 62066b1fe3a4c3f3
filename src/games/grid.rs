//! The FEN text shared by the stone-placing games (Connect Four, m,n,k, Ataxx): rows from
//! top to bottom separated by `/`, `x` and `o` for the players' stones (and `-` for Ataxx's
//! gaps), decimal numbers for runs of empty cells, then the side to move.
//!
//! [`read_board`] and [`read_side`] read the text into cells and a player, refusing
//! malformed text with a reason; what makes a position possible (gravity, stone counts,
//! lines already made) is each game's own rule, checked by the game on what they return.
//!
//! Beside the FEN, what the games that place a stone on any empty cell (m,n,k, gomoku)
//! share: the board drawing ([`draw_board`], Ataxx's too), reading a placement
//! ([`parse_placement`]) and the end of the game ([`placement_outcome`]).

use std::fmt::Write;

use crate::search::{GameError, Outcome, Player};

/// Writes a board of `width` x `height` cells; `stone(file, rank)` gives the stone on a
/// cell (rank 0 at the bottom).
pub fn write_fen(
    width: usize,
    height: usize,
    stone: impl Fn(usize, usize) -> Option<Player>,
    to_move: Player,
) -> String {
    let mut fen = write_board(width, height, |file, rank| {
        stone(file, rank).map_or(Mark::Empty, Mark::Stone)
    });
    fen.push(' ');
    fen.push(symbol(to_move));
    fen
}

/// Writes the board field alone; `mark(file, rank)` gives what a cell holds (rank 0 at
/// the bottom).
pub fn write_board(width: usize, height: usize, mark: impl Fn(usize, usize) -> Mark) -> String {
    let mut fen = String::with_capacity(width * height + 4);
    for rank in (0..height).rev() {
        let mut run = 0;
        for file in 0..width {
            let symbol = match mark(file, rank) {
                Mark::Empty => {
                    run += 1;
                    continue;
                }
                Mark::Stone(player) => symbol(player),
                Mark::Gap => '-',
            };
            if run > 0 {
                let _ = write!(fen, "{run}");
                run = 0;
            }
            fen.push(symbol);
        }
        if run > 0 {
            let _ = write!(fen, "{run}");
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen
}

/// Draws a board of `width` x `height` cells for `d`: rank numbers on the left, file
/// letters below, `x` and `o` for stones, `-` for a gap and `.` for an empty cell;
/// `mark(file, rank)` gives what a cell holds (rank 0 at the bottom).
pub fn draw_board(width: usize, height: usize, mark: impl Fn(usize, usize) -> Mark) -> String {
    let label = height.to_string().len();
    let mut lines = Vec::with_capacity(height + 1);
    for rank in (0..height).rev() {
        let mut line = format!("{:>label$}", rank + 1);
        for file in 0..width {
            line.push(' ');
            line.push(match mark(file, rank) {
                Mark::Empty => '.',
                Mark::Stone(player) => symbol(player),
                Mark::Gap => '-',
            });
        }
        lines.push(line);
    }
    let mut files = " ".repeat(label);
    for file in 0..width {
        files.push(' ');
        files.push(char::from(b'a' + file as u8));
    }
    lines.push(files);
    lines.join("\n")
}

/// Reads a placement `text` (surrounding white space ignored) of a game whose moves put a
/// stone on an empty cell: `cell` reads the cell's name, `over` says whether the game has
/// ended and `occupied` whether a cell holds a stone.
pub fn parse_placement<C: Copy>(
    text: &str,
    cell: impl Fn(&str) -> Option<C>,
    over: bool,
    occupied: impl Fn(C) -> bool,
) -> Result<C, GameError> {
    let text = text.trim();
    let cell = cell(text).ok_or_else(|| GameError::InvalidMove(text.to_string()))?;
    if over {
        return Err(GameError::GameOver(text.to_string()));
    }
    if occupied(cell) {
        return Err(GameError::IllegalMove(text.to_string()));
    }
    Ok(cell)
}

/// The end of a placement game for the side to move: lost when the last stone made a
/// line (`won`), drawn when `stones` fill the board's `cells`, else not over.
#[inline]
pub fn placement_outcome(won: bool, stones: usize, cells: usize) -> Option<Outcome> {
    if won {
        Some(Outcome::Loss)
    } else if stones == cells {
        Some(Outcome::Draw)
    } else {
        None
    }
}

/// `bits` copied `count` times, each copy `stride` bits above the last: one row of a
/// bitboard copied into every row (Ataxx's files) or one column into every column
/// (Connect Four's rows).
pub const fn repeat_bits(bits: u64, stride: usize, count: usize) -> u64 {
    let mut result = 0;
    let mut copy = 0;
    while copy < count {
        result |= bits << (copy * stride);
        copy += 1;
    }
    result
}

/// How a game's board is laid out and named in the reasons for refusing it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GridShape {
    /// Cells per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// What the game calls a row (`row`, `rank`).
    pub line: &'static str,
    /// What the game calls a cell (`cell`, `square`).
    pub cell: &'static str,
    /// Whether `-` marks a gap, a cell no stone may enter (Ataxx).
    pub gaps: bool,
}

/// What a cell of the board holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Nothing.
    Empty,
    /// A player's stone.
    Stone(Player),
    /// A gap (`-`).
    Gap,
}

/// Reads the board field of a FEN: the marks of `shape.width * shape.height` cells, the
/// cell of `file` and `rank` (rank 0 at the bottom) at `rank * width + file`. Refuses a
/// wrong number of rows, rows of the wrong length, runs of 0 or zero-padded runs, and
/// characters other than `x`, `o`, digits (and `-` with gaps).
pub fn read_board(board: &str, shape: &GridShape) -> Result<Vec<Mark>, String> {
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != shape.height {
        return Err(format!(
            "expected {} {}s separated by '/', found {}",
            shape.height,
            shape.line,
            rows.len()
        ));
    }
    let mut marks = vec![Mark::Empty; shape.width * shape.height];
    for (index, text) in rows.iter().enumerate() {
        let rank = shape.height - 1 - index;
        let cells = &mut marks[rank * shape.width..(rank + 1) * shape.width];
        read_row(text, rank + 1, shape, cells)?;
    }
    Ok(marks)
}

/// Reads one row, numbered `number` from the bottom, into `cells` (empty on entry).
fn read_row(
    text: &str,
    number: usize,
    shape: &GridShape,
    cells: &mut [Mark],
) -> Result<(), String> {
    let GridShape {
        width, line, cell, ..
    } = *shape;
    let too_long = || format!("{line} {number} has more than {width} {cell}s");
    let mut chars = text.chars().peekable();
    let mut filled = 0;
    while let Some(ch) = chars.next() {
        let mark = match ch {
            'x' => Mark::Stone(Player::First),
            'o' => Mark::Stone(Player::Second),
            '-' if shape.gaps => Mark::Gap,
            '0' => {
                return Err(format!(
                    "{line} {number} has a zero or zero-padded run (a run of 0 {cell}s)"
                ))
            }
            '1'..='9' => {
                let run = read_run(ch, &mut chars, width);
                if run > width && run < 10 {
                    // A digit above the width (Ataxx's `8`) is no run of this board.
                    return Err(format!("{}: unexpected character '{ch}'", too_long()));
                }
                if run > width {
                    return Err(format!(
                        "{line} {number} has a run of more than {width} empty {cell}s, \
                         longer than the board"
                    ));
                }
                if filled + run > width {
                    return Err(too_long());
                }
                filled += run;
                continue;
            }
            other => {
                let gap = if shape.gaps { ", -" } else { "" };
                return Err(format!(
                    "unexpected character '{other}' in {line} {number} \
                     (use x, o{gap} or runs of 1-{width})"
                ));
            }
        };
        if filled >= width {
            return Err(too_long());
        }
        cells[filled] = mark;
        filled += 1;
    }
    if filled != width {
        return Err(format!(
            "{line} {number} has {filled} {cell}s, expected {width}"
        ));
    }
    Ok(())
}

/// The decimal number starting with `first`, read no further than past `width`.
fn read_run(first: char, chars: &mut std::iter::Peekable<std::str::Chars>, width: usize) -> usize {
    let mut run = first.to_digit(10).unwrap_or(0) as usize;
    while run <= width {
        let Some(digit) = chars.peek().and_then(|d| d.to_digit(10)) else {
            break;
        };
        chars.next();
        run = run * 10 + digit as usize;
    }
    run
}

/// Reads a cell name such as `h8` (a file letter from `a`, then the rank from 1, no
/// surrounding whitespace, no leading zeros) as a 0-based file and rank; whether they are
/// on the board is the game's to check.
pub fn parse_cell_name(text: &str) -> Option<(u8, u8)> {
    let mut chars = text.chars();
    let letter = chars.next()?;
    if !letter.is_ascii_lowercase() {
        return None;
    }
    let digits = chars.as_str();
    if digits.is_empty()
        || digits.len() > 2
        || digits.starts_with('0')
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let rank: u8 = digits.parse().ok()?;
    Some((letter as u8 - b'a', rank.checked_sub(1)?))
}

/// Reads the FEN of a stone game (tic-tac-toe, gomoku) on a `width` x `height` board: two
/// fields, the rows top first (`x`, `o`, run lengths) and the side to move, which must fit
/// the stone counts (as many x as o stones with x to move, one x more with o to move).
/// Returns the marks in reading order and the side to move.
pub fn read_stone_fen(
    fen: &str,
    width: usize,
    height: usize,
) -> Result<(Vec<Mark>, Player), String> {
    let mut fields = fen.split_whitespace();
    let (Some(board), Some(side), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err("expected two fields: the board and the side to move".to_string());
    };
    let shape = GridShape {
        width,
        height,
        line: "row",
        cell: "cell",
        gaps: false,
    };
    let marks = read_board(board, &shape)?;
    let side = read_side(side)?;
    let count = |player| marks.iter().filter(|&&m| m == Mark::Stone(player)).count();
    let (xs, os) = (count(Player::First), count(Player::Second));
    let fits = match side {
        Player::First => xs == os,
        Player::Second => xs == os + 1,
    };
    if !fits {
        return Err(format!(
            "{xs} x stones and {os} o stones do not fit {} to move",
            symbol(side)
        ));
    }
    Ok((marks, side))
}

/// Reads the side-to-move field: `x` or `o`.
pub fn read_side(text: &str) -> Result<Player, String> {
    match text {
        "x" => Ok(Player::First),
        "o" => Ok(Player::Second),
        other => Err(format!("side to move must be 'x' or 'o', found '{other}'")),
    }
}

/// The letter of a player's stones and of its turn: `x` or `o`.
pub fn symbol(player: Player) -> char {
    match player {
        Player::First => 'x',
        Player::Second => 'o',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_runs_as_decimal_numbers() {
        let fen = write_fen(
            12,
            2,
            |file, rank| match (file, rank) {
                (0, 0) => Some(Player::First),
                (11, 1) => Some(Player::Second),
                _ => None,
            },
            Player::Second,
        );
        assert_eq!(fen, "11o/x11 o");
    }

    const CONNECT4: GridShape = GridShape {
        width: 7,
        height: 6,
        line: "row",
        cell: "cell",
        gaps: false,
    };
    const ATAXX: GridShape = GridShape {
        width: 7,
        height: 7,
        line: "rank",
        cell: "square",
        gaps: true,
    };
    const GOMOKU: GridShape = GridShape {
        width: 15,
        height: 15,
        line: "row",
        cell: "cell",
        gaps: false,
    };

    fn refusal(board: &str, shape: &GridShape) -> String {
        match read_board(board, shape) {
            Err(reason) => reason,
            Ok(marks) => panic!("'{board}' gave {marks:?}"),
        }
    }

    #[test]
    fn reads_marks_bottom_rank_first() {
        let marks = read_board(
            "x1o/3",
            &GridShape {
                height: 2,
                width: 3,
                ..CONNECT4
            },
        )
        .unwrap();
        let (x, o) = (Mark::Stone(Player::First), Mark::Stone(Player::Second));
        assert_eq!(
            marks,
            [Mark::Empty, Mark::Empty, Mark::Empty, x, Mark::Empty, o]
        );
        let ataxx = read_board("x5o/7/2-1-2/7/7/7/o5x", &ATAXX).unwrap();
        assert_eq!(ataxx[4 * 7 + 2], Mark::Gap);
        assert_eq!(ataxx[6 * 7], x);
        assert_eq!(ataxx[6], x);
        assert_eq!(ataxx[0], o);
        let wide = format!("{}/x13o", vec!["15"; 14].join("/"));
        let gomoku = read_board(&wide, &GOMOKU).unwrap();
        assert_eq!((gomoku[0], gomoku[14], gomoku[20]), (x, o, Mark::Empty));
    }

    #[test]
    fn writes_what_it_reads() {
        for board in [
            "x5o/7/2-1-2/7/2-1-2/7/o5x",
            "7/7/7/7/7/7/7",
            "-xo-xo-/7/7/7/7/7/7",
        ] {
            let marks = read_board(board, &ATAXX).unwrap();
            assert_eq!(
                write_board(7, 7, |file, rank| marks[rank * 7 + file]),
                board
            );
        }
    }

    #[test]
    fn refuses_each_kind_of_bad_row() {
        for (board, shape, expected) in [
            (
                "7/7/7/7/7",
                &CONNECT4,
                "expected 6 rows separated by '/', found 5",
            ),
            (
                "7/7/7/7/7/7/7/7",
                &ATAXX,
                "expected 7 ranks separated by '/', found 8",
            ),
            ("7/7/7/7/7/6", &CONNECT4, "row 1 has 6 cells, expected 7"),
            ("7/7/7/7/7/", &CONNECT4, "row 1 has 0 cells, expected 7"),
            ("x6o/7/7/7/7/7/7", &ATAXX, "rank 7 has more than 7 squares"),
            ("7/7/7/7/7/x7", &CONNECT4, "row 1 has more than 7 cells"),
            (
                "7/7/7/7/7/8",
                &CONNECT4,
                "more than 7 cells: unexpected character '8'",
            ),
            ("7/7/7/8/7/7/7", &ATAXX, "unexpected character '8'"),
            (
                "7/7/7/7/7/34",
                &CONNECT4,
                "a run of more than 7 empty cells",
            ),
            ("7/7/7/7/7/10", &CONNECT4, "longer than the board"),
            ("7/7/7/7/7/07", &CONNECT4, "a run of 0 cells"),
            ("7/7/7/7/7/7/x05o", &ATAXX, "zero-padded"),
            (
                "7/7/7/7/7/-6",
                &CONNECT4,
                "unexpected character '-' in row 1",
            ),
            ("7/7/7/7/7/X6", &CONNECT4, "unexpected character 'X'"),
            (
                "7/7/7/7/7/7/6é",
                &ATAXX,
                "unexpected character 'é' in rank 1 (use x, o, -",
            ),
        ] {
            let reason = refusal(board, shape);
            assert!(reason.contains(expected), "'{board}': {reason}");
        }
        let long = format!("{}/16", vec!["15"; 14].join("/"));
        assert!(refusal(&long, &GOMOKU).contains("longer"));
        let huge = format!("{}/99999999999999999999999", vec!["15"; 14].join("/"));
        assert!(refusal(&huge, &GOMOKU).contains("more than 15 empty cells"));
    }

    #[test]
    fn reads_the_side_to_move() {
        assert_eq!(read_side("x"), Ok(Player::First));
        assert_eq!(read_side("o"), Ok(Player::Second));
        for bad in ["X", "w", "", "xo"] {
            assert!(read_side(bad).unwrap_err().contains("side to move must be"));
        }
    }

    /// Each grid game keeps its own rules on top of the shared reader.
    #[test]
    fn each_game_reads_its_grid() {
        use crate::games::ataxx::Ataxx;
        use crate::games::connect4::Connect4;
        use crate::games::mnk::{Mnk, MnkVariant};
        use crate::search::Rules;
        // Connect Four: two-digit runs and gaps are refused; gravity is its own rule.
        assert!(Connect4::from_fen(&(), "7/7/7/7/7/10 x").is_err());
        assert!(Connect4::from_fen(&(), "7/7/7/7/7/x-5 o").is_err());
        assert!(Connect4::from_fen(&(), "7/7/7/7/x6/7 o").is_err());
        let c4 = Connect4::from_fen(&(), "7/7/7/7/o6/x6 o").unwrap_err();
        assert!(c4.to_string().contains("o to move needs"), "{c4}");
        // Ataxx: gaps round-trip; a two-digit run is refused.
        let fen = "x5o/1-3-1/7/3-3/7/1-3-1/o5x o 3 7";
        assert_eq!(
            Ataxx::from_fen(&Default::default(), fen).unwrap().to_fen(),
            fen
        );
        assert!(Ataxx::from_fen(&Default::default(), "x5o/7/7/7/7/7/o15x x 0 1").is_err());
        // m,n,k: gomoku's runs take two digits; tic-tac-toe's gaps are refused.
        let gomoku = format!("{}/7x7 o", vec!["15"; 14].join("/"));
        let big = MnkVariant::new(15, 15, 5).unwrap();
        let game = Mnk::from_fen(&big, &gomoku).unwrap();
        assert_eq!(game.to_fen(), gomoku);
        assert!(Mnk::from_fen(&MnkVariant::TICTACTOE, "3/-2/3 x").is_err());
        assert!(Mnk::from_fen(&MnkVariant::TICTACTOE, "3/4/3 x").is_err());
    }
}
