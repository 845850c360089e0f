"""Reductions on data in the cache: opal against PyTorch 1.13.

Sums and row reductions of 64K and 256K float32 elements (256 KiB and
1 MiB: the core's L2 cache), where the speed of a reduction is that of its
chain of vector additions rather than that of memory: `sum` of everything,
`amax` over rows of 1024, softmax and layer_norm (weight and bias) over
rows of 1024. opal and PyTorch interleaved round by round in one process,
both on one thread by default (--threads); min and median microseconds per
call, and PyTorch's median over opal's. The call overhead of both
(about 1 us) is part of each time; PyTorch is called through its
functions (torch.sum, ...), its quickest path (torch.ops.aten adds about
5 us per call).

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/reduction_benchmark.py [--rounds N]
"""

import numpy as np
import torch
import torch.nn.functional as F

import opal

import interleaved

A = opal.ops.aten


def cases():
    rng = np.random.default_rng(0)
    out = []
    for n in (64 * 1024, 256 * 1024):
        x = rng.standard_normal(n).astype(np.float32)
        w = rng.standard_normal(1024).astype(np.float32)
        # (opal reads the same memory as PyTorch.)
        o, t = opal.from_numpy(x), torch.from_numpy(x)
        rows, trows = o.reshape([n // 1024, 1024]), t.reshape(n // 1024, 1024)
        ow, tw = opal.from_numpy(w), torch.from_numpy(w)
        k = n // 1024
        out += [
            (f"sum, {k}K", lambda o=o: A.sum(o), lambda t=t: torch.sum(t)),
            (f"amax rows of 1024, {k}K", lambda o=rows: A.amax(o, [1]),
             lambda t=trows: torch.amax(t, 1)),
            (f"softmax rows of 1024, {k}K", lambda o=rows: A._softmax(o, -1, False),
             lambda t=trows: torch._softmax(t, -1, False)),
            (f"layer_norm rows of 1024, {k}K",
             lambda o=rows, w=ow: A.layer_norm(o, [1024], w, w),
             lambda t=trows, w=tw: F.layer_norm(t, [1024], w, w)),
        ]
    return out


def main():
    interleaved.main(__doc__, cases, rounds=2001, width=30, copy_column=False, unit="us")


if __name__ == "__main__":
    main()
