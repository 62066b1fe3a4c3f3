//! Search scores: heuristic values and exact win/loss distances on one integer scale.
//!
//! A win found `p` plies from the root scores `MATE - p`, a loss `-(MATE - p)`, so shorter
//! wins rank higher. Heuristic evaluations stay inside `±MAX_EVAL`, far from mate scores.

/// Score type used throughout the search.
pub type Score = i32;

/// Deepest ply the search can reach (search stack size, mate distance range).
pub const MAX_PLY: usize = 128;
/// Score of winning on the spot (mate on the board for the opponent).
pub const MATE: Score = 32_000;
/// Scores at or beyond this magnitude are proven wins or losses.
pub const MATE_BOUND: Score = MATE - MAX_PLY as Score;
/// Larger than any score: the initial alpha-beta window.
pub const INFINITY: Score = 32_500;
/// Static evaluations must stay within `±MAX_EVAL`.
pub const MAX_EVAL: Score = 20_000;
/// Score of a draw.
pub const DRAW: Score = 0;
