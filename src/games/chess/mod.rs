//! Chess (standard and Chess960) as a [`Game`], with the rules of the `cozy-chess` crate.
//!
//! Move generation, legality and Zobrist keys come from `cozy_chess::Board`; this module adds
//! what a search needs on top: copy-make with a preallocated stack of previous boards, the
//! key history for repetition draws, the fifty-move and insufficient-material rules, a
//! static exchange evaluator and capture ordering. The variant carries the NNUE network
//! that evaluates ([`nnue`]; by default the one built into the binary), whose accumulators
//! follow make/unmake, computed lazily when a position is evaluated; without one, the
//! hand-crafted evaluation in [`eval`] (its tuned weights in [`weights`]) evaluates. Perft
//! plays on a [`Rules::rules_only`] copy, without the net.
//!
//! Notation is UCI long algebraic. `cozy-chess` keeps castling internally as "king takes
//! own rook"; in standard chess it is written the usual way (`e1g1`), in Chess960 as the
//! king-takes-rook move (`e1h1`), and FENs use Shredder castling fields (X-FEN `KQkq` is
//! accepted too).
//!
//! [`Game`]: crate::search::Game

use std::fmt::Write as _;
use std::sync::Arc;

use cozy_chess::util::{display_uci_move, parse_uci_move};
use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard,
    Board, Color, File, Move, Piece, Rank, Square,
};

pub mod eval;
mod info;
mod layout;
pub mod nnue;
pub mod syzygy;
pub mod weights;

pub use info::INFO;

pub use eval::evaluate_board;

use crate::games::{
    Evaluation, Tablebase, TablebaseSupport, VariantOption, VariantOptionKind, VariantSettings,
};
use crate::rng::SplitMix;
use crate::search::game::QUIET_HINT_LIMIT;
use crate::search::{
    EndReason, ExactHooks, GameEnd, GameError, MoveList, Outcome, Player, Pruning, Rules,
    SearchHooks, SearchParams, SearchRefinements,
};

/// Boards kept ready on the unmake stack without reallocating.
const STACK_RESERVE: usize = 1024;

/// `UCI_Chess960`: chess's variant option (castling written king-takes-rook, Shredder-FEN
/// castling fields).
pub const CHESS960_OPTION: VariantOption = VariantOption {
    name: "UCI_Chess960",
    kind: VariantOptionKind::Check { default: false },
};

/// `SyzygyProbeDepth`: the search asks the win/draw/loss tables at nodes with at least
/// this many plies left (any depth with fewer pieces than `SyzygyProbeLimit`).
pub const SYZYGY_PROBE_DEPTH_OPTION: VariantOption = VariantOption {
    name: "SyzygyProbeDepth",
    kind: VariantOptionKind::Spin {
        default: 1,
        min: 1,
        max: 100,
    },
};

/// `Syzygy50MoveRule`: a win the fifty-move rule spoils (a cursed win) counts as a draw,
/// and a loss it saves as a draw (off: as the win or loss it is without the rule).
pub const SYZYGY_50_MOVE_RULE_OPTION: VariantOption = VariantOption {
    name: "Syzygy50MoveRule",
    kind: VariantOptionKind::Check { default: true },
};

/// `SyzygyProbeLimit`: the most pieces (kings included) of a position the tables are asked
/// about (0: never).
pub const SYZYGY_PROBE_LIMIT_OPTION: VariantOption = VariantOption {
    name: "SyzygyProbeLimit",
    kind: VariantOptionKind::Spin {
        default: 7,
        min: 0,
        max: syzygy::MAX_PIECES as i64,
    },
};

/// Chess takes Syzygy tables: the `SyzygyPath` option (directories separated by `:`).
pub const TABLEBASE_SUPPORT: TablebaseSupport = TablebaseSupport {
    path_option: "SyzygyPath",
    open: |path| {
        let tables = syzygy::open(path).map_err(|e| e.to_string())?;
        let note = tables.describe();
        Ok((tables as Tablebase, note))
    },
};

/// Which chess is played (only the castling notation differs), how it is evaluated, and
/// the endgame tables its searches ask.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChessVariant {
    /// Chess960 notation: castling as king-takes-rook, Shredder FEN castling fields.
    pub chess960: bool,
    /// The NNUE network that evaluates positions; `None`: the hand-crafted evaluation.
    pub net: Option<Arc<nnue::Network>>,
    /// The Syzygy tables and how to probe them; `None`: no tables (the default).
    pub tablebases: Option<syzygy::TablebaseProbing>,
}

impl Default for ChessVariant {
    /// Standard chess with the default evaluation: the embedded net if the binary has
    /// one, else the hand-crafted evaluation.
    fn default() -> ChessVariant {
        ChessVariant {
            chess960: false,
            net: nnue::embedded(),
            tablebases: None,
        }
    }
}

impl ChessVariant {
    /// The variant the protocol's settings select: `UCI_Chess960`, and the evaluation
    /// (a network of another game's type counts as none: the hand-crafted evaluation).
    pub fn from_settings(settings: &VariantSettings) -> ChessVariant {
        let net = match &settings.evaluation {
            Evaluation::BuiltIn => nnue::embedded(),
            Evaluation::HandCrafted => None,
            Evaluation::Net(net) => net
                .clone()
                .downcast::<nnue::Network>()
                .ok()
                .filter(|net| nnue::FEATURE_SETS.contains(net.features())),
        };
        let tablebases = settings
            .tablebase
            .clone()
            .and_then(|tables| tables.downcast::<syzygy::Tables>().ok())
            .map(|tables| syzygy::TablebaseProbing {
                depth: settings.spin(&SYZYGY_PROBE_DEPTH_OPTION) as i32,
                rule50: settings.check(&SYZYGY_50_MOVE_RULE_OPTION),
                pieces: (settings.spin(&SYZYGY_PROBE_LIMIT_OPTION) as u32).min(tables.max_pieces()),
                tables,
            })
            .filter(|probing| probing.pieces > 0);
        ChessVariant {
            chess960: settings.check(&CHESS960_OPTION),
            net,
            tablebases,
        }
    }
}

/// A chess position with its history, searchable as a [`Game`](crate::search::Game).
#[derive(Debug)]
pub struct Chess {
    /// The current position.
    board: Board,
    /// The variant (notation only).
    variant: ChessVariant,
    /// The boards before each move (or null move) played, for unmake.
    stack: Vec<Board>,
    /// Repetition keys of every position since the start, the current one last.
    keys: Vec<u64>,
    /// The NNUE accumulators of every position on the stack, when a net evaluates.
    nnue: Option<nnue::NnueState>,
}

impl Clone for Chess {
    fn clone(&self) -> Self {
        self.clone_with(self.nnue.clone())
    }
}

impl Chess {
    /// A game starting from `board`.
    fn from_board(variant: ChessVariant, board: Board) -> Chess {
        let mut keys = Vec::with_capacity(STACK_RESERVE);
        keys.push(repetition_key(&board));
        let nnue = variant
            .net
            .as_ref()
            .map(|net| nnue::new_state(Arc::clone(net), &board));
        Chess {
            board,
            variant,
            stack: Vec::with_capacity(STACK_RESERVE),
            keys,
            nnue,
        }
    }

    /// A copy with the accumulators `nnue`. `Vec::clone` keeps no spare capacity: the
    /// stacks are reserved again so that the search does not reallocate on its first pushes.
    fn clone_with(&self, nnue: Option<nnue::NnueState>) -> Chess {
        let mut stack = Vec::with_capacity(self.stack.len() + STACK_RESERVE);
        stack.extend_from_slice(&self.stack);
        let mut keys = Vec::with_capacity(self.keys.len() + STACK_RESERVE);
        keys.extend_from_slice(&self.keys);
        Chess {
            board: self.board.clone(),
            variant: self.variant.clone(),
            stack,
            keys,
            nnue,
        }
    }

    /// The current `cozy-chess` board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The variant being played.
    pub fn variant(&self) -> &ChessVariant {
        &self.variant
    }

