//! The decision "this search plays exactly": made once per search, by the thread pool
//! ([`ExactPlay::decide`]), and passed to the main searcher as an [`ExactPlay`]; the Lazy
//! SMP helpers never get one, and only search.

use std::time::Duration;

use super::ExactSearch;
use crate::search::limits::Limits;
use crate::search::Game;

/// Whether a search under `limits` may be answered by the game's book or exact solver:
/// only a search bounded by the clock (`wtime`/`p1time`...), `movetime` or `infinite`, and
/// not by `depth`, `nodes` or `mate`, nor pondering. So `go depth N` stays the minimax
/// value at depth N, `go nodes N` stays reproducible, and bench is unchanged.
pub fn plays_exactly(limits: &Limits) -> bool {
    limits.depth.is_none()
        && limits.nodes.is_none()
        && limits.mate.is_none()
        && !limits.ponder
        && (limits.clock.is_some() || limits.movetime.is_some() || limits.infinite)
}

/// A search that plays exactly: its root may be answered by the game's book, or by the
/// best exact value of the game's own solver, before (or instead of) searching.
pub struct ExactPlay<'a, G: Game> {
    /// The game's own exact search, if it has one; without one only the book answers.
    pub solver: Option<&'a mut dyn ExactSearch<G>>,
    /// The time left on the side to move's clock, when the search is under one (the
    /// solver may then spend a share of it, [`exact_answer`](super::exact_answer)).
    pub clock: Option<Duration>,
}

impl<'a, G: Game> ExactPlay<'a, G> {
    /// The decision, for a search under `limits` reporting `multipv` lines: `Some` when
    /// [`plays_exactly`] allows it and one line is asked for (the book and the solver give
    /// one move). `solver` is asked for the game's exact search only then.
    pub fn decide(
        limits: &Limits,
        multipv: usize,
        solver: impl FnOnce() -> Option<&'a mut dyn ExactSearch<G>>,
    ) -> Option<ExactPlay<'a, G>> {
        (multipv == 1 && plays_exactly(limits)).then(|| ExactPlay {
            solver: solver(),
            clock: limits.clock,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mnk::Mnk;
    use std::time::Duration;

    #[test]
    fn only_clock_movetime_and_infinite_searches_play_exactly() {
        let clock = Limits {
            clock: Some(Duration::from_secs(10)),
            ..Limits::default()
        };
        assert!(plays_exactly(&clock));
        assert!(plays_exactly(&Limits {
            movetime: Some(Duration::from_millis(100)),
            ..Limits::default()
        }));
        assert!(plays_exactly(&Limits {
            infinite: true,
            ..Limits::default()
        }));
        assert!(!plays_exactly(&Limits::default()));
        assert!(!plays_exactly(&Limits::depth(5)));
        assert!(!plays_exactly(&Limits::nodes(1000)));
        for limits in [
            Limits {
                depth: Some(5),
                ..clock.clone()
            },
            Limits {
                nodes: Some(1000),
                ..clock.clone()
            },
            Limits {
                mate: Some(3),
                ..clock.clone()
            },
            Limits {
                ponder: true,
                ..clock.clone()
            },
        ] {
            assert!(!plays_exactly(&limits), "{limits:?}");
        }
    }

    #[test]
    fn the_decision_is_made_once_and_asks_for_the_solver_only_when_taken() {
        let clock = Limits {
            clock: Some(Duration::from_secs(10)),
            ..Limits::default()
        };
        let mut asked = 0;
        let play = ExactPlay::<Mnk>::decide(&clock, 1, || {
            asked += 1;
            None
        });
        assert!(play.is_some_and(|p| p.solver.is_none()));
        let multipv = ExactPlay::<Mnk>::decide(&clock, 2, || {
            asked += 1;
            None
        });
        assert!(multipv.is_none());
        let depth = ExactPlay::<Mnk>::decide(&Limits::depth(3), 1, || {
            asked += 1;
            None
        });
        assert!(depth.is_none());
        assert_eq!(asked, 1);
    }
}
