//! A position from "FEN or start position plus moves": the one reader behind the
//! protocol's `position` command, `perft`, `solve`, bench positions and match openings.
//!
//! The FEN and each move are checked by the game's own rules
//! ([`Rules::from_fen`](crate::search::Rules::from_fen),
//! [`Rules::parse_move`](crate::search::Rules::parse_move)); a refusal says which part was
//! bad: the FEN, or the move and its number in the list.

use thiserror::Error;

use crate::search::{Game, GameError};

/// Why a "FEN or start position plus moves" text was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    /// The FEN was refused.
    #[error("{0}")]
    Fen(GameError),
    /// A move of the list was refused; the error names the move's text.
    #[error("{error} (move {number} of the position command)")]
    Move {
        /// Its place in the list, counting from 1.
        number: usize,
        /// What is wrong with it.
        error: GameError,
    },
}

impl SetupError {
    /// The game's own error, whichever part was refused.
    pub fn game_error(&self) -> &GameError {
        match self {
            SetupError::Fen(error) | SetupError::Move { error, .. } => error,
        }
    }
}

/// How the tokens of a move list are written.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum MoveTokens {
    /// One move per token, as the protocol's `position ... moves` writes them.
    #[default]
    OnePerToken,
    /// Also a run of one-character moves in one token (Connect Four's `4453`), read as
    /// such when the token is not a move itself.
    RunsAllowed,
}

/// The start position of `variant`, or the position `fen` gives.
pub fn start_position<G: Game>(variant: &G::Variant, fen: Option<&str>) -> Result<G, SetupError> {
    match fen {
        Some(fen) => G::from_fen(variant, fen).map_err(SetupError::Fen),
        None => Ok(G::start(variant)),
    }
}

/// The start position (or `fen`) after `moves`, one move per token.
pub fn position_from<G: Game, S: AsRef<str>>(
    variant: &G::Variant,
    fen: Option<&str>,
    moves: impl IntoIterator<Item = S>,
) -> Result<G, SetupError> {
    position_with(variant, fen, moves, MoveTokens::OnePerToken)
}

/// The start position (or `fen`) after `moves`, written as `tokens` says.
pub fn position_with<G: Game, S: AsRef<str>>(
    variant: &G::Variant,
    fen: Option<&str>,
    moves: impl IntoIterator<Item = S>,
    tokens: MoveTokens,
) -> Result<G, SetupError> {
    let mut game = start_position(variant, fen)?;
    play_moves(&mut game, moves, tokens)?;
    Ok(game)
}

/// Plays `moves` on `game`; on error `game` holds the moves before the bad one.
pub fn play_moves<G: Game, S: AsRef<str>>(
    game: &mut G,
    moves: impl IntoIterator<Item = S>,
    tokens: MoveTokens,
) -> Result<(), SetupError> {
    play_moves_checked(game, moves, tokens, |_, _, _| Ok(()))
}

/// Plays `moves` on `game`, calling `check(game, move, text)` on each move before it is
/// played: an error it returns refuses the move as the game's rules would.
pub fn play_moves_checked<G: Game, S: AsRef<str>>(
    game: &mut G,
    moves: impl IntoIterator<Item = S>,
    tokens: MoveTokens,
    mut check: impl FnMut(&G, G::Move, &str) -> Result<(), GameError>,
) -> Result<(), SetupError> {
    let mut number = 0;
    let mut play = |game: &mut G, text: &str| {
        number += 1;
        let refused = |error| SetupError::Move { number, error };
        let mv = game.parse_move(text).map_err(refused)?;
        check(game, mv, text).map_err(refused)?;
        game.make_move(mv);
        Ok(())
    };
    for token in moves {
        let token = token.as_ref();
        let is_run = tokens == MoveTokens::RunsAllowed
            && token.chars().count() > 1
            && game.parse_move(token).is_err();
        // A token that is no move is read as a run only if it starts like one; otherwise its
        // error is the token's own (`illegal move 'a1'`, not `invalid move 'a'`).
        if !is_run || !plays_as_run(game, token) {
            play(game, token)?;
            continue;
        }
        for (index, ch) in token.char_indices() {
            play(game, &token[index..index + ch.len_utf8()])?;
        }
    }
    Ok(())
}

