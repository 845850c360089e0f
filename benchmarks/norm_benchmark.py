"""Normalizations on a ResNet-sized activation: opal against PyTorch.

group_norm (32 groups), batch_norm in training (statistics of the batch)
and in evaluation (running statistics), each with weight and bias, on
(32, 64, 56, 56) float32 (6.4M elements, 24.5 MiB), batch_norm in training
on a (4096, 1024) matrix (BatchNorm1d's layout: the channels are the
contiguous dim), and layer_norm with weight and bias over rows of 1024 of
as many elements as the first; a copy of the input first, for the speed of
memory. opal and PyTorch interleaved round by
round in one process, both on one thread by default (--threads), through
the aten ops (`native_group_norm`, `native_batch_norm`,
`native_layer_norm`); min and median milliseconds, PyTorch's median over
opal's, and the copy's median over each case's.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/norm_benchmark.py [--rounds N] [--threads T]
"""

import numpy as np
import torch

import opal

import interleaved

A = opal.ops.aten
T = torch.ops.aten


def cases():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 64, 56, 56)).astype(np.float32)
    w = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    rows = x.reshape(-1, 1024)
    lw = rng.standard_normal(1024).astype(np.float32)
    # (opal reads the same memory as PyTorch.)
    ox, ow, ob, orows, olw = (opal.from_numpy(v) for v in (x, w, b, rows, lw))
    tx, tw, tb, trows, tlw = (torch.from_numpy(v) for v in (x, w, b, rows, lw))
    mean, var = np.zeros(64, np.float32), np.ones(64, np.float32)
    # Training updates the running statistics in place: each side its own.
    om, ov = opal.from_numpy(mean.copy()), opal.from_numpy(var.copy())
    tm, tv = torch.from_numpy(mean.copy()), torch.from_numpy(var.copy())
    n, c, hw = 32, 64, 56 * 56
    flat = rng.standard_normal((4096, 1024)).astype(np.float32)
    fw = rng.standard_normal(1024).astype(np.float32)
    of, ofw = opal.from_numpy(flat), opal.from_numpy(fw)
    tf, tfw = torch.from_numpy(flat), torch.from_numpy(fw)
    ofm, ofv = opal.from_numpy(np.zeros(1024, np.float32)), opal.from_numpy(np.ones(1024, np.float32))
    tfm, tfv = torch.zeros(1024), torch.ones(1024)
    return [
        ("copy", lambda: A.clone(ox), lambda: tx.clone()),
        ("group_norm, 32 groups", lambda: A.native_group_norm(ox, ow, ob, n, c, hw, 32, 1e-5),
         lambda: T.native_group_norm(tx, tw, tb, n, c, hw, 32, 1e-5)),
        ("batch_norm, training", lambda: A.native_batch_norm(ox, ow, ob, om, ov, True, 0.1, 1e-5),
         lambda: T.native_batch_norm(tx, tw, tb, tm, tv, True, 0.1, 1e-5)),
        ("batch_norm, evaluation",
         lambda: A.native_batch_norm(ox, ow, ob, om, ov, False, 0.1, 1e-5),
         lambda: T.native_batch_norm(tx, tw, tb, tm, tv, False, 0.1, 1e-5)),
        ("batch_norm, training, 4096x1024",
         lambda: A.native_batch_norm(of, ofw, ofw, ofm, ofv, True, 0.1, 1e-5),
         lambda: T.native_batch_norm(tf, tfw, tfw, tfm, tfv, True, 0.1, 1e-5)),
        ("layer_norm, rows of 1024", lambda: A.native_layer_norm(orows, [1024], olw, olw, 1e-5),
         lambda: T.native_layer_norm(trows, [1024], tlw, tlw, 1e-5)),
    ]


def main():
    interleaved.main(__doc__, cases, rounds=9, width=32)


if __name__ == "__main__":
    main()
