//! The interface a game implements to be searched, played and spoken over the protocol.
//!
//! A game implements four traits, one per concern:
//! - [`Rules`]: rules and notation (start, FEN in and out, moves, make/unmake, the end of the
//!   game, the hash, move text), all mandatory but `rules_only`, `game_end` and
//!   `format_move_record`;
//! - [`SearchHooks`]: what every game's search reads: evaluation and move ordering keys
//!   (mandatory), and the value-changing techniques (pruning, quiescence, null move), off by
//!   default so a game that gives none is searched as plain minimax with alpha-beta;
//! - [`SearchRefinements`]: what one game or two refine (more history tables, foreknowledge
//!   of a move, exchange evaluation, correction keys, draws by history, endgame tables), all
//!   off by default (`impl SearchRefinements for MyGame {}`);
//! - [`ExactHooks`]: a dedicated solver, an opening book, a bound on the plies left, all
//!   absent by default (`impl ExactHooks for MyGame {}`).
//!
//! [`Game`] is the four together, implemented for every type that has them. The search core
//! is generic over `G: Game` and dispatches statically: no trait objects and no allocation
//! per node.

use std::fmt::{self, Debug, Display};
use std::sync::Arc;
use std::time::Duration;

use arrayvec::ArrayVec;
use thiserror::Error;

use super::params::SearchParams;
pub use super::score::Outcome;
use super::score::Score;

/// Largest number of legal moves any game may generate in one position (the 484 cells
/// of a 22x22 gomoku board).
pub const MAX_MOVES: usize = 484;

/// A fixed-capacity move buffer: generating moves never allocates.
pub type MoveList<M> = ArrayVec<M, MAX_MOVES>;

/// The two players. `First` moves first from the start position (white, `x`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    /// The player who moves first from the start position.
    First,
    /// The other player.
    Second,
}

impl Player {
    /// The opponent of this player.
    pub fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }

    /// Index of this player in per-player arrays: 0 for the first, 1 for the second.
    pub fn index(self) -> usize {
        match self {
            Player::First => 0,
            Player::Second => 1,
        }
    }
}

/// The result of a finished game in absolute terms, as UGI's `query result` reports it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// The first player won.
    FirstWins,
    /// The second player won.
    SecondWins,
    /// Nobody won.
    Draw,
}

impl GameResult {
    /// Converts an outcome seen by `to_move` into an absolute result.
    pub fn from_outcome(outcome: Outcome, to_move: Player) -> GameResult {
        match (outcome, to_move) {
            (Outcome::Draw, _) => GameResult::Draw,
            (Outcome::Win, Player::First) | (Outcome::Loss, Player::Second) => {
                GameResult::FirstWins
            }
            (Outcome::Win, Player::Second) | (Outcome::Loss, Player::First) => {
                GameResult::SecondWins
            }
        }
    }
}

/// Why a game ended, as records and messages name it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check: a draw.
    Stalemate,
    /// The same position (same side to move, same rights) occurred for the third time.
    ThreefoldRepetition,
    /// A hundred plies without a capture or a pawn move (chess), or the game's own
    /// half-move clock.
    FiftyMoveRule,
    /// Neither side has the material to win.
    InsufficientMaterial,
    /// The game's own winning or drawing condition (a completed line, a full board...).
    Rules,
    /// The side to move has no legal move: a draw, or a loss where the game's rules say
    /// so ([`Rules::outcome_without_moves`]).
    NoLegalMoves,
}

/// The end of a game by the rules: the result and why.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// Who won, in absolute terms.
    pub result: GameResult,
    /// The rule that ended the game.
    pub reason: EndReason,
}

impl GameEnd {
    /// The end described by an outcome seen by `to_move` and the rule behind it.
    pub fn new(outcome: Outcome, to_move: Player, reason: EndReason) -> GameEnd {
        GameEnd {
            result: GameResult::from_outcome(outcome, to_move),
            reason,
        }
    }

