//! The search's tuning constants: the margins and depth limits of every kind of pruning,
//! reduction and extension, and the aspiration window. Margins are in the units of a
//! game's evaluation, so each game may have its own set ([`SearchHooks::SEARCH_PARAMS`]); every
//! field changes the node count of `bench`, so a change here is a change of the `Bench:`
//! signature. [`INFINITE_EXACT_TIME`] is the same for every game; [`CHECK_INTERVAL`] is the
//! default of [`SearchRefinements::CHECK_INTERVAL`].
//!
//! [`SearchHooks::SEARCH_PARAMS`]: super::game::SearchHooks::SEARCH_PARAMS
//! [`SearchRefinements::CHECK_INTERVAL`]: super::game::SearchRefinements::CHECK_INTERVAL

use std::time::Duration;

use super::score::Score;

/// Largest magnitude a history value of move ordering reaches (gravity keeps it inside);
/// the history bonus limits of [`SearchParams`] are bounded by it.
pub const HISTORY_MAX: i32 = 16_384;

/// How often (in nodes) the clock and the stop flag are read, unless the game says
/// otherwise ([`SearchRefinements::CHECK_INTERVAL`]).
///
/// [`SearchRefinements::CHECK_INTERVAL`]: super::game::SearchRefinements::CHECK_INTERVAL
pub const CHECK_INTERVAL: u64 = 1024;
/// Time the exact solver may take under `go infinite` before the normal search starts.
pub const INFINITE_EXACT_TIME: Duration = Duration::from_secs(5);

/// One game's search constants. Which techniques apply at all is the game's
/// [`Pruning`](super::game::Pruning); these say how far they go.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SearchParams {
    /// First depth searched with an aspiration window.
    pub aspiration_min_depth: u32,
    /// Half-width of the first aspiration window.
    pub aspiration_window: Score,
    /// Reverse futility pruning: deepest remaining depth it applies to.
    pub reverse_futility_depth: i32,
    /// Reverse futility pruning: margin per ply of remaining depth.
    pub reverse_futility_margin: Score,
    /// Futility pruning: deepest remaining depth it applies to.
    pub futility_depth: i32,
    /// Futility pruning: a quiet move is skipped when the static evaluation plus
    /// `futility_base + futility_margin * depth` cannot reach alpha.
    pub futility_base: Score,
    /// See [`SearchParams::futility_base`].
    pub futility_margin: Score,
    /// Late move pruning: deepest remaining depth it applies to.
    pub late_move_pruning_depth: i32,
    /// History pruning: deepest remaining depth it applies to.
    pub history_pruning_depth: i32,
    /// History pruning: a quiet move is skipped when its history is below
    /// `-history_pruning_margin * depth`.
    pub history_pruning_margin: i32,
    /// Static exchange pruning: deepest remaining depth it applies to.
    pub exchange_pruning_depth: i32,
    /// Static exchange pruning: a quiet move is skipped when it loses more than this per
    /// ply of remaining depth.
    pub exchange_quiet_margin: i32,
    /// Static exchange pruning: a noisy move is skipped when it loses more than this times
    /// the square of the remaining depth.
    pub exchange_noisy_margin: i32,
    /// Null move pruning: the reduction is `null_move_base + depth /
    /// null_move_depth_divisor` plus one ply per `null_move_eval_divisor` of static
    /// evaluation above beta (at most `null_move_eval_plies`).
    pub null_move_base: i32,
    /// See [`SearchParams::null_move_base`].
    pub null_move_depth_divisor: i32,
    /// See [`SearchParams::null_move_base`].
    pub null_move_eval_divisor: Score,
    /// See [`SearchParams::null_move_base`].
    pub null_move_eval_plies: i32,
    /// Null move pruning: from this depth a null-move cut-off is verified by a reduced
    /// search without null moves for the side to move (guards against zugzwang).
    pub null_move_verification_depth: i32,
    /// Singular extensions: shallowest remaining depth they apply to.
    pub singular_depth: i32,
    /// Singular extensions: the table's entry may be this many plies shallower than the
    /// node.
    pub singular_entry_slack: i32,
    /// Singular extensions: the other moves must fail below the entry's score minus this
    /// times the depth.
    pub singular_margin: Score,
    /// Singular extensions: outside the principal variation, the hash move is extended
    /// two plies instead of one when the others fail this much further below (`None`:
    /// never).
    pub singular_double_margin: Option<Score>,
    /// Internal iterative reduction: shallowest remaining depth it applies to.
    pub iir_depth: i32,
    /// Late move reductions: the base reduction is `lmr_base + ln(depth) * ln(move
    /// number) / lmr_divisor` plies.
    pub lmr_base: f64,
    /// See [`SearchParams::lmr_base`].
    pub lmr_divisor: f64,
    /// History: a cut-off at remaining depth `d` rewards its move (and punishes those tried
    /// before it) by `history_bonus_linear * d + history_bonus_quadratic * d * d`, at most
    /// `history_bonus_max`.
    pub history_bonus_linear: i32,
    /// See [`SearchParams::history_bonus_linear`].
    pub history_bonus_quadratic: i32,
    /// See [`SearchParams::history_bonus_linear`]; at most the histories' bound.
    pub history_bonus_max: i32,
    /// The clock: how many more moves a game without `movestogo` is planned to last (the
    /// clock is shared among them, see [`deadlines`](super::limits::deadlines)).
    pub planned_moves: u32,
}

