//! `tune`: Texel-style tuning of the chess evaluation weights.
//!
//! Input: positions labelled with the result of the game they come from (`FEN;result`,
//! result `1.0`/`0.5`/`0.0` or `1-0`/`1/2-1/2`/`0-1` from White's view, as `cutoff datagen`
//! writes them). Each position is turned once into its sparse feature [`Trace`]; White's
//! evaluation is then linear in the weights (tapered by the position's phase, divided by
//! its drawish divisor). The tuner
//!
//! 1. fits the scale `K` of the sigmoid `σ(e) = 1 / (1 + 10^(-K·e/400))` to the current
//!    weights (golden-section search on the mean squared error),
//! 2. minimises the mean squared error of `σ(eval)` against the results over every weight
//!    but the [`FROZEN`] ones, plus an optional L2 penalty `λ·Σ(w − w₀)²` pulling weights
//!    towards their starting values (rare features then move only as far as the data
//!    supports), full-batch gradient descent with Adam, in `f64`; the last positions of
//!    the file (whole games, as `datagen` writes them in game order) can be held out to
//!    measure over-fitting,
//! 3. writes the rounded weights as Rust source (the format of
//!    `src/games/chess/weights.rs`).

use std::fmt::Write as _;
use std::io::Write;

use clap::Args;
use cozy_chess::Board;

use cutoff::games::chess::eval::{
    trace, Trace, Weights, FROZEN, NUM_WEIGHTS, PHASE_MAX, S, SECTIONS,
};

/// One labelled position.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its features.
    pub trace: Trace,
    /// The game result from White's view: 1, 0.5 or 0.
    pub result: f64,
}

/// Parses a result field.
fn parse_result(text: &str) -> Option<f64> {
    let text = text
        .trim()
        .trim_matches(|c| c == '[' || c == ']' || c == '"');
    match text {
        "1-0" => Some(1.0),
        "0-1" => Some(0.0),
        "1/2-1/2" => Some(0.5),
        _ => text.parse::<f64>().ok().filter(|r| (0.0..=1.0).contains(r)),
    }
}

/// Reads `FEN;result` lines into entries (traced under `weights`); returns them and the
/// number of lines skipped as malformed. Blank lines and `#` comments are ignored.
pub fn load(text: &str, weights: &Weights) -> (Vec<Entry>, usize) {
    let mut entries = Vec::new();
    let mut skipped = 0;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed = line.rsplit_once(';').and_then(|(fen, result)| {
            let board = Board::from_fen(fen.trim(), false).ok()?;
            Some(Entry {
                trace: trace(&board, weights),
                result: parse_result(result)?,
            })
        });
        match parsed {
            Some(entry) => entries.push(entry),
            None => skipped += 1,
        }
    }
    (entries, skipped)
}

/// Weights as `f64` pairs, the tuner's working form: index `2i` middlegame, `2i+1` endgame.
pub fn to_params(weights: &Weights) -> Vec<f64> {
    weights
        .iter()
        .flat_map(|&S(mg, eg)| [f64::from(mg), f64::from(eg)])
        .collect()
}

/// Rounds tuner parameters back to weights.
pub fn to_weights(params: &[f64]) -> Weights {
    let mut weights = [S::default(); NUM_WEIGHTS];
    for (i, w) in weights.iter_mut().enumerate() {
        let at = |j: usize| params.get(j).copied().unwrap_or(0.0).round() as i32;
        *w = S(at(2 * i), at(2 * i + 1));
    }
    weights
}

/// White's evaluation of an entry under real-valued parameters.
fn eval(trace: &Trace, params: &[f64]) -> f64 {
    let (mut mg, mut eg) = (0.0, 0.0);
    for &(index, count) in &trace.coefficients {
        let i = 2 * usize::from(index);
        mg += params[i] * f64::from(count);
        eg += params[i + 1] * f64::from(count);
    }
    let phase = f64::from(trace.phase);
    let max = f64::from(PHASE_MAX);
    (mg * phase + eg * (max - phase)) / max / f64::from(trace.divisor)
}

/// The sigmoid mapping an evaluation (centipawns) to an expected score.
pub fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

/// Mean squared error of `σ(K·eval)` against the results.
pub fn error(entries: &[Entry], params: &[f64], k: f64) -> f64 {
    if entries.is_empty() {
        return 0.0;
    }
    let sum: f64 = entries
        .iter()
        .map(|e| {
            let d = sigmoid(k, eval(&e.trace, params)) - e.result;
            d * d
        })
        .sum();
    sum / entries.len() as f64
}

