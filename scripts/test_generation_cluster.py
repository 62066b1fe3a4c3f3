#!/usr/bin/env python3
"""Tests of scripts/generation.py's tasks on this machine's threads and on Dask clusters
on 127.0.0.1, with a cutoff binary (argument 1; cli/tests/blackbox/dask_cluster.rs passes the one
the tests built), each generation into a scratch store (--root), never the repository's:

- a datagen run with the driver killed after its first chunk, then the same command
  again: the store ends complete, no line twice, `verify` finds no problem;
- the same chunks on a scheduler and two workers, one worker killed mid-chunk: the same
  files, byte for byte (sha256), and again no problem;
- the same chunk on a TLS cluster (certificates made here), plain tcp:// refused across
  machines and tls:// without certificates refused;
- returned chunks that fail the checks (damaged on the way, damaged by the worker, another
  generation's, another game's) refused, the store untouched; a binary whose bench is not
  the commit's refused by the worker;
- the keep-rule match as game pairs on the cluster, merged by `cutoff match-stats`.

Prints SKIPPED and exits 0 when Dask's distributed is not installed.
"""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))
import cluster  # noqa: E402
import generation  # noqa: E402
import worker_tasks  # noqa: E402

GAME = ["--game", "ataxx", "--generations", "1", "--seed", "100", "--games", "16",
        "--nodes", "5"]
DEADLINE = 240


def scratch_root(top, name):
    """A scratch repository layout: an empty data/ and the ataxx book."""
    root = top / name
    (root / "data").mkdir(parents=True)
    (root / "openings").mkdir()
    shutil.copyfile(SCRIPTS.parent / "openings" / "ataxx.txt", root / "openings" / "ataxx.txt")
    return root


def driver(binary, root, run_dir, *more):
    """The generation.py datagen command on a scratch store."""
    return [sys.executable, str(SCRIPTS / "generation.py"), "--root", str(root), "run",
            "--cutoff", str(binary), "--dir", str(run_dir), "--stop-after", "datagen",
            *GAME, *more]


def store_of(root):
    """file -> sha256 of the store's manifest, after checking `verify` finds no problem
    and no file has two lines."""
    done = subprocess.run([sys.executable, str(SCRIPTS / "generation.py"), "--root",
                           str(root), "verify"], capture_output=True, text=True)
    assert done.returncode == 0 and ", 0 problems" in done.stdout, done.stdout
    lines = (root / "data" / "MANIFEST.tsv").read_text().splitlines()[1:]
    files = [line.split("\t")[0] for line in lines]
    assert len(files) == len(set(files)), f"a file twice in the manifest: {files}"
    return {line.split("\t")[0]: line.split("\t")[7] for line in lines}


def killed_driver_resumes(binary, top):
    """Local threads; the driver killed after its first chunk; the same command again."""
    root = scratch_root(top, "local")
    cmd = driver(binary, root, top / "local-run", "--chunks", "3", "--jobs", "2")
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    for line in first.stdout:
        if line.startswith("added "):
            os.killpg(first.pid, signal.SIGKILL)
            break
    first.wait(DEADLINE)
    held = len((root / "data" / "MANIFEST.tsv").read_text().splitlines()) - 1
    assert 1 <= held < 3, f"the killed driver added {held} chunks"
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=DEADLINE)
    assert again.returncode == 0, again.stderr
    assert f"{3 - held} of 3 chunks" in again.stdout, again.stdout
    store = store_of(root)
    assert len(store) == 3, store
    return root, store


def start_cluster(top, workers, tls=None):
    """A scheduler and `workers` one-thread workers on 127.0.0.1 (no nanny, each in its own
    process group); returns the address and the processes."""
    sched_file = top / f"scheduler-{time.monotonic_ns()}.json"
    sec = []
    if tls:
        sec = ["--tls-ca-file", tls[0], "--tls-cert", tls[1], "--tls-key", tls[2]]
    protocol = ["--protocol", "tls"] if tls else []
    log = open(top / "cluster.log", "a")
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                               "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(sched_file), *protocol, *sec],
                              stdout=log, stderr=log, start_new_session=True)]
    started = time.monotonic()
    while not sched_file.exists() and time.monotonic() - started < 60:
        time.sleep(0.2)
    address = json.loads(sched_file.read_text())["address"]
    for _ in range(workers):
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
             "--no-nanny", "--no-dashboard", "--host", "127.0.0.1", *sec],
            stdout=log, stderr=log, start_new_session=True))
    return address, procs