    /// The NNUE state (network and accumulators), when a net evaluates.
    pub fn nnue(&self) -> Option<&nnue::NnueState> {
        self.nnue.as_ref()
    }

    /// How many earlier positions in the reversible window have the current key.
    /// With `stop_at_first`, stops counting at the first match.
    fn repetitions(&self, stop_at_first: bool) -> usize {
        let last = self.keys.len() - 1;
        let window = usize::from(self.board.halfmove_clock()).min(last);
        if window < 4 {
            return 0;
        }
        let key = self.keys[last];
        let mut count = 0;
        let mut back = 4;
        while back <= window {
            if self.keys[last - back] == key {
                count += 1;
                if stop_at_first {
                    break;
                }
            }
            back += 2;
        }
        count
    }

    /// The rule that ends the game here, if any (FIDE's: mate, stalemate, the fifty-move
    /// rule, insufficient material, threefold repetition), with the side to move's outcome.
    fn rule_end(&self) -> Option<(Outcome, EndReason)> {
        if !self.has_legal_move() {
            return Some(if self.in_check() {
                (Outcome::Loss, EndReason::Checkmate)
            } else {
                (Outcome::Draw, EndReason::Stalemate)
            });
        }
        let reason = if self.board.halfmove_clock() >= 100 {
            EndReason::FiftyMoveRule
        } else if insufficient_material(&self.board) {
            EndReason::InsufficientMaterial
        } else if self.repetitions(false) >= 2 {
            EndReason::ThreefoldRepetition
        } else {
            return None;
        };
        Some((Outcome::Draw, reason))
    }

    /// Whether the side to move has at least one legal move.
    fn has_legal_move(&self) -> bool {
        self.board.generate_moves(|_| true)
    }
}

/// Key used for repetitions: the Zobrist key, without the en passant file when no pawn can
/// actually take en passant (cozy-chess sets it after every double push).
fn repetition_key(board: &Board) -> u64 {
    match board.en_passant() {
        Some(file) => {
            let stm = board.side_to_move();
            let target = Square::new(file, Rank::Sixth.relative_to(stm));
            let takers = get_pawn_attacks(target, !stm) & board.colored_pieces(stm, Piece::Pawn);
            if takers.is_empty() {
                board.hash_without_ep()
            } else {
                board.hash()
            }
        }
        None => board.hash(),
    }
}

/// Whether neither side can ever mate: bare kings, a single minor piece, or only bishops
/// all on squares of one colour.
pub fn insufficient_material(board: &Board) -> bool {
    let heavy = board.pieces(Piece::Pawn) | board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    if !heavy.is_empty() {
        return false;
    }
    let knights = board.pieces(Piece::Knight);
    let bishops = board.pieces(Piece::Bishop);
    if (knights | bishops).len() <= 1 {
        return true;
    }
    knights.is_empty()
        && (bishops.is_subset(BitBoard::DARK_SQUARES) || bishops.is_subset(BitBoard::LIGHT_SQUARES))
}

/// Piece values for the static exchange evaluation, indexed by [`Piece`].
const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 900, 20_000];

/// Every piece of either colour attacking `square` when the board holds `occupied`.
fn attackers_to(board: &Board, square: Square, occupied: BitBoard) -> BitBoard {
    let diagonal = board.pieces(Piece::Bishop) | board.pieces(Piece::Queen);
    let straight = board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    (get_pawn_attacks(square, Color::White) & board.colored_pieces(Color::Black, Piece::Pawn))
        | (get_pawn_attacks(square, Color::Black) & board.colored_pieces(Color::White, Piece::Pawn))
        | (get_knight_moves(square) & board.pieces(Piece::Knight))
        | (get_king_moves(square) & board.pieces(Piece::King))
        | (get_bishop_moves(square, occupied) & diagonal)
        | (get_rook_moves(square, occupied) & straight)
}

/// Whether `mv` is an en passant capture on `board`.
fn is_en_passant(board: &Board, mv: Move) -> bool {
    board.piece_on(mv.from) == Some(Piece::Pawn)
        && mv.from.file() != mv.to.file()
        && board.piece_on(mv.to).is_none()
}

/// The piece `mv` captures on `board` (a pawn for en passant), if any. Castling, encoded
/// as king takes own rook, captures nothing.
fn captured_piece(board: &Board, mv: Move) -> Option<Piece> {
    if board.colors(!board.side_to_move()).has(mv.to) {
        board.piece_on(mv.to)
    } else if is_en_passant(board, mv) {
        Some(Piece::Pawn)
    } else {
        None
    }
}

/// Static exchange evaluation of `mv` on `board`: the material the side to move wins (in
/// centipawns, negative when it loses) if both sides keep capturing on the target square
/// with their least valuable attacker, each free to stop. X-ray attackers behind sliders
/// join as the square's attackers are removed; pins are ignored. Quiet moves score the loss
/// of the moved piece if the square is attacked, castling scores 0.
pub fn see(board: &Board, mv: Move) -> i32 {
    let Some(start) = Exchange::start(board, mv) else {
        return 0;
    };
    let Exchange {
        target,
        mut occupied,
        captured: first_gain,
        mut on_square,
    } = start;
    let mut gain = [0i32; 40];
    gain[0] = first_gain;
    let sliders = sliders(board);
    let mut attackers = attackers_to(board, target, occupied) & occupied;
    let mut side = !board.side_to_move();
    let mut depth = 0;
    while depth + 1 < gain.len() {
        // The least valuable attacker of `side`.
        let Some((piece, from)) = least_valuable(board, attackers & board.colors(side)) else {
            break;
        };
        // The king may only capture onto an undefended square.
        if piece == Piece::King && !(attackers & board.colors(!side)).is_empty() {
            break;
        }
        depth += 1;
        gain[depth] = on_square - gain[depth - 1];
        on_square = SEE_VALUE[piece as usize];
        occupied ^= from.bitboard();
        attackers |= x_rays(sliders, target, occupied);
        attackers &= occupied;
        side = !side;
    }
    while depth > 0 {
        gain[depth - 1] = -(-gain[depth - 1]).max(gain[depth]);
        depth -= 1;
    }
    gain[0]
}

/// Whether `see(board, mv) >= threshold`, decided as soon as the exchange's outcome
/// relative to `threshold` is known (no swap list): the capture alone is below it, or
/// losing the moving piece still leaves it reached, or one side stops.
pub fn see_at_least(board: &Board, mv: Move, threshold: i32) -> bool {
    let Some(start) = Exchange::start(board, mv) else {
        return 0 >= threshold;
    };
    let Exchange {
        target,
        mut occupied,
        captured,
        on_square,
    } = start;
    // `balance`: what the side that just captured is ahead of the threshold by (from the
    // mover's view when `mover_ahead`), were the piece on the square not taken back.
    let mut balance = captured - threshold;
    if balance < 0 {
        return false;
    }
    balance = on_square - balance;
    if balance <= 0 {
        return true;
    }
    let sliders = sliders(board);
    let mut attackers = attackers_to(board, target, occupied) & occupied;
    let mut side = board.side_to_move();
    let mut mover_ahead = true;
    loop {
        side = !side;
        let Some((piece, from)) = least_valuable(board, attackers & board.colors(side)) else {
            break;
        };
        mover_ahead = !mover_ahead;
        if piece == Piece::King {
            // The king takes only an undefended piece.
            let defended = !(attackers & board.colors(!side)).is_empty();
            return mover_ahead != defended;
        }
        balance = SEE_VALUE[piece as usize] - balance;
        if balance < i32::from(mover_ahead) {
            break;
        }
        occupied ^= from.bitboard();
        attackers |= x_rays(sliders, target, occupied);
        attackers &= occupied;
    }
    mover_ahead
}

/// The first capture of a static exchange: the square, the board's occupancy once the
/// moving piece left (and an en passant victim went), what it wins (a promotion's gain
/// included) and the value of the piece left standing on the square.
struct Exchange {
    target: Square,
    occupied: BitBoard,
    captured: i32,
    on_square: i32,
}

