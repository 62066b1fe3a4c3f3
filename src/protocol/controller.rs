//! The state every front end shares: the [`Controller`] holds the current game and its
//! session, and the engine's settings (table size, threads, the game's variant options,
//! the evaluation), which it carries over when the game or its variant changes. A front
//! end parses lines and executes them against it; the protocol loop (`engine_loop`) owns
//! the front ends and feeds them.
//!
//! The protocol knows no tool: the `bench` command runs the [`BenchCommand`] that
//! `main.rs` passes to the loop.

use std::time::Duration;

use crossbeam_channel::Sender;

use super::options::{net_by_default, OptionChange, DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS};
use super::session::{new_session, Session};
use crate::games::{EvalNet, Evaluation, GameKind, Tablebase, VariantOption, VariantSettings};
use crate::search::skill::{game_seed, level_of_elo, Skill};

/// Engine name printed by the handshake.
pub const ENGINE_NAME: &str = concat!("cutoff ", env!("CARGO_PKG_VERSION"));
/// Authors printed by the handshake.
pub const ENGINE_AUTHOR: &str = "the cutoff developers";

/// The `bench` command, wired in by the caller of the protocol loop: given the depth that overrides
/// every game's default (if any) and the hash size in MiB, it returns the report's lines.
pub type BenchCommand = fn(Option<u32>, usize) -> Vec<String>;

