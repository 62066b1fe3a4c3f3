#!/usr/bin/env python3
"""The generation loop of a game's net on the store (data/, data/MANIFEST.tsv).

One generation g: self-play with the current net (`datagen --format records`, in chunks
that each finish, added to data/<game>/ with their manifest lines) -> `train` on the
store's files of the game (all generations up to g, or the --window latest), one file
held out for the validation loss -> `cutoff match` of the new net against the current one
(both colours of each opening of openings/<game>.txt) -> the new net becomes the current
one only if it won the match.

Subcommands:
  run     the loop: datagen, train, match and the keep rule, generation after generation
  add     registers chunk files made by hand (with their logs) into data/ and the manifest:
          datagen chunks, or PGN imports (`data import`, named <game>-g<G>-pgn-<label>.cgr)
  status  per game and generation: files, games, positions, bytes, bytes a position
  verify  every manifest line's file exists with its size and sha256, every data/*/*.cgr
          has its line

The store is the repository's: a chunk already in the manifest is not played again, so a
run started on a fresh clone continues from what the repository holds; a generation the
store already holds keeps its recipe (seed, nodes, games a chunk, random plies: from its
manifest commands). Everything else (logs, nets, match results) goes under --dir, outside
the repository: DIR/genNN/ holds a log per step with its exact command, and a step whose
output is complete is skipped, so the same command resumes after an interruption.
DIR/current names the current net ("builtin": the net built into the binary);
DIR/history.tsv has a line per generation: generation, net, Elo, lower, upper, kept.
Seeds: generation g plays, trains and matches with seed SEED+g (or its store seed).

Where the chunks and the match's game pairs run: this machine's cores (--jobs), or a Dask
cluster with --cluster (scripts/cluster.py); either way each task is sent the binary (its
`bench` checked against the commit's `Bench:`), the book and the net, and returns the
chunk's bytes and its log, which are checked here before the store takes them. How to run
a cluster: docs/distributed.md.

The store's layout, file names and budgets: data/README.md. Examples: docs/training.md.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import cluster
import worker_tasks

# The repository of this script: the source of the binaries (commits, Bench: lines).
SOURCE = Path(__file__).resolve().parent.parent
# The repository whose data/ is the store and whose openings/ the books (--root).
ROOT = SOURCE
DATA = ROOT / "data"
MANIFEST = DATA / "MANIFEST.tsv"
COLUMNS = ["file", "game", "generation", "games", "positions", "bytes", "commit", "sha256",
           "command"]
MAX_FILE_BYTES = 50 * 1000 * 1000
MAX_BYTES_PER_POSITION = 3.0
BUILTIN = "builtin"
CHUNK_NAME = re.compile(
    r"^(?P<game>.+?)-g(?P<gen>\d+)-s(?P<seed>\d+)-n(?P<nodes>\d+)-c(?P<chunk>\d{4,})\.cgr$")
SUMMARY = re.compile(r"^(\d+) games \(numbers \d+ to \d+\), (\d+) positions written",
                     re.MULTILINE)
# A store file of `cutoff data import` (games of PGN files, e.g. OpenBench's DATAGEN).
IMPORT_NAME = re.compile(r"^(?P<game>.+?)-g(?P<gen>\d+)-pgn-[A-Za-z0-9_.-]+\.cgr$")
IMPORT_SUMMARY = re.compile(r"^(\d+) games imported, (\d+) positions written", re.MULTILINE)
EPOCH_LINE = re.compile(r"^epoch .*validation loss ([0-9.]+) .*-> (\S+)$")


class Refused(Exception):
    """A step that cannot go on, with the reason to print."""


# ---------------------------------------------------------------------------- the store

def chunk_name(game, gen, seed, nodes, chunk):
    """The store's name of chunk `chunk` of generation `gen`."""
    return f"{game}-g{gen}-s{seed}-n{nodes}-c{chunk:04d}.cgr"


def read_manifest():
    """The manifest's lines as dicts (no line when there is no manifest yet)."""
    if not MANIFEST.exists():
        return []
    lines = MANIFEST.read_text().splitlines()
    if not lines or lines[0].split("\t") != COLUMNS:
        raise Refused(f"{MANIFEST}: the header is not {' '.join(COLUMNS)}")
    rows = []
    for number, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        if len(fields) != len(COLUMNS):
            raise Refused(f"{MANIFEST}:{number}: {len(fields)} fields, not {len(COLUMNS)}")
        rows.append(dict(zip(COLUMNS, fields)))
    return rows


def append_manifest(row):
    """Appends one line to the manifest (writing the header first into a new one)."""
    fields = [str(row[c]) for c in COLUMNS]
    if any("\t" in f or "\n" in f for f in fields):
        raise Refused(f"{row['file']}: a field holds a tab or a line break")
    MANIFEST.parent.mkdir(parents=True, exist_ok=True)
    new = not MANIFEST.exists()
    with open(MANIFEST, "a") as out:
        if new:
            out.write("\t".join(COLUMNS) + "\n")
        out.write("\t".join(fields) + "\n")


