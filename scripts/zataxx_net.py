#!/usr/bin/env python3
"""zataxx_net.py NET6_BIN OUT: zataxx's net (`src/net6.bin` of its source, a
`(2916 -> 256) -> 1` SCReLU net of the side to move's 2x2 windows, QA 255, QB 64,
scale 400) written as a cutoff `Ataxx2x2` net file (nets/README.md), the other side's
output weights zero, so that `setoption name EvalFile value OUT` evaluates as zataxx
does (its `eval` command and cutoff's agreed on the positions compared). For measuring
only: with it, a match against zataxx measures the two searches alone (docs/ataxx.md)."""
import struct
import sys

INPUTS, HIDDEN = 2916, 256
FEATURE_SET_ID = 4  # Ataxx2x2
SCRELU = 0


def convert(raw):
    words = INPUTS * HIDDEN + 2 * HIDDEN + 1
    if len(raw) != 2 * words:
        sys.exit(f"{len(raw)} bytes: a zataxx net has {2 * words}")
    weights_and_bias = raw[: 2 * (INPUTS + 1) * HIDDEN]
    output_weights = raw[2 * (INPUTS + 1) * HIDDEN : 2 * (INPUTS + 2) * HIDDEN]
    output_bias = raw[2 * (INPUTS + 2) * HIDDEN :]
    net = weights_and_bias + output_weights + bytes(2 * HIDDEN) + output_bias
    net += b"cutoff" + bytes([2, SCRELU, FEATURE_SET_ID]) + struct.pack("<H", INPUTS)
    size = -(-len(net) // 64) * 64
    return net + bytes(size - len(net))


def main(source, out):
    with open(source, "rb") as f:
        net = convert(f.read())
    with open(out, "wb") as f:
        f.write(net)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
