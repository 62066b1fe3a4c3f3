#!/usr/bin/env python3
"""Time-to-depth speed-up of Lazy SMP: searches the chess positions of `cutoff bench` to a
fixed depth with Threads=1 and Threads=N and prints the ratio of the times per position,
their median and geometric mean. The time to depth D is that of the first `info depth`
line at D or deeper (a pool of threads may report a depth another thread completed).

usage: scripts/smp_speedup.py [ENGINE] [--threads 2] [--depth 12] [--runs 3] [--positions N]
Run it on a quiet machine: other load distorts the ratio.
"""
import argparse
import math
import pathlib
import re
import statistics
import subprocess

BENCH_SOURCE = pathlib.Path(__file__).resolve().parent.parent / "src" / "games" / "chess" / "info.rs"
STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def bench_positions():
    """The chess positions of `cutoff bench` (src/games/chess/info.rs), as `position` arguments."""
    source = BENCH_SOURCE.read_text()
    block = source[source.index("const BENCH"):]
    block = block[:block.index("];")]
    positions = []
    for kind, text in re.findall(r'(fen|from_start)\("([^"]*)"\)', block):
        if kind == "fen":
            positions.append(f"fen {text}")
        else:
            positions.append(f"fen {STARTPOS}" + (f" moves {text}" if text else ""))
    return positions


def time_to_depth(engine, position, threads, depth):
    proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    commands = f"setoption name Threads value {threads}\nsetoption name Hash value 64\n" \
               f"position {position}\ngo depth {depth}\n"
    proc.stdin.write(commands)
    proc.stdin.flush()
    elapsed = None
    for line in proc.stdout:
        tokens = line.split()
        if tokens[:2] == ["info", "depth"] and int(tokens[2]) >= depth and "time" in tokens:
            if elapsed is None:
                elapsed = int(tokens[tokens.index("time") + 1])
        if tokens and tokens[0] == "bestmove":
            break
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait(timeout=30)
    return max(elapsed or 1, 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("engine", nargs="?", default="target/release/cutoff")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--positions", type=int, default=0, help="only the first N positions")
    args = parser.parse_args()
    positions = bench_positions()
    if args.positions:
        positions = positions[:args.positions]
    ratios = []
    for position in positions:
        one = statistics.median(time_to_depth(args.engine, position, 1, args.depth)
                                for _ in range(args.runs))
        many = statistics.median(time_to_depth(args.engine, position, args.threads, args.depth)
                                 for _ in range(args.runs))
        ratios.append(one / many)
        print(f"{one:7.0f} ms vs {many:7.0f} ms  ratio {one / many:5.2f}  {position}", flush=True)
    geometric = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"time-to-depth speed-up with {args.threads} threads at depth {args.depth} over "
          f"{len(ratios)} positions: median {statistics.median(ratios):.2f}, "
          f"geometric mean {geometric:.2f}")


if __name__ == "__main__":
    main()