def sha256_of(path):
    """The sha256 of a file, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def budget_problem(size, positions):
    """Why a file of `size` bytes holding `positions` positions breaks the budgets, or None."""
    if size > MAX_FILE_BYTES:
        return f"{size} bytes, over the {MAX_FILE_BYTES} bytes a file"
    if positions < 1:
        return "no position"
    if size / positions > MAX_BYTES_PER_POSITION:
        return f"{size / positions:.2f} bytes a position, over {MAX_BYTES_PER_POSITION}"
    return None


def store_file(src, row, move):
    """Checks `src` against the budgets and the manifest, puts it at row['file'] (moved or
    copied) and appends its manifest line; fills in bytes and sha256. Raises Refused."""
    size = src.stat().st_size
    problem = budget_problem(size, int(row["positions"]))
    if problem:
        raise Refused(f"{src}: not added to the store: {problem}")
    if any(r["file"] == row["file"] for r in read_manifest()):
        raise Refused(f"{row['file']} is already in the manifest")
    row.update(bytes=size, sha256=sha256_of(src))
    dest = ROOT / row["file"]
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".partial")
    (shutil.move if move else shutil.copyfile)(src, tmp)
    os.replace(tmp, dest)
    append_manifest(row)
    print(f"added {row['file']}: {row['games']} games, {row['positions']} positions, "
          f"{size} bytes ({size / int(row['positions']):.2f} a position)", flush=True)


def head_commit():
    """`git rev-parse --short HEAD` of the script's repository."""
    return subprocess.run(["git", "-C", str(SOURCE), "rev-parse", "--short", "HEAD"],
                          check=True, capture_output=True, text=True).stdout.strip()


def commit_bench(commit):
    """The `Bench: N` of a commit's message in the script's repository."""
    done = subprocess.run(["git", "-C", str(SOURCE), "log", "-1", "--format=%B", commit],
                          capture_output=True, text=True)
    found = re.findall(r"Bench: (\d+)", done.stdout)
    if done.returncode != 0 or not found:
        raise Refused(f"commit {commit}: no 'Bench: N' in its message (give --bench N)")
    return int(found[-1])


def use_root(path):
    """Makes `path` the repository whose data/ is the store (generation.py --root)."""
    global ROOT, DATA, MANIFEST
    ROOT = Path(path).resolve()
    DATA = ROOT / "data"
    MANIFEST = DATA / "MANIFEST.tsv"


def option(argv, name):
    """The value of `--name` in an argument list, or None."""
    return argv[argv.index(name) + 1] if name in argv[:-1] else None


def with_option(argv, name, value):
    """The argument list with `--name`'s value replaced (or appended)."""
    argv = list(argv)
    if name in argv[:-1]:
        argv[argv.index(name) + 1] = value
    else:
        argv += [name, value]
    return argv


# ------------------------------------------------------------------------------- add

def read_chunk_log(log):
    """The command (first line, `# ...`) and the games and positions (datagen's summary
    line) of a chunk's log."""
    text = log.read_text()
    first = text.splitlines()[0] if text else ""
    if not first.startswith("# "):
        raise Refused(f"{log}: the first line is not '# <command>'")
    summary = SUMMARY.search(text) or IMPORT_SUMMARY.search(text)
    if not summary:
        raise Refused(f"{log}: no datagen summary ('N games (numbers ...), P positions "
                      "written'): the chunk did not finish")
    return shlex.split(first[2:]), int(summary.group(1)), int(summary.group(2))


def is_import(argv):
    """Whether a command is `cutoff ... data import ...`."""
    return any(a == "data" and b == "import" for a, b in zip(argv, argv[1:]))


def check_import(name, argv, game, gen):
    """Refuses an imported file whose name or command does not match its game and
    generation."""
    m = IMPORT_NAME.match(name)
    if not m:
        raise Refused(f"{name}: not a store name for an import (<game>-g<G>-pgn-<label>.cgr)")
    wrong = []
    if option(argv, "--game") != game:
        wrong.append(f"--game {option(argv, '--game')} (the store's game is {game})")
    if m["game"] != game or int(m["gen"]) != gen:
        wrong.append(f"the name says game {m['game']}, generation {m['gen']}")
    if wrong:
        raise Refused(f"{name}: the command does not match: {', '.join(wrong)}")


def check_chunk(name, argv, game, gen, games):
    """Refuses a chunk whose name does not match its command (game, generation, seed,
    nodes, first game) or the store's naming."""
    if is_import(argv):
        return check_import(name, argv, game, gen)
    m = CHUNK_NAME.match(name)
    if not m:
        raise Refused(f"{name}: not a store name (<game>-g<G>-s<seed>-n<nodes>-c<KKKK>.cgr)")
    expected = {"--game": game, "--seed": m["seed"], "--nodes": m["nodes"],
                "--games": str(games), "--format": "records",
                "--first-game": str(int(m["chunk"]) * games)}
    wrong = [f"{k} {option(argv, k)} (the name says {v})" for k, v in expected.items()
             if option(argv, k) != v]
    if m["game"] != game or int(m["gen"]) != gen:
        wrong.append(f"game {m['game']}, generation {m['gen']}")
    if wrong:
        raise Refused(f"{name}: the command does not match: {', '.join(wrong)}")


