#!/usr/bin/env python3
"""Generates a balanced central gomoku book (freestyle) judged by Rapfi's evaluation.

Candidates: STONES (3 or 4, chosen at random per opening) stones placed alternately x, o,
x[, o] on distinct cells within RADIUS (Chebyshev distance) of the board's centre, each
candidate once up to the 8 symmetries of the square (rotations and reflections about the
centre). Each candidate is set up in Rapfi over the Gomocup protocol (`BOARD` ... `DONE`,
`INFO rule 0`, `INFO max_node NODES`, one thread from Rapfi's config.toml) and its
evaluation read from the last `MESSAGE ... Eval E ...` line before Rapfi's move: E is for
the side to move, in Rapfi's units (its win rate is sigmoid(E / s), s from the weights);
it is turned to the first player's (x's) view. A node limit on one thread makes the run
reproducible, whatever the machine's load. Candidates with |E - TARGET| <= MAX_EVAL are
kept, the COUNT closest to TARGET written (ties by generation order), one per line, in
cutoff's notation (`a1` bottom left) for `cutoff match -openings file=... format=moves`.
TARGET is the eval taken as even: 0 by default, but Rapfi-vs-Rapfi games show the first
player winning most games from openings Rapfi calls even (docs/gomoku.md).

usage: gomoku_book.py RAPFI SIZE COUNT [--candidates N] [--nodes N] [--max-eval E]
       [--target T] [--radius R] [--stones 3|4|34] [--seed S] [--pos FILE] [--log FILE]
       [--judged LOG...] > openings/gomoku.txt
`--pos FILE` also writes the book in c-gomoku-cli's "pos" format (x letter, y+1 counted
from the top: cutoff's `h8` on 15x15 is pos `h8`, cutoff's `c5` is pos `c11`).
"""
import argparse
import os
import random
import re
import subprocess
import time
import sys

parser = argparse.ArgumentParser()
parser.add_argument("rapfi")
parser.add_argument("size", type=int)
parser.add_argument("count", type=int)
parser.add_argument("--candidates", type=int, default=400)
parser.add_argument("--nodes", type=int, default=200000)
parser.add_argument("--max-eval", type=int, default=60,
                    help="keep openings whose eval for x is within this of --target")
parser.add_argument("--target", type=int, default=0,
                    help="the eval for x taken as even (Rapfi's eval at a node limit leans "
                         "to the second player: see docs/gomoku.md)")
parser.add_argument("--radius", type=int, default=2)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--stones", default="34", help="stone counts to draw from: 3, 4 or 34")
parser.add_argument("--judged", nargs="*", default=[],
                    help="select from the 'eval(x)' lines of earlier --log files instead of "
                         "running Rapfi (merged, each opening once up to symmetry)")
parser.add_argument("--pos")
parser.add_argument("--log")
args = parser.parse_args()
N = args.size
rng = random.Random(args.seed)
log = open(args.log, "a", buffering=1) if args.log else None


def symmetries(cells):
    """The 8 images of a set of (x, y) cells under the square's symmetries."""
    m = N - 1
    maps = [lambda x, y: (x, y), lambda x, y: (m - x, y), lambda x, y: (x, m - y),
            lambda x, y: (m - x, m - y), lambda x, y: (y, x), lambda x, y: (m - y, x),
            lambda x, y: (y, m - x), lambda x, y: (m - y, m - x)]
    return [tuple(f(x, y) for x, y in cells) for f in maps]


def canonical(stones):
    """A key equal for openings equal up to symmetry (the x stones, then the o stones)."""
    xs, os_ = stones[0::2], stones[1::2]
    return min((tuple(sorted(a)), tuple(sorted(b)))
               for a, b in zip(symmetries(xs), symmetries(os_)))


def candidates():
    """Distinct random central openings, in generation order."""
    lo, hi = (N - 1) // 2 - args.radius, N // 2 + args.radius
    seen, found, tries = set(), [], 0
    while len(found) < args.candidates and tries < 100 * args.candidates:
        tries += 1
        count = rng.choice([int(c) for c in args.stones])
        stones = []
        while len(stones) < count:
            cell = (rng.randint(lo, hi), rng.randint(lo, hi))
            if cell not in stones:
                stones.append(cell)
        key = canonical(stones)
        if key not in seen:
            seen.add(key)
            found.append(stones)
    return found