impl Exchange {
    /// The exchange `mv` starts; `None` for castling or no piece on the origin (worth 0).
    fn start(board: &Board, mv: Move) -> Option<Exchange> {
        let moved = board.piece_on(mv.from)?;
        if board.colors(board.side_to_move()).has(mv.to) {
            return None;
        }
        let mut occupied = board.occupied() ^ mv.from.bitboard();
        if is_en_passant(board, mv) {
            occupied ^= Square::new(mv.to.file(), mv.from.rank()).bitboard();
        }
        let mut captured = captured_piece(board, mv).map_or(0, |p| SEE_VALUE[p as usize]);
        let mut on_square = SEE_VALUE[moved as usize];
        if let Some(promotion) = mv.promotion {
            captured += SEE_VALUE[promotion as usize] - SEE_VALUE[Piece::Pawn as usize];
            on_square = SEE_VALUE[promotion as usize];
        }
        Some(Exchange {
            target: mv.to,
            occupied,
            captured,
            on_square,
        })
    }
}

/// The least valuable of `attackers` (with its square), if any.
fn least_valuable(board: &Board, attackers: BitBoard) -> Option<(Piece, Square)> {
    Piece::ALL.iter().find_map(|&piece| {
        (attackers & board.pieces(piece))
            .next_square()
            .map(|square| (piece, square))
    })
}

/// The board's sliders by the lines they move on: (bishops and queens, rooks and queens).
fn sliders(board: &Board) -> (BitBoard, BitBoard) {
    let queens = board.pieces(Piece::Queen);
    (
        board.pieces(Piece::Bishop) | queens,
        board.pieces(Piece::Rook) | queens,
    )
}

/// The `sliders` attacking `target` through `occupied` (x-rays revealed as pieces leave).
fn x_rays(sliders: (BitBoard, BitBoard), target: Square, occupied: BitBoard) -> BitBoard {
    let (diagonal, straight) = sliders;
    (get_bishop_moves(target, occupied) & diagonal) | (get_rook_moves(target, occupied) & straight)
}

// ---------------------------------------------------------------------------------------
// Notation helpers
// ---------------------------------------------------------------------------------------

/// Rewrites X-FEN castling letters (`KQkq`, meaning the outermost rook on that side of
/// the king) of a Chess960 FEN into Shredder file letters, using the board of `fields`.
fn xfen_to_shredder(fields: &[&str]) -> Option<String> {
    let castling = *fields.get(2)?;
    if castling == "-" || !castling.chars().any(|c| matches!(c, 'K' | 'Q' | 'k' | 'q')) {
        return None;
    }
    // Parse the placement alone to find kings and rooks.
    let mut probe: Vec<&str> = fields.to_vec();
    probe[2] = "-";
    probe[3] = "-";
    let board = Board::from_fen(&probe.join(" "), false).ok()?;
    let mut converted = String::new();
    for c in castling.chars() {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let short = match c.to_ascii_lowercase() {
            'k' => true,
            'q' => false,
            _ => {
                converted.push(c);
                continue;
            }
        };
        let king = board.king(color);
        let back = Rank::First.relative_to(color);
        let rooks = board.colored_pieces(color, Piece::Rook) & back.bitboard();
        let candidates = rooks
            .into_iter()
            .filter(|rook| (rook.file() > king.file()) == short && rook.rank() == king.rank());
        let rook = if short {
            candidates.max_by_key(|sq| sq.file())
        } else {
            candidates.min_by_key(|sq| sq.file())
        }?;
        let letter = char::from(rook.file());
        converted.push(if color == Color::White {
            letter.to_ascii_uppercase()
        } else {
            letter
        });
    }
    let mut rebuilt: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
    rebuilt[2] = converted;
    Some(rebuilt.join(" "))
}

impl Rules for Chess {
    type Move = Move;
    type Variant = ChessVariant;

    fn start(variant: &ChessVariant) -> Self {
        Chess::from_board(variant.clone(), Board::startpos())
    }

    fn from_fen(variant: &ChessVariant, fen: &str) -> Result<Self, GameError> {
        let mut fields: Vec<&str> = fen.split_whitespace().collect();
        match fields.len() {
            4 => fields.extend(["0", "1"]),
            5 => fields.push("1"),
            6 => {}
            n => {
                return Err(GameError::position(
                    fen,
                    format!("expected 4 to 6 fields, found {n}"),
                ))
            }
        }
        let normalized = fields.join(" ");
        let parsed = if variant.chess960 {
            Board::from_fen(&normalized, true).or_else(|shredder_error| {
                Board::from_fen(&normalized, false).or_else(|error| {
                    match xfen_to_shredder(&fields) {
                        Some(converted) => Board::from_fen(&converted, true),
                        None => Err(if normalized.contains(['K', 'Q', 'k', 'q']) {
                            error
                        } else {
                            shredder_error
                        }),
                    }
                })
            })
        } else {
            Board::from_fen(&normalized, false)
        };
        parsed
            .map(|board| Chess::from_board(variant.clone(), board))
            .map_err(|error| GameError::position(fen, error.to_string()))
    }

    fn to_fen(&self) -> String {
        if self.variant.chess960 {
            format!("{:#}", self.board)
        } else {
            format!("{}", self.board)
        }
    }

    fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("  +---+---+---+---+---+---+---+---+\n");
        for rank in Rank::ALL.iter().rev() {
            let _ = write!(out, "{} |", *rank as usize + 1);
            for file in File::ALL {
                let square = Square::new(file, *rank);
                let symbol = match (self.board.piece_on(square), self.board.color_on(square)) {
                    (Some(piece), Some(Color::White)) => char::from(piece).to_ascii_uppercase(),
                    (Some(piece), _) => char::from(piece),
                    (None, _) => ' ',
                };
                let _ = write!(out, " {symbol} |");
            }
            out.push_str("\n  +---+---+---+---+---+---+---+---+\n");
        }
        out.push_str("    a   b   c   d   e   f   g   h");
        out
    }

    fn side_to_move(&self) -> Player {
        match self.board.side_to_move() {
            Color::White => Player::First,
            Color::Black => Player::Second,
        }
    }

    fn ply(&self) -> u32 {
        let black = u32::from(self.board.side_to_move() == Color::Black);
        (u32::from(self.board.fullmove_number()).saturating_sub(1)) * 2 + black
    }

    fn generate_moves(&self, moves: &mut MoveList<Move>) {
        self.board.generate_moves(|piece_moves| {
            for mv in piece_moves {
                moves.push(mv);
            }
            false
        });
    }

    fn make_move(&mut self, mv: Move) {
        self.stack.push(self.board.clone());
        self.board.play_unchecked(mv);
        if let (Some(nnue), Some(before)) = (&mut self.nnue, self.stack.last()) {
            nnue::push_move(nnue, before, mv, &self.board);
        }
        self.keys.push(repetition_key(&self.board));
    }

    fn unmake_move(&mut self, _mv: Move) {
        if let Some(previous) = self.stack.pop() {
            self.board = previous;
            self.keys.pop();
            if let Some(nnue) = &mut self.nnue {
                nnue.pop();
            }
        }
    }

    /// The position without its net: moves then update no accumulator (perft).
    fn rules_only(&self) -> Self {
        let mut copy = self.clone_with(None);
        copy.variant.net = None;
        copy
    }

    fn outcome(&self) -> Option<Outcome> {
        self.rule_end().map(|(outcome, _)| outcome)
    }

    fn game_end(&self) -> Option<GameEnd> {
        self.rule_end()
            .map(|(outcome, reason)| GameEnd::new(outcome, self.side_to_move(), reason))
    }

    fn hash(&self) -> u64 {
        self.board.hash()
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        let lowered = text.trim().to_ascii_lowercase();
        let well_formed = lowered.is_ascii()
            && match lowered.len() {
                4 => true,
                5 => matches!(lowered.as_bytes()[4], b'n' | b'b' | b'r' | b'q'),
                _ => false,
            };
        if !well_formed {
            return Err(GameError::InvalidMove(text.to_string()));
        }
        let parsed = if self.variant.chess960 {
            lowered.parse::<Move>()
        } else {
            parse_uci_move(&self.board, &lowered)
        };
        let mv = parsed.map_err(|_| GameError::InvalidMove(text.to_string()))?;
        let mut moves = MoveList::new();
        self.generate_moves(&mut moves);
        if moves.is_empty() {
            return Err(GameError::GameOver(text.to_string()));
        }
        if moves.contains(&mv) {
            Ok(mv)
        } else {
            Err(GameError::IllegalMove(text.to_string()))
        }
    }

    fn format_move(&self, mv: Move) -> String {
        if self.variant.chess960 {
            mv.to_string()
        } else {
            display_uci_move(&self.board, mv).to_string()
        }
    }

    fn format_move_record(&self, mv: Move) -> String {
        san(&self.board, mv)
    }
}