def add(args):
    """Registers finished chunk files (each with its log beside it, NAME.log) into
    data/<game>/ with their manifest lines; the command's output becomes the store path."""
    commit = args.commit or head_commit()
    failed = 0
    for src in map(Path, args.files):
        try:
            log = Path(args.log) if args.log else src.with_suffix(".log")
            argv, games, positions = read_chunk_log(log)
            if args.command:
                argv = shlex.split(args.command)
            check_chunk(src.name, argv, args.game, args.generation, games)
            rel = f"data/{args.game}/{src.name}"
            row = dict(file=rel, game=args.game, generation=args.generation, games=games,
                       positions=positions, commit=commit,
                       command=shlex.join(with_option(argv, "--out", rel)))
            store_file(src, row, move=False)
        except (Refused, OSError) as e:
            print(f"refused: {e}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


# --------------------------------------------------------------------- status, verify

def status(args):
    """Prints per game and generation the files, games, positions, bytes and bytes a
    position of the manifest."""
    totals = {}
    for row in read_manifest():
        if args.game and row["game"] != args.game:
            continue
        key = (row["game"], int(row["generation"]))
        t = totals.setdefault(key, [0, 0, 0, 0])
        for i, column in enumerate(("games", "positions", "bytes")):
            t[i + 1] += int(row[column])
        t[0] += 1
    print("game\tgeneration\tfiles\tgames\tpositions\tbytes\tbytes/position")
    for (game, gen), (files, games, positions, size) in sorted(totals.items()):
        print(f"{game}\t{gen}\t{files}\t{games}\t{positions}\t{size}\t"
              f"{size / max(positions, 1):.3f}")
    return 0


def verify(args):
    """Checks that every manifest line's file exists with its size and sha256, within the
    budgets, and that every data/*/*.cgr has a manifest line; prints each problem."""
    problems = []
    rows = read_manifest()
    listed = {}
    for row in rows:
        path = ROOT / row["file"]
        if row["file"] in listed:
            problems.append(f"{row['file']}: two manifest lines")
        listed[row["file"]] = row
        if not path.is_file():
            problems.append(f"{row['file']}: missing")
        elif path.stat().st_size != int(row["bytes"]):
            problems.append(f"{row['file']}: {path.stat().st_size} bytes, not {row['bytes']}")
        elif sha256_of(path) != row["sha256"]:
            problems.append(f"{row['file']}: sha256 differs from the manifest's")
        elif budget_problem(int(row["bytes"]), int(row["positions"])):
            problems.append(f"{row['file']}: "
                            f"{budget_problem(int(row['bytes']), int(row['positions']))}")
    for path in sorted(DATA.glob("*/*.cgr")):
        if str(path.relative_to(ROOT)) not in listed:
            problems.append(f"{path.relative_to(ROOT)}: not in the manifest")
    for p in problems:
        print(p)
    print(f"{len(rows)} manifest lines, {len(problems)} problems")
    return 1 if problems else 0


# ---------------------------------------------------------------------- run: datagen

def run_logged(cmd, log, cwd=None):
    """Runs cmd with its output in log (the command first, stderr beside it in .err); raises
    Refused on failure."""
    with open(log, "w") as out, open(Path(log).with_suffix(".err"), "w") as err:
        out.write("# " + shlex.join(cmd) + "\n")
        out.flush()
        done = subprocess.run(cmd, stdout=out, stderr=err, cwd=cwd)
    if done.returncode != 0:
        raise Refused(f"failed (exit {done.returncode}): {shlex.join(cmd)}; see {log}")


def shown_path(path, run_dir):
    """A path as the manifest shows it: relative to the repository when inside it,
    DIR/... when inside the run's directory (no machine's own paths in the store)."""
    path = Path(path).resolve()
    for base, prefix in ((ROOT, ""), (Path(run_dir).resolve(), "DIR/")):
        if path.is_relative_to(base):
            return prefix + str(path.relative_to(base))
    return str(path)


def recipe(args, gen):
    """The datagen settings of generation gen: the store's (from its manifest commands,
    with the net its chunks were played with) when it holds the generation, else the
    options' (seed SEED+gen; net None: the current one)."""
    mine = dict(seed=args.seed + gen, nodes=args.nodes, games=args.games,
                plies=args.random_plies)
    rows = [r for r in read_manifest()
            if r["game"] == args.game and int(r["generation"]) == gen]
    if not rows:
        return dict(mine, net=None)
    argv = shlex.split(rows[0]["command"])
    store = {k: option(argv, f"--{name}") for k, name in (
        ("seed", "seed"), ("nodes", "nodes"), ("games", "games"), ("plies", "random-plies"))}
    if None in store.values():
        raise Refused(f"{rows[0]['file']}: its command does not name --seed, --nodes, "
                      "--games and --random-plies")
    store.update(seed=int(store["seed"]), nodes=int(store["nodes"]),
                 games=int(store["games"]))
    if store != mine:
        print(f"gen {gen}: the store holds {len(rows)} files of this generation: "
              f"continuing its run ({store}, not {mine})", flush=True)
    return dict(store, net=option(argv, "--evalfile") or BUILTIN)


def chunk_task(args, gen, rec, chunk, net):
    """The worker's command of chunk `chunk` (worker_tasks.play_chunk's `argv`) and the
    chunk's manifest line (without bytes and sha256; games and positions: the log's)."""
    name = chunk_name(args.game, gen, rec["seed"], rec["nodes"], chunk)
    book = ROOT / "openings" / f"{args.game}.txt"
    tail = ["--game", args.game, "datagen", "--format", "records",
            "--games", str(rec["games"]), "--first-game", str(chunk * rec["games"]),
            "--seed", str(rec["seed"]), "--nodes", str(rec["nodes"]),
            "--random-plies", rec["plies"], "--book", "{book}", "--threads", "1"]
    evalfile = [] if net == BUILTIN else ["--evalfile", "{net}"]
    rel = f"data/{args.game}/{name}"
    shown = ["cutoff", *with_option(tail, "--book", shown_path(book, args.dir)),
             "--out", rel]
    if evalfile:
        shown += ["--evalfile", shown_path(net, args.dir)]
    row = dict(file=rel, game=args.game, generation=gen, commit=args.commit,
               command=shlex.join(shown))
    return name, [*tail, "--out", "{out}", *evalfile], row


def stats_of(args, path):
    """Games and positions of a records file as `cutoff data stats` reads it; raises
    Refused when it reads damage or another game."""
    done = subprocess.run([args.cutoff, "--game", args.game, "data", "stats", "--data",
                           str(path)], capture_output=True, text=True)
    text = done.stdout + done.stderr
    m = re.search(r"^1 files, (\d+) games, (\d+) moves", text, re.MULTILINE)
    if done.returncode != 0 or not m or "damaged" in text:
        raise Refused(f"{path.name}: `data stats` does not read it as {args.game} games: "
                      f"{text.strip()[-300:]}")
    return int(m[1]), int(m[2])


def accept_chunk(args, gen, rec, name, row, result, chunk_dir):
    """Checks a chunk a worker returned (its name, the sha256 of the bytes as sent, its
    log's command and summary, `data stats` of the bytes) and adds it to the store; raises
    Refused, leaving the store as it was, when any check fails."""
    where = f"{name} (from {result.get('host', '?')})"
    if result.get("name") != name:
        raise Refused(f"{where}: the worker returned {result.get('name')}, not this chunk "
                      "(another game, generation or seed)")
    data = result["data"]
    if hashlib.sha256(data).hexdigest() != result["sha256"]:
        raise Refused(f"{where}: the bytes received do not have the sha256 the worker sent: "
                      "damaged on the way")
    log = (chunk_dir / name).with_suffix(".log")
    log.write_text(result["log"])
    log.with_suffix(".err").write_text(result.get("err", ""))
    argv, games, positions = read_chunk_log(log)
    check_chunk(name, argv, args.game, gen, games)
    if games != rec["games"]:
        raise Refused(f"{where}: {games} games in its log, not {rec['games']}")
    tmp = chunk_dir / name
    with open(f"{tmp}.partial", "wb") as out:
        out.write(data)
    os.replace(f"{tmp}.partial", tmp)
    read = stats_of(args, tmp)
    if read != (games, positions):
        tmp.unlink()
        raise Refused(f"{where}: data stats reads {read[0]} games and {read[1]} positions, "
                      f"its log says {games} and {positions}")
    row.update(games=games, positions=positions)
    store_file(tmp, row, move=True)


def shared_inputs(pool, args, net):
    """The binary, the game's book and the net (None: built in) as the tasks receive them."""
    book = ROOT / "openings" / f"{args.game}.txt"
    if not book.is_file():
        raise Refused(f"{book}: no book of openings for {args.game}")
    share = pool.share
    binary = share(worker_tasks.blob(Path(args.cutoff).read_bytes()))
    return (binary, share(worker_tasks.blob(book.read_bytes())),
            None if net == BUILTIN else share(worker_tasks.blob(Path(net).read_bytes())))


def datagen(args, gen, rec, net, gen_dir):
    """Plays the chunks of generation gen (settings `rec`) that the manifest does not hold
    yet as tasks of the pool (local threads or a cluster), each checked and added to the
    store when it comes back."""
    held = {r["file"] for r in read_manifest()}
    todo = [k for k in range(args.chunks) if f"data/{args.game}/"
            f"{chunk_name(args.game, gen, rec['seed'], rec['nodes'], k)}" not in held]
    if not todo:
        return
    shown_net = net if net == BUILTIN else shown_path(net, args.dir)
    if rec["net"] not in (None, shown_net):
        raise Refused(f"gen {gen}: the store's chunks of it were played with {rec['net']}, "
                      f"the current net is {shown_net}: give theirs (--start-net)")
    chunk_dir = gen_dir / "chunks"
    chunk_dir.mkdir(parents=True, exist_ok=True)
    print(f"gen {gen}: datagen, {len(todo)} of {args.chunks} chunks of {rec['games']} games "
          f"({args.pool.describe()})", flush=True)
    binary, book, shared_net = shared_inputs(args.pool, args, net)
    jobs = {}
    for k in todo:
        name, argv, row = chunk_task(args, gen, rec, k, net)
        job = args.pool.submit(worker_tasks.play_chunk, binary, args.bench, book,
                               shared_net, argv, name)
        jobs[job] = (name, row)
    failed = []
    for job in concurrent.futures.as_completed(jobs):
        name, row = jobs[job]
        try:
            accept_chunk(args, gen, rec, name, row, job.result(), chunk_dir)
        except (Refused, worker_tasks.TaskFailed, OSError) as e:
            print(f"gen {gen}: refused: {e}", file=sys.stderr, flush=True)
            failed.append(str(e))
    if failed:
        raise Refused(f"gen {gen}: {len(failed)} chunks not added (above): a failed one is "
                      "played again by the next run, one over the budgets is refused again")


# ------------------------------------------------------------------------ run: train

def training_files(args, gen):
    """The store's files of the game in the window's generations (up to gen), as manifest
    lines, by generation and name."""
    rows = [r for r in read_manifest()
            if r["game"] == args.game and int(r["generation"]) <= gen]
    gens = sorted({int(r["generation"]) for r in rows})
    if args.window:
        gens = gens[-args.window:]
    return sorted((r for r in rows if int(r["generation"]) in gens),
                  key=lambda r: (int(r["generation"]), r["file"]))


def held_out_file(args, rows):
    """The held-out file: --hold-out, or the last chunk of the latest generation; None
    with --hold-out none."""
    if args.hold_out == "none":
        return None
    if args.hold_out:
        path = Path(args.hold_out).resolve()
        if not path.is_file():
            raise Refused(f"--hold-out {args.hold_out} is not a file")
        return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    latest = max(int(r["generation"]) for r in rows)
    files = [r["file"] for r in rows if int(r["generation"]) == latest]
    return max(files, key=lambda f: int(CHUNK_NAME.match(Path(f).name)["chunk"]))


def data_args(args, rows, held_out):
    """train's --data: data/<game> when the window is every .cgr file there, else the
    files (the held-out one left out)."""
    files = [r["file"] for r in rows]
    chosen = [f for f in files if f != held_out]
    if not chosen:
        raise Refused(f"nothing left to train on once {held_out} is held out "
                      "(--hold-out none, or more chunks, or a wider --window)")
    on_disk = sorted(str(p.relative_to(ROOT)) for p in (DATA / args.game).glob("*.cgr"))
    return [f"data/{args.game}"] if sorted(files) == on_disk else chosen


def best_checkpoint(log):
    """The checkpoint with the lowest validation loss in a train log, and that loss."""
    epochs = [m.groups() for m in map(EPOCH_LINE.match, Path(log).read_text().splitlines())
              if m]
    if not epochs:
        raise Refused(f"{log}: no epoch line with a validation loss and a checkpoint")
    loss, path = min(epochs, key=lambda e: float(e[0]))
    return path, float(loss)


def train(args, gen, seed, gen_dir, current):
    """Trains generation gen's net on the store (run from the repository, so the log's
    command names data/...); of the epochs' checkpoints, the one with the lowest
    validation loss becomes DIR/genNN/net.nnue."""
    net = gen_dir / "net.nnue"
    if (gen_dir / "train.done").exists():
        return str(net)
    rows = training_files(args, gen)
    if not rows:
        raise Refused(f"gen {gen}: the store holds no {args.game} file up to this generation")
    held_out = held_out_file(args, rows)
    data = data_args(args, rows, held_out)
    cmd = [args.cutoff, "--game", args.game, "train", "--data",
           *data, "--out", str(gen_dir / "last.nnue"),
           "--checkpoints", str(gen_dir / "ck"), "--threads", str(args.threads),
           "--seed", str(seed)]
    if held_out:
        cmd += ["--validation-data", held_out]
    if args.symmetries:
        cmd.append("--symmetries")
    if args.fine_tune:
        cmd += ["--init", current]
    cmd += shlex.split(args.train_args)
    gens = sorted({int(r["generation"]) for r in rows})
    print(f"gen {gen}: train on the store's generations {gens[0]}-{gens[-1]} "
          f"({len(rows)} files), held out: {held_out}", flush=True)
    run_logged(cmd, gen_dir / "train.log", cwd=ROOT)
    best, loss = best_checkpoint(gen_dir / "train.log")
    print(f"gen {gen}: {best} has the lowest validation loss, {loss}", flush=True)
    shutil.copyfile(best, net)
    (gen_dir / "train.done").touch()
    return str(net)


# ------------------------------------------------------------------------ run: match

def pair_command(args, seed, rounds, net_names):
    """`cutoff match` arguments of round r's game pair (worker_tasks.play_pair's `argv`):
    the r-th opening of the book in the order a whole match with -srand seed plays them
    (start=r+1 of the same shuffle), with both colours."""
    cmd = ["match", "-game", args.game]
    for name in net_names:
        cmd += ["-engine", "cmd={cutoff}", f"name={name}", f"args=--game {args.game}"]
        if net_names[name] != BUILTIN:
            cmd.append(f"option.EvalFile={{net:{name}}}")
    cmd += ["-each", "proto=ugi", f"tc={args.tc}", "option.Threads=1", "timemargin=50",
            "-rounds", "1", "-games", "2", "-repeat", "-concurrency", "1", "-srand", str(seed),
            "-jsonout", "file={json}", "-quiet",
            "-openings", "file={book}", "format=moves", "order=random",
            f"start={rounds + 1}"]
    return cmd


def merge_pairs(args, pairs, out, log):
    """`cutoff match-stats` of the pairs' results (with --sprt's test, `elo0=0` given as
    `--elo0=0`) into `out` (temp file + rename); returns the merged results."""
    sprt = [f"--{kv}" for kv in shlex.split(args.sprt)] if args.keep == "sprt" else []
    run_logged([args.cutoff, "match-stats", *map(str, pairs), *sprt, "--json", str(out)], log)
    return json.loads(Path(out).read_text())


def play_pairs(args, gen, seed, nets, pairs_dir):
    """Plays the rounds whose pair result pairs_dir does not hold yet as tasks, each result
    written (temp file + rename) as it comes back; with --keep sprt, stops when the merged
    pairs decide."""
    todo = [r for r in range(args.match_rounds)
            if not (pairs_dir / f"r{r:04d}.json").exists()]
    if not todo:
        return
    pool = args.match_pool
    binary, book, _ = shared_inputs(pool, args, BUILTIN)
    shared = {name: pool.share(worker_tasks.blob(Path(net).read_bytes()))
              for name, net in nets.items() if net != BUILTIN}
    print(f"gen {gen}: match, {len(todo)} of {args.match_rounds} game pairs at {args.tc} "
          f"({pool.describe()})", flush=True)
    jobs = {pool.submit(worker_tasks.play_pair, binary, args.bench, book, shared,
                             pair_command(args, seed, r, nets)): r for r in todo}
    for job in concurrent.futures.as_completed(jobs):
        r = jobs[job]
        try:
            result = job.result()
        except worker_tasks.TaskFailed as e:
            for other in jobs:
                other.cancel()
            raise Refused(f"gen {gen}: game pair {r}: {e}")
        out = pairs_dir / f"r{r:04d}.json"
        (pairs_dir / f"r{r:04d}.log").write_text(result["log"])
        Path(f"{out}.partial").write_text(result["json"])
        os.replace(f"{out}.partial", out)
        if args.keep == "sprt":
            done = sorted(pairs_dir.glob("r*.json"))
            merged = merge_pairs(args, done, pairs_dir / "sprt.json", pairs_dir / "sprt.log")
            if merged["end"] == "sprt_decided":
                print(f"gen {gen}: SPRT decided after {len(done)} pairs", flush=True)
                for other in jobs:
                    other.cancel()
                return


def match(args, gen, seed, new_net, current, gen_dir):
    """Plays the new net against the current one in game pairs and merges them; returns
    the pentanomial Elo, lower and upper bound of its 95% interval (infinite when every
    game was won or every one lost) and the SPRT's decision (None without --keep sprt)."""
    result = gen_dir / "match.json"
    if not result.exists():
        pairs_dir = gen_dir / "pairs"
        pairs_dir.mkdir(exist_ok=True)
        play_pairs(args, gen, seed, {"new": new_net, "current": current}, pairs_dir)
        merge_pairs(args, sorted(pairs_dir.glob("r*.json")), result, gen_dir / "match.log")
    merged = json.loads(result.read_text())
    pairing = merged["pairings"][0]
    if pairing["first"] != "new":
        raise Refused(f"{result}: the first engine is not 'new'")
    wdl = pairing["wdl"]
    games = wdl["wins"] + wdl["draws"] + wdl["losses"]
    score = (wdl["wins"] + wdl["draws"] / 2) / games if games else 0.5
    # A value the runner cannot give (a score of 0 or 1, or a bound next to one, as after
    # pairs won 2-0 and lost 0-2) is unbounded on its side; the score decides the Elo's.
    inf = float("inf")
    unbounded = {"elo": inf if score > 0.5 else -inf if score < 0.5 else 0.0,
                 "lower": inf if score == 1 else -inf, "upper": -inf if score == 0 else inf}
    elo = pairing["elo_penta"] or {}
    bounds = tuple(unbounded[k] if elo.get(k) is None else elo[k]
                   for k in ("elo", "lower", "upper"))
    sprt = (merged.get("sprt") or {}).get("decision") if args.keep == "sprt" else None
    return (*bounds, sprt)


# -------------------------------------------------------------------------- run: loop

def generation(args, gen, current):
    """Runs generation gen from the net `current`; returns the net current after it, or
    None when --stop-after ended it early."""
    gen_dir = Path(args.dir) / f"gen{gen:02d}"
    gen_dir.mkdir(parents=True, exist_ok=True)
    rec = recipe(args, gen)
    datagen(args, gen, rec, current, gen_dir)
    if args.stop_after == "datagen":
        return None
    seed = rec["seed"]
    new_net = train(args, gen, seed, gen_dir, current)
    if args.stop_after == "train":
        return None
    elo, lower, upper, sprt = match(args, gen, seed, new_net, current, gen_dir)
    kept = {"positive": elo > 0, "significant": lower > 0, "sprt": sprt == "h1"}[args.keep]
    print(f"gen {gen}: Elo {elo:+.1f} [{lower:+.1f}, {upper:+.1f}]"
          f"{f', SPRT {sprt}' if sprt else ''}: {'kept' if kept else 'not kept'}", flush=True)
    (gen_dir / "verdict.tsv").write_text(
        f"{gen}\t{new_net}\t{elo:.1f}\t{lower:.1f}\t{upper:.1f}\t{kept}\n")
    verdicts = sorted(Path(args.dir).glob("gen*/verdict.tsv"))
    (Path(args.dir) / "history.tsv").write_text("".join(v.read_text() for v in verdicts))
    return new_net if kept else current


def first_generation(args, done):
    """The first generation to run: --first, else the one after DIR's last finished one,
    else the store's latest generation of the game (0 on an empty store)."""
    if args.first is not None:
        return args.first
    if done.exists():
        return int(done.read_text())
    gens = [int(r["generation"]) for r in read_manifest() if r["game"] == args.game]
    return max(gens, default=0)


def run(args):
    """The loop: generations from the first (first_generation) to --generations - 1."""
    check_run_args(args)
    top = Path(args.dir)
    top.mkdir(parents=True, exist_ok=True)
    state, done = top / "current", top / "generations.done"
    current = state.read_text().strip() if state.exists() else args.start_net
    if args.fine_tune and current == BUILTIN:
        raise Refused("--fine-tune needs --start-net FILE: the built-in net has no file")
    try:
        args.pool = cluster.open_pool(args.cluster, args.jobs,
                                      (args.tls_ca, args.tls_cert, args.tls_key))
        args.match_pool = (args.pool if args.cluster
                           else cluster.open_pool(None, args.concurrency))
    except cluster.ClusterError as e:
        raise Refused(str(e))
    try:
        for gen in range(first_generation(args, done), args.generations):
            after = generation(args, gen, current)
            if after is None:
                print(f"gen {gen}: stopped after {args.stop_after}")
                return 0
            current = after
            state.write_text(current + "\n")
            done.write_text(f"{gen + 1}\n")
    finally:
        args.pool.close()
        if args.match_pool is not args.pool:
            args.match_pool.close()
    print(f"current net: {current}")
    return 0


def check_run_args(args):
    """Checks and completes run's options (absolute paths, the commit); raises Refused."""
    for name in ("generations", "chunks", "games", "nodes", "threads", "jobs",
                 "match_rounds", "concurrency"):
        if getattr(args, name) < 1:
            raise Refused(f"--{name.replace('_', '-')} must be at least 1")
    if args.window is not None and args.window < 1:
        raise Refused("--window must be at least 1")
    if args.start_net != BUILTIN:
        args.start_net = str(Path(args.start_net).resolve())
        if not Path(args.start_net).is_file():
            raise Refused(f"--start-net {args.start_net} is not a file")
    args.cutoff = str(Path(args.cutoff).resolve())
    if not os.access(args.cutoff, os.X_OK):
        raise Refused(f"--cutoff {args.cutoff} is not an executable file")
    args.dir = str(Path(args.dir).resolve())
    if Path(args.dir).is_relative_to(ROOT):
        raise Refused("--dir must be outside the repository (the store is data/)")
    args.commit = args.commit or head_commit()
    if args.bench is None:
        args.bench = commit_bench(args.commit)
    if args.keep == "sprt" and not args.sprt:
        raise Refused("--keep sprt needs --sprt \"elo0=A elo1=B ...\"")


# ------------------------------------------------------------------------- arguments

def run_parser(sub):
    """The `run` subcommand's options."""
    p = sub.add_parser("run", help="the generation loop (datagen, train, match, keep)",
                       description="Runs generations: datagen into the store, train on "
                       "it, match, keep the new net on a won match.")
    p.add_argument("--cutoff", required=True, help="the cutoff binary")
    p.add_argument("--game", required=True, help="a game with a training hook")
    p.add_argument("--dir", required=True, help="logs, nets, matches (outside the repository)")
    p.add_argument("--generations", type=int, required=True,
                   help="run up to generation N-1")
    p.add_argument("--first", type=int, help="the first generation (default: after DIR's "
                   "last finished one, else the store's latest generation of the game)")
    p.add_argument("--stop-after", choices=["datagen", "train", "match"], default="match",
                   help="end the run after this step of the first generation")
    p.add_argument("--seed", type=int, default=1, help="base seed: generation g uses SEED+g")
    p.add_argument("--commit", help="the commit the binary was built from (default: the "
                   "repository's HEAD)")
    p.add_argument("--bench", type=int, help="the binary's bench signature, checked by each "
                   "worker before it plays (default: the commit message's Bench: N)")
    g = p.add_argument_group("where the tasks run (docs/distributed.md)")
    g.add_argument("--cluster", help="a Dask cluster: local:N (N workers on 127.0.0.1), "
                   "tcp://127.0.0.1:PORT, tls://HOST:PORT (default: --jobs and "
                   "--concurrency threads on this machine)")
    g.add_argument("--tls-ca", help="the cluster's CA certificate (tls://)")
    g.add_argument("--tls-cert", help="this client's certificate, signed by the CA (tls://)")
    g.add_argument("--tls-key", help="this client's private key (tls://)")
    g = p.add_argument_group("datagen")
    g.add_argument("--chunks", type=int, default=10, help="chunks a generation")
    g.add_argument("--games", type=int, default=1000, help="games a chunk")
    g.add_argument("--nodes", type=int, default=5000, help="nodes a move in self-play")
    g.add_argument("--random-plies", default="2-4", help="random plies after the book")
    g.add_argument("--jobs", type=int, default=2, help="chunk processes at once "
                   "(each --threads 1)")
    g.add_argument("--start-net", default=BUILTIN,
                   help="the current net when DIR names none (default: the built-in one)")
    g = p.add_argument_group("train")
    g.add_argument("--window", type=int, help="train on the W latest generations (default: all)")
    g.add_argument("--hold-out", help="the file held out for the validation loss (default: "
                   "the last chunk of the latest generation; 'none': train's --validation)")
    g.add_argument("--symmetries", action="store_true",
                   help="train on each position's images too (train --symmetries)")
    g.add_argument("--fine-tune", action="store_true",
                   help="train from the current net's weights (train --init)")
    g.add_argument("--threads", type=int, default=2, help="train's threads")
    g.add_argument("--train-args", default="",
                   help="more arguments for train (e.g. \"--epochs 5 --skip-plies 4\")")
    g = p.add_argument_group("match")
    g.add_argument("--match-rounds", type=int, default=200,
                   help="openings of the match (each played with both colours)")
    g.add_argument("--tc", default="2+0.02", help="match time control")
    g.add_argument("--concurrency", type=int, default=2,
                   help="game pairs at once on this machine (without --cluster)")
    g.add_argument("--keep", choices=["positive", "significant", "sprt"], default="positive",
                   help="keep a net whose Elo is above 0, or whose whole interval is, or "
                   "that the SPRT (--sprt) accepts")
    g.add_argument("--sprt", default="elo0=0 elo1=10",
                   help="the SPRT of --keep sprt, as cutoff match's -sprt takes it; the "
                   "game pairs stop when it decides")
    p.set_defaults(func=run)


def parse_args(argv):
    """The subcommands and their options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--root", help="the repository whose data/ is the store and whose "
                   "openings/ the books (default: this script's); e.g. a scratch copy")
    sub = p.add_subparsers(dest="subcommand", required=True)
    run_parser(sub)
    a = sub.add_parser("add", help="register finished chunk files made by hand",
                       description="Copies chunk files into data/<game>/ and appends their "
                       "manifest lines. Each file's log (FILE with .log) gives the command "
                       "(first line '# <command>') and datagen's summary (games, positions).")
    a.add_argument("files", nargs="+", help="chunk files, named as the store names them")
    a.add_argument("--game", required=True, help="their game")
    a.add_argument("--generation", type=int, required=True, help="their generation")
    a.add_argument("--commit", help="the commit their binary was built from "
                   "(default: the repository's HEAD)")
    a.add_argument("--log", help="the log (one file only; default: FILE with .log)")
    a.add_argument("--command", help="the datagen command, if not the log's (one file only)")
    a.set_defaults(func=add)
    s = sub.add_parser("status", help="the store by game and generation")
    s.add_argument("--game", help="this game only")
    s.set_defaults(func=status)
    v = sub.add_parser("verify", help="check the store against the manifest")
    v.set_defaults(func=verify)
    args = p.parse_args(argv)
    if args.subcommand == "add" and (args.log or args.command) and len(args.files) > 1:
        p.error("--log and --command are those of one file")
    return args


def main(argv):
    """Runs the subcommand; an error it refuses with is printed, exit code 1."""
    args = parse_args(argv)
    if args.root:
        use_root(args.root)
    try:
        return args.func(args)
    except Refused as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