/// The `K` in `[0.01, 10]` that minimises the error of `params` (golden-section search).
pub fn fit_k(entries: &[Entry], params: &[f64]) -> f64 {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut low, mut high) = (0.01f64, 10.0f64);
    let mut a = high - ratio * (high - low);
    let mut b = low + ratio * (high - low);
    let mut fa = error(entries, params, a);
    let mut fb = error(entries, params, b);
    for _ in 0..60 {
        if fa < fb {
            high = b;
            b = a;
            fb = fa;
            a = high - ratio * (high - low);
            fa = error(entries, params, a);
        } else {
            low = a;
            a = b;
            fa = fb;
            b = low + ratio * (high - low);
            fb = error(entries, params, b);
        }
    }
    (low + high) / 2.0
}

/// Adds the gradient of the summed squared error over `entries` to `gradient`.
fn accumulate_gradient(entries: &[Entry], params: &[f64], k: f64, gradient: &mut [f64]) {
    let slope = k * std::f64::consts::LN_10 / 400.0;
    let max = f64::from(PHASE_MAX);
    for entry in entries {
        let s = sigmoid(k, eval(&entry.trace, params));
        let common =
            2.0 * (s - entry.result) * s * (1.0 - s) * slope / f64::from(entry.trace.divisor) / max;
        let mg = common * f64::from(entry.trace.phase);
        let eg = common * (max - f64::from(entry.trace.phase));
        for &(index, count) in &entry.trace.coefficients {
            let i = 2 * usize::from(index);
            let c = f64::from(count);
            gradient[i] += mg * c;
            gradient[i + 1] += eg * c;
        }
    }
}

/// The gradient of the mean squared error, computed on `threads` threads.
fn gradient(entries: &[Entry], params: &[f64], k: f64, threads: usize) -> Vec<f64> {
    let chunk = entries.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<Vec<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut g = vec![0.0; params.len()];
                    accumulate_gradient(part, params, k, &mut g);
                    g
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut total = vec![0.0; params.len()];
    for part in parts {
        for (t, g) in total.iter_mut().zip(part) {
            *t += g;
        }
    }
    let n = entries.len().max(1) as f64;
    for t in &mut total {
        *t /= n;
    }
    total
}

/// Settings of a tuning run (the options of `cutoff tune`).
#[derive(Args, Clone, Debug)]
pub struct TuneSettings {
    /// Adam steps (full passes over the data).
    #[arg(long, default_value_t = 1000)]
    pub iterations: usize,
    /// Adam step size in centipawns.
    #[arg(long, default_value_t = 1.0)]
    pub learning_rate: f64,
    /// Threads for the gradient.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Report the error every this many iterations (0: never).
    #[arg(skip = 50_usize)]
    pub report_every: usize,
    /// L2 penalty per squared centipawn of distance from the current weights.
    #[arg(long, default_value_t = 0.0)]
    pub regularization: f64,
    /// Fraction of the positions (the last ones: whole games) held out for validation, at
    /// most 0.9.
    #[arg(long, default_value_t = 0.1)]
    pub holdout: f64,
}

/// Minimises the error from `params` with Adam; logs progress to `log`. Returns the tuned
/// parameters.
pub fn optimise(
    entries: &[Entry],
    mut params: Vec<f64>,
    k: f64,
    settings: &TuneSettings,
    log: &mut dyn Write,
) -> Vec<f64> {
    let (beta1, beta2, epsilon): (f64, f64, f64) = (0.9, 0.999, 1e-8);
    let start = params.clone();
    let mut m = vec![0.0; params.len()];
    let mut v = vec![0.0; params.len()];
    for step in 1..=settings.iterations {
        let mut g = gradient(entries, &params, k, settings.threads);
        for weight in FROZEN {
            g[2 * weight] = 0.0;
            g[2 * weight + 1] = 0.0;
        }
        if settings.regularization > 0.0 {
            for ((g, p), p0) in g.iter_mut().zip(&params).zip(&start) {
                *g += 2.0 * settings.regularization * (p - p0);
            }
        }
        let correction1 = 1.0 - beta1.powi(step as i32);
        let correction2 = 1.0 - beta2.powi(step as i32);
        for i in 0..params.len() {
            m[i] = beta1 * m[i] + (1.0 - beta1) * g[i];
            v[i] = beta2 * v[i] + (1.0 - beta2) * g[i] * g[i];
            let m_hat = m[i] / correction1;
            let v_hat = v[i] / correction2;
            params[i] -= settings.learning_rate * m_hat / (v_hat.sqrt() + epsilon);
        }
        if settings.report_every > 0 && step % settings.report_every == 0 {
            let _ = writeln!(
                log,
                "iteration {step}: error {:.6}",
                error(entries, &params, k)
            );
        }
    }
    params
}