    /// A short description such as `first player mates` or `draw by threefold
    /// repetition`, naming the players by `names` (first, second).
    pub fn describe(&self, names: [&str; 2]) -> String {
        let winner = match self.result {
            GameResult::FirstWins => Some(names[0]),
            GameResult::SecondWins => Some(names[1]),
            GameResult::Draw => None,
        };
        match (winner, self.reason) {
            (Some(winner), EndReason::Checkmate) => format!("{winner} mates"),
            (Some(winner), EndReason::NoLegalMoves) => {
                format!("{winner} wins: the opponent has no legal move")
            }
            (Some(winner), _) => format!("{winner} wins by the rules"),
            (None, EndReason::Stalemate) => "draw by stalemate".to_string(),
            (None, EndReason::ThreefoldRepetition) => "draw by threefold repetition".to_string(),
            (None, EndReason::FiftyMoveRule) => "draw by the fifty-move rule".to_string(),
            (None, EndReason::InsufficientMaterial) => "draw by insufficient material".to_string(),
            (None, EndReason::NoLegalMoves) => "draw: no legal moves".to_string(),
            (None, _) => "draw by the rules".to_string(),
        }
    }
}

/// Why a position or a move given as text was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    /// The position text is malformed or describes a position that cannot arise.
    #[error("invalid position '{text}': {reason}")]
    InvalidPosition {
        /// The offending text.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The move text is not a move of this game.
    #[error("invalid move '{0}'")]
    InvalidMove(String),
    /// The move is well formed but not legal in the position.
    #[error("illegal move '{0}'")]
    IllegalMove(String),
    /// The game is over: no move can be played.
    #[error("move '{0}' after the game has ended")]
    GameOver(String),
}

impl GameError {
    /// Shorthand for [`GameError::InvalidPosition`].
    pub fn position(text: &str, reason: impl Into<String>) -> GameError {
        GameError::InvalidPosition {
            text: text.to_string(),
            reason: reason.into(),
        }
    }
}

/// Which value-changing search techniques a game allows.
///
/// Games that leave these off are searched so that `go depth D` returns exactly the
/// minimax value at depth D; chess switches them on for strength.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pruning {
    /// Null-move pruning (the game must implement [`SearchHooks::make_null`]).
    pub null_move: bool,
    /// Late move reductions.
    pub late_move_reductions: bool,
    /// Reverse futility pruning: cut nodes whose static evaluation is far above beta.
    pub reverse_futility: bool,
    /// Futility, late move and history pruning of quiet moves near the horizon.
    pub futility: bool,
    /// Static exchange pruning near the horizon: moves that lose material by
    /// [`SearchRefinements::exchange_at_least`] are skipped.
    pub exchange_pruning: bool,
    /// Singular extensions: the hash move is searched a ply deeper when every other move
    /// fails well below its score, and the node is cut (multi-cut) or the move reduced
    /// when others reach beta too.
    pub singular_extensions: bool,
    /// Singular extensions outside the principal variation only (zataxx's rule in Ataxx):
    /// a PV node never searches its other moves to extend the table's.
    pub singular_off_pv_only: bool,
    /// Correction history: static evaluations are corrected by what searches found for
    /// positions of the same [`SearchRefinements::correction_key`].
    pub eval_correction: bool,
    /// Quiescence search over [`SearchHooks::generate_noisy`] moves at the horizon.
    pub quiescence: bool,
    /// Search one ply deeper when the side to move is in check.
    pub check_extensions: bool,
    /// Internal iterative reductions: search a PV or expected cut node one ply shallower
    /// when the transposition table has no move for it.
    pub internal_reductions: bool,
    /// Internal iterative reductions of expected all nodes too (zataxx's rule in Ataxx).
    pub internal_reductions_everywhere: bool,
    /// Late move reductions also of the moves the game hints as forcing (at or above
    /// [`QUIET_HINT_LIMIT`]) without calling them noisy: Ataxx's captures, most of its moves.
    pub reduce_forcing: bool,
}

impl Pruning {
    /// Whether every technique is off, so searches return exact minimax values.
    pub fn is_exact(&self) -> bool {
        *self == Pruning::default()
    }
}

