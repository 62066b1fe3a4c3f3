//! Syzygy endgame tables for chess: opening a `SyzygyPath`, and the win/draw/loss and
//! distance-to-zeroing probes the search asks ([`Tables::probe_wdl`], [`Tables::rank_root`]).
//!
//! The probing code is the `pyrrhic-rs` crate (MIT: a Rust transliteration of Pyrrhic and
//! Fathom, the prober most engines ship), fed with `cozy-chess`'s attack tables. Two things
//! of that crate shape this module:
//! - it keeps the loaded tables in process-wide state and allows one set at a time, so
//!   [`open`] hands out one shared [`Tables`] per process (every session and Lazy SMP
//!   thread probes the same one, read-only, without a lock), and refuses another path while
//!   that one is in use;
//! - it trusts the files it maps (a truncated one is read past its end), so [`open`] checks
//!   every table file first: its name, its magic number and its size (Syzygy files are a
//!   multiple of 64 bytes plus 16, and hold at least their header), and refuses the whole
//!   path on the first bad file, directory or entry, saying which and why;
//! - it counts every table name as present whether its file exists or not (a missing file
//!   only fails when probed), so the largest number of pieces is this module's count of the
//!   files found, and the search asks nothing beyond it.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard,
    Board, Color, Move, Piece, Square,
};
use pyrrhic_rs::{DtzProbeValue, EngineAdapter, TBError, TableBases, WdlProbeResult};
use thiserror::Error;

use crate::search::{MoveList, Outcome};

/// The magic number at the start of a win/draw/loss table (`.rtbw`).
const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
/// The magic number at the start of a distance-to-zeroing table (`.rtbz`).
const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];
/// The most pieces a Syzygy table holds.
pub const MAX_PIECES: u32 = 7;

/// Why a `SyzygyPath` was refused (the engine then goes on without tables).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SyzygyError {
    /// An entry of the `:`-separated list holds a character no path may hold.
    #[error("'{0}' is not a directory name")]
    BadEntry(String),
    /// An entry is not a directory that can be read.
    #[error("directory '{dir}' cannot be read: {reason}")]
    BadDirectory {
        /// The entry.
        dir: String,
        /// What the system said.
        reason: String,
    },
    /// A table file is unreadable, foreign or truncated.
    #[error("table file '{file}' {reason}")]
    BadFile {
        /// The file.
        file: String,
        /// What is wrong with it.
        reason: String,
    },
    /// None of the directories holds a table.
    #[error("no Syzygy table (.rtbw, .rtbz) in {0}")]
    NoTables(String),
    /// Other tables are in use in this process (another session's `SyzygyPath`).
    #[error("the tables of '{0}' are still in use; set SyzygyPath to <empty> there first")]
    Busy(String),
    /// The prober refused the tables.
    #[error("the prober could not open the tables ({0:?})")]
    Prober(TBError),
}

/// `cozy-chess`'s attack tables as `pyrrhic-rs` asks for them.
#[derive(Copy, Clone, Debug)]
pub struct CozyAdapter;

impl EngineAdapter for CozyAdapter {
    fn pawn_attacks(color: pyrrhic_rs::Color, square: u64) -> u64 {
        let color = match color {
            pyrrhic_rs::Color::White => Color::White,
            pyrrhic_rs::Color::Black => Color::Black,
        };
        get_pawn_attacks(Square::index(square as usize), color).0
    }
    fn knight_attacks(square: u64) -> u64 {
        get_knight_moves(Square::index(square as usize)).0
    }
    fn bishop_attacks(square: u64, occupied: u64) -> u64 {
        get_bishop_moves(Square::index(square as usize), BitBoard(occupied)).0
    }
    fn rook_attacks(square: u64, occupied: u64) -> u64 {
        get_rook_moves(Square::index(square as usize), BitBoard(occupied)).0
    }
    fn queen_attacks(square: u64, occupied: u64) -> u64 {
        Self::bishop_attacks(square, occupied) | Self::rook_attacks(square, occupied)
    }
    fn king_attacks(square: u64) -> u64 {
        get_king_moves(Square::index(square as usize)).0
    }
}

