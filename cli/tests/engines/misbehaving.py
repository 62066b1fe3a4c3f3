#!/usr/bin/env python3
"""A Connect Four engine that misbehaves on purpose, for the match runner's forfeit tests.

Usage: misbehaving.py MODE, MODE one of:
  illegal   answers every go with 'bestmove 9' (no such column)
  silent    never answers go
  crash     exits when it receives go
  slow      sleeps 1 s before every bestmove (overruns short clocks)
  noready   never answers isready after the handshake
  malformed answers go with a bare 'bestmove'
Otherwise it plays the lowest legal column, so it is a legal (weak) engine.
"""
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "legal"
heights = [0] * 7
handshakes = 0


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    tokens = line.split()
    if not tokens:
        continue
    command = tokens[0]
    if command in ("uci", "ugi"):
        say("id name misbehaving-" + mode)
        say(command + "ok")
    elif command == "isready":
        handshakes += 1
        if mode == "noready" and handshakes > 1:
            continue
        say("readyok")
    elif command == "position":
        heights = [0] * 7
        if "moves" in tokens:
            for move in tokens[tokens.index("moves") + 1:]:
                heights[int(move) - 1] += 1
    elif command == "go":
        say("info depth 1 score cp 0 pv 1")
        if mode == "illegal":
            say("bestmove 9")
        elif mode == "silent":
            pass
        elif mode == "crash":
            say("info string about to crash")
            sys.exit(3)
        elif mode == "malformed":
            say("bestmove")
        else:
            if mode == "slow":
                time.sleep(1.0)
            column = next(c for c in range(7) if heights[c] < 6)
            say("bestmove %d" % (column + 1))
    elif command == "quit":
        break
