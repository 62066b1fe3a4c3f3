#!/usr/bin/env python3
"""Time-to-depth speed-up of Lazy SMP: searches chess positions to a fixed depth with
Threads=1 and Threads=N and prints the ratio of the times per position and their median.

usage: scripts/smp_speedup.py [ENGINE] [--threads 2] [--depth 12] [--runs 3]
Run it on a quiet machine: other load distorts the ratio.
"""
import argparse
import statistics
import subprocess

POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "4rrk1/2p1b1p1/p1p3q1/4p3/2P2n1p/1P1NR2P/PB3PP1/3R1QK1 b - - 2 24",
    "r3qbrk/6p1/2b2pPp/p3pP1Q/PpPpP2P/3P1B2/2PB3K/R5R1 w - - 16 42",
    "6k1/1R3p2/6p1/2Bp3p/3P2q1/P7/1P2rQ1K/5R2 b - - 4 44",
    "8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54",
    "r1bq1rk1/pp2b1pp/n1pp1n2/3P1p2/2P1p3/2N1P2N/PP2BPPP/R1BQ1RK1 b - - 2 10",
]


def time_to_depth(engine, fen, threads, depth):
    proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    commands = f"setoption name Threads value {threads}\nsetoption name Hash value 64\n" \
               f"position fen {fen}\ngo depth {depth}\n"
    proc.stdin.write(commands)
    proc.stdin.flush()
    elapsed = None
    for line in proc.stdout:
        tokens = line.split()
        if tokens[:2] == ["info", "depth"] and tokens[2] == str(depth) and "time" in tokens:
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
    args = parser.parse_args()
    ratios = []
    for fen in POSITIONS:
        one = statistics.median(time_to_depth(args.engine, fen, 1, args.depth) for _ in range(args.runs))
        many = statistics.median(time_to_depth(args.engine, fen, args.threads, args.depth)
                                 for _ in range(args.runs))
        ratios.append(one / many)
        print(f"{one:7.0f} ms vs {many:7.0f} ms  ratio {one / many:5.2f}  {fen}", flush=True)
    print(f"median time-to-depth speed-up with {args.threads} threads at depth {args.depth}: "
          f"{statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