impl SearchParams {
    /// The constants of every game that does not set its own (they were tuned for
    /// chess's hand-crafted evaluation, in centipawns).
    pub const DEFAULT: SearchParams = SearchParams {
        aspiration_min_depth: 4,
        aspiration_window: 30,
        reverse_futility_depth: 8,
        reverse_futility_margin: 75,
        futility_depth: 6,
        futility_base: 100,
        futility_margin: 90,
        late_move_pruning_depth: 8,
        history_pruning_depth: 3,
        history_pruning_margin: 2_048,
        exchange_pruning_depth: 8,
        exchange_quiet_margin: 64,
        exchange_noisy_margin: 20,
        null_move_base: 3,
        null_move_depth_divisor: 3,
        null_move_eval_divisor: 200,
        null_move_eval_plies: 3,
        null_move_verification_depth: 12,
        singular_depth: 8,
        singular_entry_slack: 3,
        singular_margin: 1,
        singular_double_margin: None,
        iir_depth: 4,
        lmr_base: 0.75,
        lmr_divisor: 2.25,
        history_bonus_linear: 0,
        history_bonus_quadratic: 16,
        history_bonus_max: 4_096,
        planned_moves: 40,
    };

    /// Whether the history bonus grows with depth from a positive value and stays within
    /// the histories' bound.
    fn history_bonus_is_sound(&self) -> bool {
        let (linear, quadratic) = (self.history_bonus_linear, self.history_bonus_quadratic);
        linear >= 0
            && quadratic >= 0
            && linear + quadratic > 0
            && (1..=HISTORY_MAX).contains(&self.history_bonus_max)
    }

