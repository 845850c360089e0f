"""Row-wise ops over columns: opal against PyTorch on one thread.

softmax and log_softmax over dim 0 of a (4096, 1024) float32 matrix (each
column normalized: the column's max and sum are per-column values every
element reads) and batch norm in training on it (BatchNorm1d's layout),
with a clone of the matrix first for the speed of memory; the same softmax
on (256, 1024), which stays in the L2 cache. opal and PyTorch interleaved
round by round in one process; min and median milliseconds, PyTorch's
median over opal's, and the clone's median over each case's.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/columns_benchmark.py [--rounds N] [--threads T]
"""

import numpy as np
import torch

import opal

import interleaved

A = opal.ops.aten
T = torch.ops.aten


def cases():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 1024)).astype(np.float32)
    small = rng.standard_normal((256, 1024)).astype(np.float32)
    w = rng.standard_normal(1024).astype(np.float32)
    # (opal reads the same memory as PyTorch.)
    ox, osmall, ow = (opal.from_numpy(v) for v in (x, small, w))
    tx, tsmall, tw = (torch.from_numpy(v) for v in (x, small, w))
    # Training updates the running statistics in place: each side its own.
    om, ov = opal.from_numpy(np.zeros(1024, np.float32)), opal.from_numpy(np.ones(1024, np.float32))
    tm, tv = torch.zeros(1024), torch.ones(1024)
    return [
        ("copy", lambda: A.clone(ox), lambda: tx.clone()),
        ("softmax over dim 0", lambda: A._softmax(ox, 0, False), lambda: T._softmax(tx, 0, False)),
        ("log_softmax over dim 0", lambda: A._log_softmax(ox, 0, False),
         lambda: T._log_softmax(tx, 0, False)),
        ("batch_norm, training", lambda: A.native_batch_norm(ox, ow, ow, om, ov, True, 0.1, 1e-5),
         lambda: T.native_batch_norm(tx, tw, tw, tm, tv, True, 0.1, 1e-5)),
        ("softmax over dim 0, 256 rows", lambda: A._softmax(osmall, 0, False),
         lambda: T._softmax(tsmall, 0, False)),
    ]


def main():
    interleaved.main(__doc__, cases, rounds=31, width=30)


if __name__ == "__main__":
    main()
