#!/usr/bin/env bash
# scripts/gomoku_rapfi.sh BIN RAPFI OUTDIR [FIRST [ROUNDS]]: issue 36's yardstick, BIN against a
# Gomocup engine (Rapfi) at 10 s + 0.1 s, both through proto=gomocup, one game at a time,
# openings/gomoku.txt in order from opening FIRST (default 1) for ROUNDS openings (default
# 50), each with both colours. Run it on a quiet machine. Writes OUTDIR/rapfi-FIRST.log (the
# exact command first) and .pgn, then the PGN's statistics (scripts/gomoku_pgn_stats.py).
# The book's 100 openings with both colours (200 games): FIRST 1 and then FIRST 51.
# CUTOFF_TC (default 10+0.1) gives cutoff another clock than Rapfi's, for time odds.
# GAME=gomoku20 plays 20x20 from openings/gomoku20.txt (default gomoku, 15x15).
set -u
BIN=$1; RAPFI=$2; OUT=$3; FIRST=${4:-1}; ROUNDS=${5:-50}
GAME=${GAME:-gomoku}
BOOK=$(dirname "$0")/../openings/gomoku.txt
[ "$GAME" = gomoku20 ] && BOOK=$(dirname "$0")/../openings/gomoku20.txt
mkdir -p "$OUT"
LOG=$OUT/rapfi-$FIRST.log; PGN=$OUT/rapfi-$FIRST.pgn
cmd=("$BIN" match -game "$GAME" -engine cmd="$BIN" name=cutoff proto=gomocup tc="${CUTOFF_TC:-10+0.1}"
  -engine cmd="$RAPFI" name=rapfi proto=gomocup -each tc=10+0.1
  -rounds "$ROUNDS" -games 2 -repeat -concurrency 1
  -openings file="$BOOK" format=moves order=sequential
  start="$FIRST" -pgnout file="$PGN")
echo "# ${cmd[*]}" > "$LOG"
"${cmd[@]}" >> "$LOG" 2>&1
python3 "$(dirname "$0")/gomoku_pgn_stats.py" "$PGN" cutoff rapfi | tee -a "$LOG"
