//! How a game describes itself to the tools and the protocol, and the one generic dispatch
//! from a game's name to its concrete type.
//!
//! Each game module exports a [`GameInfo`] (names, players, bench positions, opening book
//! and the like) for every variant it registers; the `registry!` macro in `games/mod.rs`
//! turns one line per game into [`GameKind`](super::GameKind) and its
//! [`GameKind::visit`](super::GameKind::visit) dispatch, so a
//! tool written once as a [`GameVisitor`] runs for every registered game.

use std::any::Any;
use std::path::Path;
use std::sync::Arc;

use super::setup::SetupError;
use crate::nnue::{FeatureSet, NetworkError};
use crate::search::{EloAnchor, Game, GameError, ScoreReport, WdlModel};

/// A bench position: a FEN (or the start position) and moves played from it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BenchPosition {
    /// The FEN to start from; `None` for the start position.
    pub fen: Option<&'static str>,
    /// Moves played from there, space-separated, in the game's notation.
    pub moves: &'static str,
}

impl BenchPosition {
    /// The start position followed by `moves`.
    pub const fn from_start(moves: &'static str) -> BenchPosition {
        BenchPosition { fen: None, moves }
    }

    /// The position given by `fen`.
    pub const fn fen(fen: &'static str) -> BenchPosition {
        BenchPosition {
            fen: Some(fen),
            moves: "",
        }
    }

    /// The position in `variant`; `Err` when the FEN or a move is refused.
    pub fn position<G: Game>(&self, variant: &G::Variant) -> Result<G, SetupError> {
        super::setup::position_from(variant, self.fen, self.moves.split_whitespace())
    }
}

/// How the board drawing marks the players' pieces, for colouring it in a terminal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PieceMarks {
    /// One character per player's stone (first, second), e.g. `x` and `o`.
    Stones(char, char),
    /// Piece letters: upper case for the first player, lower case for the second (chess).
    Letters,
}

/// One line of an exact test set (Pascal Pons' Connect Four sets): the moves that lead to
/// the position and its exact value as the engine reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestLine {
    /// The moves played from the start position, space-separated, in the game's notation.
    pub moves: String,
    /// The exact value for the side to move (`mate N`, `mate -N` or `cp 0`).
    pub expected: ScoreReport,
}

/// Reads one line of a game's exact test sets.
pub type TestLineParser = fn(&str) -> Result<TestLine, GameError>;

/// An evaluation network, loaded once and shared by every position and thread; the game
/// that loaded it downcasts it to its own type.
pub type EvalNet = Arc<dyn Any + Send + Sync>;

/// Endgame tables, opened once and shared by every position and thread; the game that
/// opened them downcasts them to its own type.
pub type Tablebase = Arc<dyn Any + Send + Sync>;

/// How a game takes endgame tables: the option that names their directories (chess:
/// `SyzygyPath`). How the search asks them are the game's own variant options.
#[derive(Clone, Copy, Debug)]
pub struct TablebaseSupport {
    /// The name of the `type string` option that names the directories.
    pub path_option: &'static str,
    /// Opens the tables of the option's value: the tables and a note on what was found,
    /// or what was wrong (then the game goes on without tables).
    pub open: fn(&str) -> Result<(Tablebase, String), String>,
}

/// How a game takes an evaluation network: the `EvalFile` and `UseNNUE` options.
#[derive(Clone, Copy, Debug)]
pub struct NetSupport {
    /// Reads and checks a net file; the error says what is wrong with it.
    pub load: fn(&Path) -> Result<EvalNet, String>,
    /// The net built into the binary, used when `EvalFile` names none.
    pub embedded: fn() -> Option<EvalNet>,
    /// The feature sets its nets may have, the default first: the game declares them, and
    /// [`net_error`] names another game's net by them.
    pub features: &'static [FeatureSet],
}

/// Why a net file was refused, the feature set it holds named by the game that declares
/// it (`this is a net for Chess768 (chess, 768 inputs), expected one for Ataxx147 (ataxx,
/// 147 inputs)`): the net module knows sets by id only.
pub fn net_error(error: &NetworkError) -> String {
    let NetworkError::WrongFeatures {
        found_id,
        found_inputs,
        expected,
    } = error
    else {
        return error.to_string();
    };
    let describe = |id: u8, inputs: usize| {
        let declared = super::all().find_map(|kind| {
            let sets = kind.info().eval_net?.features;
            let set = sets.iter().find(|set| set.id == id)?;
            Some(format!("{} ({}, {inputs} inputs)", set.name, kind.name()))
        });
        declared.unwrap_or_else(|| format!("feature set #{id} ({inputs} inputs)"))
    };
    format!(
        "this is a net for {}, expected one for {}",
        describe(*found_id, *found_inputs),
        describe(expected.id, expected.inputs)
    )
}

