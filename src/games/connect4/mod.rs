//! Connect Four on the standard 7x6 board, as a [`Game`].
//!
//! The board is two bitboards in the layout of Pascal Pons' solver: seven columns of seven
//! bits each (six playable rows and one sentinel bit that is never set, so lines cannot wrap
//! from one column into the next). Bit `7 * column + row` is the cell of that column and row,
//! row 0 at the bottom. `current` holds the stones of the side to move and `mask` every
//! stone; `current + mask` is a unique key of the position.
//!
//! Making and unmaking a move are a handful of bit operations. The position caches whether
//! the last move completed four in a row, so [`Rules::outcome`] is O(1); a won position
//! generates no moves, which is what perft counts rely on.
//!
//! Exact values come from the game's own solver ([`solver`]), which `cutoff solve` uses and
//! `go` under a clock plays by; the first player's opening moves come from its strategy
//! book ([`book`]), built by that solver.
//!
//! Notation: a move is the column digit `1`..`7`, left to right. FEN lists rows from top to
//! bottom separated by `/`, `x` for the first player's stones, `o` for the second's, digits
//! for runs of empty cells, then a space and the side to move: the start is `7/7/7/7/7/7 x`.
//!
//! [`Game`]: crate::search::Game

pub mod book;
pub mod replies;
pub mod solver;
pub mod test_sets;

#[cfg(test)]
mod play_tests;

use super::grid;
use super::{BenchPosition, GameInfo, PieceMarks, ProtocolSettings, ToolSettings};
use crate::rng::mix64;
use crate::search::game::QUIET_HINT_LIMIT;
use crate::search::{
    ExactHooks, GameError, MoveList, Outcome, Player, Rules, SearchHooks, SearchRefinements,
};

/// Connect Four in the registry.
pub const INFO: GameInfo = GameInfo {
    name: "connect4",
    aliases: &["connect-four", "connectfour"],
    summary: "Connect Four, 7 columns by 6 rows; moves are column numbers 1-7",
    players: ["x", "o"],
    pieces: PieceMarks::Stones('x', 'o'),
    eval_net: None,
    tablebases: None,
    wdl: None,
    elo_scale: None,
    protocol: ProtocolSettings {
        pgn_variant: Some("connect4"),
        ..ProtocolSettings::NONE
    },
    tools: ToolSettings {
        bench_positions: &[
            BenchPosition::from_start(""),
            BenchPosition::from_start("4 4 4 4 3 5"),
            BenchPosition::from_start("4 3 4 4 3 5 5 2"),
            BenchPosition::from_start("3 4 5 4 4 3 2 6 6"),
            BenchPosition::from_start("4 4 4 4 4 4 3 3 3 5 5"),
            BenchPosition::from_start("1 2 3 4 5 6 7 7 6 5 4 3"),
        ],
        bench_depth: 14,
        opening_book: "openings/connect4.txt",
        match_tc: "1+0.01",
        solvable: true,
        test_set: Some(test_sets::parse_line),
    },
};

/// Number of columns.
const WIDTH: usize = 7;
/// Number of playable rows.
const HEIGHT: usize = 6;
/// Bits per column: the playable rows plus one sentinel bit.
const COLUMN_BITS: usize = HEIGHT + 1;
/// Number of cells on the board.
const CELLS: u32 = (WIDTH * HEIGHT) as u32;

/// The bottom cell of every column.
const BOTTOM: u64 = repeat_per_column(1);
/// Every playable cell.
const BOARD: u64 = repeat_per_column((1 << HEIGHT) - 1);
/// Cells on odd rows counted from 1 at the bottom (rows 1, 3, 5): good threats for `x`.
const ODD_ROWS: u64 = repeat_per_column(0b01_0101);
/// Cells on even rows counted from 1 at the bottom (rows 2, 4, 6): good threats for `o`.
const EVEN_ROWS: u64 = repeat_per_column(0b10_1010);
/// The centre column.
const CENTRE_3: u64 = column_mask(3);
/// The two columns next to the centre.
const CENTRE_2: u64 = column_mask(2) | column_mask(4);
/// The two columns two steps from the centre.
const CENTRE_1: u64 = column_mask(1) | column_mask(5);

/// Evaluation of a position that is won (or lost) two plies from now.
const WIN_SOON: i32 = 1_000;
/// Largest magnitude of a static evaluation.
const EVAL_LIMIT: i32 = 2_000;
/// Bonus for having the move.
const TEMPO: i32 = 2;

/// `bits` (the low `HEIGHT` bits of one column) copied into every column.
const fn repeat_per_column(bits: u64) -> u64 {
    super::grid::repeat_bits(bits, COLUMN_BITS, WIDTH)
}

/// The playable cells of `column`.
const fn column_mask(column: usize) -> u64 {
    ((1 << HEIGHT) - 1) << (column * COLUMN_BITS)
}

