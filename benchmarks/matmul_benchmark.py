"""Matrix products and linear: opal's register-tiled kernels against PyTorch 1.13.

float32 on one thread each (--threads to change), interleaved round by
round: `mm` at a square and two rectangular shapes, and `linear` (input
256 x 1024, weight 4096 x 1024, bias) against the same product written as
`mm` of the transposed weight (made contiguous beforehand) plus `add`.
PyTorch's CPU build here multiplies with Debian's reference BLAS, so its
column says little about opal; the last two rows compare opal with itself
(linear reads its weight in place, the second row's weight was transposed
outside the timing). Prints min / median ms and PyTorch's median over
opal's.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/matmul_benchmark.py [--rounds N]
"""

import numpy as np
import torch

import opal

import interleaved

A = opal.ops.aten


def cases():
    rng = np.random.default_rng(0)
    out = []
    for m, k, n in [(1024, 1024, 1024), (64, 576, 3136), (3136, 576, 64)]:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        oa, ob = opal.tensor(a), opal.tensor(b)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        out.append((f"mm {m}x{k} by {k}x{n}", lambda oa=oa, ob=ob: A.mm(oa, ob),
                    lambda ta=ta, tb=tb: torch.mm(ta, tb)))
    x = rng.standard_normal((256, 1024)).astype(np.float32)
    w = rng.standard_normal((4096, 1024)).astype(np.float32)
    bias = rng.standard_normal(4096).astype(np.float32)
    ox, ow, ob = opal.tensor(x), opal.tensor(w), opal.tensor(bias)
    owt = opal.tensor(np.ascontiguousarray(w.T))
    tx, tw, tb = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(bias)
    out.append(("linear 256x1024, 4096 out", lambda: A.linear(ox, ow, ob),
                lambda: torch.nn.functional.linear(tx, tw, tb)))
    out.append(("mm (weight^T given) + add", lambda: A.add(A.mm(ox, owt), ob),
                lambda: torch.nn.functional.linear(tx, tw, tb)))
    return out


def main():
    interleaved.main(__doc__, cases, rounds=5, width=28, copy_column=False)


if __name__ == "__main__":
    main()
