//! The games cutoff knows, one module each, and the registry that names them.
//!
//! # Adding a game
//!
//! A new game needs exactly this:
//!
//! 1. **One module** `src/games/<game>.rs` (or a folder) with
//!    - a type implementing the four game traits of [`crate::search::game`] (the search
//!      takes them together as `Game`, implemented for every type that has the four). A
//!      game writes 19 items; `minimal_game_tests.rs` beside this file is such a game (Nim),
//!      searched and solved by the engine's core:
//!      - [`Rules`](crate::search::Rules), rules and notation, 15 mandatory items: `Move`,
//!        `Variant`, `start`, `from_fen`, `to_fen`, `render`, `side_to_move`, `ply`,
//!        `generate_moves`, `make_move`, `unmake_move`, `outcome`, `hash`, `parse_move`,
//!        `format_move` (`game_end`, `rules_only` and `format_move_record` have defaults);
//!      - [`SearchHooks`](crate::search::SearchHooks), what every game's search reads, 15
//!        items: `evaluate`, `encode_move`, `HISTORY_SIZE` and `history_index` are
//!        mandatory; `move_hint` (wins and captures first), `pruning` and `SEARCH_PARAMS`,
//!        `generate_search_moves`, `evaluate_mut`, quiescence's `generate_noisy`,
//!        `is_noisy` and `in_check`, and null move (`null_move_allowed`, `make_null`,
//!        `unmake_null`) only where the game gains from them;
//!      - [`SearchRefinements`](crate::search::SearchRefinements), all optional, what one
//!        game or two refine (continuation and capture histories, forcing moves in the
//!        quiet history, `hash_after`, `gives_check`, `exchange_at_least`,
//!        `correction_key`, `is_search_draw`, endgame tables, `CHECK_INTERVAL`,
//!        `wdl_phase`); a game with none writes `impl SearchRefinements for MyGame {}`;
//!      - [`ExactHooks`](crate::search::ExactHooks), all optional: `dedicated_solver`,
//!        `book_move`, `remaining_plies_bound`; a game with none writes
//!        `impl ExactHooks for MyGame {}`;
//!    - a `pub const INFO: GameInfo` per variant it registers ([`GameInfo`]: names,
//!      players, how the board marks pieces; its [`ProtocolSettings`]: a protocol or
//!      dialect of its own, the protocol options that choose its variant (read by its
//!      variant builder), its PGN variant tag; its [`ToolSettings`]: bench positions and
//!      depth, opening book, the SPRT time control, whether `solve` may run unbudgeted, a
//!      test-set format; a loadable evaluation net, each where it has one); a game whose
//!      net is trained also implements `cutoff_training::TrainingSupport` (its self-play
//!      and records) in the training crate, `training/src/<game>`, and takes one line in
//!      its list of trained games;
//!    - its unit tests: perft counts from an outside source, FEN round trips, bad input.
//! 2. **One line** in the `registry!` below: `Kind: Type = |settings| variant, INFO;`
//!    (the variant built from the [`VariantSettings`]: its variant options' values and the
//!    evaluation), and one in the table of what each game provides (the test
//!    `every_game_provides_what_the_table_says` below).
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
pub mod gomoku;
pub mod grid;
pub mod mnk;
pub mod registry;
pub mod setup;

#[cfg(test)]
mod truth_tests;

#[cfg(test)]
mod minimal_game_tests;

pub use registry::{
    net_error, BenchPosition, DialectSetting, EvalNet, Evaluation, GameInfo, GameVisitor,
    NetSupport, PieceMarks, ProtocolSettings, Registered, Tablebase, TablebaseSupport, TestLine,
    ToolSettings, VariantOption, VariantOptionKind, VariantSettings,
};

