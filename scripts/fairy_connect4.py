#!/usr/bin/env python3
"""Fairy-Stockfish as a Connect Four UCI engine in cutoff's notation (columns 1-7), for
`cutoff match ... -engine cmd=scripts/fairy_connect4.py proto=uci "args=CFOUR.ini"`.

Loads the [cfour] variant from the file named by the first argument (default: cfour.ini
beside this script; copy the [cfour] section of Fairy-Stockfish's src/variants.ini) and
translates moves: position moves "4" -> drops "P@d1" (the landing square), bestmove "P@d1" -> "4";
pv moves are dropped from info lines."""
import os, subprocess, sys, threading

here = os.path.dirname(os.path.abspath(__file__))
ini = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(here, "cfour.ini")
binary = os.environ.get("FAIRY_STOCKFISH", "/usr/games/fairy-stockfish")
eng = subprocess.Popen([binary], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, text=True, bufsize=1)

def send(line):
    eng.stdin.write(line + "\n"); eng.stdin.flush()

def set_variant():
    send("setoption name VariantPath value " + ini)
    send("setoption name UCI_Variant value cfour")

def reader():
    for line in eng.stdout:
        line = line.rstrip("\n")
        if line.startswith("bestmove"):
            mv = line.split()[1]
            if "@" in mv:
                mv = str(ord(mv.split("@")[1][0]) - ord("a") + 1)
            line = "bestmove " + mv
        elif line.startswith("info") and " pv " in line:
            line = line[: line.index(" pv ")]
        sys.stdout.write(line + "\n"); sys.stdout.flush()
    os._exit(0)

threading.Thread(target=reader, daemon=True).start()
for line in sys.stdin:
    t = line.split()
    if t and t[0] == "position" and "moves" in t:
        i = t.index("moves")
        heights = [0] * 7
        drops = []
        for mv in t[i + 1:]:
            c = int(mv) - 1
            heights[c] += 1
            drops.append("P@%s%d" % ("abcdefg"[c], heights[c]))
        line = " ".join(t[: i + 1] + drops)
    send(line.rstrip("\n"))
    if t and t[0] == "uci":
        set_variant()
    if t and t[0] == "quit":
        break
eng.wait()
