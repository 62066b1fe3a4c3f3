//! Playing levels: a strength below full (`Skill Level`, `UCI_Elo`) as one continuous level
//! `s` from 0 to 20, which the search turns into
//! 1. a node budget per move, exponential in `s`: [`NODES_AT_LEVEL_0`] doubled every
//!    [`LEVELS_PER_DOUBLING`] levels, give or take an eighth (seeded, for variety), and
//!    none at level 20. The search always completes depth 1, then no iteration passes the
//!    budget (an unfinished one is discarded): a weaker level sees fewer plies. Nodes, not
//!    time, so the strength does not depend on the machine or its load;
//! 2. a misjudgement of the static evaluation: a deterministic offset, keyed by the
//!    position's hash and the game's seed, up to [`MISJUDGEMENT_AT_LEVEL_0`] evaluation
//!    units at level 0, falling with the cube of the distance to level 20 but never below
//!    [`LEAST_MISJUDGEMENT`] (which keeps games from the same opening apart). Only
//!    heuristic evaluations are misjudged: game ends, rule draws, table and solver values
//!    never.
//!
//! Level 20 ([`Skill::FULL`], the default) changes nothing in the search.

use super::score::{Score, MAX_EVAL};

/// The highest level: full strength, the search unchanged.
pub const MAX_LEVEL: f64 = 20.0;
/// The node budget of a move at level 0 (depth 1 is completed whatever the budget).
pub const NODES_AT_LEVEL_0: f64 = 32.0;
/// Levels that double the node budget.
pub const LEVELS_PER_DOUBLING: f64 = 1.25;
/// The largest misjudgement at level 0, in evaluation units (chess: centipawns).
pub const MISJUDGEMENT_AT_LEVEL_0: f64 = 200.0;
/// The smallest misjudgement below full strength, in evaluation units.
pub const LEAST_MISJUDGEMENT: f64 = 2.0;

/// One point of a game's Elo scale: the level `s` that plays at about `elo`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EloAnchor {
    /// The rating.
    pub elo: u32,
    /// The level that plays at that rating, 0 to 20.
    pub level: f64,
}

/// The level for `elo` on a game's scale: linear between the `anchors` (sorted by rating,
/// levels rising), clamped to the first and the last.
pub fn level_of_elo(elo: u32, anchors: &[EloAnchor]) -> f64 {
    let (Some(first), Some(last)) = (anchors.first(), anchors.last()) else {
        return MAX_LEVEL;
    };
    if elo <= first.elo {
        return first.level;
    }
    for pair in anchors.windows(2) {
        let (low, high) = (pair[0], pair[1]);
        if elo <= high.elo {
            let t = f64::from(elo - low.elo) / f64::from((high.elo - low.elo).max(1));
            return low.level + t * (high.level - low.level);
        }
    }
    last.level
}

/// A playing strength: the level `s` (0 to 20) and the game's seed, which keys the
/// misjudgements and the budget's spread so that games differ.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Skill {
    level: f64,
    seed: u64,
}

impl Default for Skill {
    fn default() -> Self {
        Skill::FULL
    }
}

impl Skill {
    /// Full strength: no budget, no misjudgement.
    pub const FULL: Skill = Skill {
        level: MAX_LEVEL,
        seed: 0,
    };

    /// The strength of `level`, clamped to 0..=20 (not a number: full), with the game's
    /// `seed`.
    pub fn new(level: f64, seed: u64) -> Skill {
        let level = if level.is_nan() {
            MAX_LEVEL
        } else {
            level.clamp(0.0, MAX_LEVEL)
        };
        Skill { level, seed }
    }

    /// The level, 0 to 20.
    pub fn level(&self) -> f64 {
        self.level
    }

    /// Whether this is below full strength.
    pub fn is_limited(&self) -> bool {
        self.level < MAX_LEVEL
    }