rapfi = os.path.abspath(args.rapfi)
if not args.judged:
    engine = subprocess.Popen([rapfi], cwd=os.path.dirname(rapfi), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1)


def send(line):
    if log:
        log.write(f"> {line}\n")
    engine.stdin.write(line + "\n")
    engine.stdin.flush()


def read_until(pred):
    while True:
        line = engine.stdout.readline()
        if not line:
            sys.exit("rapfi closed its output")
        line = line.strip()
        if log:
            log.write(f"< {line}\n")
        if pred(line):
            return line


EVAL = re.compile(r"\bEval (-?\+?M?-?\d+)")
MOVE = re.compile(r"^-?\d+,-?\d+$")


def evaluate(stones):
    """Rapfi's evaluation for x (the first player) after `stones`."""
    # Rapfi drops commands while its search is still winding down after it answered.
    time.sleep(0.1)
    send("RESTART")
    read_until(lambda l: l == "OK")
    for line in ("INFO rule 0", f"INFO max_node {args.nodes}", "INFO timeout_match 0",
                 "INFO timeout_turn 600000", "INFO time_left 2147483647", "BOARD"):
        send(line)
    own = len(stones) % 2  # the side to move's stones are field 1
    for i, (x, y) in enumerate(stones):
        send(f"{x},{y},{1 if i % 2 == own else 2}")
    send("DONE")
    value = None
    while True:
        line = read_until(lambda l: True)
        m = EVAL.search(line)
        if line.startswith("MESSAGE") and m:
            text = m.group(1).replace("+", "")
            value = (30000 if not text.startswith("-") else -30000) if "M" in text else int(text)
        elif MOVE.match(line):
            break
    return value if len(stones) % 2 == 0 else -value


def cutoff(x, y):
    return f"{chr(97 + x)}{N - y}"


def from_cutoff(text):
    return ord(text[0]) - 97, N - int(text[1:])


def judged_before():
    """The judged openings of earlier logs, each once up to symmetry, in log order."""
    seen, judged = set(), []
    for path in args.judged:
        for line in open(path):
            words = line.split()
            if len(words) < 4 or words[-2] != "eval(x)" or not words[0].isdigit():
                continue
            stones = [from_cutoff(w) for w in words[1:-2]]
            key = canonical(stones)
            if key not in seen:
                seen.add(key)
                value = int(words[-1])
                judged.append((abs(value - args.target), len(judged), value, stones))
    return judged


def judge_now():
    send(f"START {N}")
    read_until(lambda l: l == "OK")
    judged = []
    for index, stones in enumerate(candidates()):
        value = evaluate(stones)
        judged.append((abs(value - args.target), index, value, stones))
        if log:
            log.write(f"{index} {' '.join(cutoff(*s) for s in stones)} eval(x) {value}\n")
    send("END")
    return judged


judged = judged_before() if args.judged else judge_now()
kept = sorted(j for j in judged if j[0] <= args.max_eval)[: args.count]
if len(kept) < args.count:
    print(f"only {len(kept)} of {len(judged)} candidates within {args.max_eval}", file=sys.stderr)
values = [v for _, _, v, _ in kept]
source = f"seed {args.seed}" if not args.judged else "judged by earlier runs"
print(f"# gomoku {N}x{N} freestyle: {len(kept)} central openings of 3-4 stones, distinct up "
      f"to symmetry, the closest to even of {len(judged)} by Rapfi's eval at {args.nodes} "
      f"nodes (eval for x {args.target:+} +- {max(abs(v - args.target) for v in values)}, "
      f"mean {sum(values) / len(values):+.1f}); "
      f"scripts/gomoku_book.py, {source} (docs/gomoku.md)")
for _, _, _, stones in kept:
    print(" ".join(cutoff(*s) for s in stones))
if args.pos:
    with open(args.pos, "w") as out:
        for _, _, _, stones in kept:
            out.write("".join(f"{chr(97 + x)}{y + 1}" for x, y in stones) + "\n")