/// What a game (one variant of it) tells about itself, once, for every tool: who it is,
/// its [protocol settings](ProtocolSettings), its [tool settings](ToolSettings), and its
/// learned evaluation.
#[derive(Clone, Debug)]
pub struct GameInfo {
    /// The name used by `--game`, the `Game` option and `cutoff match -game`.
    pub name: &'static str,
    /// Other names accepted for it (compared without regard to case).
    pub aliases: &'static [&'static str],
    /// One line for `cutoff games`.
    pub summary: &'static str,
    /// The players' names in the game's own terms, first player first (`white`, `x`).
    pub players: [&'static str; 2],
    /// How the board drawing marks each player's pieces.
    pub pieces: PieceMarks,
    /// How the protocols and game records speak of it.
    pub protocol: ProtocolSettings,
    /// What the tools (bench, matches, solve) use.
    pub tools: ToolSettings,
    /// Whether an evaluation network may replace its evaluation (`EvalFile`, `UseNNUE`);
    /// how it is trained, if it is, is the training crate's (`cutoff_training`).
    pub eval_net: Option<NetSupport>,
    /// Whether endgame tables may answer its searches (chess: Syzygy).
    pub tablebases: Option<TablebaseSupport>,
    /// Its win/draw/loss model, fitted on its own self-play (`scripts/fit_wdl.py`), which
    /// reads the phase
    /// [`SearchRefinements::wdl_phase`](crate::search::SearchRefinements::wdl_phase)
    /// measures; `None` for a game without one (no `UCI_ShowWDL`).
    pub wdl: Option<WdlModel>,
    /// Its Elo scale, the levels that play at given ratings (`UCI_LimitStrength`,
    /// `UCI_Elo`); `None` where none is calibrated (`Skill Level` only).
    pub elo_scale: Option<&'static [EloAnchor]>,
}

/// A game's protocol settings: what the engine's protocols and its game records say of it.
#[derive(Clone, Debug)]
pub struct ProtocolSettings {
    /// The name of a protocol or dialect that belongs to this game: `uai` for Ataxx (the
    /// handshake selects the game), `gomocup` for gomoku (the Gomocup front end plays it).
    pub own_dialect: Option<&'static str>,
    /// The protocol options that choose its variant (chess: `UCI_Chess960`; gomoku: board
    /// size and rule), offered only while it is the current game; its variant builder reads
    /// their values from [`VariantSettings::options`].
    pub variant_options: &'static [VariantOption],
    /// How its own dialect's settings choose among its variant options (gomoku: the
    /// Gomocup's board size and rule); empty when the dialect sets none. The front end of
    /// the dialect reads them, so the protocol names no game.
    pub dialect_settings: &'static [DialectSetting],
    /// The PGN `Variant` tag of its game records; `None` for standard chess.
    pub pgn_variant: Option<&'static str>,
}

impl ProtocolSettings {
    /// No dialect, no variant option, no PGN variant tag.
    pub const NONE: ProtocolSettings = ProtocolSettings {
        own_dialect: None,
        variant_options: &[],
        dialect_settings: &[],
        pgn_variant: None,
    };

    /// The variant option and its value (unchecked) that the own dialect's `setting` at
    /// `value` stands for (Gomocup `rule` `1`: `Rule` `exact5`); `None` if the game maps
    /// neither the setting nor that value.
    pub fn dialect_option(&self, setting: &str, value: &str) -> Option<(VariantOption, String)> {
        let mapped = self
            .dialect_settings
            .iter()
            .find(|mapped| mapped.setting == setting)?;
        let option = self
            .variant_options
            .iter()
            .find(|option| option.name == mapped.option)?;
        let value = if mapped.values.is_empty() {
            value.to_string()
        } else {
            let (_, value) = mapped.values.iter().find(|(from, _)| *from == value)?;
            value.to_string()
        };
        Some((*option, value))
    }
}

