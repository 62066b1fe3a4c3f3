#!/usr/bin/env bash
# The bench signature check, as Stockfish's CI does it: the node count of `cutoff bench`
# must equal the `Bench: N` of the latest commit message that states one. A commit that
# changes search or evaluation says its new count in its message (docs/tools.md); a count
# that moves without such a commit means the search changed by mistake.
#
# Usage: scripts/bench_check.sh [CUTOFF]
#   CUTOFF: the binary to run; by default `cargo build --release` builds
#   target/release/cutoff first.
# Exit status: 0 when the counts agree (or no commit states one: then it says so and
# prints the count to put in a message), 1 when they differ, 2 when it cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "bench_check: $*" >&2; }

if ! git rev-parse --git-dir >/dev/null 2>&1; then
    say "not a git repository: no commit message to compare with"
    exit 2
fi

exe=${1:-}
if [ -z "$exe" ]; then
    cargo build --release --quiet
    exe=target/release/cutoff
fi
if [ ! -x "$exe" ]; then
    say "no executable at '$exe'"
    exit 2
fi

# `cutoff bench` writes `Bench: <nodes> nodes <nps> nps` last.
measured=$("$exe" bench 2>/dev/null | awk '$1 == "Bench:" { nodes = $2 } END { print nodes }')
if ! [[ "$measured" =~ ^[0-9]+$ ]]; then
    say "'$exe bench' printed no 'Bench: N' line"
    exit 2
fi

# Anywhere in the message, as this repository writes it ("No change in play: Bench: N"); the
# first in the message when it names several.
commit=$(git log -1 -E --grep='Bench: [0-9]+' --format=%H)
if [ -z "$commit" ]; then
    if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
        say "this clone is shallow and its history states no 'Bench: N';" \
            "fetch the full history (git fetch --unshallow) to check the signature"
    else
        say "no commit message states 'Bench: N': nothing to compare with, not checked"
    fi
    say "cutoff bench gives Bench: $measured (state it in the next commit message)"
    exit 0
fi
expected=$(git log -1 --format=%B "$commit" | grep -oE 'Bench: [0-9]+' | head -n 1 | cut -d' ' -f2)
subject=$(git log -1 --format='%h "%s"' "$commit")

if [ "$measured" != "$expected" ]; then
    say "FAILED: cutoff bench gives Bench: $measured, but the latest commit that states a"
    say "signature, $subject, says Bench: $expected."
    say "A commit that changes the search or an evaluation must say its new 'Bench: N' in"
    say "its message; if none was meant to, this change altered the search by mistake."
    exit 1
fi
say "ok: Bench: $measured, as $subject states"
