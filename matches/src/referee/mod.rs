//! The referee, shared by `cutoff match` and `cutoff play`: plays one game between two
//! sides (engine processes, or a person at the terminal) by cutoff's own rules, with the
//! clocks kept by the referee and adjudication by the engines' scores.
//!
//! The files, one job each:
//! - `game` plays a game generically over [`Game`](cutoff::search::Game) ([`play_game`]);
//!   the [`Side`] trait is what a player must do;
//! - `rules` holds the referee's settings and the end of a game by the rules, importing
//!   none of its siblings;
//! - `opening` is where a game starts ([`Opening`]), checked by the rules;
//! - `clock` keeps each player's time and parses time controls;
//! - `engine` runs an engine process with deadlines, `engine_side` starts it and makes it
//!   a [`Side`], `gomocup` speaks the Gomocup protocol for it, `session` is what a
//!   Gomocup engine's game keeps;
//! - `adjudication` judges a game by the engines' scores;
//! - `record` is what a game leaves ([`GameRecord`]).
//!
//! Everything a user of the referee needs is re-exported here, so the match runner and
//! `play` import this one module.

mod adjudication;
mod clock;
mod engine;
mod engine_side;
mod game;
mod gomocup;
mod opening;
mod record;
mod rules;
mod session;

pub(crate) use clock::{parse_num, parse_secs};
pub use clock::{parse_tc, SearchLimits};
pub use engine::{EngineConfig, EngineFailure, EngineProcess, EngineProtocol};
pub use engine_side::ask_engine;
pub use game::{play_game, Choice, Side, SideFailure, Turn};
pub use gomocup::GomocupGame;
pub use opening::Opening;
pub use record::{loss_for, GameRecord, PlayedMove, Termination};
pub use rules::{game_end, DrawRule, RefereeSettings, ResignRule};
