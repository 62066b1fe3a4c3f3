//! The FEN text shared by the stone-placing games (Connect Four, m,n,k): rows from top
//! to bottom separated by `/`, `x` and `o` for the players' stones, decimal numbers for
//! runs of empty cells, then the side to move.

use std::fmt::Write;

use crate::search::Player;

/// Writes a board of `width` x `height` cells; `stone(file, rank)` gives the stone on a
/// cell (rank 0 at the bottom).
pub fn write_fen(
    width: usize,
    height: usize,
    stone: impl Fn(usize, usize) -> Option<Player>,
    to_move: Player,
) -> String {
    let mut fen = String::with_capacity(width * height + 4);
    for rank in (0..height).rev() {
        let mut run = 0;
        for file in 0..width {
            match stone(file, rank) {
                None => run += 1,
                Some(player) => {
                    if run > 0 {
                        let _ = write!(fen, "{run}");
                        run = 0;
                    }
                    fen.push(symbol(player));
                }
            }
        }
        if run > 0 {
            let _ = write!(fen, "{run}");
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen.push(' ');
    fen.push(symbol(to_move));
    fen
}

fn symbol(player: Player) -> char {
    match player {
        Player::First => 'x',
        Player::Second => 'o',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_runs_as_decimal_numbers() {
        let fen = write_fen(
            12,
            2,
            |file, rank| match (file, rank) {
                (0, 0) => Some(Player::First),
                (11, 1) => Some(Player::Second),
                _ => None,
            },
            Player::Second,
        );
        assert_eq!(fen, "11o/x11 o");
    }
}