    /// The node budget of a move from the position of hash `root_key` (`None`: full
    /// strength, no budget): [`NODES_AT_LEVEL_0`] · 2^(s / [`LEVELS_PER_DOUBLING`]), times
    /// a factor from 7/8 to 9/8 that the seed and the position choose.
    pub fn node_budget(&self, root_key: u64) -> Option<u64> {
        if !self.is_limited() {
            return None;
        }
        let nodes = NODES_AT_LEVEL_0 * (self.level / LEVELS_PER_DOUBLING).exp2();
        let spread = (mix(root_key ^ self.seed) >> 11) as f64 / (1u64 << 53) as f64;
        Some((nodes * (0.875 + 0.25 * spread)).max(1.0) as u64)
    }

    /// The largest misjudgement of an evaluation, in evaluation units (0 at full strength):
    /// [`MISJUDGEMENT_AT_LEVEL_0`] · (1 - s / 20)³, at least [`LEAST_MISJUDGEMENT`].
    pub fn misjudgement_amplitude(&self) -> Score {
        if !self.is_limited() {
            return 0;
        }
        let left = 1.0 - self.level / MAX_LEVEL;
        (MISJUDGEMENT_AT_LEVEL_0 * left.powi(3))
            .max(LEAST_MISJUDGEMENT)
            .round() as Score
    }

