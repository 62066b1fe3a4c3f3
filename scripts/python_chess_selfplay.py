#!/usr/bin/env python3
"""Drives cutoff through python-chess, a strict UCI client, for complete self-play games.

usage: scripts/python_chess_selfplay.py [ENGINE] [--games N] [--base S] [--inc S]

Each game: both sides are the same engine process pair, played with a real clock
(base + increment, python-chess's `play` with `Limit(white_clock=...)`); every move is
checked legal by python-chess; the clock is kept by this script and a side whose think
time exceeds its clock loses on time. Between games one `analyse` and one analysis
stream stopped early (`analysis.stop()`) exercise the analysis mode.
Exits non-zero on any protocol error, illegal move or time loss.
"""
import argparse
import logging
import sys
import time

import chess
import chess.engine


class UciErrors(logging.Handler):
    """Counts warnings and errors python-chess logs about the engine."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def play_game(white, black, base, inc, game_index):
    board = chess.Board()
    clocks = {chess.WHITE: base, chess.BLACK: base}
    engines = {chess.WHITE: white, chess.BLACK: black}
    while not board.is_game_over(claim_draw=True) and board.ply() < 400:
        side = board.turn
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        started = time.perf_counter()
        result = engines[side].play(board, limit, game=game_index)
        used = time.perf_counter() - started
        clocks[side] -= used
        if clocks[side] < 0:
            return board, f"time loss by {'white' if side else 'black'} ({clocks[side]:.3f} s)"
        clocks[side] += inc
        if result.move is None or result.move not in board.legal_moves:
            return board, f"illegal move {result.move} in {board.fen()}"
        board.push(result.move)
    return board, None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("engine", nargs="?", default="target/release/cutoff")
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--base", type=float, default=1.0)
    parser.add_argument("--inc", type=float, default=0.01)
    parser.add_argument("--move-overhead", type=int, default=None,
                        help="Move Overhead (ms) given to both engines (default: theirs)")
    args = parser.parse_args()

    errors = UciErrors()
    logging.getLogger("chess.engine").addHandler(errors)
    white = chess.engine.SimpleEngine.popen_uci([args.engine])
    black = chess.engine.SimpleEngine.popen_uci([args.engine])
    if args.move_overhead is not None:
        for engine in (white, black):
            engine.configure({"Move Overhead": args.move_overhead})
    failures = []
    results = {"1-0": 0, "0-1": 0, "1/2-1/2": 0, "*": 0}
    started = time.perf_counter()
    for game in range(args.games):
        board, failure = play_game(white, black, args.base, args.inc, game)
        if failure:
            failures.append(f"game {game + 1}: {failure}")
        outcome = board.outcome(claim_draw=True)
        results[outcome.result() if outcome else "*"] += 1
        # Analysis mode: a fixed-depth analyse, and a stream stopped early.
        info = white.analyse(board if not board.is_game_over() else chess.Board(),
                             chess.engine.Limit(depth=4))
        if "score" not in info or "pv" not in info:
            failures.append(f"game {game + 1}: analyse returned {info}")
        with white.analysis(chess.Board(), chess.engine.Limit(time=10)) as analysis:
            time.sleep(0.05)
            analysis.stop()
            best = analysis.wait().move
        if best not in chess.Board().legal_moves:
            failures.append(f"game {game + 1}: analysis best move {best} illegal")
    white.quit()
    black.quit()
    elapsed = time.perf_counter() - started
    print(f"{args.games} games in {elapsed:.0f} s: +{results['1-0']} ={results['1/2-1/2']} "
          f"-{results['0-1']} unfinished {results['*']}")
    print(f"protocol warnings/errors logged by python-chess: {len(errors.messages)}")
    for message in errors.messages[:10]:
        print("  " + message)
    for failure in failures:
        print("FAIL " + failure)
    if failures or errors.messages:
        sys.exit(1)


if __name__ == "__main__":
    main()
