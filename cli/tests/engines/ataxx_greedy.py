#!/usr/bin/env python3
"""A greedy one-ply Ataxx engine, the yardstick of cutoff's Ataxx strength.

It speaks UGI and UAI (handshake, isready, position startpos|fen ... moves ..., go ...,
quit) and plays the move that leaves it the most stones after the move, preferring a
single to a double on equal counts and the first such move in a fixed order (singles by
destination, then doubles by origin and destination, squares a1, b1, ..., g7). It looks
no further: it never asks what the opponent takes back.
"""
import sys

SIZE = 7
START = "x5o/7/7/7/7/7/o5x x 0 1"


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def name(square):
    return "abcdefg"[square % SIZE] + str(square // SIZE + 1)


def parse_square(text):
    return (int(text[1]) - 1) * SIZE + "abcdefg".index(text[0])


def distance(a, b):
    return max(abs(a % SIZE - b % SIZE), abs(a // SIZE - b // SIZE))


NEAR = [[b for b in range(SIZE * SIZE) if distance(a, b) == 1] for a in range(SIZE * SIZE)]
FAR = [[b for b in range(SIZE * SIZE) if distance(a, b) == 2] for a in range(SIZE * SIZE)]


def parse_fen(fen):
    fields = fen.split()
    cells = []
    for rank in reversed(fields[0].split("/")):
        row = []
        for ch in rank:
            row.extend(["."] * int(ch) if ch.isdigit() else [ch])
        cells.extend(row)
    return cells, fields[1]


def moves_of(cells, side):
    """(from, to) pairs; from is None for a single."""
    singles = [to for to in range(SIZE * SIZE)
               if cells[to] == "." and any(cells[n] == side for n in NEAR[to])]
    doubles = [(frm, to) for frm in range(SIZE * SIZE) if cells[frm] == side
               for to in FAR[frm] if cells[to] == "."]
    return [(None, to) for to in singles] + doubles


def play(cells, side, move):
    other = "o" if side == "x" else "x"
    if move != "0000":
        if len(move) == 2:
            to = parse_square(move)
        else:
            cells[parse_square(move[:2])] = "."
            to = parse_square(move[2:])
        cells[to] = side
        for n in NEAR[to]:
            if cells[n] == other:
                cells[n] = side
    return other


def gain(cells, side, move):
    frm, to = move
    other = "o" if side == "x" else "x"
    taken = sum(1 for n in NEAR[to] if cells[n] == other)
    return 2 * taken + (1 if frm is None else 0), frm is None


def main():
    cells, side = parse_fen(START)
    for line in sys.stdin:
        tokens = line.split()
        if not tokens:
            continue
        command = tokens[0]
        if command in ("ugi", "uai"):
            say("id name ataxx-greedy")
            say(command + "ok")
        elif command == "isready":
            say("readyok")
        elif command == "position":
            rest = tokens[1:]
            moves = rest[rest.index("moves") + 1:] if "moves" in rest else []
            if rest[0] == "fen":
                end = rest.index("moves") if "moves" in rest else len(rest)
                cells, side = parse_fen(" ".join(rest[1:end]))
            else:
                cells, side = parse_fen(START)
            for move in moves:
                side = play(cells, side, move)
        elif command == "go":
            options = moves_of(cells, side)
            if not options:
                say("bestmove 0000")
                continue
            best = max(options, key=lambda m: gain(cells, side, m))
            frm, to = best
            say("bestmove " + (name(to) if frm is None else name(frm) + name(to)))
        elif command == "quit":
            break


if __name__ == "__main__":
    main()
