"""Data movement and sorting: opal against PyTorch and against a copy.

Each op runs at about 16M float32 output elements (sort and topk at 4M),
opal and PyTorch interleaved round by round in one process, both on one
thread (torch.set_num_threads(1); opal's kernels here are single-threaded
or split in two halves for large elementwise work). "copy" is a clone of a
contiguous tensor of the output's bytes: the speed of memory, which a
gather-like op can at best reach. Reports min and median milliseconds and
the ratios of the medians.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/movement_benchmark.py [--rounds N]
"""


import numpy as np
import torch

import opal

import interleaved

A = opal.ops.aten
T = torch.ops.aten


def cases():
    rng = np.random.default_rng(0)
    big = rng.standard_normal((4096, 4096)).astype(np.float32)
    half = rng.standard_normal((4096, 2048)).astype(np.float32)
    rows = rng.permutation(4096).astype(np.int64)
    ids = rng.integers(0, 50000, 32768).astype(np.int64)
    table = rng.standard_normal((50000, 512)).astype(np.float32)
    along = rng.integers(0, 4096, (4096, 4096)).astype(np.int64)
    keys = rng.standard_normal((4096, 1024)).astype(np.float32)

    def both(array):
        return opal.tensor(array), torch.from_numpy(array.copy())

    ob, tb = both(big)
    oh, th = both(half)
    orows, trows = both(rows)
    oids, tids = both(ids)
    otable, ttable = both(table)
    oalong, talong = both(along)
    okeys, tkeys = both(keys)
    return [
        ("copy (clone) 16M", lambda: ob.clone(), lambda: tb.clone()),
        ("cat dim 0, 2 x 8M", lambda: A.cat([oh, oh], 0), lambda: T.cat([th, th], 0)),
        ("cat dim 1, 2 x 8M", lambda: A.cat([oh, oh], 1), lambda: T.cat([th, th], 1)),
        ("index_select rows 16M", lambda: A.index_select(ob, 0, orows),
         lambda: T.index_select(tb, 0, trows)),
        ("embedding 32768 x 512", lambda: A.embedding(otable, oids),
         lambda: T.embedding(ttable, tids)),
        ("gather dim 1, 16M", lambda: A.gather(ob, 1, oalong), lambda: T.gather(tb, 1, talong)),
        ("sort 4096 x 1024", lambda: A.sort(okeys, -1), lambda: T.sort(tkeys, -1)),
        ("topk 10 of 4096 x 1024", lambda: A.topk(okeys, 10), lambda: T.topk(tkeys, 10)),
    ]


def main():
    interleaved.main(__doc__, cases, width=26)


if __name__ == "__main__":
    main()