/// The rules and notation of a two-player, zero-sum, perfect-information game: what every
/// game must implement, and all that `perft`, the referees, the protocol's positions and
/// moves, and game records need.
///
/// Contract: once [`Rules::outcome`] is `Some`, the search stops there; games where a win
/// ends play (Connect Four, m,n,k) also generate no moves after it, so perft counts stop
/// there.
pub trait Rules: Clone + Send + Sync + 'static {
    /// A move. Small and `Copy`; it need not carry enough to be undone without the position.
    type Move: Copy + Eq + Debug + Send + Sync + 'static;
    /// What distinguishes members of a family of games (board size, chess variant...).
    type Variant: Clone + Debug + Send + Sync + 'static;
    /// The start position of the variant.
    fn start(variant: &Self::Variant) -> Self;
    /// Parses a position in the game's FEN-like notation; refuses impossible positions.
    fn from_fen(variant: &Self::Variant, fen: &str) -> Result<Self, GameError>;
    /// The position in the game's FEN-like notation (round-trips through `from_fen`).
    fn to_fen(&self) -> String;
    /// A human-readable drawing of the board (for the `d` command), lines joined by `\n`.
    fn render(&self) -> String;
    /// The player to move.
    fn side_to_move(&self) -> Player;
    /// Number of moves played since the start (or since the FEN's origin); used for UGI turns.
    fn ply(&self) -> u32;
    /// Appends every legal move to `moves` (which the caller has cleared).
    fn generate_moves(&self, moves: &mut MoveList<Self::Move>);
    /// Plays `mv`, which must be legal.
    fn make_move(&mut self, mv: Self::Move);
    /// Takes back `mv`, which must be the last move played.
    fn unmake_move(&mut self, mv: Self::Move);
    /// A copy of this position for play by the rules alone (perft): it need not evaluate,
    /// so a game whose `make_move` keeps evaluation state up to date (chess's NNUE
    /// accumulators) leaves that state out. The default is a plain clone.
    fn rules_only(&self) -> Self {
        self.clone()
    }
    /// `Some` when the game is over in this position, from the side to move's view.
    /// The search asks this at every node; referees ask [`Rules::game_end`].
    fn outcome(&self) -> Option<Outcome>;
    /// The result for the side to move when it has no legal move, [`Rules::outcome`] is
    /// `None` and it is not in check: a draw unless the game's rules say otherwise (renju:
    /// Black, with empty cells left that are all forbidden to it, has lost). Asked only
    /// where no move was found, so it need not be cheap.
    fn outcome_without_moves(&self) -> Outcome {
        Outcome::Draw
    }
    /// The end of the game by the rules in this position, if it is over: the one rule that
    /// referees, `query gameover`/`query result`, `cutoff play` and datagen follow. The
    /// default takes [`Rules::outcome`] (reason [`EndReason::Rules`]), and for a position
    /// without legal moves [`Rules::outcome_without_moves`]; games whose rules name more
    /// reasons (chess: mate, stalemate, threefold repetition, fifty moves, insufficient
    /// material) override it, agreeing with `outcome`.
    fn game_end(&self) -> Option<GameEnd> {
        let to_move = self.side_to_move();
        if let Some(outcome) = self.outcome() {
            return Some(GameEnd::new(outcome, to_move, EndReason::Rules));
        }
        let mut moves = MoveList::new();
        self.generate_moves(&mut moves);
        moves.is_empty().then(|| {
            GameEnd::new(
                self.outcome_without_moves(),
                to_move,
                EndReason::NoLegalMoves,
            )
        })
    }
    /// A 64-bit key of the position (and everything that decides its value).
    fn hash(&self) -> u64;
    /// Parses a move in the game's notation and checks that it is legal here.
    fn parse_move(&self, text: &str) -> Result<Self::Move, GameError>;
    /// Writes a move in the game's notation.
    fn format_move(&self, mv: Self::Move) -> String;
    /// Writes a move as game records (PGN) want it: standard algebraic notation in chess,
    /// the protocol notation in the other games.
    fn format_move_record(&self, mv: Self::Move) -> String {
        self.format_move(mv)
    }
}

