//! Search limits (one typed value built from a `go` line) and the time manager that turns
//! a clock into a soft and a hard deadline.

use std::time::Duration;

/// Everything that bounds one search. UCI `wtime/btime` and UGI `p1time/p2time` both map
/// to the side to move's `clock` and `increment`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Stop after completing this depth.
    pub depth: Option<u32>,
    /// Stop after this many nodes (exact).
    pub nodes: Option<u64>,
    /// Search exactly this long (minus the move overhead).
    pub movetime: Option<Duration>,
    /// Time left on the side to move's clock.
    pub clock: Option<Duration>,
    /// The side to move's increment per move.
    pub increment: Duration,
    /// Moves until the next time control, if the clock has one.
    pub moves_to_go: Option<u32>,
    /// Search until told to stop.
    pub infinite: bool,
    /// Stop once a win in at most this many moves is proven.
    pub mate: Option<u32>,
    /// Search on the opponent's time until `ponderhit` or `stop`.
    pub ponder: bool,
}

impl Limits {
    /// Limits with only a depth.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Limits with only a node count.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Whether the search may end on its own (not infinite, not pondering).
    pub fn ends_by_itself(&self) -> bool {
        !self.infinite && !self.ponder
    }
}

/// When to stop thinking: `soft` is checked between iterations (do not start another),
/// `hard` during the search (abort now).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// Do not start a new iteration after this much time.
    pub soft: Duration,
    /// Abort the search once this much time has passed.
    pub hard: Duration,
}

/// Least time ever planned for a move.
const MIN_THINK: Duration = Duration::from_millis(1);

/// Turns the limits into deadlines measured from the moment `go` arrived.
/// `overhead` is kept in reserve for communication delays (`Move Overhead`).
/// `moves_left`: at most this many moves of the side to move remain in the game (from
/// [`ExactHooks::remaining_plies_bound`](super::ExactHooks::remaining_plies_bound): 21 per side in
/// Connect Four), so the clock is shared among them rather than among `planned_moves` (the
/// game's [`SearchParams::planned_moves`](super::SearchParams::planned_moves), 40 unless
/// it sets its own: the moves a game without `movestogo` is expected to last).
/// Returns `None` when no time limit applies.
pub fn deadlines(
    limits: &Limits,
    overhead: Duration,
    moves_left: Option<u32>,
    planned_moves: u32,
) -> Option<Deadlines> {
    let from_movetime = limits.movetime.map(|movetime| {
        let time = movetime.saturating_sub(overhead).max(MIN_THINK);
        Deadlines {
            soft: time,
            hard: time,
        }
    });
    let from_clock = limits.clock.map(|clock| {
        // Never plan to use the last overhead's worth of the clock.
        let available = clock.saturating_sub(overhead).max(MIN_THINK);
        let moves_to_go = limits
            .moves_to_go
            .filter(|&n| n > 0)
            .unwrap_or(planned_moves)
            .min(planned_moves)
            .min(moves_left.unwrap_or(u32::MAX))
            .max(1);
        // The time left for the next `moves_to_go` moves, counting their increments and
        // paying the overhead for each of them (and two more): a short clock then spends
        // less than the increment per move and builds a reserve against slow replies.
        let time_left = (clock + limits.increment * (moves_to_go - 1))
            .saturating_sub(overhead * (moves_to_go + 2))
            .max(MIN_THINK);
        // A move's share of it; never more than a tenth of the clock unless this is the
        // last move before the time control.
        let share = time_left / moves_to_go;
        // (The game's own end is not a time control: its last move keeps the reserve.)
        let (share, cap) = if limits.moves_to_go == Some(1) {
            (share.min(available * 4 / 5), available * 4 / 5)
        } else {
            (share.min(available / 10), available / 5)
        };
        // The hard limit may spend a few shares but never more than the cap, so a short
        // clock (or a slow, loaded machine) still leaves a reserve for the next moves.
        let hard = (share * 3).min(cap).max(MIN_THINK);
        let soft = (share * 3 / 5).min(hard).max(MIN_THINK);
        Deadlines { soft, hard }
    });
    match (from_movetime, from_clock) {
        (Some(a), Some(b)) => Some(Deadlines {
            soft: a.soft.min(b.soft),
            hard: a.hard.min(b.hard),
        }),
        (a, b) => a.or(b),
    }
}

/// Soft deadline scale by the number of iterations the best move has stayed the same (0:
/// it just changed), the last value for longer runs.
const STABILITY_SCALE: [f64; 5] = [2.5, 1.2, 0.9, 0.8, 0.75];
/// Soft deadline scale by the share `f` of root nodes spent on the best move:
/// `(NODE_SHARE_BASE - f) * NODE_SHARE_FACTOR`.
const NODE_SHARE_BASE: f64 = 1.5;
/// See [`NODE_SHARE_BASE`].
const NODE_SHARE_FACTOR: f64 = 1.35;
/// Soft deadline scale by the score's drop since the previous iteration: one more share
/// of the planned time per this many units of drop, within [`SCORE_DROP_RANGE`].
const SCORE_DROP_UNIT: f64 = 100.0;
/// See [`SCORE_DROP_UNIT`].
const SCORE_DROP_RANGE: (f64, f64) = (0.8, 1.6);