/// The Syzygy tables of one `SyzygyPath`, shared by every position and thread.
pub struct Tables {
    /// The prober's handle (`None` only while being dropped).
    handle: Option<TableBases<CozyAdapter>>,
    /// The path they were opened from, as given.
    path: String,
    /// Win/draw/loss and distance-to-zeroing files found.
    files: (usize, usize),
    /// The most pieces (kings included) of a win/draw/loss table found.
    max_pieces: u32,
}

impl std::fmt::Debug for Tables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tables({})", self.path)
    }
}

/// The tables open in this process, by path: the prober allows one set at a time.
static OPEN: Mutex<Option<(String, Weak<Tables>)>> = Mutex::new(None);

impl Drop for Tables {
    fn drop(&mut self) {
        // Freed under the lock, so that `open` never sees the prober half torn down.
        let _open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        self.handle.take();
    }
}

/// A table's win/draw/loss value for the side to move, with the fifty-move rule counted
/// from the last capture or pawn move.
pub type Wdl = WdlProbeResult;

/// Opens the tables of `path`, directories separated by `:`; empty entries are skipped.
/// Every table file is checked first; the first problem refuses the whole path.
pub fn open(path: &str) -> Result<Arc<Tables>, SyzygyError> {
    let dirs: Vec<&str> = path.split(':').filter(|d| !d.trim().is_empty()).collect();
    let mut found = Found::default();
    for dir in &dirs {
        check_directory(dir, &mut found)?;
    }
    let (files, max_pieces) = ((found.wdl, found.dtz), found.max_pieces);
    if max_pieces == 0 {
        return Err(SyzygyError::NoTables(format!("'{path}'")));
    }
    let canonical = dirs.join(":");
    for _ in 0..1000 {
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        let current = open
            .as_ref()
            .and_then(|(p, weak)| Some((p.clone(), weak.upgrade()?)));
        if let Some((current_path, tables)) = current {
            drop(open);
            return if current_path == canonical {
                Ok(tables)
            } else {
                Err(SyzygyError::Busy(current_path))
            };
        }
        match TableBases::<CozyAdapter>::new(&canonical) {
            Ok(handle) => {
                let tables = Arc::new(Tables {
                    handle: Some(handle),
                    path: canonical.clone(),
                    files,
                    max_pieces,
                });
                *open = Some((canonical, Arc::downgrade(&tables)));
                return Ok(tables);
            }
            // The last user of other tables is freeing them: let it take the lock.
            Err(TBError::AlreadyInitialized) => drop(open),
            Err(e) => return Err(SyzygyError::Prober(e)),
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    Err(SyzygyError::Prober(TBError::AlreadyInitialized))
}

/// What the checked directories hold.
#[derive(Default)]
struct Found {
    /// Win/draw/loss table files.
    wdl: usize,
    /// Distance-to-zeroing table files.
    dtz: usize,
    /// The most pieces of a win/draw/loss table.
    max_pieces: u32,
}

/// Checks the table files of `dir`, counting them into `found`; the first problem if any.
fn check_directory(dir: &str, found: &mut Found) -> Result<(), SyzygyError> {
    if dir.chars().any(|c| c == '\0' || c.is_control()) {
        return Err(SyzygyError::BadEntry(dir.escape_debug().to_string()));
    }
    let entries = fs::read_dir(dir).map_err(|e| SyzygyError::BadDirectory {
        dir: dir.to_string(),
        reason: e.to_string(),
    })?;
    for entry in entries.flatten() {
        let path = entry.path();
        let Some((magic, pieces)) = table_kind(&path) else {
            continue;
        };
        check_file(&path, magic).map_err(|reason| SyzygyError::BadFile {
            file: path.display().to_string(),
            reason,
        })?;
        if magic == WDL_MAGIC {
            found.wdl += 1;
            found.max_pieces = found.max_pieces.max(pieces);
        } else {
            found.dtz += 1;
        }
    }
    Ok(())
}

/// The magic number a file named like a table must start with (`KQvKR.rtbw`) and the
/// table's number of pieces; `None` for any other file (the prober opens only table names).
fn table_kind(path: &Path) -> Option<([u8; 4], u32)> {
    let magic = match path.extension()?.to_str()? {
        "rtbw" => WDL_MAGIC,
        "rtbz" => DTZ_MAGIC,
        _ => return None,
    };
    let stem = path.file_stem()?.to_str()?;
    let (white, black) = stem.split_once('v')?;
    let side = |s: &str| {
        s.starts_with('K')
            && s[1..]
                .chars()
                .all(|c| matches!(c, 'Q' | 'R' | 'B' | 'N' | 'P'))
    };
    let pieces = (white.len() + black.len()) as u32;
    (side(white) && side(black) && (3..=MAX_PIECES).contains(&pieces)).then_some((magic, pieces))
}

/// Whether the table file at `path` has the `magic` number and a table's size; the reason
/// when not.
fn check_file(path: &PathBuf, magic: [u8; 4]) -> Result<(), String> {
    let mut file = fs::File::open(path).map_err(|e| format!("cannot be read: {e}"))?;
    let size = file
        .metadata()
        .map_err(|e| format!("cannot be read: {e}"))?
        .len();
    let mut head = [0u8; 4];
    if size < 64 || file.read_exact(&mut head).is_err() {
        return Err(format!("is truncated ({size} bytes)"));
    }
    if head != magic {
        return Err("is not a Syzygy table (wrong magic number)".to_string());
    }
    if size % 64 != 16 {
        return Err(format!(
            "is truncated or damaged ({size} bytes, not a multiple of 64 plus 16)"
        ));
    }
    Ok(())
}

/// How one root move keeps the root's value, by the distance-to-zeroing tables.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RootMoveRank {
    /// The move.
    pub mv: Move,
    /// Its value for the side to move at the root (the fifty-move rule counted from the
    /// root's clock).
    pub wdl: Wdl,
    /// Plies to the next capture or pawn move (or mate) with best play.
    pub dtz: u16,
}

impl Tables {
    /// The largest number of pieces (kings included) of the tables found.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// What `SyzygyPath` found: `N WDL and M DTZ tables, up to P pieces, in PATH`.
    pub fn describe(&self) -> String {
        format!(
            "{} WDL and {} DTZ tables, up to {} pieces, in {}",
            self.files.0,
            self.files.1,
            self.max_pieces(),
            self.path
        )
    }

    /// The table's value of `board` for the side to move; `None` when no table holds it,
    /// or it has castling rights (which no table has). Meant right after a capture or a
    /// pawn move: the value counts the fifty-move rule from there.
    pub fn probe_wdl(&self, board: &Board) -> Option<Wdl> {
        let handle = self.handle.as_ref()?;
        let p = Probe::of(board, self.max_pieces())?;
        handle
            .probe_wdl(
                p.white,
                p.black,
                p.kings,
                p.queens,
                p.rooks,
                p.bishops,
                p.knights,
                p.pawns,
                p.ep,
                p.white_to_move,
            )
            .ok()
    }

    /// Every legal move of `board` with its value and distance to zeroing for the side to
    /// move, by the distance-to-zeroing tables and the board's fifty-move clock; `None`
    /// when they do not hold the position or a move (a missing `.rtbz` file).
    pub fn rank_root(&self, board: &Board) -> Option<Vec<RootMoveRank>> {
        let handle = self.handle.as_ref()?;
        let p = Probe::of(board, self.max_pieces())?;
        let rule50 = u32::from(board.halfmove_clock());
        let probe = handle
            .probe_root(
                p.white,
                p.black,
                p.kings,
                p.queens,
                p.rooks,
                p.bishops,
                p.knights,
                p.pawns,
                rule50,
                p.ep,
                p.white_to_move,
            )
            .ok()?;
        let mut ranks = Vec::new();
        for value in &probe.moves[..probe.num_moves] {
            let DtzProbeValue::DtzResult(result) = value else {
                return None;
            };
            let promotion = match result.promotion {
                pyrrhic_rs::Piece::Queen => Some(Piece::Queen),
                pyrrhic_rs::Piece::Rook => Some(Piece::Rook),
                pyrrhic_rs::Piece::Bishop => Some(Piece::Bishop),
                pyrrhic_rs::Piece::Knight => Some(Piece::Knight),
                _ => None,
            };
            let mv = Move {
                from: Square::index(usize::from(result.from_square)),
                to: Square::index(usize::from(result.to_square)),
                promotion,
            };
            ranks.push(RootMoveRank {
                mv,
                wdl: result.wdl,
                dtz: result.dtz,
            });
        }
        Some(ranks)
    }
}

/// A board as the prober takes it.
struct Probe {
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    white_to_move: bool,
}

impl Probe {
    /// `board` for the prober; `None` with more than `max_pieces` pieces, castling rights,
    /// or kings side by side (`cozy-chess` takes such a FEN; the prober would read past its
    /// tables looking for a king taken).
    fn of(board: &Board, max_pieces: u32) -> Option<Probe> {
        if board.occupied().len() > max_pieces || has_castling_rights(board) {
            return None;
        }
        let white_king = board.king(Color::White);
        if get_king_moves(white_king).has(board.king(Color::Black)) {
            return None;
        }
        let white_to_move = board.side_to_move() == Color::White;
        let ep = board.en_passant().map_or(0, |file| {
            let rank = if white_to_move { 5 } else { 2 };
            rank * 8 + file as u32
        });
        Some(Probe {
            white: board.colors(Color::White).0,
            black: board.colors(Color::Black).0,
            kings: board.pieces(Piece::King).0,
            queens: board.pieces(Piece::Queen).0,
            rooks: board.pieces(Piece::Rook).0,
            bishops: board.pieces(Piece::Bishop).0,
            knights: board.pieces(Piece::Knight).0,
            pawns: board.pieces(Piece::Pawn).0,
            ep,
            white_to_move,
        })
    }
}

/// Whether either side may still castle (no table holds such a position).
pub fn has_castling_rights(board: &Board) -> bool {
    [Color::White, Color::Black].into_iter().any(|color| {
        let rights = board.castle_rights(color);
        rights.short.is_some() || rights.long.is_some()
    })
}

/// The Syzygy tables a search asks, and how (`SyzygyProbeDepth`, `Syzygy50MoveRule`,
/// `SyzygyProbeLimit`).
#[derive(Clone, Debug)]
pub struct TablebaseProbing {
    /// The tables, shared by every position and thread.
    pub tables: Arc<Tables>,
    /// Nodes with fewer plies left than this are not probed (unless they have fewer pieces
    /// than `pieces`).
    pub depth: i32,
    /// Whether the fifty-move rule turns cursed wins and blessed losses into draws.
    pub rule50: bool,
    /// The most pieces of a probed position: the option's limit or the tables' largest.
    pub pieces: u32,
}

impl PartialEq for TablebaseProbing {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.tables, &other.tables)
            && (self.depth, self.rule50, self.pieces) == (other.depth, other.rule50, other.pieces)
    }
}