/// What the search asks of every game beyond its rules: its moves, evaluation and move
/// ordering keys, and the value-changing techniques it allows (pruning, quiescence, null
/// move). `evaluate`, `encode_move`, `HISTORY_SIZE` and `history_index` are mandatory;
/// every other item has a conservative default, so a game that writes only those four is
/// searched as plain minimax with alpha-beta. What only some games refine (more history
/// tables, foreknowledge of a move's key or check, exchange evaluation, correction keys,
/// draws by history, endgame tables) is [`SearchRefinements`].
pub trait SearchHooks: Rules {
    /// Appends the moves the search considers here (which the caller has cleared): a
    /// subset of the legal moves that is empty only when they are, and holds every move
    /// that matters (gomoku: the cells near the stones). The default is every legal move;
    /// rules, perft and referees always use [`Rules::generate_moves`].
    fn generate_search_moves(&self, moves: &mut MoveList<Self::Move>) {
        self.generate_moves(moves);
    }
    /// Static evaluation in centipawn-like units, from the side to move's view.
    /// Must stay well inside `±MAX_EVAL` (see `search::score`).
    fn evaluate(&self) -> i32;
    /// [`SearchHooks::evaluate`] as the search asks it, free to bring evaluation state up to
    /// date on the way (chess computes its NNUE accumulators lazily here); the same value.
    fn evaluate_mut(&mut self) -> i32 {
        self.evaluate()
    }
    /// A unique 16-bit code of a move, stored in the transposition table and killer slots.
    fn encode_move(mv: Self::Move) -> u16;
    /// The size of the history table; `history_index` stays below it.
    const HISTORY_SIZE: usize;
    /// Index of a move in the history table (usually from/to and the side to move).
    fn history_index(&self, mv: Self::Move) -> usize;
    /// Ordering hint for `mv` in this position: higher is searched earlier. Captures,
    /// winning or blocking moves should score above `QUIET_HINT_LIMIT`, so killers and
    /// history only sort the quiet rest. Noisy moves hinted below it (captures that lose
    /// material) are skipped by quiescence outside check.
    fn move_hint(&self, mv: Self::Move) -> i32 {
        let _ = mv;
        0
    }
    /// Which value-changing search techniques this game allows; none by default.
    fn pruning(&self) -> Pruning {
        Pruning::default()
    }
    /// How far those techniques go: margins in this game's evaluation units, depth
    /// limits, the late move reduction table ([`SearchParams::DEFAULT`] unless the game
    /// tunes its own).
    const SEARCH_PARAMS: SearchParams = SearchParams::DEFAULT;
    /// Noisy moves (captures, promotions) for quiescence; only used when `pruning().quiescence`.
    /// When the side to move is in check it must give every legal move (all evasions):
    /// quiescence does not stand pat in check and scores having no evasion as a loss.
    fn generate_noisy(&self, moves: &mut MoveList<Self::Move>) {
        let _ = moves;
    }
    /// Whether the side to move is in check (extends the search, forbids null moves).
    fn in_check(&self) -> bool {
        false
    }
    /// Whether the move is tactical (not reduced, not counted as quiet for killers/history).
    fn is_noisy(&self, mv: Self::Move) -> bool {
        let _ = mv;
        false
    }
    /// Whether passing is sound here (side to move has non-pawn material in chess).
    fn null_move_allowed(&self) -> bool {
        false
    }
    /// Passes the turn; only called when `null_move_allowed`.
    fn make_null(&mut self) {}
    /// Takes back [`SearchHooks::make_null`].
    fn unmake_null(&mut self) {}
}

