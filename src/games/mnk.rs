//! m,n,k-games: tic-tac-toe, 4x4 four-in-a-row and other sizes (gomoku has its own module).
//!
//! Two players alternately place a stone on an empty cell of a `width` x `height` board; the
//! first to own `k` or more cells in a row (horizontally, vertically or diagonally) wins, and
//! a full board without a line is a draw. Overlines also win ("freestyle").
//!
//! The position keeps, for every "window" (`k` consecutive cells in one direction), how many
//! stones each player has in it. Making a move touches only the windows through the placed
//! stone (at most `4k`), which keeps the evaluation, the win flag and the Zobrist hash
//! incremental; the window tables themselves are built once per game and shared by clones.
//!
//! Notation: cells are named like chess squares, `a1` at the bottom left. FEN: rows from top
//! to bottom separated by `/`, `x` and `o` for stones, decimal run lengths for empty cells,
//! then the side to move, e.g. `3/3/3 x` for the empty tic-tac-toe board.

use std::fmt;
use std::sync::Arc;

use super::grid::{self, Mark};

use super::{BenchPosition, GameInfo, PieceMarks, ProtocolSettings, ToolSettings};
use crate::rng::SplitMix;
use crate::search::game::{
    ExactHooks, GameError, MoveList, Outcome, Player, Rules, SearchHooks, SearchRefinements,
    QUIET_HINT_LIMIT,
};

/// Tic-tac-toe in the registry.
pub const TICTACTOE_INFO: GameInfo = GameInfo {
    name: "tictactoe",
    aliases: &["tic-tac-toe", "3x3"],
    summary: "tic-tac-toe: 3x3, three in a row; moves are cells a1-c3",
    players: ["x", "o"],
    pieces: PieceMarks::Stones('x', 'o'),
    eval_net: None,
    tablebases: None,
    wdl: None,
    elo_scale: None,
    protocol: ProtocolSettings {
        pgn_variant: Some("tictactoe"),
        ..ProtocolSettings::NONE
    },
    tools: ToolSettings {
        bench_positions: &[
            BenchPosition::from_start(""),
            BenchPosition::from_start("b2 a1"),
            BenchPosition::from_start("a1 b2 c3"),
        ],
        bench_depth: 9,
        opening_book: "openings/tictactoe.txt",
        match_tc: "0.2+0.01",
        solvable: true,
        test_set: None,
    },
};

/// 4x4 tic-tac-toe (four in a row) in the registry.
pub const TICTACTOE4_INFO: GameInfo = GameInfo {
    name: "tictactoe4",
    aliases: &["4x4"],
    summary: "4x4, four in a row; moves are cells a1-d4",
    protocol: ProtocolSettings {
        pgn_variant: Some("tictactoe4"),
        ..TICTACTOE_INFO.protocol
    },
    tools: ToolSettings {
        bench_positions: &[
            BenchPosition::from_start("b2 c3"),
            BenchPosition::from_start("a1 b2 c3 d4 a4"),
        ],
        bench_depth: 8,
        opening_book: "openings/tictactoe4.txt",
        match_tc: "0.5+0.01",
        ..TICTACTOE_INFO.tools
    },
    ..TICTACTOE_INFO
};

/// Largest board side: 16 keeps files within `a..p` and cells within `MAX_CELLS`.
const MAX_SIDE: u8 = 16;
/// Cells of the largest board.
const MAX_CELLS: usize = 256;
/// Content of an empty cell in `Mnk::board`; stones are `player index + 1`.
const EMPTY: u8 = 0;
/// Static evaluations are clamped to this magnitude (before the tempo bonus).
const EVAL_LIMIT: i32 = 10_000;
/// Bonus for having the move.
const TEMPO: i32 = 3;
/// Value of a completed window (only seen in finished positions).
const LINE_WEIGHT: i32 = EVAL_LIMIT;
/// Geometric growth of a window's value per stone.
const WEIGHT_GROWTH: i32 = 4;
/// Cap on the geometric part of a window's value, so long lines cannot overflow.
const WEIGHT_CAP: i32 = 1024;
/// A window one stone short of a line is worth this many times its geometric value.
const THREAT_FACTOR: i32 = 10;
/// Quiet hints stay below this before they are lifted by [`QUIET_OFFSET`].
const QUIET_BAND: i32 = QUIET_HINT_LIMIT / 4;
/// Added to every quiet hint: quiet moves sit in the middle of the quiet range.
const QUIET_OFFSET: i32 = QUIET_HINT_LIMIT / 2;
/// Seed of the splitmix64 generator for the Zobrist keys.
const ZOBRIST_SEED: u64 = 0x6d6e_6b2d_6375_746f;

/// The size and line length of an m,n,k-game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MnkVariant {
    /// Number of files (columns), 1 to 16.
    pub width: u8,
    /// Number of ranks (rows), 1 to 16.
    pub height: u8,
    /// Stones in a row needed to win, 1 to `max(width, height)`.
    pub k: u8,
}

impl MnkVariant {
    /// Tic-tac-toe: 3x3, three in a row.
    pub const TICTACTOE: MnkVariant = MnkVariant {
        width: 3,
        height: 3,
        k: 3,
    };
    /// 4x4, four in a row.
    pub const TICTACTOE4: MnkVariant = MnkVariant {
        width: 4,
        height: 4,
        k: 4,
    };

