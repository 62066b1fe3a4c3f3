#!/usr/bin/env bash
# scripts/gomoku_match.sh GAME NEW OLD LIMIT SEED LOG: a gomoku self-play match of NEW against
# OLD (gomoku, gomoku20 or gomoku-standard; concurrency 2, the game's book in random order with
# colours repeated, ROUNDS opening pairs, default 100), its exact command first in LOG. LIMIT is
# nodes=N or tc=B+I. PROTO=gomocup (the default) starts both as a gomoku manager does, with no
# arguments; PROTO=ugi passes --game GAME, and NEW_OPTS / OLD_OPTS then add settings to one side
# (e.g. NEW_OPTS=option.EvalFile=/path/net.nnue). RUNNER is the cutoff that referees.
set -u
GAME=$1; NEW=$2; OLD=$3; LIMIT=$4; SEED=$5; LOG=$6
BOOK=$(dirname "$0")/../openings/gomoku.txt
[ "$GAME" = gomoku20 ] && BOOK=$(dirname "$0")/../openings/gomoku20.txt
PROTO=${PROTO:-gomocup}
ARGS=()
[ "$PROTO" = ugi ] && ARGS=("args=--game $GAME")
cmd=(${RUNNER:-target/release/cutoff} match -game "$GAME"
  -engine cmd="$NEW" "${ARGS[@]}" name=new ${NEW_OPTS:-}
  -engine cmd="$OLD" "${ARGS[@]}" name=old ${OLD_OPTS:-}
  -each proto="$PROTO" "$LIMIT"
  -rounds "${ROUNDS:-100}" -games 2 -repeat -concurrency 2
  -openings file="$BOOK" format=moves order=random -srand "$SEED")
echo "# ${cmd[*]}" > "$LOG"
"${cmd[@]}" >> "$LOG" 2>&1
