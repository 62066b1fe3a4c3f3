//! Win/draw/loss estimates from a search score: a game's model fitted on its own
//! self-play (`scripts/fit_wdl.py`), as Stockfish's `win_rate_model`.
//!
//! For a score `x` (the side to move's view, in the game's evaluation units) and the
//! position's game phase `m` (what the game's
//! [`wdl_phase`](super::SearchRefinements::wdl_phase) measures: chess its material, Ataxx
//! its stones), normalised as `m' = clamp(m, min, max) / scale`:
//!
//! ```text
//! win  = 1 / (1 + exp((a(m') - x) / b(m')))
//! loss = 1 / (1 + exp((a(m') + x) / b(m')))
//! draw = 1 - win - loss
//! ```
//!
//! where `a` and `b` are cubic polynomials in `m'`: `a` is the score at which the side to
//! move wins half its games, `b` how fast the win rate rises around it. Proven wins and
//! losses are certain. The model is only a report: the search never reads it.

use super::score::{is_mate, Score};

/// One game's fitted win/draw/loss model: the cubic coefficients of `a` and `b` and how
/// the game phase is normalised.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WdlModel {
    /// `a(m)`'s coefficients, the cubic term first: the score (in the game's units) that
    /// wins half the games at phase `m`.
    pub a: [f64; 4],
    /// `b(m)`'s coefficients, the cubic term first: the spread of the win rate around `a`.
    pub b: [f64; 4],
    /// The phase is clamped to `min..=max` before it is normalised.
    pub phase_min: i32,
    /// See [`WdlModel::phase_min`].
    pub phase_max: i32,
    /// The clamped phase is divided by this (so the coefficients stay of a similar size).
    pub phase_scale: f64,
}

/// Win, draw and loss chances of the side to move, per mille; they sum to 1000.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Wdl {
    /// Chance of a win, per mille.
    pub win: u32,
    /// Chance of a draw, per mille.
    pub draw: u32,
    /// Chance of a loss, per mille.
    pub loss: u32,
}

impl Wdl {
    /// A certain draw.
    pub const DRAWN: Wdl = Wdl {
        win: 0,
        draw: 1000,
        loss: 0,
    };

    /// The same chances seen by the other side.
    pub fn flipped(self) -> Wdl {
        Wdl {
            win: self.loss,
            draw: self.draw,
            loss: self.win,
        }
    }
}

impl std::fmt::Display for Wdl {
    /// `W D L`, as UCI's `info ... wdl W D L` writes them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.win, self.draw, self.loss)
    }
}

/// A cubic with its coefficients `c` (the cubic term first) at `m`.
fn cubic(c: &[f64; 4], m: f64) -> f64 {
    ((c[0] * m + c[1]) * m + c[2]) * m + c[3]
}

impl WdlModel {
    /// `a` and `b` at `phase` (`b` kept positive).
    fn parameters(&self, phase: i32) -> (f64, f64) {
        let m = f64::from(phase.clamp(self.phase_min, self.phase_max)) / self.phase_scale;
        (cubic(&self.a, m), cubic(&self.b, m).max(1e-3))
    }

    /// The chance, per mille, that the side to move wins with `score` at `phase`
    /// (rounded: the same formula gives the loss at `-score`, so the model is symmetric).
    fn win_per_mille(&self, score: Score, phase: i32) -> u32 {
        let (a, b) = self.parameters(phase);
        let win = 1.0 / (1.0 + ((a - f64::from(score)) / b).exp());
        (1000.0 * win).round().clamp(0.0, 1000.0) as u32
    }

    /// The side to move's chances with `score` at game phase `phase`: a proven win is
    /// 1000/0/0, a proven loss 0/0/1000.
    pub fn wdl(&self, score: Score, phase: i32) -> Wdl {
        if is_mate(score) {
            let won = Wdl {
                win: 1000,
                draw: 0,
                loss: 0,
            };
            return if score > 0 { won } else { won.flipped() };
        }
        let win = self.win_per_mille(score, phase);
        let loss = self.win_per_mille(-score, phase).min(1000 - win);
        Wdl {
            win,
            draw: 1000 - win - loss,
            loss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::MATE;

    /// A model of the chess kind: the half-win score falls from 300 to 150 and the
    /// spread from 80 to 60 as the phase falls.
    const MODEL: WdlModel = WdlModel {
        a: [0.0, 0.0, 150.0, 150.0],
        b: [0.0, 0.0, 20.0, 60.0],
        phase_min: 17,
        phase_max: 78,
        phase_scale: 78.0,
    };

    #[test]
    fn chances_sum_to_a_thousand_and_rise_with_the_score() {
        for phase in [0, 17, 40, 78, 100] {
            let mut last = MODEL.wdl(-2000, phase);
            assert_eq!(
                last,
                Wdl {
                    win: 0,
                    draw: 0,
                    loss: 1000
                },
                "{phase}"
            );
            for score in (-1990..=2000).step_by(10) {
                let wdl = MODEL.wdl(score, phase);
                assert_eq!(wdl.win + wdl.draw + wdl.loss, 1000, "{score} {phase}");
                assert!(
                    wdl.win >= last.win && wdl.loss <= last.loss,
                    "{score} {phase}"
                );
                last = wdl;
            }
            assert_eq!(
                last,
                Wdl {
                    win: 1000,
                    draw: 0,
                    loss: 0
                },
                "{phase}"
            );
        }
        let even = MODEL.wdl(0, 40);
        assert!(even.draw > 900 && even.win == even.loss, "{even:?}");
    }

    #[test]
    fn the_other_side_sees_the_chances_reversed() {
        for phase in [10, 30, 60, 90] {
            for score in [-700, -150, -1, 0, 3, 120, 333, 5000, MATE - 9, MATE] {
                let ours = MODEL.wdl(score, phase);
                assert_eq!(MODEL.wdl(-score, phase), ours.flipped(), "{score} {phase}");
            }
        }
    }

    #[test]
    fn proven_results_are_certain() {
        let won = Wdl {
            win: 1000,
            draw: 0,
            loss: 0,
        };
        for score in [MATE, MATE - 1, MATE - 100] {
            assert_eq!(MODEL.wdl(score, 50), won);
            assert_eq!(MODEL.wdl(-score, 50), won.flipped());
        }
        assert_eq!(won.to_string(), "1000 0 0");
    }

    #[test]
    fn the_phase_is_clamped() {
        assert_eq!(MODEL.wdl(200, 0), MODEL.wdl(200, 17));
        assert_eq!(MODEL.wdl(200, 500), MODEL.wdl(200, 78));
        // Fewer pieces: the same score wins more often.
        assert!(MODEL.wdl(200, 20).win > MODEL.wdl(200, 70).win);
    }
}
