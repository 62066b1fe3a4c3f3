//! The games cutoff knows, one module each, and the registry of their names.

pub mod chess;
pub mod connect4;
pub mod grid;
pub mod mnk;

/// Every game the engine can play, by its protocol name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameKind {
    /// Chess (default).
    Chess,
    /// Connect Four, 7 columns by 6 rows.
    Connect4,
    /// Tic-tac-toe: 3x3, three in a row.
    TicTacToe,
    /// 4x4, four in a row.
    TicTacToe4,
    /// Gomoku: 15x15, five or more in a row (freestyle).
    Gomoku,
}

impl GameKind {
    /// All games, in the order `uci` lists them.
    pub const ALL: [GameKind; 5] = [
        GameKind::Chess,
        GameKind::Connect4,
        GameKind::TicTacToe,
        GameKind::TicTacToe4,
        GameKind::Gomoku,
    ];

    /// The name used by `--game` and the `Game` option.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Chess => "chess",
            GameKind::Connect4 => "connect4",
            GameKind::TicTacToe => "tictactoe",
            GameKind::TicTacToe4 => "tictactoe4",
            GameKind::Gomoku => "gomoku",
        }
    }

    /// Looks a game up by name (case-insensitive).
    pub fn from_name(name: &str) -> Option<GameKind> {
        GameKind::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(name.trim()))
    }
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