    /// The seed of the misjudgements.
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// The evaluation `eval` of the position of hash `key`, misjudged by up to `amplitude`
/// (from the sum of two uniform draws: small errors are the most frequent), the same for
/// the same key and `seed`, and kept within the evaluations' range. `amplitude` 0: `eval`.
#[inline]
pub fn misjudged(eval: Score, key: u64, seed: u64, amplitude: Score) -> Score {
    if amplitude == 0 {
        return eval;
    }
    let bits = mix(key ^ seed);
    let draw = (bits & 0xFFFF) as i64 + ((bits >> 16) & 0xFFFF) as i64 - 0xFFFF;
    let offset = (draw * i64::from(amplitude)) / 0xFFFF;
    (eval + offset as Score).clamp(-MAX_EVAL, MAX_EVAL)
}

/// One splitmix64 step from `x` ([`crate::rng::splitmix64`]): every bit of `x` stirs every
/// bit of the result.
fn mix(x: u64) -> u64 {
    crate::rng::splitmix64(x).1
}

/// The seed of one game: the process's seed and the number of games begun, mixed.
pub fn game_seed(process_seed: u64, games: u64) -> u64 {
    mix(process_seed ^ mix(games))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANCHORS: &[EloAnchor] = &[
        EloAnchor {
            elo: 1000,
            level: 0.0,
        },
        EloAnchor {
            elo: 2000,
            level: 10.0,
        },
        EloAnchor {
            elo: 3000,
            level: 20.0,
        },
    ];

    #[test]
    fn elo_maps_to_rising_levels() {
        assert_eq!(level_of_elo(500, ANCHORS), 0.0);
        assert_eq!(level_of_elo(1500, ANCHORS), 5.0);
        assert_eq!(level_of_elo(2500, ANCHORS), 15.0);
        assert_eq!(level_of_elo(4000, ANCHORS), 20.0);
        assert_eq!(level_of_elo(2000, &[]), MAX_LEVEL);
        let levels: Vec<f64> = (900..3100)
            .step_by(7)
            .map(|elo| level_of_elo(elo, ANCHORS))
            .collect();
        assert!(levels.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn budgets_rise_with_the_level_and_full_strength_has_none() {
        assert_eq!(Skill::FULL.node_budget(1), None);
        assert!(!Skill::new(25.0, 3).is_limited());
        assert_eq!(Skill::new(f64::NAN, 0), Skill::FULL);
        let budget = |level: f64| Skill::new(level, 7).node_budget(0xABCD).unwrap();
        assert!((28..=36).contains(&budget(0.0)), "{}", budget(0.0));
        for level in 0..19 {
            let (low, high) = (budget(f64::from(level)), budget(f64::from(level + 1)));
            assert!(high > low, "level {level}: {low} {high}");
        }
        // The spread keeps within an eighth and changes with the position and seed.
        let spread: Vec<u64> = (0..64)
            .map(|key| Skill::new(10.0, 1).node_budget(key).unwrap())
            .collect();
        let nominal = NODES_AT_LEVEL_0 * (10.0 / LEVELS_PER_DOUBLING).exp2();
        assert!(spread
            .iter()
            .all(|&n| (n as f64) >= nominal * 0.87 && (n as f64) <= nominal * 1.13));
        assert!(spread.iter().any(|&n| n != spread[0]));
    }

    #[test]
    fn misjudgement_is_deterministic_bounded_and_zero_at_full_strength() {
        assert_eq!(Skill::FULL.misjudgement_amplitude(), 0);
        let at = |level| Skill::new(level, 0).misjudgement_amplitude();
        assert_eq!(at(0.0), MISJUDGEMENT_AT_LEVEL_0 as Score);
        assert!(at(0.0) > at(5.0) && at(5.0) > at(10.0) && at(10.0) > at(15.0));
        assert_eq!(at(19.9), LEAST_MISJUDGEMENT as Score);
        for key in 0..1000u64 {
            assert_eq!(misjudged(37, key, 5, 0), 37);
            let once = misjudged(37, key, 5, 200);
            assert_eq!(once, misjudged(37, key, 5, 200));
            assert!((37 - 200..=37 + 200).contains(&once));
            assert!(misjudged(MAX_EVAL, key, 5, 200) <= MAX_EVAL);
        }
        // Another seed (another game) misjudges otherwise.
        assert!((0..100u64).any(|key| misjudged(0, key, 5, 200) != misjudged(0, key, 6, 200)));
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
    }
}

#[cfg(test)]
mod search_tests {
    use super::*;
    use crate::games::chess::Chess;
    use crate::games::setup::position_from;
    use crate::search::score::MATE;
    use crate::search::{Limits, Rules, ThreadPool};

    fn chess(fen: Option<&str>) -> Chess {
        position_from(&Default::default(), fen, [""; 0]).expect("a valid position")
    }

    #[test]
    fn level_20_searches_exactly_as_full_strength() {
        let root = chess(None);
        let mut full = ThreadPool::<Chess>::new(1);
        let mut twenty = ThreadPool::<Chess>::new(1);
        twenty.set_skill(Skill::new(MAX_LEVEL, 1234));
        let (a, b) = (
            full.search(&root, &Limits::depth(7), &[]),
            twenty.search(&root, &Limits::depth(7), &[]),
        );
        assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
    }

    #[test]
    fn a_level_keeps_to_its_node_budget() {
        for level in [0.0, 4.0, 8.0, 12.0] {
            let skill = Skill::new(level, 99);
            let root = chess(None);
            let budget = skill.node_budget(root.hash()).expect("a budget");
            let mut pool = ThreadPool::<Chess>::new(1);
            pool.set_skill(skill);
            // No other limit: the budget alone ends the search.
            let result = pool.search(&root, &Limits::default(), &[]);
            assert!(result.depth >= 1 && result.best.is_some());
            assert!(
                result.depth == 1 || result.nodes <= budget,
                "{level}: {result:?}"
            );
            pool.new_game();
            let again = pool.search(&root, &Limits::default(), &[]);
            assert_eq!((again.best, again.nodes), (result.best, result.nodes));
            // A smaller `go nodes` still wins.
            let capped = pool.search(&root, &Limits::nodes(budget / 2), &[]);
            assert!(capped.nodes <= budget / 2 || capped.depth == 1);
        }
    }

    #[test]
    fn misjudgement_never_touches_a_mate() {
        // Mate in one (Qh5xf7) at the weakest level, whatever the seed.
        let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
        let root = chess(Some(fen));
        for seed in 0..8 {
            let mut pool = ThreadPool::<Chess>::new(1);
            pool.set_skill(Skill::new(0.0, seed));
            let result = pool.search(&root, &Limits::default(), &[]);
            assert_eq!(result.score, MATE - 1, "seed {seed}");
            assert_eq!(
                result.best.map(|mv| root.format_move(mv)).as_deref(),
                Some("h5f7")
            );
        }
        // The weakest level does misjudge quiet positions.
        let scores: Vec<i32> = (0..8)
            .map(|seed| {
                let mut pool = ThreadPool::<Chess>::new(1);
                pool.set_skill(Skill::new(0.0, seed));
                pool.search(&chess(None), &Limits::depth(1), &[]).score
            })
            .collect();
        assert!(scores.iter().any(|&s| s != scores[0]), "{scores:?}");
    }
}