    /// A checked variant: `1 <= width, height <= 16` and `1 <= k <= max(width, height)`.
    pub fn new(width: u8, height: u8, k: u8) -> Result<MnkVariant, GameError> {
        let variant = MnkVariant { width, height, k };
        match variant.problem() {
            None => Ok(variant),
            Some(reason) => Err(GameError::position(
                &format!("{width}x{height} k={k}"),
                reason,
            )),
        }
    }

    /// Whether the variant satisfies the limits [`MnkVariant::new`] checks.
    pub fn is_valid(self) -> bool {
        self.problem().is_none()
    }

    /// Number of cells on the board.
    pub fn cells(self) -> usize {
        usize::from(self.width) * usize::from(self.height)
    }

    /// What is wrong with the variant, if anything.
    fn problem(self) -> Option<String> {
        if !(1..=MAX_SIDE).contains(&self.width) || !(1..=MAX_SIDE).contains(&self.height) {
            Some(format!(
                "board sides must be between 1 and {MAX_SIDE}, got {}x{}",
                self.width, self.height
            ))
        } else if self.k == 0 || self.k > self.width.max(self.height) {
            Some(format!(
                "k must be between 1 and the longer side {}, got {}",
                self.width.max(self.height),
                self.k
            ))
        } else {
            None
        }
    }
}

/// A cell of the board: index `rank * width + file`, rank 0 at the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell(pub u8);

/// Everything that depends only on the variant, built once and shared by clones.
#[derive(Debug)]
struct Tables {
    variant: MnkVariant,
    cells: usize,
    /// The cells of each window, `k` per window.
    window_cells: Vec<u8>,
    /// Windows through cell `c`: `cell_windows[cell_start[c]..cell_start[c + 1]]`.
    cell_start: Vec<u32>,
    cell_windows: Vec<u16>,
    /// Value of a window holding `count` stones of one colour only, indexed by `count`.
    weight: [i32; MAX_SIDE as usize + 1],
    /// Small preference for central cells, per cell.
    centre: Vec<i32>,
    /// Zobrist keys per cell and player.
    zobrist: Vec<[u64; 2]>,
    /// Zobrist key XORed in when the second player is to move.
    side_key: u64,
}

/// Flattens per-cell lists into one array with offsets.
fn flatten<T: Copy>(lists: &[Vec<T>]) -> (Vec<u32>, Vec<T>) {
    let mut start = Vec::with_capacity(lists.len() + 1);
    let mut flat = Vec::new();
    start.push(0);
    for list in lists {
        flat.extend_from_slice(list);
        start.push(flat.len() as u32);
    }
    (start, flat)
}

/// The cells of every window of `k` in a row, `k` per window, and the windows through each
/// cell as offsets and a flat list.
fn windows(variant: MnkVariant) -> (Vec<u8>, Vec<u32>, Vec<u16>) {
    let (w, h, k) = sides(variant);
    // With k = 1 every direction gives the same one-cell windows, keep one.
    let directions: &[(i32, i32)] = if k == 1 {
        &[(1, 0)]
    } else {
        &[(1, 0), (0, 1), (1, 1), (1, -1)]
    };
    let mut window_cells = Vec::new();
    for &(df, dr) in directions {
        for rank in 0..h {
            for file in 0..w {
                let (end_file, end_rank) = (file + (k - 1) * df, rank + (k - 1) * dr);
                if (0..w).contains(&end_file) && (0..h).contains(&end_rank) {
                    for i in 0..k {
                        window_cells.push((file + i * df + (rank + i * dr) * w) as u8);
                    }
                }
            }
        }
    }
    let mut through = vec![Vec::new(); variant.cells()];
    for (window, members) in window_cells.chunks(k as usize).enumerate() {
        for &cell in members {
            through[usize::from(cell)].push(window as u16);
        }
    }
    let (cell_start, cell_windows) = flatten(&through);
    (window_cells, cell_start, cell_windows)
}

/// Window values by stone count: geometric in the count, a threat (k - 1) clearly above.
fn window_weights(k: usize) -> [i32; MAX_SIDE as usize + 1] {
    let mut weight = [0; MAX_SIDE as usize + 1];
    let mut geometric = 1;
    for (count, value) in weight.iter_mut().enumerate().take(k).skip(1) {
        *value = if count + 1 == k {
            geometric * THREAT_FACTOR
        } else {
            geometric
        };
        geometric = (geometric * WEIGHT_GROWTH).min(WEIGHT_CAP);
    }
    weight[k] = LINE_WEIGHT;
    weight
}

/// Centre preference per cell: doubled Manhattan distance from the centre, inverted.
fn centre_preference(variant: MnkVariant) -> Vec<i32> {
    let (w, h, _) = sides(variant);
    let mut centre = Vec::with_capacity(variant.cells());
    for rank in 0..h {
        for file in 0..w {
            let distance = (2 * file - (w - 1)).abs() + (2 * rank - (h - 1)).abs();
            centre.push((w - 1) + (h - 1) - distance);
        }
    }
    centre
}

/// Width, height and k as `i32`, for board geometry.
fn sides(variant: MnkVariant) -> (i32, i32, i32) {
    (
        i32::from(variant.width),
        i32::from(variant.height),
        i32::from(variant.k),
    )
}

