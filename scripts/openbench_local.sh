#!/usr/bin/env bash
# Runs cutoff on a local OpenBench instance: the pinned OpenBench server on 127.0.0.1 (SQLite)
# and two clients with fastchess, building cutoff from a local clone of this repository.
# It plays a test between two commits to a fixed number of games and a DATAGEN workload,
# downloads the DATAGEN PGNs from the server and imports them into a scratch store with
# `cutoff --game chess data import`, then prints the results. Exit 0 only when both
# workloads finished on the server and the import succeeded.
#
# usage: scripts/openbench_local.sh [options]
#   --openbench FILE   OpenBench source tarball (commit 9906bad, checked by sha256)
#                      [$OPENBENCH_TARBALL, else ../shared/tools/openbench/openbench-source-9906bad.tar.gz]
#   --fastchess FILE   fastchess >= 1.8.1 binary [$FASTCHESS, else beside the tarball]
#   --dir DIR          scratch directory (kept) [a new temporary one, removed unless --keep]
#   --keep             keep the temporary scratch directory
#   --cutoff FILE      the cutoff binary that imports the PGNs and makes the test's book
#                      [target/release/cutoff, built with `cargo build --release`]
#   --engine-config F  OpenBench engine configuration [openbench/cutoff.json]
#   --dev REF          the test's dev commit, also DATAGEN's engine [HEAD]
#   --base REF         the test's base commit [HEAD~1]
#   --games N          the test's games [24]      --tc TC  the test's time control [2.0+0.02]
#   --datagen-games N  DATAGEN games [32]         --datagen-nodes N  nodes a move [5000]
#   --port N           server port; the zip server uses N+1 [8741]
#   --nice N           niceness of the server and clients [10]
#   --cargo-target DIR the clients' shared cargo target directory, to keep and reuse across
#                      runs (not the host build's) [a new one in the scratch directory]
#   --timeout MIN      deadline of each workload, in minutes [90]
# Needs python3 (with venv and pip; PyPI for Django 4.2.1, django-htmlmin, requests, scipy,
# psutil, py-cpuinfo), git, make, cargo, g++ or clang++, tar. Listens on 127.0.0.1 only.
# Both commits need the OpenBench Makefile, bench and UCI; the dev commit genfens too.
#
# OpenBench insists on GitHub in a few places. In the copy set up under the scratch
# directory (never in cutoff) this script replaces, by appending a redefinition to the module:
#   OpenBench/workloads/verify_workload.py collect_github_info: branch/commit, message and
#       bench from the local clone (git), source = a `git archive` zip served on 127.0.0.1
#   OpenBench/workloads/create_workload.py branch_is_out_of_date: False (GitHub compare API)
#   Client/utils.py kill_process_by_name: `pkill -s 0` kills only the client's own session
#       (two clients share this machine; upstream kills every process of that name)
#   Client/bench.py MAX_BENCH_TIME_SECONDS: 60 -> 600 (a loaded, shared machine)
# and avoids the rest by configuration: clients run with --no-client-downloads and find
# fastchess-ob in their folder; the test's book (openings/chess.txt as EPD) is served from
# 127.0.0.1; Config/config.json lists only that book and cutoff. The two clients share one
# CARGO_TARGET_DIR (when both Makefiles honour it), so the dependencies build once. The
# DATAGEN workload has priority 1: the clients play it first, then the test.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OB_SHA256=c68cfb811cce5dbfb6a0c376ba586626d6fc15f0c99bee0e26e241f2f52ecff7
OB_TAR=${OPENBENCH_TARBALL:-$ROOT/../shared/tools/openbench/openbench-source-9906bad.tar.gz}
FASTCHESS=${FASTCHESS:-}
DIR= KEEP=0 CUTOFF= ENGINE_CONFIG=$ROOT/openbench/cutoff.json CARGO_TARGET=
DEV=HEAD BASE=HEAD~1 GAMES=24 TC=2.0+0.02 DG_GAMES=32 DG_NODES=5000
PORT=8741 NICE=10 TIMEOUT=90