def stop(procs):
    """Kills the cluster's processes (and their children) started by start_cluster."""
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def playing_worker(workers):
    """The worker whose child is a `cutoff ... datagen` process now, or None."""
    pids = {w.pid: w for w in workers}
    for proc in Path("/proc").iterdir():
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid in pids and b"datagen" in (proc / "cmdline").read_bytes():
                return pids[ppid]
        except (OSError, ValueError, IndexError):
            continue
    return None


def worker_killed_mid_chunk(binary, top, expected):
    """A scheduler and two workers; one is killed while it plays a chunk."""
    root = scratch_root(top, "cluster")
    address, procs = start_cluster(top, 2)
    try:
        run = subprocess.Popen(driver(binary, root, top / "cluster-run", "--chunks", "3",
                                      "--cluster", address),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started = time.monotonic()
        busy = None
        while busy is None and run.poll() is None and time.monotonic() - started < 60:
            busy = playing_worker(procs[1:])
        assert busy is not None, f"no worker was seen playing a chunk: {run.communicate()}"
        os.killpg(busy.pid, signal.SIGKILL)
        out, err = run.communicate(timeout=DEADLINE)
        assert run.returncode == 0, err
        assert store_of(root) == expected, "the cluster's chunks differ from the local ones"
        return address, procs
    except BaseException:
        stop(procs)
        raise


def tls_cluster(binary, top, expected):
    """One chunk on a TLS scheduler and worker on 127.0.0.1, certificates made here."""
    key, cert = top / "tls.key", top / "tls.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True,
                   capture_output=True)
    tls = (str(cert), str(cert), str(key))
    address, procs = start_cluster(top, 1, tls)
    try:
        assert address.startswith("tls://"), address
        root = scratch_root(top, "tls")
        done = subprocess.run(driver(binary, root, top / "tls-run", "--chunks", "1",
                                     "--cluster", address, "--tls-ca", tls[0],
                                     "--tls-cert", tls[1], "--tls-key", tls[2]),
                              capture_output=True, text=True, timeout=DEADLINE)
        assert done.returncode == 0, done.stderr
        name = "data/ataxx/ataxx-g0-s100-n5-c0000.cgr"
        assert store_of(root) == {name: expected[name]}
        refused = subprocess.run(driver(binary, root, top / "tls-run2", "--chunks", "2",
                                        "--cluster", address),
                                 capture_output=True, text=True, timeout=DEADLINE)
        assert refused.returncode == 1 and "tls:// needs" in refused.stderr, refused.stderr
    finally:
        stop(procs)
    for bad, why in (("tcp://192.0.2.1:8786", "only on this machine's loopback"),
                     ("local:0", "number of workers"), ("http://x", "give local:N")):
        try:
            cluster.open_pool(bad, 1)
            raise AssertionError(f"--cluster {bad} accepted")
        except cluster.ClusterError as e:
            assert why in str(e), e