/// One setting of a game's own protocol dialect, in the protocol's terms (the Gomocup's
/// `START 20` is setting `size` at `20`; `INFO rule 1` is `rule` at `1`), and the variant
/// option it sets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DialectSetting {
    /// The setting's name, as the dialect's front end asks for it.
    pub setting: &'static str,
    /// The name of the variant option it sets (one of
    /// [`ProtocolSettings::variant_options`]).
    pub option: &'static str,
    /// The option's value for each value of the setting (`("1", "exact5")`); empty: the
    /// setting's value is the option's.
    pub values: &'static [(&'static str, &'static str)],
}

/// A game's tool settings: what `bench`, `solve`, `cutoff match` and `scripts/sprt.sh` use.
#[derive(Clone, Debug)]
pub struct ToolSettings {
    /// The positions `bench` searches.
    pub bench_positions: &'static [BenchPosition],
    /// The depth `bench` searches them to.
    pub bench_depth: u32,
    /// The balanced opening book, relative to the repository root (`scripts/sprt.sh`).
    pub opening_book: &'static str,
    /// The time control `scripts/sprt.sh` uses by default, `base+inc` in seconds.
    pub match_tc: &'static str,
    /// Whether `solve` may search it without a node budget (its tree is small enough).
    pub solvable: bool,
    /// Parses a line of the game's exact test sets (for `solve --check`), if it has any.
    pub test_set: Option<TestLineParser>,
}

impl GameInfo {
    /// Whether `name` names this game (its name or an alias, any case).
    pub fn is_named(&self, name: &str) -> bool {
        let name = name.trim();
        std::iter::once(&self.name)
            .chain(self.aliases)
            .any(|known| known.eq_ignore_ascii_case(name))
    }
}

/// Which evaluation a game with [`GameInfo::eval_net`] uses (`UseNNUE`, `EvalFile`).
#[derive(Clone, Debug, Default)]
pub enum Evaluation {
    /// The game's default: the network built into the binary if it has one, else its
    /// hand-crafted evaluation.
    #[default]
    BuiltIn,
    /// The hand-crafted evaluation even when a network is built in (`UseNNUE false`).
    HandCrafted,
    /// This network (`EvalFile`); a game ignores a network of another game's type.
    Net(EvalNet),
}

/// The type and range of a game's variant option, as the handshake lists it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VariantOptionKind {
    /// `type check`: `true` or `false`.
    Check {
        /// The value when none is set.
        default: bool,
    },
    /// `type spin`: an integer from `min` to `max`.
    Spin {
        /// The value when none is set.
        default: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// `type combo`: one of `vars` (compared without regard to case).
    Combo {
        /// The value when none is set.
        default: &'static str,
        /// The values it takes.
        vars: &'static [&'static str],
    },
}

/// A protocol option that chooses a game's variant ([`ProtocolSettings::variant_options`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct VariantOption {
    /// Its name in `setoption name ...` (compared without regard to case).
    pub name: &'static str,
    /// Its type, default and range.
    pub kind: VariantOptionKind,
}

impl VariantOption {
    /// The handshake's `option name ... type ...` line.
    pub fn line(&self) -> String {
        let name = self.name;
        match self.kind {
            VariantOptionKind::Check { default } => {
                format!("option name {name} type check default {default}")
            }
            VariantOptionKind::Spin { default, min, max } => {
                format!("option name {name} type spin default {default} min {min} max {max}")
            }
            VariantOptionKind::Combo { default, vars } => {
                let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
                format!("option name {name} type combo default {default}{vars}")
            }
        }
    }

    /// The value as the option stores it (`true`, `15`, `freestyle`), or why `value` is
    /// refused.
    pub fn check(&self, value: &str) -> Result<String, String> {
        let value = value.trim();
        let expected = match self.kind {
            VariantOptionKind::Check { .. } => {
                let lower = value.to_ascii_lowercase();
                if lower == "true" || lower == "false" {
                    return Ok(lower);
                }
                "true or false".to_string()
            }
            VariantOptionKind::Spin { min, max, .. } => {
                let digits = value.strip_prefix('-').unwrap_or(value);
                let plain = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
                match value.parse::<i64>() {
                    Ok(n) if plain && (min..=max).contains(&n) => return Ok(n.to_string()),
                    _ => format!("an integer from {min} to {max}"),
                }
            }
            VariantOptionKind::Combo { vars, .. } => {
                if let Some(var) = vars.iter().find(|v| v.eq_ignore_ascii_case(value)) {
                    return Ok(var.to_string());
                }
                format!("one of {}", vars.join(", "))
            }
        };
        Err(expected)
    }

