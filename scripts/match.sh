#!/usr/bin/env bash
# scripts/match.sh GAME NEW OLD LIMIT SEED LOG: a `cutoff match` of NEW against OLD in any
# game of `cutoff games`, each opening of the game's book (random order, -srand SEED)
# played with both colours; the exact command is the first line of LOG, the runner's
# output follows. LIMIT is the engines' limit: tc=B+I, nodes=N, st=S or depth=D.
# Environment (defaults in brackets):
#   ROUNDS [200]      openings, each played twice (400 games)
#   CONCURRENCY [2]   games at once
#   ORDER [random]    or sequential; START [1] the first opening of the book
#   PROTO [ugi]       uci, ugi or uai: both started with --game GAME, Hash 16, one thread;
#                     gomocup: both started with no arguments, as a gomoku manager does
#   NEW_OPTS, OLD_OPTS  more settings for one side (option.EvalFile=/path/net.nnue, tc=20+0.2)
#   EACH_OPTS         more settings for both (timemargin=50)
#   BOOK              another book (default: the game's, from `cutoff games`)
#   PGN               write the games to this PGN file
#   RUNNER [target/release/cutoff]  the cutoff that referees
set -euo pipefail
if [ $# -ne 6 ]; then
    sed -n '2,16p' "$0"
    exit 2
fi
GAME=$1; NEW=$2; OLD=$3; LIMIT=$4; SEED=$5; LOG=$6
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNNER=${RUNNER:-$ROOT/target/release/cutoff}
PROTO=${PROTO:-ugi}
if [ -z "${BOOK:-}" ]; then
    BOOK=$("$RUNNER" games | awk -F'\t' -v g="$GAME" 'NR > 1 && $1 == g {print $4}')
    if [ -z "$BOOK" ]; then
        echo "unknown game: $GAME (cutoff games lists them)" >&2
        exit 2
    fi
    BOOK=$ROOT/$BOOK
fi
case $PROTO in
    gomocup) side=() each=() ;;
    uci|ugi|uai) side=("args=--game $GAME") each=(option.Hash=16 option.Threads=1) ;;
    *) echo "PROTO must be uci, ugi, uai or gomocup, not $PROTO" >&2; exit 2 ;;
esac
pgn=()
[ -n "${PGN:-}" ] && pgn=(-pgnout "file=$PGN")
# NEW_OPTS, OLD_OPTS and EACH_OPTS are lists of key=value words: split at spaces.
# shellcheck disable=SC2206
cmd=("$RUNNER" match -game "$GAME"
    -engine "cmd=$NEW" ${side[@]+"${side[@]}"} name=new ${NEW_OPTS:-}
    -engine "cmd=$OLD" ${side[@]+"${side[@]}"} name=old ${OLD_OPTS:-}
    -each "proto=$PROTO" "$LIMIT" ${each[@]+"${each[@]}"} ${EACH_OPTS:-}
    -rounds "${ROUNDS:-200}" -games 2 -repeat -concurrency "${CONCURRENCY:-2}"
    -openings "file=$BOOK" format=moves "order=${ORDER:-random}" "start=${START:-1}"
    -srand "$SEED" ${pgn[@]+"${pgn[@]}"})
printf '# %s\n' "${cmd[*]}" > "$LOG"
"${cmd[@]}" >> "$LOG" 2>&1
