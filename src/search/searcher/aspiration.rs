//! The aspiration window: each depth from [`ASPIRATION_MIN_DEPTH`] is first searched in a
//! narrow window around the previous depth's score, widened (doubling) on the side it
//! fails until the score falls inside.

use super::super::game::Game;
use super::super::params::{ASPIRATION_MIN_DEPTH, ASPIRATION_WINDOW};
use super::super::score::{is_mate, Score, INFINITY, MATE_BOUND};
use super::{NodeKind, Searcher};

impl<G: Game> Searcher<G> {
    /// Searches the root at `depth`, first inside a window around the previous score.
    pub(super) fn aspiration(
        &mut self,
        game: &mut G,
        depth: u32,
        previous: Option<Score>,
    ) -> Option<Score> {
        let depth_i = depth as i32;
        let centre = match previous {
            Some(score) if depth >= ASPIRATION_MIN_DEPTH && !is_mate(score) => score,
            _ => return self.negamax(game, depth_i, 0, -INFINITY, INFINITY, NodeKind::Pv),
        };
        let mut delta = ASPIRATION_WINDOW;
        let mut alpha = (centre - delta).max(-INFINITY);
        let mut beta = (centre + delta).min(INFINITY);
        loop {
            let score = self.negamax(game, depth_i, 0, alpha, beta, NodeKind::Pv)?;
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
            } else {
                return Some(score);
            }
            if alpha <= -MATE_BOUND {
                alpha = -INFINITY;
            }
            if beta >= MATE_BOUND {
                beta = INFINITY;
            }
            delta = delta.saturating_mul(2);
        }
    }
}