/// The weights as the Rust source of `src/games/chess/weights.rs`; `note` is added to the
/// module documentation (one line per line of `note`).
pub fn weights_source(weights: &Weights, note: &str) -> String {
    let mut out = String::new();
    out.push_str(
        "//! Evaluation weights: (middlegame, endgame) pairs in centipawns, laid out as\n\
         //! [`super::eval::SECTIONS`] describes. Written by `cutoff tune`.\n",
    );
    if !note.is_empty() {
        out.push_str("//!\n");
        for line in note.lines() {
            let _ = writeln!(out, "//! {line}");
        }
    }
    out.push_str(
        "\nuse super::layout::{Weights, S};\n\n\
         /// Every weight of the chess evaluation.\n\
         #[rustfmt::skip]\n\
         pub static WEIGHTS: Weights = [\n",
    );
    for section in SECTIONS {
        let _ = writeln!(out, "    // {}", section.name);
        let values = &weights[section.start..section.start + section.len];
        for row in values.chunks(section.row.max(1)) {
            let cells: Vec<String> = row
                .iter()
                .map(|S(mg, eg)| format!("S({mg:>4}, {eg:>4}),"))
                .collect();
            let _ = writeln!(out, "    {}", cells.join(" "));
        }
    }
    out.push_str("];\n");
    out
}

/// What a tuning run found.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// Positions used.
    pub positions: usize,
    /// Lines skipped as malformed.
    pub skipped: usize,
    /// The fitted sigmoid scale.
    pub k: f64,
    /// Error of the starting weights.
    pub error_before: f64,
    /// Error of the tuned (rounded) weights.
    pub error_after: f64,
    /// Positions held out.
    pub validation_positions: usize,
    /// Error of the starting weights on the held-out positions.
    pub validation_before: f64,
    /// Error of the tuned weights on the held-out positions.
    pub validation_after: f64,
    /// The tuned weights.
    pub weights: Weights,
}

