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
/// Score of a win the game's endgame tables prove for the side to move at the root (at ply
/// `p`: `TB_WIN - p`): below every mate, above every evaluation, so a proven mate is still
/// preferred and a table's win outranks any heuristic value.
pub const TB_WIN: Score = MATE_BOUND - 1;
/// Scores at or beyond this magnitude (and below [`MATE_BOUND`]) are table wins or losses.
pub const TB_WIN_BOUND: Score = TB_WIN - MAX_PLY as Score;

/// The end of a game, seen from the side to move in the final position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The side to move has won (rare: most games end on the winner's move).
    Win,
    /// The side to move has lost (checkmated, or the opponent completed a line).
    Loss,
    /// Nobody wins.
    Draw,
}

/// The score of a finished game at `ply`, from the side to move's view.
pub fn outcome_score(outcome: Outcome, ply: usize) -> Score {
    match outcome {
        Outcome::Win => MATE - ply as Score,
        Outcome::Loss => -MATE + ply as Score,
        Outcome::Draw => DRAW,
    }
}

/// Whether the score is a proven win or loss.
pub fn is_mate(score: Score) -> bool {
    score.abs() >= MATE_BOUND
}

/// The score of a position the game's endgame tables value as `outcome` at `ply`, from the
/// side to move's view: [`TB_WIN`] less the ply for a win, its opposite for a loss.
pub fn tablebase_score(outcome: Outcome, ply: usize) -> Score {
    match outcome {
        Outcome::Win => TB_WIN - ply as Score,
        Outcome::Loss => -TB_WIN + ply as Score,
        Outcome::Draw => DRAW,
    }
}

/// How a score reads in UCI `info`: centipawns, or moves to mate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScoreReport {
    /// A heuristic value (or a proven draw, 0).
    Centipawns(i32),
    /// The side to move wins with its N-th move from now (N > 0), or loses within -N moves
    /// (N < 0: on the opponent's -N-th move, or in Ataxx on its own, filling the board);
    /// 0 when it has already lost.
    Mate(i32),
}

impl ScoreReport {
    /// Classifies a search score. A game the side to move has already won (possible in
    /// Ataxx: the opponent's move filled the board) has no mate count in UCI, where
    /// `mate 0` is a loss: it reads as `cp 32000`.
    pub fn from_score(score: Score) -> ScoreReport {
        if score >= MATE {
            ScoreReport::Centipawns(MATE)
        } else if score >= MATE_BOUND {
            ScoreReport::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            ScoreReport::Mate(-((MATE + score + 1) / 2))
        } else {
            ScoreReport::Centipawns(score)
        }
    }
}

impl std::fmt::Display for ScoreReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScoreReport::Centipawns(cp) => write!(f, "cp {cp}"),
            ScoreReport::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_reports_count_moves_of_the_winner() {
        // Winning move at ply 1: mate in 1. Opponent's win at ply 2: mated in 1.
        assert_eq!(ScoreReport::from_score(MATE - 1), ScoreReport::Mate(1));
        assert_eq!(ScoreReport::from_score(MATE - 3), ScoreReport::Mate(2));
        assert_eq!(ScoreReport::from_score(-MATE + 2), ScoreReport::Mate(-1));
        assert_eq!(ScoreReport::from_score(-MATE + 4), ScoreReport::Mate(-2));
        assert_eq!(ScoreReport::from_score(-MATE), ScoreReport::Mate(0));
        // Ataxx: a move that ends the game lost (ply 1), the opponent's next move's (ply 2).
        assert_eq!(ScoreReport::from_score(-MATE + 1), ScoreReport::Mate(-1));
        assert_eq!(ScoreReport::from_score(-MATE + 3), ScoreReport::Mate(-2));
        // Already won (Ataxx): not `mate 0`, which reads as lost.
        assert_eq!(ScoreReport::from_score(MATE).to_string(), "cp 32000");
        assert_eq!(ScoreReport::from_score(0).to_string(), "cp 0");
        assert_eq!(ScoreReport::from_score(MATE - 5).to_string(), "mate 3");
    }
}
