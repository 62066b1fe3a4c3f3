#!/usr/bin/env python3
"""The generation loop of a learned evaluation, for any game with a training hook.

One generation: self-play with the current net (`datagen`, in chunks that each finish,
through scripts/datagen_chunks.sh) -> interleave the data of the last WINDOW generations
(`data shuffle`) -> train a net (`train`) -> match it against the current net
(`cutoff match`, both colours of each opening) -> keep it as the current net if it wins.

With --hold-out, each generation's last chunk is never trained on: it is the training's
`--validation-data` (games the net has not seen), and of the epochs' checkpoints the one
with the lowest held-out loss is the generation's net. With --fine-tune, training starts
from the current net's weights (`train --init`), which needs the net as a file: give
--start-net FILE (e.g. nets/gomoku.nnue) rather than the built-in net.

Every step writes its output and a log holding its exact command under DIR/genNN/, and a
step whose output is complete is skipped, so the loop is resumable: run the same command
again after an interruption (or on another machine with the same seeds) and it carries on
where it stopped. Seeds: generation g plays datagen seed SEED+g, shuffles and trains with
seed SEED+g, and matches with -srand SEED+g.

usage: scripts/generation.py --cutoff BIN --game G --dir DIR [--generations N]
           [--seed S] [--chunks K] [--games G] [--nodes N] [--random-plies A-B]
           [--window W] [--symmetries] [--shuffle-args "..."] [--train-args "..."]
           [--hold-out] [--fine-tune] [--match-rounds R] [--tc TC] [--concurrency C]
           [--start-net NET] [--keep positive|significant]

Examples (Ataxx's loop, gomoku's fine-tuning recipe): docs/training.md.

DIR/current holds the path of the current net ("builtin" for the net built into BIN);
DIR/history.tsv one line per generation: generation, net, Elo, lower, upper, kept.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILTIN = "builtin"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cutoff", required=True, help="the cutoff binary")
    p.add_argument("--game", required=True, help="a game with a training hook")
    p.add_argument("--dir", required=True, help="output directory (outside the repository)")
    p.add_argument("--generations", type=int, default=1, help="generations to run")
    p.add_argument("--seed", type=int, default=1, help="base seed")
    p.add_argument("--chunks", type=int, default=10, help="datagen chunks a generation")
    p.add_argument("--games", type=int, default=500, help="games a chunk")
    p.add_argument("--nodes", type=int, default=10000, help="nodes a move in self-play")
    p.add_argument("--threads", type=int, default=2, help="threads for datagen and train")
    p.add_argument("--random-plies", default="2-4", help="random plies after the book")
    p.add_argument("--window", type=int, default=3,
                   help="train on the data of this many latest generations")
    p.add_argument("--symmetries", action="store_true",
                   help="shuffle each position with its images under the board's symmetries"
                   " (data shuffle --symmetries; Ataxx: 8 images)")
    p.add_argument("--shuffle-args", default="",
                   help="extra arguments for data shuffle (e.g. --skip-in-check)")
    p.add_argument("--train-args", default="", help="extra arguments for train")
    p.add_argument("--hold-out", action="store_true",
                   help="validate on each generation's last chunk (never trained on) and"
                   " keep the epoch with the lowest held-out loss")
    p.add_argument("--fine-tune", action="store_true",
                   help="train from the current net's weights (train --init)")
    p.add_argument("--match-rounds", type=int, default=200,
                   help="openings of the match (each played with both colours)")
    p.add_argument("--tc", default="2+0.02", help="match time control")
    p.add_argument("--concurrency", type=int, default=2, help="match concurrency")
    p.add_argument("--start-net", default=BUILTIN,
                   help="the net of generation 0's self-play (default: the built-in one)")
    p.add_argument("--keep", choices=["positive", "significant"], default="positive",
                   help="keep a net whose Elo is above 0, or whose whole interval is")
    args = p.parse_args(argv)
    for name in ("generations", "chunks", "games", "nodes", "threads", "window",
                 "match_rounds", "concurrency"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.hold_out and args.chunks < 2:
        p.error("--hold-out needs --chunks 2 or more: the last chunk is held out")
    if args.start_net != BUILTIN:
        args.start_net = str(Path(args.start_net).resolve())
        if not Path(args.start_net).is_file():
            p.error(f"--start-net {args.start_net} is not a file")
    args.cutoff = str(Path(args.cutoff).resolve())
    if not os.access(args.cutoff, os.X_OK):
        p.error(f"--cutoff {args.cutoff} is not an executable file")
    return args


def run_logged(cmd, log, cwd=None):
    """Runs cmd with its output in log (the command first); raises on failure."""
    with open(log, "w") as out:
        out.write("# " + shlex.join(cmd) + "\n")
        out.flush()
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
    if done.returncode != 0:
        sys.exit(f"failed (exit {done.returncode}): {shlex.join(cmd)}; see {log}")


def evalfile_args(net):
    """datagen's arguments for self-play with `net`."""
    return [] if net == BUILTIN else ["--evalfile", net]