impl SearchHooks for Chess {
    /// With a net, from the current accumulator if it is computed, else from scratch (the
    /// search asks [`SearchHooks::evaluate_mut`], which computes it).
    fn evaluate(&self) -> i32 {
        match &self.nnue {
            Some(nnue) => nnue
                .evaluate_computed(
                    self.board.side_to_move() as usize,
                    nnue::board_bucket(&self.board, nnue.network().buckets()),
                )
                .unwrap_or_else(|| nnue.network().evaluate(&self.board)),
            None => evaluate_board(&self.board),
        }
    }

    /// With a net, brings the accumulators up to date (lazily: only now) and evaluates.
    fn evaluate_mut(&mut self) -> i32 {
        match &mut self.nnue {
            Some(nnue) => {
                let bucket = nnue::board_bucket(&self.board, nnue.network().buckets());
                nnue.evaluate(self.board.side_to_move() as usize, bucket)
            }
            None => evaluate_board(&self.board),
        }
    }

    fn encode_move(mv: Move) -> u16 {
        let promotion = mv.promotion.map_or(0, |p| p as u16);
        mv.from as u16 | (mv.to as u16) << 6 | promotion << 12
    }

    const HISTORY_SIZE: usize = 2 * 64 * 64;

    fn history_index(&self, mv: Move) -> usize {
        let side = self.board.side_to_move() as usize;
        side * 4096 + mv.from as usize * 64 + mv.to as usize
    }

    fn move_hint(&self, mv: Move) -> i32 {
        let victim = captured_piece(&self.board, mv);
        if victim.is_none() && mv.promotion.is_none() {
            return 0;
        }
        let victim_rank = victim.map_or(0, |p| p as i32 + 1);
        let attacker = self.board.piece_on(mv.from).unwrap_or(Piece::Pawn);
        let attacker_rank = attacker as i32 + 1;
        let promotion_bonus = match mv.promotion {
            Some(Piece::Queen) => 5_000,
            Some(_) => return -200_000 + 1_000 * victim_rank - attacker_rank,
            None => 0,
        };
        let winning = mv.promotion.is_none()
            && victim.is_some_and(|v| SEE_VALUE[v as usize] >= SEE_VALUE[attacker as usize]);
        if winning || see_at_least(&self.board, mv, 0) {
            QUIET_HINT_LIMIT + 1_000 * victim_rank + promotion_bonus + 10 - attacker_rank
        } else {
            -100_000 + 1_000 * victim_rank - attacker_rank
        }
    }

    // Retuned for the net gen4-hm256x8, each change over 2 s + 0.02 s games against the
    // build before it (docs/chess.md): null move one ply deeper per 150 centipawns above
    // beta instead of 200, +25.7 Elo (95% [+9.1, +42.3], 800 games); then the hash move
    // extended two plies outside the PV when the others fail 20 centipawns below the
    // singular window, +18.7 Elo ([+1.3, +36.2], 800 games); then twelve constants tuned
    // by SPSA at 1 s + 0.01 s (docs/tuning.md), against those before at 2 s + 0.02 s; then
    // the clock planned for 25 more moves instead of 40 (docs/chess.md).
    const SEARCH_PARAMS: SearchParams = SearchParams {
        aspiration_window: 9,
        reverse_futility_margin: 78,
        futility_base: 87,
        futility_margin: 70,
        late_move_pruning_depth: 9,
        history_pruning_margin: 2_047,
        exchange_quiet_margin: 47,
        exchange_noisy_margin: 28,
        null_move_eval_divisor: 185,
        lmr_base: 1.13,
        lmr_divisor: 2.05,
        singular_double_margin: Some(20),
        planned_moves: 25,
        ..SearchParams::DEFAULT
    };

    fn pruning(&self) -> Pruning {
        Pruning {
            null_move: true,
            late_move_reductions: true,
            reverse_futility: true,
            futility: true,
            exchange_pruning: true,
            // With the net, each over 2 s + 0.02 s games against the build without it
            // (docs/chess.md): singular extensions +16.5 Elo (95% [-0.7, +33.9], 800
            // games), then the pawn-structure correction history +19.1 ([+5.8, +32.5],
            // 1,200 games).
            singular_extensions: true,
            singular_off_pv_only: false,
            eval_correction: true,
            quiescence: true,
            // Measured off: over 200 games at 3 s + 0.03 s the build with check extensions
            // scored 45.5% against the same build without (Elo -31 +/- 38); quiescence
            // already answers checks with every evasion.
            check_extensions: false,
            internal_reductions: true,
            internal_reductions_everywhere: false,
            // Chess's captures are noisy: never reduced.
            reduce_forcing: false,
        }
    }

    fn generate_noisy(&self, moves: &mut MoveList<Move>) {
        if self.in_check() {
            self.generate_moves(moves);
            return;
        }
        let stm = self.board.side_to_move();
        let them = self.board.colors(!stm);
        let en_passant = self.board.en_passant().map_or(BitBoard::EMPTY, |file| {
            Square::new(file, Rank::Sixth.relative_to(stm)).bitboard()
        });
        let promotion_rank = Rank::Eighth.relative_to(stm).bitboard();
        self.board.generate_moves(|mut piece_moves| {
            if piece_moves.piece == Piece::Pawn {
                piece_moves.to &= them | en_passant | promotion_rank;
            } else {
                piece_moves.to &= them;
            }
            for mv in piece_moves {
                if matches!(mv.promotion, None | Some(Piece::Queen)) {
                    moves.push(mv);
                }
            }
            false
        });
    }

    fn in_check(&self) -> bool {
        !self.board.checkers().is_empty()
    }

    fn is_noisy(&self, mv: Move) -> bool {
        mv.promotion.is_some() || captured_piece(&self.board, mv).is_some()
    }

    fn null_move_allowed(&self) -> bool {
        let stm = self.board.side_to_move();
        let pieces = self.board.colors(stm)
            & !(self.board.pieces(Piece::Pawn) | self.board.pieces(Piece::King));
        !pieces.is_empty() && !self.in_check()
    }

    fn make_null(&mut self) {
        let next = self.board.null_move();
        self.stack.push(self.board.clone());
        if let Some(nnue) = &mut self.nnue {
            nnue.push(crate::nnue::Delta::default());
        }
        if let Some(mut board) = next {
            // Repetitions never reach back across a null move.
            board.set_halfmove_clock(0);
            self.board = board;
        }
        self.keys.push(repetition_key(&self.board));
    }

    fn unmake_null(&mut self) {
        if let Some(previous) = self.stack.pop() {
            self.board = previous;
            self.keys.pop();
            if let Some(nnue) = &mut self.nnue {
                nnue.pop();
            }
        }
    }
}

impl SearchRefinements for Chess {
    const CONTINUATION_SIZE: usize = 2 * 6 * 64;

    fn continuation_index(&self, mv: Move) -> Option<usize> {
        let piece = self.board.piece_on(mv.from)? as usize;
        let side = self.board.side_to_move() as usize;
        Some((side * 6 + piece) * 64 + mv.to as usize)
    }

