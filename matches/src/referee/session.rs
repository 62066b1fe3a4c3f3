//! What the referee keeps of a Gomocup engine's game ([`Session`]) and the board and rule
//! the protocol names ([`GomocupGame`]): the engine process carries the session, and the
//! protocol (`gomocup`) reads and updates it, so neither file imports the other.

use std::time::Instant;

/// A board and rule as the Gomocup protocol names them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GomocupGame {
    /// Cells per row (files `a`...).
    pub width: u32,
    /// Rows (ranks 1...).
    pub height: u32,
    /// `INFO rule`: 0 freestyle (five or more win), 1 exactly five, 4 renju.
    pub rule: u32,
}

/// A Gomocup engine's game: the board it plays on, what its own board holds, and when it
/// last answered.
#[derive(Clone, Debug)]
pub struct Session {
    pub(super) game: GomocupGame,
    /// The moves on the engine's board in game order; `None` when unknown.
    pub(super) known: Option<Vec<String>>,
    /// When the engine last printed a move.
    pub(super) answered: Option<Instant>,
}

impl Session {
    /// A session of `game`, before its first `START`.
    pub fn new(game: GomocupGame) -> Session {
        Session {
            game,
            known: None,
            answered: None,
        }
    }
}
