#!/usr/bin/env python3
"""match_logs_elo.py LOG...: the pentanomial counts of `cutoff match` logs (the last
"Ptnml(0-2)" and "Wins:" lines of each) added, and the first engine's Elo with its 95%
interval from them: one figure for a match played as several seeds."""
import math
import re
import sys

PAIR_SCORES = [0, 0.25, 0.5, 0.75, 1]


def last(pattern, text, path):
    found = re.findall(pattern, text)
    if not found:
        sys.exit(f"{path}: no line matching {pattern!r} (a match that did not finish?)")
    return found[-1]


def elo(score):
    return -400 * math.log10(1 / score - 1)


def main(paths):
    pairs, wins_losses_draws = [0] * 5, [0] * 3
    for path in paths:
        text = open(path).read()
        counts = last(r"Ptnml\(0-2\): \[([\d, ]+)\]", text, path)
        for i, count in enumerate(map(int, counts.split(","))):
            pairs[i] += count
        results = last(r"Wins: (\d+), Losses: (\d+), Draws: (\d+)", text, path)
        for i, count in enumerate(map(int, results)):
            wins_losses_draws[i] += count
    n = sum(pairs)
    mean = sum(s * c for s, c in zip(PAIR_SCORES, pairs)) / n
    variance = sum(c * (s - mean) ** 2 for s, c in zip(PAIR_SCORES, pairs)) / n
    margin = 1.96 * math.sqrt(variance / n)
    wins, losses, draws = wins_losses_draws
    print(f"+{wins} ={draws} -{losses}  ptnml {pairs}  score {mean:.4f}  "
          f"Elo {elo(mean):+.1f} (95% {elo(mean - margin):+.1f} to {elo(mean + margin):+.1f})")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
