//! The search's tuning constants in one place: the margins and depth limits of every
//! kind of pruning, reduction and extension, and the aspiration window. Each of them but
//! [`CHECK_INTERVAL`] changes the node count of `bench`: a change here is a change of the
//! `Bench:` signature.

use std::time::Duration;

use super::score::Score;

/// How often (in nodes) the clock and the stop flag are read.
pub const CHECK_INTERVAL: u64 = 1024;
/// First depth searched with an aspiration window.
pub const ASPIRATION_MIN_DEPTH: u32 = 4;
/// Half-width of the first aspiration window.
pub const ASPIRATION_WINDOW: Score = 30;
/// Reverse futility pruning: deepest remaining depth it applies to.
pub const REVERSE_FUTILITY_DEPTH: i32 = 8;
/// Reverse futility pruning: margin per ply of remaining depth (centipawns).
pub const REVERSE_FUTILITY_MARGIN: Score = 75;
/// Futility pruning: deepest remaining depth it applies to.
pub const FUTILITY_DEPTH: i32 = 6;
/// Futility pruning: a quiet move is skipped when the static evaluation plus
/// `FUTILITY_BASE + FUTILITY_MARGIN * depth` cannot reach alpha.
pub const FUTILITY_BASE: Score = 100;
/// See [`FUTILITY_BASE`].
pub const FUTILITY_MARGIN: Score = 90;
/// Late move pruning: deepest remaining depth it applies to.
pub const LATE_MOVE_PRUNING_DEPTH: i32 = 8;
/// History pruning: deepest remaining depth it applies to.
pub const HISTORY_PRUNING_DEPTH: i32 = 3;
/// History pruning: a quiet move is skipped when its history is below
/// `-HISTORY_PRUNING_MARGIN * depth`.
pub const HISTORY_PRUNING_MARGIN: i32 = 2_048;
/// Static exchange pruning: deepest remaining depth it applies to.
pub const EXCHANGE_PRUNING_DEPTH: i32 = 8;
/// Static exchange pruning: a quiet move is skipped when it loses more than this per ply
/// of remaining depth.
pub const EXCHANGE_QUIET_MARGIN: i32 = 64;
/// Static exchange pruning: a noisy move is skipped when it loses more than this times the
/// square of the remaining depth.
pub const EXCHANGE_NOISY_MARGIN: i32 = 20;
/// Null move pruning: the reduction is `NULL_MOVE_BASE + depth / NULL_MOVE_DEPTH_DIVISOR`
/// plus one ply per `NULL_MOVE_EVAL_DIVISOR` of static evaluation above beta (at most
/// `NULL_MOVE_EVAL_PLIES`).
pub const NULL_MOVE_BASE: i32 = 3;
/// See [`NULL_MOVE_BASE`].
pub const NULL_MOVE_DEPTH_DIVISOR: i32 = 3;
/// See [`NULL_MOVE_BASE`].
pub const NULL_MOVE_EVAL_DIVISOR: Score = 200;
/// See [`NULL_MOVE_BASE`].
pub const NULL_MOVE_EVAL_PLIES: i32 = 3;
/// Null move pruning: from this depth a null-move cut-off is verified by a reduced search
/// without null moves for the side to move (guards against zugzwang).
pub const NULL_MOVE_VERIFICATION_DEPTH: i32 = 12;
/// Singular extensions: shallowest remaining depth they apply to.
pub const SINGULAR_DEPTH: i32 = 8;
/// Singular extensions: the table's entry may be this many plies shallower than the node.
pub const SINGULAR_ENTRY_SLACK: i32 = 3;
/// Singular extensions: the other moves must fail below the entry's score minus this
/// times the depth.
pub const SINGULAR_MARGIN: Score = 1;
/// Internal iterative reduction: shallowest remaining depth it applies to.
pub const IIR_DEPTH: i32 = 4;
/// Time the exact solver may take under `go infinite` before the normal search starts.
pub const INFINITE_EXACT_TIME: Duration = Duration::from_secs(5);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::{MATE_BOUND, MAX_PLY};

    /// The values the `Bench:` signature was measured with: changing one changes it.
    #[test]
    fn the_table_is_the_one_bench_was_measured_with() {
        assert_eq!(CHECK_INTERVAL, 1024);
        assert_eq!((ASPIRATION_MIN_DEPTH, ASPIRATION_WINDOW), (4, 30));
        assert_eq!((REVERSE_FUTILITY_DEPTH, REVERSE_FUTILITY_MARGIN), (8, 75));
        assert_eq!(
            (FUTILITY_DEPTH, FUTILITY_BASE, FUTILITY_MARGIN),
            (6, 100, 90)
        );
        assert_eq!(LATE_MOVE_PRUNING_DEPTH, 8);
        assert_eq!((HISTORY_PRUNING_DEPTH, HISTORY_PRUNING_MARGIN), (3, 2_048));
        assert_eq!(
            (
                EXCHANGE_PRUNING_DEPTH,
                EXCHANGE_QUIET_MARGIN,
                EXCHANGE_NOISY_MARGIN
            ),
            (8, 64, 20)
        );
        assert_eq!(
            (
                NULL_MOVE_BASE,
                NULL_MOVE_DEPTH_DIVISOR,
                NULL_MOVE_EVAL_DIVISOR,
                NULL_MOVE_EVAL_PLIES,
                NULL_MOVE_VERIFICATION_DEPTH
            ),
            (3, 3, 200, 3, 12)
        );
        assert_eq!(
            (SINGULAR_DEPTH, SINGULAR_ENTRY_SLACK, SINGULAR_MARGIN),
            (8, 3, 1)
        );
        assert_eq!(IIR_DEPTH, 4);
        assert_eq!(INFINITE_EXACT_TIME, Duration::from_secs(5));
    }

    #[test]
    fn depth_limits_and_margins_are_in_range() {
        let depths = [
            REVERSE_FUTILITY_DEPTH,
            FUTILITY_DEPTH,
            LATE_MOVE_PRUNING_DEPTH,
            HISTORY_PRUNING_DEPTH,
            EXCHANGE_PRUNING_DEPTH,
            NULL_MOVE_VERIFICATION_DEPTH,
            SINGULAR_DEPTH,
            IIR_DEPTH,
        ];
        assert!(depths.iter().all(|&d| d > 0 && (d as usize) < MAX_PLY));
        let margins = [
            ASPIRATION_WINDOW,
            REVERSE_FUTILITY_MARGIN,
            FUTILITY_BASE,
            FUTILITY_MARGIN,
            NULL_MOVE_EVAL_DIVISOR,
            SINGULAR_MARGIN,
        ];
        assert!(margins.iter().all(|&m| m > 0 && m < MATE_BOUND));
        let factors = [
            HISTORY_PRUNING_MARGIN,
            EXCHANGE_QUIET_MARGIN,
            EXCHANGE_NOISY_MARGIN,
            NULL_MOVE_BASE,
            NULL_MOVE_DEPTH_DIVISOR,
            NULL_MOVE_EVAL_PLIES,
            SINGULAR_ENTRY_SLACK,
        ];
        assert!(factors.iter().all(|&f| f > 0));
        assert!([ASPIRATION_MIN_DEPTH]
            .iter()
            .all(|&d| d > 1 && (d as usize) < MAX_PLY));
        assert!([CHECK_INTERVAL].iter().all(|i| i.is_power_of_two()));
        assert!([SINGULAR_ENTRY_SLACK].iter().all(|&s| s < SINGULAR_DEPTH));
    }
}