/// The bottom cell of `column`.
const fn bottom_cell(column: usize) -> u64 {
    1 << (column * COLUMN_BITS)
}

/// The top playable cell of `column`.
const fn top_cell(column: usize) -> u64 {
    1 << (column * COLUMN_BITS + HEIGHT - 1)
}

/// Whether the stones in `stones` contain four in a row in any direction.
fn has_four(stones: u64) -> bool {
    let mut found = 0;
    // Vertical, horizontal, and the two diagonals (down-right and up-right).
    for shift in [1, COLUMN_BITS, COLUMN_BITS - 1, COLUMN_BITS + 1] {
        let pairs = stones & (stones >> shift);
        found |= pairs & (pairs >> (2 * shift));
    }
    found != 0
}

/// Every empty cell where `stones` would complete four in a row (Pons'
/// `compute_winning_position`): the player's threat cells, all at once.
fn threat_cells(stones: u64, mask: u64) -> u64 {
    // Vertical: only the cell on top of three stacked stones.
    let mut result = (stones << 1) & (stones << 2) & (stones << 3);
    // Horizontal, then both diagonals: three stones on one side, or two and one.
    for shift in [COLUMN_BITS, COLUMN_BITS - 1, COLUMN_BITS + 1] {
        let pair = (stones << shift) & (stones << (2 * shift));
        result |= pair & (stones << (3 * shift));
        result |= pair & (stones >> shift);
        let pair = (stones >> shift) & (stones >> (2 * shift));
        result |= pair & (stones << shift);
        result |= pair & (stones >> (3 * shift));
    }
    result & (BOARD ^ mask)
}

/// The cells where a stone can be dropped now (one per non-full column).
fn playable_cells(mask: u64) -> u64 {
    (mask + BOTTOM) & BOARD
}

/// Centre preference of a set of stones: 6, 4, 2, 0 per stone by distance from the centre.
fn centre_score(stones: u64) -> i32 {
    let weighted = 3 * (stones & CENTRE_3).count_ones()
        + 2 * (stones & CENTRE_2).count_ones()
        + (stones & CENTRE_1).count_ones();
    2 * weighted as i32
}

/// Value of one player's threat cells: more for threats on the player's good row parity,
/// for threats just above a playable cell, and for two threats stacked in one column.
fn threat_score(own: u64, other: u64, playable: u64, first: bool) -> i32 {
    let good_rows = if first { ODD_ROWS } else { EVEN_ROWS };
    // A threat right above an opponent's threat is mostly dead: the lower one comes first.
    let live = own & !(other << 1);
    let score = 16 * live.count_ones()
        + 16 * (live & good_rows).count_ones()
        + 8 * (live & (playable << 1)).count_ones()
        + 48 * (own & (own >> 1)).count_ones();
    score as i32
}

/// A Connect Four move: the index of the column a stone is dropped into, 0 (left) to 6.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Column(pub u8);

/// A Connect Four position: stones, side to move, and whether the last move won.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect4 {
    /// Stones of the side to move.
    current: u64,
    /// All stones.
    mask: u64,
    /// Stones on the board (= moves played from the empty board).
    moves: u32,
    /// Whether the player who just moved has four in a row.
    won: bool,
}

impl Default for Connect4 {
    fn default() -> Self {
        Connect4::start(&())
    }
}

impl Connect4 {
    /// Plays a sequence of column digits `1`..`7` from the start position, like `4453` (the
    /// format of Pascal Pons' test files); refuses bad digits, full columns and moves after
    /// the game has ended.
    pub fn from_moves(sequence: &str) -> Result<Connect4, GameError> {
        let mut position = Connect4::start(&());
        let sequence = sequence.trim();
        for (index, digit) in sequence.char_indices() {
            let mv = position.parse_move(&sequence[index..index + digit.len_utf8()])?;
            position.make_move(mv);
        }
        Ok(position)
    }

    /// Number of stones on the board: the moves played from the empty board.
    pub fn moves_played(&self) -> u32 {
        self.moves
    }

    /// The cell a stone dropped into `column` lands on (0 when the column is full).
    fn landing_cell(&self, column: usize) -> u64 {
        (self.mask + bottom_cell(column)) & column_mask(column)
    }

    /// Whether a stone can still be dropped into `column`.
    fn can_play(&self, column: usize) -> bool {
        self.mask & top_cell(column) == 0
    }

    /// The stones of `player`.
    fn stones_of(&self, player: Player) -> u64 {
        if player == self.side_to_move() {
            self.current
        } else {
            self.current ^ self.mask
        }
    }
}

/// The board of Connect Four in the shared grid reader's terms.
const SHAPE: grid::GridShape = grid::GridShape {
    width: WIDTH,
    height: HEIGHT,
    line: "row",
    cell: "cell",
    gaps: false,
};