/// Whether `token` starts like a run of moves: its first character is a legal move.
fn plays_as_run<G: Game>(game: &G, token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|first| game.parse_move(first.encode_utf8(&mut [0; 4])).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::ataxx::Ataxx;
    use crate::games::chess::{Chess, ChessVariant};
    use crate::games::connect4::Connect4;
    use crate::games::mnk::{Mnk, MnkVariant};
    use crate::search::Rules;

    #[test]
    fn reads_the_start_or_a_fen_then_moves() {
        let game: Connect4 = position_from(&(), None, ["4", "4", "3"]).expect("legal moves");
        assert_eq!(game.to_fen(), "7/7/7/7/3o3/2xx3 o");
        let fen = "7/7/7/7/7/3x3 o";
        let game: Connect4 = position_from(&(), Some(fen), ["4"]).expect("legal moves");
        assert_eq!(game.to_fen(), "7/7/7/7/3o3/3x3 x");
        let none: [&str; 0] = [];
        let chess: Chess = position_from(&ChessVariant::default(), None, none).expect("start");
        assert_eq!(
            chess.to_fen(),
            Chess::start(&ChessVariant::default()).to_fen()
        );
    }

    #[test]
    fn a_bad_fen_is_named() {
        let error = position_from::<Connect4, _>(&(), Some("7/7/7 x"), ["4"]).unwrap_err();
        assert!(matches!(
            error,
            SetupError::Fen(GameError::InvalidPosition { .. })
        ));
        assert!(
            error
                .to_string()
                .starts_with("invalid position '7/7/7 x': "),
            "{error}"
        );
        let error =
            position_from::<Ataxx, _>(&Default::default(), Some("junk"), ["a1"]).unwrap_err();
        assert!(
            error.to_string().starts_with("invalid position 'junk'"),
            "{error}"
        );
    }

    #[test]
    fn an_illegal_move_is_named_with_its_number() {
        let error = position_from::<Connect4, _>(&(), None, ["4", "9", "4"]).unwrap_err();
        assert_eq!(
            error,
            SetupError::Move {
                number: 2,
                error: GameError::InvalidMove("9".to_string())
            }
        );
        assert_eq!(
            error.to_string(),
            "invalid move '9' (move 2 of the position command)"
        );
        let full = ["4"; 7];
        let error = position_from::<Connect4, _>(&(), None, full).unwrap_err();
        assert!(
            matches!(error, SetupError::Move { number: 7, .. }),
            "{error}"
        );
        let over = "1 2 1 2 1 2 1 3".split(' ');
        let error = position_from::<Connect4, _>(&(), None, over).unwrap_err();
        assert_eq!(
            error.game_error(),
            &GameError::GameOver("3".to_string()),
            "{error}"
        );
        let chess = ChessVariant::default();
        let error = position_from::<Chess, _>(&chess, None, ["e2e4", "e2e4"]).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("(move 2 of the position command)"),
            "{error}"
        );
    }

    #[test]
    fn runs_of_moves_are_read_only_when_allowed() {
        let mut game = Connect4::start(&());
        play_moves(&mut game, ["4453", "2"], MoveTokens::RunsAllowed).expect("a run");
        assert_eq!(game.to_fen(), "7/7/7/7/3o3/1xoxx2 o");
        let mut strict = Connect4::start(&());
        let error = play_moves(&mut strict, ["4453"], MoveTokens::OnePerToken).unwrap_err();
        assert!(
            matches!(error, SetupError::Move { number: 1, .. }),
            "{error}"
        );
        let mut bad_run = Connect4::start(&());
        let error = play_moves(&mut bad_run, ["4", "4483"], MoveTokens::RunsAllowed).unwrap_err();
        assert!(
            matches!(error, SetupError::Move { number: 4, .. }),
            "{error}"
        );
        assert_eq!(bad_run.to_fen(), "7/7/7/3x3/3o3/3x3 o");
        // Not a run at all: the token's own error.
        let mut tictactoe = Mnk::start(&MnkVariant::TICTACTOE);
        let error = play_moves(&mut tictactoe, ["a1", "a1"], MoveTokens::RunsAllowed).unwrap_err();
        assert!(error.to_string().contains("'a1'"), "{error}");
    }

    #[test]
    fn the_check_refuses_moves_before_they_are_played() {
        let mut game = Connect4::start(&());
        let error = play_moves_checked(
            &mut game,
            ["4", "5"],
            MoveTokens::OnePerToken,
            |_, _, text| match text {
                "5" => Err(GameError::IllegalMove(text.to_string())),
                _ => Ok(()),
            },
        )
        .unwrap_err();
        assert!(
            matches!(error, SetupError::Move { number: 2, .. }),
            "{error}"
        );
        assert_eq!(game.to_fen(), "7/7/7/7/7/3x3 o");
    }
}