    /// Why these constants cannot drive a search (a depth limit outside `1..MAX_PLY`, a
    /// margin or factor that is not positive...), or `None` when they can.
    pub fn problem(&self) -> Option<&'static str> {
        use super::score::{MATE_BOUND, MAX_PLY};
        let depths = [
            self.reverse_futility_depth,
            self.futility_depth,
            self.late_move_pruning_depth,
            self.history_pruning_depth,
            self.exchange_pruning_depth,
            self.null_move_verification_depth,
            self.singular_depth,
            self.iir_depth,
        ];
        let margins = [
            self.aspiration_window,
            self.reverse_futility_margin,
            self.futility_base,
            self.futility_margin,
            self.null_move_eval_divisor,
            self.singular_margin,
            self.singular_double_margin.unwrap_or(1),
        ];
        let factors = [
            self.history_pruning_margin,
            self.exchange_quiet_margin,
            self.exchange_noisy_margin,
            self.null_move_base,
            self.null_move_depth_divisor,
            self.null_move_eval_plies,
            self.singular_entry_slack,
        ];
        let aspiration = self.aspiration_min_depth as usize;
        if !depths.iter().all(|&d| d > 0 && (d as usize) < MAX_PLY) {
            Some("a depth limit is outside 1..MAX_PLY")
        } else if !(2..MAX_PLY).contains(&aspiration) {
            Some("the aspiration windows start outside 2..MAX_PLY")
        } else if !margins.iter().all(|&m| m > 0 && m < MATE_BOUND) {
            Some("a margin is not between 0 and the mate scores")
        } else if !factors.iter().all(|&f| f > 0) {
            Some("a factor is not positive")
        } else if self.singular_entry_slack >= self.singular_depth {
            Some("the singular entry slack reaches the singular depth")
        } else if !(self.lmr_base >= 0.0 && self.lmr_divisor > 0.0) {
            Some("the late move reduction table is negative")
        } else if !self.history_bonus_is_sound() {
            Some("the history bonus is not positive or exceeds the histories' bound")
        } else if self.planned_moves == 0 {
            Some("the clock plans no move")
        } else {
            None
        }
    }
}

/// One field of [`SearchParams`] as a tuning build offers it: an integer `spin` option
/// (floats scaled by 100, an optional margin with 0 for none) with the range an SPSA tuner
/// may explore and the perturbation OpenBench's SPSA ends with (`c_end`).
#[derive(Copy, Clone, Debug)]
pub struct Tunable {
    /// The option's name: the field's name in CamelCase.
    pub name: &'static str,
    /// Smallest value offered.
    pub min: i64,
    /// Largest value offered.
    pub max: i64,
    /// OpenBench's `c_end`: the last iterations perturb the value by this much.
    pub c_end: f64,
    get: fn(&SearchParams) -> i64,
    set: fn(&mut SearchParams, i64),
}

impl Tunable {
    /// The value of this constant in `params`, as the option shows it.
    pub fn get(&self, params: &SearchParams) -> i64 {
        (self.get)(params)
    }

    /// `params` with this constant set to `value` (in the option's units), if `value`
    /// is within `min..=max` and the whole set can still drive a search.
    pub fn set(&self, params: &SearchParams, value: i64) -> Result<SearchParams, String> {
        if !(self.min..=self.max).contains(&value) {
            let (min, max) = (self.min, self.max);
            return Err(format!("{} takes {min} to {max}, not {value}", self.name));
        }
        let mut changed = *params;
        (self.set)(&mut changed, value);
        match changed.problem() {
            None => Ok(changed),
            Some(problem) => Err(format!("{} {value} refused: {problem}", self.name)),
        }
    }

    /// The OpenBench SPSA input line of this constant, starting from `params`:
    /// `Name, int, default, min, max, c_end, r_end`.
    pub fn openbench_line(&self, params: &SearchParams, r_end: f64) -> String {
        let (name, value, min, max) = (self.name, self.get(params), self.min, self.max);
        format!(
            "{name}, int, {value}, {min}, {max}, {}, {r_end}",
            self.c_end
        )
    }
}

/// The `r_end` OpenBench users give integer search constants.
pub const OPENBENCH_R_END: f64 = 0.002;

macro_rules! tunable {
    ($name:literal, $field:ident, $min:literal, $max:literal, $c_end:literal) => {
        Tunable {
            name: $name,
            min: $min,
            max: $max,
            c_end: $c_end,
            get: |p| i64::from(p.$field),
            set: |p, v| p.$field = v as _,
        }
    };
}

