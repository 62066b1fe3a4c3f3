#!/usr/bin/env bash
# Self-play data for NNUE training (chess, or Ataxx with --game ataxx), in chunks that
# each finish: chunk K plays games K*GAMES .. (K+1)*GAMES-1 of one seeded run (`cutoff datagen --first-game`), appends them
# to its own file and writes a log holding the exact command. Chunks already complete
# (their log ends with "games (numbers") are skipped, so the script can be re-run after an
# interruption; the data is the same whatever the order or the machine.
#
# usage: scripts/datagen_chunks.sh CUTOFF OUTDIR [--chunks N] [--from K] [--games G]
#            [--nodes N] [--threads T] [--seed S] [--random-plies A-B] [--book FILE]
#            [--game chess|ataxx] [--evalfile NET]   (the book defaults to openings/GAME.txt;
#            NET is the net the self-play searches evaluate with)
set -euo pipefail
if [ $# -lt 2 ]; then
    sed -n '2,11p' "$0"
    exit 2
fi
cutoff=$(realpath "$1")
out=$2
shift 2
chunks=10 from=0 games=2000 nodes=5000 threads=1 seed=2026 plies=8-12
game=chess book= evalfile=()
while [ $# -gt 0 ]; do
    case $1 in
        --chunks) chunks=$2; shift 2 ;;
        --from) from=$2; shift 2 ;;
        --games) games=$2; shift 2 ;;
        --nodes) nodes=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --random-plies) plies=$2; shift 2 ;;
        --book) book=$2; shift 2 ;;
        --game) game=$2; shift 2 ;;
        --evalfile) evalfile=(--evalfile "$(realpath "$2")"); shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
book=$(realpath "${book:-$(dirname "$0")/../openings/$game.txt}")
mkdir -p "$out"
for ((k = from; k < from + chunks; k++)); do
    name=$(printf 'seed%s-n%s-chunk%04d' "$seed" "$nodes" "$k")
    if [ "$game" != chess ]; then name=$game-$name; fi
    log=$out/$name.log
    if [ -f "$log" ] && grep -q 'games (numbers' "$log"; then
        continue
    fi
    rm -f "$out/$name.bin"
    cmd=("$cutoff" --game "$game" datagen --games "$games" --first-game $((k * games)) --nodes "$nodes"
         --threads "$threads" --seed "$seed" --random-plies "$plies" --format bullet
         --book "$book" --out "$out/$name.bin" ${evalfile[@]+"${evalfile[@]}"})
    {
        echo "# $(date -u +%FT%TZ) $("$cutoff" --version)"
        echo "# ${cmd[*]}"
    } > "$log"
    "${cmd[@]}" >> "$log" 2> "$out/$name.progress"
done
