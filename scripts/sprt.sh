#!/usr/bin/env bash
# SPRT between two git revisions of cutoff: is REV_B better than REV_A?
#
# usage: scripts/sprt.sh REV_A REV_B [--game G] [--tc TC] [--elo0 E] [--elo1 E]
#                        [--rounds N] [--concurrency N] [--book FILE] [-- extra match args]
#
# Each revision is built once (release, in a temporary git worktree) and cached by commit
# under $CUTOFF_BUILD_CACHE (default: target/sprt-builds). Defaults per game (from the
# registry, `cutoff games`): time control,
# opening book from openings/, SPRT elo0=0 elo1=10 alpha=beta=0.05 (normalized model).
# Prints the runner's final table; the last line of the SPRT verdict says H0/H1/continue.
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,10p' "$0"
    exit 2
fi
rev_a=$1
rev_b=$2
shift 2
game=connect4 tc= elo0=0 elo1=10 rounds=200 concurrency=1 book=
extra=()
while [ $# -gt 0 ]; do
    case $1 in
        --game) game=$2; shift 2 ;;
        --tc) tc=$2; shift 2 ;;
        --elo0) elo0=$2; shift 2 ;;
        --elo1) elo1=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --concurrency) concurrency=$2; shift 2 ;;
        --book) book=$2; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

root=$(git rev-parse --show-toplevel)
cache=${CUTOFF_BUILD_CACHE:-$root/target/sprt-builds}
mkdir -p "$cache"

# Builds a revision (once per commit) and prints the path of its binary.
build() {
    local commit exe wt
    commit=$(git -C "$root" rev-parse --verify "$1^{commit}")
    exe=$cache/cutoff-$commit
    if [ ! -x "$exe" ]; then
        wt=$(mktemp -d)
        git -C "$root" worktree add --quiet --detach "$wt" "$commit"
        echo "building $1 ($commit)" >&2
        (cd "$wt" && cargo build --release --quiet --bin cutoff --target-dir "$cache/target") >&2
        cp "$cache/target/release/cutoff" "$exe"
        git -C "$root" worktree remove --force "$wt"
    fi
    echo "$exe"
}

exe_a=$(build "$rev_a")
exe_b=$(build "$rev_b")
# The game's default time control and book come from the registry (`cutoff games`).
games_list=
for exe in "$exe_b" "$exe_a"; do
    games_list=$("$exe" games 2>/dev/null) && break
done
entry=$(printf '%s\n' "$games_list" | awk -F'\t' -v g="$game" 'NR > 1 && $1 == g')
if [ -z "$entry" ]; then
    echo "unknown game: $game (known: $(printf '%s\n' "$games_list" | awk -F'\t' 'NR > 1 {print $1}' | xargs))" >&2
    exit 2
fi
tc=${tc:-$(printf '%s\n' "$entry" | cut -f5)}
if [ -z "$book" ] && [ -f "$root/$(printf '%s\n' "$entry" | cut -f4)" ]; then
    book=$root/$(printf '%s\n' "$entry" | cut -f4)
fi
# The runner: the first of the two builds that has `cutoff match`.
runner=
for exe in "$exe_b" "$exe_a"; do
    probe=$("$exe" match 2>&1 || true)
    case $probe in *"at least two"*) runner=$exe; break ;; esac
done
if [ -z "$runner" ]; then
    echo "neither revision has 'cutoff match'" >&2
    exit 2
fi

openings=()
if [ -n "$book" ]; then
    format=moves
    case $book in *.epd|*.fen) format=epd ;; esac
    openings=(-openings "file=$book" "format=$format" order=random -srand "$RANDOM")
fi

echo "SPRT $game: $rev_b vs $rev_a, tc $tc, elo0 $elo0 elo1 $elo1, up to $rounds game pairs" >&2
exec "$runner" match -game "$game" \
    -engine "cmd=$exe_b" "name=$rev_b" -engine "cmd=$exe_a" "name=$rev_a" \
    -each "tc=$tc" proto=ugi "args=--game $game" option.Hash=16 option.Threads=1 timemargin=50 \
    -rounds "$rounds" -repeat -concurrency "$concurrency" \
    "${openings[@]}" \
    -sprt "elo0=$elo0" "elo1=$elo1" alpha=0.05 beta=0.05 \
    "${extra[@]}"