/// The current game session and the engine's settings, shared by every front end.
pub struct Controller {
    out: Sender<String>,
    session: Box<dyn Session>,
    game: GameKind,
    hash_mb: usize,
    move_overhead: Duration,
    threads: usize,
    multipv: usize,
    /// Values of the games' variant options (`UCI_Chess960`, `BoardSize`...), kept for
    /// every game that was current when they were set.
    variant_values: Vec<(GameKind, &'static str, String)>,
    /// The network `EvalFile` loaded, with the game it was loaded for.
    eval_file: Option<(GameKind, EvalNet)>,
    /// `UseNNUE` (on at the start, whatever the game): evaluate with `eval_file`'s
    /// network, else the game's default (its built-in network, if it has one); off: the
    /// hand-crafted evaluation.
    use_net: bool,
    /// The endgame tables the game's path option opened, with the game they are for.
    tablebase: Option<(GameKind, Tablebase)>,
    /// `UCI_ShowWDL`: `info` lines carry the win/draw/loss chances (games with a model).
    show_wdl: bool,
    /// `Skill Level`, `UCI_LimitStrength` and `UCI_Elo`, and the seed of the games' levels.
    strength: Strength,
    /// Tuning build only: the search constants set since the current game was chosen
    /// (option name and value, in order; a new game starts from its own constants).
    #[cfg(feature = "tune")]
    search_params: Vec<(&'static str, i64)>,
}

impl Controller {
    /// A controller playing `game` in its default variant; lines go to `out`.
    pub fn new(game: GameKind, out: Sender<String>) -> Controller {
        Controller {
            out,
            session: new_session(game, DEFAULT_HASH_MB, &VariantSettings::default()),
            game,
            hash_mb: DEFAULT_HASH_MB,
            move_overhead: Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS),
            threads: 1,
            multipv: 1,
            variant_values: Vec::new(),
            eval_file: None,
            use_net: true,
            tablebase: None,
            show_wdl: false,
            strength: Strength::new(),
            #[cfg(feature = "tune")]
            search_params: Vec::new(),
        }
    }

    /// The current game.
    pub fn game(&self) -> GameKind {
        self.game
    }

    /// The current game's session.
    pub fn session(&self) -> &dyn Session {
        self.session.as_ref()
    }

    /// The current game's session, to change its position or start a search.
    pub fn session_mut(&mut self) -> &mut dyn Session {
        self.session.as_mut()
    }

    /// The table size in MiB.
    pub fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// Whether `info` lines report the win/draw/loss chances (`UCI_ShowWDL`).
    pub fn show_wdl(&self) -> bool {
        self.show_wdl
    }

    /// Sends one line to the writer thread.
    pub fn send(&self, line: impl Into<String>) {
        let _ = self.out.send(line.into());
    }

    /// Where search lines go (for [`Session::go`]).
    pub fn output(&self) -> Sender<String> {
        self.out.clone()
    }

    /// How the current game evaluates: with `UseNNUE` on, `EvalFile`'s network, else the
    /// game's default (its built-in network, if any); with it off, the hand-crafted
    /// evaluation.
    fn evaluation(&self) -> Evaluation {
        if !self.use_net {
            return Evaluation::HandCrafted;
        }
        match &self.eval_file {
            Some((kind, net)) if *kind == self.game => Evaluation::Net(net.clone()),
            _ => Evaluation::BuiltIn,
        }
    }

    /// Whether the current game would evaluate with a network if `UseNNUE` were on.
    fn has_net(&self) -> bool {
        matches!(&self.eval_file, Some((kind, _)) if *kind == self.game)
            || net_by_default(self.game)
    }

    /// The settings that build the current game's variant.
    fn settings(&self) -> VariantSettings {
        let tablebase = match &self.tablebase {
            Some((kind, tables)) if *kind == self.game => Some(tables.clone()),
            _ => None,
        };
        let mut settings = VariantSettings {
            evaluation: self.evaluation(),
            tablebase,
            ..VariantSettings::default()
        };
        for option in self.game.info().protocol.variant_options {
            let value = self
                .variant_values
                .iter()
                .find(|(kind, name, _)| *kind == self.game && *name == option.name);
            if let Some((_, _, value)) = value {
                settings.set(option, value.clone());
            }
        }
        settings
    }

    /// Replaces the session (another game, variant or evaluation), carrying the settings
    /// over.
    fn rebuild_session(&mut self) {
        self.session.stop();
        let mut session = new_session(self.game, self.hash_mb, &self.settings());
        session.set_move_overhead(self.move_overhead);
        session.set_threads(self.threads);
        session.set_multipv(self.multipv);
        session.set_skill(self.strength.skill(self.game));
        #[cfg(feature = "tune")]
        if let Err(e) = session.set_search_params(&self.search_params) {
            // Checked when they were set: only another game's constants could clash.
            log::warn!("search constants dropped: {e}");
            self.search_params.clear();
        }
        self.session = session;
    }

    /// Makes `game` the current game (a new session if it changes).
    pub fn set_game(&mut self, game: GameKind) {
        if game != self.game {
            self.game = game;
            #[cfg(feature = "tune")]
            self.search_params.clear();
            self.rebuild_session();
        }
    }

    /// The value of the current game's variant option `option` (its default if unset).
    pub fn variant_value(&self, option: &VariantOption) -> String {
        self.settings().value(option)
    }

    /// Sets a variant option of the current game to a checked `value` (a new session when
    /// it changes).
    pub fn set_variant(&mut self, option: &VariantOption, value: String) {
        if self.variant_value(option) == value {
            return;
        }
        let game = self.game;
        self.variant_values
            .retain(|(kind, name, _)| !(*kind == game && *name == option.name));
        self.variant_values.push((game, option.name, value));
        self.rebuild_session();
    }

    /// Applies a checked `setoption` (the caller refuses it during a search). `Ok` may
    /// carry a note for the user (`EvalFile ... loaded`); on `Err` nothing changed.
    pub fn apply(&mut self, change: OptionChange) -> Result<Option<String>, String> {
        match change {
            OptionChange::Hash(mb) => {
                self.session.resize_hash(mb)?;
                self.hash_mb = mb;
            }
            OptionChange::ClearHash => self.session.clear_hash(),
            OptionChange::MoveOverhead(ms) => {
                self.move_overhead = Duration::from_millis(ms);
                self.session.set_move_overhead(self.move_overhead);
            }
            OptionChange::Threads(threads) => {
                self.threads = threads;
                self.session.set_threads(threads);
            }
            OptionChange::Ponder(_) => {}
            OptionChange::ShowWdl(on) => self.show_wdl = on,
            OptionChange::SkillLevel(level) => {
                self.strength.level = level;
                self.apply_strength();
            }
            OptionChange::LimitStrength(on) => {
                self.strength.limit = on;
                self.apply_strength();
            }
            OptionChange::Elo(elo) => {
                self.strength.elo = Some(elo);
                self.apply_strength();
            }
            OptionChange::MultiPv(lines) => {
                self.multipv = lines;
                self.session.set_multipv(lines);
            }
            OptionChange::Game(kind) => self.set_game(kind),
            OptionChange::Variant { option, value } => self.set_variant(&option, value),
            OptionChange::EvalFile(path) => return self.set_eval_file(path),
            OptionChange::TablebasePath(path) => return self.set_tablebase_path(path),
            OptionChange::UseNnue(on) => {
                if on && !self.has_net() {
                    return Err(
                        "UseNNUE needs a network: set EvalFile first (none is built \
                                in); the evaluation is unchanged"
                            .to_string(),
                    );
                }
                if on != self.use_net {
                    self.use_net = on;
                    self.rebuild_session();
                }
            }
            #[cfg(feature = "tune")]
            OptionChange::SearchParam { name, value } => {
                let mut values = self.search_params.clone();
                values.retain(|&(set, _)| set != name);
                values.push((name, value));
                self.session.set_search_params(&values)?;
                self.search_params = values;
            }
        }
        Ok(None)
    }

    /// Loads the net at `path` for the current game (`None`: back to the built-in one);
    /// an error, with the evaluation unchanged, if the file is refused.
    fn set_eval_file(&mut self, path: Option<String>) -> Result<Option<String>, String> {
        let Some(support) = self.game.info().eval_net else {
            return Err(format!("{} takes no network", self.game));
        };
        let note = match path {
            None => {
                self.eval_file = None;
                None
            }
            Some(path) => match (support.load)(std::path::Path::new(&path)) {
                Ok(net) => {
                    self.eval_file = Some((self.game, net));
                    Some(format!("EvalFile {path} loaded"))
                }
                Err(e) => {
                    return Err(format!(
                        "EvalFile refused: {e}; the evaluation is unchanged"
                    ))
                }
            },
        };
        if self.use_net {
            self.rebuild_session();
        }
        Ok(note)
    }

    /// Opens the endgame tables of `path` for the current game (`None`: none). The tables
    /// in use are let go first (a prober may hold one set at a time), so on `Err` (what
    /// was wrong with the path) the game goes on without tables.
    fn set_tablebase_path(&mut self, path: Option<String>) -> Result<Option<String>, String> {
        let Some(support) = self.game.info().tablebases else {
            return Err(format!("{} takes no endgame tables", self.game));
        };
        let name = support.path_option;
        if self.tablebase.take().is_some() {
            self.rebuild_session();
        }
        let Some(path) = path else {
            return Ok(Some(format!("{name} <empty>: no endgame tables")));
        };
        let (tables, note) = (support.open)(&path)
            .map_err(|e| format!("{name} refused: {e}; going on without endgame tables"))?;
        self.tablebase = Some((self.game, tables));
        self.rebuild_session();
        Ok(Some(format!("{name}: {note}")))
    }

    /// A new game (`ucinewgame`...): start position, cleared tables, and a new seed for a
    /// playing level's misjudgements.
    pub fn new_game(&mut self) {
        self.strength.games += 1;
        self.session.new_game();
        self.apply_strength();
    }

    /// Hands the session the playing strength the options and the game count give now.
    fn apply_strength(&mut self) {
        self.session.set_skill(self.strength.skill(self.game));
    }

    /// Stops the search, if one runs.
    pub fn shutdown(&mut self) {
        self.session.stop();
    }
}

/// The playing strength options (`Skill Level`, `UCI_LimitStrength`, `UCI_Elo`) and what
/// seeds a game's level: the process's seed and the number of games begun.
struct Strength {
    level: u8,
    limit: bool,
    /// `UCI_Elo` when set (otherwise the lowest rating of the game's scale).
    elo: Option<u32>,
    process_seed: u64,
    games: u64,
}

impl Strength {
    /// Full strength, seeded from the clock and the process id.
    fn new() -> Strength {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |t| t.as_nanos() as u64);
        Strength {
            level: super::options::MAX_SKILL_LEVEL as u8,
            limit: false,
            elo: None,
            process_seed: nanos ^ u64::from(std::process::id()).rotate_left(32),
            games: 0,
        }
    }

    /// The strength in `game`: `UCI_Elo` on the game's scale under `UCI_LimitStrength`
    /// (when the game has a scale), else `Skill Level`.
    fn skill(&self, game: GameKind) -> Skill {
        let seed = game_seed(self.process_seed, self.games);
        let level = match game.info().elo_scale {
            Some(scale) if self.limit => {
                let elo = self.elo.or(scale.first().map(|a| a.elo)).unwrap_or(0);
                level_of_elo(elo, scale)
            }
            _ => f64::from(self.level),
        };
        Skill::new(level, seed)
    }
}