    /// The default value, as [`VariantOption::check`] writes values.
    pub fn default_value(&self) -> String {
        match self.kind {
            VariantOptionKind::Check { default } => default.to_string(),
            VariantOptionKind::Spin { default, .. } => default.to_string(),
            VariantOptionKind::Combo { default, .. } => default.to_string(),
        }
    }
}

/// Settings of the protocol that choose a variant (a game's own
/// [`ProtocolSettings::variant_options`]) and its evaluation (`EvalFile`, `UseNNUE`).
#[derive(Clone, Debug, Default)]
pub struct VariantSettings {
    /// Values of variant options, checked by [`VariantOption::check`], by option name as
    /// the game declares it; an option without a value has its default.
    pub options: Vec<(&'static str, String)>,
    /// The evaluation, for a game with [`GameInfo::eval_net`]; other games have only
    /// their own.
    pub evaluation: Evaluation,
    /// The endgame tables opened for a game with [`GameInfo::tablebases`] (`None`: none).
    pub tablebase: Option<Tablebase>,
}

impl VariantSettings {
    /// The value set for `option`, else its default.
    pub fn value(&self, option: &VariantOption) -> String {
        self.options
            .iter()
            .find(|(name, _)| *name == option.name)
            .map_or_else(|| option.default_value(), |(_, value)| value.clone())
    }

    /// A `type check` option's value.
    pub fn check(&self, option: &VariantOption) -> bool {
        self.value(option) == "true"
    }

    /// A `type spin` option's value (its default if the stored value is no number).
    pub fn spin(&self, option: &VariantOption) -> i64 {
        let default = match option.kind {
            VariantOptionKind::Spin { default, .. } => default,
            _ => 0,
        };
        self.value(option).parse().unwrap_or(default)
    }

    /// Sets `option` to `value` (already checked), replacing its earlier value.
    pub fn set(&mut self, option: &VariantOption, value: String) {
        self.options.retain(|(name, _)| *name != option.name);
        self.options.push((option.name, value));
    }
}

/// A registered game handed to a [`GameVisitor`]: which one, its description and variant.
#[derive(Clone, Debug)]
pub struct Registered<G: Game> {
    /// The game's registry entry.
    pub kind: super::GameKind,
    /// Its description.
    pub info: &'static GameInfo,
    /// The variant to play.
    pub variant: G::Variant,
}

/// Code that runs for any registered game: [`GameKind::visit`](super::GameKind::visit)
/// calls `visit` with the game's concrete type.
pub trait GameVisitor {
    /// What the visit returns.
    type Output;
    /// Runs for the game `G`.
    fn visit<G: Game>(self, game: Registered<G>) -> Self::Output;
}

/// Writes the registry: one line per game, `Kind: Type = variant, info;` where `variant`
/// is a function of the [`VariantSettings`]. It defines [`GameKind`](super::GameKind) with
/// `ALL`, `info` and `visit`.
macro_rules! registry {
    ($($kind:ident: $game:ty = $variant:expr, $info:expr;)+) => {
        /// Every game the engine can play, in the order `cutoff games` lists them; the
        /// first is the default.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum GameKind {
            $(
                #[doc = concat!("Registered from `", stringify!($game), "`.")]
                $kind,
            )+
        }

        impl GameKind {
            /// All games, in registry order.
            pub const ALL: &'static [GameKind] = &[$(GameKind::$kind),+];

            /// The game's description.
            pub fn info(self) -> &'static $crate::games::registry::GameInfo {
                match self {
                    $(GameKind::$kind => &$info,)+
                }
            }

            /// Runs `visitor` with the game's concrete type and the variant that
            /// `settings` select.
            pub fn visit<V: $crate::games::registry::GameVisitor>(
                self,
                settings: &$crate::games::registry::VariantSettings,
                visitor: V,
            ) -> V::Output {
                match self {
                    $(GameKind::$kind => {
                        let variant_of: fn(
                            &$crate::games::registry::VariantSettings,
                        ) -> <$game as $crate::search::Rules>::Variant = $variant;
                        visitor.visit::<$game>($crate::games::registry::Registered {
                            kind: self,
                            info: self.info(),
                            variant: variant_of(settings),
                        })
                    })+
                }
            }
        }
    };
}

pub(crate) use registry;