impl Eq for TablebaseProbing {}

impl TablebaseProbing {
    /// The outcome a table's value stands for, the fifty-move rule counted or not.
    pub fn outcome(&self, wdl: Wdl) -> Outcome {
        match wdl {
            Wdl::Win => Outcome::Win,
            Wdl::Loss => Outcome::Loss,
            Wdl::CursedWin if !self.rule50 => Outcome::Win,
            Wdl::BlessedLoss if !self.rule50 => Outcome::Loss,
            _ => Outcome::Draw,
        }
    }
}

/// Keeps of the root `moves` those of the best rank by `ranked` (a win first, the shortest
/// distance to zeroing among wins and the longest among losses, so that a win is kept under
/// the fifty-move rule), and returns the outcome they keep; `None` (moves untouched) when a
/// move has no rank.
pub fn keep_best(
    probing: &TablebaseProbing,
    ranked: &[RootMoveRank],
    moves: &mut MoveList<Move>,
) -> Option<Outcome> {
    let rank_of = |mv: Move| ranked.iter().find(|r| r.mv == mv).map(|r| rank(probing, r));
    let mut best = None;
    for &mv in moves.iter() {
        best = best.max(Some(rank_of(mv)?));
    }
    let best = best?;
    moves.retain(|mv| rank_of(*mv) == Some(best));
    let ranked_best = ranked.iter().find(|r| rank(probing, r) == best)?;
    Some(probing.outcome(ranked_best.wdl))
}

