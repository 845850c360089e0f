"""Matrix products and linear: opal's register-tiled kernels against PyTorch.

float32 on one thread each (--threads to change), interleaved round by
round: `mm` at a square, two rectangular shapes and three of few rows
(16 x 512 by 512 x 128 is an LSTM step's at batch 16), and `linear` (input
256 x 1024, weight 4096 x 1024, bias) against the same product written as
`mm` of the transposed weight (made contiguous beforehand) plus `add`.
Run it with the PyTorch of the bootstrap's environment (MKL; the script
prints what PyTorch multiplies with): Debian's PyTorch multiplies with the
reference BLAS, against which a ratio says little. The last two rows
compare opal with itself
(linear reads its weight in place, the second row's weight was transposed
outside the timing). Prints min / median microseconds and PyTorch's median over
opal's.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/matmul_benchmark.py \\
        [--rounds N] [--only TEXT]
"""

import numpy as np
import torch

import opal

import interleaved

A = opal.ops.aten


def cases():
    rng = np.random.default_rng(0)
    out = []
    # (The last three: products of few rows, which read B in place, unpacked:
    # a recurrent layer's step at batch 16, and one row.)
    for m, k, n in [(1024, 1024, 1024), (64, 576, 3136), (3136, 576, 64), (16, 512, 128),
                    (16, 128, 512), (1, 1024, 1024)]:
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
    interleaved.main(__doc__, cases, rounds=5, width=28, copy_column=False, unit="us")


if __name__ == "__main__":
    main()