impl Tables {
    /// Builds the tables of a valid variant.
    fn new(variant: MnkVariant) -> Tables {
        let cells = variant.cells();
        let (window_cells, cell_start, cell_windows) = windows(variant);
        let mut keys = SplitMix::new(ZOBRIST_SEED);
        let zobrist = (0..cells)
            .map(|_| [keys.next_u64(), keys.next_u64()])
            .collect();
        let side_key = keys.next_u64();
        Tables {
            variant,
            cells,
            window_cells,
            cell_start,
            cell_windows,
            weight: window_weights(usize::from(variant.k)),
            centre: centre_preference(variant),
            zobrist,
            side_key,
        }
    }

    /// Windows through `cell`.
    fn windows_through(&self, cell: usize) -> &[u16] {
        &self.cell_windows[self.cell_start[cell] as usize..self.cell_start[cell + 1] as usize]
    }

    /// Number of windows.
    fn window_count(&self) -> usize {
        self.window_cells.len() / usize::from(self.variant.k)
    }

    /// Value of a window with `counts` stones per player, from the first player's view.
    fn window_value(&self, counts: [u8; 2]) -> i32 {
        match counts {
            [0, 0] => 0,
            [first, 0] => self.weight[usize::from(first)],
            [0, second] => -self.weight[usize::from(second)],
            _ => 0,
        }
    }
}

/// An m,n,k-game position with incremental evaluation and hashing.
#[derive(Clone)]
pub struct Mnk {
    tables: Arc<Tables>,
    /// `EMPTY` or `player index + 1` per cell.
    board: [u8; MAX_CELLS],
    /// Stones of each player per window.
    counts: Vec<[u8; 2]>,
    /// Stones of each player on the board.
    stones: [u16; 2],
    /// Sum of the window values, first player's view.
    eval: i32,
    hash: u64,
    /// Whether the player who just moved completed a line.
    won: bool,
}

impl fmt::Debug for Mnk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mnk")
            .field("variant", &self.tables.variant)
            .field("fen", &self.to_fen())
            .field("hash", &format_args!("{:#018x}", self.hash))
            .field("eval", &self.eval)
            .finish()
    }
}

impl Mnk {
    /// The variant being played.
    pub fn variant(&self) -> MnkVariant {
        self.tables.variant
    }

    /// The stone on `cell`, if any (`None` also for cells off the board).
    pub fn stone(&self, cell: Cell) -> Option<Player> {
        // Cells past the board are always empty, so the board index alone decides.
        match self.board[usize::from(cell.0)] {
            1 => Some(Player::First),
            2 => Some(Player::Second),
            _ => None,
        }
    }

    /// The cell at `file` (0 = `a`) and `rank` (0 = bottom), if it is on the board.
    pub fn cell(&self, file: u8, rank: u8) -> Option<Cell> {
        let variant = self.tables.variant;
        (file < variant.width && rank < variant.height).then(|| {
            Cell((usize::from(rank) * usize::from(variant.width) + usize::from(file)) as u8)
        })
    }

    /// The empty board of a valid variant.
    fn empty(variant: MnkVariant) -> Mnk {
        let tables = Tables::new(variant);
        Mnk {
            counts: vec![[0; 2]; tables.window_count()],
            tables: Arc::new(tables),
            board: [EMPTY; MAX_CELLS],
            stones: [0; 2],
            eval: 0,
            hash: 0,
            won: false,
        }
    }

    /// Total stones on the board.
    fn total_stones(&self) -> usize {
        usize::from(self.stones[0] + self.stones[1])
    }

    /// Places a stone of `player` on the empty `cell`, updating everything but the side to
    /// move and the win flag; returns whether the stone completes a line.
    fn put(&mut self, cell: usize, player: usize) -> bool {
        let tables = &*self.tables;
        let k = tables.variant.k;
        self.board[cell] = player as u8 + 1;
        self.stones[player] += 1;
        self.hash ^= tables.zobrist[cell][player];
        let mut line = false;
        for &window in tables.windows_through(cell) {
            let counts = &mut self.counts[usize::from(window)];
            let before = tables.window_value(*counts);
            counts[player] += 1;
            line |= counts[player] == k;
            self.eval += tables.window_value(*counts) - before;
        }
        line
    }

    /// Takes the stone of `player` off `cell`: the inverse of [`Mnk::put`].
    fn remove(&mut self, cell: usize, player: usize) {
        let tables = &*self.tables;
        self.board[cell] = EMPTY;
        self.stones[player] -= 1;
        self.hash ^= tables.zobrist[cell][player];
        for &window in tables.windows_through(cell) {
            let counts = &mut self.counts[usize::from(window)];
            let before = tables.window_value(*counts);
            counts[player] -= 1;
            self.eval += tables.window_value(*counts) - before;
        }
    }

    /// Whether `player` owns a complete line somewhere on the board.
    fn has_line(&self, player: usize) -> bool {
        let k = self.tables.variant.k;
        self.counts.iter().any(|counts| counts[player] == k)
    }

    /// Parses a cell name such as `b2` ([`grid::parse_cell_name`]) on this board.
    fn parse_cell(&self, text: &str) -> Option<Cell> {
        let (file, rank) = grid::parse_cell_name(text)?;
        self.cell(file, rank)
    }
}

impl Rules for Mnk {
    type Move = Cell;
    type Variant = MnkVariant;

