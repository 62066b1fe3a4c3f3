//! The rules a referee applies, shared by every file of the referee and by the match
//! runner's command line: its settings (timeouts, the time margin, the draw and resign
//! rules) and the end of a game by the game's own rules, with the reason in words. It
//! imports none of its siblings, so the files of `referee/` that use it form no
//! circle.

use std::time::Duration;

use serde::Serialize;

use cutoff::search::{Game, GameResult, Player};

/// Adjudicates a draw once both engines have reported scores within `±score` centipawns
/// for `move_count` consecutive moves each, from full move `move_number` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DrawRule {
    /// First full move at which a draw may be adjudicated.
    pub move_number: u32,
    /// Consecutive moves of each engine with a small score.
    pub move_count: u32,
    /// Largest absolute score (centipawns) that counts as drawn.
    pub score: i32,
}

/// Adjudicates a loss for an engine that reported `-score` centipawns or worse for
/// `move_count` consecutive moves of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ResignRule {
    /// Consecutive own moves with a losing score.
    pub move_count: u32,
    /// Score (centipawns, positive) at or below whose negation an engine is lost.
    pub score: i32,
}

/// Referee settings shared by every game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RefereeSettings {
    /// Time an engine may overrun its clock or move time before it loses on time.
    pub time_margin: Duration,
    /// Time to answer the handshake (`uci`, `ugi` or `uai`) after start-up before forfeiting.
    pub startup_timeout: Duration,
    /// Time to answer `isready` before forfeiting.
    pub ready_timeout: Duration,
    /// Longest wait for a `bestmove` when no clock bounds the search (depth/nodes limits).
    pub move_timeout: Duration,
    /// Draw adjudication by engine scores, if enabled.
    pub draw_rule: Option<DrawRule>,
    /// Resign adjudication by engine scores, if enabled.
    pub resign_rule: Option<ResignRule>,
}

impl Default for RefereeSettings {
    fn default() -> Self {
        RefereeSettings {
            time_margin: Duration::ZERO,
            startup_timeout: Duration::from_secs(10),
            ready_timeout: Duration::from_secs(10),
            move_timeout: Duration::from_secs(60),
            draw_rule: None,
            resign_rule: None,
        }
    }
}

/// The end of the game by the rules, if reached: result and reason.
pub fn game_end<G: Game>(position: &G) -> Option<(GameResult, String)> {
    let end = position.game_end()?;
    let names = [player_name(Player::First), player_name(Player::Second)];
    Some((end.result, end.describe(names)))
}

/// `first player` or `second player`, for reasons in words.
fn player_name(player: Player) -> &'static str {
    match player {
        Player::First => "first player",
        Player::Second => "second player",
    }
}
