#!/usr/bin/env python3
"""Measures the time from `stop` to `bestmove` over many searches.

usage: scripts/stop_latency.py [ENGINE] [--game GAME] [--runs N]
Prints the median and worst latency in milliseconds.
"""
import argparse
import statistics
import subprocess
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("engine", nargs="?", default="target/release/cutoff")
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    proc = subprocess.Popen([args.engine, "--game", args.game], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    def read_until(prefix):
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit("engine closed its output")
            if line.startswith(prefix):
                return line

    latencies = []
    for i in range(args.runs):
        send("position startpos")
        send("go infinite")
        time.sleep(0.005 + (i % 10) * 0.003)
        start = time.perf_counter()
        send("stop")
        read_until("bestmove")
        latencies.append((time.perf_counter() - start) * 1000)
    send("quit")
    proc.wait(timeout=10)
    latencies.sort()
    print(f"{args.game}: {len(latencies)} stops, median {statistics.median(latencies):.3f} ms, "
          f"worst {latencies[-1]:.3f} ms")


if __name__ == "__main__":
    main()
