//! The referee: plays one game between two sides (engine processes, or a person at the
//! terminal), checking every move with cutoff's own rules (generic over [`Game`]) and
//! keeping the clocks itself. The [`Side`] trait is what a player must do.

use super::adjudication::adjudicate;
use super::clock::{Clock, SearchLimits};
use super::opening::Opening;
use super::record::{loss_for, GameRecord, PlayedMove, Termination};
use super::rules::game_end;
// `pub`: a side is given these settings, so they belong to the referee's interface.
pub use super::rules::RefereeSettings;
use cutoff::protocol::dialect::NULL_MOVE;
use cutoff::search::{Game, GameResult, Player};

/// What a side does on its turn.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    /// A move in the game's notation (the referee checks it), with the side's report.
    Move {
        /// The move as the side wrote it.
        text: String,
        /// Thinking time in ms.
        time_ms: u64,
        /// Last `score` reported, if any.
        score: Option<String>,
        /// Last `depth` reported, if any.
        depth: Option<u32>,
    },
    /// Take back the last full move: the last move of each side.
    Undo,
    /// Leave the game without a result; the reason in words.
    Quit(String),
}

/// Why a side gave no move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SideFailure {
    /// The match is being stopped: the game ends without a result.
    Interrupted,
    /// The side loses: how, and why in words (without its name).
    Forfeit(Termination, String),
}

/// What a side is told when it is its turn.
pub struct Turn<'a, G: Game> {
    /// The current position.
    pub position: &'a G,
    /// The protocol line that sets it up (`position startpos moves ...`).
    pub command: &'a str,
    /// 0 when the side plays first, 1 otherwise.
    pub index: usize,
    /// Both players' clocks, first player's first.
    pub(super) clocks: &'a [Clock; 2],
}

