//! Renju's forbidden points: where Black (the first player) may not play.
//!
//! By the rules of the Renju International Federation, Black may not make an overline (six
//! or more in a row), a double four (two fours at once, also in one line) or a double three
//! (two threes at once), unless the same stone makes an exact five, which wins. A *four* is
//! a line that one more stone turns into an exact five (a straight four, `.xxxx.`, is one
//! four); a *three* is a line that one more stone turns into a straight four, on a point
//! that is not itself forbidden once the stone is placed and makes no five elsewhere (a five
//! there is a win, not a four: Rapfi and c-gomoku-cli's judge read it so): the check
//! recurses, each level with one more hypothetical Black stone.
//!
//! The check reads the board itself (eleven cells of each line through the point), never
//! the pattern tables, and allocates nothing. [`Gomoku::is_forbidden`] first asks the
//! incremental patterns whether the point can be forbidden at all (two directions with an
//! open three or more, an open four or a five-point pair in one direction, or five Black
//! stones next to it in a line), so most points cost a few reads.

use super::pattern::{shift, WALL_BITS};
use super::{Cell, Gomoku, Rule, EMPTY};

/// Black's stone on the board.
const BLACK: u8 = 1;
/// An off-board cell (a wall) in a line read by [`Probe::line`].
const WALL: u8 = WALL_BITS as u8;
/// Cells read on each side of the point: a five's exactness needs the fifth one.
const REACH: usize = 5;
/// Cells of a line read through a point; the point is at [`REACH`].
const LINE: usize = 2 * REACH + 1;
/// Hypothetical stones the recursive check may add; deeper chains are not forbidden.
const MAX_PROBES: usize = 10;

/// The board with hypothetical Black stones on it (the points the check has assumed).
struct Probe<'a> {
    game: &'a Gomoku,
    /// The hypothetical stones' cells, `len` of them.
    stones: [usize; MAX_PROBES],
    len: usize,
}

impl Probe<'_> {
    /// What is on `cell`: a hypothetical stone, the board's content, or a wall off the
    /// padded board.
    fn at(&self, cell: isize) -> u8 {
        let Ok(index) = usize::try_from(cell) else {
            return WALL;
        };
        if self.stones[..self.len].contains(&index) {
            return BLACK;
        }
        self.game.board.get(index).copied().unwrap_or(WALL)
    }

    /// The [`LINE`] cells through `cell` in direction `dir`, with a Black stone on `cell`.
    /// Past a wall every cell reads as a wall: the padding is four cells wide, so reading
    /// on would reach another row.
    fn line(&self, cell: usize, dir: usize) -> [u8; LINE] {
        let step = self.game.steps[dir] as isize;
        let mut line = [WALL; LINE];
        line[REACH] = BLACK;
        for sign in [-1isize, 1] {
            for distance in 1..=REACH as isize {
                let content = self.at(cell as isize + sign * distance * step);
                if content == WALL {
                    break;
                }
                line[(REACH as isize + sign * distance) as usize] = content;
            }
        }
        line
    }
}

/// The length of the run of Black stones through `at`, and its first and last index.
fn run(line: &[u8; LINE], at: usize) -> (usize, usize, usize) {
    let mut first = at;
    while first > 0 && line[first - 1] == BLACK {
        first -= 1;
    }
    let mut last = at;
    while last + 1 < LINE && line[last + 1] == BLACK {
        last += 1;
    }
    (last - first + 1, first, last)
}

/// Whether a Black stone on the empty `at` makes an exact five with the point (the middle).
fn five_point(line: &[u8; LINE], at: usize) -> bool {
    let mut next = *line;
    next[at] = BLACK;
    let (length, first, last) = run(&next, at);
    length == 5 && (first..=last).contains(&REACH)
}

