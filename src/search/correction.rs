//! Correction history: what searches have found the static evaluation to be wrong by, per
//! side to move and per class of positions (the game's
//! [`SearchRefinements::correction_key`](crate::search::SearchRefinements::correction_key),
//! in chess the pawn structure), applied to later static evaluations of the same class.
//!
//! Each entry is a running average of `search score - static evaluation`, weighted by the
//! depth of the search that produced it, kept in 1/`GRAIN` units.

use super::game::Game;
use super::score::{Score, MATE_BOUND};

/// Entries per side to move (a power of two).
const ENTRIES: usize = 16_384;
/// Fixed-point unit of an entry.
const GRAIN: i32 = 256;
/// Total weight of an update (an update of weight `w` keeps `WEIGHT_SCALE - w` of the old).
const WEIGHT_SCALE: i32 = 256;
/// Largest weight of one update.
const MAX_WEIGHT: i32 = 16;
/// Largest correction, in evaluation units.
const MAX_CORRECTION: i32 = 64;

/// Per-thread correction history (allocated once, cleared for a new game).
pub struct CorrectionHistory {
    entries: Vec<i32>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory::new()
    }
}

impl CorrectionHistory {
    /// An empty table.
    pub fn new() -> CorrectionHistory {
        CorrectionHistory {
            entries: vec![0; 2 * ENTRIES],
        }
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = 0);
    }

    fn slot<G: Game>(game: &G) -> Option<usize> {
        let key = game.correction_key()?;
        let side = game.side_to_move().index() * ENTRIES;
        Some(side + (key as usize & (ENTRIES - 1)))
    }

    /// `eval`, the game's static evaluation of `game`, corrected by what searches of
    /// positions of its class found (kept clear of mate scores).
    pub fn corrected<G: Game>(&self, game: &G, eval: Score) -> Score {
        let Some(slot) = Self::slot(game) else {
            return eval;
        };
        let corrected = eval + self.entries[slot] / GRAIN;
        corrected.clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Learns from a search of `game` to `depth` that returned `score` where the static
    /// evaluation said `eval`.
    pub fn update<G: Game>(&mut self, game: &G, depth: i32, score: Score, eval: Score) {
        let Some(slot) = Self::slot(game) else {
            return;
        };
        let error = (score - eval).clamp(-MAX_CORRECTION, MAX_CORRECTION) * GRAIN;
        let weight = (depth + 1).min(MAX_WEIGHT);
        let entry = &mut self.entries[slot];
        *entry = (*entry * (WEIGHT_SCALE - weight) + error * weight) / WEIGHT_SCALE;
        *entry = (*entry).clamp(-MAX_CORRECTION * GRAIN, MAX_CORRECTION * GRAIN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chess::Chess;
    use crate::search::Rules;

    #[test]
    fn corrections_follow_search_results_and_stay_bounded() {
        let game =
            Chess::from_fen(&Default::default(), "4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1").unwrap();
        let mut history = CorrectionHistory::new();
        assert_eq!(history.corrected(&game, 10), 10);
        for _ in 0..200 {
            history.update(&game, 10, 1_000, 0);
        }
        // The running average approaches the bound from below (integer steps stall just
        // short of it) and never passes it.
        let corrected = history.corrected(&game, 10);
        assert!(
            (8 + MAX_CORRECTION..=10 + MAX_CORRECTION).contains(&corrected),
            "{corrected}"
        );
        for _ in 0..200 {
            history.update(&game, 10, -40, 0);
        }
        let corrected = history.corrected(&game, 0);
        assert!((-40..=-38).contains(&corrected), "{corrected}");
        // The other side to move has its own entries.
        let other =
            Chess::from_fen(&Default::default(), "4k3/pppp4/8/8/8/8/PPPP4/4K3 b - - 0 1").unwrap();
        assert_eq!(history.corrected(&other, 0), 0);
        history.clear();
        assert_eq!(history.corrected(&game, 0), 0);
    }
}