/// What one game or two refine in the search beyond [`SearchHooks`], every item with a
/// default that leaves it off: a game without any writes `impl SearchRefinements for
/// MyGame {}`. In groups:
/// - more history: continuation and capture histories (chess), forcing moves sharing the
///   quiet history (Ataxx);
/// - foreknowledge of a move before it is made: the child's hash (gomoku), whether it gives
///   check (gomoku, Ataxx);
/// - chess's own: exchange evaluation, the correction key, draws by history, endgame
///   tables;
/// - how often the clock is read (gomoku), and the phase of the win/draw/loss model (chess),
///   which only the protocol asks.
pub trait SearchRefinements: SearchHooks {
    /// The size of the continuation index space (0: the game has none, and continuation
    /// histories and counter moves stay off).
    const CONTINUATION_SIZE: usize = 0;
    /// Index of `mv` (about to be played here) in continuation histories and the
    /// counter-move table, below [`SearchRefinements::CONTINUATION_SIZE`]: what moved where
    /// (chess: the coloured piece and its target square). A move is judged by the moves one
    /// and two plies before it through these indices.
    fn continuation_index(&self, mv: Self::Move) -> Option<usize> {
        let _ = mv;
        None
    }
    /// The size of the capture history (0: the game has none).
    const CAPTURE_HISTORY_SIZE: usize = 0;
    /// Index of the noisy move `mv` in the capture history, below
    /// [`SearchRefinements::CAPTURE_HISTORY_SIZE`] (chess: the coloured piece moved, its
    /// target square and the piece taken).
    fn capture_history_index(&self, mv: Self::Move) -> Option<usize> {
        let _ = mv;
        None
    }
    /// Whether the moves hinted as forcing but not noisy (Ataxx's captures) share the
    /// butterfly history of quiet moves: ordered by it among moves of the same hint (which
    /// the game then spaces at least `2 * HISTORY_MAX` apart), rewarded and punished by
    /// cut-offs as quiet moves are, and reduced less or more by it.
    const FORCING_HISTORY: bool = false;
    /// The [`Rules::hash`] the position will have once `mv` (legal here) is made, where the
    /// game knows it cheaply beforehand (`None`: it does not, the default). The search then
    /// fetches the child's table bucket while the move is being made.
    fn hash_after(&self, _mv: Self::Move) -> Option<u64> {
        None
    }
    /// Whether `mv` (legal here) will leave the opponent in check ([`SearchHooks::in_check`]),
    /// where the game knows it cheaply beforehand (`None`: it does not, the default). A
    /// quiet move the search would prune unless it gives check is then skipped without
    /// being made.
    fn gives_check(&self, _mv: Self::Move) -> Option<bool> {
        None
    }
    /// Whether `mv` wins at least `threshold` (in the game's evaluation units) once both
    /// sides have traded on its target square (static exchange evaluation); used by
    /// [`Pruning::exchange_pruning`]. The default claims every move does.
    fn exchange_at_least(&self, _mv: Self::Move, _threshold: i32) -> bool {
        true
    }
    /// The class of positions whose static evaluations err alike, for
    /// [`Pruning::eval_correction`] (in chess, the pawn structure); `None` for none.
    fn correction_key(&self) -> Option<u64> {
        None
    }
    /// A search shortcut, not a rule of the game: whether the search may score this
    /// position as a draw because it repeats an earlier one once (the side that could
    /// avoid it would have), or a history-dependent draw rule holds. Games end only by
    /// [`Rules::game_end`]; nothing but the search asks this.
    fn is_search_draw(&self) -> bool {
        false
    }
    /// The value of this position in the game's endgame tables, where it has tables that
    /// know it and the search may ask them with `depth` plies left (chess: Syzygy's
    /// win/draw/loss tables, within `SyzygyProbeLimit` pieces and `SyzygyProbeDepth`, right
    /// after a capture or pawn move); `None` by default. The search scores a win below
    /// every mate and above every evaluation, and cuts the node where that value does.
    fn tablebase_value(&self, depth: i32) -> Option<Outcome> {
        let _ = depth;
        None
    }
    /// At the root: keeps of `moves` those the game's endgame tables say keep the best
    /// result (chess: Syzygy's distance-to-zeroing tables, so that a win is kept under the
    /// fifty-move rule), and returns that result for the side to move, with the number of
    /// table probes spent; `None` (moves untouched) where the tables do not know the
    /// position. The default has no tables.
    fn tablebase_root(&self, moves: &mut MoveList<Self::Move>) -> Option<(Outcome, u64)> {
        let _ = moves;
        None
    }
    /// How often (in nodes) the search reads the clock and the stop flag: a game whose
    /// nodes are slow reads them more often so that it stops near its deadline on a
    /// loaded machine ([`CHECK_INTERVAL`](super::params::CHECK_INTERVAL) by default; a
    /// power of two). No search decision depends on it.
    const CHECK_INTERVAL: u64 = super::params::CHECK_INTERVAL;
    /// The game phase its win/draw/loss model reads (a [`WdlModel`](super::WdlModel)
    /// in the game's registry entry, fitted on its self-play): by default the ply (Ataxx),
    /// chess counts material. Only the protocol's `UCI_ShowWDL` reports ask it, never the
    /// search.
    fn wdl_phase(&self) -> i32 {
        self.ply() as i32
    }
}

/// A question an exact search asks every few thousand nodes: `true` means give up now (the
/// search then returns `None`, as when its node budget runs out). The engine's `go` passes
/// one that watches the clock and the `stop` switch.
pub type Interrupt = Arc<dyn Fn() -> bool + Send + Sync>;

/// An exact search over positions of one game.
pub trait ExactSearch<G: Game>: Send {
    /// The exact value of `root` (a position whose game is not over) in the core's score
    /// scale, or `None` when more than `budget` nodes would be needed (counted since the
    /// last [`ExactSearch::reset_nodes`]). `weak`: only the sign has to be right (win,
    /// draw or loss). `report` receives the known lower and upper bounds as they narrow,
    /// and the nodes searched so far.
    fn value(
        &mut self,
        root: &G,
        weak: bool,
        budget: Option<u64>,
        report: &mut dyn FnMut(Score, Score, u64),
    ) -> Option<Score>;

