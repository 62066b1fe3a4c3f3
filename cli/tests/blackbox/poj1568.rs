//! `scripts/poj1568` (POJ 1568 "Find the Winning Move", 4x4 tic-tac-toe) against the
//! problem's sample and against a brute-force solver written here, on every position a few
//! moves from the empty board or from the sample's boards.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The ten lines of the 4x4 board (cells `row * 4 + col`, row 0 at the top).
const LINES: [[usize; 4]; 10] = [
    [0, 1, 2, 3],
    [4, 5, 6, 7],
    [8, 9, 10, 11],
    [12, 13, 14, 15],
    [0, 4, 8, 12],
    [1, 5, 9, 13],
    [2, 6, 10, 14],
    [3, 7, 11, 15],
    [0, 5, 10, 15],
    [3, 6, 9, 12],
];

/// A board: `cells[i]` is `.`, `x` or `o`.
type Board = [u8; 16];

fn has_line(board: &Board, stone: u8) -> bool {
    LINES
        .iter()
        .any(|line| line.iter().all(|&c| board[c] == stone))
}

fn to_move(board: &Board) -> u8 {
    let xs = board.iter().filter(|&&c| c == b'x').count();
    let os = board.iter().filter(|&&c| c == b'o').count();
    if xs == os {
        b'x'
    } else {
        b'o'
    }
}

/// Brute-force game values (1 win, 0 draw, -1 loss for the side to move), memoised by
/// the base-3 index of the board.
struct BruteForce {
    memo: Vec<i8>,
}

impl BruteForce {
    fn new() -> BruteForce {
        BruteForce {
            memo: vec![i8::MIN; 3usize.pow(16)],
        }
    }

    fn index(board: &Board) -> usize {
        board.iter().fold(0, |acc, &c| {
            acc * 3
                + match c {
                    b'x' => 1,
                    b'o' => 2,
                    _ => 0,
                }
        })
    }

    /// Value for the side to move in a position where nobody has a line yet.
    fn value(&mut self, board: &mut Board) -> i8 {
        let index = BruteForce::index(board);
        if self.memo[index] != i8::MIN {
            return self.memo[index];
        }
        let stone = to_move(board);
        let mut best = if board.contains(&b'.') { -1 } else { 0 };
        for cell in 0..16 {
            if board[cell] != b'.' {
                continue;
            }
            board[cell] = stone;
            let score = if has_line(board, stone) {
                1
            } else {
                -self.value(board)
            };
            board[cell] = b'.';
            best = best.max(score);
            if best == 1 {
                break;
            }
        }
        self.memo[index] = best;
        best
    }

    /// The expected answer of POJ 1568 for `board` (x to move).
    fn answer(&mut self, board: &Board) -> String {
        if has_line(board, b'x') || has_line(board, b'o') {
            return "#####".to_string();
        }
        let mut board = *board;
        for cell in 0..16 {
            if board[cell] != b'.' {
                continue;
            }
            board[cell] = b'x';
            let wins = has_line(&board, b'x') || self.value(&mut board) == -1;
            board[cell] = b'.';
            if wins {
                return format!("({},{})", cell / 4, cell % 4);
            }
        }
        "#####".to_string()
    }
}

/// Every position with x to move reached by up to `plies` moves from `board`, stopping
/// at wins.
fn reachable(board: &Board, plies: u32, out: &mut BTreeSet<Board>) {
    if to_move(board) == b'x' {
        out.insert(*board);
    }
    if plies == 0 || has_line(board, b'x') || has_line(board, b'o') {
        return;
    }
    let stone = to_move(board);
    let mut next = *board;
    for cell in 0..16 {
        if next[cell] == b'.' {
            next[cell] = stone;
            reachable(&next, plies - 1, out);
            next[cell] = b'.';
        }
    }
}

fn parse_board(rows: &str) -> Board {
    let cells: Vec<u8> = rows.bytes().filter(|b| b".xo".contains(b)).collect();
    cells.try_into().expect("16 cells")
}

fn block(board: &Board) -> String {
    let rows: Vec<String> = board
        .chunks(4)
        .map(|row| String::from_utf8_lossy(row).into_owned())
        .collect();
    format!("?\n{}\n", rows.join("\n"))
}

/// Runs the script on `input` with the test build of cutoff.
fn run_script(input: &str) -> Vec<String> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/poj1568");
    let mut child = Command::new("bash")
        .arg(&script)
        .env("CUTOFF", env!("CARGO_BIN_EXE_cutoff"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("bash runs the script");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("input written");
    let output = child.wait_with_output().expect("script finishes");
    assert!(output.status.success(), "script failed: {output:?}");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

fn check_against_brute_force(boards: &BTreeSet<Board>) {
    let mut brute = BruteForce::new();
    let mut input: String = boards.iter().map(block).collect();
    input.push_str("$\n");
    let answers = run_script(&input);
    assert_eq!(answers.len(), boards.len());
    let mut wins = 0;
    for (board, answer) in boards.iter().zip(&answers) {
        let expected = brute.answer(board);
        assert_eq!(answer, &expected, "board\n{}", block(board));
        wins += usize::from(expected != "#####");
    }
    println!("{} positions, {wins} with a winning move", boards.len());
}

#[test]
fn sample() {
    let input = "?\n....\n.xo.\n.ox.\n....\n?\no...\n.ox.\n.xxx\nxooo\n$\n";
    assert_eq!(run_script(input), vec!["#####", "(0,1)"]);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/poj1568");
    match (
        std::fs::read_to_string(dir.join("sample.in")),
        std::fs::read_to_string(dir.join("sample.out")),
    ) {
        (Ok(input), Ok(output)) => {
            let expected: Vec<String> = output.lines().map(str::to_string).collect();
            assert_eq!(run_script(&input), expected);
        }
        _ => println!("SKIPPED: ../shared/data/poj1568 not found"),
    }
}

#[test]
fn positions_a_few_moves_from_the_sample_boards() {
    let mut boards = BTreeSet::new();
    reachable(&parse_board("..../.xo./.ox./...."), 4, &mut boards);
    reachable(&parse_board("o.../.ox./.xxx/xooo"), 4, &mut boards);
    check_against_brute_force(&boards);
}

#[test]
fn positions_four_to_eight_moves_from_the_empty_board_along_two_openings() {
    // Every continuation of up to four more moves: a quiet opening (no forced win
    // anywhere) and a sharp one (many).
    let mut boards = BTreeSet::new();
    reachable(&parse_board("x.../.o../..x./...."), 3, &mut boards);
    reachable(&parse_board("xx../oo../..../...."), 4, &mut boards);
    check_against_brute_force(&boards);
}

#[test]
#[ignore = "slow: about 10 s"]
fn every_position_two_moves_from_the_empty_board() {
    let mut boards = BTreeSet::new();
    reachable(&[b'.'; 16], 2, &mut boards);
    assert_eq!(boards.len(), 1 + 16 * 15);
    check_against_brute_force(&boards);
}