/// Loads `text`, fits `K`, tunes from `start` and reports.
pub fn run(
    text: &str,
    start: &Weights,
    settings: &TuneSettings,
    log: &mut dyn Write,
) -> Result<TuneReport, String> {
    let (entries, skipped) = load(text, start);
    if entries.is_empty() {
        return Err(format!(
            "no usable positions ({skipped} malformed lines): expected 'FEN;result' lines"
        ));
    }
    let _ = writeln!(log, "{} positions ({skipped} lines skipped)", entries.len());
    let held = ((entries.len() as f64 * settings.holdout.clamp(0.0, 0.9)) as usize)
        .min(entries.len().saturating_sub(1));
    let (train, validation) = entries.split_at(entries.len() - held);
    let params = to_params(start);
    let k = fit_k(train, &params);
    let error_before = error(train, &params, k);
    let validation_before = error(validation, &params, k);
    let _ = writeln!(
        log,
        "K = {k:.4}, error {error_before:.6}, validation error {validation_before:.6} ({held} positions)"
    );
    let tuned = optimise(train, params, k, settings, log);
    let weights = to_weights(&tuned);
    let error_after = error(train, &to_params(&weights), k);
    let validation_after = error(validation, &to_params(&weights), k);
    let _ = writeln!(
        log,
        "tuned: error {error_before:.6} -> {error_after:.6}, validation {validation_before:.6} -> {validation_after:.6}"
    );
    Ok(TuneReport {
        positions: train.len(),
        skipped,
        k,
        error_before,
        error_after,
        validation_positions: held,
        validation_before,
        validation_after,
        weights,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutoff::games::chess::eval::{BISHOP_PAIR, MOP_UP, TEMPO};
    use cutoff::games::chess::weights::WEIGHTS;

    #[test]
    fn results_parse() {
        assert_eq!(parse_result("1.0"), Some(1.0));
        assert_eq!(parse_result(" 0.5"), Some(0.5));
        assert_eq!(parse_result("[0.0]"), Some(0.0));
        assert_eq!(parse_result("1/2-1/2"), Some(0.5));
        assert_eq!(parse_result("0-1"), Some(0.0));
        assert_eq!(parse_result("2"), None);
        assert_eq!(parse_result("x"), None);
    }

    #[test]
    fn load_skips_bad_lines() {
        let text = "# comment\n\
            rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;0.5\n\
            garbage;1.0\n\
            rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;9\n\
            no separator\n\
            \n\
            8/8/4k3/8/8/3RK3/8/7b b - - 0 1;1-0\n";
        let (entries, skipped) = load(text, &WEIGHTS);
        assert_eq!(entries.len(), 2);
        assert_eq!(skipped, 3);
        assert_eq!(entries[1].result, 1.0);
        assert!(run("junk\n", &WEIGHTS, &settings(1), &mut std::io::sink()).is_err());
    }

    fn settings(iterations: usize) -> TuneSettings {
        TuneSettings {
            iterations,
            learning_rate: 2.0,
            threads: 2,
            report_every: 0,
            regularization: 0.0,
            holdout: 0.0,
        }
    }

    /// Synthetic entries over two features whose labels follow known weights exactly.
    fn synthetic(truth: &[(usize, S)], k: f64) -> Vec<Entry> {
        let mut truth_params = to_params(&[S::default(); NUM_WEIGHTS]);
        for &(index, S(mg, eg)) in truth {
            truth_params[2 * index] = f64::from(mg);
            truth_params[2 * index + 1] = f64::from(eg);
        }
        let mut entries = Vec::new();
        for a in -3i16..=3 {
            for b in -2i16..=2 {
                for phase in [0, 8, 16, 24] {
                    let trace = Trace {
                        coefficients: vec![(truth[0].0 as u16, a), (truth[1].0 as u16, b)],
                        phase,
                        divisor: if a == 3 { 4 } else { 1 },
                    };
                    let result = sigmoid(k, eval(&trace, &truth_params));
                    entries.push(Entry { trace, result });
                }
            }
        }
        entries
    }

    #[test]
    fn k_is_recovered() {
        let truth = [(BISHOP_PAIR, S(120, 200)), (TEMPO, S(-40, 30))];
        let entries = synthetic(&truth, 1.3);
        let mut params = to_params(&[S::default(); NUM_WEIGHTS]);
        for &(index, S(mg, eg)) in &truth {
            params[2 * index] = f64::from(mg);
            params[2 * index + 1] = f64::from(eg);
        }
        let k = fit_k(&entries, &params);
        assert!((k - 1.3).abs() < 1e-3, "{k}");
        assert!(error(&entries, &params, k) < 1e-12);
    }

    #[test]
    fn tuning_recovers_known_weights() {
        let truth = [(BISHOP_PAIR, S(120, 200)), (TEMPO, S(-40, 30))];
        let entries = synthetic(&truth, 1.0);
        let start = to_params(&[S::default(); NUM_WEIGHTS]);
        let before = error(&entries, &start, 1.0);
        let tuned = optimise(&entries, start, 1.0, &settings(3000), &mut std::io::sink());
        let after = error(&entries, &tuned, 1.0);
        assert!(after < before / 1000.0, "{before} -> {after}");
        let weights = to_weights(&tuned);
        for (index, S(mg, eg)) in truth {
            let S(got_mg, got_eg) = weights[index];
            assert!((got_mg - mg).abs() <= 2, "{index}: {got_mg} vs {mg}");
            assert!((got_eg - eg).abs() <= 2, "{index}: {got_eg} vs {eg}");
        }
        // Untouched weights stay where they were.
        assert_eq!(weights[0], S(0, 0));
    }

    #[test]
    fn frozen_weights_stay_where_they_are() {
        // The data wants the mop-up terms at -50: the tuner must not follow.
        let truth = [(MOP_UP, S(-50, -50)), (TEMPO, S(-40, 30))];
        let entries = synthetic(&truth, 1.0);
        let start = to_params(&[S::default(); NUM_WEIGHTS]);
        let tuned = to_weights(&optimise(
            &entries,
            start,
            1.0,
            &settings(300),
            &mut std::io::sink(),
        ));
        assert_eq!(tuned[MOP_UP], S::default());
        assert_ne!(tuned[TEMPO], S::default());
    }

    #[test]
    fn weights_source_round_trips_the_layout() {
        let text = weights_source(&WEIGHTS, "note");
        assert!(text.contains("pub static WEIGHTS: Weights = ["));
        let cells = text.matches("S(").count();
        assert_eq!(cells, NUM_WEIGHTS);
        // The committed file is exactly what the writer produces from its values, up to
        // the module note.
        let committed = include_str!("../../../src/games/chess/weights.rs");
        let body = |s: &str| s[s.find("\nuse ").unwrap_or(0)..].to_string();
        assert_eq!(body(&text), body(committed));
    }
}