/// Every field of [`SearchParams`], as a tuning build offers it.
pub const TUNABLES: &[Tunable] = &[
    tunable!("AspirationMinDepth", aspiration_min_depth, 2, 16, 1.0),
    tunable!("AspirationWindow", aspiration_window, 5, 400, 5.0),
    tunable!("ReverseFutilityDepth", reverse_futility_depth, 1, 16, 1.0),
    tunable!(
        "ReverseFutilityMargin",
        reverse_futility_margin,
        10,
        400,
        8.0
    ),
    tunable!("FutilityDepth", futility_depth, 1, 16, 1.0),
    tunable!("FutilityBase", futility_base, 1, 500, 10.0),
    tunable!("FutilityMargin", futility_margin, 10, 400, 8.0),
    tunable!("LateMovePruningDepth", late_move_pruning_depth, 1, 16, 1.0),
    tunable!("HistoryPruningDepth", history_pruning_depth, 1, 16, 1.0),
    tunable!(
        "HistoryPruningMargin",
        history_pruning_margin,
        128,
        16384,
        256.0
    ),
    tunable!("ExchangePruningDepth", exchange_pruning_depth, 1, 16, 1.0),
    tunable!("ExchangeQuietMargin", exchange_quiet_margin, 4, 400, 6.0),
    tunable!("ExchangeNoisyMargin", exchange_noisy_margin, 2, 200, 3.0),
    tunable!("NullMoveBase", null_move_base, 1, 8, 1.0),
    tunable!("NullMoveDepthDivisor", null_move_depth_divisor, 1, 12, 1.0),
    tunable!(
        "NullMoveEvalDivisor",
        null_move_eval_divisor,
        20,
        1000,
        20.0
    ),
    tunable!("NullMoveEvalPlies", null_move_eval_plies, 1, 8, 1.0),
    tunable!(
        "NullMoveVerificationDepth",
        null_move_verification_depth,
        1,
        64,
        2.0
    ),
    tunable!("SingularDepth", singular_depth, 4, 16, 1.0),
    tunable!("SingularEntrySlack", singular_entry_slack, 1, 3, 1.0),
    tunable!("SingularMargin", singular_margin, 1, 16, 1.0),
    Tunable {
        name: "SingularDoubleMargin",
        min: 0,
        max: 200,
        c_end: 5.0,
        get: |p| p.singular_double_margin.map_or(0, i64::from),
        set: |p, v| p.singular_double_margin = (v > 0).then_some(v as Score),
    },
    tunable!("IirDepth", iir_depth, 1, 16, 1.0),
    Tunable {
        name: "LmrBase",
        min: 0,
        max: 300,
        c_end: 8.0,
        get: |p| (p.lmr_base * 100.0).round() as i64,
        set: |p, v| p.lmr_base = v as f64 / 100.0,
    },
    Tunable {
        name: "LmrDivisor",
        min: 50,
        max: 600,
        c_end: 15.0,
        get: |p| (p.lmr_divisor * 100.0).round() as i64,
        set: |p, v| p.lmr_divisor = v as f64 / 100.0,
    },
    tunable!("HistoryBonusLinear", history_bonus_linear, 0, 1000, 20.0),
    tunable!("HistoryBonusQuadratic", history_bonus_quadratic, 0, 64, 2.0),
    tunable!("HistoryBonusMax", history_bonus_max, 64, 16384, 128.0),
    tunable!("PlannedMoves", planned_moves, 5, 100, 3.0),
];

