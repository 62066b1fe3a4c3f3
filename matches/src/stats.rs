//! Match statistics: W/D/L, score, Elo with a 95% interval, LOS, pentanomial pair counts and
//! SPRT, with the formulas fastchess uses.
//!
//! Scores are from the first engine's view: a win is 1, a draw 1/2, a loss 0. A game pair
//! (one opening, colours swapped) scores 0, 1/2, 1, 3/2 or 2 points; pentanomial statistics
//! treat the pair's mean (0, 1/4, 1/2, 3/4 or 1) as one sample, which removes the opening
//! bias from the variance.
//!
//! - Logistic Elo of a score `s`: `-400 log10(1/s - 1)`.
//! - Interval: the sample mean `s` with standard error `sqrt(var / n)` (var of one game or one
//!   pair), `s ± 1.959964 se` mapped through the logistic Elo.
//! - Normalised Elo: `(s - 1/2) / sigma * 800 / ln 10`, `sigma` the standard deviation of one
//!   game (`sqrt(2 var_pair)` for pairs).
//! - LOS: `Phi((s - 1/2) / se)`, the normal approximation of P(true score > 1/2).
//! - SPRT: the generalised SPRT of Van den Bergh as fastchess computes it,
//!   `LLR = n/2 ln(var0 / var1)` with `var_i = sum p_j (x_j - s_i)^2` over the observed
//!   frequencies `p_j`; `s_i` is the score at `elo_i` (logistic model) or at normalised Elo
//!   `elo_i` with the observed standard deviation (normalised model). Bounds
//!   `ln(beta / (1 - alpha))` and `ln((1 - beta) / alpha)`.

use std::f64::consts::LN_10;
use std::fmt;

use serde::Serialize;

/// Phi^-1(0.975): the two-sided 95% quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The points of each pentanomial bucket, as the mean score of the pair.
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Logistic Elo difference of a score in (0, 1); infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    // Adding 0.0 turns the -0.0 of an even score into 0.0 for printing.
    -400.0 * (1.0 / score - 1.0).log10() + 0.0
}

/// Score expected at a logistic Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + libm::erf(x / std::f64::consts::SQRT_2))
}

/// Mean and variance of a discrete distribution given as (value, count) pairs.
fn mean_variance(samples: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n: f64 = samples.iter().map(|&(_, c)| c).sum();
    if n == 0.0 {
        return None;
    }
    let mean = samples.iter().map(|&(x, c)| x * c).sum::<f64>() / n;
    let var = samples
        .iter()
        .map(|&(x, c)| c * (x - mean) * (x - mean))
        .sum::<f64>()
        / n;
    Some((n, mean, var))
}

/// An Elo estimate with its 95% interval and the statistics it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// Logistic Elo difference of the observed score.
    pub elo: f64,
    /// Lower end of the 95% interval (logistic Elo).
    pub lower: f64,
    /// Upper end of the 95% interval (logistic Elo).
    pub upper: f64,
    /// Normalised Elo (score difference in units of one game's standard deviation).
    pub nelo: f64,
    /// Likelihood of superiority: probability that the true score is above one half.
    pub los: f64,
}

impl EloEstimate {
    /// Half the width of the interval, the "±" figure.
    pub fn error(&self) -> f64 {
        (self.upper - self.lower) / 2.0
    }

    /// Estimate from `n` samples with mean `score` and per-sample variance `var`;
    /// `games_per_sample` is 1 for games and 2 for pairs.
    fn from_moments(n: f64, score: f64, var: f64, games_per_sample: f64) -> EloEstimate {
        let se = (var / n).sqrt();
        let clamp = |s: f64| s.clamp(0.0, 1.0);
        let sigma_game = (games_per_sample * var).sqrt();
        let (nelo, los) = if se > 0.0 {
            (
                (score - 0.5) / sigma_game * 800.0 / LN_10,
                normal_cdf((score - 0.5) / se),
            )
        } else {
            // No spread at all: every sample scored the same.
            let sign = (score - 0.5).signum();
            let los = if score == 0.5 {
                0.5
            } else {
                (sign + 1.0) / 2.0
            };
            (0.0, los)
        };
        EloEstimate {
            elo: elo_from_score(score),
            lower: elo_from_score(clamp(score - Z95 * se)),
            upper: elo_from_score(clamp(score + Z95 * se)),
            nelo,
            los,
        }
    }
}

/// Wins, draws and losses of the first engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    /// Games the first engine won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the first engine lost.
    pub losses: u64,
}

