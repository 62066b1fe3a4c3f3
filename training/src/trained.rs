//! The one list of the registered games that train a net, each a [`TrainingSupport`]
//! ([`dispatch`]), and [`with_training`], through which a tool runs its work
//! ([`TrainingTask`]) for the game's type, monomorphised per game, and which refuses a
//! game that has none.

use cutoff::games::ataxx::Ataxx;
use cutoff::games::chess::Chess;
use cutoff::games::gomoku::Gomoku;
use cutoff::games::{self, GameKind};

use crate::support::TrainingSupport;

/// A tool's work on one game's training, written once for any game's type.
pub trait TrainingTask {
    /// What the work gives.
    type Output;
    /// Does the work for `game`, trained as `G`.
    fn run_as<G: TrainingSupport>(self, game: GameKind) -> Self::Output;
}

/// Whether the registered `game` is the one `G` trains.
fn trains_as<G: TrainingSupport>(game: GameKind) -> bool {
    game.plays::<G>() && G::trains(game)
}

/// Runs `task` for the type that trains `game`, one line per game that trains a net; `None`
/// for any other game.
pub fn dispatch<T: TrainingTask>(game: GameKind, task: T) -> Option<T::Output> {
    if trains_as::<Chess>(game) {
        Some(task.run_as::<Chess>(game))
    } else if trains_as::<Ataxx>(game) {
        Some(task.run_as::<Ataxx>(game))
    } else if trains_as::<Gomoku>(game) {
        Some(task.run_as::<Gomoku>(game))
    } else {
        None
    }
}

/// Runs `task` for the type that trains `game`, or an error for `tool` naming the games
/// that train a net.
pub fn with_training<T: TrainingTask>(
    game: GameKind,
    tool: &str,
    task: T,
) -> Result<T::Output, String> {
    dispatch(game, task).ok_or_else(|| {
        let trained: Vec<&str> = games::all()
            .filter(|&kind| dispatch(kind, RecordName).is_some())
            .map(GameKind::name)
            .collect();
        format!(
            "{tool}: {game} has no learned evaluation to train (games with one: {})",
            trained.join(", ")
        )
    })
}

/// The name a game's records carry (`TrainingSupport::RECORD_NAME`).
struct RecordName;

impl TrainingTask for RecordName {
    type Output = &'static str;

    fn run_as<G: TrainingSupport>(self, _game: GameKind) -> &'static str {
        G::RECORD_NAME
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trainer::TrainingRecord;

    /// A game's default feature set and record size.
    struct Shape;

    impl TrainingTask for Shape {
        type Output = (&'static str, usize);

        fn run_as<G: TrainingSupport>(self, _game: GameKind) -> (&'static str, usize) {
            (G::Record::FEATURE_SETS[0].name, G::RECORD_BYTES)
        }
    }

    #[test]
    fn a_game_without_training_is_told_which_games_have_it() {
        let find = |name| games::find(name).expect("registered");
        assert_eq!(
            with_training(find("chess"), "train", Shape),
            Ok(("Chess768", 32))
        );
        assert_eq!(
            with_training(find("ataxx"), "train", Shape),
            Ok(("Ataxx147", 32))
        );
        // gomoku's 15x15 board needs 72 bytes.
        assert_eq!(
            with_training(find("gomoku"), "train", Shape),
            Ok(("GomokuPcode15", 72))
        );
        assert_eq!(
            with_training(find("connect4"), "datagen", Shape),
            Err(
                "datagen: connect4 has no learned evaluation to train (games with one: chess, gomoku, ataxx)"
                    .to_string()
            )
        );
        assert!(with_training(find("gomoku20"), "train", Shape).is_err());
    }

    #[test]
    fn every_trained_game_writes_its_registry_name_in_its_records() {
        let trained: Vec<(&str, &str)> = games::all()
            .filter_map(|game| Some((game.name(), dispatch(game, RecordName)?)))
            .collect();
        assert_eq!(
            trained,
            [("chess", "chess"), ("gomoku", "gomoku"), ("ataxx", "ataxx")]
        );
    }
}
