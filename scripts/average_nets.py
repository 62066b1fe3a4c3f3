#!/usr/bin/env python3
"""average_nets.py OUT NET...: the nets' weights averaged, weight by weight (each `i16`
the rounded mean, ties to even), into OUT with the first net's tag. The nets must be of one
layout (feature set, width, activation, buckets: the same size and the same tag), and
only nets fine-tuned one from another (their hidden neurons matching) average into a
sensible net (nets/README.md)."""
import array
import sys

TAG = b"cutoff"


def weights_and_tag(path):
    with open(path, "rb") as f:
        data = f.read()
    start = data.rfind(TAG, max(0, len(data) - 128))
    if start < 0 or start % 2:
        sys.exit(f"{path}: no cutoff tag in the last 128 bytes")
    return array.array("h", data[:start]), data[start:]


def main(out, paths):
    nets = [weights_and_tag(path) for path in paths]
    weights, tag = nets[0]
    for path, (other, other_tag) in zip(paths[1:], nets[1:]):
        if len(other) != len(weights) or other_tag != tag:
            sys.exit(f"{path}: not of the layout of {paths[0]}")
    if sys.byteorder != "little":
        for w, _ in nets:
            w.byteswap()
    columns = zip(*(w for w, _ in nets))
    mean = array.array("h", (round(sum(c) / len(nets)) for c in columns))
    if sys.byteorder != "little":
        mean.byteswap()
    with open(out, "wb") as f:
        f.write(mean.tobytes() + tag)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