die() { echo "openbench_local: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case $1 in
        --openbench) OB_TAR=$2; shift ;;      --fastchess) FASTCHESS=$2; shift ;;
        --dir) DIR=$2; shift ;;               --keep) KEEP=1 ;;
        --cutoff) CUTOFF=$2; shift ;;         --engine-config) ENGINE_CONFIG=$2; shift ;;
        --dev) DEV=$2; shift ;;               --base) BASE=$2; shift ;;
        --games) GAMES=$2; shift ;;           --tc) TC=$2; shift ;;
        --datagen-games) DG_GAMES=$2; shift ;; --datagen-nodes) DG_NODES=$2; shift ;;
        --port) PORT=$2; shift ;;             --nice) NICE=$2; shift ;;
        --timeout) TIMEOUT=$2; shift ;;       --cargo-target) CARGO_TARGET=$2; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done
for n in GAMES DG_GAMES DG_NODES PORT NICE TIMEOUT; do
    [[ ${!n} =~ ^[0-9]+$ ]] || die "$n must be a whole number, not '${!n}'"
done
FASTCHESS=${FASTCHESS:-$(dirname "$OB_TAR")/fastchess}
if [ -n "$CARGO_TARGET" ]; then mkdir -p "$CARGO_TARGET" && CARGO_TARGET=$(cd "$CARGO_TARGET" && pwd); fi
for tool in python3 git make cargo tar; do
    command -v $tool >/dev/null || die "$tool not found on PATH"
done
command -v g++ >/dev/null || command -v clang++ >/dev/null || die "the OpenBench client needs g++ or clang++"
[ -f "$OB_TAR" ] || die "no OpenBench tarball at $OB_TAR (--openbench)"
echo "$OB_SHA256  $OB_TAR" | sha256sum -c --status || die "$OB_TAR is not OpenBench 9906bad (sha256)"
[ -x "$FASTCHESS" ] || die "no fastchess binary at $FASTCHESS (--fastchess)"
[ -f "$ENGINE_CONFIG" ] || die "no engine configuration at $ENGINE_CONFIG (--engine-config)"
ENGINE=$(basename "$ENGINE_CONFIG" .json)
DEV_SHA=$(git -C "$ROOT" rev-parse --verify "$DEV^{commit}") || die "unknown commit '$DEV'"
BASE_SHA=$(git -C "$ROOT" rev-parse --verify "$BASE^{commit}") || die "unknown commit '$BASE'"
for p in $PORT $((PORT + 1)); do
    python3 -c "import socket,sys; s=socket.socket(); s.bind(('127.0.0.1',$p))" 2>/dev/null \
        || die "port $p on 127.0.0.1 is in use (--port)"
done