    const CAPTURE_HISTORY_SIZE: usize = 2 * 6 * 64 * 6;

    fn capture_history_index(&self, mv: Move) -> Option<usize> {
        let moved = self.continuation_index(mv)?;
        // Pawn to queen by victim; a promotion without a capture takes the king's place.
        let victim = captured_piece(&self.board, mv).map_or(Piece::King as usize, |p| p as usize);
        Some(moved * 6 + victim)
    }

    fn correction_key(&self) -> Option<u64> {
        let white = self.board.colored_pieces(Color::White, Piece::Pawn).0;
        let black = self.board.colored_pieces(Color::Black, Piece::Pawn).0;
        Some(SplitMix::new(white ^ black.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64())
    }

    fn exchange_at_least(&self, mv: Move, threshold: i32) -> bool {
        see_at_least(&self.board, mv, threshold)
    }

    fn is_search_draw(&self) -> bool {
        self.board.halfmove_clock() >= 100
            || insufficient_material(&self.board)
            || self.repetitions(true) >= 1
    }

    /// The Syzygy win/draw/loss value, right after a capture or pawn move (the tables count
    /// the fifty-move rule from there), without castling rights, within `SyzygyProbeLimit`
    /// pieces, and with `SyzygyProbeDepth` plies left at that limit.
    fn tablebase_value(&self, depth: i32) -> Option<Outcome> {
        let probing = self.variant.tablebases.as_ref()?;
        let pieces = self.board.occupied().len();
        if self.board.halfmove_clock() != 0
            || pieces > probing.pieces
            || (pieces == probing.pieces && depth < probing.depth)
        {
            return None;
        }
        let wdl = probing.tables.probe_wdl(&self.board)?;
        Some(probing.outcome(wdl))
    }

    /// The root moves that keep the best result by the distance-to-zeroing tables.
    fn tablebase_root(&self, moves: &mut MoveList<Move>) -> Option<(Outcome, u64)> {
        let probing = self.variant.tablebases.as_ref()?;
        if self.board.occupied().len() > probing.pieces {
            return None;
        }
        let ranked = probing.tables.rank_root(&self.board)?;
        syzygy::keep_best(probing, &ranked, moves).map(|outcome| (outcome, ranked.len() as u64))
    }

    /// Material of both sides, pawn 1, knight and bishop 3, rook 5, queen 9 (78 at the
    /// start), as Stockfish's win/draw/loss model counts it.
    fn wdl_phase(&self) -> i32 {
        let count = |piece| self.board.pieces(piece).len() as i32;
        count(Piece::Pawn)
            + 3 * (count(Piece::Knight) + count(Piece::Bishop))
            + 5 * count(Piece::Rook)
            + 9 * count(Piece::Queen)
    }
}

impl ExactHooks for Chess {}

/// A legal move in standard algebraic notation (`Nf3`, `exd5`, `O-O`, `e8=Q+`, `Qh4#`),
/// as PGN records write it.
pub fn san(board: &Board, mv: Move) -> String {
    let Some(piece) = board.piece_on(mv.from) else {
        return mv.to_string();
    };
    let us = board.side_to_move();
    let mut text = String::new();
    let castles = piece == Piece::King && board.colors(us).has(mv.to);
    if castles {
        text.push_str(if mv.to.file() > mv.from.file() {
            "O-O"
        } else {
            "O-O-O"
        });
    } else if piece == Piece::Pawn {
        let captures = mv.from.file() != mv.to.file();
        if captures {
            text.push(char::from(b'a' + mv.from.file() as u8));
            text.push('x');
        }
        text.push_str(&mv.to.to_string());
        if let Some(promotion) = mv.promotion {
            text.push('=');
            text.push(piece_letter(promotion));
        }
    } else {
        text.push(piece_letter(piece));
        // Other pieces of the same kind that can reach the same square.
        let mut rivals: Vec<Square> = Vec::new();
        board.generate_moves(|moves| {
            for other in moves {
                if other.to == mv.to
                    && other.from != mv.from
                    && board.piece_on(other.from) == Some(piece)
                {
                    rivals.push(other.from);
                }
            }
            false
        });
        if !rivals.is_empty() {
            let same_file = rivals.iter().any(|sq| sq.file() == mv.from.file());
            let same_rank = rivals.iter().any(|sq| sq.rank() == mv.from.rank());
            if !same_file {
                text.push(char::from(b'a' + mv.from.file() as u8));
            } else if !same_rank {
                text.push(char::from(b'1' + mv.from.rank() as u8));
            } else {
                text.push_str(&mv.from.to_string());
            }
        }
        if board.occupied().has(mv.to) {
            text.push('x');
        }
        text.push_str(&mv.to.to_string());
    }
    let mut after = board.clone();
    after.play_unchecked(mv);
    if !after.checkers().is_empty() {
        let mut has_moves = false;
        after.generate_moves(|_| {
            has_moves = true;
            true
        });
        text.push(if has_moves { '+' } else { '#' });
    }
    text
}

fn piece_letter(piece: Piece) -> char {
    match piece {
        Piece::Pawn => 'P',
        Piece::Knight => 'N',
        Piece::Bishop => 'B',
        Piece::Rook => 'R',
        Piece::Queen => 'Q',
        Piece::King => 'K',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::GameResult;
    use std::time::Instant;

    const STANDARD: ChessVariant = ChessVariant {
        chess960: false,
        net: None,
        tablebases: None,
    };
    const CHESS960: ChessVariant = ChessVariant {
        chess960: true,
        net: None,
        tablebases: None,
    };

    fn position(fen: &str) -> Chess {
        Chess::from_fen(&STANDARD, fen).expect("test FEN is valid")
    }

    fn play(game: &mut Chess, moves: &str) {
        for text in moves.split_whitespace() {
            let mv = game.parse_move(text).expect("test move is legal");
            game.make_move(mv);
        }
    }

    /// Chess's own search constants, as `Bench:` was measured with them: the defaults but
    /// for what matches with the net kept.
    #[test]
    fn the_search_constants_are_the_defaults_retuned_for_the_net() {
        let params = Chess::SEARCH_PARAMS;
        assert_eq!(params.problem(), None);
        let margins = (params.aspiration_window, params.reverse_futility_margin);
        assert_eq!(margins, (9, 78));
        let futility = (params.futility_base, params.futility_margin);
        assert_eq!(futility, (87, 70));
        let exchange = (params.exchange_quiet_margin, params.exchange_noisy_margin);
        assert_eq!(exchange, (47, 28));
        assert_eq!((params.lmr_base, params.lmr_divisor), (1.13, 2.05));
        assert_eq!(params.null_move_eval_divisor, 185);
        assert_eq!(params.singular_double_margin, Some(20));
        assert_eq!(params.planned_moves, 25);
        let d = SearchParams::DEFAULT;
        let retuned = SearchParams {
            aspiration_window: d.aspiration_window,
            reverse_futility_margin: d.reverse_futility_margin,
            futility_base: d.futility_base,
            futility_margin: d.futility_margin,
            late_move_pruning_depth: d.late_move_pruning_depth,
            history_pruning_margin: d.history_pruning_margin,
            exchange_quiet_margin: d.exchange_quiet_margin,
            exchange_noisy_margin: d.exchange_noisy_margin,
            null_move_eval_divisor: d.null_move_eval_divisor,
            lmr_base: d.lmr_base,
            lmr_divisor: d.lmr_divisor,
            singular_double_margin: d.singular_double_margin,
            planned_moves: d.planned_moves,
            ..params
        };
        assert_eq!(retuned, SearchParams::DEFAULT);
    }

    /// Bulk-counting perft through the `Game` implementation.
    fn perft(game: &mut Chess, depth: u32) -> u64 {
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        if depth == 1 {
            return moves.len() as u64;
        }
        let mut total = 0;
        for &mv in &moves {
            game.make_move(mv);
            total += perft(game, depth - 1);
            game.unmake_move(mv);
        }
        total
    }

    fn check_perft(variant: ChessVariant, fen: &str, expected: &[u64]) {
        let mut game = Chess::from_fen(&variant, fen).expect("perft FEN is valid");
        let before = game.board().clone();
        for (depth, &count) in (1..).zip(expected) {
            let started = Instant::now();
            let nodes = perft(&mut game, depth);
            eprintln!(
                "perft {fen} depth {depth}: {nodes} nodes in {:?}",
                started.elapsed()
            );
            assert_eq!(nodes, count, "perft({depth}) of {fen}");
        }
        assert_eq!(game.board(), &before);
        assert!(game.stack.is_empty());
        assert_eq!(game.keys.len(), 1);
    }

    #[test]
    fn perft_start_position() {
        check_perft(
            STANDARD,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &[20, 400, 8902, 197_281],
        );
    }

    #[test]
    fn perft_kiwipete() {
        check_perft(
            STANDARD,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            &[48, 2039, 97_862],
        );
    }

    #[test]
    fn perft_endgame_and_promotions() {
        check_perft(
            STANDARD,
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            &[14, 191, 2812, 43_238],
        );
        check_perft(
            STANDARD,
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            &[6, 264, 9467],
        );
        check_perft(
            STANDARD,
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            &[44, 1486, 62_379],
        );
        check_perft(
            STANDARD,
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            &[46, 2079, 89_890],
        );
    }

    #[test]
    fn perft_chess960() {
        check_perft(
            CHESS960,
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            &[21, 528, 12_189],
        );
    }

    #[test]
    fn perft_plays_without_the_net() {
        let mut game = Chess::start(&ChessVariant::default());
        assert!(game.nnue().is_some());
        let rules = game.rules_only();
        assert!(rules.nnue().is_none() && rules.variant().net.is_none());
        assert_eq!(rules.board(), game.board());
        assert_eq!(crate::search::perft::perft(&mut game, 3), 8902);
        assert_eq!(game.nnue().map(nnue::NnueState::positions), Some(1));
        assert!(game.stack.is_empty());
    }

    /// Walks the tree checking that unmake restores the board and the key history.
    fn walk(game: &mut Chess, depth: u32) {
        if depth == 0 {
            return;
        }
        let board = game.board().clone();
        let hash = game.hash();
        let keys = game.keys.clone();
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        for &mv in &moves {
            game.make_move(mv);
            assert_eq!(game.hash(), game.board().hash());
            walk(game, depth - 1);
            game.unmake_move(mv);
            assert_eq!(game.board(), &board);
            assert_eq!(game.hash(), hash);
            assert_eq!(game.keys, keys);
        }
        if game.null_move_allowed() {
            game.make_null();
            assert_ne!(game.side_to_move(), player_of(board.side_to_move()));
            game.unmake_null();
            assert_eq!(game.board(), &board);
            assert_eq!(game.keys, keys);
        }
    }

    fn player_of(color: Color) -> Player {
        match color {
            Color::White => Player::First,
            Color::Black => Player::Second,
        }
    }

    #[test]
    fn make_unmake_restores_every_node() {
        let mut game =
            position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        walk(&mut game, 3);
        let mut game = position("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
        walk(&mut game, 4);
    }

    #[test]
    fn null_move_round_trip() {
        let mut game = Chess::start(&STANDARD);
        play(&mut game, "e2e4");
        assert!(game.null_move_allowed());
        let before = game.board().clone();
        game.make_null();
        assert_eq!(game.side_to_move(), Player::First);
        assert_eq!(game.board().en_passant(), None);
        game.unmake_null();
        assert_eq!(game.board(), &before);
        // In check, or with only pawns and king: no null move.
        let checked = position("4k3/8/8/8/8/8/3PPq2/4K2R w K - 0 1");
        assert!(!checked.null_move_allowed());
        let pawns = position("4k3/8/8/8/8/8/3PPP2/4K3 w - - 0 1");
        assert!(!pawns.null_move_allowed());
    }

    #[test]
    fn checkmate_and_stalemate() {
        let mut game = Chess::start(&STANDARD);
        play(&mut game, "f2f3 e7e5 g2g4 d8h4");
        assert!(game.in_check());
        assert_eq!(game.outcome(), Some(Outcome::Loss));
        assert_eq!(
            game.parse_move("e2e4"),
            Err(GameError::GameOver("e2e4".into()))
        );
        let stalemate = position("k7/8/1Q6/8/8/8/8/K7 b - - 0 1");
        assert_eq!(stalemate.outcome(), Some(Outcome::Draw));
        // Mate takes precedence over the fifty-move rule.
        let mate = position("k7/1Q6/1K6/8/8/8/8/8 b - - 100 80");
        assert_eq!(mate.outcome(), Some(Outcome::Loss));
        assert_eq!(Chess::start(&STANDARD).outcome(), None);
    }

    #[test]
    fn fifty_move_rule() {
        let game = position("8/8/8/8/8/4k3/8/R3K3 w - - 100 80");
        assert_eq!(game.outcome(), Some(Outcome::Draw));
        assert!(game.is_search_draw());
        let game = position("8/8/8/8/8/4k3/8/R3K3 w - - 99 80");
        assert_eq!(game.outcome(), None);
        assert!(!game.is_search_draw());
        // A move still parses in a claimed-draw position.
        assert!(position("8/8/8/8/8/4k3/8/R3K3 w - - 100 80")
            .parse_move("a1a2")
            .is_ok());
    }

    #[test]
    fn repetitions() {
        let mut game = Chess::start(&STANDARD);
        play(&mut game, "g1f3 g8f6 f3g1");
        assert!(!game.is_search_draw());
        play(&mut game, "f6g8");
        assert!(
            game.is_search_draw(),
            "one repetition is a draw inside the search"
        );
        assert_eq!(game.outcome(), None, "twofold is not yet a draw");
        play(&mut game, "g1f3 g8f6 f3g1 f6g8");
        assert_eq!(game.outcome(), Some(Outcome::Draw));
        // Moves are still accepted.
        assert!(game.parse_move("e2e4").is_ok());
        // An irreversible move clears the window.
        play(&mut game, "e2e4");
        assert!(!game.is_search_draw());
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn game_end_names_the_rule() {
        let end = |fen: &str| Chess::from_fen(&STANDARD, fen).unwrap().game_end();
        let mate = end("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(
            (mate.result, mate.reason),
            (GameResult::FirstWins, EndReason::Checkmate)
        );
        assert_eq!(mate.describe(["white", "black"]), "white mates");
        let stalemate = end("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(stalemate.reason, EndReason::Stalemate);
        assert_eq!(stalemate.result, GameResult::Draw);
        let fifty = end("7k/8/6K1/8/8/8/8/R7 b - - 100 80").unwrap();
        assert_eq!(fifty.reason, EndReason::FiftyMoveRule);
        let bare = end("8/8/4k3/8/8/4K3/8/8 w - - 0 1").unwrap();
        assert_eq!(bare.reason, EndReason::InsufficientMaterial);

        let mut game = Chess::start(&STANDARD);
        play(&mut game, "g1f3 g8f6 f3g1 f6g8");
        assert_eq!(game.game_end(), None, "twofold is not the end of the game");
        play(&mut game, "g1f3 g8f6 f3g1 f6g8");
        let threefold = game.game_end().unwrap();
        assert_eq!(threefold.reason, EndReason::ThreefoldRepetition);
        assert_eq!(
            threefold.describe(["white", "black"]),
            "draw by threefold repetition"
        );
    }

    #[test]
    fn insufficient_material_draws() {
        for fen in [
            "8/8/4k3/8/8/4K3/8/8 w - - 0 1",
            "8/8/4k3/8/8/3BK3/8/8 w - - 0 1",
            "8/8/4k3/8/8/3NK3/8/8 b - - 0 1",
            "5b2/8/4k3/8/8/4K3/8/2B5 w - - 0 1",
        ] {
            let game = position(fen);
            assert_eq!(game.outcome(), Some(Outcome::Draw), "{fen}");
            assert!(game.is_search_draw(), "{fen}");
        }
        for fen in [
            "2b5/8/4k3/8/8/4K3/8/2B5 w - - 0 1",
            "8/8/4k3/8/8/3NK3/4N3/8 w - - 0 1",
            "8/8/4k3/8/8/3PK3/8/8 w - - 0 1",
        ] {
            assert_eq!(position(fen).outcome(), None, "{fen}");
        }
    }

    #[test]
    fn castling_notation() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let game = position(fen);
        let short = game.parse_move("e1g1").unwrap();
        assert_eq!(short.to, Square::H1);
        assert_eq!(game.format_move(short), "e1g1");
        let long = game.parse_move("e1c1").unwrap();
        assert_eq!(long.to, Square::A1);
        assert_eq!(game.format_move(long), "e1c1");
        let mut game = position(fen);
        game.make_move(short);
        assert_eq!(game.to_fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");

        let game = Chess::from_fen(&CHESS960, fen).unwrap();
        let short = game.parse_move("e1h1").unwrap();
        assert_eq!(game.format_move(short), "e1h1");
        let long = game.parse_move("e8a8");
        assert_eq!(long, Err(GameError::IllegalMove("e8a8".into())));
        assert!(matches!(
            game.parse_move("e1g1"),
            Err(GameError::IllegalMove(_))
        ));
        assert_eq!(game.to_fen(), "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1");
    }

    #[test]
    fn chess960_fens() {
        let shredder = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        let game = Chess::from_fen(&CHESS960, shredder).unwrap();
        assert_eq!(game.to_fen(), shredder);
        let xfen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9";
        let game = Chess::from_fen(&CHESS960, xfen).unwrap();
        assert_eq!(game.to_fen(), shredder);
        let game = Chess::from_fen(&CHESS960, "rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1").unwrap();
        assert_eq!(game.to_fen(), "rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1");
        for (text, king, rook) in [
            ("b1h1", Square::G1, Square::F1),
            ("b1a1", Square::C1, Square::D1),
        ] {
            let castle = game.parse_move(text).unwrap();
            assert_eq!(game.format_move(castle), text);
            let mut played = game.clone();
            played.make_move(castle);
            assert_eq!(played.board().king(Color::White), king);
            assert_eq!(played.board().piece_on(rook), Some(Piece::Rook));
        }
        // Shredder fields are refused in standard chess.
        assert!(matches!(
            Chess::from_fen(&STANDARD, shredder),
            Err(GameError::InvalidPosition { .. })
        ));
    }

    #[test]
    fn promotion_and_parse_errors() {
        let game = position("8/4P3/8/8/8/8/2k5/K7 w - - 0 1");
        let queen = game.parse_move("e7e8q").unwrap();
        assert_eq!(queen.promotion, Some(Piece::Queen));
        assert_eq!(game.format_move(queen), "e7e8q");
        assert_eq!(
            game.parse_move("e7e8N").unwrap().promotion,
            Some(Piece::Knight)
        );
        for text in ["", "garbage", "e7e8k", "e7e8qq", "z9z9", "e7", "é7e8"] {
            assert_eq!(
                game.parse_move(text),
                Err(GameError::InvalidMove(text.into())),
                "{text}"
            );
        }
        for text in ["e7e8", "a1a3", "e2e4"] {
            assert_eq!(
                game.parse_move(text),
                Err(GameError::IllegalMove(text.into())),
                "{text}"
            );
        }
        let mut codes: Vec<u16> = Vec::new();
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        for &mv in &moves {
            codes.push(Chess::encode_move(mv));
        }
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), moves.len());
    }

    #[test]
    fn fen_round_trip_and_errors() {
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        assert_eq!(position(fen).to_fen(), fen);
        let short = position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3");
        assert_eq!(
            short.to_fen(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
        );
        assert_eq!(short.ply(), 1);
        assert_eq!(position(fen).ply(), 0);
        assert_eq!(
            position("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8").ply(),
            14
        );
        for bad in [
            "",
            "garbage",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            // The side not to move is in check.
            "4k3/8/8/8/8/8/8/4K2r b - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
        ] {
            assert!(
                matches!(
                    Chess::from_fen(&STANDARD, bad),
                    Err(GameError::InvalidPosition { .. })
                ),
                "{bad}"
            );
            assert!(Chess::from_fen(&CHESS960, bad).is_err(), "{bad}");
        }
        let rendered = Chess::start(&STANDARD).render();
        assert!(rendered.contains("| r | n | b | q | k | b | n | r |"));
        // `d` adds the FEN and key after the drawing, for every game.
        assert!(!rendered.contains("Fen:"));
    }

    /// The FEN of the same position with colours swapped and the board mirrored top-down.
    fn mirror_fen(fen: &str) -> String {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let swap_case = |s: &str| -> String {
            s.chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect()
        };
        let board: Vec<String> = fields[0].split('/').rev().map(swap_case).collect();
        let side = if fields[1] == "w" { "b" } else { "w" };
        let castling = if fields[2] == "-" {
            "-".to_string()
        } else {
            swap_case(fields[2])
        };
        let en_passant = match fields[3].as_bytes() {
            [file, b'3'] => format!("{}6", *file as char),
            [file, b'6'] => format!("{}3", *file as char),
            _ => "-".to_string(),
        };
        format!(
            "{} {side} {castling} {en_passant} {} {}",
            board.join("/"),
            fields[4],
            fields[5]
        )
    }

    #[test]
    fn evaluation_is_colour_symmetric() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/8/4k3/8/8/3RK3/8/7b b - - 0 1",
        ] {
            let game = position(fen);
            let mirrored = position(&mirror_fen(fen));
            assert_eq!(game.evaluate(), mirrored.evaluate(), "{fen}");
            assert!(game.evaluate().abs() < 2_000, "{fen}");
        }
        // Start position: only the tempo.
        let tempo = weights::WEIGHTS[eval::TEMPO].0;
        assert_eq!(Chess::start(&STANDARD).evaluate(), tempo);
        // A queen up is clearly winning for the side to move, losing for the other.
        let up = position("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(up.evaluate() > 700);
        let down = position("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert!(down.evaluate() < -700);
        // Rook against bishop without pawns is scaled down.
        let drawish = position("8/8/4k3/8/8/3RK3/8/7b w - - 0 1");
        assert!(drawish.evaluate() < 100, "{}", drawish.evaluate());
    }

    fn mv(game: &Chess, text: &str) -> Move {
        game.parse_move(text).expect("test move is legal")
    }

    #[test]
    fn static_exchange_evaluation() {
        // Pawn takes a knight defended by a pawn.
        let game = position("4k3/8/3p4/4n3/3P4/8/8/4K3 w - - 0 1");
        assert_eq!(see(game.board(), mv(&game, "d4e5")), 220);
        // Queen takes a pawn defended by a pawn.
        let game = position("4k3/8/3p4/4p3/8/8/8/4QK2 w - - 0 1");
        assert_eq!(see(game.board(), mv(&game, "e1e5")), -800);
        // Rook takes an undefended pawn.
        let game = position("4k3/8/8/4p3/8/8/8/4RK2 w - - 0 1");
        assert_eq!(see(game.board(), mv(&game, "e1e5")), 100);
        // X-ray: the rook behind wins the exchange back.
        let game = position("4k3/4r3/8/4p3/8/8/4R3/4R1K1 w - - 0 1");
        assert_eq!(see(game.board(), mv(&game, "e2e5")), 100);
        // Without the second rook, RxP RxR loses the exchange.
        let game = position("4k3/4r3/8/4p3/8/8/4R3/6K1 w - - 0 1");
        assert_eq!(see(game.board(), mv(&game, "e2e5")), -400);
        // Knight takes a bishop defended by a pawn: an even trade.
        let game = position("4k3/8/2p5/3b4/8/4N3/8/4K3 w - - 0 1");
        assert_eq!(see(game.board(), mv(&game, "e3d5")), 10);
        // The king recaptures an undefended piece...
        let game = position("4k3/8/1n6/3p4/4K3/8/8/3R4 w - - 0 1");
        assert_eq!(see(game.board(), mv(&game, "d1d5")), -80);
        // ...but may not capture a defended one.
        let game = position("4k3/5b2/1n6/3p4/4K3/8/8/3R4 w - - 0 1");
        assert_eq!(see(game.board(), mv(&game, "d1d5")), -400);
        // En passant.
        let game = position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
        assert_eq!(see(game.board(), mv(&game, "e5d6")), 100);
    }

    #[test]
    fn the_threshold_exchange_agrees_with_the_full_one() {
        let starts = [
            "r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 3",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/5b2/1n6/3p4/4K3/8/8/3R4 w - - 0 1",
        ];
        let mut rng = crate::rng::SplitMix::new(11);
        let mut checked = 0;
        for fen in starts {
            for _ in 0..40 {
                let mut game = position(fen);
                for _ in 0..rng.below(30) {
                    let mut moves = MoveList::new();
                    game.generate_moves(&mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    game.make_move(moves[rng.below(moves.len())]);
                }
                let mut moves = MoveList::new();
                game.generate_moves(&mut moves);
                for &mv in &moves {
                    let value = see(game.board(), mv);
                    let thresholds =
                        (-1200..=1200)
                            .step_by(50)
                            .chain([value - 1, value, value + 1]);
                    for threshold in thresholds {
                        assert_eq!(
                            see_at_least(game.board(), mv, threshold),
                            value >= threshold,
                            "{} {mv} threshold {threshold} (see {value})",
                            game.board()
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn the_move_picker_goes_by_stages() {
        use crate::search::ordering::{MovePicker, NodeContext, OrderingTables};
        let game = position("4k3/8/3p4/4p3/6n1/8/5N2/4QK2 w - - 0 1");
        let mut tables = OrderingTables::for_game::<Chess>();
        let context = NodeContext {
            ply: 3,
            previous: [Some(100), Some(200)],
        };
        tables.add_killer(3, mv(&game, "f1g1"));
        tables.set_counter(Some(100), mv(&game, "f2d3"));
        let liked = mv(&game, "e1a5");
        tables.update_history(game.history_index(liked), 1_000);
        tables.update_continuation(&context, game.continuation_index(liked), 1_000);
        let disliked = mv(&game, "e1e2");
        tables.update_continuation(&context, game.continuation_index(disliked), -2_000);
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        let count = moves.len();
        let tt_move = Chess::encode_move(mv(&game, "e1b4"));
        let mut picker = MovePicker::new(moves, Some(tt_move), context);
        let mut order = Vec::new();
        while let Some(next) = picker.next_move(&game, &tables) {
            order.push(game.format_move(next));
        }
        assert_eq!(order.len(), count);
        assert_eq!(&order[..5], &["e1b4", "f2g4", "f1g1", "f2d3", "e1a5"]);
        assert_eq!(order[count - 2], "e1e2", "{order:?}");
        assert_eq!(order[count - 1], "e1e5", "the losing capture comes last");
    }

    #[test]
    fn move_hints_and_noisy_moves() {
        let game = position("4k3/8/3p4/4p3/8/8/5N2/4QK2 w - - 0 1");
        let losing = mv(&game, "e1e5");
        assert!(game.is_noisy(losing));
        assert!(game.move_hint(losing) < 0);
        let quiet = mv(&game, "f2g4");
        assert!(!game.is_noisy(quiet));
        assert_eq!(game.move_hint(quiet), 0);

        let game = position("4k3/8/3p4/4n3/3P4/8/8/4K3 w - - 0 1");
        let good = mv(&game, "d4e5");
        assert!(game.move_hint(good) >= QUIET_HINT_LIMIT);

        let game = position("3nk3/4P3/8/8/8/8/8/4K3 w - - 0 1");
        let promote = mv(&game, "e7d8q");
        assert!(game.move_hint(promote) >= QUIET_HINT_LIMIT);
        assert!(game.move_hint(mv(&game, "e7d8n")) < 0);
        let mut noisy = MoveList::new();
        game.generate_noisy(&mut noisy);
        let texts: Vec<String> = noisy.iter().map(|&m| game.format_move(m)).collect();
        assert_eq!(texts.len(), 1, "{texts:?}");
        assert!(texts.contains(&"e7d8q".to_string()));

        // Kiwipete: noisy moves are exactly the captures (no promotions there).
        let game = position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        let mut all = MoveList::new();
        game.generate_moves(&mut all);
        let captures = all.iter().filter(|&&m| game.is_noisy(m)).count();
        let mut noisy = MoveList::new();
        game.generate_noisy(&mut noisy);
        assert_eq!(noisy.len(), captures);
        assert_eq!(captures, 8);
        // In check, every evasion is generated.
        let game = position("4k3/8/8/8/8/8/3PPq2/4K2R w K - 0 1");
        let mut noisy = MoveList::new();
        game.generate_noisy(&mut noisy);
        let mut all = MoveList::new();
        game.generate_moves(&mut all);
        assert_eq!(noisy.len(), all.len());
    }

    #[test]
    fn search_finds_mate_in_one() {
        use crate::search::{Limits, ThreadPool};
        let game = position("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        let result = ThreadPool::<Chess>::new(1).search(&game, &Limits::depth(4), &[]);
        let best = result.best.expect("a move");
        assert_eq!(game.format_move(best), "a1a8");
    }

    #[test]
    fn garbage_input_never_panics() {
        let alphabet: Vec<char> = "pnbrqkPNBRQK0123456789/ wb-KQkqaehAEH".chars().collect();
        let base = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        let mut rng = crate::rng::SplitMix::new(0x9E37_79B9_7F4A_7C15);
        let mut next = move || rng.next_u64();
        let game = position(base);
        for _ in 0..20_000 {
            // A valid FEN with a few characters replaced.
            let mut chars: Vec<char> = base.chars().collect();
            for _ in 0..next() % 4 + 1 {
                let i = (next() % chars.len() as u64) as usize;
                chars[i] = alphabet[(next() % alphabet.len() as u64) as usize];
            }
            let text: String = chars.into_iter().collect();
            for variant in [STANDARD, CHESS960] {
                if let Ok(parsed) = Chess::from_fen(&variant, &text) {
                    let _ = parsed.evaluate();
                    let _ = parsed.outcome();
                    let back = Chess::from_fen(&variant, &parsed.to_fen()).expect("round trip");
                    assert_eq!(back.board(), parsed.board());
                }
            }
            let word: String = (0..next() % 7)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let _ = game.parse_move(&word);
        }
    }

    #[test]
    fn standard_algebraic_notation() {
        let cases = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "g1f3",
                "Nf3",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "e2e4",
                "e4",
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
                "e4d5",
                "exd5",
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "e1g1",
                "O-O",
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "e1c1",
                "O-O-O",
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
                "d8h4",
                "Qh4#",
            ),
            ("6r1/5Ppp/7k/6pp/8/3B4/8/K7 w - - 0 1", "f7g8n", "fxg8=N#"),
            ("8/P7/8/8/8/8/8/k6K w - - 0 1", "a7a8q", "a8=Q+"),
            ("4k3/8/8/8/8/8/4K3/R6R w - - 0 1", "a1d1", "Rad1"),
            ("4k3/8/8/8/8/8/4K3/R6R w - - 0 1", "h1h8", "Rh8+"),
            ("4k3/8/8/8/R7/8/8/R3K3 w - - 0 1", "a1a2", "R1a2"),
        ];
        for (fen, uci, expected) in cases {
            let game = Chess::from_fen(&ChessVariant::default(), fen).unwrap();
            let mv = game.parse_move(uci).unwrap();
            assert_eq!(game.format_move_record(mv), expected, "{fen} {uci}");
        }
    }
}
