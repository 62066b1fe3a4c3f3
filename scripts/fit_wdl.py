#!/usr/bin/env python3
"""Fits a game's win/draw/loss model (UCI_ShowWDL) on cutoff's own self-play.

The model is Stockfish's win_rate_model, as src/search/wdl.rs computes it: for a score x
(the side to move's, in the engine's units) and a game phase m, normalised as
m' = clamp(m, lo, hi) / scale,

    win  = 1 / (1 + exp((a(m') - x) / b(m')))
    loss = 1 / (1 + exp((a(m') + x) / b(m')))
    draw = 1 - win - loss

with a and b cubic polynomials in m'. Their eight coefficients are fitted by maximum
likelihood on the (score, phase, result) triples of the --fit files; the --test files
(other games: another seed's datagen, another store chunk) are held out. It prints the
held-out log-loss (nats a position) of the model, of the model without the phase (a and b
constant) and of the constant model (the fit files' base rates of win, draw and loss),
and the constants to paste into the game's registry entry (`wdl: Some(WdlModel {...})`).

Input: bullet records of 32 bytes, as `cutoff datagen --format bullet` (chess) and
`cutoff --game ataxx data shuffle` (Ataxx) write them, each from the side to move's view:
  chess ChessBoard: occupancy u64, 16 bytes of 4-bit pieces (colour << 3 | piece, pawn 0
      .. king 5), score i16, result u8 (0 loss, 1 draw, 2 win), ...
  Ataxx AtaxxBoard: 3 u64 bitboards (side to move's stones, the other side's, gaps),
      score i16, result u8, side u8, fullmove u16, halfmove u8, extra u8.
Phases: chess `material` (pawn 1, knight and bishop 3, rook 5, queen 9, both sides);
Ataxx `stones` (both sides' stones) or `ply` (from the fullmove counter and the side).

Usage:
  scripts/fit_wdl.py --game chess --fit /tmp/chess-a.bin --test /tmp/chess-b.bin
  scripts/fit_wdl.py --game ataxx --phase stones --fit /tmp/ax-fit.bin --test /tmp/ax-test.bin

Needs numpy and scipy.
"""

import argparse
import sys

import numpy as np
from scipy.optimize import minimize

RECORD = 32
# Scores at or beyond this are proven wins or losses (src/search/score.rs: MATE - MAX_PLY):
# the engine reports them as certain, so they are left out of the fit.
MATE_BOUND = 32000 - 128
# Material values by piece (pawn, knight, bishop, rook, queen, king).
PIECE_VALUES = np.array([1, 3, 3, 5, 9, 0, 0, 0], dtype=np.int64)
# The phase of each game and its normalisation: clamped to [lo, hi], divided by scale.
PHASES = {
    ("chess", "material"): (17, 78, 58.0),
    ("ataxx", "stones"): (4, 49, 49.0),
    ("ataxx", "ply"): (0, 200, 100.0),
}


def popcount(values):
    """Set bits of each u64."""
    bytes_ = values.view(np.uint8).reshape(-1, 8)
    return np.unpackbits(bytes_, axis=1).sum(axis=1).astype(np.int64)


def chess_material(raw):
    """Material of both sides in each ChessBoard record."""
    occupancy = raw[:, 0:8].copy().view(np.uint64).ravel()
    pieces = popcount(occupancy)
    nibbles = np.empty((len(raw), 32), dtype=np.int64)
    nibbles[:, 0::2] = raw[:, 8:24] & 0x0F
    nibbles[:, 1::2] = raw[:, 8:24] >> 4
    used = np.arange(32)[None, :] < pieces[:, None]
    return (PIECE_VALUES[nibbles & 7] * used).sum(axis=1)


def load(paths, game, phase):
    """(score, phase, result) of every record of the files; result 0 loss, 1 draw, 2 win."""
    raw = np.concatenate(
        [np.fromfile(path, dtype=np.uint8).reshape(-1, RECORD) for path in paths]
    )
    if game == "chess":
        score = raw[:, 24:26].copy().view(np.int16).ravel().astype(np.float64)
        result = raw[:, 26].astype(np.int64)
        stage = chess_material(raw)
    else:
        score = raw[:, 24:26].copy().view(np.int16).ravel().astype(np.float64)
        result = raw[:, 26].astype(np.int64)
        if phase == "stones":
            boards = raw[:, 0:24].copy().view(np.uint64).reshape(-1, 3)
            stage = popcount(boards[:, 0] | boards[:, 1])
        else:
            fullmove = raw[:, 28:30].copy().view(np.uint16).ravel().astype(np.int64)
            stage = 2 * (fullmove - 1) + raw[:, 27].astype(np.int64)
    keep = (np.abs(score) < MATE_BOUND) & (result <= 2)
    return score[keep], stage[keep], result[keep], int((~keep).sum())


def normalise(stage, game, phase):
    lo, hi, scale = PHASES[(game, phase)]
    return np.clip(stage, lo, hi) / scale