    /// The empty board; panics if the variant is not valid (see [`MnkVariant::new`]).
    fn start(variant: &MnkVariant) -> Mnk {
        assert!(
            variant.is_valid(),
            "invalid m,n,k variant {variant:?}: build it with MnkVariant::new"
        );
        Mnk::empty(*variant)
    }

    fn from_fen(variant: &MnkVariant, fen: &str) -> Result<Mnk, GameError> {
        let error = |reason: String| GameError::position(fen, reason);
        if let Some(problem) = variant.problem() {
            return Err(error(format!("invalid variant: {problem}")));
        }
        // Steps 1 and 2. The board, top row first, and the side to move, which must fit
        // the stone counts.
        let (width, height) = (usize::from(variant.width), usize::from(variant.height));
        let (marks, side) = grid::read_stone_fen(fen, width, height).map_err(error)?;

        // Step 3. Place the stones (cell `rank * width + file`, as the marks).
        let mut game = Mnk::empty(*variant);
        for (cell, &mark) in marks.iter().enumerate() {
            if let Mark::Stone(player) = mark {
                game.put(cell, player.index());
            }
        }
        if side == Player::Second {
            game.hash ^= game.tables.side_key;
        }

        // Step 4. At most the player who just moved may have a line.
        let mover = side.index();
        let (mover_line, other_line) = (game.has_line(mover), game.has_line(1 - mover));
        if mover_line && other_line {
            return Err(error("both players have a line".to_string()));
        }
        if mover_line {
            return Err(error("the side to move already has a line".to_string()));
        }
        game.won = other_line;
        Ok(game)
    }

    fn to_fen(&self) -> String {
        let variant = self.tables.variant;
        let width = usize::from(variant.width);
        let stone = |file: usize, rank: usize| match self.board[rank * width + file] {
            EMPTY => None,
            1 => Some(Player::First),
            _ => Some(Player::Second),
        };
        grid::write_fen(
            width,
            usize::from(variant.height),
            stone,
            self.side_to_move(),
        )
    }

    fn render(&self) -> String {
        let variant = self.tables.variant;
        let width = usize::from(variant.width);
        grid::draw_board(
            width,
            usize::from(variant.height),
            |file, rank| match self.board[rank * width + file] {
                EMPTY => Mark::Empty,
                1 => Mark::Stone(Player::First),
                _ => Mark::Stone(Player::Second),
            },
        )
    }

    fn side_to_move(&self) -> Player {
        if self.stones[0] == self.stones[1] {
            Player::First
        } else {
            Player::Second
        }
    }

    fn ply(&self) -> u32 {
        self.total_stones() as u32
    }

    fn generate_moves(&self, moves: &mut MoveList<Cell>) {
        if self.won {
            return;
        }
        for (cell, &stone) in self.board[..self.tables.cells].iter().enumerate() {
            if stone == EMPTY {
                moves.push(Cell(cell as u8));
            }
        }
    }

    fn make_move(&mut self, mv: Cell) {
        let cell = usize::from(mv.0);
        debug_assert!(cell < self.tables.cells && self.board[cell] == EMPTY && !self.won);
        let player = self.side_to_move().index();
        self.won = self.put(cell, player);
        self.hash ^= self.tables.side_key;
    }

    fn unmake_move(&mut self, mv: Cell) {
        let cell = usize::from(mv.0);
        debug_assert!(cell < self.tables.cells && self.board[cell] != EMPTY);
        let player = usize::from(self.board[cell] - 1);
        self.remove(cell, player);
        self.won = false;
        self.hash ^= self.tables.side_key;
    }

    fn outcome(&self) -> Option<Outcome> {
        grid::placement_outcome(self.won, self.total_stones(), self.tables.cells)
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn parse_move(&self, text: &str) -> Result<Cell, GameError> {
        let over = self.outcome().is_some();
        grid::parse_placement(
            text,
            |text| self.parse_cell(text),
            over,
            |cell| self.board[usize::from(cell.0)] != EMPTY,
        )
    }

    fn format_move(&self, mv: Cell) -> String {
        let width = self.tables.variant.width;
        let (file, rank) = (mv.0 % width, usize::from(mv.0 / width) + 1);
        format!("{}{rank}", char::from(b'a' + file))
    }
}

impl SearchHooks for Mnk {
    fn evaluate(&self) -> i32 {
        let eval = self.eval.clamp(-EVAL_LIMIT, EVAL_LIMIT);
        match self.side_to_move() {
            Player::First => eval + TEMPO,
            Player::Second => -eval + TEMPO,
        }
    }

    fn encode_move(mv: Cell) -> u16 {
        u16::from(mv.0)
    }

    const HISTORY_SIZE: usize = 2 * MAX_CELLS;

    fn history_index(&self, mv: Cell) -> usize {
        self.side_to_move().index() * MAX_CELLS + usize::from(mv.0)
    }