START=$(date +%s)
if [ -z "$DIR" ]; then DIR=$(mktemp -d "${TMPDIR:-/tmp}/cutoff-openbench.XXXXXX"); else KEEP=1; fi
mkdir -p "$DIR" && DIR=$(cd "$DIR" && pwd)
[ -e "$DIR/OpenBench" ] && die "$DIR already holds an instance: give an empty --dir"
PIDS=()
cleanup() {
    local pid i
    for pid in "${PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do
        for i in $(seq 50); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL -- "-$pid" 2>/dev/null || true
    done
    if [ "$KEEP" = 1 ]; then echo "scratch directory kept: $DIR"; else rm -rf "$DIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Starts "$@" in a session of its own (pid = process group) at the chosen niceness.
spawn() {
    local log=$1; shift
    setsid nice -n "$NICE" "$@" >"$log" 2>&1 &
    PIDS+=($!)
    sleep 0.5
    [ "$(ps -o pgid= -p $! | tr -d ' ')" = "$!" ] || die "$1 did not start in a session of its own"
}
step() { printf '[%4ds] %s\n' $(($(date +%s) - START)) "$*"; }

step "scratch directory $DIR"
step "python environment (pip: Django 4.2.1, django-htmlmin, requests, scipy, psutil, py-cpuinfo)"
python3 -m venv "$DIR/venv"
PY=$DIR/venv/bin/python
"$PY" -m pip install -q --disable-pip-version-check Django==4.2.1 django-htmlmin==0.11.0 \
    requests scipy psutil py-cpuinfo || die "pip install failed"

if [ -z "$CUTOFF" ]; then
    step "building the host cutoff (cargo build --release)"
    (cd "$ROOT" && nice -n "$NICE" cargo build --release --bin cutoff -q) || die "cargo build failed"
    CUTOFF=${CARGO_TARGET_DIR:-$ROOT/target}/release/cutoff
fi
"$CUTOFF" --game chess data import --help >/dev/null 2>&1 || die "$CUTOFF has no 'data import'"

step "OpenBench 9906bad in $DIR/OpenBench, patched for a local instance"
tar -xzf "$OB_TAR" -C "$DIR"
OB=$DIR/OpenBench
git clone -q --bare "$ROOT" "$DIR/cutoff.git"
for sha in "$DEV_SHA" "$BASE_SHA"; do
    git -C "$DIR/cutoff.git" cat-file -e "$sha^{commit}" 2>/dev/null || git -C "$DIR/cutoff.git" fetch -q "$ROOT" "$sha"
done
mkdir -p "$DIR/www/zips" "$DIR/www/books"
"$PY" - "$OB" <<'EOF'
import sys, pathlib
ob = pathlib.Path(sys.argv[1])
def redefine(path, name, code):
    file = ob / path
    text = file.read_text()
    if name not in text:
        sys.exit('openbench_local: %s has no %s: not the pinned OpenBench?' % (path, name))
    file.write_text(text + '\n# Local instance (cutoff scripts/openbench_local.sh): replaces the above.\n' + code)
redefine('OpenBench/workloads/verify_workload.py', 'def collect_github_info(', '''
def collect_github_info(errors, request, field):
    import subprocess
    repo, zips, url = (os.environ[k] for k in ('OB_LOCAL_REPO', 'OB_LOCAL_ZIPS', 'OB_LOCAL_ZIP_URL'))
    branch = request.POST['%s_branch' % (field)]
    git = lambda *args: subprocess.run(['git', '-C', repo, *args], capture_output=True,
                                       text=True, check=True, timeout=300).stdout
    try:
        sha = git('rev-parse', '--verify', branch + '^{commit}').strip()
        message = git('log', '-1', '--format=%B', sha)
        archive = os.path.join(zips, sha + '.zip')
        if not os.path.exists(archive):
            git('archive', '--format=zip', '--prefix=cutoff-%s/' % (sha), '-o', archive + '.part', sha)
            os.replace(archive + '.part', archive)
    except Exception:
        traceback.print_exc()
        errors.append('%s could not be found' % (branch or 'Branch'))
        return
    if not (bench := determine_bench(request, field, message)):
        errors.append('Unable to parse a Bench for %s' % (branch))
        return
    info = request.POST['info'] or strip_message(message)
    return ('%s/%s.zip' % (url, sha), branch, sha, bench, info)
''')
redefine('OpenBench/workloads/create_workload.py', 'def branch_is_out_of_date(', '''
def branch_is_out_of_date(workload):
    return False
''')
redefine('Client/utils.py', 'def kill_process_by_name(', '''
def kill_process_by_name(process_name):
    subprocess.run(['pkill', '-KILL', '-s', '0', '-f', os.path.basename(process_name)])
''')
redefine('Client/bench.py', 'MAX_BENCH_TIME_SECONDS = 60', 'MAX_BENCH_TIME_SECONDS = 600\n')
EOF

step "the test's book: openings/chess.txt as EPD, served from 127.0.0.1"
BOOK=cutoff-chess.epd
"$PY" - "$CUTOFF" "$ROOT/openings/chess.txt" "$DIR/www/books/$BOOK" <<'EOF' || die "book conversion failed"
import subprocess, sys, zipfile
cutoff, lines, out = sys.argv[1:4]
openings = [l.split() for l in open(lines) if l.strip() and not l.startswith('#')]
script = ''.join('position startpos moves %s\nd\n' % ' '.join(m) for m in openings) + 'quit\n'
done = subprocess.run([cutoff, '--game', 'chess'], input=script, capture_output=True, text=True, timeout=120)
fens = [l[len('Fen: '):].split() for l in done.stdout.splitlines() if l.startswith('Fen: ')]
if len(fens) != len(openings):
    sys.exit('got %d FENs for %d openings' % (len(fens), len(openings)))
epd = ''.join('%s hmvc %s; fmvn %s;\n' % (' '.join(f[:4]), f[4], f[5]) for f in fens)
with zipfile.ZipFile(out + '.zip', 'w') as z:
    z.writestr(out.rsplit('/', 1)[-1], epd)
open(out, 'w').write(epd)
EOF

"$PY" - "$OB" "$ENGINE_CONFIG" "$DIR/www/books/$BOOK" "http://127.0.0.1:$((PORT + 1))/books/$BOOK.zip" <<'EOF'
import hashlib, json, pathlib, shutil, sys
ob, engine_config, book, source = sys.argv[1:5]
ob, name = pathlib.Path(ob), pathlib.Path(engine_config).stem
config = json.loads((ob / 'Config/config.json').read_text())
book_name = pathlib.Path(book).name
config.update(books=[book_name], engines=[name])
(ob / 'Config/config.json').write_text(json.dumps(config, indent=4))
sha = hashlib.sha256(pathlib.Path(book).read_bytes()).hexdigest()
(ob / 'Books' / (book_name + '.json')).write_text(json.dumps({'sha': sha, 'source': source}))
shutil.copy(engine_config, ob / 'Engines' / (name + '.json'))
EOF

step "database (SQLite), an approver account, the server on 127.0.0.1:$PORT"
export OB_LOCAL_REPO=$DIR/cutoff.git OB_LOCAL_ZIPS=$DIR/www/zips
export OB_LOCAL_ZIP_URL=http://127.0.0.1:$((PORT + 1))/zips
OB_USER=cutoff OB_PASS=$("$PY" -c 'import secrets; print(secrets.token_hex(12))')
(cd "$OB" && "$PY" manage.py migrate -v 0 >"$DIR/migrate.log" 2>&1) || die "manage.py migrate failed (see $DIR/migrate.log)"
(cd "$OB" && OB_USER=$OB_USER OB_PASS=$OB_PASS "$PY" manage.py shell -c '
import os
from django.contrib.auth.models import User
from OpenBench.models import Profile
user = User.objects.create_user(os.environ["OB_USER"], "", os.environ["OB_PASS"])
Profile.objects.create(user=user, enabled=True, approver=True)') || die "creating the account failed"
spawn "$DIR/zipserver.log" "$PY" -m http.server --bind 127.0.0.1 --directory "$DIR/www" $((PORT + 1))
spawn "$DIR/server.log" env -C "$OB" "$PY" manage.py runserver --noreload "127.0.0.1:$PORT"
SERVER=http://127.0.0.1:$PORT

# Talks to the server as a user would: the web forms (after logging in) and the JSON API.
cat >"$DIR/web.py" <<'EOF'
import html, json, re, sys, time, requests
server, user, password, command, *args = sys.argv[1:]
web = requests.Session()

def login():
    web.get(server + '/login/', timeout=30)
    form = dict(username=user, password=password, csrfmiddlewaretoken=web.cookies['csrftoken'])
    if web.post(server + '/login/', data=form, timeout=30).url.endswith('/login/'):
        sys.exit('login refused')

def create(kind, fields):
    login()
    fields = dict(fields, csrfmiddlewaretoken=web.cookies['csrftoken'])
    page = web.post('%s/%s/new/' % (server, kind), data=fields, timeout=600)
    if page.url.endswith('/new/'):
        sys.exit('the server refused the %s: %s' % (kind, ' | '.join(
            html.unescape(p) for p in re.findall(r'<pre>(.*?)</pre>', page.text, re.S))))
    ids = [int(x) for x in re.findall(r'/%s/(\d+)/' % kind, web.get(server + '/index/').text)]
    print(max(ids))

def info(id):
    return web.get('%s/api/workload/%s/info/' % (server, id), timeout=30).json()['info']

if command == 'wait':  # wait ID MINUTES: until the workload finishes
    id, deadline, last = args[0], time.time() + 60 * float(args[1]), 0
    while time.time() < deadline:
        workload = info(id)
        if workload['finished']:
            sys.exit(0)
        if time.time() - last > 60:
            print('  workload %s: %d/%d games' % (id, workload['games'], workload['max_games']), flush=True)
            last = time.time()
        time.sleep(5)
    sys.exit('workload %s did not finish in %s minutes' % (id, args[1]))
elif command == 'statblock':  # statblock KIND ID: the result block of the workload's page
    page = web.get('%s/%s/%s/' % (server, args[0], args[1]), timeout=30).text
    block = re.search(r'id="long-statblock">(.*?)</pre>', page, re.S).group(1)
    print(html.unescape(re.sub(r'<br\s*/?>', '\n', block)).strip())
elif command == 'games':  # games ID: the games the server counted
    print(info(args[0])['games'])
elif command == 'pgns':  # pgns ID FILE MINUTES: the workload's PGN archive, once the server has it
    deadline = time.time() + 60 * float(args[2])
    while time.time() < deadline:
        reply = web.get('%s/api/pgns/%s/' % (server, args[0]), timeout=120)
        if reply.headers.get('Content-Type', '').startswith('application/octet-stream'):
            open(args[1], 'wb').write(reply.content)
            sys.exit(0)
        time.sleep(10)
    sys.exit('no PGN archive for workload %s: %s' % (args[0], reply.text.strip()))
else:
    kind, fields = command, json.loads(args[0])
    create(kind, fields)
EOF
web() { "$PY" "$DIR/web.py" "$SERVER" "$OB_USER" "$OB_PASS" "$@"; }
for i in $(seq 120); do
    up=$("$PY" -c "import requests; print(requests.get('$SERVER/login/', timeout=5).status_code)" 2>/dev/null || true)
    [ "$up" = 200 ] && break
    [ "$i" = 120 ] && { tail -20 "$DIR/server.log"; die "the server did not come up"; }
    sleep 1
done

REPO_URL=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["source"])' "$ENGINE_CONFIG")
NPS=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["nps"])' "$ENGINE_CONFIG")
UPLOAD=$("$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))
print(c.get("datagen_presets", {}).get("default", {}).get("upload_pgns", "COMPACT"))' "$ENGINE_CONFIG")
fields() {  # fields KIND DEV BASE TC: the form of a workload between two commits
    "$PY" - "$@" "$ENGINE" "$REPO_URL" "$NPS" <<'EOF'
import json, sys
kind, dev, base, tc, engine, repo, nps = sys.argv[1:8]
form = {'info': '', 'priority': 0, 'throughput': 1000, 'syzygy_wdl': 'DISABLED',
        'syzygy_adj': 'DISABLED', 'scale_method': 'BASE', 'scale_nps': nps}
for side, branch in (('dev', dev), ('base', base)):
    form.update({side + '_engine': engine, side + '_repo': repo, side + '_branch': branch,
                 side + '_bench': '', side + '_network': '', side + '_options': 'Threads=1 Hash=16',
                 side + '_time_control': tc})
print(json.dumps(form))
EOF
}
step "creating the DATAGEN workload ($DG_GAMES games, N=$DG_NODES, dev $DEV_SHA) and the test"
DG_FORM=$(fields datagen "$DEV_SHA" "$DEV_SHA" "N=$DG_NODES" | "$PY" -c "
import json, sys; f = json.load(sys.stdin)
f.update(priority=1, book_name='NONE', upload_pgns='$UPLOAD', workload_size=8, win_adj='None',
         draw_adj='None', datagen_max_games=$DG_GAMES, datagen_custom_genfens='', datagen_play_reverses='NO')
print(json.dumps(f))")
DG_ID=$(web datagen "$DG_FORM") || die "creating the DATAGEN workload failed"
TEST_FORM=$(fields test "$DEV_SHA" "$BASE_SHA" "$TC" | "$PY" -c "
import json, sys; f = json.load(sys.stdin)
f.update(book_name='$BOOK', upload_pgns='FALSE', workload_size=2, test_mode='GAMES',
         test_max_games=$GAMES, test_bounds='N/A', test_confidence='N/A',
         win_adj='movecount=3 score=400', draw_adj='movenumber=40 movecount=8 score=10')
print(json.dumps(f))")
TEST_ID=$(web test "$TEST_FORM") || die "creating the test failed"
step "datagen/$DG_ID and test/$TEST_ID (dev $DEV_SHA, base $BASE_SHA, $GAMES games at $TC)"

# One cargo target directory for both clients when both commits' Makefiles honour
# CARGO_TARGET_DIR: the dependencies build once, and cargo's lock takes the builds one at a
# time. Temporary files (the clients unzip and build there) stay in the scratch directory.
SHARE=${CARGO_TARGET:-$DIR/cargo-target}
for sha in "$DEV_SHA" "$BASE_SHA"; do
    git -C "$ROOT" show "$sha:Makefile" 2>/dev/null | grep -q CARGO_TARGET_DIR || SHARE=
done
if [ -n "$SHARE" ]; then export CARGO_TARGET_DIR=$SHARE; else unset CARGO_TARGET_DIR; fi
export TMPDIR=$DIR/tmp
mkdir -p "$TMPDIR"
for n in 1 2; do
    C=$DIR/client$n
    cp -r "$OB/Client" "$C" && cp "$FASTCHESS" "$C/fastchess-ob"
    spawn "$DIR/client$n.log" env -C "$C" "$PY" client.py -U "$OB_USER" -P "$OB_PASS" -S "$SERVER" \
        -T 1 -N 1 -I "local-$n" --no-client-downloads
done
step "two clients started (logs: $DIR/client1.log, $DIR/client2.log)"

wait_for() {  # wait_for ID: fails when the deadline passes or a client dies
    web wait "$1" "$TIMEOUT" & local waiter=$!
    while kill -0 $waiter 2>/dev/null; do
        for pid in "${PIDS[@]}"; do
            kill -0 "$pid" 2>/dev/null && continue
            kill $waiter; tail -n 30 "$DIR"/client*.log; die "a server or client process exited"
        done
        sleep 5
    done
    wait $waiter
}
wait_for "$DG_ID" || { tail -n 30 "$DIR"/client*.log; die "the DATAGEN workload did not finish"; }
step "DATAGEN finished; downloading its PGNs and importing them"
mkdir -p "$DIR/pgns" "$DIR/store"
web pgns "$DG_ID" "$DIR/pgns/datagen.pgn.tar" 10 || die "downloading the PGNs failed"
tar -xf "$DIR/pgns/datagen.pgn.tar" -C "$DIR/pgns"
mapfile -t PGNS < <(find "$DIR/pgns" -name '*.pgn.bz2' | sort)
[ ${#PGNS[@]} -gt 0 ] || die "the PGN archive holds no .pgn.bz2"
PGN_GAMES=$("$PY" -c 'import bz2,sys; print(sum(bz2.open(f,"rt").read().count("[Event ") for f in sys.argv[1:]))' "${PGNS[@]}")
STORE=$DIR/store/openbench-datagen.cgr
"$CUTOFF" --game chess data import "${PGNS[@]}" --out "$STORE" 2>&1 | tee "$DIR/import.log" \
    || die "data import failed"
"$CUTOFF" --game chess data stats --data "$STORE" 2>&1 | tee "$DIR/stats.log" || die "data stats failed"

wait_for "$TEST_ID" || { tail -n 30 "$DIR"/client*.log; die "the test did not finish"; }
step "test finished"
DG_N=$(web games "$DG_ID")
TEST_BLOCK=$(web statblock test "$TEST_ID")
echo
echo "== cutoff on a local OpenBench (9906bad), two clients, $(($(date +%s) - START)) s wall =="
echo "test/$TEST_ID: $ENGINE ${DEV_SHA:0:8} vs ${BASE_SHA:0:8}, $TC, book $BOOK, as the server shows it:"
echo "$TEST_BLOCK" | sed 's/^/  /'
echo "datagen/$DG_ID: $DG_N games on the server, $PGN_GAMES games in its PGNs (${#PGNS[@]} files)"
echo "import: $(tail -n 1 "$DIR/import.log")"
echo "store: $STORE"