/// The tunable constant named `name` (case-insensitive).
pub fn tunable(name: &str) -> Option<&'static Tunable> {
    TUNABLES
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(name.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values the `Bench:` signature was measured with: changing one changes it.
    #[test]
    fn the_defaults_are_the_ones_bench_was_measured_with() {
        assert_eq!(CHECK_INTERVAL, 1024);
        assert_eq!(INFINITE_EXACT_TIME, Duration::from_secs(5));
        let p = SearchParams::DEFAULT;
        assert_eq!((p.aspiration_min_depth, p.aspiration_window), (4, 30));
        assert_eq!(
            (p.reverse_futility_depth, p.reverse_futility_margin),
            (8, 75)
        );
        let futility = (p.futility_depth, p.futility_base, p.futility_margin);
        assert_eq!(futility, (6, 100, 90));
        assert_eq!(p.late_move_pruning_depth, 8);
        assert_eq!(
            (p.history_pruning_depth, p.history_pruning_margin),
            (3, 2_048)
        );
        let exchange = (
            p.exchange_pruning_depth,
            p.exchange_quiet_margin,
            p.exchange_noisy_margin,
        );
        assert_eq!(exchange, (8, 64, 20));
        let null_move = (
            p.null_move_base,
            p.null_move_depth_divisor,
            p.null_move_eval_divisor,
            p.null_move_eval_plies,
            p.null_move_verification_depth,
        );
        assert_eq!(null_move, (3, 3, 200, 3, 12));
        let singular = (p.singular_depth, p.singular_entry_slack, p.singular_margin);
        assert_eq!(singular, (8, 3, 1));
        assert_eq!(p.singular_double_margin, None);
        assert_eq!(p.iir_depth, 4);
        assert_eq!((p.lmr_base, p.lmr_divisor), (0.75, 2.25));
        let history = (
            p.history_bonus_linear,
            p.history_bonus_quadratic,
            p.history_bonus_max,
        );
        assert_eq!(history, (0, 16, 4_096));
        assert_eq!(p.planned_moves, 40);
    }

    #[test]
    fn every_field_is_tunable_and_reads_back_what_was_set() {
        let defaults = SearchParams::DEFAULT;
        for t in TUNABLES {
            let value = t.get(&defaults);
            assert!((t.min..=t.max).contains(&value), "{}", t.name);
            assert_eq!(t.set(&defaults, value), Ok(defaults), "{}", t.name);
            let other = if value < t.max { value + 1 } else { value - 1 };
            let changed = t.set(&defaults, other).expect(t.name);
            assert_ne!(changed, defaults, "{}", t.name);
            assert_eq!(t.get(&changed), other, "{}", t.name);
            assert!(t.set(&defaults, t.max + 1).is_err(), "{}", t.name);
            assert!(t.set(&defaults, t.min - 1).is_err(), "{}", t.name);
            let line = t.openbench_line(&defaults, OPENBENCH_R_END);
            assert_eq!(line.split(", ").count(), 7, "{line}");
        }
        // Every field of the struct has its option (the struct literal lists them all).
        assert_eq!(TUNABLES.len(), 29);
        let slack = tunable("singularentryslack").expect("found by any case");
        assert!(slack
            .set(
                &SearchParams {
                    singular_depth: 4,
                    ..defaults
                },
                3
            )
            .is_ok());
        let shallow = tunable("SingularDepth").unwrap();
        let deep_slack = SearchParams {
            singular_entry_slack: 3,
            ..defaults
        };
        assert!(shallow.set(&deep_slack, 4).is_ok());
        assert!(tunable("SingularDoubleMargin").unwrap().get(&defaults) == 0);
        assert_eq!(tunable("LmrDivisor").unwrap().get(&defaults), 225);
        assert!(tunable("Contempt").is_none());
    }

    #[test]
    fn the_defaults_can_drive_a_search_and_broken_ones_are_named() {
        assert_eq!(SearchParams::DEFAULT.problem(), None);
        assert!(CHECK_INTERVAL.is_power_of_two());
        let broken = [
            SearchParams {
                iir_depth: 0,
                ..SearchParams::DEFAULT
            },
            SearchParams {
                aspiration_min_depth: 1,
                ..SearchParams::DEFAULT
            },
            SearchParams {
                futility_margin: -5,
                ..SearchParams::DEFAULT
            },
            SearchParams {
                null_move_depth_divisor: 0,
                ..SearchParams::DEFAULT
            },
            SearchParams {
                singular_entry_slack: 8,
                ..SearchParams::DEFAULT
            },
            SearchParams {
                singular_double_margin: Some(0),
                ..SearchParams::DEFAULT
            },
            SearchParams {
                lmr_divisor: 0.0,
                ..SearchParams::DEFAULT
            },
            SearchParams {
                history_bonus_quadratic: 0,
                ..SearchParams::DEFAULT
            },
            SearchParams {
                history_bonus_max: HISTORY_MAX + 1,
                ..SearchParams::DEFAULT
            },
        ];
        for params in broken {
            assert!(params.problem().is_some(), "{params:?}");
        }
    }
}