def cubic(coefficients, m):
    c = coefficients
    return ((c[0] * m + c[1]) * m + c[2]) * m + c[3]


def probabilities(params, score, m):
    """Win, draw, loss chances of each position under the model's eight coefficients."""
    a = cubic(params[:4], m)
    b = np.maximum(cubic(params[4:], m), 1e-3)
    win = 1.0 / (1.0 + np.exp(np.clip((a - score) / b, -500, 500)))
    loss = 1.0 / (1.0 + np.exp(np.clip((a + score) / b, -500, 500)))
    return np.stack([loss, 1.0 - win - loss, win], axis=1)


def log_loss(probs, result):
    """Mean negative log-likelihood of the results, nats a position."""
    chosen = probs[np.arange(len(result)), result]
    return float(-np.log(np.maximum(chosen, 1e-12)).mean())


def fit(score, m, result, start, free):
    """The coefficients of highest likelihood, from `start`, changing only those whose
    index is in `free` (the others keep their start values)."""
    def full(values):
        params = np.array(start, dtype=np.float64)
        params[free] = values
        return params

    def objective(values):
        return log_loss(probabilities(full(values), score, m), result)

    values = np.array(start, dtype=np.float64)[free]
    best = minimize(objective, values, method="Nelder-Mead",
                    options={"maxiter": 20000, "maxfev": 20000, "xatol": 1e-4, "fatol": 1e-9})
    best = minimize(objective, best.x, method="BFGS")
    return full(best.x)


def constant_model(result):
    rates = np.bincount(result, minlength=3) / len(result)
    return rates


def rust_constants(params, game, phase):
    lo, hi, scale = PHASES[(game, phase)]
    fmt = lambda values: ", ".join(f"{v:.3f}" for v in values)
    return (
        "WdlModel {\n"
        f"    a: [{fmt(params[:4])}],\n"
        f"    b: [{fmt(params[4:])}],\n"
        f"    phase_min: {lo},\n"
        f"    phase_max: {hi},\n"
        f"    phase_scale: {scale:.1f},\n"
        "}"
    )


def describe(name, score, stage, result, dropped):
    games = np.bincount(result, minlength=3) / len(result)
    print(f"{name}: {len(score)} positions ({dropped} proven or unlabelled left out); "
          f"win {games[2]:.3f} draw {games[1]:.3f} loss {games[0]:.3f}; "
          f"phase {stage.min()}..{stage.max()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=["chess", "ataxx"], required=True)
    parser.add_argument("--phase", choices=["material", "stones", "ply"])
    parser.add_argument("--fit", nargs="+", required=True, help="bullet files to fit on")
    parser.add_argument("--test", nargs="+", required=True, help="held-out bullet files")
    parser.add_argument("--range", nargs=3, type=float, metavar=("LO", "HI", "SCALE"),
                        help="the phase's clamp and scale (default: the game's)")
    args = parser.parse_args()
    phase = args.phase or ("material" if args.game == "chess" else "ply")
    if (args.game, phase) not in PHASES:
        sys.exit(f"{args.game} has no phase '{phase}'")
    if args.range:
        lo, hi, scale = args.range
        PHASES[(args.game, phase)] = (int(lo), int(hi), scale)

    score, stage, result, dropped = load(args.fit, args.game, phase)
    test_score, test_stage, test_result, test_dropped = load(args.test, args.game, phase)
    describe("fit", score, stage, result, dropped)
    describe("held out", test_score, test_stage, test_result, test_dropped)
    m = normalise(stage, args.game, phase)
    test_m = normalise(test_stage, args.game, phase)

    # Step 1: a and b constant (no phase), from a rough start.
    spread = max(float(np.std(score)), 1.0)
    flat = fit(score, m, result, [0, 0, 0, spread, 0, 0, 0, spread / 2], [3, 7])
    # Step 2: the cubics, from the constant fit.
    params = fit(score, m, result, flat, list(range(8)))

    rates = constant_model(result)
    constant = log_loss(np.tile(rates, (len(test_result), 1)), test_result)
    flat_loss = log_loss(probabilities(flat, test_score, test_m), test_result)
    model = log_loss(probabilities(params, test_score, test_m), test_result)
    train = log_loss(probabilities(params, score, m), result)
    print(f"phase: {phase}")
    print(f"log-loss on the fit data: model {train:.4f}")
    print(f"held-out log-loss: model {model:.4f}, without the phase {flat_loss:.4f}, "
          f"constant {constant:.4f} (nats a position)")
    lo, hi, scale = PHASES[(args.game, phase)]
    grid = np.linspace(lo, hi, 201) / scale
    if (cubic(params[:4], grid) <= 0).any() or (cubic(params[4:], grid) <= 0).any():
        print("warning: a or b is not positive over the whole phase range")
    print("constants:")
    print(rust_constants(params, args.game, phase))


if __name__ == "__main__":
    main()
