#!/usr/bin/env python3
"""SPSA tuning of a game's search constants over `cutoff match` (docs/tuning.md).

Reads OpenBench's SPSA input (one constant a line: `Name, int, default, min, max, c_end,
r_end`, as `cutoff --game G spsa-params` prints it from a tuning build), then per
iteration k: perturbs every constant by +-c_k (a random sign each), plays one game pair
(or --pairs) from a random opening between the plus and the minus engine (the same tuning
binary, the constants passed as `option.Name=value`), and moves theta by
r_k * c_k * (wins - losses of plus) * sign, clamped to min..max. The schedule is
OpenBench's: c_k = c_end * N^gamma / k^gamma (at least 0.5), r_k = a / (A + k)^alpha / c_k^2
with a = r_end * c_end^2 * (A + N)^alpha and A = a_ratio * N, N the planned iterations;
integer values are rounded at random (floor(x + u)), the same u for both engines.

State (theta, iteration, totals) is saved after every iteration to --state, so a run that
is stopped resumes where it was (the random signs and openings of iteration k depend on
--seed and k only). Every iteration is one JSON line in --log. The result is written as
OpenBench's output (the input lines with the tuned values) to STATE.openbench and as
match arguments (`option.Name=value ...`) to STATE.options.

Example (a tuning build first: cargo build --release --features cutoff-cli/tune):
    cutoff --game ataxx spsa-params > ataxx.spsa    # then keep the lines to tune
    scripts/spsa.py --engine target/release/cutoff --game ataxx --params ataxx.spsa \\
        --tc 1+0.01 --iterations 2000 --state spsa/state.json --log spsa/log.jsonl
Standard library only.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time


def read_params(path):
    """The OpenBench input lines of `path`: a list of dicts (blank and # lines skipped)."""
    params = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split(",")]
            if len(fields) != 7:
                sys.exit(f"{path}:{number}: expected 'Name, int, default, min, max, c_end, r_end'")
            name, kind, value, low, high, c_end, r_end = fields
            if kind not in ("int", "float"):
                sys.exit(f"{path}:{number}: type '{kind}' is neither int nor float")
            params.append({
                "name": name, "float": kind == "float", "start": float(value),
                "min": float(low), "max": float(high),
                "c_end": float(c_end), "r_end": float(r_end),
            })
    if not params:
        sys.exit(f"{path}: no constant to tune")
    return params


def schedule(param, k, n, args):
    """OpenBench's c_k and r_k of `param` at iteration k (1-based) of n."""
    big_a = args.a_ratio * n
    c_value = param["c_end"] * n ** args.gamma
    a_value = param["r_end"] * param["c_end"] ** 2 * (big_a + n) ** args.alpha
    c = max(c_value / k ** args.gamma, 0.0 if param["float"] else 0.5)
    r = a_value / (big_a + k) ** args.alpha / c ** 2
    return c, r


def perturbed(param, value, c, sign, u):
    """The plus and minus values of `param` around `value` (rounded at random with `u`)."""
    plus, minus = value + sign * c, value - sign * c
    if not param["float"]:
        plus, minus = math.floor(plus + u), math.floor(minus + u)
    clamp = lambda x: min(max(x, param["min"]), param["max"])
    plus, minus = clamp(plus), clamp(minus)
    if not param["float"]:
        plus, minus = int(plus), int(minus)
    return plus, minus


def play_pair(args, plus, minus, seed):
    """Plays --pairs game pairs of the plus against the minus engine; returns (W, D, L) of
    plus, or None when the match failed."""
    def engine(name, values):
        opts = [f"option.{k}={v}" for k, v in values.items()]
        return ["-engine", f"cmd={args.engine}", f"args=--game {args.game}", f"name={name}", *opts]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [args.runner or args.engine, "match", "-game", args.game,
               *engine("plus", plus), *engine("minus", minus),
               "-each", f"proto={args.proto}", f"tc={args.tc}", f"option.Hash={args.hash}",
               "option.Threads=1", "-rounds", str(args.pairs), "-games", "2", "-repeat",
               "-concurrency", str(args.concurrency), "-openings", f"file={args.openings}",
               "format=moves", "order=random", "-srand", str(seed), "-jsonout", f"file={out}",
               "-quiet"]
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0 or not os.path.exists(out):
            print(f"match failed ({run.returncode}): {run.stdout[-2000:]}", file=sys.stderr)
            return None
        with open(out) as f:
            wdl = json.load(f)["pairings"][0]["wdl"]
        if "forfeit" in run.stdout.lower():
            print(f"warning: a forfeit: {run.stdout[-1000:]}", file=sys.stderr)
        return wdl["wins"], wdl["draws"], wdl["losses"]