/// The number of fours through the point (the middle) in one line: its five-points, a
/// straight four's two counting once.
fn fours(line: &[u8; LINE]) -> usize {
    let mut points = [0usize; LINE];
    let mut count = 0;
    for at in 1..LINE - 1 {
        if line[at] == EMPTY && five_point(line, at) {
            points[count] = at;
            count += 1;
        }
    }
    let straight = count == 2 && points[1] - points[0] == 5;
    count - usize::from(straight)
}

/// The empty cells that turn the line into a straight four through the point (the
/// middle): four Black stones in a row, both ends empty and each a five-point.
fn straight_four_points(line: &[u8; LINE]) -> impl Iterator<Item = usize> + '_ {
    (REACH - 3..=REACH + 3).filter(move |&at| {
        if line[at] != EMPTY {
            return false;
        }
        let mut next = *line;
        next[at] = BLACK;
        let (length, first, last) = run(&next, REACH);
        length == 4
            && (first..=last).contains(&at)
            && next[first - 1] == EMPTY
            && next[last + 1] == EMPTY
            && five_point(&next, first - 1)
            && five_point(&next, last + 1)
    })
}

/// Whether Black on the empty `cell` (with the probe's stones) makes an exact five in some
/// line: such a point wins, so the three it would turn into a straight four is no three.
fn makes_five(probe: &Probe, cell: usize) -> bool {
    (0..4).any(|dir| run(&probe.line(cell, dir), REACH).0 == 5)
}

/// Whether Black on the empty `cell` (with the probe's stones) is forbidden.
fn forbidden(probe: &mut Probe, cell: usize) -> bool {
    let lines: [[u8; LINE]; 4] = std::array::from_fn(|dir| probe.line(cell, dir));
    let runs = lines.map(|line| run(&line, REACH).0);
    if runs.contains(&5) {
        return false;
    }
    if runs.iter().any(|&length| length > 5) {
        return true;
    }
    let four_counts = lines.map(|line| fours(&line));
    if four_counts.iter().sum::<usize>() >= 2 {
        return true;
    }
    // Threes: lines with no four and a straight-four point; each counts once a point of it
    // is allowed with this stone placed.
    let candidates = (0..4)
        .filter(|&dir| four_counts[dir] == 0 && straight_four_points(&lines[dir]).next().is_some())
        .count();
    if candidates < 2 || probe.len + 1 >= MAX_PROBES {
        return false;
    }
    probe.stones[probe.len] = cell;
    probe.len += 1;
    let step = |dir: usize| probe.game.steps[dir] as isize;
    let mut threes = 0;
    for dir in 0..4 {
        if four_counts[dir] != 0 {
            continue;
        }
        let points: [usize; 7] = {
            let mut points = [usize::MAX; 7];
            for (slot, at) in points.iter_mut().zip(straight_four_points(&lines[dir])) {
                *slot = at;
            }
            points
        };
        let real = points
            .iter()
            .take_while(|&&at| at != usize::MAX)
            .any(|&at| {
                let target = (cell as isize + (at as isize - REACH as isize) * step(dir)) as usize;
                !makes_five(probe, target) && !forbidden(probe, target)
            });
        if real {
            threes += 1;
            if threes >= 2 {
                break;
            }
        }
    }
    probe.len -= 1;
    threes >= 2
}

impl Gomoku {
    /// Whether the empty `cell` is forbidden to Black: always false outside renju, and for
    /// a cell that is not empty. Cheap where the patterns rule it out (see the module doc).
    pub(super) fn is_forbidden(&self, cell: usize) -> bool {
        if self.variant.rule != Rule::Renju || self.board.get(cell) != Some(&EMPTY) {
            return false;
        }
        self.may_be_forbidden(cell) && self.forbidden_now(cell)
    }

    /// The full check of [`Gomoku::is_forbidden`], without the patterns' filter.
    fn forbidden_now(&self, cell: usize) -> bool {
        let mut probe = Probe {
            game: self,
            stones: [0; MAX_PROBES],
            len: 0,
        };
        forbidden(&mut probe, cell)
    }

