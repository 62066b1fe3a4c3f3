#!/usr/bin/env python3
"""A small Gomocup (piskvork) engine for the match runner's tests: it keeps its own board,
checks every command it gets (a stone on an occupied or off-board cell, TURN or BEGIN
before START: it answers ERROR, which forfeits its game), and plays the empty cell
nearest the centre. Before its move it prints MESSAGE, DEBUG and OK lines, which the
runner must skip. Every line it receives is appended to LOG, if given.

Usage: gomocup_fake.py [MODE [LOG]], MODE one of:
  legal     plays as above (the default)
  occupied  plays a cell that holds a stone when there is one
  offboard  answers every move request with a cell off the board
  error     answers every move request with ERROR
  crash     exits at the first move request
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "legal"
log = open(sys.argv[2], "a") if len(sys.argv) > 2 else None
size = None
stones = {}  # (x, y) -> 1 own, 2 opponent's
board_lines = None


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def cell(text):
    x, y = (int(v) for v in text.split(",")[:2])
    if size is None or not (0 <= x < size and 0 <= y < size):
        raise ValueError(f"{text} is off the board")
    return x, y


def move():
    """Answers a move request in this mode."""
    if mode == "crash":
        sys.exit(1)
    say("MESSAGE thinking hard")
    say("DEBUG nothing to see")
    say("OK")
    if mode == "offboard":
        say(f"{size},0")
        return
    if mode == "error":
        say("ERROR I will not play")
        return
    if mode == "occupied" and stones:
        x, y = next(iter(stones))
        say(f"{x},{y}")
        return
    centre = size // 2
    free = [(x, y) for x in range(size) for y in range(size) if (x, y) not in stones]
    x, y = min(free, key=lambda c: (max(abs(c[0] - centre), abs(c[1] - centre)), c))
    stones[(x, y)] = 1
    say(f"{x},{y}")


for line in sys.stdin:
    if log:
        log.write(line)
        log.flush()
    words = line.strip().replace(" ", ",", 1).split(",") if line.strip() else []
    if not words:
        continue
    command = words[0].upper()
    try:
        if board_lines is not None:
            if command == "DONE":
                stones = {}
                for x, y, field in board_lines:
                    if (x, y) in stones or field not in (1, 2):
                        raise ValueError("bad BOARD")
                    stones[(x, y)] = field
                board_lines = None
                move()
            else:
                x, y = cell(line.strip())
                board_lines.append((x, y, int(line.strip().split(",")[2])))
        elif command == "START":
            size = int(words[1])
            stones = {}
            say("OK" if 5 <= size <= 22 else "ERROR unsupported size")
        elif command == "INFO":
            pass
        elif command == "ABOUT":
            say(f'name="gomocup-fake-{mode}", version="1.0", author="cutoff tests"')
        elif command == "BEGIN":
            if size is None or stones:
                raise ValueError("BEGIN on a board with stones")
            move()
        elif command == "TURN":
            x, y = cell(line.split()[1])
            if (x, y) in stones:
                raise ValueError("occupied")
            stones[(x, y)] = 2
            move()
        elif command == "BOARD":
            if size is None:
                raise ValueError("BOARD before START")
            board_lines = []
        elif command == "RESTART":
            stones = {}
            say("OK")
        elif command == "END":
            break
        else:
            say(f"UNKNOWN {command}")
    except (ValueError, IndexError) as e:
        say(f"ERROR {e}")