def datagen(args, gen, net, gen_dir):
    """Self-play chunks of this generation (datagen_chunks.sh skips finished chunks)."""
    data = gen_dir / "data"
    cmd = [str(ROOT / "scripts/datagen_chunks.sh"), args.cutoff, str(data),
           "--game", args.game, "--chunks", str(args.chunks), "--games", str(args.games),
           "--nodes", str(args.nodes), "--threads", str(args.threads),
           "--seed", str(args.seed + gen), "--random-plies", args.random_plies]
    cmd += evalfile_args(net)
    print(f"gen {gen}: datagen ({args.chunks} chunks of {args.games} games)", flush=True)
    run_logged(cmd, gen_dir / "datagen.log")
    return sorted(data.glob("*.bin"))


def shuffle(args, gen, files, gen_dir):
    """Interleaves the window's data into one file."""
    out = gen_dir / "all.bin"
    if not (gen_dir / "shuffle.done").exists():
        print(f"gen {gen}: shuffle {len(files)} files", flush=True)
        cmd = [args.cutoff, "--game", args.game, "data", "shuffle", "--data",
               *map(str, files), "--out", str(out), "--seed", str(args.seed + gen)]
        if args.symmetries:
            cmd.append("--symmetries")
        cmd += shlex.split(args.shuffle_args)
        run_logged(cmd, gen_dir / "shuffle.log")
        (gen_dir / "shuffle.done").touch()
    return out


EPOCH_LINE = re.compile(r"^epoch .*validation loss ([0-9.]+) .*-> (\S+)$")


def best_checkpoint(log):
    """The checkpoint with the lowest validation loss in a train log, and that loss."""
    epochs = [m.groups() for m in map(EPOCH_LINE.match, Path(log).read_text().splitlines())
              if m]
    if not epochs:
        sys.exit(f"{log}: no epoch line with a validation loss and a checkpoint")
    loss, path = min(epochs, key=lambda e: float(e[0]))
    return path, float(loss)


def train(args, gen, data, gen_dir, current, held_out):
    """Trains this generation's net on the shuffled data (from the current net's weights
    with --fine-tune; the best held-out epoch with --hold-out)."""
    net = gen_dir / "net.nnue"
    if not (gen_dir / "train.done").exists():
        print(f"gen {gen}: train", flush=True)
        out = gen_dir / "last.nnue" if held_out else net
        cmd = [args.cutoff, "--game", args.game, "train", "--data", str(data),
               "--out", str(out), "--threads", str(args.threads),
               "--seed", str(args.seed + gen), *shlex.split(args.train_args)]
        if args.fine_tune:
            cmd += ["--init", current]
        if held_out:
            cmd += ["--validation-data", str(held_out), "--checkpoints", str(gen_dir / "ck")]
        run_logged(cmd, gen_dir / "train.log")
        if held_out:
            best, loss = best_checkpoint(gen_dir / "train.log")
            print(f"gen {gen}: {best} has the lowest held-out loss, {loss}", flush=True)
            shutil.copyfile(best, net)
        (gen_dir / "train.done").touch()
    return str(net)


def engine_args(cutoff, name, net, game):
    """`-engine` arguments for cutoff playing `game` with `net`."""
    spec = ["-engine", f"cmd={cutoff}", f"name={name}", f"args=--game {game}"]
    if net != BUILTIN:
        spec.append(f"option.EvalFile={net}")
    return spec