def refused_results(binary, top, local_root):
    """Results that fail the driver's checks are refused and leave the store as it was."""
    root = scratch_root(top, "refused")
    generation.use_root(root)
    args = generation.parse_args(driver(binary, root, top / "refused-run", "--chunks", "1")[4:])
    generation.check_run_args(args)
    name = "ataxx-g0-s100-n5-c0000.cgr"
    chunk_dir = top / "refused-run" / "gen00" / "chunks"
    chunk_dir.mkdir(parents=True)
    data = (local_root / "data" / "ataxx" / name).read_bytes()
    log = (top / "local-run" / "gen00" / "chunks" / name).with_suffix(".log").read_text()
    rec = generation.recipe(args, 0)
    _, _, row = generation.chunk_task(args, 0, rec, 0, generation.BUILTIN)
    good = dict(name=name, data=data, sha256=hashlib.sha256(data).hexdigest(), log=log)
    flipped = data[:-40] + bytes([data[-40] ^ 0xFF]) + data[-39:]
    gomoku = top / "gomoku.cgr"
    gomoku_log = subprocess.run([str(binary), "--game", "gomoku", "datagen", "--format",
                                 "records", "--games", "2", "--first-game", "0", "--seed",
                                 "100", "--nodes", "5", "--random-plies", "2-4", "--book",
                                 str(SCRIPTS.parent / "openings" / "gomoku.txt"),
                                 "--threads", "1", "--out", str(gomoku)],
                                capture_output=True, text=True, check=True).stdout
    other = gomoku.read_bytes()
    cases = {
        "damaged on the way": (dict(good, data=flipped), "damaged on the way"),
        "damaged by the worker": (dict(good, data=flipped,
                                       sha256=hashlib.sha256(flipped).hexdigest()),
                                  "data stats"),
        "another generation": (dict(good, name=name.replace("-g0-", "-g1-")),
                               "not this chunk"),
        "another game's file": (dict(good, data=other,
                                     sha256=hashlib.sha256(other).hexdigest()),
                                "does not read it as ataxx"),
        "another game's command": (dict(good, log="# cutoff --game gomoku ...\n" +
                                        gomoku_log), "does not match"),
    }
    for case, (result, why) in cases.items():
        try:
            generation.accept_chunk(args, 0, rec, name, dict(row), result, chunk_dir)
            raise AssertionError(f"{case}: accepted")
        except generation.Refused as e:
            assert why in str(e), f"{case}: {e}"
        assert not (root / "data" / "MANIFEST.tsv").exists(), case
        assert not list((root / "data").glob("*/*.cgr")), case
    generation.accept_chunk(args, 0, rec, name, dict(row), good, chunk_dir)
    assert len(store_of(root)) == 1
    fake = top / "fake-cutoff"
    fake.write_text("#!/bin/sh\necho 'Bench: 5'\n")
    fake.chmod(0o755)
    try:
        worker_tasks.checked_binary(worker_tasks.blob(fake.read_bytes()), 6)
        raise AssertionError("a binary of another bench accepted")
    except worker_tasks.TaskFailed as e:
        assert "its commit says Bench: 6" in str(e), e
    generation.use_root(SCRIPTS.parent)


def match_on_cluster(binary, top, address):
    """Two game pairs of the built-in net against itself on the cluster, merged."""
    root = scratch_root(top, "match")
    generation.use_root(root)
    args = generation.parse_args(driver(binary, root, top / "match-run")[4:] + [
        "--match-rounds", "2", "--tc", "0.1+0.01", "--keep", "sprt", "--cluster", address])
    generation.check_run_args(args)
    args.pool = args.match_pool = cluster.open_pool(address, 1)
    gen_dir = top / "match-run" / "gen00"
    gen_dir.mkdir(parents=True)
    try:
        elo, lower, upper, sprt = generation.match(args, 0, 100, generation.BUILTIN,
                                                   generation.BUILTIN, gen_dir)
    finally:
        args.pool.close()
        generation.use_root(SCRIPTS.parent)
    pairs = [json.loads(p.read_text())["pairings"][0]["penta"]["counts"]
             for p in sorted((gen_dir / "pairs").glob("r*.json"))]
    merged = json.loads((gen_dir / "match.json").read_text())["pairings"][0]
    assert len(pairs) == 2 and all(sum(p) == 1 for p in pairs), pairs
    assert merged["penta"]["counts"] == [sum(c) for c in zip(*pairs)], merged
    assert sum(merged["wdl"].values()) == 4 and sprt == "continue", (merged, sprt)
    assert lower <= elo <= upper


def main(argv):
    """Runs the tests in order (later ones use the first's store)."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("SKIPPED: Dask's distributed is not installed (pip install distributed)")
        return 0
    binary = Path(argv[0]).resolve()
    top = Path(tempfile.mkdtemp(prefix="cutoff-cluster-test-"))
    os.environ["CUTOFF_WORKER_CACHE"] = str(top / "cache")
    procs = []
    try:
        started = time.monotonic()
        local_root, expected = killed_driver_resumes(binary, top)
        print(f"ok: the driver killed and run again ({time.monotonic() - started:.0f} s)")
        address, procs = worker_killed_mid_chunk(binary, top, expected)
        print(f"ok: a worker killed mid-chunk, the same files ({time.monotonic() - started:.0f} s)")
        match_on_cluster(binary, top, address)
        print(f"ok: the match as game pairs on the cluster ({time.monotonic() - started:.0f} s)")
        stop(procs)
        refused_results(binary, top, local_root)
        print(f"ok: bad results refused ({time.monotonic() - started:.0f} s)")
        tls_cluster(binary, top, expected)
        print(f"ok: the TLS cluster ({time.monotonic() - started:.0f} s)")
    finally:
        stop(procs)
        shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