/// Parses the board and side-to-move fields of a FEN; see [`Connect4::from_fen`].
fn parse_fen(fen: &str) -> Result<Connect4, String> {
    // Step 1. Two fields: the board and the side to move.
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.len() != 2 {
        return Err(format!(
            "expected the board and the side to move separated by a space, found {} field(s)",
            fields.len()
        ));
    }
    let side = grid::read_side(fields[1])?;

    // Step 2. Six rows of seven cells, top row first, as bitboards.
    let mut stones = [0u64; 2];
    for (index, mark) in grid::read_board(fields[0], &SHAPE)?.into_iter().enumerate() {
        if let grid::Mark::Stone(player) = mark {
            let (row, column) = (index / WIDTH, index % WIDTH);
            stones[player.index()] |= 1u64 << (column * COLUMN_BITS + row);
        }
    }
    let [first, second] = stones;
    let mask = first | second;

    // Step 3. Gravity: every stone rests on the bottom or on another stone.
    if mask & !(mask << 1) & !BOTTOM != 0 {
        return Err("a stone floats above an empty cell".to_string());
    }

    // Step 4. Stone counts must fit the side to move: x moves first.
    check_counts(side, first.count_ones(), second.count_ones())?;

    // Step 5. At most the player who just moved has four, made by its last stone.
    let (to_move, moved) = (stones[side.index()], stones[side.other().index()]);
    let won = check_fours(to_move, moved)?;
    Ok(Connect4 {
        current: to_move,
        mask,
        moves: mask.count_ones(),
        won,
    })
}

/// Whether `x_count` and `o_count` stones fit `side` to move (x moves first).
fn check_counts(side: Player, x_count: u32, o_count: u32) -> Result<(), String> {
    match side {
        Player::First if x_count != o_count => Err(format!(
            "x to move needs as many x as o stones, found {x_count} x and {o_count} o"
        )),
        Player::Second if x_count != o_count + 1 => Err(format!(
            "o to move needs one more x than o stones, found {x_count} x and {o_count} o"
        )),
        _ => Ok(()),
    }
}

/// Whether the player who `moved` last has won; refuses fours of the side to move and
/// wins that one move cannot have completed.
fn check_fours(to_move: u64, moved: u64) -> Result<bool, String> {
    if has_four(to_move) && has_four(moved) {
        return Err("both players have four in a row".to_string());
    }
    if has_four(to_move) {
        return Err("the side to move has four in a row, yet the other side moved last".into());
    }
    let won = has_four(moved);
    if won {
        let mask = to_move | moved;
        let single_move_wins = (0..WIDTH).any(|column| {
            let stack = mask & column_mask(column);
            let top = ((stack + bottom_cell(column)) >> 1) & stack;
            top & moved != 0 && !has_four(moved ^ top)
        });
        if !single_move_wins {
            return Err("the winner's lines cannot all have been completed by one move".into());
        }
    }
    Ok(won)
}

impl Rules for Connect4 {
    type Move = Column;
    type Variant = ();

    fn start(_variant: &()) -> Self {
        Connect4 {
            current: 0,
            mask: 0,
            moves: 0,
            won: false,
        }
    }

    /// Parses `rows/.../rows side`; refuses malformed text, floating stones, stone counts
    /// that do not fit the side to move, and wins that cannot have happened.
    fn from_fen(_variant: &(), fen: &str) -> Result<Self, GameError> {
        parse_fen(fen).map_err(|reason| GameError::position(fen, reason))
    }

    fn to_fen(&self) -> String {
        let first = self.stones_of(Player::First);
        let stone = |column: usize, row: usize| {
            let cell = 1u64 << (column * COLUMN_BITS + row);
            match (self.mask & cell != 0, first & cell != 0) {
                (false, _) => None,
                (true, true) => Some(Player::First),
                (true, false) => Some(Player::Second),
            }
        };
        grid::write_fen(WIDTH, HEIGHT, stone, self.side_to_move())
    }

    fn render(&self) -> String {
        let first = self.stones_of(Player::First);
        let mut lines = Vec::with_capacity(HEIGHT + 1);
        for row in (0..HEIGHT).rev() {
            let cells: Vec<&str> = (0..WIDTH)
                .map(|column| {
                    let cell = 1u64 << (column * COLUMN_BITS + row);
                    if self.mask & cell == 0 {
                        "."
                    } else if first & cell != 0 {
                        "x"
                    } else {
                        "o"
                    }
                })
                .collect();
            lines.push(cells.join(" "));
        }
        lines.push("1 2 3 4 5 6 7".to_string());
        lines.join("\n")
    }

    fn side_to_move(&self) -> Player {
        if self.moves % 2 == 0 {
            Player::First
        } else {
            Player::Second
        }
    }

