//! The games cutoff knows, one module each, and the registry that names them.
//!
//! # Adding a game
//!
//! A new game needs exactly this:
//!
//! 1. **One module** `src/games/<game>.rs` (or a folder) with
//!    - a type implementing [`Game`](crate::search::Game): rules (start, FEN in and out,
//!      move generation, make/unmake, `outcome`), notation (`parse_move`, `format_move`),
//!      `hash`, `evaluate`, `encode_move`, `history_index`; the hooks with defaults
//!      (`move_hint`, `pruning`, `game_end`, quiescence, null move, continuation and
//!      capture history indices, a dedicated solver, a book move) only where the game
//!      gains from them;
//!    - a `pub const INFO: GameInfo` per variant it registers ([`GameInfo`]: names,
//!      players, how the board marks pieces, bench positions and depth, opening book, the
//!      SPRT time control, whether `solve` may run unbudgeted, a test-set format, a
//!      protocol dialect of its own, a loadable evaluation net, each where it has one);
//!      a game whose net is trained also implements `cutoff_training::TrainingSupport`
//!      (its self-play and records) in the training crate, `training/src/<game>`, and
//!      takes one line in its list of trained games;
//!    - its unit tests: perft counts from an outside source, FEN round trips, bad input.
//! 2. **One line** in the `registry!` below: `Kind: Type = |settings| variant, INFO;`.
//! 3. Its **opening book** `openings/<name>.txt` (made by `scripts/gen_openings.py`), and
//!    its section in README.md and protocol.md (notation, FEN, end of the game).
//!
//! Nothing else: the protocol session, `bench`, `perft`, `solve`, `tree-stats`,
//! `cutoff match`, `cutoff play`, the `Game` option, `--game` and `cutoff games` (which
//! `scripts/sprt.sh` reads) all go through
//! [`GameKind::visit`] and [`GameInfo`].

pub mod ataxx;
pub mod chess;
pub mod connect4;
pub mod grid;
pub mod mnk;
pub mod registry;
pub mod setup;

pub use registry::{
    net_error, BenchPosition, EvalNet, Evaluation, GameInfo, GameVisitor, NetSupport, PieceMarks,
    Registered, TestLine, VariantSettings,
};

registry::registry! {
    Chess: chess::Chess = chess::ChessVariant::from_settings, chess::INFO;
    Connect4: connect4::Connect4 = |_| (), connect4::INFO;
    TicTacToe: mnk::Mnk = |_| mnk::MnkVariant::TICTACTOE, mnk::TICTACTOE_INFO;
    TicTacToe4: mnk::Mnk = |_| mnk::MnkVariant::TICTACTOE4, mnk::TICTACTOE4_INFO;
    Gomoku: mnk::Mnk = |_| mnk::MnkVariant::GOMOKU, mnk::GOMOKU_INFO;
    Ataxx: ataxx::Ataxx = ataxx::AtaxxVariant::from_settings, ataxx::INFO;
}

impl GameKind {
    /// The name used by `--game` and the `Game` option.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Looks a game up by its name or an alias (case-insensitive).
    pub fn from_name(name: &str) -> Option<GameKind> {
        GameKind::ALL
            .iter()
            .copied()
            .find(|kind| kind.info().is_named(name))
    }

    /// Runs `visitor` for the game's default variant.
    pub fn visit_default<V: GameVisitor>(self, visitor: V) -> V::Output {
        self.visit(&VariantSettings::default(), visitor)
    }

    /// Whether this game is played by the type `G`: how a tool written for one game's type
    /// (chess training, the Connect Four book) checks the game it is given, by the registry
    /// rather than by name.
    pub fn plays<G: crate::search::Game>(self) -> bool {
        /// Compares the visited game's type with `T`.
        struct IsType<T>(std::marker::PhantomData<T>);
        impl<T: crate::search::Game> GameVisitor for IsType<T> {
            type Output = bool;
            fn visit<G: crate::search::Game>(self, _: Registered<G>) -> bool {
                std::any::TypeId::of::<G>() == std::any::TypeId::of::<T>()
            }
        }
        self.visit_default(IsType::<G>(std::marker::PhantomData))
    }
}

impl Default for GameKind {
    fn default() -> Self {
        GameKind::ALL[0]
    }
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The game played when none is named (the registry's first: chess).
pub fn default_game() -> GameKind {
    GameKind::default()
}

/// Every registered game, in registry order.
pub fn all() -> impl Iterator<Item = GameKind> {
    GameKind::ALL.iter().copied()
}

/// The game called `name` (or an alias of it), ignoring case.
pub fn find(name: &str) -> Option<GameKind> {
    GameKind::from_name(name)
}

/// The game whose own protocol dialect starts with `handshake` (`uai`: Ataxx), if any.
pub fn with_dialect(handshake: &str) -> Option<GameKind> {
    all().find(|kind| kind.info().own_dialect == Some(handshake))
}

/// The names of every game, joined by `separator` (for help texts and errors).
pub fn names(separator: &str) -> String {
    all()
        .map(GameKind::name)
        .collect::<Vec<_>>()
        .join(separator)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A visitor that checks every registered game's description against its rules.
    struct CheckInfo;

    impl GameVisitor for CheckInfo {
        type Output = Result<(), String>;

        fn visit<G: crate::search::Game>(self, game: Registered<G>) -> Self::Output {
            let info = game.info;
            if info.bench_positions.is_empty() || info.bench_depth == 0 {
                return Err(format!("{}: no bench", info.name));
            }
            for position in info.bench_positions {
                position
                    .position::<G>(&game.variant)
                    .map_err(|e| format!("{}: bench position {position:?}: {e}", info.name))?;
            }
            if !std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(info.opening_book)
                .is_file()
            {
                return Err(format!("{}: no book at {}", info.name, info.opening_book));
            }
            Ok(())
        }
    }

    #[test]
    fn every_game_describes_itself_truthfully() {
        for kind in all() {
            kind.visit_default(CheckInfo).unwrap();
            assert_eq!(find(kind.name()), Some(kind));
            assert_eq!(find(&kind.name().to_uppercase()), Some(kind));
        }
        assert_eq!(GameKind::default().name(), "chess");
        assert_eq!(find("no such game"), None);
        let names: Vec<&str> = all().map(GameKind::name).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }
}
