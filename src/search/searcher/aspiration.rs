//! The aspiration window: each depth from the game's `aspiration_min_depth` is first
//! searched in a narrow window around the previous depth's score, widened (doubling) on the
//! side it fails until the score falls inside.

use super::super::game::Game;
use super::super::score::{is_mate, Score, INFINITY, MATE_BOUND};
use super::{NodeKind, Searcher};

/// A window of the root search and how far it widens when the score falls outside it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Window {
    alpha: Score,
    beta: Score,
    /// The widening after the next failure.
    delta: Score,
}

impl Window {
    /// The first window, `delta` either side of `centre`.
    fn around(centre: Score, delta: Score) -> Window {
        Window {
            alpha: (centre - delta).max(-INFINITY),
            beta: (centre + delta).min(INFINITY),
            delta,
        }
    }

    /// The window to search again after `score`: `None` when `score` is inside. A fail
    /// low moves beta down to the window's middle and alpha `delta` below the score; a
    /// fail high moves beta `delta` above it; an edge beyond the mate bound opens fully,
    /// and `delta` doubles.
    fn widened(self, score: Score) -> Option<Window> {
        let Window {
            mut alpha,
            mut beta,
            delta,
        } = self;
        if score <= alpha {
            beta = (alpha + beta) / 2;
            alpha = (score - delta).max(-INFINITY);
        } else if score >= beta {
            beta = (score + delta).min(INFINITY);
        } else {
            return None;
        }
        if alpha <= -MATE_BOUND {
            alpha = -INFINITY;
        }
        if beta >= MATE_BOUND {
            beta = INFINITY;
        }
        Some(Window {
            alpha,
            beta,
            delta: delta.saturating_mul(2),
        })
    }
}

impl<G: Game> Searcher<G> {
    /// Searches the root at `depth`, first inside a window around the previous score.
    pub(super) fn aspiration(
        &mut self,
        game: &mut G,
        depth: u32,
        previous: Option<Score>,
    ) -> Option<Score> {
        let depth_i = depth as i32;
        let params = *self.params();
        let centre = match previous {
            Some(score) if depth >= params.aspiration_min_depth && !is_mate(score) => score,
            _ => return self.negamax(game, depth_i, 0, -INFINITY, INFINITY, NodeKind::Pv),
        };
        let mut window = Window::around(centre, params.aspiration_window);
        loop {
            let (alpha, beta) = (window.alpha, window.beta);
            let score = self.negamax(game, depth_i, 0, alpha, beta, NodeKind::Pv)?;
            match window.widened(score) {
                Some(wider) => window = wider,
                None => return Some(score),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::MATE;

    /// The half-width the tests' windows start with.
    const WINDOW: Score = 30;

    #[test]
    fn a_score_inside_the_window_is_kept() {
        let window = Window::around(50, WINDOW);
        assert_eq!((window.alpha, window.beta), (20, 80));
        assert_eq!(window.widened(21), None);
        assert_eq!(window.widened(79), None);
    }

    #[test]
    fn a_fail_low_lowers_both_edges_and_doubles_the_step() {
        let window = Window::around(50, WINDOW).widened(20).unwrap();
        assert_eq!(
            window,
            Window {
                alpha: 20 - WINDOW,
                beta: 50,
                delta: 2 * WINDOW
            }
        );
        let again = window.widened(-100).unwrap();
        assert_eq!((again.alpha, again.beta), (-100 - 60, 20));
        assert_eq!(again.delta, 4 * WINDOW);
    }

    #[test]
    fn a_fail_high_raises_beta_only() {
        let window = Window::around(0, WINDOW).widened(100).unwrap();
        assert_eq!((window.alpha, window.beta), (-30, 130));
        assert_eq!(window.delta, 60);
    }

    #[test]
    fn an_edge_past_the_mate_bound_opens_fully() {
        let high = Window::around(0, WINDOW).widened(MATE_BOUND - 10).unwrap();
        assert_eq!((high.alpha, high.beta), (-30, INFINITY));
        let low = Window::around(0, WINDOW).widened(-MATE + 5).unwrap();
        assert_eq!((low.alpha, low.beta), (-INFINITY, 0));
        // Failing high again and again, beta climbs by doubling steps to the top.
        let mut window = Window::around(0, WINDOW);
        for (score, beta) in [(100, 130), (500, 560), (2_000, 2_120), (10_000, 10_240)] {
            window = window.widened(score).unwrap();
            assert_eq!(window.beta, beta);
        }
        window = window.widened(MATE - 1).unwrap();
        assert_eq!((window.beta, window.delta), (INFINITY, 32 * WINDOW));
    }
}
