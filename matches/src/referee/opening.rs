//! Where a game starts: a position (the start or a FEN) and moves played from it, checked
//! by cutoff's rules.

use serde::Serialize;

use super::rules::game_end;
use cutoff::games::setup::{self, MoveTokens};
use cutoff::search::{Game, GameError};

/// The start of a game: a position (start or FEN) and moves played from it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Opening {
    /// FEN of the first position; the game's start position when `None`.
    pub fen: Option<String>,
    /// Moves played from it before the engines take over.
    pub moves: Vec<String>,
}

impl Opening {
    /// Checks the FEN, reading an EPD's operations (`bm e5; id "x";`) off its end, and
    /// writes it out again in full (`to_fen`), as the PGN's `FEN` tag needs it: the longest
    /// run of the line's first fields that is a valid position.
    pub fn complete_fen<G: Game>(&mut self, variant: &G::Variant) -> Result<(), String> {
        let Some(text) = &self.fen else {
            return Ok(());
        };
        let fields: Vec<&str> = text.split_whitespace().collect();
        let mut first_error = None;
        for end in (1..=fields.len()).rev() {
            match G::from_fen(variant, &fields[..end].join(" ")) {
                Ok(position) => {
                    self.fen = Some(position.to_fen());
                    return Ok(());
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        let error = first_error.map_or_else(|| "an empty FEN".to_string(), |e| e.to_string());
        Err(format!("invalid position '{text}': {error}"))
    }

    /// The position after the opening, checking the FEN and every move.
    pub fn position<G: Game>(&self, variant: &G::Variant) -> Result<G, String> {
        self.position_and_record(variant)
            .map(|(position, _)| position)
    }

    /// The position after the opening and the opening's moves in record notation.
    pub fn position_and_record<G: Game>(
        &self,
        variant: &G::Variant,
    ) -> Result<(G, Vec<String>), String> {
        let mut position: G =
            setup::start_position(variant, self.fen.as_deref()).map_err(|e| e.to_string())?;
        let mut record = Vec::with_capacity(self.moves.len());
        // A game ended by a rule that leaves moves legal (threefold repetition) ends the
        // opening too.
        let check = |position: &G, mv, text: &str| match position.game_end() {
            Some(_) => Err(GameError::GameOver(text.to_string())),
            None => {
                record.push(position.format_move_record(mv));
                Ok(())
            }
        };
        setup::play_moves_checked(&mut position, &self.moves, MoveTokens::OnePerToken, check)
            .map_err(|e| format!("opening {e}"))?;
        if game_end(&position).is_some() {
            return Err("the opening ends the game".to_string());
        }
        Ok((position, record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutoff::games::connect4::Connect4;

    #[test]
    fn openings_are_checked() {
        let ok = Opening {
            fen: None,
            moves: vec!["4".into(), "4".into()],
        };
        assert!(ok.position::<Connect4>(&()).is_ok());
        let illegal = Opening {
            fen: None,
            moves: vec!["8".into()],
        };
        assert!(illegal.position::<Connect4>(&()).is_err());
        let over = Opening {
            fen: None,
            moves: "1 2 1 2 1 2 1".split(' ').map(String::from).collect(),
        };
        assert!(over.position::<Connect4>(&()).is_err());
    }
}