/// One side of a game: an engine process, or a person at the terminal (`cutoff play`).
/// The referee's game loop ([`play_game`]) is the same whoever plays.
pub trait Side<G: Game> {
    /// Name in records and messages.
    fn name(&self) -> &str;
    /// The limits the side's clock runs by (none for a person).
    fn limits(&self) -> SearchLimits;
    /// Gets ready for a new game.
    fn new_game(
        &mut self,
        settings: &RefereeSettings,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<(), SideFailure>;
    /// Chooses what to do in `turn.position`.
    fn play(
        &mut self,
        turn: &Turn<'_, G>,
        settings: &RefereeSettings,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<Choice, SideFailure>;
    /// The last lines the side printed, for forfeit reports.
    fn tail(&self) -> Vec<String> {
        Vec::new()
    }
    /// Sees the position after every change (start, each move, each undo); `last` is the
    /// move just played, in the game's notation, by `mover`.
    fn show(&mut self, position: &G, last: Option<(&str, Player)>) {
        let _ = (position, last);
    }
}

/// Shows the position to both sides; `last` is the move just played and who played it.
fn show_both<G: Game>(
    sides: &mut [&mut dyn Side<G>; 2],
    position: &G,
    last: Option<(&str, Player)>,
) {
    for side in sides.iter_mut() {
        side.show(position, last);
    }
}

/// A game being refereed: the position, its record so far and the clocks.
struct Ongoing<G: Game> {
    position: G,
    record: GameRecord,
    clocks: [Clock; 2],
    /// Every move from the opening's first position, in the game's notation.
    history: Vec<String>,
    /// The moves the sides played, for taking them back.
    played: Vec<G::Move>,
    /// `position startpos` or `position fen ...`.
    position_prefix: String,
}

impl<G: Game> Ongoing<G> {
    /// The game after `opening`, with full clocks; it has no result until it ends.
    fn start(
        variant: &G::Variant,
        opening: &Opening,
        sides: &[&mut dyn Side<G>; 2],
    ) -> Result<Ongoing<G>, String> {
        let (position, opening_record) = opening.position_and_record::<G>(variant)?;
        let record = GameRecord {
            first: sides[0].name().to_string(),
            second: sides[1].name().to_string(),
            opening: opening.clone(),
            start_fen: position.to_fen(),
            opening_record,
            moves: Vec::new(),
            result: None,
            termination: Termination::Interrupted,
            reason: "interrupted".to_string(),
            engine_tail: Vec::new(),
        };
        let position_prefix = match &opening.fen {
            Some(fen) => format!("position fen {fen}"),
            None => "position startpos".to_string(),
        };
        Ok(Ongoing {
            position,
            record,
            clocks: [
                Clock::new(&sides[0].limits()),
                Clock::new(&sides[1].limits()),
            ],
            history: opening.moves.clone(),
            played: Vec::new(),
            position_prefix,
        })
    }

    /// The record of the game ended with `result`.
    fn end(mut self, result: GameResult, termination: Termination, reason: String) -> GameRecord {
        self.record.result = Some(result);
        self.record.termination = termination;
        self.record.reason = reason;
        self.record
    }

    /// The record after `side` (at `index`) gave no move: it loses by forfeit, or the
    /// game has no result when the match is being stopped.
    fn failed(mut self, side: &dyn Side<G>, index: usize, failure: SideFailure) -> GameRecord {
        if let SideFailure::Forfeit(termination, reason) = failure {
            self.record.result = Some(loss_for(index));
            self.record.termination = termination;
            self.record.reason = format!("{} {reason}", side.name());
            self.record.engine_tail = side.tail();
        }
        self.record
    }

    /// The record after `side` left the game: no result.
    fn quit(mut self, side: &dyn Side<G>, reason: &str) -> GameRecord {
        self.record.reason = format!("{} {reason}", side.name());
        self.record
    }

    /// Asks the side at `index` what to do in the current position.
    fn ask(
        &self,
        side: &mut dyn Side<G>,
        index: usize,
        settings: &RefereeSettings,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<Choice, SideFailure> {
        let mut command = self.position_prefix.clone();
        if !self.history.is_empty() {
            command += " moves ";
            command += &self.history.join(" ");
        }
        let turn = Turn {
            position: &self.position,
            command: &command,
            index,
            clocks: &self.clocks,
        };
        side.play(&turn, settings, interrupted)
    }

    /// Plays the checked move `mv` of the side at `index`, which thought `time_ms` and
    /// reported `score` and `depth`; returns the move in the game's notation.
    fn play(
        &mut self,
        mv: G::Move,
        index: usize,
        time_ms: u64,
        score: Option<String>,
        depth: Option<u32>,
    ) -> String {
        self.clocks[index].charge(time_ms);
        let notation = self.position.format_move(mv);
        self.record.moves.push(PlayedMove {
            text: notation.clone(),
            record_text: self.position.format_move_record(mv),
            time_ms,
            score,
            depth,
        });
        self.history.push(notation.clone());
        self.played.push(mv);
        self.position.make_move(mv);
        notation
    }

    /// Takes back the last move of each side (never the opening's); returns whether it
    /// did.
    fn undo(&mut self) -> bool {
        if self.played.len() < 2 {
            return false;
        }
        for _ in 0..2 {
            let mv = self.played.pop().expect("two moves played");
            self.position.unmake_move(mv);
            self.history.pop();
            self.record.moves.pop();
        }
        true
    }

    /// The draw or resign rule's verdict after a move by `mover`, while the game is on.
    fn adjudication(
        &self,
        mover: Player,
        settings: &RefereeSettings,
    ) -> Option<(GameResult, String)> {
        if self.position.game_end().is_some() {
            return None;
        }
        let opening_plies = self.record.opening.moves.len();
        adjudicate(&self.record.moves, opening_plies, mover, settings)
    }
}

/// Plays one game from `opening`; `sides[0]` plays first. Engines must be initialised.
/// `interrupted` is polled while waiting; an interrupted or quit game has no result.
pub fn play_game<G: Game>(
    variant: &G::Variant,
    opening: &Opening,
    sides: [&mut dyn Side<G>; 2],
    settings: &RefereeSettings,
    interrupted: &dyn Fn() -> bool,
) -> Result<GameRecord, String> {
    let mut sides = sides;
    let mut game = Ongoing::start(variant, opening, &sides)?;

    // Step 1. New game for both sides (engines: `uginewgame` and isready).
    for (index, side) in sides.iter_mut().enumerate() {
        if let Err(failure) = side.new_game(settings, interrupted) {
            return Ok(game.failed(&**side, index, failure));
        }
    }

    // Step 2. Moves until the rules end the game, a side forfeits or quits.
    show_both(&mut sides, &game.position, None);
    loop {
        if let Some((result, reason)) = game_end(&game.position) {
            return Ok(game.end(result, Termination::Normal, reason));
        }
        let mover = game.position.side_to_move();
        let index = mover.index();
        let choice = match game.ask(&mut *sides[index], index, settings, interrupted) {
            Ok(choice) => choice,
            Err(failure) => return Ok(game.failed(&*sides[index], index, failure)),
        };
        let (text, time_ms, score, depth) = match choice {
            Choice::Move {
                text,
                time_ms,
                score,
                depth,
            } => (text, time_ms, score, depth),
            Choice::Undo => {
                if game.undo() {
                    show_both(&mut sides, &game.position, None);
                }
                continue;
            }
            Choice::Quit(reason) => return Ok(game.quit(&*sides[index], &reason)),
        };

        // Step 3. Check the move with our own rules. `0000` is UCI's null move, malformed
        // unless the game plays it (the Ataxx pass).
        let mv = match game.position.parse_move(&text) {
            Ok(mv) => mv,
            Err(_) if text == NULL_MOVE => {
                let reason = format!("sent 'bestmove {NULL_MOVE}' in a position with legal moves");
                let failure = SideFailure::Forfeit(Termination::MalformedBestmove, reason);
                return Ok(game.failed(&*sides[index], index, failure));
            }
            Err(e) => {
                let reason = format!("played {e} in {}", game.position.to_fen());
                let failure = SideFailure::Forfeit(Termination::IllegalMove, reason);
                return Ok(game.failed(&*sides[index], index, failure));
            }
        };

        // Step 4. Play it: the clock, the record, the position, and both sides see it.
        let notation = game.play(mv, index, time_ms, score, depth);
        show_both(&mut sides, &game.position, Some((&notation, mover)));

        // Step 5. Adjudication by the engines' scores.
        if let Some((result, reason)) = game.adjudication(mover, settings) {
            return Ok(game.end(result, Termination::Adjudication, reason));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutoff::games::ataxx::Ataxx;
    use cutoff::games::connect4::Connect4;

    /// A side that plays scripted choices, for the game loop without processes.
    struct Scripted(Vec<Choice>);

    impl<G: Game> Side<G> for Scripted {
        fn name(&self) -> &str {
            "scripted"
        }
        fn limits(&self) -> SearchLimits {
            SearchLimits::default()
        }
        fn new_game(
            &mut self,
            _: &RefereeSettings,
            _: &dyn Fn() -> bool,
        ) -> Result<(), SideFailure> {
            Ok(())
        }
        fn play(
            &mut self,
            _: &Turn<'_, G>,
            _: &RefereeSettings,
            _: &dyn Fn() -> bool,
        ) -> Result<Choice, SideFailure> {
            Ok(self.0.remove(0))
        }
    }

    fn mv(text: &str) -> Choice {
        Choice::Move {
            text: text.to_string(),
            time_ms: 0,
            score: None,
            depth: None,
        }
    }

    #[test]
    fn undo_takes_back_a_full_move_and_quit_ends_without_result() {
        let mut first = Scripted(vec![mv("4"), Choice::Undo, mv("3"), mv("3")]);
        let mut second = Scripted(vec![mv("4"), mv("5"), Choice::Quit("quit".into())]);
        let sides: [&mut dyn Side<Connect4>; 2] = [&mut first, &mut second];
        let settings = RefereeSettings::default();
        let record = play_game(&(), &Opening::default(), sides, &settings, &|| false).unwrap();
        let moves: Vec<&str> = record.moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(moves, ["3", "5", "3"]);
        assert_eq!(record.result, None);
        assert_eq!(record.reason, "scripted quit");
    }

    #[test]
    fn illegal_moves_forfeit_whoever_plays_them() {
        let mut first = Scripted(vec![mv("9")]);
        let mut second = Scripted(vec![]);
        let sides: [&mut dyn Side<Connect4>; 2] = [&mut first, &mut second];
        let settings = RefereeSettings::default();
        let record = play_game(&(), &Opening::default(), sides, &settings, &|| false).unwrap();
        assert_eq!(record.result, Some(GameResult::SecondWins));
        assert_eq!(record.termination, Termination::IllegalMove);
    }

    #[test]
    fn a_pass_is_a_move_only_where_the_game_has_one() {
        // x is walled in by o: its `0000` is the Ataxx pass; o's `0000` with moves at hand
        // is UCI's null move, malformed.
        let opening = Opening {
            fen: Some("7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1".into()),
            moves: Vec::new(),
        };
        let mut first = Scripted(vec![mv("0000")]);
        let mut second = Scripted(vec![mv("0000")]);
        let sides: [&mut dyn Side<Ataxx>; 2] = [&mut first, &mut second];
        let settings = RefereeSettings::default();
        let record = play_game(&Default::default(), &opening, sides, &settings, &|| false).unwrap();
        let moves: Vec<&str> = record.moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(moves, ["0000"]);
        assert_eq!(record.result, Some(GameResult::FirstWins));
        assert_eq!(record.termination, Termination::MalformedBestmove);
    }
}