def save_json(path, data):
    """Writes `data` to `path` atomically."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def write_results(state_path, params, theta):
    """OpenBench's output lines and match options of the current theta."""
    lines, options = [], []
    for p in params:
        value = theta[p["name"]]
        shown = f"{value:.4f}" if p["float"] else str(int(round(value)))
        lines.append(", ".join([p["name"], "float" if p["float"] else "int", shown,
                                *(f"{p[k]:g}" for k in ("min", "max", "c_end", "r_end"))]))
        options.append(f"option.{p['name']}={shown}")
    base = os.path.splitext(state_path)[0]
    with open(base + ".openbench", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(base + ".options", "w") as f:
        f.write(" ".join(options) + "\n")
    return lines, options


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", required=True, help="the tuning build of cutoff")
    parser.add_argument("--runner", help="the cutoff that referees (default: --engine)")
    parser.add_argument("--game", required=True)
    parser.add_argument("--params", required=True, help="OpenBench SPSA input lines")
    parser.add_argument("--openings", help="default: openings/<game>.txt")
    parser.add_argument("--tc", default="1+0.01", help="time control (or use --limit)")
    parser.add_argument("--proto", default="ugi")
    parser.add_argument("--hash", type=int, default=16)
    parser.add_argument("--iterations", type=int, required=True, help="planned iterations N")
    parser.add_argument("--pairs", type=int, default=1, help="game pairs per iteration")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--alpha", type=float, default=0.602)
    parser.add_argument("--gamma", type=float, default=0.101)
    parser.add_argument("--a-ratio", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--state", required=True, help="state file (resumed if present)")
    parser.add_argument("--log", required=True, help="one JSON line per iteration")
    parser.add_argument("--stop-at", help="stop before starting an iteration after this "
                        "UTC time, HH:MM")
    args = parser.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    args.openings = args.openings or os.path.join(root, "openings", f"{args.game}.txt")
    params = read_params(args.params)
    names = [p["name"] for p in params]

    state = {"iteration": 0, "theta": {p["name"]: p["start"] for p in params},
             "wins": 0, "draws": 0, "losses": 0, "failed": 0}
    if os.path.exists(args.state):
        with open(args.state) as f:
            state = json.load(f)
        if sorted(state["theta"]) != sorted(names):
            sys.exit(f"{args.state} tunes other constants than {args.params}")
        print(f"resuming at iteration {state['iteration'] + 1}", file=sys.stderr)
    os.makedirs(os.path.dirname(os.path.abspath(args.log)), exist_ok=True)

    n = args.iterations
    while state["iteration"] < n:
        if args.stop_at and time.strftime("%H:%M", time.gmtime()) >= args.stop_at:
            print(f"stopped at {args.stop_at} UTC", file=sys.stderr)
            break
        k = state["iteration"] + 1
        rng = random.Random(f"{args.seed}-{k}")
        plus, minus, steps = {}, {}, {}
        for p in params:
            c, r = schedule(p, k, n, args)
            sign = rng.choice((-1, 1))
            value = state["theta"][p["name"]]
            plus[p["name"]], minus[p["name"]] = perturbed(p, value, c, sign, rng.random())
            steps[p["name"]] = (c, r, sign)
        started = time.time()
        result = play_pair(args, plus, minus, rng.randrange(1, 2**31))
        if result is None:
            state["failed"] += 1
            if state["failed"] > 20:
                sys.exit("more than 20 matches failed: stopping")
            continue
        wins, draws, losses = result
        for p in params:
            c, r, sign = steps[p["name"]]
            moved = state["theta"][p["name"]] + r * c * (wins - losses) * sign
            state["theta"][p["name"]] = min(max(moved, p["min"]), p["max"])
        state["iteration"] = k
        for key, count in (("wins", wins), ("draws", draws), ("losses", losses)):
            state[key] += count
        entry = {"iteration": k, "time": round(time.time() - started, 1),
                 "plus": plus, "minus": minus, "w": wins, "d": draws, "l": losses,
                 "theta": {name: round(v, 3) for name, v in state["theta"].items()}}
        with open(args.log, "a") as f:
            f.write(json.dumps(entry) + "\n")
        save_json(args.state, state)
        write_results(args.state, params, state["theta"])
    lines, options = write_results(args.state, params, state["theta"])
    print(f"{state['iteration']} iterations, plus +{state['wins']} ={state['draws']} "
          f"-{state['losses']}")
    print("\n".join(lines))
    print(" ".join(options))


if __name__ == "__main__":
    main()