    /// The values of several positions (the positions after each root move), in order, as
    /// by [`ExactSearch::value`]; `report` also names the position (its index). A search
    /// may spread them over threads; by default they are solved one after another.
    fn values(
        &mut self,
        positions: &[G],
        weak: bool,
        budget: Option<u64>,
        report: &mut dyn FnMut(usize, Score, Score, u64),
    ) -> Vec<Option<Score>> {
        one_by_one(self, positions, weak, budget, report)
    }

    /// Forgets everything learnt: the next search runs as if with a fresh table.
    fn forget(&mut self);

    /// From now on, gives up whenever `interrupt` says so (`None`: only at the budget). A
    /// search that cannot be interrupted ignores it (the default): give it a node budget.
    fn set_interrupt(&mut self, interrupt: Option<Interrupt>) {
        let _ = interrupt;
    }

    /// Nodes searched since the last [`ExactSearch::reset_nodes`].
    fn nodes(&self) -> u64;

    /// How long finding the value of `root` and a move that keeps it should take, by the
    /// nodes such a search needs and the speed this search has shown; `None` when it
    /// cannot tell (the default). The clock of `go` spends more where this is short.
    fn expected_time(&self, root: &G) -> Option<Duration> {
        let _ = root;
        None
    }

    /// Starts counting nodes from zero.
    fn reset_nodes(&mut self);
}

/// [`ExactSearch::values`] one position after another.
pub fn one_by_one<G: Game, S: ExactSearch<G> + ?Sized>(
    search: &mut S,
    positions: &[G],
    weak: bool,
    budget: Option<u64>,
    report: &mut dyn FnMut(usize, Score, Score, u64),
) -> Vec<Option<Score>> {
    (0..positions.len())
        .map(|index| {
            let mut report = |lower, upper, nodes| report(index, lower, upper, nodes);
            search.value(&positions[index], weak, budget, &mut report)
        })
        .collect()
}

/// Exact play: a game's own solver, opening book and bound on the plies left, each `None`
/// by default. A game without any writes `impl ExactHooks for MyGame {}`; the core exact
/// search (`solve`, `go` when the search plays exactly) serves it then.
pub trait ExactHooks: SearchHooks {
    /// The game's own exact solver, if it has one (Connect Four), with a table of
    /// `hash_mb` MiB and `threads` threads for the root moves; `solve` uses it instead of
    /// the core search, which every game whose [`SearchHooks::pruning`] is exact can use.
    fn dedicated_solver(hash_mb: usize, threads: usize) -> Option<Box<dyn ExactSearch<Self>>>
    where
        Self: Game,
    {
        let _ = (hash_mb, threads);
        None
    }
    /// A move of the game's own opening book for this position, if it has one, with the
    /// value of the position for the side to move that the move keeps (Connect Four: the
    /// first player's winning strategy and the replies book, built by its solver). `go`
    /// under a clock plays it without searching; `go depth`/`nodes` never look at it.
    fn book_move(&self) -> Option<(Self::Move, Outcome)> {
        None
    }
    /// An upper bound on the plies left until the game must end (empty cells in Connect
    /// Four and m,n,k). Entries searched at least that deep hold exact values whatever the depth asked.
    fn remaining_plies_bound(&self) -> Option<u32> {
        None
    }
}

/// A game the search core can play: [`Rules`], [`SearchHooks`], [`SearchRefinements`] and
/// [`ExactHooks`] together.
///
/// Nobody implements `Game` by hand: the blanket implementation below covers every type that
/// implements the four traits. The search, the protocol and the tools are generic over
/// `G: Game` and dispatch statically (no trait objects, no allocation per node), and through
/// this bound they call the four traits' methods without importing them; code that names a
/// concrete game type (`Chess`, `Connect4`) imports the trait whose method it calls.
pub trait Game: Rules + SearchHooks + SearchRefinements + ExactHooks {}

impl<G: Rules + SearchHooks + SearchRefinements + ExactHooks> Game for G {}

/// Ordering hints at or above this value are searched before killers and history moves.
pub const QUIET_HINT_LIMIT: i32 = 1 << 20;

/// A move written in its game's notation, for logs and messages.
pub struct Notation<'a, G: Game>(pub &'a G, pub G::Move);

impl<G: Game> Display for Notation<'_, G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.format_move(self.1))
    }
}
