"""Row-wise ops over rows of 4096: opal against PyTorch 1.13.

softmax, log_softmax and layer_norm (without weight and bias) over the
last dim of a (4096, 4096) float32 matrix (64 MiB), a clone of it first
for the speed of memory. opal and PyTorch interleaved round by round in
one process, at the same thread count (--threads, 1 by default); min and
median milliseconds, PyTorch's median over opal's, and the clone's median
over each case's (the same bytes are read and written).

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/rows_benchmark.py [--rounds N] [--threads T]
"""

import numpy as np
import torch

import opal

import interleaved

A = opal.ops.aten
T = torch.ops.aten


def cases():
    x = np.random.default_rng(0).standard_normal((4096, 4096)).astype(np.float32)
    # (opal reads the same memory as PyTorch.)
    ox, tx = opal.from_numpy(x), torch.from_numpy(x)
    return [
        ("copy", lambda: A.clone(ox), lambda: tx.clone()),
        ("softmax", lambda: A._softmax(ox, -1, False), lambda: T._softmax(tx, -1, False)),
        ("log_softmax", lambda: A._log_softmax(ox, -1, False),
         lambda: T._log_softmax(tx, -1, False)),
        ("layer_norm", lambda: A.native_layer_norm(ox, [4096], None, None, 1e-5),
         lambda: T.native_layer_norm(tx, [4096], None, None, 1e-5)),
    ]


def main():
    interleaved.main(__doc__, cases, rounds=15, width=14)


if __name__ == "__main__":
    main()
