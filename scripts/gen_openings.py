#!/usr/bin/env python3
"""Generates a balanced opening book for a game by driving cutoff over UGI.

Random move sequences of PLIES plies are played from the start position (each distinct
sequence once); a depth-DEPTH search judges each resulting position, and those whose score
is within MAXCP centipawns (and no mate) are kept. One opening per line, moves separated by
spaces (the runner's `format=moves`).

usage: gen_openings.py CUTOFF GAME PLIES COUNT DEPTH MAXCP SEED > openings/GAME.txt
"""
import random
import subprocess
import sys

cutoff, game, plies, count, depth, maxcp, seed = sys.argv[1:8]
plies, count, depth, maxcp = int(plies), int(count), int(depth), int(maxcp)
rng = random.Random(int(seed))
engine = subprocess.Popen([cutoff, "--game", game], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, bufsize=1)


def send(line):
    engine.stdin.write(line + "\n")
    engine.stdin.flush()


def legal_moves(moves):
    """Root moves of the position, from `go perft 1`."""
    send("position startpos moves " + " ".join(moves))
    send("go perft 1")
    result = []
    while True:
        line = engine.stdout.readline().strip()
        if line.startswith("Nodes searched"):
            return result
        if ":" in line and not line.startswith("info"):
            result.append(line.split(":")[0])


def score(moves):
    send("position startpos moves " + " ".join(moves))
    send("go depth %d" % depth)
    last = None
    while True:
        line = engine.stdout.readline().split()
        if "score" in line:
            i = line.index("score")
            last = (line[i + 1], int(line[i + 2]))
        if line and line[0] == "bestmove":
            return last


send("ugi")
while engine.stdout.readline().strip() != "ugiok":
    pass
seen = set()
kept = []
attempts = 0
while len(kept) < count and attempts < count * 50:
    attempts += 1
    moves = []
    for _ in range(plies):
        options = legal_moves(moves)
        if not options:
            break
        moves.append(rng.choice(options))
    key = tuple(moves)
    if len(moves) < plies or key in seen:
        continue
    seen.add(key)
    kind, value = score(moves)
    if kind == "cp" and abs(value) <= maxcp:
        kept.append(" ".join(moves))
send("quit")
print("# %s: %d random %d-ply openings judged balanced (|cp| <= %d at depth %d), seed %s"
      % (game, len(kept), plies, maxcp, depth, seed))
for line in kept:
    print(line)