registry::registry! {
    Chess: chess::Chess = chess::ChessVariant::from_settings, chess::INFO;
    Connect4: connect4::Connect4 = |_| (), connect4::INFO;
    TicTacToe: mnk::Mnk = |_| mnk::MnkVariant::TICTACTOE, mnk::TICTACTOE_INFO;
    TicTacToe4: mnk::Mnk = |_| mnk::MnkVariant::TICTACTOE4, mnk::TICTACTOE4_INFO;
    Gomoku: gomoku::Gomoku = gomoku::freestyle15, gomoku::INFO;
    Gomoku20: gomoku::Gomoku = gomoku::freestyle20, gomoku::INFO20;
    GomokuStandard: gomoku::Gomoku = gomoku::standard15, gomoku::STANDARD_INFO;
    GomokuRenju: gomoku::Gomoku = gomoku::renju15, gomoku::RENJU_INFO;
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

/// Whether `kind` has `handshake` as its own protocol dialect.
fn owns_dialect(kind: GameKind, handshake: &str) -> bool {
    kind.info().protocol.own_dialect == Some(handshake)
}

/// The game whose own protocol dialect starts with `handshake` (`uai`: Ataxx), if any.
pub fn with_dialect(handshake: &str) -> Option<GameKind> {
    all().find(|&kind| owns_dialect(kind, handshake))
}

/// Whether `game` may be played over the dialect `handshake`: a dialect that games own
/// (`uai`: Ataxx; `gomocup`: the gomoku entries) plays only those; the error names them.
pub fn check_dialect(game: GameKind, handshake: &str) -> Result<(), String> {
    let owners: Vec<GameKind> = all()
        .filter(|&kind| owns_dialect(kind, handshake))
        .collect();
    if owners.is_empty() || owners.contains(&game) {
        return Ok(());
    }
    let names: Vec<&str> = owners.iter().map(|kind| kind.name()).collect();
    Err(format!("{handshake} plays only {}", names.join(", ")))
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
            if info.tools.bench_positions.is_empty() || info.tools.bench_depth == 0 {
                return Err(format!("{}: no bench", info.name));
            }
            for position in info.tools.bench_positions {
                position
                    .position::<G>(&game.variant)
                    .map_err(|e| format!("{}: bench position {position:?}: {e}", info.name))?;
            }
            if !std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(info.tools.opening_book)
                .is_file()
            {
                return Err(format!(
                    "{}: no book at {}",
                    info.name, info.tools.opening_book
                ));
            }
            match info.wdl {
                Some(model) => check_wdl(&model, G::start(&game.variant).wdl_phase())
                    .map_err(|e| format!("{}: {e}", info.name)),
                None => Ok(()),
            }
        }
    }

    /// A fitted win/draw/loss model, over its phase range and the start's phase: chances
    /// that sum to 1000, rise with the score, and are the other side's reversed (which
    /// fails where the fit's `a` is negative: win and loss would exceed 1000 together).
    fn check_wdl(model: &crate::search::WdlModel, start: i32) -> Result<(), String> {
        let phases = model.phase_min - 1..=model.phase_max + 1;
        for phase in phases.chain([start]) {
            let mut last = model.wdl(-3000, phase);
            for score in (-3000..=3000).step_by(5) {
                let wdl = model.wdl(score, phase);
                if wdl.win + wdl.draw + wdl.loss != 1000
                    || wdl.win < last.win
                    || wdl.loss > last.loss
                    || model.wdl(-score, phase) != wdl.flipped()
                {
                    return Err(format!("wdl at score {score}, phase {phase}: {wdl:?}"));
                }
                last = wdl;
            }
        }
        Ok(())
    }

    /// A visitor that names what a registered game provides beyond its rules: the optional
    /// [`SearchHooks`](crate::search::SearchHooks) and
    /// [`SearchRefinements`](crate::search::SearchRefinements) it switches on and the
    /// [`ExactHooks`](crate::search::ExactHooks) it implements, in a fixed order.
    struct Provides;

    impl GameVisitor for Provides {
        type Output = Vec<&'static str>;

        fn visit<G: crate::search::Game>(self, game: Registered<G>) -> Self::Output {
            let start = G::start(&game.variant);
            let pruning = start.pruning();
            [
                (game.info.eval_net.is_some(), "net"),
                (game.info.wdl.is_some(), "wdl"),
                (
                    G::SEARCH_PARAMS != crate::search::SearchParams::DEFAULT,
                    "own-params",
                ),
                (G::CONTINUATION_SIZE > 0, "continuation-history"),
                (G::CAPTURE_HISTORY_SIZE > 0, "capture-history"),
                (G::FORCING_HISTORY, "forcing-history"),
                (pruning.quiescence, "quiescence"),
                (pruning.null_move, "null-move"),
                (pruning.late_move_reductions, "lmr"),
                (pruning.reverse_futility, "reverse-futility"),
                (pruning.futility, "futility"),
                (pruning.exchange_pruning, "exchange-pruning"),
                (pruning.singular_extensions, "singular"),
                (pruning.singular_off_pv_only, "singular-off-pv"),
                (pruning.eval_correction, "correction"),
                (pruning.check_extensions, "check-extensions"),
                (pruning.internal_reductions, "iir"),
                (pruning.internal_reductions_everywhere, "iir-all-nodes"),
                (G::dedicated_solver(1, 1).is_some(), "solver"),
                (start.book_move().is_some(), "book"),
                (start.remaining_plies_bound().is_some(), "plies-bound"),
            ]
            .into_iter()
            .filter_map(|(provided, name)| provided.then_some(name))
            .collect()
        }
    }

    /// What each registered game provides beyond its rules. A game that gains or loses a
    /// hook changes this table in the same commit, so the change is seen.
    #[test]
    fn every_game_provides_what_the_table_says() {
        let expected = [
            "chess: net wdl own-params continuation-history capture-history quiescence null-move \
             lmr reverse-futility futility exchange-pruning singular correction iir",
            "connect4: solver book plies-bound",
            "tictactoe: plies-bound",
            "tictactoe4: plies-bound",
            "gomoku: net own-params quiescence null-move lmr reverse-futility futility \
             check-extensions iir plies-bound",
            "gomoku20: net own-params quiescence null-move lmr reverse-futility futility \
             check-extensions iir plies-bound",
            "gomoku-standard: net own-params quiescence null-move lmr reverse-futility futility \
             check-extensions iir plies-bound",
            "gomoku-renju: net own-params quiescence null-move lmr reverse-futility futility \
             check-extensions iir plies-bound",
            "ataxx: net wdl own-params forcing-history null-move lmr reverse-futility futility \
             singular singular-off-pv iir iir-all-nodes",
        ];
        let found: Vec<String> = all()
            .map(|kind| format!("{kind}: {}", kind.visit_default(Provides).join(" ")))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_games_own_dialect_plays_only_its_owners() {
        let game = |name| find(name).unwrap();
        assert_eq!(check_dialect(game("ataxx"), "uai"), Ok(()));
        assert_eq!(check_dialect(game("chess"), "ugi"), Ok(()));
        for gomoku in ["gomoku", "gomoku20", "gomoku-standard", "gomoku-renju"] {
            assert_eq!(check_dialect(game(gomoku), "gomocup"), Ok(()));
        }
        assert_eq!(
            check_dialect(game("connect4"), "gomocup"),
            Err("gomocup plays only gomoku, gomoku20, gomoku-standard, gomoku-renju".to_string())
        );
        assert_eq!(
            check_dialect(game("gomoku"), "uai"),
            Err("uai plays only ataxx".to_string())
        );
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
