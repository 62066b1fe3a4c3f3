#!/usr/bin/env python3
"""match_logs_elo.py LOG...: the pentanomial counts of `cutoff match` logs (the last
"Ptnml(0-2)" and "Wins:" lines of each) added, and the first engine's Elo with its 95%
interval from them: one figure for a match played as several seeds."""
import math, re, sys
tot = [0] * 5; wld = [0, 0, 0]
for path in sys.argv[1:]:
    text = open(path).read()
    p = re.findall(r"Ptnml\(0-2\): \[([\d, ]+)\]", text)[-1]
    for i, v in enumerate(map(int, p.split(","))): tot[i] += v
    m = re.findall(r"Wins: (\d+), Losses: (\d+), Draws: (\d+)", text)[-1]
    for i in range(3): wld[i] += int(m[i])
n = sum(tot); scores = [0, 0.25, 0.5, 0.75, 1]
mu = sum(s * c for s, c in zip(scores, tot)) / n
var = sum(c * (s - mu) ** 2 for s, c in zip(scores, tot)) / n
elo = lambda x: -400 * math.log10(1 / x - 1)
se = math.sqrt(var / n)
print(f"+{wld[0]} ={wld[2]} -{wld[1]}  ptnml {tot}  score {mu:.4f}  Elo {elo(mu):+.1f} (95% {elo(mu - 1.96 * se):+.1f} to {elo(mu + 1.96 * se):+.1f})")
