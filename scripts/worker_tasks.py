"""What a worker of scripts/generation.py runs: one datagen chunk, or one game pair of the
keep-rule match, with the binary, book and nets it is sent (no shared file system).

Each task gets the binary's bytes (cached on the worker by sha256, under
$CUTOFF_WORKER_CACHE or the system's temporary directory) and the bench signature of its
commit; a binary whose `cutoff bench` gives another `Bench:` is refused before it plays.
A task works in a temporary directory of its own, removed at the end, and returns bytes
(the chunk, the match's JSON) and its log: nothing it leaves behind is ever half a result.
The same functions run in a local thread pool and on a Dask cluster's workers.
"""

import hashlib
import os
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

BENCH_LINE = re.compile(r"^Bench: (\d+)", re.MULTILINE)


class TaskFailed(Exception):
    """A task that could not produce its result, with the reason (and the log's tail)."""


def blob(data):
    """Bytes with their sha256: how a binary, a book or a net travels to a worker."""
    return (hashlib.sha256(data).hexdigest(), data)


def cache_dir():
    """The worker's cache: $CUTOFF_WORKER_CACHE, else TMP/cutoff-worker-UID."""
    path = os.environ.get("CUTOFF_WORKER_CACHE") or os.path.join(
        tempfile.gettempdir(), f"cutoff-worker-{os.getuid()}")
    Path(path).mkdir(parents=True, exist_ok=True)
    return Path(path)


def cached(item, suffix, mode=0o644):
    """The path of a blob in the cache, written first (temp file + rename) if missing."""
    sha, data = item
    if hashlib.sha256(data).hexdigest() != sha:
        raise TaskFailed(f"a {suffix} arrived damaged: sha256 differs from the sent one")
    path = cache_dir() / f"{sha}{suffix}"
    if not path.exists():
        fd, tmp = tempfile.mkstemp(dir=cache_dir(), suffix=".partial")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    return path


def checked_binary(binary, bench):
    """The cached binary, after its `bench` gave `Bench: bench` (once per binary and
    worker cache); raises TaskFailed otherwise."""
    path = cached(binary, ".cutoff", 0o755)
    mark = path.with_name(f"{path.name}.bench-{bench}")
    if mark.exists():
        return path
    done = subprocess.run([str(path), "bench"], capture_output=True, text=True)
    found = BENCH_LINE.findall(done.stdout + done.stderr)
    if done.returncode != 0 or not found:
        raise TaskFailed(f"{socket.gethostname()}: the binary's bench failed "
                         f"(exit {done.returncode}): {done.stderr[-500:]}")
    if int(found[-1]) != int(bench):
        raise TaskFailed(f"{socket.gethostname()}: the binary's bench is {found[-1]}, its "
                         f"commit says Bench: {bench}: not the commit's build")
    mark.touch()
    return path


def run_in(work, argv, what):
    """Runs argv in work/ with stdout in the log (the command first); returns the log and
    stderr; raises TaskFailed with their tails on a failure."""
    done = subprocess.run(argv, cwd=work, capture_output=True, text=True)
    log = "# " + shlex.join(argv) + "\n" + done.stdout
    if done.returncode != 0:
        raise TaskFailed(f"{socket.gethostname()}: {what} failed (exit {done.returncode}): "
                         f"{(done.stdout + done.stderr)[-800:]}")
    return log, done.stderr


def play_chunk(binary, bench, book, net, argv, name):
    """Plays one datagen chunk: `argv` is the command after the binary, with `{book}`,
    `{out}` and `{net}` standing for the sent book, the chunk file and the sent net.
    Returns dict(name, data, sha256, log, err, host)."""
    exe = checked_binary(binary, bench)
    work = Path(tempfile.mkdtemp(dir=cache_dir(), prefix="chunk-"))
    try:
        paths = {"{book}": str(cached(book, ".book")), "{out}": str(work / name),
                 "{net}": str(cached(net, ".nnue")) if net else ""}
        log, err = run_in(work, [str(exe), *(paths.get(a, a) for a in argv)], "datagen")
        data = (work / name).read_bytes()
        return dict(name=name, data=data, sha256=hashlib.sha256(data).hexdigest(), log=log,
                    err=err, host=socket.gethostname())
    finally:
        shutil.rmtree(work, ignore_errors=True)


def play_pair(binary, bench, book, nets, argv):
    """Plays one game pair of a match (`cutoff match` with `argv`, where `{cutoff}`,
    `{book}`, `{json}` and `{net:NAME}` stand for the binary, the sent book, the results
    file and the sent net NAME of `nets`). Returns dict(json, log, host)."""
    exe = checked_binary(binary, bench)
    work = Path(tempfile.mkdtemp(dir=cache_dir(), prefix="pair-"))
    try:
        def path_of(arg):
            for key, value in (("{cutoff}", str(exe)), ("{json}", str(work / "pair.json")),
                               ("{book}", str(cached(book, ".book")) if book else "")):
                arg = arg.replace(key, value)
            for name, item in nets.items():
                arg = arg.replace(f"{{net:{name}}}", str(cached(item, ".nnue")))
            return arg
        log, _ = run_in(work, [str(exe), *map(path_of, argv)], "match")
        return dict(json=(work / "pair.json").read_text(), log=log,
                    host=socket.gethostname())
    finally:
        shutil.rmtree(work, ignore_errors=True)
