//! The generic search core: every game plugs in through [`Game`].

pub mod game;
pub mod score;

pub use game::{Game, GameError, GameResult, MoveList, Outcome, Player, Pruning};