def match(args, gen, new_net, current, gen_dir):
    """Plays the new net against the current one; returns the pentanomial Elo, lower and
    upper bound of its 95% interval (infinite when every game was won or every one lost)."""
    result = gen_dir / "match.json"
    if not result.exists():
        print(f"gen {gen}: match {2 * args.match_rounds} games at {args.tc}", flush=True)
        book = ROOT / "openings" / f"{args.game}.txt"
        cmd = [args.cutoff, "match", "-game", args.game]
        for name, net in (("new", new_net), ("current", current)):
            cmd += engine_args(args.cutoff, name, net, args.game)
        cmd += ["-each", "proto=ugi", f"tc={args.tc}", "option.Threads=1", "timemargin=50",
                "-rounds", str(args.match_rounds), "-games", "2", "-repeat",
                "-concurrency", str(args.concurrency), "-srand", str(args.seed + gen),
                "-jsonout", f"file={result}.partial", "-quiet"]
        if book.is_file():
            cmd += ["-openings", f"file={book}", "format=moves", "order=random"]
        run_logged(cmd, gen_dir / "match.log")
        os.replace(f"{result}.partial", result)
    report = json.loads(result.read_text())
    pairing = report["pairings"][0]
    if pairing["first"] != "new":
        sys.exit(f"{result}: the first engine is not 'new'")
    wdl = pairing["wdl"]
    games = wdl["wins"] + wdl["draws"] + wdl["losses"]
    score = (wdl["wins"] + wdl["draws"] / 2) / games if games else 0.5
    # Every game won or lost: the runner gives no finite Elo, the score decides.
    unbounded = float("inf") if score > 0.5 else float("-inf")
    elo = pairing["elo_penta"]
    return tuple(unbounded if elo[k] is None else elo[k] for k in ("elo", "lower", "upper"))


def generation(args, gen, current):
    """Runs generation gen from the net `current`; returns the net current after it."""
    gen_dir = Path(args.dir) / f"gen{gen:02d}"
    gen_dir.mkdir(parents=True, exist_ok=True)
    datagen(args, gen, current, gen_dir)
    window = range(max(0, gen - args.window + 1), gen + 1)
    chunks = [sorted((Path(args.dir) / f"gen{g:02d}" / "data").glob("*.bin")) for g in window]
    held_out = chunks[-1][-1] if args.hold_out else None
    # With --hold-out no generation's last chunk is trained on: each was held out once.
    files = [f for gen_chunks in chunks
             for f in (gen_chunks[:-1] if args.hold_out else gen_chunks)]
    data = shuffle(args, gen, files, gen_dir)
    new_net = train(args, gen, data, gen_dir, current, held_out)
    elo, lower, upper = match(args, gen, new_net, current, gen_dir)
    kept = elo > 0 if args.keep == "positive" else lower > 0
    print(f"gen {gen}: Elo {elo:+.1f} [{lower:+.1f}, {upper:+.1f}]: "
          f"{'kept' if kept else 'not kept'}", flush=True)
    (gen_dir / "verdict.tsv").write_text(
        f"{gen}\t{new_net}\t{elo:.1f}\t{lower:.1f}\t{upper:.1f}\t{kept}\n")
    verdicts = sorted(Path(args.dir).glob("gen*/verdict.tsv"))
    (Path(args.dir) / "history.tsv").write_text("".join(v.read_text() for v in verdicts))
    return new_net if kept else current


def main(argv):
    args = parse_args(argv)
    top = Path(args.dir)
    top.mkdir(parents=True, exist_ok=True)
    state = top / "current"
    done = top / "generations.done"
    current = state.read_text().strip() if state.exists() else args.start_net
    first = int(done.read_text()) if done.exists() else 0
    if args.fine_tune and current == BUILTIN:
        sys.exit("--fine-tune needs --start-net FILE: the built-in net has no file to start from")
    for gen in range(first, args.generations):
        current = generation(args, gen, current)
        state.write_text(current + "\n")
        done.write_text(f"{gen + 1}\n")
    print(f"current net: {current}")


if __name__ == "__main__":
    main(sys.argv[1:])
