//! What a game leaves behind: its moves with the engines' reports, its result and how it
//! ended, as the outputs (PGN, records, JSON) write it.

use serde::Serialize;

use super::opening::Opening;
use cutoff::search::GameResult;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// By the rules of the game.
    Normal,
    /// An engine played an illegal or unparsable move.
    IllegalMove,
    /// An engine overran its clock or move time, or never answered `go`.
    TimeForfeit,
    /// An engine exited or closed its output.
    Crash,
    /// An engine's `bestmove` line had no move, or `(none)` while moves were legal.
    MalformedBestmove,
    /// An engine did not answer `isready` in time.
    NotReady,
    /// The match was stopped during the game, or a person quit it; it has no result.
    Interrupted,
    /// Ended by the draw or resign rule on the engines' scores.
    Adjudication,
}

impl Termination {
    /// Whether an engine lost the game by failing (illegal move, time, crash, malformed
    /// `bestmove`, no `readyok`) rather than by play.
    pub fn is_forfeit(self) -> bool {
        !matches!(
            self,
            Termination::Normal | Termination::Interrupted | Termination::Adjudication
        )
    }

    /// PGN `Termination` tag value.
    pub fn pgn_tag(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove | Termination::MalformedBestmove => "illegal move",
            Termination::Crash | Termination::NotReady => "abandoned",
            Termination::Interrupted => "unterminated",
            Termination::Adjudication => "adjudication",
        }
    }
}

/// One move as played, with the engine's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayedMove {
    /// The move in the game's notation.
    pub text: String,
    /// The move as game records write it (SAN in chess).
    pub record_text: String,
    /// Time from `go` to `bestmove`, in ms.
    pub time_ms: u64,
    /// Last `score` the engine reported (`cp N` or `mate N`), if any.
    pub score: Option<String>,
    /// Last `depth` the engine reported, if any.
    pub depth: Option<u32>,
}

/// A finished (or interrupted) game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameRecord {
    /// Name of the first player's engine.
    pub first: String,
    /// Name of the second player's engine.
    pub second: String,
    /// Where the game started.
    pub opening: Opening,
    /// FEN of the position after the opening.
    pub start_fen: String,
    /// The opening's moves as game records write them (SAN in chess).
    pub opening_record: Vec<String>,
    /// Moves played by the engines.
    pub moves: Vec<PlayedMove>,
    /// `None` when interrupted.
    #[serde(serialize_with = "serialize_result")]
    pub result: Option<GameResult>,
    /// How it ended.
    pub termination: Termination,
    /// The reason in words.
    pub reason: String,
    /// The faulty engine's last output lines, for forfeits.
    pub engine_tail: Vec<String>,
}

impl GameRecord {
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn result_text(&self) -> &'static str {
        result_text(self.result)
    }
}

/// The result of a game that the player in `seat` (0 first, 1 second) loses.
pub fn loss_for(seat: usize) -> GameResult {
    if seat == 0 {
        GameResult::SecondWins
    } else {
        GameResult::FirstWins
    }
}

/// `1-0`, `0-1`, `1/2-1/2` or `*` (no result).
fn result_text(result: Option<GameResult>) -> &'static str {
    match result {
        Some(GameResult::FirstWins) => "1-0",
        Some(GameResult::SecondWins) => "0-1",
        Some(GameResult::Draw) => "1/2-1/2",
        None => "*",
    }
}

/// Writes a result as `1-0`, `0-1`, `1/2-1/2` or `*`.
fn serialize_result<S: serde::Serializer>(
    result: &Option<GameResult>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(result_text(*result))
}