    /// Immediate wins first, then blocks of the opponent's immediate win, then quiet moves
    /// by the windows they extend or spoil.
    fn move_hint(&self, mv: Cell) -> i32 {
        let tables = &*self.tables;
        let cell = usize::from(mv.0);
        if cell >= tables.cells || self.board[cell] != EMPTY {
            return 0;
        }
        let own = self.side_to_move().index();
        let opponent = 1 - own;
        let threat = tables.variant.k - 1;
        let (mut wins, mut blocks, mut quiet) = (false, false, tables.centre[cell]);
        for &window in tables.windows_through(cell) {
            let counts = self.counts[usize::from(window)];
            if counts[opponent] == 0 {
                wins |= counts[own] == threat;
                quiet += tables.weight[usize::from(counts[own]) + 1];
            }
            if counts[own] == 0 {
                blocks |= counts[opponent] == threat;
                quiet += tables.weight[usize::from(counts[opponent]) + 1];
            }
        }
        quiet = quiet.min(QUIET_BAND - 1) + QUIET_OFFSET;
        if wins {
            3 * QUIET_HINT_LIMIT + quiet
        } else if blocks {
            2 * QUIET_HINT_LIMIT + quiet
        } else {
            quiet
        }
    }
}

impl SearchRefinements for Mnk {}

impl ExactHooks for Mnk {
    fn remaining_plies_bound(&self) -> Option<u32> {
        Some((self.tables.cells - self.total_stones()) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A big board (15x15, five in a row) for the tables' and notation's larger cases.
    const BIG: MnkVariant = MnkVariant {
        width: 15,
        height: 15,
        k: 5,
    };

    const VARIANTS: [MnkVariant; 3] = [MnkVariant::TICTACTOE, MnkVariant::TICTACTOE4, BIG];

    fn moves(game: &Mnk) -> MoveList<Cell> {
        let mut list = MoveList::new();
        game.generate_moves(&mut list);
        list
    }

    /// Plays space-separated moves, checking each is legal.
    fn play(game: &mut Mnk, line: &str) {
        for text in line.split_whitespace() {
            let mv = game.parse_move(text).expect(text);
            game.make_move(mv);
        }
    }

    fn played(variant: MnkVariant, line: &str) -> Mnk {
        let mut game = Mnk::start(&variant);
        play(&mut game, line);
        game
    }

    fn perft(game: &mut Mnk, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut total = 0;
        for mv in moves(game) {
            game.make_move(mv);
            total += perft(game, depth - 1);
            game.unmake_move(mv);
        }
        total
    }

    /// Everything derived from the board, recomputed from scratch.
    fn check_consistent(game: &Mnk) {
        let tables = &*game.tables;
        let k = usize::from(tables.variant.k);
        let mut hash = 0;
        let mut stones = [0u16; 2];
        for cell in 0..tables.cells {
            if game.board[cell] != EMPTY {
                let player = usize::from(game.board[cell] - 1);
                hash ^= tables.zobrist[cell][player];
                stones[player] += 1;
            }
        }
        assert!(game.board[tables.cells..].iter().all(|&c| c == EMPTY));
        if game.side_to_move() == Player::Second {
            hash ^= tables.side_key;
        }
        assert_eq!(game.hash, hash, "hash of {}", game.to_fen());
        assert_eq!(game.stones, stones);
        let mut eval = 0;
        for (window, members) in tables.window_cells.chunks(k).enumerate() {
            let mut counts = [0u8; 2];
            for &cell in members {
                if game.board[usize::from(cell)] != EMPTY {
                    counts[usize::from(game.board[usize::from(cell)] - 1)] += 1;
                }
            }
            assert_eq!(game.counts[window], counts);
            eval += tables.window_value(counts);
        }
        assert_eq!(game.eval, eval, "eval of {}", game.to_fen());
        let mover = 1 - game.side_to_move().index();
        if game.total_stones() > 0 {
            assert_eq!(
                game.won,
                game.has_line(mover),
                "win flag of {}",
                game.to_fen()
            );
        }
        assert!(game.evaluate().abs() <= EVAL_LIMIT + TEMPO);
    }

    /// A snapshot of what unmake must restore.
    fn snapshot(game: &Mnk) -> (u64, i32, String, bool) {
        (game.hash(), game.evaluate(), game.to_fen(), game.won)
    }

    #[test]
    fn tictactoe_perft() {
        let expected = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872];
        let mut game = Mnk::start(&MnkVariant::TICTACTOE);
        for (depth, &count) in expected.iter().enumerate() {
            assert_eq!(
                perft(&mut game, depth as u32 + 1),
                count,
                "depth {}",
                depth + 1
            );
        }
        assert_eq!(perft(&mut game, 10), 0);
        assert_eq!(1 + expected.iter().sum::<u64>(), 549_946);
    }

    /// Walks the whole game tree, checking make/unmake restores everything at each node.
    fn walk(game: &mut Mnk) -> u64 {
        let before = snapshot(game);
        let mut nodes = 1;
        for mv in moves(game) {
            game.make_move(mv);
            nodes += walk(game);
            game.unmake_move(mv);
            assert_eq!(snapshot(game), before);
        }
        nodes
    }

    #[test]
    fn tictactoe_full_walk_restores() {
        let mut game = Mnk::start(&MnkVariant::TICTACTOE);
        assert_eq!(walk(&mut game), 549_946);
        check_consistent(&game);
    }

    #[test]
    fn random_walks_restore_and_match_recomputation() {
        let mut rng = SplitMix::new(0x1234_5678_9abc_def1);
        for variant in VARIANTS {
            for _ in 0..20 {
                let mut game = Mnk::start(&variant);
                let mut line = Vec::new();
                let mut snapshots = vec![snapshot(&game)];
                loop {
                    check_consistent(&game);
                    let list = moves(&game);
                    if list.is_empty() {
                        assert!(game.outcome().is_some());
                        break;
                    }
                    assert!(game.outcome().is_none());
                    assert_eq!(game.remaining_plies_bound(), Some(list.len() as u32));
                    let mv = list[rng.below(list.len())];
                    game.make_move(mv);
                    line.push(mv);
                    snapshots.push(snapshot(&game));
                }
                while let Some(mv) = line.pop() {
                    assert_eq!(snapshots.pop().as_ref(), Some(&snapshot(&game)));
                    game.unmake_move(mv);
                }
                assert_eq!(snapshot(&game), snapshot(&Mnk::start(&variant)));
            }
        }
    }

    #[test]
    fn start_positions() {
        let game = Mnk::start(&MnkVariant::TICTACTOE);
        assert_eq!(game.to_fen(), "3/3/3 x");
        assert_eq!(game.side_to_move(), Player::First);
        assert_eq!(game.ply(), 0);
        assert_eq!(game.outcome(), None);
        assert_eq!(game.remaining_plies_bound(), Some(9));
        assert_eq!(game.variant(), MnkVariant::TICTACTOE);
        let gomoku = Mnk::start(&BIG);
        assert_eq!(gomoku.to_fen(), format!("{} x", vec!["15"; 15].join("/")));
        assert_eq!(moves(&gomoku).len(), 225);
        assert_eq!(Mnk::start(&MnkVariant::TICTACTOE4).to_fen(), "4/4/4/4 x");
    }

    #[test]
    fn variants_are_checked() {
        assert_eq!(MnkVariant::new(3, 3, 3), Ok(MnkVariant::TICTACTOE));
        assert_eq!(MnkVariant::new(15, 15, 5), Ok(BIG));
        assert!(MnkVariant::new(16, 16, 16).is_ok());
        assert!(MnkVariant::new(1, 1, 1).is_ok());
        assert!(MnkVariant::new(7, 1, 7).is_ok());
        for (w, h, k) in [
            (0, 3, 3),
            (3, 0, 3),
            (17, 3, 3),
            (3, 17, 3),
            (3, 3, 0),
            (3, 3, 4),
        ] {
            assert!(MnkVariant::new(w, h, k).is_err(), "{w}x{h} k={k}");
        }
        let bad = MnkVariant {
            width: 17,
            height: 3,
            k: 3,
        };
        assert!(Mnk::from_fen(&bad, "17/17/17 x").is_err());
    }

    #[test]
    fn odd_variants_play_out() {
        let mut rng = SplitMix::new(99);
        for (w, h, k) in [
            (1, 1, 1),
            (2, 1, 1),
            (5, 1, 3),
            (1, 4, 2),
            (16, 16, 16),
            (7, 6, 4),
        ] {
            let variant = MnkVariant::new(w, h, k).expect("valid");
            let mut game = Mnk::start(&variant);
            while game.outcome().is_none() {
                check_consistent(&game);
                let list = moves(&game);
                let mv = list[rng.below(list.len())];
                let fen = game.to_fen();
                assert_eq!(Mnk::from_fen(&variant, &fen).map(|g| g.to_fen()), Ok(fen));
                game.make_move(mv);
            }
            check_consistent(&game);
            if k == 1 {
                assert_eq!(game.outcome(), Some(Outcome::Loss));
                assert_eq!(game.ply(), 1);
            }
        }
    }

    #[test]
    fn wins_in_every_direction() {
        let v = MnkVariant::TICTACTOE;
        for line in [
            "a1 a2 b1 b2 c1",    // horizontal
            "b1 a1 b2 a2 b3",    // vertical
            "a1 a2 b2 a3 c3",    // diagonal
            "c1 a1 b2 a2 a3",    // anti-diagonal
            "a2 a1 b2 b1 a3 c1", // second player, horizontal
        ] {
            let game = played(v, line);
            assert_eq!(game.outcome(), Some(Outcome::Loss), "{line}");
            assert!(moves(&game).is_empty(), "{line}");
            let last = line.split_whitespace().last().unwrap_or_default();
            assert_eq!(
                game.parse_move("c2"),
                Err(GameError::GameOver("c2".to_string()))
            );
            let mut before = game.clone();
            before.unmake_move(before.parse_cell(last).expect("cell"));
            assert_eq!(before.outcome(), None);
        }
        // Gomoku: a vertical five and a diagonal five.
        let game = played(BIG, "h1 a15 h2 b15 h3 c15 h4 d15 h5");
        assert_eq!(game.outcome(), Some(Outcome::Loss));
        let game = played(BIG, "c3 a15 d4 b15 e5 c15 f6 d15 g7");
        assert_eq!(game.outcome(), Some(Outcome::Loss));
        // An overline: x fills e1 between a1-d1 and f1 to make six.
        let mut game = played(BIG, "a1 a15 b1 b15 c1 c15 d1 e15 f1 f15");
        assert_eq!(game.outcome(), None);
        play(&mut game, "e1");
        assert_eq!(game.outcome(), Some(Outcome::Loss));
        assert!(moves(&game).is_empty());
        check_consistent(&game);
        // A 4x4 anti-diagonal.
        let game = played(MnkVariant::TICTACTOE4, "a4 a1 b3 b1 c2 c1 d1");
        assert_eq!(game.outcome(), Some(Outcome::Loss));
    }

    #[test]
    fn full_board_is_a_draw() {
        let mut game = Mnk::start(&MnkVariant::TICTACTOE);
        for (i, text) in ["a3", "b3", "c3", "b2", "a2", "c2", "b1", "a1", "c1"]
            .iter()
            .enumerate()
        {
            assert_eq!(game.outcome(), None, "after {i} moves");
            play(&mut game, text);
        }
        assert_eq!(game.outcome(), Some(Outcome::Draw));
        assert_eq!(game.to_fen(), "xox/xoo/oxx o");
        assert!(moves(&game).is_empty());
        assert_eq!(game.remaining_plies_bound(), Some(0));
        assert_eq!(game.ply(), 9);
        assert_eq!(
            game.parse_move("a1"),
            Err(GameError::GameOver("a1".to_string()))
        );
    }

    #[test]
    fn fen_round_trips() {
        let mut rng = SplitMix::new(0xdead_beef_cafe_f00d);
        for variant in VARIANTS {
            for _ in 0..20 {
                let mut game = Mnk::start(&variant);
                loop {
                    let fen = game.to_fen();
                    let parsed = Mnk::from_fen(&variant, &fen).expect(&fen);
                    assert_eq!(parsed.to_fen(), fen);
                    assert_eq!(parsed.hash(), game.hash());
                    assert_eq!(parsed.evaluate(), game.evaluate());
                    assert_eq!(parsed.outcome(), game.outcome());
                    assert_eq!(parsed.side_to_move(), game.side_to_move());
                    assert_eq!(parsed.ply(), game.ply());
                    assert_eq!(moves(&parsed), moves(&game));
                    check_consistent(&parsed);
                    let list = moves(&game);
                    if list.is_empty() {
                        break;
                    }
                    game.make_move(list[rng.below(list.len())]);
                }
            }
        }
        let spaced = Mnk::from_fen(&MnkVariant::TICTACTOE, "  x2/1o1/x2   o ").expect("spaced");
        assert_eq!(spaced.to_fen(), "x2/1o1/x2 o");
        let won = Mnk::from_fen(&MnkVariant::TICTACTOE, "xxx/oo1/3 o").expect("won");
        assert_eq!(won.outcome(), Some(Outcome::Loss));
        assert!(moves(&won).is_empty());
        let gomoku =
            Mnk::from_fen(&BIG, &format!("{}/x14 o", vec!["15"; 14].join("/"))).expect("gomoku");
        assert_eq!(gomoku.stone(Cell(0)), Some(Player::First));
        assert_eq!(gomoku.stone(Cell(1)), None);
    }

    #[test]
    fn bad_fens_are_rejected() {
        let ttt = MnkVariant::TICTACTOE;
        for fen in [
            "",
            "3/3/3",
            "3/3/3 x extra",
            "3/3 x",
            "3/3/3/3 x",
            "3/3/4 x",
            "3/3/2 x",
            "3/3/xxxx x",
            "3/3/03 x",
            "3/3/003 x",
            "3/3/0x2 x",
            "3/3/x02 x",
            "3/3/12 x",
            "3/3/99999999999999999999999999 x",
            "3/3/x99999999999999999999999999 x",
            "3/3/3 X",
            "3/3/3 -",
            "3/3/3 xo",
            "3/3/y2 x",
            "3/3/é2 x",
            "3/3/X2 x",
            "3//3 x",
            "3/3/3/ x",
            "3/3/3x",
            "x2/3/3 x",
            "3/3/3 o",
            "xx1/3/3 o",
            "x2/o2/3 o",
            "o2/3/3 o",
            "xxx/ooo/3 x",
            "xxx/ooo/x2 o",
            "xxx/oo1/3 x",
            "xxx/oo1/o2 x",
            "3/3/3 x\n3/3/3 x",
        ] {
            let result = Mnk::from_fen(&ttt, fen);
            assert!(
                matches!(result, Err(GameError::InvalidPosition { .. })),
                "{fen:?} gave {result:?}"
            );
        }
        let reason = |fen: &str| match Mnk::from_fen(&ttt, fen) {
            Err(GameError::InvalidPosition { reason, .. }) => reason,
            other => panic!("{fen:?} gave {other:?}"),
        };
        assert!(reason("xxx/oo1/o2 x").contains("side to move"));
        assert!(reason("xxx/ooo/x2 o").contains("both players"));
        assert!(reason("xx1/3/3 o").contains("do not fit"));
        assert!(reason("3/3/12 x").contains("longer"));
        assert!(reason("3/3/03 x").contains("zero"));
        let gomoku = BIG;
        assert!(Mnk::from_fen(&gomoku, "3/3/3 x").is_err());
        assert!(Mnk::from_fen(&gomoku, &format!("{}/78 x", vec!["15"; 14].join("/"))).is_err());
        assert!(Mnk::from_fen(&gomoku, &format!("{}/96 x", vec!["15"; 14].join("/"))).is_err());
        let fen = format!("{}/1{} x", vec!["15"; 14].join("/"), "1".repeat(14));
        assert!(Mnk::from_fen(&gomoku, &fen).is_err());
    }

    #[test]
    fn every_cell_round_trips_through_notation() {
        for variant in VARIANTS {
            let game = Mnk::start(&variant);
            for cell in 0..variant.cells() {
                let mv = Cell(cell as u8);
                let text = game.format_move(mv);
                assert_eq!(game.parse_move(&text), Ok(mv), "{text}");
                assert_eq!(game.parse_move(&format!(" {text}\n")), Ok(mv), "{text}");
            }
        }
        let big = Mnk::start(&MnkVariant::new(16, 16, 5).expect("valid"));
        assert_eq!(big.format_move(Cell(255)), "p16");
        assert_eq!(big.parse_move("p16"), Ok(Cell(255)));
    }

    #[test]
    fn move_text_errors() {
        let game = played(MnkVariant::TICTACTOE, "b2");
        assert_eq!(game.format_move(Cell(4)), "b2");
        assert_eq!(game.format_move(Cell(0)), "a1");
        assert_eq!(game.format_move(Cell(8)), "c3");
        assert_eq!(
            game.parse_move("b2"),
            Err(GameError::IllegalMove("b2".to_string()))
        );
        for text in [
            "",
            " ",
            "z9",
            "a0",
            "a",
            "1",
            "a1x",
            "a01",
            "d1",
            "a4",
            "A1",
            "1a",
            "a-1",
            "a+1",
            "é1",
            "a1 b1",
            "a99999999999999999999",
            "a١",
        ] {
            assert_eq!(
                game.parse_move(text),
                Err(GameError::InvalidMove(text.trim().to_string())),
                "{text:?}"
            );
        }
        let gomoku = Mnk::start(&BIG);
        assert_eq!(gomoku.parse_move("o15"), Ok(Cell(224)));
        for text in ["p1", "a16", "a015", "o0"] {
            assert!(
                matches!(gomoku.parse_move(text), Err(GameError::InvalidMove(_))),
                "{text}"
            );
        }
    }

    #[test]
    fn rendering() {
        let game = played(MnkVariant::TICTACTOE, "a1 b2 c3");
        assert_eq!(game.render(), "3 . . x\n2 . o .\n1 x . .\n  a b c");
        let gomoku = played(BIG, "a1 o15");
        let text = gomoku.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 16);
        assert_eq!(lines[0], format!("15 {}o", ". ".repeat(14)));
        assert_eq!(lines[14], format!(" 1 x{}", " .".repeat(14)));
        assert_eq!(lines[15], "   a b c d e f g h i j k l m n o");
        assert!(!text.ends_with('\n'));
    }

