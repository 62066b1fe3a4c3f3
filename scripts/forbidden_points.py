#!/usr/bin/env python3
"""Compares two Gomocup engines' renju forbidden points (Yixin Board's YXSHOWFORBID).

    scripts/forbidden_points.py ENGINE_A ENGINE_B COUNT SEED

Draws COUNT random 15x15 positions with Black to move (4 to 30 stones a side in the
central 9x9), sets each with YXBOARD under INFO rule 4 in both engines and compares their
FORBID lines. A position either engine refuses (a five already on the board) is counted
apart. Prints each differing position, then the counts; exits 1 if any differ.
"""

import random
import subprocess
import sys


def start(command):
    """An engine on a 15x15 renju board."""
    engine = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, bufsize=1)
    answer(engine, ["START 15", "INFO rule 4"], "OK")
    return engine


def answer(engine, lines, prefix):
    """Sends `lines` and reads to the line starting with `prefix`; an ERROR before it is
    returned instead."""
    for line in lines:
        engine.stdin.write(line + "\n")
    engine.stdin.flush()
    error = None
    while True:
        line = engine.stdout.readline()
        if not line:
            raise SystemExit("an engine stopped answering")
        line = line.strip()
        if line.startswith("ERROR"):
            error = line
        if line.startswith(prefix):
            return error or line


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    engines = [start(argv[0]), start(argv[1])]
    rng = random.Random(int(argv[3]))
    counts = dict(same=0, with_points=0, differ=0, refused=0)
    centre = [(x, y) for x in range(3, 12) for y in range(3, 12)]
    for _ in range(int(argv[2])):
        stones = rng.randint(4, 30)
        cells = rng.sample(centre, 2 * stones)
        board = (["YXBOARD"] + [f"{x},{y},1" for x, y in cells[:stones]]
                 + [f"{x},{y},2" for x, y in cells[stones:]] + ["DONE", "YXSHOWFORBID"])
        answers = [answer(engine, board, "FORBID") for engine in engines]
        if any(a.startswith("ERROR") for a in answers):
            counts["refused"] += 1
        elif answers[0] != answers[1]:
            counts["differ"] += 1
            print("differ: black", cells[:stones], "white", cells[stones:], answers)
        else:
            counts["same"] += 1
            counts["with_points"] += answers[0] != "FORBID ."
    for engine in engines:
        engine.stdin.write("END\n")
        engine.stdin.flush()
    print(counts)
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