/// What the completed iterations of a search say about how settled it is: how long the
/// best move has stayed the same and how the score moved. Scales the soft deadline.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct IterationProgress {
    best: Option<u16>,
    stable_iterations: usize,
    score: Option<i32>,
    score_drop: i32,
}

impl IterationProgress {
    /// Records a completed iteration: its best move (by code) and score.
    pub fn record(&mut self, best: Option<u16>, score: i32) {
        if self.best.is_some() && self.best == best {
            self.stable_iterations += 1;
        } else {
            self.stable_iterations = 0;
        }
        self.best = best;
        self.score_drop = self.score.map_or(0, |previous| previous - score);
        self.score = Some(score);
    }

    /// The factor on the planned (soft) time: more when the best move keeps changing, when
    /// its share of the nodes (`best_node_share`, 0 to 1) is small and when the score
    /// dropped; less when all is settled. Before any iteration, 1.
    pub fn soft_scale(&self, best_node_share: Option<f64>) -> f64 {
        if self.score.is_none() {
            return 1.0;
        }
        let stability = STABILITY_SCALE[self.stable_iterations.min(STABILITY_SCALE.len() - 1)];
        let nodes = best_node_share.map_or(1.0, |f| (NODE_SHARE_BASE - f) * NODE_SHARE_FACTOR);
        let (low, high) = SCORE_DROP_RANGE;
        let drop = (1.0 + f64::from(self.score_drop) / SCORE_DROP_UNIT).clamp(low, high);
        stability * nodes * drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn unsettled_searches_get_more_time() {
        let mut progress = IterationProgress::default();
        assert_eq!(progress.soft_scale(None), 1.0);
        progress.record(Some(1), 20);
        let changed = progress.soft_scale(Some(0.5));
        for _ in 0..6 {
            progress.record(Some(1), 20);
        }
        let settled = progress.soft_scale(Some(0.5));
        assert!(changed > 2.0 * settled, "{changed} {settled}");
        assert!(progress.soft_scale(Some(0.95)) < settled);
        progress.record(Some(1), -60);
        assert!(progress.soft_scale(Some(0.5)) > settled);
        progress.record(Some(1), 500);
        assert!(progress.soft_scale(Some(0.5)) < settled);
    }

    #[test]
    fn no_time_limit_gives_no_deadline() {
        assert_eq!(deadlines(&Limits::depth(5), ms(10), None, 40), None);
    }

    #[test]
    fn movetime_is_exact_minus_overhead() {
        let limits = Limits {
            movetime: Some(ms(1000)),
            ..Limits::default()
        };
        assert_eq!(
            deadlines(&limits, ms(10), None, 40),
            Some(Deadlines {
                soft: ms(990),
                hard: ms(990)
            })
        );
    }

    #[test]
    fn clock_deadlines_never_overrun_the_clock() {
        for clock_ms in [1u64, 5, 20, 100, 1000, 60_000] {
            for inc_ms in [0u64, 10, 100, 2000] {
                for (mtg, left) in [
                    (None, None),
                    (Some(1), None),
                    (Some(2), None),
                    (Some(40), None),
                    (None, Some(1)),
                    (None, Some(21)),
                ] {
                    let limits = Limits {
                        clock: Some(ms(clock_ms)),
                        increment: ms(inc_ms),
                        moves_to_go: mtg,
                        ..Limits::default()
                    };
                    let d = deadlines(&limits, ms(10), left, 40).expect("a clock gives deadlines");
                    assert!(d.soft <= d.hard);
                    let available = ms(clock_ms).saturating_sub(ms(10)).max(ms(1));
                    assert!(d.hard <= available, "{limits:?} gave {d:?}");
                }
            }
        }
    }

    #[test]
    fn a_short_clock_spends_less_than_the_increment() {
        let clock = |clock_ms, inc_ms| Limits {
            clock: Some(ms(clock_ms)),
            increment: ms(inc_ms),
            ..Limits::default()
        };
        // 1 s + 0.01 s late in a game: the clock builds back up.
        let low = deadlines(&clock(300, 10), ms(10), None, 40).expect("deadlines");
        assert!(low.soft < ms(10), "{low:?}");
        // A healthy clock spends about a fortieth of itself plus the increment.
        let healthy = deadlines(&clock(5000, 50), ms(10), None, 40).expect("deadlines");
        assert!(
            healthy.soft > ms(50) && healthy.soft < ms(200),
            "{healthy:?}"
        );
        assert!(healthy.hard < ms(1000), "{healthy:?}");
    }

    #[test]
    fn combined_limits_take_the_earliest() {
        let limits = Limits {
            clock: Some(ms(60_000)),
            movetime: Some(ms(100)),
            ..Limits::default()
        };
        let d = deadlines(&limits, ms(10), None, 40).expect("deadlines");
        assert_eq!(d.hard, ms(90));
    }

    #[test]
    fn a_game_that_ends_soon_spends_more_per_move() {
        let limits = Limits {
            clock: Some(ms(5000)),
            increment: ms(50),
            ..Limits::default()
        };
        let forty = deadlines(&limits, ms(10), None, 40).expect("deadlines");
        let late = deadlines(&limits, ms(10), Some(6), 40).expect("deadlines");
        assert!(late.soft > forty.soft * 2, "{forty:?} {late:?}");
        assert!(late.hard <= ms(1000), "{late:?}");
    }
}