    /// Moves sorted by hint, best first.
    fn ordered(game: &Mnk) -> Vec<String> {
        let mut list: Vec<Cell> = moves(game).to_vec();
        list.sort_by_key(|&mv| std::cmp::Reverse(game.move_hint(mv)));
        list.iter().map(|&mv| game.format_move(mv)).collect()
    }

    #[test]
    fn hints_rank_wins_then_blocks() {
        // x to move: c1 wins, c2 blocks o's row.
        let game = Mnk::from_fen(&MnkVariant::TICTACTOE, "3/oo1/xx1 x").expect("fen");
        let order = ordered(&game);
        assert_eq!(&order[..2], ["c1", "c2"]);
        assert!(game.move_hint(Cell(2)) >= 3 * QUIET_HINT_LIMIT);
        assert!(game.move_hint(Cell(5)) >= 2 * QUIET_HINT_LIMIT);
        assert!(game.move_hint(Cell(8)) < QUIET_HINT_LIMIT);
        // o to move: only a block (c3) is urgent.
        let game = Mnk::from_fen(&MnkVariant::TICTACTOE, "3/1o1/xx1 o").expect("fen");
        assert_eq!(ordered(&game)[0], "c1");
        // Gomoku: o has four on rank 15, x has four on rank 1 and is to move.
        let game = played(BIG, "g1 g15 h1 h15 i1 i15 j1 j15");
        let order = ordered(&game);
        assert!(order[..2].contains(&"f1".to_string()) && order[..2].contains(&"k1".to_string()));
        assert!(
            order[2..4].contains(&"f15".to_string()) && order[2..4].contains(&"k15".to_string())
        );
        // Quiet moves: the centre first on an empty board.
        let game = played(BIG, "h8");
        assert!(game.move_hint(game.parse_move("i9").expect("i9")) < QUIET_HINT_LIMIT);
        assert_eq!(ordered(&Mnk::start(&BIG))[0], "h8");
        assert_eq!(ordered(&Mnk::start(&MnkVariant::TICTACTOE))[0], "b2");
    }

    #[test]
    fn history_and_encoding() {
        let game = played(BIG, "h8");
        assert_eq!(Mnk::encode_move(Cell(224)), 224);
        assert_eq!(game.history_index(Cell(3)), 256 + 3);
        assert!(game.history_index(Cell(255)) < Mnk::HISTORY_SIZE);
        assert_eq!(Mnk::HISTORY_SIZE, 512);
        assert_eq!(game.ply(), 1);
        assert_eq!(game.side_to_move(), Player::Second);
    }

    #[test]
    fn evaluation_is_bounded_and_sensible() {
        // x in the centre is better for x; the evaluation is from the side to move's view.
        let game = played(MnkVariant::TICTACTOE, "b2");
        assert!(game.evaluate() < 0);
        let game = played(BIG, "h8 a1");
        assert!(game.evaluate() > 0);
        // A crowded random gomoku board stays within bounds.
        let mut rng = SplitMix::new(7);
        let mut game = Mnk::start(&BIG);
        while game.outcome().is_none() {
            assert!(game.evaluate().abs() <= EVAL_LIMIT + TEMPO);
            let list = moves(&game);
            game.make_move(list[rng.below(list.len())]);
        }
    }
}
