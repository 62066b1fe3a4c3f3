#!/usr/bin/env bash
# scripts/ataxx_match.sh NEW OLD LIMIT SEED LOG: a 400-game Ataxx match of NEW against OLD
# (concurrency 2, openings/ataxx.txt in random order with colours repeated), its exact command
# first in LOG. LIMIT is nodes=N or tc=B+I; RUNNER is the cutoff that referees; NEW_OPTS and
# OLD_OPTS add settings to one side (e.g. NEW_OPTS=option.EvalFile=/path/net.nnue); ROUNDS
# (default 200) is the number of opening pairs.
set -u
NEW=$1; OLD=$2; LIMIT=$3; SEED=$4; LOG=$5
OPEN=$(dirname "$0")/../openings/ataxx.txt
cmd=(${RUNNER:-target/release/cutoff} match -game ataxx
  -engine cmd=$NEW "args=--game ataxx" name=new ${NEW_OPTS:-}
  -engine cmd=$OLD "args=--game ataxx" name=old ${OLD_OPTS:-}
  -each proto=ugi $LIMIT option.Hash=16 option.Threads=1
  -rounds ${ROUNDS:-200} -games 2 -repeat -concurrency 2
  -openings file=$OPEN format=moves order=random -srand $SEED)
echo "# ${cmd[*]}" > $LOG
"${cmd[@]}" >> $LOG 2>&1