impl Wdl {
    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points of the first engine (a draw is half a point).
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Mean score per game, `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    /// The same counts seen from the other engine.
    pub fn flipped(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    fn samples(&self) -> [(f64, f64); 3] {
        [
            (1.0, self.wins as f64),
            (0.5, self.draws as f64),
            (0.0, self.losses as f64),
        ]
    }

    /// Elo estimate with the trinomial (per game) variance; `None` before the first game.
    pub fn elo(&self) -> Option<EloEstimate> {
        let (n, score, var) = mean_variance(&self.samples())?;
        Some(EloEstimate::from_moments(n, score, var, 1.0))
    }
}

/// Counts of game pairs by the first engine's points in the pair: 0, 1/2, 1, 3/2, 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Penta {
    /// `counts[k]`: pairs in which the first engine scored `k` half-points.
    pub counts: [u64; 5],
}

impl Penta {
    /// Counts one pair from the first engine's results in its two games (points 0, 0.5 or 1).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let half_points = ((first + second) * 2.0).round() as usize;
        self.counts[half_points.min(4)] += 1;
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    fn samples(&self) -> [(f64, f64); 5] {
        std::array::from_fn(|k| (PAIR_SCORES[k], self.counts[k] as f64))
    }

    /// Elo estimate with the pentanomial (per pair) variance; `None` before the first pair.
    pub fn elo(&self) -> Option<EloEstimate> {
        let (n, score, var) = mean_variance(&self.samples())?;
        Some(EloEstimate::from_moments(n, score, var, 2.0))
    }
}

/// How SPRT turns the Elo hypotheses into expected scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Normalised Elo (fastchess's default): hypotheses in units of the observed spread.
    Normalized,
    /// Logistic Elo: hypotheses are plain Elo differences.
    Logistic,
}

impl EloModel {
    /// Parses `normalized` or `logistic`.
    pub fn from_name(name: &str) -> Option<EloModel> {
        match name.to_ascii_lowercase().as_str() {
            "normalized" | "normalised" => Some(EloModel::Normalized),
            "logistic" => Some(EloModel::Logistic),
            _ => None,
        }
    }
}

/// What the SPRT concludes so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtDecision {
    /// The upper bound was reached: the first engine is at least `elo1` stronger.
    H1,
    /// The lower bound was reached: the first engine is at most `elo0` stronger.
    H0,
    /// Neither bound is reached yet.
    Continue,
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::H1 => "H1 accepted",
            SprtDecision::H0 => "H0 accepted",
            SprtDecision::Continue => "continue",
        })
    }
}

/// A sequential probability ratio test of `elo0` against `elo1`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative hypothesis.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
    /// How Elo hypotheses become scores.
    pub model: EloModel,
}

impl Sprt {
    /// A test; `None` unless `0 < alpha, beta < 1`, `alpha + beta < 1` and `elo0 < elo1`.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64, model: EloModel) -> Option<Sprt> {
        let valid = alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0 && elo0 < elo1;
        valid.then_some(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        })
    }

    /// The lower (accept H0) and upper (accept H1) LLR bounds.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Log-likelihood ratio from (score of the sample, count) pairs; `games_per_sample` is 1
    /// for games and 2 for pairs. Zero while there is no spread (as in fastchess).
    fn llr(&self, samples: &[(f64, f64)], games_per_sample: f64) -> f64 {
        let Some((n, _, var)) = mean_variance(samples) else {
            return 0.0;
        };
        let (s0, s1) = match self.model {
            EloModel::Normalized => {
                if var == 0.0 {
                    return 0.0;
                }
                let sigma = (games_per_sample * var).sqrt();
                (
                    0.5 + self.elo0 * sigma / (800.0 / LN_10),
                    0.5 + self.elo1 * sigma / (800.0 / LN_10),
                )
            }
            EloModel::Logistic => (score_from_elo(self.elo0), score_from_elo(self.elo1)),
        };
        let spread = |s: f64| {
            samples
                .iter()
                .map(|&(x, c)| c * (x - s) * (x - s))
                .sum::<f64>()
                / n
        };
        let (var0, var1) = (spread(s0), spread(s1));
        if var0 == 0.0 || var1 == 0.0 {
            return 0.0;
        }
        0.5 * n * (var0 / var1).ln()
    }

    /// LLR from game results (trinomial model).
    pub fn llr_wdl(&self, wdl: &Wdl) -> f64 {
        self.llr(&wdl.samples(), 1.0)
    }

    /// LLR from game pairs (pentanomial model).
    pub fn llr_penta(&self, penta: &Penta) -> f64 {
        self.llr(&penta.samples(), 2.0)
    }

    /// The decision an LLR value gives.
    pub fn decision(&self, llr: f64) -> SprtDecision {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::H1
        } else if llr <= lower {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    //! Expected values were computed independently with python3 (`math.erf`, `math.log`)
    //! from the formulas in the module documentation; the script is in each test's comment.
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} != {b} (tolerance {tol})");
    }

    #[test]
    fn elo_and_score_are_inverse() {
        close(elo_from_score(0.5), 0.0, 1e-12);
        // 400*log10(3) = 190.848501887865
        close(elo_from_score(0.75), 190.848_501_887_865, 1e-9);
        close(score_from_elo(190.848_501_887_865), 0.75, 1e-12);
        close(normal_cdf(1.959_963_984_540_054), 0.975, 1e-12);
    }

    /// W=30 D=50 L=20: s = 0.55, var = (30*.45^2 + 50*.05^2 + 20*.55^2)/100 = 0.1225,
    /// se = 0.035, interval s ± 1.959964*0.035 = [0.481401, 0.618599].
    #[test]
    fn trinomial_worked_example() {
        let wdl = Wdl {
            wins: 30,
            draws: 50,
            losses: 20,
        };
        close(wdl.score().unwrap(), 0.55, 1e-12);
        let e = wdl.elo().unwrap();
        close(e.elo, 34.860_070_287_560, 1e-6);
        close(e.lower, -12.929_693_470_338, 1e-6);
        close(e.upper, 84.010_762_649_402, 1e-6);
        // LOS = Phi(0.05/0.035)
        close(e.los, 0.923_436_274_490_2, 1e-9);
        // nElo = 0.05/0.35 * 800/ln 10
        close(e.nelo, 49.633_655_074_657, 1e-6);
    }

    /// Pairs [LL, LD, DD+WL, WD, WW] = [5, 10, 30, 15, 10]: s = 38.75/70 = 0.553571,
    /// var_pair = sum c (x - s)^2 / 70 = 0.0596301, se = sqrt(var_pair / 70).
    #[test]
    fn pentanomial_worked_example() {
        let penta = Penta {
            counts: [5, 10, 30, 15, 10],
        };
        let e = penta.elo().unwrap();
        close(e.elo, 37.368_674_064_894, 1e-6);
        close(e.lower, -6.763_497_743_613, 1e-6);
        close(e.upper, 82.742_732_615_583, 1e-6);
        close(e.los, 0.951_405_975_358, 1e-8);
        close(e.nelo, 48.703_796_261_452, 1e-6);
    }

    #[test]
    fn pairs_are_bucketed_by_points() {
        let mut p = Penta::default();
        p.add_pair(1.0, 1.0);
        p.add_pair(1.0, 0.0);
        p.add_pair(0.5, 0.5);
        p.add_pair(0.0, 0.5);
        p.add_pair(0.0, 0.0);
        assert_eq!(p.counts, [1, 1, 2, 0, 1]);
        assert_eq!(p.pairs(), 5);
    }

    /// Bounds for alpha = beta = 0.05: ln(0.05/0.95) = -2.944439, ln(0.95/0.05) = 2.944439.
    #[test]
    fn sprt_bounds() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        let (lo, hi) = sprt.bounds();
        close(lo, -2.944_438_979_166_44, 1e-12);
        close(hi, 2.944_438_979_166_44, 1e-12);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05, EloModel::Logistic).is_none());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05, EloModel::Logistic).is_none());
    }

    /// W=300 D=500 L=200, elo0=0, elo1=5:
    /// logistic: s0 = 0.5, s1 = 1/(1+10^(-5/400)) = 0.507195, var_i = sum p (x - s_i)^2,
    /// LLR = 500 ln(var0/var1) = 2.6781; normalised: s_i = 0.5 + elo_i sqrt(0.1225) ln10/800,
    /// LLR = 1.9170.
    #[test]
    fn sprt_trinomial_worked_example() {
        let wdl = Wdl {
            wins: 300,
            draws: 500,
            losses: 200,
        };
        let logistic = Sprt::new(0.0, 5.0, 0.05, 0.05, EloModel::Logistic).unwrap();
        close(logistic.llr_wdl(&wdl), 2.678_115_394_112, 1e-6);
        assert_eq!(
            logistic.decision(logistic.llr_wdl(&wdl)),
            SprtDecision::Continue
        );
        let normalized = Sprt::new(0.0, 5.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        close(normalized.llr_wdl(&wdl), 1.916_950_319_732, 1e-6);
    }

    /// Pairs [50, 100, 300, 150, 100], elo0=0, elo1=10 (pair scores 0, .25, .5, .75, 1):
    /// logistic LLR = 350 ln(var0/var1) = 6.2091; normalised with
    /// sigma = sqrt(2 var_pair): LLR = 4.9113.
    #[test]
    fn sprt_pentanomial_worked_example() {
        let penta = Penta {
            counts: [50, 100, 300, 150, 100],
        };
        let logistic = Sprt::new(0.0, 10.0, 0.05, 0.05, EloModel::Logistic).unwrap();
        close(logistic.llr_penta(&penta), 6.209_119_179_978, 1e-6);
        let normalized = Sprt::new(0.0, 10.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        let llr = normalized.llr_penta(&penta);
        close(llr, 4.911_347_525_023, 1e-6);
        assert_eq!(normalized.decision(llr), SprtDecision::H1);
        assert_eq!(normalized.decision(-3.0), SprtDecision::H0);
    }

    #[test]
    fn no_spread_gives_zero_llr() {
        let draws = Wdl {
            wins: 0,
            draws: 10,
            losses: 0,
        };
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        assert_eq!(sprt.llr_wdl(&draws), 0.0);
        let e = draws.elo().unwrap();
        assert_eq!((e.elo, e.lower, e.upper, e.los), (0.0, 0.0, 0.0, 0.5));
        assert!(Wdl::default().elo().is_none());
    }
}
