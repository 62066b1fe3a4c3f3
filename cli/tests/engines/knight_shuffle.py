#!/usr/bin/env python3
"""A chess engine that only shuffles knights (g1f3 g8f6 f3g1 f6g8 ...), for the match
runner's repetition test: from the start position its games repeat the start position
every four plies, so only the third occurrence (after eight plies) may end them."""
import sys

SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]
plies = 0


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    tokens = line.split()
    if not tokens:
        continue
    command = tokens[0]
    if command == "uci":
        say("id name knight-shuffle")
        say("uciok")
    elif command == "isready":
        say("readyok")
    elif command == "position":
        plies = len(tokens) - tokens.index("moves") - 1 if "moves" in tokens else 0
    elif command == "go":
        say("info depth 1 score cp 0 pv " + SHUFFLE[plies % 4])
        say("bestmove " + SHUFFLE[plies % 4])
    elif command == "quit":
        break