/// How good a root move is (higher is better): its class (win, cursed win, draw, blessed
/// loss, loss, the cursed ones merged with the others when the fifty-move rule is off),
/// then its distance to zeroing: the shorter the better in a win, the longer in a loss.
fn rank(probing: &TablebaseProbing, r: &RootMoveRank) -> i32 {
    let dtz = i32::from(r.dtz);
    let class = match (r.wdl, probing.outcome(r.wdl)) {
        (_, Outcome::Win) => 4,
        (Wdl::CursedWin, Outcome::Draw) => 3,
        (Wdl::BlessedLoss, Outcome::Draw) => 1,
        (_, Outcome::Draw) => 2,
        (_, Outcome::Loss) => 0,
    };
    let within = match class {
        4 | 3 => -dtz,
        1 | 0 => dtz,
        _ => 0,
    };
    class * (1 << 16) + within
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::games::chess::{Chess, ChessVariant};
    use crate::rng::SplitMix;
    use crate::search::{Limits, Rules, ThreadPool};

    /// The 3-4-piece tables in `../shared/data/syzygy`, opened; `None` (and `SKIPPED`)
    /// without them.
    fn shared_tables() -> Option<Arc<Tables>> {
        let path = crate::testdata::shared_data("syzygy")?;
        Some(open(path.to_str().expect("a UTF-8 path")).expect("the shared tables open"))
    }

    /// A random legal position with White's `white` pieces and Black's bare king (FEN
    /// letters, the kings left out), either side to move, clocks at zero.
    fn random_position(rng: &mut SplitMix, white: &str) -> Board {
        loop {
            let mut cells = [None; 64];
            let pieces = std::iter::once('K').chain(white.chars()).chain(['k']);
            let mut ok = true;
            for piece in pieces {
                let square = rng.below(64);
                let back_rank = !(8..56).contains(&square);
                if cells[square].is_some() || (piece == 'P' && back_rank) {
                    ok = false;
                    break;
                }
                cells[square] = Some(piece);
            }
            if !ok {
                continue;
            }
            let side = if rng.below(2) == 0 { "w" } else { "b" };
            let fen = format!("{} {side} - - 0 1", placement(&cells));
            let board = Board::from_fen(&fen, false);
            let kings_apart =
                |b: &Board| !get_king_moves(b.king(Color::White)).has(b.king(Color::Black));
            if let Some(board) = board.ok().filter(kings_apart) {
                return board;
            }
        }
    }

    /// The placement field of a FEN from squares a1..h8.
    fn placement(cells: &[Option<char>; 64]) -> String {
        let mut rows = Vec::new();
        for rank in (0..8).rev() {
            let (mut row, mut empty) = (String::new(), 0);
            for file in 0..8 {
                match cells[rank * 8 + file] {
                    Some(piece) => {
                        if empty > 0 {
                            row.push_str(&empty.to_string());
                        }
                        empty = 0;
                        row.push(piece);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
            }
            rows.push(row);
        }
        rows.join("/")
    }

    /// -1, 0 or 1: loss, draw (cursed wins and blessed losses included) or win.
    fn class_of(wdl: Wdl) -> i32 {
        match wdl {
            Wdl::Win => 1,
            Wdl::Loss => -1,
            _ => 0,
        }
    }

    #[test]
    fn the_root_score_has_the_tables_result_on_random_endings() {
        let Some(tables) = shared_tables() else {
            return;
        };
        let variant = ChessVariant {
            chess960: false,
            net: None,
            tablebases: Some(TablebaseProbing {
                pieces: tables.max_pieces(),
                tables: Arc::clone(&tables),
                depth: 1,
                rule50: true,
            }),
        };
        let mut pool = ThreadPool::<Chess>::new(4);
        let mut rng = SplitMix::new(0x5157_2767);
        let mut dump = String::new();
        for white in ["Q", "R", "P", "BN"] {
            let (mut count, mut results) = (0, [0; 3]);
            while count < 200 {
                let board = random_position(&mut rng, white);
                let wdl = tables.probe_wdl(&board).expect("a 3-4-piece position");
                let fen = board.to_string();
                let game = Chess::from_fen(&variant, &fen).expect("a legal FEN");
                let result = pool.search(&game, &Limits::depth(3), &[]);
                assert_eq!(
                    result.score.signum(),
                    class_of(wdl),
                    "{fen}: score {} for {wdl:?}",
                    result.score
                );
                results[(class_of(wdl) + 1) as usize] += 1;
                dump.push_str(&format!("{fen};{}\n", class_of(wdl)));
                count += 1;
            }
            eprintln!("K{white}vK: 200 positions, losses/draws/wins {results:?}");
        }
        if let Ok(path) = std::env::var("SYZYGY_SAMPLE_OUT") {
            std::fs::write(path, dump).expect("the sample written");
        }
    }
}
