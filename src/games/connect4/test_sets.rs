//! The Connect Four test-set format of Pascal Pons' solver: a line of column digits 1-7
//! (the moves played), a space, and the exact score of the position for the side to move.

use crate::games::connect4::Connect4;
use crate::games::TestLine;
use crate::search::{GameError, ScoreReport};

/// Parses a test-set line for the registry (`solve --check`).
pub fn parse_line(line: &str) -> Result<TestLine, GameError> {
    let test = TestPosition::parse(line)?;
    Ok(TestLine {
        expected: test.expected_report(),
        moves: test.moves,
    })
}

/// One line of a test set.
#[derive(Clone, Debug)]
pub struct TestPosition {
    /// The moves played, as column digits.
    pub moves: String,
    /// The position they lead to.
    pub position: Connect4,
    /// The file's score: 0 draw; s > 0 the side to move wins with its own (22 - s)-th
    /// stone; s < 0 the opponent wins with its (22 + s)-th stone.
    pub score: i32,
}

impl TestPosition {
    /// Parses `"<moves> <score>"`.
    pub fn parse(line: &str) -> Result<TestPosition, GameError> {
        let bad = || GameError::position(line, "expected '<column digits> <score>'");
        let (moves, score) = line.trim().split_once(' ').ok_or_else(bad)?;
        let score = score.trim().parse().map_err(|_| bad())?;
        Ok(TestPosition {
            moves: moves.to_string(),
            position: Connect4::from_moves(moves)?,
            score,
        })
    }

    /// Plies left until the board is full: a search this deep is exact.
    pub fn remaining_plies(&self) -> u32 {
        42 - self.moves.len() as u32
    }

    /// The file's score as the engine reports it (`score mate N` or `score cp 0`).
    pub fn expected_report(&self) -> ScoreReport {
        let played = self.moves.len() as i32;
        let own_stones = played / 2;
        let their_stones = (played + 1) / 2;
        match self.score {
            0 => ScoreReport::Centipawns(0),
            s if s > 0 => ScoreReport::Mate(22 - s - own_stones),
            s => ScoreReport::Mate(-((22 + s) - their_stones)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_scores_to_move_counts() {
        // Side to move (x, 3 stones) wins with its 4th stone: mate in 1.
        let win = TestPosition::parse("121212 18").expect("valid line");
        assert_eq!(win.expected_report(), ScoreReport::Mate(1));
        // o to move (2 stones) loses to x's 4th stone: mated in 1 (x has 3 stones).
        let loss = TestPosition::parse("41315 -18").expect("valid line");
        assert_eq!(loss.expected_report(), ScoreReport::Mate(-1));
        assert_eq!(
            TestPosition::parse("44 0").map(|t| t.expected_report()),
            Ok(ScoreReport::Centipawns(0))
        );
        assert!(TestPosition::parse("4x 0").is_err());
        assert!(TestPosition::parse("44").is_err());
        assert!(TestPosition::parse("44 zero").is_err());
    }
}
