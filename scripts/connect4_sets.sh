#!/usr/bin/env bash
# Solves every Connect Four test set (Pascal Pons' format) with `cutoff solve --check`
# and prints each set's line: positions, wrong scores, mean time, mean nodes.
# The slow set is cut into chunks of 100 positions, solved by JOBS processes side by side
# (one thread each); each chunk prints its own line and the last line sums them.
#
# usage: scripts/connect4_sets.sh [CUTOFF] [DATA_DIR] [JOBS]
set -euo pipefail
exe=${1:-target/release/cutoff}
data=${2:-../shared/data/connect4}
jobs=${3:-2}
if [ ! -d "$data" ]; then
    echo "skipped: no test sets in $data" >&2
    exit 0
fi
for set in Test_L3_R1 Test_L2_R1 Test_L1_R1; do
    [ -f "$data/$set" ] && "$exe" --game connect4 solve --file "$data/$set" --check | tail -1
done
slow=$data/Test_L1_R3
[ -f "$slow" ] || exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
split -l 100 -d -a 3 "$slow" "$work/chunk."
ls "$work"/chunk.* | xargs -P "$jobs" -I{} sh -c "'$exe' --game connect4 solve --file {} --check | tail -1" \
    | tee "$work/lines"
awk '{n += $2; wrong += $4; total += $(NF-1); nodes += $2 * $14}
     END {printf "Test_L1_R3: %d positions, %d wrong, mean time %.3f s, mean nodes %.0f, total %.1f s\n",
          n, wrong, total / n, nodes / n, total}' "$work/lines"