    fn ply(&self) -> u32 {
        self.moves
    }

    fn generate_moves(&self, moves: &mut MoveList<Column>) {
        if self.won || self.moves >= CELLS {
            return;
        }
        for column in 0..WIDTH {
            if self.can_play(column) {
                moves.push(Column(column as u8));
            }
        }
    }

    fn make_move(&mut self, mv: Column) {
        let column = mv.0 as usize;
        // The opponent's stones become the side to move's; the new stone joins the mask.
        self.current ^= self.mask;
        self.mask |= self.mask + bottom_cell(column);
        self.moves += 1;
        self.won = has_four(self.current ^ self.mask);
    }

    fn unmake_move(&mut self, mv: Column) {
        let column = mv.0 as usize;
        // The column's stones are contiguous from the bottom: its top stone is the last one.
        let stack = self.mask & column_mask(column);
        let top = (stack + bottom_cell(column)) >> 1;
        self.mask ^= top;
        self.current ^= self.mask;
        self.moves -= 1;
        // A move was played from here, so the position before it was not won.
        self.won = false;
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.won {
            Some(Outcome::Loss)
        } else if self.moves >= CELLS {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn hash(&self) -> u64 {
        mix64(self.current + self.mask)
    }

    fn parse_move(&self, text: &str) -> Result<Column, GameError> {
        let column = match text.trim().as_bytes() {
            [digit @ b'1'..=b'7'] => usize::from(digit - b'1'),
            _ => return Err(GameError::InvalidMove(text.to_string())),
        };
        if self.outcome().is_some() {
            return Err(GameError::GameOver(text.to_string()));
        }
        if !self.can_play(column) {
            return Err(GameError::IllegalMove(text.to_string()));
        }
        Ok(Column(column as u8))
    }

    fn format_move(&self, mv: Column) -> String {
        char::from(b'1' + mv.0).to_string()
    }
}

impl SearchHooks for Connect4 {
    /// Threat-based evaluation from the side to move's view: threat cells weighted by row
    /// parity and how soon they can be played, a centre preference and a tempo bonus.
    fn evaluate(&self) -> i32 {
        let own = self.current;
        let other = self.current ^ self.mask;
        let playable = playable_cells(self.mask);

        // Step 1. An immediate win for the side to move.
        let own_threats = threat_cells(own, self.mask);
        if own_threats & playable != 0 {
            return WIN_SOON;
        }
        // Step 2. Two opponent wins to block, or one with another right above it: lost.
        let other_threats = threat_cells(other, self.mask);
        let forced = other_threats & playable;
        if forced & forced.wrapping_sub(1) != 0 || (forced << 1) & other_threats != 0 {
            return -WIN_SOON;
        }
        // Step 3. Threats, centre and tempo.
        let own_first = self.side_to_move() == Player::First;
        let score = threat_score(own_threats, other_threats, playable, own_first)
            - threat_score(other_threats, own_threats, playable, !own_first)
            + centre_score(own)
            - centre_score(other)
            + TEMPO;
        score.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    fn encode_move(mv: Column) -> u16 {
        u16::from(mv.0)
    }

    const HISTORY_SIZE: usize = 2 * WIDTH;

    fn history_index(&self, mv: Column) -> usize {
        self.side_to_move().index() * WIDTH + mv.0 as usize
    }

    /// Wins first, then blocks, then quiet moves by the threats they create and their
    /// centrality; a move under an opponent's threat cell (handing it the win) comes last.
    fn move_hint(&self, mv: Column) -> i32 {
        let column = mv.0 as usize;
        let cell = self.landing_cell(column);
        if cell & threat_cells(self.current, self.mask) != 0 {
            return 3 * QUIET_HINT_LIMIT;
        }
        let other_threats = threat_cells(self.current ^ self.mask, self.mask);
        if cell & other_threats != 0 {
            return 2 * QUIET_HINT_LIMIT;
        }
        let centre = 3 - (column as i32 - 3).abs();
        if (cell << 1) & other_threats != 0 {
            return centre - QUIET_HINT_LIMIT / 2;
        }
        let threats_after = threat_cells(self.current | cell, self.mask | cell);
        16 * threats_after.count_ones() as i32 + centre
    }
}

impl SearchRefinements for Connect4 {}

impl ExactHooks for Connect4 {
    fn dedicated_solver(
        hash_mb: usize,
        threads: usize,
    ) -> Option<Box<dyn crate::search::ExactSearch<Self>>> {
        let mut solver = solver::Connect4Solver::new(hash_mb);
        solver.threads = threads.max(1);
        Some(Box::new(solver))
    }

    fn remaining_plies_bound(&self) -> Option<u32> {
        Some(CELLS - self.moves)
    }

    /// The first player's winning move from the shipped book ([`book`]), else the move
    /// of the replies book ([`replies`]) and the value it keeps.
    fn book_move(&self) -> Option<(Column, Outcome)> {
        match book::lookup(self) {
            Some(column) => Some((column, Outcome::Win)),
            None => replies::lookup(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix;

    /// Leaves at exactly `depth` plies; terminal positions earlier contribute nothing.
    fn perft(position: &mut Connect4, depth: u32) -> u64 {
        let mut moves = MoveList::new();
        position.generate_moves(&mut moves);
        if depth == 1 {
            return moves.len() as u64;
        }
        let mut total = 0;
        for &mv in &moves {
            position.make_move(mv);
            total += perft(position, depth - 1);
            position.unmake_move(mv);
        }
        total
    }

    fn moves_of(position: &Connect4) -> Vec<Column> {
        let mut moves = MoveList::new();
        position.generate_moves(&mut moves);
        moves.to_vec()
    }

    fn play(sequence: &str) -> Connect4 {
        Connect4::from_moves(sequence).expect("valid sequence")
    }

    #[test]
    fn perft_from_start() {
        let expected = [7, 49, 343, 2401, 16807, 117649, 823536, 5673234];
        let mut position = Connect4::start(&());
        for (depth, &count) in (1..).zip(expected.iter()) {
            assert_eq!(perft(&mut position, depth), count, "depth {depth}");
        }
        assert_eq!(position, Connect4::start(&()));
    }

    #[test]
    #[ignore]
    fn perft_depth_9() {
        assert_eq!(perft(&mut Connect4::start(&()), 9), 39394572);
    }

    fn walk_checking_restore(position: &mut Connect4, depth: u32) {
        if depth == 0 {
            return;
        }
        for mv in moves_of(position) {
            let (before, hash, fen) = (position.clone(), position.hash(), position.to_fen());
            position.make_move(mv);
            assert_eq!(position.moves_played(), before.moves_played() + 1);
            walk_checking_restore(position, depth - 1);
            position.unmake_move(mv);
            assert_eq!(position.hash(), hash);
            assert_eq!(position.to_fen(), fen);
            assert_eq!(*position, before);
        }
    }

    #[test]
    fn make_unmake_restores_everything() {
        walk_checking_restore(&mut Connect4::start(&()), 5);
        // Also around won positions.
        walk_checking_restore(&mut play("121212"), 3);
    }

    #[test]
    fn wins_in_every_direction() {
        for (direction, sequence) in [
            ("horizontal", "1122334"),
            ("vertical", "1212121"),
            ("up-right diagonal", "12233444374"),
            ("down-right diagonal", "76655444514"),
        ] {
            let (before, last) = sequence.split_at(sequence.len() - 1);
            let mut position = play(before);
            assert_eq!(position.outcome(), None, "{direction}");
            let mv = position.parse_move(last).expect("legal");
            position.make_move(mv);
            assert_eq!(position.outcome(), Some(Outcome::Loss), "{direction}");
            assert_eq!(position.side_to_move(), Player::Second, "{direction}");
            assert!(moves_of(&position).is_empty(), "{direction}");
            assert_eq!(
                Connect4::from_moves(&format!("{sequence}5")),
                Err(GameError::GameOver("5".to_string())),
                "{direction}"
            );
            position.unmake_move(mv);
            assert_eq!(position.outcome(), None, "{direction}");
            assert_eq!(moves_of(&position).len(), 7, "{direction}");
        }
        // Wins by the second player, horizontal and vertical.
        for sequence in ["1122337474", "21213131"] {
            let position = play(sequence);
            assert_eq!(position.outcome(), Some(Outcome::Loss), "{sequence}");
            assert_eq!(position.side_to_move(), Player::First, "{sequence}");
        }
    }

    /// A plain grid, `grid[column][row]`, 0 empty, 1 x, 2 o: the naive reference.
    type Grid = [[u8; HEIGHT]; WIDTH];

    fn grid_of(position: &Connect4) -> Grid {
        let first = position.stones_of(Player::First);
        let mut grid = [[0; HEIGHT]; WIDTH];
        for (column, cells) in grid.iter_mut().enumerate() {
            for (row, cell) in cells.iter_mut().enumerate() {
                let bit = 1u64 << (column * COLUMN_BITS + row);
                if position.mask & bit != 0 {
                    *cell = if first & bit != 0 { 1 } else { 2 };
                }
            }
        }
        grid
    }

    /// Whether `stone` has four in a row on `grid`, by scanning every window.
    fn naive_four(grid: &Grid, stone: u8) -> bool {
        let at = |column: i32, row: i32| {
            (0..WIDTH as i32).contains(&column)
                && (0..HEIGHT as i32).contains(&row)
                && grid[column as usize][row as usize] == stone
        };
        (0..WIDTH as i32).any(|column| {
            (0..HEIGHT as i32).any(|row| {
                [(1, 0), (0, 1), (1, 1), (1, -1)]
                    .iter()
                    .any(|&(dc, dr)| (0..4).all(|k| at(column + k * dc, row + k * dr)))
            })
        })
    }

    /// Empty cells where `stone` would complete four, by trying each window through each.
    fn naive_threats(grid: &Grid, stone: u8) -> u64 {
        let mut threats = 0;
        for column in 0..WIDTH as i32 {
            for row in 0..HEIGHT as i32 {
                if grid[column as usize][row as usize] != 0 {
                    continue;
                }
                let mut trial = *grid;
                trial[column as usize][row as usize] = stone;
                let at = |c: i32, r: i32| {
                    (0..WIDTH as i32).contains(&c)
                        && (0..HEIGHT as i32).contains(&r)
                        && trial[c as usize][r as usize] == stone
                };
                let completes = [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
                    (0..4).any(|start| {
                        (0..4).all(|k| at(column + (k - start) * dc, row + (k - start) * dr))
                    })
                });
                if completes {
                    threats |= 1 << (column as usize * COLUMN_BITS + row as usize);
                }
            }
        }
        threats
    }

    #[test]
    fn bit_tricks_match_the_naive_reference() {
        let mut rng = SplitMix::new(31337);
        for _ in 0..300 {
            let mut position = Connect4::start(&());
            loop {
                let grid = grid_of(&position);
                let x_won = naive_four(&grid, 1);
                let o_won = naive_four(&grid, 2);
                assert_eq!(position.won, x_won || o_won, "{}", position.to_fen());
                assert_eq!(has_four(position.stones_of(Player::First)), x_won);
                assert_eq!(has_four(position.stones_of(Player::Second)), o_won);
                for (player, stone) in [(Player::First, 1), (Player::Second, 2)] {
                    assert_eq!(
                        threat_cells(position.stones_of(player), position.mask),
                        naive_threats(&grid, stone),
                        "{}",
                        position.to_fen()
                    );
                }
                let moves = moves_of(&position);
                if moves.is_empty() {
                    break;
                }
                position.make_move(moves[rng.below(moves.len())]);
            }
        }
    }

    #[test]
    fn full_board_draw() {
        let sequence = "765166733316344522276176717242151344354255";
        let mut position = Connect4::start(&());
        for (index, digit) in sequence.char_indices() {
            assert_eq!(position.outcome(), None);
            let grid = grid_of(&position);
            assert!(!naive_four(&grid, 1) && !naive_four(&grid, 2));
            let mv = position
                .parse_move(&sequence[index..=index])
                .expect("legal");
            assert_eq!(mv, Column(digit as u8 - b'1'));
            position.make_move(mv);
        }
        let grid = grid_of(&position);
        assert!(grid.iter().flatten().all(|&cell| cell != 0));
        assert!(!naive_four(&grid, 1) && !naive_four(&grid, 2));
        assert_eq!(position.outcome(), Some(Outcome::Draw));
        assert_eq!(position.moves_played(), 42);
        assert_eq!(position.remaining_plies_bound(), Some(0));
        assert!(moves_of(&position).is_empty());
        assert_eq!(Connect4::from_moves(sequence), Ok(position.clone()));
        assert_eq!(
            Connect4::from_fen(&(), &position.to_fen()),
            Ok(position.clone())
        );
        assert_eq!(
            position.parse_move("4"),
            Err(GameError::GameOver("4".to_string()))
        );
    }

    #[test]
    fn remaining_plies_and_ply() {
        let position = play("4453");
        assert_eq!(position.ply(), 4);
        assert_eq!(position.moves_played(), 4);
        assert_eq!(position.remaining_plies_bound(), Some(38));
        assert_eq!(position.side_to_move(), Player::First);
        assert_eq!(position.history_index(Column(6)), 6);
        assert_eq!(play("4").history_index(Column(0)), 7);
        assert!(play("4").history_index(Column(6)) < Connect4::HISTORY_SIZE);
        assert_eq!(Connect4::encode_move(Column(5)), 5);
    }

    #[test]
    fn fen_round_trips_on_random_playouts() {
        let mut rng = SplitMix::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..300 {
            let mut position = Connect4::start(&());
            loop {
                let fen = position.to_fen();
                let parsed = Connect4::from_fen(&(), &fen).expect("own FEN parses");
                assert_eq!(parsed, position, "{fen}");
                assert_eq!(parsed.hash(), position.hash());
                let moves = moves_of(&position);
                if moves.is_empty() {
                    break;
                }
                position.make_move(moves[rng.below(moves.len())]);
            }
        }
    }

    #[test]
    fn fen_examples() {
        let start = Connect4::start(&());
        assert_eq!(start.to_fen(), "7/7/7/7/7/7 x");
        assert_eq!(Connect4::from_fen(&(), "7/7/7/7/7/7 x"), Ok(start));
        let position = play("4453");
        assert_eq!(position.to_fen(), "7/7/7/7/3o3/2oxx2 x");
        assert_eq!(
            Connect4::from_fen(&(), "  7/7/7/7/3o3/2oxx2   x "),
            Ok(position.clone())
        );
        assert_eq!(
            position.render(),
            ". . . . . . .\n\
             . . . . . . .\n\
             . . . . . . .\n\
             . . . . . . .\n\
             . . . o . . .\n\
             . . o x x . .\n\
             1 2 3 4 5 6 7"
        );
        // A won position parses with the win cached.
        let won = Connect4::from_fen(&(), "7/7/7/7/ooo4/xxxx3 o").expect("won position");
        assert_eq!(won.outcome(), Some(Outcome::Loss));
        assert!(moves_of(&won).is_empty());
    }

    #[test]
    fn fen_rejections() {
        for (fen, why, expected) in [
            ("", "empty", "separated by a space"),
            (
                "7/7/7/7/7/7",
                "missing side to move",
                "separated by a space",
            ),
            ("7/7/7/7/7/7 x x", "extra field", "separated by a space"),
            ("7/7/7/7/7/7 y", "bad side to move", "side to move must be"),
            (
                "7/7/7/7/7/7 X",
                "uppercase side to move",
                "side to move must be",
            ),
            ("7/7/7/7/7 x", "five rows", "6 rows"),
            ("7/7/7/7/7/7/7 x", "seven rows", "6 rows"),
            ("7/7/7/7/7/6 x", "short row", "has 6 cells"),
            ("7/7/7/7/7/ x", "empty row", "has 0 cells"),
            ("7/7/7/7/7/8 x", "run overflow", "more than 7 cells"),
            (
                "7/7/7/7/7/x7 o",
                "run overflow after a stone",
                "more than 7 cells",
            ),
            (
                "7/7/7/7/7/xoxoxoxo x",
                "too many stones in a row",
                "more than 7 cells",
            ),
            ("7/7/7/7/7/07 x", "zero run", "run of 0"),
            ("7/7/7/7/7/a6 x", "bad character", "unexpected character"),
            ("7/7/7/7/7/X6 o", "uppercase stone", "unexpected character"),
            ("7/7/7/7/7/-1 x", "sign", "unexpected character"),
            ("7/7/7/7/x6/1o5 x", "floating stone", "floats"),
            ("x6/7/7/7/7/o6 x", "stone high in the air", "floats"),
            (
                "7/7/7/7/7/x6 x",
                "x to move after x played",
                "x to move needs",
            ),
            (
                "7/7/7/7/7/7 o",
                "o to move on the empty board",
                "o to move needs",
            ),
            ("7/7/7/7/7/xx5 o", "two x, no o", "o to move needs"),
            (
                "7/7/7/7/7/xo5 o",
                "o to move with equal counts",
                "o to move needs",
            ),
            ("7/7/7/7/oooo3/xxxx3 x", "both have four", "both players"),
            (
                "7/7/7/7/ooo4/xxxxo2 x",
                "side to move has four",
                "side to move has four",
            ),
            (
                "7/4x2/4x2/4x2/oxooxoo/xxxxooo o",
                "two wins at once",
                "one move",
            ),
        ] {
            match Connect4::from_fen(&(), fen) {
                Err(GameError::InvalidPosition { text, reason }) => {
                    assert_eq!(text, fen);
                    assert!(reason.contains(expected), "{why}: {reason}");
                }
                other => panic!("{why}: '{fen}' gave {other:?}"),
            }
        }
    }

    #[test]
    fn fen_never_panics_on_junk() {
        let mut rng = SplitMix::new(12345);
        let alphabet = b"xo0123456789/ \t-ab\xc3\xa9";
        for _ in 0..20_000 {
            let len = (rng.next_u64() % 40) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let text = String::from_utf8_lossy(&bytes);
            let _ = Connect4::from_fen(&(), &text);
            let _ = Connect4::from_moves(&text);
            let _ = Connect4::start(&()).parse_move(&text);
        }
    }

    #[test]
    fn parse_and_format_moves() {
        let start = Connect4::start(&());
        for column in 0..7u8 {
            let text = start.format_move(Column(column));
            assert_eq!(text, (column + 1).to_string());
            assert_eq!(start.parse_move(&text), Ok(Column(column)));
        }
        assert_eq!(start.parse_move(" 4\n"), Ok(Column(3)));
        for bad in [
            "", " ", "0", "8", "9", "44", "a", "-1", "+4", "4 4", "é", "٣",
        ] {
            assert_eq!(
                start.parse_move(bad),
                Err(GameError::InvalidMove(bad.to_string())),
                "{bad:?}"
            );
        }
        let full = play("444444");
        assert_eq!(
            full.parse_move("4"),
            Err(GameError::IllegalMove("4".to_string()))
        );
        assert_eq!(moves_of(&full).len(), 6);
        let won = play("1212121");
        assert_eq!(
            won.parse_move("3"),
            Err(GameError::GameOver("3".to_string()))
        );
        assert_eq!(
            won.parse_move("x"),
            Err(GameError::InvalidMove("x".to_string()))
        );
        assert_eq!(
            Connect4::from_moves("4444444"),
            Err(GameError::IllegalMove("4".to_string()))
        );
        assert_eq!(
            Connect4::from_moves("44x"),
            Err(GameError::InvalidMove("x".to_string()))
        );
        assert_eq!(Connect4::from_moves(""), Ok(Connect4::start(&())));
    }

    #[test]
    fn hashes_differ_between_positions() {
        let mut seen = std::collections::HashMap::new();
        let mut rng = SplitMix::new(777);
        for _ in 0..2_000 {
            let mut position = Connect4::start(&());
            for _ in 0..(rng.next_u64() % 20) {
                let moves = moves_of(&position);
                if moves.is_empty() {
                    break;
                }
                position.make_move(moves[rng.below(moves.len())]);
            }
            let fen = position.to_fen();
            if let Some(other) = seen.insert(position.hash(), fen.clone()) {
                assert_eq!(other, fen, "hash collision");
            }
        }
        // Transpositions share a hash.
        assert_eq!(play("4453"), play("4354"));
        assert_eq!(play("4453").hash(), play("4354").hash());
        assert_ne!(play("4453").hash(), play("5434").hash());
    }

    #[test]
    fn move_hint_orders_win_then_block() {
        // x stacked three in column 1, o three in column 2: x to move.
        let position = play("121212");
        let hint = |column: u8| position.move_hint(Column(column));
        assert!(hint(0) >= 3 * QUIET_HINT_LIMIT);
        assert!(hint(1) >= 2 * QUIET_HINT_LIMIT && hint(1) < 3 * QUIET_HINT_LIMIT);
        for column in 2..7 {
            assert!(hint(column) < QUIET_HINT_LIMIT, "column {column}");
        }
        let mut moves = moves_of(&position);
        moves.sort_by_key(|&mv| -position.move_hint(mv));
        assert_eq!(&moves[..2], &[Column(0), Column(1)]);

        // Quiet moves: centre first on the empty board.
        let start = Connect4::start(&());
        let hints: Vec<i32> = (0..7)
            .map(|column| start.move_hint(Column(column)))
            .collect();
        assert_eq!(hints, vec![0, 1, 2, 3, 2, 1, 0]);

        // o threatens row 2 of column 4: x dropping into column 4 hands o the win.
        let position = Connect4::from_fen(&(), "7/7/7/7/ooo4/xxo2xx x").expect("valid");
        assert!(position.move_hint(Column(3)) < 0, "plays under o's threat");
        assert!(position.move_hint(Column(5)) > 0);
    }

    #[test]
    fn evaluate_sanity() {
        let start = Connect4::start(&());
        assert!(start.evaluate().abs() <= 10, "{}", start.evaluate());
        // After a centre move, the second player sees itself behind.
        let after_centre = play("4");
        assert!(after_centre.evaluate() < 0);
        // x owns an odd-row threat (row 3, column 4) that is not playable yet.
        let position = Connect4::from_fen(&(), "7/7/7/xxx4/xoo4/ooxo3 x").expect("valid");
        assert!(position.evaluate() > 30, "{}", position.evaluate());
        let mut other_side = position.clone();
        other_side.make_move(Column(6));
        assert!(other_side.evaluate() < -30, "{}", other_side.evaluate());
        // Immediate wins and unstoppable double threats.
        assert_eq!(play("121212").evaluate(), WIN_SOON);
        assert_eq!(play("22334").evaluate(), -WIN_SOON);
        // Bounded everywhere on random playouts.
        let mut rng = SplitMix::new(4242);
        for _ in 0..500 {
            let mut position = Connect4::start(&());
            loop {
                assert!(position.evaluate().abs() <= EVAL_LIMIT);
                let moves = moves_of(&position);
                if moves.is_empty() {
                    break;
                }
                position.make_move(moves[rng.below(moves.len())]);
            }
        }
    }

    #[test]
    fn empty_runs_are_decimal_numbers() {
        for fen in ["7/7/7/7/7/34 x", "7/7/7/7/7/07 x", "7/7/7/7/7/x15 o"] {
            assert!(
                Connect4::from_fen(&(), fen).is_err(),
                "{fen} should be refused"
            );
        }
        assert!(Connect4::from_fen(&(), "7/7/7/7/7/3x3 o").is_ok());
    }
}