    /// Whether Black's patterns on `cell` leave room for a forbidden shape: two directions
    /// with an open three or better, an open four (maybe two fours in one line), or five
    /// Black stones next to the cell in one line (an overline).
    fn may_be_forbidden(&self, cell: usize) -> bool {
        let counts = self.cells[cell].info[0].counts;
        let (open_fours, fours, threes) = ((counts >> 3) & 7, (counts >> 6) & 7, (counts >> 9) & 7);
        if open_fours > 0 || open_fours + fours + threes >= 2 {
            return true;
        }
        self.cells[cell].keys.iter().any(|&key| {
            let side = |slots: [i32; 4]| {
                slots
                    .iter()
                    .take_while(|&&step| (key >> shift(step)) & 3 == 1)
                    .count()
            };
            side([-1, -2, -3, -4]) + side([1, 2, 3, 4]) >= 5
        })
    }

    /// The cells forbidden to Black now, lowest first (none outside renju): what
    /// `YXSHOWFORBID` lists.
    pub fn forbidden_cells(&self) -> Vec<Cell> {
        self.board_cells()
            .filter(|&cell| self.is_forbidden(cell))
            .map(|cell| Cell(cell as u16))
            .collect()
    }

    /// Whether `player` (0: Black) may play on the empty `cell` under the rule.
    #[inline]
    pub(super) fn allowed(&self, cell: usize, player: usize) -> bool {
        player != 0 || self.variant.rule != Rule::Renju || !self.is_forbidden(cell)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::GomokuVariant;
    use super::*;
    use crate::search::game::{EndReason, GameResult, MoveList, Outcome, Rules, SearchHooks};
    use crate::search::score::{MATE, MATE_BOUND};
    use crate::search::tt::TranspositionTable;
    use crate::search::Searcher;

    const RENJU15: GomokuVariant = GomokuVariant {
        size: 15,
        rule: Rule::Renju,
        net: None,
    };

    /// The 15x15 renju position with Black's and White's stones on the cells named, the
    /// side to move by the counts (Black when equal).
    fn position(black: &str, white: &str) -> Gomoku {
        let mut rows = [['.'; 15]; 15];
        for (stones, mark) in [(black, 'x'), (white, 'o')] {
            for name in stones.split_whitespace() {
                let (file, rank) = crate::games::grid::parse_cell_name(name).unwrap();
                rows[14 - usize::from(rank)][usize::from(file)] = mark;
            }
        }
        let text: Vec<String> = rows.iter().map(|row| row.iter().collect()).collect();
        let blacks = black.split_whitespace().count();
        let side = if blacks == white.split_whitespace().count() {
            'x'
        } else {
            'o'
        };
        let fen = text.join("/").replace("...............", "15");
        let fen = compress(&fen);
        Gomoku::from_fen(&RENJU15, &format!("{fen} {side}")).unwrap()
    }

    /// Runs of `.` as their lengths (a FEN row).
    fn compress(text: &str) -> String {
        let mut out = String::new();
        let mut run = 0;
        for ch in text.chars() {
            if ch == '.' {
                run += 1;
                continue;
            }
            if run > 0 {
                out.push_str(&run.to_string());
                run = 0;
            }
            out.push(ch);
        }
        if run > 0 {
            out.push_str(&run.to_string());
        }
        out
    }

    fn forbidden_at(game: &Gomoku, name: &str) -> bool {
        let cell = game.parse_cell(name).unwrap();
        game.is_forbidden(usize::from(cell.0))
    }

    /// White stones far from the shapes, to make the counts even.
    const FAR: &str = "a1 c1 e1 g1 i1 k1 m1 o1 a3 c3 e3";

    fn far(count: usize) -> String {
        FAR.split_whitespace()
            .take(count)
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_double_three_is_forbidden_and_refused() {
        let game = position("g8 h8 i9 i10", &far(4));
        assert!(forbidden_at(&game, "i8"));
        assert!(game.parse_move("i8").is_err());
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        let i8 = game.parse_cell("i8").unwrap();
        assert!(!moves.contains(&i8));
        game.generate_search_moves(&mut moves);
        assert!(!moves.contains(&i8));
        // A single three is fine, and White may play there.
        assert!(!forbidden_at(&game, "f8"));
        let white = position("g8 h8 i9 i10 a15", &far(4));
        assert!(white.parse_move("i8").is_ok());
    }

    #[test]
    fn a_three_whose_straight_four_point_is_forbidden_is_no_three() {
        // Across h8: f8 g8 h8 is blocked by d8 on the left, so only i8 makes a straight
        // four, and i8 is an overline point (i6 i7 _ i9 i10 i11); down h8 h9 h10 is a true
        // three. One true three: h8 is allowed.
        let game = position("f8 g8 i6 i7 i9 i10 i11 h9 h10", &format!("d8 {}", far(8)));
        assert!(forbidden_at(&game, "i8"));
        assert!(!forbidden_at(&game, "h8"));
        // With i9 alone beside i8 (neither an overline nor a five there), the double three
        // is real.
        let game = position("f8 g8 i9 h9 h10", &format!("d8 {}", far(4)));
        assert!(!forbidden_at(&game, "i8"));
        assert!(forbidden_at(&game, "h8"));
    }

    #[test]
    fn a_three_whose_straight_four_point_makes_a_five_is_no_three() {
        // Across h8: f8 _ h8 i8 has one straight-four point, g8, and g8 makes the five
        // g4-g8 (a win, not a four); down h8 h9 h10 is a true three. h8 is allowed, as
        // Rapfi's YXSHOWFORBID and c-gomoku-cli's judge have it.
        let game = position("f8 i8 g4 g5 g6 g7 h9 h10", &far(8));
        assert!(!forbidden_at(&game, "h8"));
        // Without the g-column, g8 makes a straight four only: a double three.
        let game = position("f8 i8 h9 h10 m15 o15", &far(6));
        assert!(forbidden_at(&game, "h8"));
    }

    #[test]
    fn double_fours_are_forbidden_also_in_one_line() {
        let game = position("e8 f8 g8 k8 l8 m8", &far(6));
        assert!(forbidden_at(&game, "i8"), "xxx.P.xxx");
        let game = position("f8 h8 j8 l8", &far(4));
        assert!(forbidden_at(&game, "i8"), "x.xPx.x");
        let game = position("e8 f8 g8 h5 h6 h7", &far(6));
        assert!(forbidden_at(&game, "h8"), "two lines, each a four");
        // A straight four is one four; a four and a three are allowed.
        let game = position("e8 f8 g8", &far(3));
        assert!(!forbidden_at(&game, "h8"));
        let game = position("e8 f8 g8 h6 h7", &far(5));
        assert!(!forbidden_at(&game, "h8"), "four-three");
    }

    #[test]
    fn overlines_are_forbidden_and_do_not_win_for_black() {
        let game = position("e8 f8 g8 i8 j8", &far(5));
        assert!(forbidden_at(&game, "h8"));
        assert!(game.parse_move("h8").is_err());
        // White's overline wins.
        let mut game = position("e8 f8 g8 i8 j8 a15", "e7 f7 g7 i7 j7");
        let mv = game.parse_move("h7").unwrap();
        game.make_move(mv);
        assert_eq!(game.outcome(), Some(Outcome::Loss));
    }

    #[test]
    fn a_five_wins_even_where_the_stone_is_also_a_forbidden_shape() {
        // h8 makes d8-h8 (five) and h5 h6 h7 h8 h9 h10: an overline too.
        let mut game = position("d8 e8 f8 g8 h5 h6 h7 h9 h10", &far(9));
        assert!(!forbidden_at(&game, "h8"));
        let mv = game.parse_move("h8").unwrap();
        game.make_move(mv);
        assert_eq!(game.outcome(), Some(Outcome::Loss), "Black won");
    }

    #[test]
    fn a_four_blocked_only_on_a_forbidden_point_wins_for_white() {
        // h8 is Black's overline point; White's h4 makes h4-h7, whose only open end is h8.
        let black = "e8 f8 g8 i8 j8 h3";
        let white = "h5 h6 h7 a1 c1";
        let game = position(black, white);
        assert!(forbidden_at(&game, "h8"));
        // After h4, Black has no move that stops the five: each move it may play loses (the
        // root still gets one to play), and quiescence sees the loss at once.
        let mut after = game.clone();
        after.make_move(after.parse_move("h4").unwrap());
        assert!(after.in_check());
        let mut moves = MoveList::new();
        after.generate_noisy(&mut moves);
        assert!(moves.is_empty());
        after.generate_search_moves(&mut moves);
        let h8 = after.parse_cell("h8").unwrap();
        assert!(!moves.is_empty() && !moves.contains(&h8));
        let mut searcher = Searcher::new(Arc::new(TranspositionTable::new(1)));
        let inf = crate::search::score::INFINITY;
        let lost = searcher.search_root(&after, 2, -inf, inf, None).unwrap();
        assert!(lost <= -MATE_BOUND, "Black loses: {lost}");
        let mut searcher = Searcher::new(Arc::new(TranspositionTable::new(1)));
        let inf = crate::search::score::INFINITY;
        let score = searcher.search_root(&game, 2, -inf, inf, None).unwrap();
        assert!(score >= MATE_BOUND, "White wins: {score}");
    }

    #[test]
    fn forbidden_cells_list_every_point() {
        let game = position("g8 h8 i9 i10", &far(4));
        let names: Vec<String> = game
            .forbidden_cells()
            .into_iter()
            .map(|cell| game.format_move(cell))
            .collect();
        assert!(names.contains(&"i8".to_string()), "{names:?}");
        let free = Gomoku::from_fen(&GomokuVariant::FREESTYLE15, &game.to_fen()).unwrap();
        assert!(free.forbidden_cells().is_empty());
    }

    /// A full board without a five (a pattern of pairs) but for h8, Black's overline point
    /// between e8-g8 and i8-j8; White to move adds c15 (empty) to it.
    const ALL_FORBIDDEN: &str = "xxooxxooxxooxxo/ooxxooxxooxxoox/xxooxxooxxooxxo/\
        ooxxooxxooxxoox/xxooxxooxxooxxo/ooxxooxxooxxoox/xxooxxooxxooxxo/ooxoxxx1xxoxoox/\
        xxooxxooxxooxxo/ooxxooxxooxxoox/xxooxxooxxooxxo/ooxxooxxooxxoox/xxooxxooxxooxxo/\
        ooxxooxxooxxoox/ooooxxooxxooxxo x";

    #[test]
    fn black_with_every_empty_cell_forbidden_has_lost() {
        let game = Gomoku::from_fen(&RENJU15, ALL_FORBIDDEN).unwrap();
        assert!(forbidden_at(&game, "h8") && game.outcome().is_none() && !game.in_check());
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        assert!(moves.is_empty());
        let end = game.game_end().unwrap();
        assert_eq!(end.result, GameResult::SecondWins);
        assert_eq!(end.reason, EndReason::NoLegalMoves);
        assert_eq!(crate::search::minimax::minimax(&mut game.clone(), 1), -MATE);
        // White, with c15 and h8 left, wins by c15 (Black is left h8 only); h8 draws.
        let white = ALL_FORBIDDEN
            .replacen("xxoo", "xx1o", 1)
            .replace(" x", " o");
        let white = Gomoku::from_fen(&RENJU15, &white).unwrap();
        let mut searcher = Searcher::new(Arc::new(TranspositionTable::new(1)));
        let inf = crate::search::score::INFINITY;
        assert!(searcher.search_root(&white, 3, -inf, inf, None).unwrap() >= MATE_BOUND);
        let free = Gomoku::from_fen(&GomokuVariant::FREESTYLE15, &game.to_fen()).unwrap();
        assert_eq!(free.outcome_without_moves(), Outcome::Draw);
    }
}
