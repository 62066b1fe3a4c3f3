//! Tuning build only (cargo feature `tune`): the current game's search constants
//! ([`SearchParams`], every field in [`TUNABLES`]) as `spin` options, so that an SPSA
//! tuner (`scripts/spsa.py`, OpenBench) plays engines that differ only in them. A value
//! is checked against the option's range (by `setoption`, in the options module) and
//! [`SearchParams::problem`] (by [`apply`]); the session then
//! searches with the game's constants overridden by every value set since the game was
//! chosen. See docs/tuning.md and protocol.md.

use crate::games::{Evaluation, GameKind, GameVisitor, Registered, VariantSettings};
use crate::search::params::{tunable, Tunable, OPENBENCH_R_END, TUNABLES};
use crate::search::{Game, SearchParams};

/// The search constants `kind` plays with (`G::SEARCH_PARAMS`).
pub fn game_params(kind: GameKind) -> SearchParams {
    /// Reads the visited game's constants.
    struct ParamsOf;
    impl GameVisitor for ParamsOf {
        type Output = SearchParams;
        fn visit<G: Game>(self, _: Registered<G>) -> SearchParams {
            G::SEARCH_PARAMS
        }
    }
    // The hand-crafted evaluation: no network is loaded only to read constants.
    let settings = VariantSettings {
        evaluation: Evaluation::HandCrafted,
        ..VariantSettings::default()
    };
    kind.visit(&settings, ParamsOf)
}

/// The handshake's `option` lines of the constants, `kind`'s values as defaults.
pub fn option_lines(kind: GameKind) -> Vec<String> {
    let params = game_params(kind);
    TUNABLES
        .iter()
        .map(|t| {
            let (name, value, min, max) = (t.name, t.get(&params), t.min, t.max);
            format!("option name {name} type spin default {value} min {min} max {max}")
        })
        .collect()
}

/// OpenBench's SPSA input for `kind`, one constant a line: `Name, int, default, min,
/// max, c_end, r_end`.
pub fn openbench_lines(kind: GameKind) -> Vec<String> {
    let params = game_params(kind);
    TUNABLES
        .iter()
        .map(|t| t.openbench_line(&params, OPENBENCH_R_END))
        .collect()
}

/// `base` with every `(name, value)` of `values` applied in order, or why the result
/// cannot drive a search.
pub fn apply(base: SearchParams, values: &[(&'static str, i64)]) -> Result<SearchParams, String> {
    values.iter().try_fold(base, |params, &(name, value)| {
        let tunable: &Tunable = tunable(name).ok_or_else(|| format!("no constant {name}"))?;
        tunable.set(&params, value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games;

    #[test]
    fn options_list_every_constant_with_the_games_values() {
        let ataxx = games::find("ataxx").unwrap();
        let lines = option_lines(ataxx);
        assert_eq!(lines.len(), TUNABLES.len());
        let window = "option name AspirationWindow type spin default 41 min 5 max 400";
        assert!(lines.contains(&window.to_string()), "{lines:?}");
        let chess = option_lines(games::find("chess").unwrap());
        let null_move = "option name NullMoveEvalDivisor type spin default 150 min 20 max 1000";
        assert!(chess.contains(&null_move.to_string()));
        let spsa = openbench_lines(ataxx);
        assert!(spsa.contains(&"LmrDivisor, int, 198, 50, 600, 15, 0.002".to_string()));
    }

    #[test]
    fn values_are_checked_as_a_set() {
        let base = SearchParams::DEFAULT;
        let tuned = apply(base, &[("FutilityMargin", 120), ("LmrBase", 50)]).unwrap();
        assert_eq!((tuned.futility_margin, tuned.lmr_base), (120, 0.5));
        // The ranges keep the singular entry slack below the singular depth.
        let deepest_slack = [("SingularDepth", 4), ("SingularEntrySlack", 3)];
        assert!(apply(base, &deepest_slack).is_ok());
        let out_of_range = [("SingularEntrySlack", 3), ("SingularDepth", 3)];
        assert!(apply(base, &out_of_range).is_err());
        assert!(apply(base, &[("Contempt", 1)]).is_err());
    }
}
